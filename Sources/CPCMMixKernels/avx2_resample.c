// The built-in resampler's AVX2 + FMA kernels: dot products, blended-row dot products and
// sixteen-output groups. Compiled only for x86; pcmmix_kernels_available() says whether they run.
#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define PCMMIX_TARGET __attribute__((target("avx2,fma")))

#include "avx2_ops.h"

// The row blended between h0 and h1 at t (tv: t in every lane), eight taps from i: one subtract
// and one fused multiply-add, t · (h1 − h0) + h0.
#define BLEND(h0, h1, tv, i)                            \
  ({                                                    \
    const __m256 blend_x_ = LOAD((h0) + (i));           \
    FMADD((tv), LOAD((h1) + (i)) - blend_x_, blend_x_); \
  })

// Four accumulators per product hide the FMA latency; the tail takes the last 8 .. 24 taps.
PCMMIX_TARGET float pcmmix_dot(const float *h, const float *x, long n) {
  __m256 s0 = ZERO, s1 = ZERO, s2 = ZERO, s3 = ZERO;
  long i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = FMADD(LOAD(h + i), LOAD(x + i), s0);
    s1 = FMADD(LOAD(h + i + 8), LOAD(x + i + 8), s1);
    s2 = FMADD(LOAD(h + i + 16), LOAD(x + i + 16), s2);
    s3 = FMADD(LOAD(h + i + 24), LOAD(x + i + 24), s3);
  }
  for (; i < n; i += 8) {
    s0 = FMADD(LOAD(h + i), LOAD(x + i), s0);
  }
  return HSUM((s0 + s1) + (s2 + s3));
}

PCMMIX_TARGET void pcmmix_dot2(const float *h, const float *a, const float *b, long n,
                               float *out) {
  __m256 a0 = ZERO, a1 = ZERO, b0 = ZERO, b1 = ZERO;
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 c0 = LOAD(h + i), c1 = LOAD(h + i + 8);
    a0 = FMADD(c0, LOAD(a + i), a0);
    b0 = FMADD(c0, LOAD(b + i), b0);
    a1 = FMADD(c1, LOAD(a + i + 8), a1);
    b1 = FMADD(c1, LOAD(b + i + 8), b1);
  }
  if (i < n) {
    const __m256 c0 = LOAD(h + i);
    a0 = FMADD(c0, LOAD(a + i), a0);
    b0 = FMADD(c0, LOAD(b + i), b0);
  }
  out[0] = HSUM(a0 + a1);
  out[1] = HSUM(b0 + b1);
}

// The blended row is formed 8 taps at a time in a register (one subtract, one FMA) and used at
// once for both planes: four loads and four arithmetic operations per 8 taps, against two full
// dot products per plane if the two rows were dotted separately.
// The next output's two rows, a cache line at a time, into L1.
static inline void prefetch_rows(const float *next, long n) {
  if (!next) return;
  const char *p = (const char *)next;
  for (long b = 0; b < 2 * n * (long)sizeof(float); b += 64) _mm_prefetch(p + b, _MM_HINT_T0);
}

PCMMIX_TARGET void pcmmix_lerp_dot2(const float *h0, const float *h1, float t, const float *a,
                                    const float *b, long n, float *out, const float *next) {
  prefetch_rows(next, n);
  const __m256 tv = SPLAT(t);
  __m256 a0 = ZERO, a1 = ZERO, b0 = ZERO, b1 = ZERO;
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 c0 = BLEND(h0, h1, tv, i), c1 = BLEND(h0, h1, tv, i + 8);
    a0 = FMADD(c0, LOAD(a + i), a0);
    b0 = FMADD(c0, LOAD(b + i), b0);
    a1 = FMADD(c1, LOAD(a + i + 8), a1);
    b1 = FMADD(c1, LOAD(b + i + 8), b1);
  }
  if (i < n) {
    const __m256 c0 = BLEND(h0, h1, tv, i);
    a0 = FMADD(c0, LOAD(a + i), a0);
    b0 = FMADD(c0, LOAD(b + i), b0);
  }
  out[0] = HSUM(a0 + a1);
  out[1] = HSUM(b0 + b1);
}

