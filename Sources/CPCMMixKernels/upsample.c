// Upsampling in direct form (3, 5 or 6 outputs per input sample: 16, 9.6 or 8 kHz into 48 kHz;
// and 3 per 2: 32 kHz), for AVX2 + FMA and for AVX-512F.
//
// Number the outputs in runs of `up`: output a = m·up + p uses the row of phase p·down mod up,
// and its window starts p·down / up samples after input m·down. So sixteen outputs with the
// same p at consecutive m read input m·down + s for sixteen consecutive m at each step s: with
// `down` 1 that is one vector load; with `down` 2 one load from the even or the odd samples,
// split apart first. A step's coefficient is one broadcast that serves every block of sixteen:
// per step, B input loads and `up` broadcasts feed B·up multiply-adds (under 0.6 loads per
// multiply-add with B blocks of 16 at 16 kHz), where the sixteen-output group tables need a
// broadcast per multiply-add. The accumulators then hold the outputs phase by phase; a few
// permutes put them in time order. The table (UpsampleTable in Swift) is laid out step-major,
// each phase's row shifted to where its window starts, so every output runs over the same
// steps (a zero coefficient before and after its row).
//
// Every output is one chain of fused multiply-adds over its steps in order, from zero, whatever
// its lane, block or pass: so the AVX2 and AVX-512F functions give the same bits, and so does
// any split of the input into calls.
#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#include "avx2_ops.h"

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

// One step of a pass: the `up` coefficients at `h` against the input vectors at `x`, 16 apart.
PCMMIX_TARGET512 static inline __attribute__((always_inline)) void
step512(__m512 acc[][MOST_BLOCKS], const float *h, const float *x, const int up, const int B) {
  __m512 in[MOST_BLOCKS];
  for (int b = 0; b < B; b++) in[b] = _mm512_loadu_ps(x + 16 * b);
  for (int p = 0; p < up; p++) {
    const __m512 c = _mm512_set1_ps(h[p]);
    for (int b = 0; b < B; b++) acc[p][b] = _mm512_fmadd_ps(c, in[b], acc[p][b]);
  }
}

