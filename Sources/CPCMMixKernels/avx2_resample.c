// The built-in resampler's AVX2 + FMA kernels: dot products, blended-row dot products and
// sixteen-output groups. Compiled only for x86; pcmmix_kernels_available() says whether they run.
#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define PCMMIX_TARGET __attribute__((target("avx2,fma")))

PCMMIX_TARGET static inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Four accumulators per product hide the FMA latency; the tail takes the last 8 .. 24 taps.
PCMMIX_TARGET float pcmmix_dot(const float *h, const float *x, long n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  long i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i), _mm256_loadu_ps(x + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i + 8), _mm256_loadu_ps(x + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i + 16), _mm256_loadu_ps(x + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i + 24), _mm256_loadu_ps(x + i + 24), s3);
  }
  for (; i < n; i += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i), _mm256_loadu_ps(x + i), s0);
  }
  return hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

PCMMIX_TARGET void pcmmix_dot2(const float *h, const float *a, const float *b, long n,
                               float *out) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 c0 = _mm256_loadu_ps(h + i), c1 = _mm256_loadu_ps(h + i + 8);
    a0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(a + i), a0);
    b0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b + i), b0);
    a1 = _mm256_fmadd_ps(c1, _mm256_loadu_ps(a + i + 8), a1);
    b1 = _mm256_fmadd_ps(c1, _mm256_loadu_ps(b + i + 8), b1);
  }
  if (i < n) {
    __m256 c0 = _mm256_loadu_ps(h + i);
    a0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(a + i), a0);
    b0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b + i), b0);
  }
  out[0] = hsum(_mm256_add_ps(a0, a1));
  out[1] = hsum(_mm256_add_ps(b0, b1));
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
  __m256 tv = _mm256_set1_ps(t);
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 x0 = _mm256_loadu_ps(h0 + i), x1 = _mm256_loadu_ps(h0 + i + 8);
    __m256 c0 = _mm256_fmadd_ps(tv, _mm256_sub_ps(_mm256_loadu_ps(h1 + i), x0), x0);
    __m256 c1 = _mm256_fmadd_ps(tv, _mm256_sub_ps(_mm256_loadu_ps(h1 + i + 8), x1), x1);
    a0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(a + i), a0);
    b0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b + i), b0);
    a1 = _mm256_fmadd_ps(c1, _mm256_loadu_ps(a + i + 8), a1);
    b1 = _mm256_fmadd_ps(c1, _mm256_loadu_ps(b + i + 8), b1);
  }
  if (i < n) {
    __m256 x0 = _mm256_loadu_ps(h0 + i);
    __m256 c0 = _mm256_fmadd_ps(tv, _mm256_sub_ps(_mm256_loadu_ps(h1 + i), x0), x0);
    a0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(a + i), a0);
    b0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b + i), b0);
  }
  out[0] = hsum(_mm256_add_ps(a0, a1));
  out[1] = hsum(_mm256_add_ps(b0, b1));
}

PCMMIX_TARGET float pcmmix_lerp_dot(const float *h0, const float *h1, float t, const float *x,
                                    long n, const float *next) {
  prefetch_rows(next, n);
  __m256 tv = _mm256_set1_ps(t);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 x0 = _mm256_loadu_ps(h0 + i), x1 = _mm256_loadu_ps(h0 + i + 8);
    __m256 c0 = _mm256_fmadd_ps(tv, _mm256_sub_ps(_mm256_loadu_ps(h1 + i), x0), x0);
    __m256 c1 = _mm256_fmadd_ps(tv, _mm256_sub_ps(_mm256_loadu_ps(h1 + i + 8), x1), x1);
    s0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(x + i), s0);
    s1 = _mm256_fmadd_ps(c1, _mm256_loadu_ps(x + i + 8), s1);
  }
  if (i < n) {
    __m256 x0 = _mm256_loadu_ps(h0 + i);
    __m256 c0 = _mm256_fmadd_ps(tv, _mm256_sub_ps(_mm256_loadu_ps(h1 + i), x0), x0);
    s0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(x + i), s0);
  }
  return hsum(_mm256_add_ps(s0, s1));
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
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
  __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
  __m256 b2 = _mm256_setzero_ps(), b3 = _mm256_setzero_ps();
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    __m256 c0 = _mm256_loadu_ps(t), c1 = _mm256_loadu_ps(t + 8);
    __m256 xa = _mm256_broadcast_ss(a + m), xb = _mm256_broadcast_ss(b + m);
    a0 = _mm256_fmadd_ps(c0, xa, a0);
    a1 = _mm256_fmadd_ps(c1, xa, a1);
    b0 = _mm256_fmadd_ps(c0, xb, b0);
    b1 = _mm256_fmadd_ps(c1, xb, b1);
    __m256 c2 = _mm256_loadu_ps(t + 16), c3 = _mm256_loadu_ps(t + 24);
    __m256 ya = _mm256_broadcast_ss(a + m + 1), yb = _mm256_broadcast_ss(b + m + 1);
    a2 = _mm256_fmadd_ps(c2, ya, a2);
    a3 = _mm256_fmadd_ps(c3, ya, a3);
    b2 = _mm256_fmadd_ps(c2, yb, b2);
    b3 = _mm256_fmadd_ps(c3, yb, b3);
  }
  if (m < width) {
    const float *t = table + m * 16;
    __m256 xa = _mm256_broadcast_ss(a + m), xb = _mm256_broadcast_ss(b + m);
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(t), xa, a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(t + 8), xa, a1);
    b0 = _mm256_fmadd_ps(_mm256_loadu_ps(t), xb, b0);
    b1 = _mm256_fmadd_ps(_mm256_loadu_ps(t + 8), xb, b1);
  }
  sums[0] = _mm256_add_ps(a0, a2);
  sums[1] = _mm256_add_ps(a1, a3);
  sums[2] = _mm256_add_ps(b0, b2);
  sums[3] = _mm256_add_ps(b1, b3);
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
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    __m256 xa = _mm256_broadcast_ss(a + m), ya = _mm256_broadcast_ss(a + m + 1);
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(t), xa, a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(t + 8), xa, a1);
    a2 = _mm256_fmadd_ps(_mm256_loadu_ps(t + 16), ya, a2);
    a3 = _mm256_fmadd_ps(_mm256_loadu_ps(t + 24), ya, a3);
  }
  if (m < width) {
    const float *t = table + m * 16;
    __m256 xa = _mm256_broadcast_ss(a + m);
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(t), xa, a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(t + 8), xa, a1);
  }
  _mm256_storeu_ps(la, _mm256_add_ps(a0, a2));
  _mm256_storeu_ps(la + 8, _mm256_add_ps(a1, a3));
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