PCMMIX_TARGET float pcmmix_lerp_dot(const float *h0, const float *h1, float t, const float *x,
                                    long n, const float *next) {
  prefetch_rows(next, n);
  const __m256 tv = SPLAT(t);
  __m256 s0 = ZERO, s1 = ZERO;
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = FMADD(BLEND(h0, h1, tv, i), LOAD(x + i), s0);
    s1 = FMADD(BLEND(h0, h1, tv, i + 8), LOAD(x + i + 8), s1);
  }
  if (i < n) {
    s0 = FMADD(BLEND(h0, h1, tv, i), LOAD(x + i), s0);
  }
  return HSUM(s0 + s1);
}

// Compiled for the baseline target (no FMA to contract into), so its Double arithmetic is
// exactly the Swift loop's.
long pcmmix_lerp_run(const float *table, long taps, double steps, double step, const float *base,
                     long stride, long channels, long count, long room, float *out,
                     long *position, double *fraction, int has_end, long time_offset, double end,
                     int *stopped) {
  long pos = *position, produced = 0;
  double frac = *fraction;
  *stopped = 0;
  while (pos + taps <= count && produced < room) {
    if (has_end && (double)(time_offset + pos) + frac >= end) {
      *stopped = 1;
      break;
    }
    const double scaled = frac * steps;
    const long index = (long)scaled;
    const float t = (float)(scaled - (double)index);
    const float *h0 = table + index * taps;
    double ahead = frac + step;
    ahead -= (double)(long)ahead;
    const float *next = table + (long)(ahead * steps) * taps;
    const float *w = base + pos;
    float *o = out + produced * channels;
    long c = 0;
    for (; c + 2 <= channels; c += 2) {
      pcmmix_lerp_dot2(h0, h0 + taps, t, w + c * stride, w + (c + 1) * stride, taps, o + c, next);
      next = 0;
    }
    if (c < channels) o[c] = pcmmix_lerp_dot(h0, h0 + taps, t, w + c * stride, taps, next);
    produced++;
    frac += step;
    const long whole = (long)frac;
    pos += whole;
    frac -= (double)whole;
  }
  *position = pos;
  *fraction = frac;
  return produced;
}

// Sixteen consecutive outputs at once (see pcmmix_group16 in the header). Each tap m broadcasts one
// input sample per channel against a row of 16 coefficients, one per output, so no horizontal
// sums are needed and each row load serves both channels of a pair. Even and odd taps go to
// separate accumulators to keep two FMAs in flight per cycle despite their 4-cycle latency.
PCMMIX_TARGET static inline __attribute__((always_inline)) void
pair_sums(const float *table, long width, const float *a, const float *b, __m256 sums[4]) {
  __m256 a0 = ZERO, a1 = ZERO;
  __m256 b0 = ZERO, b1 = ZERO;
  __m256 a2 = ZERO, a3 = ZERO;
  __m256 b2 = ZERO, b3 = ZERO;
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    __m256 c0 = LOAD(t), c1 = LOAD(t + 8);
    __m256 xa = SPLAT(a[m]), xb = SPLAT(b[m]);
    a0 = FMADD(c0, xa, a0);
    a1 = FMADD(c1, xa, a1);
    b0 = FMADD(c0, xb, b0);
    b1 = FMADD(c1, xb, b1);
    __m256 c2 = LOAD(t + 16), c3 = LOAD(t + 24);
    __m256 ya = SPLAT(a[m + 1]), yb = SPLAT(b[m + 1]);
    a2 = FMADD(c2, ya, a2);
    a3 = FMADD(c3, ya, a3);
    b2 = FMADD(c2, yb, b2);
    b3 = FMADD(c3, yb, b3);
  }
  if (m < width) {
    const float *t = table + m * 16;
    __m256 xa = SPLAT(a[m]), xb = SPLAT(b[m]);
    a0 = FMADD(LOAD(t), xa, a0);
    a1 = FMADD(LOAD(t + 8), xa, a1);
    b0 = FMADD(LOAD(t), xb, b0);
    b1 = FMADD(LOAD(t + 8), xb, b1);
  }
  sums[0] = a0 + a2;
  sums[1] = a1 + a3;
  sums[2] = b0 + b2;
  sums[3] = b1 + b3;
}

