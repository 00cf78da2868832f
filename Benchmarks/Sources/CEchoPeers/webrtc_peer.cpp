// WebRTC's classic echo canceller (webrtc-audio-processing 0.3) behind echo_peer_webrtc
// (echo_peers.h).
#include "echo_peers.h"

#include <memory>
#include <new>
#include <vector>

#include <webrtc/modules/audio_processing/include/audio_processing.h>

#include "thread_cpu_time.h"

namespace {

/// Runs the whole signal through one AudioProcessing instance; returns 0 or the first error.
int run_webrtc(const float *app, const float *mic, long frames, int rate, float *out,
               double *cpu_seconds) {
  // Delay-agnostic mode estimates the echo delay itself instead of trusting the reported one;
  // the extended filter covers a longer echo path. The experimental AGC is enabled by default
  // in this version's Config and is turned off with the rest of the gain control.
  webrtc::Config config;
  config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
  config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
  config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
  std::unique_ptr<webrtc::AudioProcessing> apm(webrtc::AudioProcessing::Create(config));
  if (!apm) return 1;

  // The echo canceller alone: every other component that changes the signal is off.
  int status = webrtc::AudioProcessing::kNoError;
  auto check = [&status](int result) {
    if (status == webrtc::AudioProcessing::kNoError) status = result;
  };
  check(apm->high_pass_filter()->Enable(false));
  check(apm->noise_suppression()->Enable(false));
  check(apm->gain_control()->Enable(false));
  check(apm->echo_cancellation()->enable_drift_compensation(false));
  check(apm->echo_cancellation()->set_suppression_level(
      webrtc::EchoCancellation::kHighSuppression));
  check(apm->echo_cancellation()->Enable(true));

  // Mono float at `rate` on every stream; the module resamples internally where `rate` is not
  // one of its native rates.
  const webrtc::StreamConfig stream(rate, 1);
  webrtc::ProcessingConfig processing;
  for (auto &each : processing.streams) each = stream;
  check(apm->Initialize(processing));
  if (status != webrtc::AudioProcessing::kNoError) return status;

  const long frame = static_cast<long>(stream.num_frames());  // 10 ms
  std::vector<float> far(frame), near(frame), far_out(frame);
  float *far_channels[] = {far.data()};
  float *near_channels[] = {near.data()};
  float *far_out_channels[] = {far_out.data()};

  const double start = echo_peer_thread_cpu_seconds();
  for (long at = 0; at < frames && status == webrtc::AudioProcessing::kNoError; at += frame) {
    const long count = frames - at < frame ? frames - at : frame;
    for (long i = 0; i < frame; i++) {
      far[i] = i < count ? app[at + i] : 0.0f;
      near[i] = i < count ? mic[at + i] : 0.0f;
    }
    check(apm->ProcessReverseStream(far_channels, stream, stream, far_out_channels));
    // Required before every ProcessStream while the canceller is on; delay-agnostic mode
    // finds the actual delay.
    check(apm->set_stream_delay_ms(0));
    // In place: the output overwrites `near`.
    check(apm->ProcessStream(near_channels, stream, stream, near_channels));
    for (long i = 0; i < count; i++) out[at + i] = near[i];
  }
  if (cpu_seconds) *cpu_seconds = echo_peer_thread_cpu_seconds() - start;
  return status;
}

}  // namespace

extern "C" int echo_peer_webrtc(const float *app, const float *mic, long frames, int rate,
                                float *out, double *cpu_seconds) {
  if (cpu_seconds) *cpu_seconds = 0;
  if (!app || !mic || !out || frames < 0 || rate <= 0 || rate % 100 != 0) return 1;
  // No C++ exception may cross into C or Swift callers.
  try {
    return run_webrtc(app, mic, frames, rate, out, cpu_seconds);
  } catch (...) {
    return 1;
  }
}
