// Eight-lane vectors of GCC/Clang's vector extensions, loaded and stored at any alignment.
#pragma once

#include <limits.h>  // glibc's feature macros

// On x86-64 Linux with glibc each loop is also built for AVX2 and the loader picks the build the
// processor runs (an ifunc). No FMA: the same products and sums, eight lanes instead of four, so
// both builds give the same bits. Not under ThreadSanitizer: it instruments the ifunc's
// resolver, which the loader runs before the sanitizer's runtime is set up (the test binary of
// `make tsan` crashed in `__tsan_func_entry` from `pcmmix_core_echo_predict[resolver]` before
// its first test), so a TSan build runs the default loops, which give the same bits.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PCM_NO_CLONES 1
#endif
#endif
#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && defined(__clang__) && \
    !defined(PCM_NO_CLONES)
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

/// Swift's `max` and `min` of two floats: the second where it is greater or equal (less).
PCM_INLINE float pcm_swift_max(float a, float b) { return b >= a ? b : a; }
PCM_INLINE float pcm_swift_min(float a, float b) { return b < a ? b : a; }

// The vector primitives below are macros, not inline functions: at -O0 (an adopter's Debug
// build: Xcode compiles a package dependency -O0) an inline function's vector arguments and
// result go through the stack, and a 32-byte vector on a target without AVX is passed in memory
// eight bytes at a time. The resampler's blended-row dot product for two planes took 273–283 ns
// a call there through the functions and 195–206 ns through the macros (176 taps; -O2: 51–64 ns
// either way, the same bits). Each argument is read once, into a local, so no expression is
// evaluated twice or merged into the caller's (the files' FP_CONTRACT OFF applies either way).
#define pcm_load(p) ((pcm_v8f)(*(const pcm_v8f_u *)(p)))
#define pcm_store(p, v) ((void)(*(pcm_v8f_u *)(p) = (v)))
#define pcm_splat(x)                                                                           \
  ({                                                                                           \
    const float splat_x_ = (x);                                                                \
    (pcm_v8f){splat_x_, splat_x_, splat_x_, splat_x_, splat_x_, splat_x_, splat_x_, splat_x_}; \
  })

/// The lanes added one by one from -0, as Swift's `SIMD.sum()` adds them.
#define pcm_sum(v)                                                       \
  ({                                                                     \
    const pcm_v8f sum_v_ = (v);                                          \
    float sum_r_ = -0.0f;                                                \
    for (int sum_i_ = 0; sum_i_ < 8; sum_i_++) sum_r_ += sum_v_[sum_i_]; \
    sum_r_;                                                              \
  })

#if defined(__aarch64__)
#if !__has_builtin(__builtin_elementwise_fma)
#include <arm_neon.h>
#endif

/// `a * b + c` rounded once, lane by lane (fmla): what the AVX2 kernels' _mm256_fmadd_ps(a, b, c)
/// computes, for the arm64 forms of the resampler's kernels (resample.c). Explicit, so the
/// file's FP_CONTRACT OFF leaves it fused.
#if __has_builtin(__builtin_elementwise_fma)
#define pcm_fma(a, b, c) __builtin_elementwise_fma((pcm_v8f)(a), (pcm_v8f)(b), (pcm_v8f)(c))
#else
// Compilers before the builtin (Clang 17): the two halves by intrinsic.
PCM_INLINE pcm_v8f pcm_fma(pcm_v8f a, pcm_v8f b, pcm_v8f c) {
  const pcm_v4f lo = (pcm_v4f)vfmaq_f32((float32x4_t)__builtin_shufflevector(c, c, 0, 1, 2, 3),
                                        (float32x4_t)__builtin_shufflevector(a, a, 0, 1, 2, 3),
                                        (float32x4_t)__builtin_shufflevector(b, b, 0, 1, 2, 3));
  const pcm_v4f hi = (pcm_v4f)vfmaq_f32((float32x4_t)__builtin_shufflevector(c, c, 4, 5, 6, 7),
                                        (float32x4_t)__builtin_shufflevector(a, a, 4, 5, 6, 7),
                                        (float32x4_t)__builtin_shufflevector(b, b, 4, 5, 6, 7));
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
}
#endif

/// The lanes summed as the AVX2 kernels' hsum sums them: lanes i and i + 4 added, then
/// (0 + 2) and (1 + 3), then those two.
#define pcm_hsum(v)                                                                 \
  ({                                                                                \
    const pcm_v8f hsum_v_ = (v);                                                    \
    const pcm_v4f hsum_s_ = __builtin_shufflevector(hsum_v_, hsum_v_, 0, 1, 2, 3) + \
                            __builtin_shufflevector(hsum_v_, hsum_v_, 4, 5, 6, 7);  \
    (hsum_s_[0] + hsum_s_[2]) + (hsum_s_[1] + hsum_s_[3]);                          \
  })
#endif
