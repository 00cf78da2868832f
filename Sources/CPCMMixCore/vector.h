// Eight-lane vectors of GCC/Clang's vector extensions, loaded and stored at any alignment.
#pragma once

#include <limits.h>  // glibc's feature macros

// On x86-64 Linux with glibc each loop is also built for AVX2 and the loader picks the build the
// processor runs (an ifunc). No FMA: the same products and sums, eight lanes instead of four, so
// both builds give the same bits.
#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && defined(__clang__)
#define PCM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PCM_CLONES
#endif

// Vectors wider than the baseline registers pass in memory between functions; every function
// that takes or returns one here is inlined, even at -O0.
#pragma clang diagnostic ignored "-Wpsabi"

#define PCM_INLINE static inline __attribute__((always_inline))

typedef float pcm_v8f __attribute__((vector_size(32)));
typedef int pcm_v8i __attribute__((vector_size(32)));
typedef double pcm_v4d __attribute__((vector_size(32)));
typedef float pcm_v4f __attribute__((vector_size(16)));
// The same with the alignment of one element, for loads and stores anywhere.
typedef float pcm_v8f_u __attribute__((vector_size(32), aligned(4)));
typedef int pcm_v8i_u __attribute__((vector_size(32), aligned(4)));
typedef float pcm_v4f_u __attribute__((vector_size(16), aligned(4)));

PCM_INLINE pcm_v8f pcm_load(const float *p) { return *(const pcm_v8f_u *)p; }
PCM_INLINE void pcm_store(float *p, pcm_v8f v) { *(pcm_v8f_u *)p = v; }
PCM_INLINE pcm_v8f pcm_splat(float x) { return (pcm_v8f){x, x, x, x, x, x, x, x}; }

/// The lanes added one by one from -0, as Swift's `SIMD.sum()` adds them.
PCM_INLINE float pcm_sum(pcm_v8f v) {
  float r = -0.0f;
  for (int i = 0; i < 8; i++) r += v[i];
  return r;
}
