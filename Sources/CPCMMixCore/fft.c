// PCMMix's FFT (see RealFFT.swift): a real transform of 2·half samples read as a complex one of
// `half` points over split real and imaginary arrays. The complex transform is radix-2,
// decimation in time: bit-reversed order first, the sizes 2 and 4 in one pass, then stage by
// stage with each stage's twiddles back to back, eight butterflies at a time in vector
// registers (four in the size-8 stage). The same operations in the same order as the Swift
// loops of RealFFT.swift, so both give the same bits.
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"
#include "vector.h"

PCM_INLINE pcm_v4f ld4(const float *p) { return *(const pcm_v4f_u *)p; }
PCM_INLINE void st4(float *p, pcm_v4f v) { *(pcm_v4f_u *)p = v; }

// first_stages for eight groups at a time, when half/4 is a multiple of 8: the groups taken in
// the order of r = rev[a] (0 … half/4 − 1: the low two bits of a are 0, so r < half/4), whose
// four points z[r], z[r + half/2], z[r + half/4], z[r + 3·half/4] are eight in a row for eight
// groups in a row; each group's four results stored at a = rev[r]. The same operations per
// group as the loop below.
PCM_INLINE void first_stages8(const float *z, float *re, float *im, long q, const int32_t *rev,
                              float sign) {
  const pcm_v8f vs = pcm_splat(sign), vn = pcm_splat(-sign);
  for (long r = 0; r < q; r += 8) {
    // Eight complex points from z + 2·(r + offset), split into real and imaginary parts.
#define PCM_POINTS(name, offset)                                                        \
  const pcm_v8f name##lo = pcm_load(z + 2 * (r + (offset))),                           \
                name##hi = pcm_load(z + 2 * (r + (offset)) + 8);                       \
  const pcm_v8f name##r =                                                               \
      __builtin_shufflevector(name##lo, name##hi, 0, 2, 4, 6, 8, 10, 12, 14);           \
  const pcm_v8f name##i = __builtin_shufflevector(name##lo, name##hi, 1, 3, 5, 7, 9, 11, 13, 15)
    PCM_POINTS(p0, 0);
    PCM_POINTS(p1, 2 * q);
    PCM_POINTS(p2, q);
    PCM_POINTS(p3, 3 * q);
#undef PCM_POINTS
    const pcm_v8f s0r = p0r + p1r, s0i = p0i + p1i;
    const pcm_v8f d0r = p0r - p1r, d0i = p0i - p1i;
    const pcm_v8f s1r = p2r + p3r, s1i = p2i + p3i;
    const pcm_v8f d1r = p2r - p3r, d1i = p2i - p3i;
    const pcm_v8f xr = vs * d1i, xi = vn * d1r;
    // Per group (lane) its four results: (s0 + s1, d0 + x, s0 − s1, d0 − x).
    const pcm_v8f r0 = s0r + s1r, r1 = d0r + xr, r2 = s0r - s1r, r3 = d0r - xr;
    const pcm_v8f i0 = s0i + s1i, i1 = d0i + xi, i2 = s0i - s1i, i3 = d0i - xi;
    // Transposed: lane j's four results in a row, two lanes to a vector.
#define PCM_STORE_GROUPS(out, v0, v1, v2, v3)                                             \
  do {                                                                                    \
    const pcm_v8f t0 = __builtin_shufflevector(v0, v1, 0, 8, 1, 9, 4, 12, 5, 13);         \
    const pcm_v8f t1 = __builtin_shufflevector(v0, v1, 2, 10, 3, 11, 6, 14, 7, 15);       \
    const pcm_v8f t2 = __builtin_shufflevector(v2, v3, 0, 8, 1, 9, 4, 12, 5, 13);         \
    const pcm_v8f t3 = __builtin_shufflevector(v2, v3, 2, 10, 3, 11, 6, 14, 7, 15);       \
    const pcm_v8f u01 = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 2, 3, 10, 11);        \
    const pcm_v8f u45 = __builtin_shufflevector(t0, t2, 4, 5, 12, 13, 6, 7, 14, 15);      \
    const pcm_v8f u23 = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 2, 3, 10, 11);        \
    const pcm_v8f u67 = __builtin_shufflevector(t1, t3, 4, 5, 12, 13, 6, 7, 14, 15);      \
    st4(out + rev[r + 0], __builtin_shufflevector(u01, u01, 0, 1, 2, 3));                 \
    st4(out + rev[r + 1], __builtin_shufflevector(u01, u01, 4, 5, 6, 7));                 \
    st4(out + rev[r + 2], __builtin_shufflevector(u23, u23, 0, 1, 2, 3));                 \
    st4(out + rev[r + 3], __builtin_shufflevector(u23, u23, 4, 5, 6, 7));                 \
    st4(out + rev[r + 4], __builtin_shufflevector(u45, u45, 0, 1, 2, 3));                 \
    st4(out + rev[r + 5], __builtin_shufflevector(u45, u45, 4, 5, 6, 7));                 \
    st4(out + rev[r + 6], __builtin_shufflevector(u67, u67, 0, 1, 2, 3));                 \
    st4(out + rev[r + 7], __builtin_shufflevector(u67, u67, 4, 5, 6, 7));                 \
  } while (0)
    PCM_STORE_GROUPS(re, r0, r1, r2, r3);
    PCM_STORE_GROUPS(im, i0, i1, i2, i3);
#undef PCM_STORE_GROUPS
  }
}

