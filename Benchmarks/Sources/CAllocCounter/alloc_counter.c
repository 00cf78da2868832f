// Allocation counting by interposition; see include/alloc_counter.h.
#define _GNU_SOURCE
#include "alloc_counter.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <unistd.h>

// glibc's own implementations, exported for exactly this use (GLIBC_2.2.5).
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static int enabled;
static uint64_t allocations, reallocations, frees, bytes;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ADD(x, n) __atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED)

static inline void count_allocation(size_t size) {
  if (LOAD(enabled)) {
    ADD(allocations, 1);
    ADD(bytes, size);
  }
}

void *malloc(size_t size) {
  count_allocation(size);
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  count_allocation(count * size);
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  if (LOAD(enabled)) {
    if (pointer) {
      ADD(reallocations, 1);
    } else {
      ADD(allocations, 1);
    }
    ADD(bytes, size);
  }
  return __libc_realloc(pointer, size);
}

void free(void *pointer) {
  if (pointer && LOAD(enabled)) ADD(frees, 1);
  __libc_free(pointer);
}

static int is_power_of_two(size_t x) { return x && !(x & (x - 1)); }

int posix_memalign(void **result, size_t alignment, size_t size) {
  if (!is_power_of_two(alignment) || alignment % sizeof(void *)) return EINVAL;
  count_allocation(size);
  void *p = __libc_memalign(alignment, size);
  if (!p) return ENOMEM;
  *result = p;
  return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
  count_allocation(size);
  return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
  count_allocation(size);
  return __libc_memalign(alignment, size);
}

void *valloc(size_t size) {
  count_allocation(size);
  return __libc_valloc(size);
}

void *pvalloc(size_t size) {
  count_allocation(size);
  return __libc_pvalloc(size);
}

void alloc_counter_set_enabled(int on) { __atomic_store_n(&enabled, on != 0, __ATOMIC_RELAXED); }

void alloc_counter_reset(void) {
  __atomic_store_n(&allocations, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&reallocations, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&frees, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bytes, 0, __ATOMIC_RELAXED);
}

alloc_counter_totals alloc_counter_read(void) {
  alloc_counter_totals t = {LOAD(allocations), LOAD(reallocations), LOAD(frees), LOAD(bytes)};
  return t;
}

uint64_t alloc_counter_events(void) { return LOAD(allocations) + LOAD(reallocations); }

int alloc_counter_is_interposed(void) {
  void *(*resolved)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
  return resolved == malloc;
}
