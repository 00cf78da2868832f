// Atomic loads and stores on a word, for the lock-free hand-off between capture callbacks and the
// pull (PCMMix's RealtimeCapturePipeline). Swift's own Synchronization.Atomic needs iOS 18 /
// macOS 15; these compiler builtins work wherever clang does, and ThreadSanitizer sees them.
#ifndef PCMMIX_ATOMICS_H
#define PCMMIX_ATOMICS_H

#include <stddef.h>
#include <stdint.h>

#define PCMMIX_INLINE static inline __attribute__((always_inline))

PCMMIX_INLINE intptr_t pcmmix_load_acquire(const intptr_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

PCMMIX_INLINE void pcmmix_store_release(intptr_t *p, intptr_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

PCMMIX_INLINE intptr_t pcmmix_load_relaxed(const intptr_t *p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}

PCMMIX_INLINE void pcmmix_store_relaxed(intptr_t *p, intptr_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/// Stores `v` and returns what was there, ordered both ways.
PCMMIX_INLINE intptr_t pcmmix_exchange(intptr_t *p, intptr_t v) {
  return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL);
}

/// Sets `*p` to `desired` if it holds `expected`; returns what it held before.
PCMMIX_INLINE intptr_t pcmmix_compare_exchange(intptr_t *p, intptr_t expected, intptr_t desired) {
  __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  return expected;
}

/// Adds `v` and returns the old value (a counter: no ordering).
PCMMIX_INLINE intptr_t pcmmix_fetch_add_relaxed(intptr_t *p, intptr_t v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

// A pthread mutex behind an opaque pointer (atomics.c), for PCMMix's one lock (`Locked`): so the
// Swift code imports no C library module for it, and the Embedded Swift build of the core
// (`make arm64-check`) compiles the same Swift. ThreadSanitizer still sees the pthread calls.
typedef struct pcmmix_mutex pcmmix_mutex;

/// Bytes (and the alignment, at most 16) of storage a mutex needs; the caller allocates it.
size_t pcmmix_mutex_size(void);
/// Makes the storage at `m` an unlocked mutex.
void pcmmix_mutex_init(pcmmix_mutex *m);
void pcmmix_mutex_lock(pcmmix_mutex *m);
/// 1 when it took the lock, 0 when another thread holds it (without waiting).
int pcmmix_mutex_trylock(pcmmix_mutex *m);
void pcmmix_mutex_unlock(pcmmix_mutex *m);
/// Ends the mutex; the caller frees the storage.
void pcmmix_mutex_destroy(pcmmix_mutex *m);

#endif
