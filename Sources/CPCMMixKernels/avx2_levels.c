// The output stage's AVX2 kernels: int16 encoding and the mixers' mix-and-measure pass, each
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

// PCMEncoder._int16x8's method, eight lanes twice: with a = max(|x|, 2^-16) (a NaN takes the
// second operand, 2^-16), m = a + (256 - 2^-16) holds round(a * 32768 - 0.5) in its low mantissa
// bits; where m - K < a that rounding went down and the ceiling is one more. The sign comes back
// as q = k - 1 (negative x) or k, packed with saturation (which clamps past full scale), then
// q ^ s. packs interleaves the two 128-bit halves, which one permute puts back in order.
PCMMIX_TARGET void pcmmix_encode_s16(const float *x, long n, short *out) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  const __m256 low = _mm256_set1_ps(0x1p-16f), k = _mm256_set1_ps(256.0f - 0x1p-16f);
  const __m256i base = _mm256_set1_epi32(0x43800000);
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i q[2], s[2];
    for (int h = 0; h < 2; h++) {
      __m256 v = _mm256_loadu_ps(x + i + 8 * h);
      __m256 a = _mm256_max_ps(_mm256_and_ps(v, abs_mask), low);
      __m256 m = _mm256_add_ps(a, k);
      __m256i up = _mm256_castps_si256(_mm256_cmp_ps(_mm256_sub_ps(m, k), a, _CMP_LT_OQ));
      s[h] = _mm256_srai_epi32(_mm256_castps_si256(v), 31);
      q[h] = _mm256_add_epi32(
          _mm256_sub_epi32(_mm256_sub_epi32(_mm256_castps_si256(m), base), up), s[h]);
    }
    __m256i packed = _mm256_xor_si256(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(s[0], s[1]));
    _mm256_storeu_si256((__m256i *)(out + i), _mm256_permute4x64_epi64(packed, 0xD8));
  }
  for (; i < n; i++) out[i] = encode_one(x[i]);
}

PCMMIX_TARGET static inline int hmax8i(__m256i v) {
  int t[8];
  _mm256_storeu_si256((__m256i *)t, v);
  int m = t[0];
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

static inline int bits_of_magnitude(float x) {
  union { float f; int i; } u = {x};
  return u.i & 0x7FFFFFFF;
}

// One pass over both sources: each is measured as it is read, mixed, and the mix measured as it
// is written. The largest magnitudes are integer maxima of the bits (off the float ports, which
// the mix and the squares keep busy); squares add up with fused multiply-adds in float lanes for
// at most 4,096 samples at a time, then in double. The mix itself takes separate multiplies and
// adds, never fused, so it has the Swift loop's bits.
#pragma clang fp contract(off)
PCMMIX_TARGET void pcmmix_mix_measure(float *out, const float *a, const float *b, long n,
                                      float ga, float gb, float scale, int *magnitude_bits,
                                      double *sums) {
  const __m256i absmask = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256 vga = _mm256_set1_ps(ga), vgb = _mm256_set1_ps(gb), vs = _mm256_set1_ps(scale);
  __m256i ma = _mm256_setzero_si256(), mb = ma, my = ma;
  double sa = 0, sb = 0, sy = 0;
  long i = 0;
  while (i + 16 <= n) {
    long end = i + 4096 < n ? i + 4096 : n;
    __m256 ta[2], tb[2], ty[2];
    for (int k = 0; k < 2; k++) ta[k] = tb[k] = ty[k] = _mm256_setzero_ps();
    for (; i + 16 <= end; i += 16) {
      for (int k = 0; k < 2; k++) {
        __m256 x = _mm256_loadu_ps(a + i + 8 * k), y = _mm256_loadu_ps(b + i + 8 * k);
        ma = _mm256_max_epi32(ma, _mm256_and_si256(_mm256_castps_si256(x), absmask));
        mb = _mm256_max_epi32(mb, _mm256_and_si256(_mm256_castps_si256(y), absmask));
        ta[k] = _mm256_fmadd_ps(x, x, ta[k]);
        tb[k] = _mm256_fmadd_ps(y, y, tb[k]);
        __m256 z = _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(x, vga), _mm256_mul_ps(y, vgb)), vs);
        _mm256_storeu_ps(out + i + 8 * k, z);
        my = _mm256_max_epi32(my, _mm256_and_si256(_mm256_castps_si256(z), absmask));
        ty[k] = _mm256_fmadd_ps(z, z, ty[k]);
      }
    }
    sa += hsum8d(_mm256_add_ps(ta[0], ta[1]));
    sb += hsum8d(_mm256_add_ps(tb[0], tb[1]));
    sy += hsum8d(_mm256_add_ps(ty[0], ty[1]));
  }
  int qa = hmax8i(ma), qb = hmax8i(mb), qy = hmax8i(my);
  for (; i < n; i++) {
    float x = a[i], y = b[i];
    float z = (x * ga + y * gb) * scale;
    out[i] = z;
    int bx = bits_of_magnitude(x), by = bits_of_magnitude(y), bz = bits_of_magnitude(z);
    qa = bx > qa ? bx : qa;
    qb = by > qb ? by : qb;
    qy = bz > qy ? bz : qy;
    sa += x * x;
    sb += y * y;
    sy += z * z;
  }
  // Onto what earlier calls (earlier runs of the same block) measured.
  magnitude_bits[0] = qa > magnitude_bits[0] ? qa : magnitude_bits[0];
  magnitude_bits[1] = qb > magnitude_bits[1] ? qb : magnitude_bits[1];
  magnitude_bits[2] = qy > magnitude_bits[2] ? qy : magnitude_bits[2];
  sums[0] += sa, sums[1] += sb, sums[2] += sy;
}
#pragma clang fp contract(on)

#endif
