// The mix with its measurements (see pcmmix_core.h): the operations of PCMMix's mix kernel as
// it was written with Swift's SIMD8<Float>.
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"
#include "vector.h"

PCM_INLINE pcm_v8f magnitude(pcm_v8f x) { return (pcm_v8f)((pcm_v8i)x & 0x7FFFFFFF); }

/// Lane by lane, `x` where it is greater than `m`, else `m`.
PCM_INLINE pcm_v8f keep_larger(pcm_v8f m, pcm_v8f x) {
  const pcm_v8i greater = x > m;
  return (pcm_v8f)(((pcm_v8i)x & greater) | ((pcm_v8i)m & ~greater));
}

/// Lane by lane, the larger of two integers.
PCM_INLINE pcm_v8i keep_larger_i(pcm_v8i m, pcm_v8i x) {
  const pcm_v8i greater = x > m;
  return (x & greater) | (m & ~greater);
}

/// The larger, a NaN giving way to a number (Swift's `Float.maximum`).
PCM_INLINE float maximum(float x, float y) {
  if (x != x) return y;
  if (y != y) return x;
  return y > x ? y : x;
}

PCM_INLINE float lanes_max(pcm_v8f v) {
  float r = v[0];
  for (int i = 1; i < 8; i++) r = maximum(r, v[i]);
  return r;
}

PCM_INLINE int most(int bits, float x) {
  union { float f; int i; } u = {x};
  return u.i > bits ? u.i : bits;
}

PCM_INLINE float fabs_(float x) { return x < 0 ? -x : (x == 0 ? 0.0f : x); }

void pcmmix_core_mix_measure(float *out, const float *a, const float *b, long n, float ga,
                             float gb, float scale, int *magnitude_bits, double *sums) {
  const pcm_v8f vga = pcm_splat(ga), vgb = pcm_splat(gb), vs = pcm_splat(scale);
  pcm_v8f ma = {0}, mb = {0}, my = {0};
  double sa = 0, sb = 0, sy = 0;
  long i = 0;
  // Squares add up in float lanes for at most 4,096 samples at a time, then in double.
  while (i + 8 <= n) {
    const long end = (n < i + 4096 ? n : i + 4096) - 7;
    pcm_v8f ta = {0}, tb = {0}, ty = {0};
    for (; i < end; i += 8) {
      const pcm_v8f x = pcm_load(a + i), y = pcm_load(b + i);
      ma = keep_larger(ma, magnitude(x));
      mb = keep_larger(mb, magnitude(y));
      ta += x * x;
      tb += y * y;
      const pcm_v8f z = (x * vga + y * vgb) * vs;
      pcm_store(out + i, z);
      my = keep_larger(my, magnitude(z));
      ty += z * z;
    }
    sa = sa + (double)pcm_sum(ta);
    sb = sb + (double)pcm_sum(tb);
    sy = sy + (double)pcm_sum(ty);
  }
  float qa = lanes_max(ma), qb = lanes_max(mb), qy = lanes_max(my);
  for (; i < n; i++) {
    const float x = a[i], y = b[i];
    const float z = (x * ga + y * gb) * scale;
    out[i] = z;
    qa = x != x ? qa : (fabs_(x) > qa ? fabs_(x) : qa);
    qb = y != y ? qb : (fabs_(y) > qb ? fabs_(y) : qb);
    qy = z != z ? qy : (fabs_(z) > qy ? fabs_(z) : qy);
    sa = sa + (double)(x * x);
    sb = sb + (double)(y * y);
    sy = sy + (double)(z * z);
  }
  magnitude_bits[0] = most(magnitude_bits[0], qa);
  magnitude_bits[1] = most(magnitude_bits[1], qb);
  magnitude_bits[2] = most(magnitude_bits[2], qy);
  sums[0] += sa;
  sums[1] += sb;
  sums[2] += sy;
}

// MARK: - Meters

float pcmmix_core_peak_square_and_squares(const float *p, long n, double *squares) {
  double total = 0.0;
  pcm_v8f m0 = {0}, m1 = {0};
  long i = 0;
  // Squares add up in float lanes for at most 4,096 samples at a time, then in double.
  while (i + 16 <= n) {
    const long end = (n < i + 4096 ? n : i + 4096) - 15;
    pcm_v8f s0 = {0}, s1 = {0};
    for (; i < end; i += 16) {
      const pcm_v8f a = pcm_load(p + i), b = pcm_load(p + i + 8);
      const pcm_v8f aa = a * a, bb = b * b;
      m0 = keep_larger(m0, aa);
      m1 = keep_larger(m1, bb);
      s0 += aa;
      s1 += bb;
    }
    total = total + (double)pcm_sum(s0 + s1);
  }
  float peak = lanes_max(keep_larger(m0, m1));
  for (; i < n; i++) {
    const float v = p[i] * p[i];
    peak = pcm_swift_max(peak, v);
    total = total + (double)v;
  }
  *squares = total;
  return peak;
}

int pcmmix_core_max_magnitude_bits(const float *p, long n) {
  pcm_v8i m0 = {0}, m1 = {0};
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const pcm_v8i a = (pcm_v8i)magnitude(pcm_load(p + i));
    const pcm_v8i b = (pcm_v8i)magnitude(pcm_load(p + i + 8));
    m0 = keep_larger_i(m0, a);
    m1 = keep_larger_i(m1, b);
  }
  const pcm_v8i m2 = keep_larger_i(m0, m1);
  int m = m2[0];
  for (int j = 1; j < 8; j++) m = m2[j] > m ? m2[j] : m;
  for (; i < n; i++) {
    union { float f; int i; } u = {p[i]};
    const int bits = u.i & 0x7FFFFFFF;
    m = bits > m ? bits : m;
  }
  return m;
}