// Sizes 2 (twiddle 1) and 4 (twiddles 1 and -i, +i inverse) of each group of four points, the
// points read from `z` (interleaved real and imaginary parts, natural order) at their
// bit-reversed places: the group at a holds rev[a] + {0, half/2, half/4, 3·half/4}.
PCM_INLINE void first_stages(const float *z, float *re, float *im, long half,
                             const int32_t *rev, float sign) {
  if (half < 4) {
    for (long a = 0; a < half; a++) {
      re[a] = z[2 * rev[a]];
      im[a] = z[2 * rev[a] + 1];
    }
    for (long a = 0; a + 1 < half; a += 2) {
      const float xr = re[a + 1], xi = im[a + 1];
      re[a + 1] = re[a] - xr;
      im[a + 1] = im[a] - xi;
      re[a] += xr;
      im[a] += xi;
    }
    return;
  }
  const long q = half / 4;
  if (q % 8 == 0) {
    first_stages8(z, re, im, q, rev, sign);
    return;
  }
  for (long a = 0; a < half; a += 4) {
    const float *p0 = z + 2 * rev[a], *p1 = p0 + 4 * q, *p2 = p0 + 2 * q, *p3 = p0 + 6 * q;
    const float s0r = p0[0] + p1[0], s0i = p0[1] + p1[1];
    const float d0r = p0[0] - p1[0], d0i = p0[1] - p1[1];
    const float s1r = p2[0] + p3[0], s1i = p2[1] + p3[1];
    const float d1r = p2[0] - p3[0], d1i = p2[1] - p3[1];
    re[a] = s0r + s1r;
    im[a] = s0i + s1i;
    re[a + 2] = s0r - s1r;
    im[a + 2] = s0i - s1i;
    // (d1r + i d1i)·(-i·sign) = sign·d1i − i·sign·d1r
    const float xr = sign * d1i, xi = -sign * d1r;
    re[a + 1] = d0r + xr;
    im[a + 1] = d0i + xi;
    re[a + 3] = d0r - xr;
    im[a + 3] = d0i - xi;
  }
}

// The stages of sizes 8 … half.
PCM_INLINE void later_stages(float *re, float *im, long half, const float *twiddle_re,
                             const float *twiddle_im, float sign) {
  long base = 3;  // twiddles of sizes 2 and 4 come first (1 + 2)
  for (long size = 8; size <= half; size *= 2) {
    const long m = size / 2;
    const float *tr = twiddle_re + base, *ti = twiddle_im + base;
    if (m == 4) {
      const pcm_v4f vs = {sign, sign, sign, sign};
      const pcm_v4f wr = ld4(tr), wi = vs * ld4(ti);
      for (long start = 0; start < half; start += size) {
        float *ra = re + start, *ia = im + start, *rb = ra + m, *ib = ia + m;
        const pcm_v4f br = ld4(rb), bi = ld4(ib);
        const pcm_v4f xr = br * wr - bi * wi;
        const pcm_v4f xi = br * wi + bi * wr;
        const pcm_v4f ar = ld4(ra), ai = ld4(ia);
        st4(rb, ar - xr);
        st4(ib, ai - xi);
        st4(ra, ar + xr);
        st4(ia, ai + xi);
      }
    } else {
      const pcm_v8f vs = pcm_splat(sign);
      for (long start = 0; start < half; start += size) {
        float *ra = re + start, *ia = im + start, *rb = ra + m, *ib = ia + m;
        for (long j = 0; j < m; j += 8) {
          const pcm_v8f wr = pcm_load(tr + j), wi = vs * pcm_load(ti + j);
          const pcm_v8f br = pcm_load(rb + j), bi = pcm_load(ib + j);
          const pcm_v8f xr = br * wr - bi * wi;
          const pcm_v8f xi = br * wi + bi * wr;
          const pcm_v8f ar = pcm_load(ra + j), ai = pcm_load(ia + j);
          pcm_store(rb + j, ar - xr);
          pcm_store(ib + j, ai - xi);
          pcm_store(ra + j, ar + xr);
          pcm_store(ia + j, ai + xi);
        }
      }
    }
    base += m;
  }
}

PCM_INLINE pcm_v8f reversed(pcm_v8f v) {
  return __builtin_shufflevector(v, v, 7, 6, 5, 4, 3, 2, 1, 0);
}
// Eight floats ending at p[0], in reverse order (p[0] first); and stored so.
PCM_INLINE pcm_v8f load_down(const float *p) { return reversed(pcm_load(p - 7)); }
PCM_INLINE void store_down(float *p, pcm_v8f v) { pcm_store(p - 7, reversed(v)); }

