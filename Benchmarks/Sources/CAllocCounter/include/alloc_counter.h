// Counts heap allocations for the benchmark.
//
// The target defines malloc, calloc, realloc, free, posix_memalign, aligned_alloc, memalign,
// valloc and pvalloc, each forwarding to glibc's __libc_* entry points. Linked into the
// executable, these definitions interpose on every caller in the process (the Swift runtime,
// libc, Foundation) through the dynamic symbol table. Counting is off until
// alloc_counter_set_enabled(1); the counters are relaxed atomics, so counting costs one
// uncontended atomic add per call.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Totals since the last alloc_counter_reset(), counted while enabled.
typedef struct {
  /// malloc, calloc, posix_memalign, aligned_alloc, memalign, valloc, pvalloc, and realloc of NULL.
  uint64_t allocations;
  /// realloc of a live pointer (a resize: it may move, so it counts as an allocation too).
  uint64_t reallocations;
  /// free of a non-NULL pointer.
  uint64_t frees;
  /// Bytes requested by the calls above.
  uint64_t bytes;
} alloc_counter_totals;

/// Turns counting on (nonzero) or off (0) for every thread.
void alloc_counter_set_enabled(int enabled);

/// Zeroes the totals.
void alloc_counter_reset(void);

/// The totals so far.
alloc_counter_totals alloc_counter_read(void);

/// allocations + reallocations so far: the number the benchmark reports per callback.
uint64_t alloc_counter_events(void);

/// 1 when this target's malloc is the one the process uses (checked by calling malloc through
/// a pointer looked up at run time, so the answer does not depend on how this file was linked).
int alloc_counter_is_interposed(void);

#ifdef __cplusplus
}
#endif
