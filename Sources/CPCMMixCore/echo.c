// The echo canceller's per-bin loops (see EchoCanceller.swift), over spectra held as split real
// and imaginary arrays of `bins` floats.
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"

void pcmmix_core_echo_predict(const float *wr, const float *wi, const float *xr, const float *xi,
                              const float *p, long bins, float *yr, float *yi, float *power) {
  for (long k = 0; k < bins; k++) {
    const float a = xr[k], b = xi[k];
    yr[k] += wr[k] * a - wi[k] * b;
    yi[k] += wr[k] * b + wi[k] * a;
    if (p) power[k] += p[k] * (a * a + b * b);
  }
}

void pcmmix_core_echo_kalman(float *wr, float *wi, float *p, const float *xr, const float *xi,
                             const float *er, const float *ei, const float *inverse_denominator,
                             long bins, float a2, float fraction) {
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

void pcmmix_core_echo_nlms(float *wr, float *wi, const float *xr, const float *xi,
                           const float *er, const float *ei, const float *step, long bins) {
  for (long k = 0; k < bins; k++) {
    const float gr = xr[k] * er[k] + xi[k] * ei[k];
    const float gi = xr[k] * ei[k] - xi[k] * er[k];
    wr[k] += step[k] * gr;
    wi[k] += step[k] * gi;
  }
}
