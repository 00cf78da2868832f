// The output stage's AVX2 kernels: int16 encoding and the mixers' measure-and-mix passes, each
// bit-exact with the Swift code it replaces. Compiled only for x86.
#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define PCMMIX_TARGET __attribute__((target("avx2,fma")))

// The scalar rule, for the tail: as PCMEncoder.int16 in Swift.
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

#endif
