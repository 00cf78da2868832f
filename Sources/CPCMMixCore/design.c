// The resampler's filter design (see FFT.swift and MinimumPhase.swift): the double-precision
// FFT of the minimum-phase design and the reading of the prototype at a row's points. They run
// once per filter, at set-up or when a source switches to a rate it was not prepared for, over
// 2^18 points (`balanced`) and 2,049 rows of taps; in Swift a Debug build (`-Onone`) spent
// 0.8 s there. Plain scalar loops, never contracted: the bits the Swift loops gave.
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"
#include "pcmmix_math.h"

void pcmmix_core_fft_twiddles(double *cosines, double *sines, long n) {
  for (long k = 0; k < n / 2; k++) {
    // 2 · Double.pi · k / n, in that order.
    const double angle = 2 * 0x1.921fb54442d18p+1 * (double)k / (double)n;
    cosines[k] = pcmmix_cos(angle);
    sines[k] = pcmmix_sin(angle);
  }
}

void pcmmix_core_fft_double(double *re, double *im, const double *cosines, const double *sines,
                            long n, int inverse) {
  // Bit-reversed order.
  long j = 0;
  for (long i = 1; i < n; i++) {
    long bit = n >> 1;
    while (j & bit) {
      j ^= bit;
      bit >>= 1;
    }
    j |= bit;
    if (i < j) {
      const double r = re[i], m = im[i];
      re[i] = re[j];
      im[i] = im[j];
      re[j] = r;
      im[j] = m;
    }
  }
  const double sign = inverse ? 1.0 : -1.0;
  for (long size = 2; size <= n; size *= 2) {
    const long half = size / 2, step = n / size;
    for (long start = 0; start < n; start += size) {
      long k = 0;
      for (long i = start; i < start + half; i++) {
        const double wr = cosines[k], wi = sign * sines[k];
        const long a = i + half;
        const double tr = re[a] * wr - im[a] * wi;
        const double ti = re[a] * wi + im[a] * wr;
        re[a] = re[i] - tr;
        im[a] = im[i] - ti;
        re[i] += tr;
        im[i] += ti;
        k += step;
      }
    }
  }
  if (inverse) {
    const double scale = 1 / (double)n;
    for (long i = 0; i < n; i++) {
      re[i] *= scale;
      im[i] *= scale;
    }
  }
}

void pcmmix_core_prototype_read(const double *samples, long count, const double *weights,
                                long taps, long first, long stride, double *row, long points) {
  for (long k = 0; k < points; k++) {
    const long at = first - k * stride;
    double s = 0.0;
    for (long j = 0; j < taps; j++) {
      const long i = at + j;
      if (i >= 0 && i < count) s += samples[i] * weights[j];
    }
    row[k] = s;
  }
}

void pcmmix_core_divide_double(double *x, long n, double divisor) {
  for (long i = 0; i < n; i++) x[i] /= divisor;
}

void pcmmix_core_log_magnitude(double *re, double *im, long n, double floor) {
  for (long i = 0; i < n; i++) {
    const double m = __builtin_fabs(re[i]);
    re[i] = pcmmix_log(floor >= m ? floor : m);
    im[i] = 0;
  }
}

void pcmmix_core_fold_cepstrum(double *re, double *im, long n) {
  for (long i = 1; i < n / 2; i++) re[i] *= 2;
  for (long i = n / 2 + 1; i < n; i++) re[i] = 0;
  for (long i = 0; i < n; i++) im[i] = 0;
}

void pcmmix_core_exp_complex(double *re, double *im, long n) {
  for (long i = 0; i < n; i++) {
    const double m = pcmmix_exp(re[i]), phase = im[i];
    re[i] = m * pcmmix_cos(phase);
    im[i] = m * pcmmix_sin(phase);
  }
}

void pcmmix_core_normalize_row(const double *row, long taps, float *out) {
  double sum = 0.0;
  for (long k = 0; k < taps; k++) sum += row[k];
  for (long k = 0; k < taps; k++) out[k] = (float)(row[k] / sum);
}