// The sixteen lanes of both planes, each into its own sixteen floats.
PCMMIX_TARGET static void group_pair(const float *table, long width, const float *a,
                                     const float *b, float *la, float *lb) {
  __m256 sums[4];
  pair_sums(table, width, a, b, sums);
  _mm256_storeu_ps(la, sums[0]);
  _mm256_storeu_ps(la + 8, sums[1]);
  _mm256_storeu_ps(lb, sums[2]);
  _mm256_storeu_ps(lb + 8, sums[3]);
}

// A stereo pair's sixteen frames, interleaved in registers, into `out` (32 floats): stored
// straight into the output rather than through lanes copied out right after they were stored
// (whose loads waited on those stores).
PCMMIX_TARGET static void group_frames(const float *table, long width, const float *a,
                                       const float *b, float *out) {
  __m256 sums[4];
  pair_sums(table, width, a, b, sums);
  for (int h = 0; h < 2; h++) {
    const __m256 lo = _mm256_unpacklo_ps(sums[h], sums[2 + h]);
    const __m256 hi = _mm256_unpackhi_ps(sums[h], sums[2 + h]);
    _mm256_storeu_ps(out + 16 * h, _mm256_permute2f128_ps(lo, hi, 0x20));
    _mm256_storeu_ps(out + 16 * h + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
  }
}

// One plane alone: a mono source, or the last channel of an odd count. Same arithmetic as
// group_pair without the second plane, so a lone channel does not pay for a phantom partner.
PCMMIX_TARGET static void group_one(const float *table, long width, const float *a, float *la) {
  __m256 a0 = ZERO, a1 = ZERO;
  __m256 a2 = ZERO, a3 = ZERO;
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    __m256 xa = SPLAT(a[m]), ya = SPLAT(a[m + 1]);
    a0 = FMADD(LOAD(t), xa, a0);
    a1 = FMADD(LOAD(t + 8), xa, a1);
    a2 = FMADD(LOAD(t + 16), ya, a2);
    a3 = FMADD(LOAD(t + 24), ya, a3);
  }
  if (m < width) {
    const float *t = table + m * 16;
    __m256 xa = SPLAT(a[m]);
    a0 = FMADD(LOAD(t), xa, a0);
    a1 = FMADD(LOAD(t + 8), xa, a1);
  }
  _mm256_storeu_ps(la, a0 + a2);
  _mm256_storeu_ps(la + 8, a1 + a3);
}

PCMMIX_TARGET void pcmmix_group16x2(const float *table, long width, const float *a,
                                    const float *b, float *outa, float *outb) {
  group_pair(table, width, a, b, outa, outb);
}

PCMMIX_TARGET void pcmmix_group16(const float *table, long width, const float *x, long stride,
                                  long channels, float *out, long first, long count) {
  // A whole stereo group goes straight to `out`, interleaved in registers. Otherwise the lanes
  // go through this bounce buffer: a group's sixteen outputs are computed whole, but at the
  // edges of a call only lanes first ..< first + count are wanted, and `out` is interleaved
  // (frame-major) while each lane is one channel's output. Copying the wanted lanes out of the
  // stack keeps the vector stores full width and writes past the caller's buffer impossible.
  if (channels == 2 && first == 0 && count == 16) {
    group_frames(table, width, x, x + stride, out);
    return;
  }
  float lanes[2][16];
  long c = 0;
  for (; c + 2 <= channels; c += 2) {
    group_pair(table, width, x + c * stride, x + (c + 1) * stride, lanes[0], lanes[1]);
    for (long i = 0; i < count; i++) {
      out[i * channels + c] = lanes[0][first + i];
      out[i * channels + c + 1] = lanes[1][first + i];
    }
  }
  if (c < channels) {
    group_one(table, width, x + c * stride, lanes[0]);
    for (long i = 0; i < count; i++) out[i * channels + c] = lanes[0][first + i];
  }
}

#endif
