// Peer resamplers (soxr, speexdsp, a WebRTC-class 32-tap sinc) behind one small streaming API,
// for the benchmark's side-by-side table. Interleaved float32 in and out, as the library's own
// Resampler. Also the peak multiply-add rate probe behind the table's compute floors.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// Which library.
typedef enum {
  BENCH_PEER_SOXR = 1,
  BENCH_PEER_SPEEX = 2,
  /// A WebRTC-class sinc resampler, written here (WebRTC is not linked): a 32-tap
  /// Blackman-windowed sinc with its cutoff at 0.9 times the lower Nyquist, tabulated at 32 + 1
  /// fractional offsets; each output takes two 32-tap dot products against the same input and
  /// interpolates them linearly. One converter per channel, AVX2 + FMA when the CPU has them.
  /// Delay: 16 input samples. `quality` is ignored.
  BENCH_PEER_SINC32 = 3,
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

/// Whether BENCH_PEER_SINC32 and bench_fma_peak use AVX2 + FMA on this CPU.
int bench_fma_available(void);

/// Runs `rounds` rounds of 12 independent chains of 8-lane fused multiply-adds, all in registers
/// (enough chains to keep every FMA port busy), and stores a value that depends on all of them in
/// `*sink`. Returns the multiply-adds done (96 per round), or 0 when the CPU lacks AVX2 + FMA.
long bench_fma_peak(long rounds, float *sink);

/// bench_fma_peak with 16-lane AVX-512F registers (192 multiply-adds per round), or 0 when the
/// CPU or its OS lacks AVX-512F.
long bench_fma_peak512(long rounds, float *sink);

/// Loudness measures of a whole signal (LUFS, LU, dBTP), as PCMMix's LoudnessMeter reports them.
typedef struct {
  double integrated;
  double range;
  double true_peak_db;
  double momentary_max;
} bench_loudness;

/// libebur128's measures of `frames` interleaved frames of `channels` at `rate` into `out`
/// (momentary loudness read every 100 ms); 0 on success.
int bench_ebur128_measure(const float *x, long frames, int channels, int rate,
                          bench_loudness *out);

#ifdef __cplusplus
}
#endif
