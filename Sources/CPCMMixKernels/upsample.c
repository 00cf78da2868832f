// Integer-ratio upsampling (one input sample to `up` outputs: 8, 9.6 or 16 kHz into 48 kHz)
// in direct form, for AVX2 + FMA and for AVX-512F.
//
// Output a = n·up + p (p the phase) is row p dotted with the window from input n. Sixteen
// outputs of one phase at consecutive n read sixteen consecutive input samples per tap, so a
// vector of input is one load, and a row's tap is one broadcast that serves every block of
// sixteen: per tap, B input loads and `up` broadcasts feed B·up multiply-adds (under 0.6 loads
// per multiply-add with B blocks of 16 at 16 kHz), where the sixteen-output group tables need
// a broadcast per multiply-add. The accumulators then hold the outputs phase by phase; a few
// permutes put them in time order.
//
// Every output is one chain of fused multiply-adds over its taps in order, from zero, whatever
// its lane, block or pass: so the AVX2 and AVX-512F functions give the same bits, and so does
// any split of the input into calls.
#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#define PCMMIX_TARGET2 __attribute__((target("avx2,fma")))
#define PCMMIX_TARGET512 __attribute__((target("avx512f,avx2,fma")))

// The most blocks and the largest factor any pass takes (sizes the stack buffer).
enum { MOST_BLOCKS = 6, MOST_UP = 6 };

// Copies outputs lo ..< hi (counted from the first output of the call's first window) of one
// channel from `phased` (time order, from output a0) into `out`, interleaved.
static inline void emit(const float *phased, long a0, long lo, long hi, long first,
                        long channels, long c, float *out) {
  const float *src = phased + (lo - a0);
  float *dst = out + (lo - first) * channels + c;
  const long n = hi - lo;
  if (channels == 1) {
    memcpy(dst, src, (size_t)n * sizeof(float));
    return;
  }
  for (long i = 0; i < n; i++) dst[i * channels] = src[i];
}

// emit for channels c and c + 1 at once (from `left` and `right`); a stereo frame is two
// neighbouring floats, so four frames go per pair of stores.
static inline void emit2(const float *left, const float *right, long a0, long lo, long hi,
                         long first, long channels, long c, float *out) {
  if (channels != 2) {
    emit(left, a0, lo, hi, first, channels, c, out);
    emit(right, a0, lo, hi, first, channels, c + 1, out);
    return;
  }
  const float *l = left + (lo - a0), *r = right + (lo - a0);
  float *dst = out + (lo - first) * 2;
  const long n = hi - lo;
  long i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 a = _mm_loadu_ps(l + i), b = _mm_loadu_ps(r + i);
    _mm_storeu_ps(dst + 2 * i, _mm_unpacklo_ps(a, b));
    _mm_storeu_ps(dst + 2 * i + 4, _mm_unpackhi_ps(a, b));
  }
  for (; i < n; i++) {
    dst[2 * i] = l[i];
    dst[2 * i + 1] = r[i];
  }
}

