// Peer resamplers (soxr, speexdsp) behind one small streaming API, for the benchmark's
// side-by-side table. Interleaved float32 in and out, as the library's own Resampler.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// Which library.
typedef enum {
  BENCH_PEER_SOXR = 1,
  BENCH_PEER_SPEEX = 2,
} bench_peer_kind;

/// soxr quality recipes (the `quality` argument for BENCH_PEER_SOXR).
typedef enum {
  BENCH_SOXR_QQ = 0,
  BENCH_SOXR_LQ = 1,
  BENCH_SOXR_MQ = 2,
  BENCH_SOXR_HQ = 3,
  BENCH_SOXR_VHQ = 4,
} bench_soxr_quality;

typedef struct bench_peer bench_peer;

/// Creates a converter; `quality` is a bench_soxr_quality for soxr, 0 ... 10 for speexdsp.
/// Returns NULL when the library refuses the parameters.
bench_peer *bench_peer_create(bench_peer_kind kind, int quality, int in_rate, int out_rate,
                              int channels);

/// Converts `frames` input frames, writing at most `capacity` output frames; returns the frames
/// written, or -1 on error. All input is consumed when `capacity` is at least
/// bench_peer_max_output(frames).
long bench_peer_process(bench_peer *peer, const float *in, long frames, float *out,
                        long capacity);

/// Writes the tail after the last input; call until it returns 0.
long bench_peer_flush(bench_peer *peer, float *out, long capacity);

/// The most frames one bench_peer_process call can write for `frames` input frames.
long bench_peer_max_output(const bench_peer *peer, long frames);

/// The delay the library reports, in output frames (informational; the benchmark measures it).
double bench_peer_reported_delay(const bench_peer *peer);

/// Frees the converter.
void bench_peer_destroy(bench_peer *peer);

#ifdef __cplusplus
}
#endif
