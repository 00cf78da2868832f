// Two open-source acoustic echo cancellers, speexdsp's and WebRTC's classic AEC (from
// webrtc-audio-processing 0.3), as peers for the benchmark. Both run over whole signals at once
// and report the thread CPU time of their processing loop.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

// Each runs over whole signals (mono float32 in [-1, 1], `frames` samples at `rate` Hz): `app` is
// the far-end reference (what the loudspeaker played), `mic` the microphone; writes the
// canceller's output to `out` (frames samples). Returns 0 on success, nonzero on failure.
// `cpu_seconds` (NULL allowed) receives the thread CPU time of the processing loop.
//
// Both process 10 ms frames; `rate` must be a positive multiple of 100. A last partial frame is
// completed with zeros, and only its first samples are written to `out`.

/// speexdsp: the MDF echo canceller (10 ms frames, a 200 ms filter) on int16 samples (rounded
/// and clamped from float), followed by speexdsp's preprocessor as a residual echo suppressor
/// only (its noise suppression set to 0 dB, AGC, VAD and dereverberation off).
int echo_peer_speex(const float *app, const float *mic, long frames, int rate, float *out,
                    double *cpu_seconds);

/// WebRTC: AudioProcessing with the classic AEC alone (high suppression, delay-agnostic, extended
/// filter; high-pass filter, noise suppression and AGC off), float deinterleaved 10 ms frames, the
/// far end through ProcessReverseStream and the microphone through ProcessStream, the stream
/// delay reported as 0 ms.
int echo_peer_webrtc(const float *app, const float *mic, long frames, int rate, float *out,
                     double *cpu_seconds);

#ifdef __cplusplus
}
#endif