// One pass of AVX-512F: B blocks of sixteen consecutive m, every phase, of one channel, into
// `phased` in time order (B·16·up floats). Output m·up + p sums h[s·up + p] times input
// m·down + s over the `steps` s; with `down` 2 the input comes as its even samples `e` and odd
// samples `o` (so input m·2 + s is e[m + s / 2] or o[m + s / 2]), else all of it in `e`.
PCMMIX_TARGET512 static inline __attribute__((always_inline)) void
pass512(const float *h, long steps, const float *e, const float *o, float *phased, const int up,
        const int down, const int B) {
  __m512 acc[MOST_UP][MOST_BLOCKS];
  for (int p = 0; p < up; p++)
    for (int b = 0; b < B; b++) acc[p][b] = _mm512_setzero_ps();
  if (down == 1) {
    for (long s = 0; s < steps; s++, h += up) step512(acc, h, e + s, up, B);
  } else {
    long s = 0;
    for (; s + 2 <= steps; s += 2, h += 2 * up) {
      step512(acc, h, e + s / 2, up, B);
      step512(acc, h + up, o + s / 2, up, B);
    }
    if (s < steps) step512(acc, h, e + s / 2, up, B);
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

PCMMIX_TARGET2 static inline __attribute__((always_inline)) void
step2(__m256 acc[][MOST_BLOCKS], const float *h, const float *x, const int up, const int B) {
  __m256 in[MOST_BLOCKS];
  for (int b = 0; b < B; b++) in[b] = LOAD(x + 8 * b);
  for (int p = 0; p < up; p++) {
    const __m256 c = SPLAT(h[p]);
    for (int b = 0; b < B; b++) acc[p][b] = FMADD(c, in[b], acc[p][b]);
  }
}

// One pass of AVX2: B blocks of eight m; the same chain per output as pass512.
PCMMIX_TARGET2 static inline __attribute__((always_inline)) void
pass2(const float *h, long steps, const float *e, const float *o, float *phased, const int up,
      const int down, const int B) {
  __m256 acc[MOST_UP][MOST_BLOCKS];
  for (int p = 0; p < up; p++)
    for (int b = 0; b < B; b++) acc[p][b] = ZERO;
  if (down == 1) {
    for (long s = 0; s < steps; s++, h += up) step2(acc, h, e + s, up, B);
  } else {
    long s = 0;
    for (; s + 2 <= steps; s += 2, h += 2 * up) {
      step2(acc, h, e + s / 2, up, B);
      step2(acc, h + up, o + s / 2, up, B);
    }
    if (s < steps) step2(acc, h, e + s / 2, up, B);
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

typedef void (*pass_fn)(const float *, long, const float *, const float *, float *);

// One noinline function per (factor, input step, blocks), each with its own registers.
#define PASS512(u, d, b)                                                                   \
  PCMMIX_TARGET512 static __attribute__((noinline)) void pass512_##u##_##d##_##b(          \
      const float *h, long steps, const float *e, const float *o, float *phased) {         \
    pass512(h, steps, e, o, phased, u, d, b);                                              \
  }
#define PASS2(u, d, b)                                                                     \
  PCMMIX_TARGET2 static __attribute__((noinline)) void pass2_##u##_##d##_##b(              \
      const float *h, long steps, const float *e, const float *o, float *phased) {         \
    pass2(h, steps, e, o, phased, u, d, b);                                                \
  }

// The ratios 3, 5 and 6 (16, 9.6 and 8 kHz into 48 kHz) and 3 : 2 (32 kHz) only: with 2, 4
// and 8 the AVX2 passes (16 registers: too few blocks per pass) measured slower than the group
// functions, and both sets must take the same ratios to give the same bits.
// AVX-512F: up·B accumulators, B inputs and a broadcast within 32 registers.
PASS512(3, 1, 1) PASS512(3, 1, 2) PASS512(3, 1, 3) PASS512(3, 1, 4) PASS512(3, 1, 5)
PASS512(3, 1, 6)
PASS512(5, 1, 1) PASS512(5, 1, 2) PASS512(5, 1, 3) PASS512(5, 1, 4)
PASS512(6, 1, 1) PASS512(6, 1, 2) PASS512(6, 1, 3) PASS512(6, 1, 4)
PASS512(3, 2, 1) PASS512(3, 2, 2) PASS512(3, 2, 3) PASS512(3, 2, 4) PASS512(3, 2, 5)
PASS512(3, 2, 6)

// AVX2: within 16 registers.
PASS2(3, 1, 1) PASS2(3, 1, 2) PASS2(3, 1, 3)
PASS2(5, 1, 1) PASS2(5, 1, 2)
PASS2(6, 1, 1) PASS2(6, 1, 2)
PASS2(3, 2, 1) PASS2(3, 2, 2) PASS2(3, 2, 3)

// Per ratio: the passes by block count, and the most blocks a pass takes.
typedef struct {
  pass_fn pass[MOST_BLOCKS + 1];
  int most;
} passes;

static const passes *passes_for(int wide, long up, long down) {
  static const passes w31 = {{0, pass512_3_1_1, pass512_3_1_2, pass512_3_1_3, pass512_3_1_4,
                              pass512_3_1_5, pass512_3_1_6}, 6};
  static const passes w51 = {{0, pass512_5_1_1, pass512_5_1_2, pass512_5_1_3, pass512_5_1_4}, 4};
  static const passes w61 = {{0, pass512_6_1_1, pass512_6_1_2, pass512_6_1_3, pass512_6_1_4}, 4};
  static const passes w32 = {{0, pass512_3_2_1, pass512_3_2_2, pass512_3_2_3, pass512_3_2_4,
                              pass512_3_2_5, pass512_3_2_6}, 6};
  static const passes n31 = {{0, pass2_3_1_1, pass2_3_1_2, pass2_3_1_3}, 3};
  static const passes n51 = {{0, pass2_5_1_1, pass2_5_1_2}, 2};
  static const passes n61 = {{0, pass2_6_1_1, pass2_6_1_2}, 2};
  static const passes n32 = {{0, pass2_3_2_1, pass2_3_2_2, pass2_3_2_3}, 3};
  if (down == 2) return wide ? &w32 : &n32;
  switch (up) {
  case 5: return wide ? &w51 : &n51;
  case 6: return wide ? &w61 : &n61;
  default: return wide ? &w31 : &n31;
  }
}

// With `down` 2 the input is split into its even and odd samples a chunk of CHUNK values of m
// at a time (so the window overlap is copied once per chunk, not once per pass); the most steps
// such a ratio may have (the header's PCMMIX_UPSAMPLE_MOST_SPLIT_STEPS) sizes the copies.
enum { CHUNK = 192, SPLIT = CHUNK + PCMMIX_UPSAMPLE_MOST_SPLIT_STEPS / 2 + 8 };

// The even samples of `src` into `e` and the odd ones into `o`, n of each (n a multiple of 4),
// the first `skip` samples (before the first output's window, perhaps before the plane) as
// zeros, unread.
static void split(const float *src, long skip, long n, float *e, float *o) {
  long i = 0;
  for (; 2 * i < skip; i++) {
    e[i] = 0;
    o[i] = 2 * i + 1 < skip ? 0 : src[2 * i + 1];
  }
  for (; i < n && (i & 3); i++) {
    e[i] = src[2 * i];
    o[i] = src[2 * i + 1];
  }
  for (; i < n; i += 4) {
    const __m128 a = _mm_loadu_ps(src + 2 * i), b = _mm_loadu_ps(src + 2 * i + 4);
    _mm_storeu_ps(e + i, _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm_storeu_ps(o + i, _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
  }
}

// The loop both share: chunks of blocks of `lanes` consecutive m; in each, every channel pair
// (with `down` 2 split into even and odd samples first), then passes of as many blocks as the
// ratio's passes take (what is left between one and two passes' worth in halves), each channel
// into `phased`, then the outputs of the call's range into `out`. A mono pass whose outputs all
// lie in the call's range writes them to `out` itself: copying them out of `phased` right after
// the pass stored them cost the AVX2 passes 11 to 16 % of their time (the copy's loads wait
// on those stores).
static void run(const passes *ps, long lanes, const float *h, long steps, long up, long down,
                const float *x, long stride, long channels, long phase, long count,
                float *out) {
  float phased[2][MOST_BLOCKS * 16 * MOST_UP];
  float even[2][SPLIT], odd[2][SPLIT];
  // Output a's input starts at m·down + s for m = a / up: the first output's window, at x,
  // starts `lead` samples after its m's.
  const long lead = phase * down / up;
  const float *base = x - lead;
  const long first = phase, end = phase + count;
  const long per = lanes * up;
  const long blocks = (end + per - 1) / per;
  const long chunk = down == 1 ? blocks : CHUNK / lanes;
  for (long c0 = 0; c0 < blocks; c0 += chunk) {
    const long c1 = c0 + chunk < blocks ? c0 + chunk : blocks;
    const long n = ((c1 - c0) * lanes + (steps + 1) / 2 + 1 + 3) / 4 * 4;
    for (long c = 0; c < channels; c += 2) {
      const long pair = c + 1 < channels ? 2 : 1;
      if (down != 1) {
        for (long k = 0; k < pair; k++) {
          const float *plane = base + (c + k) * stride + c0 * lanes * down;
          split(plane, c0 == 0 ? lead : 0, n, even[k], odd[k]);
        }
      }
      long b = c0;
      while (b < c1) {
        const long left = c1 - b;
        const long m =
            left <= ps->most ? left : left < 2 * ps->most ? (left + 1) / 2 : ps->most;
        const long a0 = b * per, a1 = a0 + m * per;
        const long lo = a0 > first ? a0 : first, hi = a1 < end ? a1 : end;
        const int in_place = channels == 1 && a0 >= first && a1 <= end;
        for (long k = 0; k < pair; k++) {
          float *to = in_place ? out + (a0 - first) : phased[k];
          if (down == 1) {
            ps->pass[m](h, steps, base + (c + k) * stride + b * lanes, 0, to);
          } else {
            const long at = (b - c0) * lanes;
            ps->pass[m](h, steps, even[k] + at, odd[k] + at, to);
          }
        }
        if (!in_place && pair == 2) {
          emit2(phased[0], phased[1], a0, lo, hi, first, channels, c, out);
        } else if (!in_place) {
          emit(phased[0], a0, lo, hi, first, channels, c, out);
        }
        b += m;
      }
    }
  }
}

PCMMIX_TARGET512 void pcmmix_upsample_run_512(const float *h, long steps, long up, long down,
                                              const float *x, long stride, long channels,
                                              long phase, long count, float *out) {
  run(passes_for(1, up, down), 16, h, steps, up, down, x, stride, channels, phase, count, out);
}

PCMMIX_TARGET2 void pcmmix_upsample_run(const float *h, long steps, long up, long down,
                                        const float *x, long stride, long channels, long phase,
                                        long count, float *out) {
  run(passes_for(0, up, down), 8, h, steps, up, down, x, stride, channels, phase, count, out);
}

#endif
