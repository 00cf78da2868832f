// speexdsp's echo canceller and residual echo suppressor behind echo_peer_speex (echo_peers.h).
// clock_gettime and CLOCK_THREAD_CPUTIME_ID are POSIX, hidden under a strict -std=c11.
#define _POSIX_C_SOURCE 200809L

#include "echo_peers.h"

#include <math.h>
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>
#include <stdlib.h>

#include "thread_cpu_time.h"

/// Float in [-1, 1] to int16: scaled by 32768, rounded to nearest, clamped.
static short to_int16(float x) {
  float scaled = x * 32768.0f;
  if (!(scaled > -32768.0f)) return -32768;  // Also maps NaN to a finite sample.
  if (scaled >= 32767.0f) return 32767;
  return (short)lrintf(scaled);
}

/// Copies samples `start` ... `start + count - 1` of `x` as int16 into `frame` (`length`
/// samples), padding with zeros past `count`.
static void load_frame(const float *x, long start, long count, short *frame, int length) {
  for (int i = 0; i < length; i++) frame[i] = i < count ? to_int16(x[start + i]) : 0;
}

int echo_peer_speex(const float *app, const float *mic, long frames, int rate, float *out,
                    double *cpu_seconds) {
  if (cpu_seconds) *cpu_seconds = 0;
  if (!app || !mic || !out || frames < 0 || rate <= 0 || rate % 100 != 0) return 1;

  const int frame = rate / 100;  // 10 ms
  const int tail = rate / 5;     // 200 ms of echo path
  // One allocation for the three int16 frames: far end, microphone, canceller output.
  short *far = malloc(3 * (size_t)frame * sizeof *far);
  short *near = far ? far + frame : NULL, *cleaned = far ? far + 2 * frame : NULL;
  SpeexEchoState *echo = speex_echo_state_init(frame, tail);
  SpeexPreprocessState *pre = speex_preprocess_state_init(frame, rate);
  int status = 1;
  if (!far || !echo || !pre) goto done;

  int value = rate;
  speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &value);
  // The preprocessor as a residual echo suppressor only. Its gains are applied only while its
  // denoiser is enabled (with the denoiser off it passes the signal through unchanged, residual
  // echo included), so the denoiser stays on with its noise suppression at 0 dB: the gain
  // floor is then 1 wherever there is no residual echo, and stationary noise is left alone.
  speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_ECHO_STATE, echo);
  value = 1;
  speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_DENOISE, &value);
  value = 0;
  speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &value);
  speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_AGC, &value);
  speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_VAD, &value);
  speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_DEREVERB, &value);

  double start = echo_peer_thread_cpu_seconds();
  for (long at = 0; at < frames; at += frame) {
    long count = frames - at < frame ? frames - at : frame;
    load_frame(app, at, count, far, frame);
    load_frame(mic, at, count, near, frame);
    speex_echo_cancellation(echo, near, far, cleaned);
    speex_preprocess_run(pre, cleaned);
    for (long i = 0; i < count; i++) out[at + i] = (float)cleaned[i] * (1.0f / 32768.0f);
  }
  if (cpu_seconds) *cpu_seconds = echo_peer_thread_cpu_seconds() - start;
  status = 0;

done:
  if (pre) speex_preprocess_state_destroy(pre);
  if (echo) speex_echo_state_destroy(echo);
  free(far);
  return status;
}