// The forward split, in place: X[k] and X[m] (m = h − k) from Z[k] and Z[m], for k = 1 … h/2;
// eight pairs at a time (k up, m down) while the two runs stay apart.
PCM_INLINE void forward_split(float *re, float *im, long h, const float *wr, const float *wi) {
  long k = 1;
  const pcm_v8f half = pcm_splat(0.5f), minus_half = pcm_splat(-0.5f);
  for (; 2 * k + 14 < h; k += 8) {
    const long m = h - k;
    const pcm_v8f ar = pcm_load(re + k), ai = pcm_load(im + k);
    const pcm_v8f br = load_down(re + m), bi = load_down(im + m);
    const pcm_v8f er = half * (ar + br), ei = half * (ai - bi);
    const pcm_v8f or_ = half * (ai + bi), oi = minus_half * (ar - br);
    const pcm_v8f cr = pcm_load(wr + k), ci = pcm_load(wi + k);
    const pcm_v8f tr = cr * or_ - ci * oi, ti = cr * oi + ci * or_;
    pcm_store(re + k, er + tr);
    pcm_store(im + k, ei + ti);
    store_down(re + m, er - tr);
    store_down(im + m, ti - ei);
  }
  for (; k <= h / 2; k++) {
    const long m = h - k;
    const float ar = re[k], ai = im[k], br = re[m], bi = im[m];
    const float er = 0.5f * (ar + br), ei = 0.5f * (ai - bi);
    const float or_ = 0.5f * (ai + bi), oi = -0.5f * (ar - br);
    const float cr = wr[k], ci = wi[k];
    const float tr = cr * or_ - ci * oi, ti = cr * oi + ci * or_;
    re[k] = er + tr;
    im[k] = ei + ti;
    re[m] = er - tr;
    im[m] = ti - ei;
  }
}

// The inverse split, in place: Z[k] and Z[m] back from X[k] and X[m], as above.
PCM_INLINE void inverse_split(float *re, float *im, long h, const float *wr, const float *wi) {
  long k = 1;
  const pcm_v8f half = pcm_splat(0.5f);
  for (; 2 * k + 14 < h; k += 8) {
    const long m = h - k;
    const pcm_v8f ar = pcm_load(re + k), ai = pcm_load(im + k);
    const pcm_v8f br = load_down(re + m), bi = load_down(im + m);
    const pcm_v8f er = half * (ar + br), ei = half * (ai - bi);
    const pcm_v8f dr = half * (ar - br), di = half * (ai + bi);
    const pcm_v8f cr = pcm_load(wr + k), ci = -pcm_load(wi + k);
    const pcm_v8f or_ = cr * dr - ci * di, oi = cr * di + ci * dr;
    pcm_store(re + k, er - oi);
    pcm_store(im + k, ei + or_);
    store_down(re + m, er + oi);
    store_down(im + m, or_ - ei);
  }
  for (; k <= h / 2; k++) {
    const long m = h - k;
    const float ar = re[k], ai = im[k], br = re[m], bi = im[m];
    const float er = 0.5f * (ar + br), ei = 0.5f * (ai - bi);
    const float dr = 0.5f * (ar - br), di = 0.5f * (ai + bi);
    const float cr = wr[k], ci = -wi[k];
    const float or_ = cr * dr - ci * di, oi = cr * di + ci * dr;
    re[k] = er - oi;
    im[k] = ei + or_;
    re[m] = er + oi;
    im[m] = or_ - ei;
  }
}

PCM_CLONES void pcmmix_core_rfft_forward(const float *input, float *re, float *im, long half,
                                         const float *tables, const int32_t *rev) {
  const float *twr = tables, *twi = tables + (half - 1);
  const float *wr = tables + 2 * (half - 1), *wi = wr + half;
  const long h = half;
  // The even samples real, the odd imaginary, read at their bit-reversed places.
  first_stages(input, re, im, h, rev, 1.0f);
  later_stages(re, im, h, twr, twi, 1.0f);
  // Split: X[k] and X[h − k] from Z[k] and Z[h − k] together.
  const float z0r = re[0], z0i = im[0];
  re[0] = z0r + z0i;
  im[0] = 0;
  re[h] = z0r - z0i;
  im[h] = 0;
  forward_split(re, im, h, wr, wi);
}

PCM_CLONES void pcmmix_core_rfft_inverse(float *re, float *im, float *output, long half,
                                         const float *tables, const int32_t *rev) {
  const float *twr = tables, *twi = tables + (half - 1);
  const float *wr = tables + 2 * (half - 1), *wi = wr + half;
  const long h = half;
  const float x0 = re[0], xh = re[h];
  re[0] = 0.5f * (x0 + xh);
  im[0] = 0.5f * (x0 - xh);
  inverse_split(re, im, h, wr, wi);
  // Z interleaved into `output` (free until the end), read back at the bit-reversed places.
  for (long n = 0; n < h; n++) {
    output[2 * n] = re[n];
    output[2 * n + 1] = im[n];
  }
  first_stages(output, re, im, h, rev, -1.0f);
  later_stages(re, im, h, twr, twi, -1.0f);
  const float scale = 1 / (float)h;
  for (long n = 0; n < h; n++) {
    output[2 * n] = re[n] * scale;
    output[2 * n + 1] = im[n] * scale;
  }
}
