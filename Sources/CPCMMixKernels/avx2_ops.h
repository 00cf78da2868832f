// The AVX2 + FMA kernels' vector operations as macros (avx2_resample.c, upsample.c).
//
// The hot loops name their operations through these rather than the intrinsics. An intrinsic
// is an inline function, and at -O0 (an adopter's Debug build: Xcode compiles a package
// dependency -O0) each of its vector arguments and its result goes through the stack, eight
// bytes at a time: pcmmix_lerp_dot2 took 1.74 us a call there (176 taps), 56 times its -O2
// time, and a Debug pull with the accelerated resampler took about four times the portable
// one's. Through these macros it takes 0.20 us at -O0. They are what the intrinsics expand to
// (the FMA builtin, the vector extensions' operators, an unaligned load), so the instructions
// and their bits are the same at -O2, and nothing is passed by value at -O0. Each argument is
// read once, into a local where it is used more than once.
#pragma once

#include <immintrin.h>

#define LOAD(p) ((__m256)(*(const __m256_u *)(p)))
#define FMADD(a, b, c) ((__m256)__builtin_ia32_vfmaddps256((__v8sf)(a), (__v8sf)(b), (__v8sf)(c)))
#define SPLAT(x)                                                                              \
  ({                                                                                          \
    const float splat_x_ = (x);                                                               \
    (__m256){splat_x_, splat_x_, splat_x_, splat_x_, splat_x_, splat_x_, splat_x_, splat_x_}; \
  })
#define ZERO ((__m256){0})
// Lanes i and i + 4 added, then (0 + 2) and (1 + 3), then those two: _mm_movehl_ps and
// _mm_movehdup_ps's pairing.
#define HSUM(v)                                                                    \
  ({                                                                               \
    const __m256 hsum_v_ = (v);                                                    \
    const __m128 hsum_s_ = __builtin_shufflevector(hsum_v_, hsum_v_, 0, 1, 2, 3) + \
                           __builtin_shufflevector(hsum_v_, hsum_v_, 4, 5, 6, 7);  \
    (hsum_s_[0] + hsum_s_[2]) + (hsum_s_[1] + hsum_s_[3]);                         \
  })