// One pass of AVX-512F: B blocks of sixteen window starts, every phase, of one channel plane
// `x`, into `phased` in time order (B·16·up floats).
PCMMIX_TARGET512 static inline __attribute__((always_inline)) void
pass512(const float *h, long taps, const float *x, float *phased, const int up, const int B) {
  __m512 acc[MOST_UP][MOST_BLOCKS];
  for (int p = 0; p < up; p++)
    for (int b = 0; b < B; b++) acc[p][b] = _mm512_setzero_ps();
  for (long k = 0; k < taps; k++, h += up) {
    __m512 in[MOST_BLOCKS];
    for (int b = 0; b < B; b++) in[b] = _mm512_loadu_ps(x + 16 * b + k);
    for (int p = 0; p < up; p++) {
      const __m512 c = _mm512_set1_ps(h[p]);
      for (int b = 0; b < B; b++) acc[p][b] = _mm512_fmadd_ps(c, in[b], acc[p][b]);
    }
  }
  // Time order: vector r of a block holds outputs o = 16r ..< 16r + 16, output o from lane
  // o / up of phase o % up's accumulator. The indices are constants (the compiler folds them).
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int r = 0; r < up; r++) {
    const __m512i o = _mm512_add_epi32(iota, _mm512_set1_epi32(16 * r));
    // o / up for o < 128, by a multiply and a shift.
    const __m512i lane = _mm512_srli_epi32(
        _mm512_mullo_epi32(o, _mm512_set1_epi32((65536 + up - 1) / up)), 16);
    const __m512i phase = _mm512_sub_epi32(o, _mm512_mullo_epi32(lane, _mm512_set1_epi32(up)));
    for (int b = 0; b < B; b++) {
      __m512 v = _mm512_permutexvar_ps(lane, acc[0][b]);
      for (int p = 1; p < up; p++) {
        const __mmask16 from = _mm512_cmpeq_epi32_mask(phase, _mm512_set1_epi32(p));
        v = _mm512_mask_permutexvar_ps(v, from, lane, acc[p][b]);
      }
      _mm512_storeu_ps(phased + (b * up + r) * 16, v);
    }
  }
}

// One pass of AVX2: B blocks of eight window starts; the same chain per output as pass512.
PCMMIX_TARGET2 static inline __attribute__((always_inline)) void
pass2(const float *h, long taps, const float *x, float *phased, const int up, const int B) {
  __m256 acc[MOST_UP][MOST_BLOCKS];
  for (int p = 0; p < up; p++)
    for (int b = 0; b < B; b++) acc[p][b] = _mm256_setzero_ps();
  for (long k = 0; k < taps; k++, h += up) {
    __m256 in[MOST_BLOCKS];
    for (int b = 0; b < B; b++) in[b] = _mm256_loadu_ps(x + 8 * b + k);
    for (int p = 0; p < up; p++) {
      const __m256 c = _mm256_set1_ps(h[p]);
      for (int b = 0; b < B; b++) acc[p][b] = _mm256_fmadd_ps(c, in[b], acc[p][b]);
    }
  }
  // Time order as in pass512, eight outputs per vector: a permute per phase, then a blend.
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int r = 0; r < up; r++) {
    const __m256i o = _mm256_add_epi32(iota, _mm256_set1_epi32(8 * r));
    const __m256i lane = _mm256_srli_epi32(
        _mm256_mullo_epi32(o, _mm256_set1_epi32((65536 + up - 1) / up)), 16);
    const __m256i phase = _mm256_sub_epi32(o, _mm256_mullo_epi32(lane, _mm256_set1_epi32(up)));
    for (int b = 0; b < B; b++) {
      __m256 v = _mm256_permutevar8x32_ps(acc[0][b], lane);
      for (int p = 1; p < up; p++) {
        const __m256 from = _mm256_castsi256_ps(_mm256_cmpeq_epi32(phase, _mm256_set1_epi32(p)));
        v = _mm256_blendv_ps(v, _mm256_permutevar8x32_ps(acc[p][b], lane), from);
      }
      _mm256_storeu_ps(phased + (b * up + r) * 8, v);
    }
  }
}

typedef void (*pass_fn)(const float *, long, const float *, float *);

// One noinline function per (factor, blocks), each with its own registers.
#define PASS512(u, b)                                                                      \
  PCMMIX_TARGET512 static __attribute__((noinline)) void pass512_##u##_##b(                \
      const float *h, long taps, const float *x, float *phased) {                          \
    pass512(h, taps, x, phased, u, b);                                                     \
  }
#define PASS2(u, b)                                                                        \
  PCMMIX_TARGET2 static __attribute__((noinline)) void pass2_##u##_##b(                    \
      const float *h, long taps, const float *x, float *phased) {                          \
    pass2(h, taps, x, phased, u, b);                                                       \
  }

