#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define PCMMIX_TARGET __attribute__((target("avx2,fma")))

int pcmmix_kernels_available(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

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
PCMMIX_TARGET void pcmmix_lerp_dot2(const float *h0, const float *h1, float t, const float *a,
                                    const float *b, long n, float *out) {
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
                                    long n) {
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

// The scalar rule, for the tail: as Encoder.int16 in Swift.
static inline short encode_one(float x) {
  float v = x * 32768.0f;
  if (v != v) return 0;
  v = v < -32768.0f ? -32768.0f : (v > 32767.0f ? 32767.0f : v);
  int t = (int)v;
  float f = v - (float)t;
  return (short)(f > 0.5f ? t + 1 : (f < -0.5f ? t - 1 : t));
}

// Scale, zero the NaNs, clamp, truncate, and step away from zero where more than half a step
// was cut off (a mask of -1 subtracted adds one). packs then saturates (values are in range) and
// interleaves the two 128-bit halves, which one permute puts back in order.
PCMMIX_TARGET void pcmmix_encode_s16(const float *x, long n, short *out) {
  const __m256 scale = _mm256_set1_ps(32768.0f), lo = _mm256_set1_ps(-32768.0f);
  const __m256 hi = _mm256_set1_ps(32767.0f), half = _mm256_set1_ps(0.5f);
  const __m256 mhalf = _mm256_set1_ps(-0.5f);
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i r[2];
    for (int h = 0; h < 2; h++) {
      __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i + 8 * h), scale);
      v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
      v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
      __m256i t = _mm256_cvttps_epi32(v);
      __m256 f = _mm256_sub_ps(v, _mm256_cvtepi32_ps(t));
      t = _mm256_sub_epi32(t, _mm256_castps_si256(_mm256_cmp_ps(f, half, _CMP_GT_OQ)));
      t = _mm256_add_epi32(t, _mm256_castps_si256(_mm256_cmp_ps(f, mhalf, _CMP_LT_OQ)));
      r[h] = t;
    }
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(r[0], r[1]), 0xD8);
    _mm256_storeu_si256((__m256i *)(out + i), packed);
  }
  for (; i < n; i++) out[i] = encode_one(x[i]);
}

PCMMIX_TARGET static inline float hmax8(__m256 v) {
  float t[8];
  _mm256_storeu_ps(t, v);
  float m = t[0];
  for (int i = 1; i < 8; i++) m = t[i] > m ? t[i] : m;
  return m;
}

PCMMIX_TARGET static inline double hsum8d(__m256 v) {
  float t[8];
  _mm256_storeu_ps(t, v);
  double s = 0;
  for (int i = 0; i < 8; i++) s += t[i];
  return s;
}

// Squares add up in float lanes for at most 4,096 samples at a time, then in double. Four
// accumulators per stream, 32 samples a step, so the adds do not wait on each other.
PCMMIX_TARGET void pcmmix_measure2(const float *a, const float *b, long n, float *peaks,
                                   double *sums) {
  __m256 pa = _mm256_setzero_ps(), pb = _mm256_setzero_ps();
  double sa = 0, sb = 0;
  long i = 0;
  while (i + 32 <= n) {
    long end = i + 4096 < n ? i + 4096 : n;
    __m256 ta[4], tb[4];
    for (int k = 0; k < 4; k++) ta[k] = tb[k] = _mm256_setzero_ps();
    for (; i + 32 <= end; i += 32) {
      for (int k = 0; k < 4; k++) {
        __m256 x = _mm256_loadu_ps(a + i + 8 * k), y = _mm256_loadu_ps(b + i + 8 * k);
        __m256 xx = _mm256_mul_ps(x, x), yy = _mm256_mul_ps(y, y);
        pa = _mm256_max_ps(pa, xx);
        pb = _mm256_max_ps(pb, yy);
        ta[k] = _mm256_add_ps(ta[k], xx);
        tb[k] = _mm256_add_ps(tb[k], yy);
      }
    }
    sa += hsum8d(_mm256_add_ps(_mm256_add_ps(ta[0], ta[1]), _mm256_add_ps(ta[2], ta[3])));
    sb += hsum8d(_mm256_add_ps(_mm256_add_ps(tb[0], tb[1]), _mm256_add_ps(tb[2], tb[3])));
  }
  float qa = hmax8(pa), qb = hmax8(pb);
  for (; i < n; i++) {
    float xx = a[i] * a[i], yy = b[i] * b[i];
    qa = xx > qa ? xx : qa;
    qb = yy > qb ? yy : qb;
    sa += xx;
    sb += yy;
  }
  peaks[0] = qa, peaks[1] = qb;
  sums[0] = sa, sums[1] = sb;
}

