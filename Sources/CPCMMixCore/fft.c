// The butterflies of PCMMix's FFT (see RealFFT.swift): an in-place radix-2 complex transform
// over split real and imaginary arrays already in bit-reversed order, stage by stage, the
// stage's twiddles back to back. Four butterflies at a time in vector registers where a stage
// has that many per group.
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"
#include "vector.h"

typedef float v4f __attribute__((vector_size(16)));
typedef float v4f_u __attribute__((vector_size(16), aligned(4)));

PCM_INLINE v4f ld4(const float *p) { return *(const v4f_u *)p; }
PCM_INLINE void st4(float *p, v4f v) { *(v4f_u *)p = v; }

void pcmmix_core_fft_stages(float *re, float *im, long half, const float *twiddle_re,
                            const float *twiddle_im, int inverse) {
  const float sign = inverse ? -1.0f : 1.0f;
  // Size 2: twiddle 1.
  for (long a = 0; a + 1 < half; a += 2) {
    const float xr = re[a + 1], xi = im[a + 1];
    re[a + 1] = re[a] - xr;
    im[a + 1] = im[a] - xi;
    re[a] += xr;
    im[a] += xi;
  }
  // Size 4: twiddles 1 and -i (or +i inverse).
  if (half >= 4) {
    for (long a = 0; a < half; a += 4) {
      float xr = re[a + 2], xi = im[a + 2];
      re[a + 2] = re[a] - xr;
      im[a + 2] = im[a] - xi;
      re[a] += xr;
      im[a] += xi;
      // (re + i im) * (-i·sign) = sign·im − i·sign·re
      xr = sign * im[a + 3];
      xi = -sign * re[a + 3];
      re[a + 3] = re[a + 1] - xr;
      im[a + 3] = im[a + 1] - xi;
      re[a + 1] += xr;
      im[a + 1] += xi;
    }
  }
  long base = 3;  // twiddles of sizes 2 and 4 come first (1 + 2)
  for (long size = 8; size <= half; size *= 2) {
    const long m = size / 2;
    const float *tr = twiddle_re + base, *ti = twiddle_im + base;
    const v4f vs = {sign, sign, sign, sign};
    for (long start = 0; start < half; start += size) {
      float *ra = re + start, *ia = im + start, *rb = re + start + m, *ib = im + start + m;
      for (long j = 0; j < m; j += 4) {
        const v4f wr = ld4(tr + j), wi = vs * ld4(ti + j);
        const v4f br = ld4(rb + j), bi = ld4(ib + j);
        const v4f xr = br * wr - bi * wi;
        const v4f xi = br * wi + bi * wr;
        const v4f ar = ld4(ra + j), ai = ld4(ia + j);
        st4(rb + j, ar - xr);
        st4(ib + j, ai - xi);
        st4(ra + j, ar + xr);
        st4(ia + j, ai + xi);
      }
    }
    base += m;
  }
}