// The factors 3, 5 and 6 only: with 2, 4 and 8 the AVX2 passes (16 registers: too few blocks
// per pass) measured slower than the group functions, and both sets must take the same factors
// to give the same bits.
// AVX-512F: up·B accumulators, B inputs and a broadcast within 32 registers.
PASS512(3, 1) PASS512(3, 2) PASS512(3, 3) PASS512(3, 4) PASS512(3, 5) PASS512(3, 6)
PASS512(5, 1) PASS512(5, 2) PASS512(5, 3) PASS512(5, 4)
PASS512(6, 1) PASS512(6, 2) PASS512(6, 3) PASS512(6, 4)

// AVX2: within 16 registers.
PASS2(3, 1) PASS2(3, 2) PASS2(3, 3)
PASS2(5, 1) PASS2(5, 2)
PASS2(6, 1) PASS2(6, 2)

static const pass_fn passes512[MOST_UP + 1][MOST_BLOCKS + 1] = {
    [3] = {0, pass512_3_1, pass512_3_2, pass512_3_3, pass512_3_4, pass512_3_5, pass512_3_6},
    [5] = {0, pass512_5_1, pass512_5_2, pass512_5_3, pass512_5_4},
    [6] = {0, pass512_6_1, pass512_6_2, pass512_6_3, pass512_6_4},
};
static const int most512[MOST_UP + 1] = {0, 0, 0, 6, 0, 4, 4};

static const pass_fn passes2[MOST_UP + 1][MOST_BLOCKS + 1] = {
    [3] = {0, pass2_3_1, pass2_3_2, pass2_3_3},
    [5] = {0, pass2_5_1, pass2_5_2},
    [6] = {0, pass2_6_1, pass2_6_2},
};
static const int most2[MOST_UP + 1] = {0, 0, 0, 3, 0, 2, 2};

// The loop both share: blocks of `lanes` window starts, as many per pass as the table allows
// (what is left between one and two passes' worth in halves), each channel into `phased`, then
// the outputs of the call's range into `out`.
static void run(const pass_fn *table, int most, long lanes, const float *h, long taps,
                long up, const float *x, long stride, long channels, long phase, long count,
                float *out) {
  float phased[2][MOST_BLOCKS * 16 * MOST_UP];
  const long first = phase, end = phase + count;
  const long per = lanes * up;
  const long blocks = (end + per - 1) / per;
  long b = 0;
  while (b < blocks) {
    const long left = blocks - b;
    const long m = left <= most ? left : left < 2 * most ? (left + 1) / 2 : most;
    const long a0 = b * per, a1 = a0 + m * per;
    const long lo = a0 > first ? a0 : first, hi = a1 < end ? a1 : end;
    const float *xb = x + b * lanes;
    long c = 0;
    for (; c + 2 <= channels; c += 2) {
      table[m](h, taps, xb + c * stride, phased[0]);
      table[m](h, taps, xb + (c + 1) * stride, phased[1]);
      emit2(phased[0], phased[1], a0, lo, hi, first, channels, c, out);
    }
    if (c < channels) {
      table[m](h, taps, xb + c * stride, phased[0]);
      emit(phased[0], a0, lo, hi, first, channels, c, out);
    }
    b += m;
  }
}

PCMMIX_TARGET512 void pcmmix_upsample_run_512(const float *h, long taps, long up,
                                              const float *x, long stride, long channels,
                                              long phase, long count, float *out) {
  run(passes512[up], most512[up], 16, h, taps, up, x, stride, channels, phase, count, out);
}

PCMMIX_TARGET2 void pcmmix_upsample_run(const float *h, long taps, long up, const float *x,
                                        long stride, long channels, long phase, long count,
                                        float *out) {
  run(passes2[up], most2[up], 8, h, taps, up, x, stride, channels, phase, count, out);
}

#endif
