// The loudness meter's true peak (see LoudnessMeter.swift): each sample of one channel into a
// history, then the oversampled values between it and the one before, by a polyphase
// interpolator, keeping the largest magnitude.
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"
#include "vector.h"


PCM_CLONES float pcmmix_core_true_peak4(const float *restrict x, long frames, long stride,
                                        const float *restrict coefficients, long taps,
                                        float *restrict history, long *at, float peak) {
  long a = *at;
  pcm_v4f best = {peak, peak, peak, peak};
  for (long i = 0; i < frames; i++) {
    const float v = x[i * stride];
    // A doubled ring: the last `taps` samples are contiguous from a + 1.
    history[a] = v;
    history[a + taps] = v;
    const float *h = history + a + taps;  // the newest; h[-j] is j samples back
    pcm_v4f y = {0, 0, 0, 0};
    for (long j = 0; j < taps; j++) {
      pcm_v4f c;
      __builtin_memcpy(&c, coefficients + 4 * j, sizeof c);
      y += c * h[-j];
    }
    pcm_v4f m = __builtin_elementwise_abs(y);
    best = __builtin_elementwise_max(best, m);
    a = a + 1 == taps ? 0 : a + 1;
  }
  *at = a;
  float r = best[0];
  for (int k = 1; k < 4; k++) r = r > best[k] ? r : best[k];
  return r;
}
