// The echo canceller's per-bin loops (see EchoCanceller.swift), over spectra held as split real
// and imaginary arrays of `bins` floats.
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"
#include "vector.h"

PCM_CLONES void pcmmix_core_echo_predict2(const float *restrict wr, const float *restrict wi,
                               const float *restrict vr, const float *restrict vi,
                               const float *restrict xr, const float *restrict xi,
                               const float *restrict p, long bins, float *restrict yr,
                               float *restrict yi, float *restrict zr, float *restrict zi,
                               float *restrict power) {
  for (long k = 0; k < bins; k++) {
    const float a = xr[k], b = xi[k];
    yr[k] += wr[k] * a - wi[k] * b;
    yi[k] += wr[k] * b + wi[k] * a;
    zr[k] += vr[k] * a - vi[k] * b;
    zi[k] += vr[k] * b + vi[k] * a;
    power[k] += p[k] * (a * a + b * b);
  }
}

PCM_CLONES void pcmmix_core_echo_kalman(float *restrict wr, float *restrict wi, float *restrict p,
                             const float *restrict xr, const float *restrict xi,
                             const float *restrict er, const float *restrict ei,
                             const float *restrict inverse_denominator, long bins, float a2,
                             float fraction) {
  for (long k = 0; k < bins; k++) {
    const float x2 = xr[k] * xr[k] + xi[k] * xi[k];
    const float gain = p[k] * inverse_denominator[k];
    // conj(X) · E
    const float gr = xr[k] * er[k] + xi[k] * ei[k];
    const float gi = xr[k] * ei[k] - xi[k] * er[k];
    const float nr = wr[k] + gain * gr, ni = wi[k] + gain * gi;
    wr[k] = nr;
    wi[k] = ni;
    const float left = p[k] - fraction * gain * p[k] * x2;
    p[k] = a2 * (left > 0 ? left : 0) + (1 - a2) * (nr * nr + ni * ni);
  }
}

PCM_CLONES void pcmmix_core_echo_nlms(float *restrict wr, float *restrict wi, const float *restrict xr,
                           const float *restrict xi, const float *restrict er,
                           const float *restrict ei, const float *restrict step, long bins) {
  for (long k = 0; k < bins; k++) {
    const float gr = xr[k] * er[k] + xi[k] * ei[k];
    const float gi = xr[k] * ei[k] - xi[k] * er[k];
    wr[k] += step[k] * gr;
    wi[k] += step[k] * gi;
  }
}

PCM_CLONES void pcmmix_core_echo_power_add(const float *restrict xr, const float *restrict xi,
                                          long bins, float weight, float *restrict out) {
  for (long k = 0; k < bins; k++) out[k] += weight * (xr[k] * xr[k] + xi[k] * xi[k]);
}
