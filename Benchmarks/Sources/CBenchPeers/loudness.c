// libebur128 (MIT) as the loudness peer of the benchmark's `loudness` section: the same
// measures PCMMix's LoudnessMeter reports, from the same samples.
#include <ebur128.h>
#include <math.h>

#include "peers.h"

int bench_ebur128_measure(const float *x, long frames, int channels, int rate,
                          bench_loudness *out) {
  ebur128_state *st = ebur128_init((unsigned)channels, (unsigned long)rate,
                                   EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_M |
                                       EBUR128_MODE_TRUE_PEAK);
  if (!st) return -1;
  // In 100 ms steps, so the momentary loudness can be read after each, as a live meter would.
  const long step = rate / 10;
  out->momentary_max = -HUGE_VAL;
  for (long at = 0; at < frames; at += step) {
    const long n = frames - at < step ? frames - at : step;
    if (ebur128_add_frames_float(st, x + at * channels, (size_t)n) != EBUR128_SUCCESS) {
      ebur128_destroy(&st);
      return -1;
    }
    double m;
    if (at + n >= rate * 4 / 10 && ebur128_loudness_momentary(st, &m) == EBUR128_SUCCESS &&
        m > out->momentary_max)
      out->momentary_max = m;
  }
  int status = ebur128_loudness_global(st, &out->integrated) == EBUR128_SUCCESS &&
                       ebur128_loudness_range(st, &out->range) == EBUR128_SUCCESS
                   ? 0
                   : -1;
  double peak = 0;
  for (int c = 0; c < channels; c++) {
    double p;
    if (ebur128_true_peak(st, (unsigned)c, &p) == EBUR128_SUCCESS && p > peak) peak = p;
  }
  out->true_peak_db = peak > 0 ? 20 * log10(peak) : -HUGE_VAL;
  ebur128_destroy(&st);
  return status;
}
