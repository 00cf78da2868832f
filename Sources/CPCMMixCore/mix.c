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