// Separate multiplies and adds, never fused, so the mix has the Swift loop's bits.
#pragma clang fp contract(off)
PCMMIX_TARGET void pcmmix_mix_measure(float *a, const float *b, long n, float ga, float gb,
                                      float scale, float *peak, double *sum,
                                      int *magnitude_bits) {
  const __m256i absmask = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256 vga = _mm256_set1_ps(ga), vgb = _mm256_set1_ps(gb), vs = _mm256_set1_ps(scale);
  __m256 py = _mm256_setzero_ps();
  __m256i bits = _mm256_setzero_si256();
  double sy = 0;
  long i = 0;
  while (i + 32 <= n) {
    long end = i + 4096 < n ? i + 4096 : n;
    __m256 ty[4];
    for (int k = 0; k < 4; k++) ty[k] = _mm256_setzero_ps();
    for (; i + 32 <= end; i += 32) {
      for (int k = 0; k < 4; k++) {
        __m256 x = _mm256_loadu_ps(a + i + 8 * k), y = _mm256_loadu_ps(b + i + 8 * k);
        __m256 z = _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(x, vga), _mm256_mul_ps(y, vgb)), vs);
        _mm256_storeu_ps(a + i + 8 * k, z);
        __m256 zz = _mm256_mul_ps(z, z);
        py = _mm256_max_ps(py, zz);
        ty[k] = _mm256_add_ps(ty[k], zz);
        bits = _mm256_max_epi32(bits, _mm256_and_si256(_mm256_castps_si256(z), absmask));
      }
    }
    sy += hsum8d(_mm256_add_ps(_mm256_add_ps(ty[0], ty[1]), _mm256_add_ps(ty[2], ty[3])));
  }
  float qy = hmax8(py);
  int t[8];
  _mm256_storeu_si256((__m256i *)t, bits);
  int most = 0;
  for (int k = 0; k < 8; k++) most = t[k] > most ? t[k] : most;
  for (; i < n; i++) {
    float z = (a[i] * ga + b[i] * gb) * scale;
    a[i] = z;
    qy = z * z > qy ? z * z : qy;
    sy += z * z;
    union { float f; int i; } u = {z};
    int m = u.i & 0x7FFFFFFF;
    most = m > most ? m : most;
  }
  *peak = qy;
  *sum = sy;
  *magnitude_bits = most;
}
#pragma clang fp contract(on)

// Sixteen consecutive outputs at once (see pcmmix_group16 in the header). Each tap m broadcasts one
// input sample per channel against a row of 16 coefficients, one per output, so no horizontal
// sums are needed and each row load serves both channels of a pair. Even and odd taps go to
// separate accumulators to keep two FMAs in flight per cycle despite their 4-cycle latency.
PCMMIX_TARGET static void group_pair(const float *table, long width, const float *a,
                                     const float *b, float *la, float *lb) {
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
  _mm256_storeu_ps(la, _mm256_add_ps(a0, a2));
  _mm256_storeu_ps(la + 8, _mm256_add_ps(a1, a3));
  _mm256_storeu_ps(lb, _mm256_add_ps(b0, b2));
  _mm256_storeu_ps(lb + 8, _mm256_add_ps(b1, b3));
}

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

#else

// Elsewhere (arm64: the Swift SIMD path already maps to NEON) there is no kernel.
int pcmmix_kernels_available(void) { return 0; }

float pcmmix_dot(const float *h, const float *x, long n) {
  float s = 0;
  for (long i = 0; i < n; i++) s += h[i] * x[i];
  return s;
}

void pcmmix_dot2(const float *h, const float *a, const float *b, long n, float *out) {
  out[0] = pcmmix_dot(h, a, n);
  out[1] = pcmmix_dot(h, b, n);
}

void pcmmix_measure2(const float *a, const float *b, long n, float *peaks, double *sums) {
  (void)a, (void)b, (void)n, (void)peaks, (void)sums;
}

void pcmmix_mix_measure(float *a, const float *b, long n, float ga, float gb, float scale,
                        float *peak, double *sum, int *magnitude_bits) {
  (void)a, (void)b, (void)n, (void)ga, (void)gb, (void)scale;
  (void)peak, (void)sum, (void)magnitude_bits;
}

void pcmmix_encode_s16(const float *x, long n, short *out) {
  for (long i = 0; i < n; i++) {
    float v = x[i] * 32768.0f;
    if (v != v) { out[i] = 0; continue; }
    v = v < -32768.0f ? -32768.0f : (v > 32767.0f ? 32767.0f : v);
    int t = (int)v;
    float f = v - (float)t;
    out[i] = (short)(f > 0.5f ? t + 1 : (f < -0.5f ? t - 1 : t));
  }
}

float pcmmix_lerp_dot(const float *h0, const float *h1, float t, const float *x, long n) {
  float s = 0;
  for (long i = 0; i < n; i++) s += (h0[i] + t * (h1[i] - h0[i])) * x[i];
  return s;
}

void pcmmix_lerp_dot2(const float *h0, const float *h1, float t, const float *a, const float *b,
                      long n, float *out) {
  out[0] = pcmmix_lerp_dot(h0, h1, t, a, n);
  out[1] = pcmmix_lerp_dot(h0, h1, t, b, n);
}

void pcmmix_group16x2(const float *table, long width, const float *a, const float *b,
                      float *outa, float *outb) {
  for (long i = 0; i < 16; i++) {
    float sa = 0, sb = 0;
    for (long m = 0; m < width; m++) {
      sa += table[m * 16 + i] * a[m];
      sb += table[m * 16 + i] * b[m];
    }
    outa[i] = sa;
    outb[i] = sb;
  }
}

void pcmmix_group16(const float *table, long width, const float *x, long stride, long channels,
                    float *out, long first, long count) {
  for (long c = 0; c < channels; c++) {
    for (long i = first; i < first + count; i++) {
      float s = 0;
      for (long m = 0; m < width; m++) s += table[m * 16 + i] * x[c * stride + m];
      out[(i - first) * channels + c] = s;
    }
  }
}

#endif
