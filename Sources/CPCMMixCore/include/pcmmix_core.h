// PCMMix's per-sample loops in portable C: the resampler's dot products, the decoders, the int16
// encoder and the mix. They are compiled with the package, so they need no library and no flags;
// written with GCC/Clang vector extensions (SSE2 on x86-64, NEON on arm64) and never contracted
// (FP_CONTRACT off), they give the bits that the same operations in Swift's SIMD types give, in
// a release build and in a Debug one (`-O0`), where Swift's generic SIMD operations cost a call
// each and the same loops in C still keep real time by a wide margin. One exception, on arm64
// only: the resampler's dot products, blended-row dot products and groups (each marked below)
// compute the chains of fused multiply-adds of PCMMixAccelerated's AVX2 kernels instead, so that
// an arm64 build gives those kernels' bits (and the NEON kernels', which equal them) with or
// without PCMMixAccelerated. Everywhere else, x86-64 included, they are as described.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Resampler

/// The dot product of `n` floats (`n` a multiple of 8): two eight-lane accumulators over
/// sixteen floats a step (the last eight into the first), their sum added lane by lane from -0.
/// On arm64, pcmmix_dot's chain: four eight-lane accumulators of fused multiply-adds over 32
/// floats a step (what is left, up to 24, eight at a time into the first), summed in its
/// horizontal order.
float pcmmix_core_dot(const float *h, const float *x, long n);

/// `h · a` into out[0] and `h · b` into out[1], each as pcmmix_core_dot computes it (on arm64 as
/// pcmmix_dot2 does: two fused accumulators each).
void pcmmix_core_dot2(const float *h, const float *a, const float *b, long n, float *out);

/// The dot product of `n` floats (`n` a multiple of 8) with products and sums in double: two
/// four-lane accumulators (the low and high halves of each eight), summed lane by lane from -0.
double pcmmix_core_dot_double(const float *h, const float *x, long n);

/// `row[i] = a[i] + t * (b[i] - a[i])` over `n` floats, `n` a multiple of 8.
void pcmmix_core_blend(const float *a, const float *b, float t, float *row, long n);

/// The row blended between `h0` and `h1` by `t` (pcmmix_core_blend's values) dotted with `a` and
/// with `b` (pcmmix_core_dot2's order), into out[0] and out[1]; `next` is unused (the signature
/// of PCMMix's LerpDot2 kernels). On arm64 pcmmix_lerp_dot2's bits: the row as `t * (h1 - h0) +
/// h0` fused (so not pcmmix_core_blend's values) and dotted as pcmmix_dot2.
void pcmmix_core_lerp_dot2(const float *h0, const float *h1, float t, const float *a,
                           const float *b, long n, float *out, const float *next);

/// The blended row dotted with `x` (pcmmix_core_dot's order); `next` is unused. On arm64
/// pcmmix_lerp_dot's bits (the fused row, two fused accumulators).
float pcmmix_core_lerp_dot(const float *h0, const float *h1, float t, const float *x, long n,
                           const float *next);

/// A steerable resampler's output loop (VariableRatioResampler): while the window at
/// `*position` (`taps` floats of each channel plane, planes `stride` apart from `base`) is
/// complete within `count`, fewer than `room` frames are written and, when `has_end`, the
/// output's input time `(time_offset + *position) + *fraction` is before `end`, writes one frame
/// to `out` (interleaved) from the two rows of `table` (`steps` rows per input sample) around
/// `*fraction`, then advances `*fraction` by `step`, its whole part into `*position`. Each frame
/// is the rows blended by the fraction and dotted (pcmmix_core_lerp_dot2 and _lerp_dot, so on
/// arm64 pcmmix_lerp_run's frames) or, with `in_double`, both rows dotted in double
/// (pcmmix_core_dot_double) and blended in double.
/// Returns the frames written; sets `*stopped` when `end` stopped it.
long pcmmix_core_lerp_run(const float *table, long taps, double steps, double step,
                          const float *base, long stride, long channels, long count, long room,
                          float *out, long *position, double *fraction, int has_end,
                          long time_offset, double end, int *stopped, int in_double);

/// Sixteen consecutive outputs of a polyphase filter, every channel: lane i of channel c is the
/// sum over m < width of table[m * 16 + i] * x[c * stride + m], summed in blocks of sixteen taps
/// (each block's sum added to the total); lanes first ..< first + count go to `out`, interleaved.
/// On arm64 pcmmix_group16's bits: the even taps and the odd taps each in a chain of fused
/// multiply-adds from zero, the two chains added at the end.
void pcmmix_core_group16(const float *table, long width, const float *x, long stride,
                         long channels, float *out, long first, long count);

/// Two whole groups of one mono plane that share `table` (pcmmix_core_group16's sums, fused on
/// arm64 as there): all sixteen lanes from `a` into `outa` and from `b` into `outb`.
void pcmmix_core_group16x2(const float *table, long width, const float *a, const float *b,
                           float *outa, float *outb);

/// Spreads `frames` interleaved frames of `input` (`channels` per frame) into planes `stride`
/// floats apart from `base`, each from index `at` on; a non-finite sample becomes +0.
void pcmmix_core_fill_planes(float *base, long stride, long channels, long at,
                             const float *input, long frames);

/// `frames` frames of interleaved stereo filtered by the `n` taps at `h`: out frame j is the
/// sum over k < n of h[k] times in frame j + k (both channels).
void pcmmix_core_fir2(const float *h, long n, const float *in, long frames, float *out);

// MARK: - FFT

/// The spectrum of `2·half` real samples at `input` into `re` and `im` (`half + 1` each): the
/// samples read as `half` complex points (even real, odd imaginary) put in bit-reversed order by
/// `rev` (`half` indices), a radix-2 complex FFT, and the split into the real signal's spectrum.
/// `tables` holds the stages' twiddles (`half - 1` real parts, then as many imaginary ones) and
/// the split's `e^{-2πik/(2·half)}`, k < half (`half` real parts, then `half` imaginary ones).
void pcmmix_core_rfft_forward(const float *input, float *re, float *im, long half,
                              const float *tables, const int32_t *rev);

/// The inverse of `pcmmix_core_rfft_forward` (numpy's `irfft`: divided by `2·half`): `re` and
/// `im` (overwritten) to `2·half` samples at `output`.
void pcmmix_core_rfft_inverse(float *re, float *im, float *output, long half,
                              const float *tables, const int32_t *rev);

// MARK: - Filter design

/// cos and sin of 2π·k/n for k in 0 ..< n/2, into `cosines` and `sines`: the twiddles of
/// pcmmix_core_fft_double.
void pcmmix_core_fft_twiddles(double *cosines, double *sines, long n);

/// In place, the radix-2 complex FFT of `n` points (a power of two) over split double arrays,
/// for filter design: bit-reversed order, then stage by stage (each butterfly
/// t = x[a]·w, x[a] = x[i] − t, x[i] += t, with w = cosines[k] ∓ i·sines[k] for k in steps of
/// n/size); the forward transform (e^{-iωn}), or with `inverse` the inverse one, scaled by 1/n.
void pcmmix_core_fft_double(double *re, double *im, const double *cosines, const double *sines,
                            long n, int inverse);

/// row[k] = Σ_j samples[first − k·stride + j] · weights[j] for j in 0 ..< taps (from 0.0, in
/// order of j, samples outside 0 ..< count skipped), for k in 0 ..< points: a prototype read at
/// points `stride` samples apart that share one set of interpolation weights.
void pcmmix_core_prototype_read(const double *samples, long count, const double *weights,
                                long taps, long first, long stride, double *row, long points);

/// x[i] /= divisor for i in 0 ..< n.
void pcmmix_core_divide_double(double *x, long n, double divisor);

/// re[i] = log(max(|re[i]|, floor)), im[i] = 0 for i in 0 ..< n: the floored log magnitude.
void pcmmix_core_log_magnitude(double *re, double *im, long n, double floor);

/// A real cepstrum of `n` points folded onto positive quefrencies: re[1 ..< n/2] doubled,
/// re[n/2 + 1 ..< n] and all of `im` zeroed.
void pcmmix_core_fold_cepstrum(double *re, double *im, long n);

/// (re[i], im[i]) = exp(re[i]) · (cos(im[i]), sin(im[i])) for i in 0 ..< n: the complex
/// exponential.
void pcmmix_core_exp_complex(double *re, double *im, long n);

/// out[k] = (float)(row[k] / Σ row) for k in 0 ..< taps, the sum taken from 0.0 in order: a row
/// normalized to unit DC gain.
void pcmmix_core_normalize_row(const double *row, long taps, float *out);

// MARK: - Echo canceller

/// All partitions of both filters' echo estimates at once, per bin: Y = Σ W·X, Z = Σ V·X and
/// power = Σ p·|X|² over partitions 0 … P−1 (filters `w`, `v` of 2·bins floats a partition, re
/// then im; `p` of bins floats a partition), partition j's X in `ring` at slot newest − j
/// (modulo ring_blocks, 2·bins floats a slot). The sums in registers, partition after partition:
/// Y += W·X as (wr·xr − wi·xi, wr·xi + wi·xr), the same for Z, power += p·(xr² + xi²). Bins
/// first … count−1 only; the outputs' other bins are left as they are.
void pcmmix_core_echo_predict(const float *w, const float *v, const float *p, const float *ring,
                              long ring_blocks, long newest, long partitions, long bins,
                              long first, long count, float *yr, float *yi, float *zr, float *zi,
                              float *power);

/// The steps of both filters, per bin, from the main filter's error spectrum E, the Kalman
/// denominator's sum `power` and the newest reference spectrum X: the near end's power
/// psi = max(|E|², 0.7·psi + 0.3·|E|²), inverse = 1 / (power + 2·max(psi − power / 2, 1e-6) +
/// floor); the reference's power rp = 0.9·rp + 0.1·|X|², step = 0.4 / (partitions·rp +
/// nlms_floor). Each max as Swift's: the second operand where it is greater or equal.
void pcmmix_core_echo_steps(const float *er, const float *ei, const float *power, const float *xr,
                            const float *xi, float *psi, float *rp, float *inverse, float *step,
                            long bins, float floor, float partitions, float nlms_floor);

/// Every partition of both filters updated, bin by bin (laid out as in
/// pcmmix_core_echo_predict), each bin's errors and steps read once. The main filter's Kalman
/// update with error E: gain = p / denominator (its inverse given), W += gain·conj(X)·E,
/// p = a2·max(0, p − fraction·gain·p·|X|²) + q·|W|² + r (q per bin: the process noise; r the
/// pull back towards the prior, `revert` in partition 0, times `decay` a partition); the
/// shadow's NLMS update with its error S: V += step·conj(X)·S. Bins first … count−1 only.
void pcmmix_core_echo_update(float *w, float *v, float *p, const float *ring, long ring_blocks,
                             long newest, long partitions, long bins, long first, long count,
                             const float *er, const float *ei, const float *inverse,
                             const float *sr, const float *si, const float *step,
                             const float *q, float a2, float fraction, float revert,
                             float decay);

/// The residual echo suppressor's gains, per bin, applied to the error spectrum E in place: the
/// residual r = max(residual, 0.1·echo_only·path, unlearnt·max(0, path − |Y|²),
/// misadjusted·min(|E|², |Y|²), |E|² where explained and hold > 0); g = max(floor,
/// 1 − overdrive·r / |E|²), moved from the last block's gain the share `rise` of the way up to
/// it or `fall` of the way down (1: at once), as share·g + (1 − share)·last; 1 where not `on` or
/// |E|² = 0. `se`, `sy`: |E|², |Y|². Each max and min as Swift's.
void pcmmix_core_echo_gains(const float *se, const float *sy, const float *residual,
                            const float *path, const uint8_t *hold, float *gains, float *er,
                            float *ei, long bins, float overdrive, float echo_only,
                            float unlearnt, float misadjusted, int explained, int on,
                            float floor, float rise, float fall);

/// One partition's reference power, weighted, added to `out` per bin: out += weight·|X|².
void pcmmix_core_echo_power_add(const float *xr, const float *xi, long bins, float weight,
                                float *out);

/// The echo canceller's reference read at fractional positions (its warp): output i reads at
/// p = position + i·ratio (p ≥ 0), whole = (long)p, phase = (p − whole)·phases, row =
/// min(phases − 1, (long)phase), t = (float)(phase − row); rows a = table + row·taps and b = a +
/// taps are each dotted with the `taps` samples from history index whole − taps/2 + 1 − first
/// (`history[0]` holds raw sample `first`) in eight-lane chunks added in order into one
/// accumulator from 0, its lanes summed from −0 one by one; out[i] = sa + t·(sb − sa). `taps` a
/// multiple of 8.
void pcmmix_core_echo_warp(const float *history, long first, const float *table, long taps,
                           long phases, double position, double ratio, long count, float *out);

// MARK: - Decode and encode

/// `count` samples held to what the DSP after them can take: out = in where in is finite and
/// within ±limit, ±limit beyond it, 0 for NaN and ±∞ (the exponent all ones). `out` may be
/// `in` (in place).
void pcmmix_core_bound(const float *in, long count, float limit, float *out);

/// `count` samples at `src` (any alignment) to float, with PCMMix's scaling (u8 x / 128 - 1,
/// s16 x / 2^15, s24 x / 2^23, s32 x / 2^31 rounded to nearest, f32 as is, f64 rounded to
/// nearest), each sample's bytes reversed first when `swap`. `type`: 0 u8, 1 s16, 2 s24 (`swap`
/// then means big-endian on a little-endian machine), 3 s32, 4 f32, 5 f64.
void pcmmix_core_decode(const void *src, long count, int type, int swap, float *dst);

/// One channel of interleaved or planar samples: `count` samples `stride` bytes apart from
/// `src` into `dst`, `out_stride` floats apart, as pcmmix_core_decode converts them.
void pcmmix_core_decode_strided(const void *src, long stride, long count, int type, int swap,
                                float *dst, long out_stride);

/// `count` four-byte words from `src` to `dst` (both any alignment), each one's bytes reversed.
void pcmmix_core_swap32(const void *src, long count, void *dst);

/// `count` floats to int16 at `dst` (any alignment) by PCMMix's rule (x * 32768 rounded to
/// nearest with ties toward zero, clamped; NaN to 0), each sample's bytes swapped when `swap`.
void pcmmix_core_encode_s16(const float *src, long count, void *dst, int swap);

// MARK: - Mix

/// out[i] = (a[i] * ga + b[i] * gb) * scale over n floats (separate multiplies and adds),
/// measuring in the same pass the largest magnitude and the sum of squares of a, of b and of the
/// result: the largest |x| as float bits as the maximum with magnitude_bits[0..2], the sums
/// added onto sums[0..2] (squares summed in float lanes for 4,096 samples at a time, then in
/// double). A non-finite sample makes its sum non-finite.
void pcmmix_core_mix_measure(float *out, const float *a, const float *b, long n, float ga,
                             float gb, float scale, int *magnitude_bits, double *sums);

/// The largest square of `n` floats (returned) and the sum of their squares (into *squares):
/// squares in two eight-lane float vectors, their largest kept lane by lane (a NaN never kept),
/// summed in float lanes for up to 4,096 samples at a time and then added in double (the lanes
/// summed from -0); the last n mod 16 one at a time, the larger by Swift's `max` and each square
/// added in double. The meters' pass (LevelMeter.swift), as it was written with SIMD8<Float>.
float pcmmix_core_peak_square_and_squares(const float *p, long n, double *squares);

/// The largest magnitude's bit pattern among `n` floats (sign bit cleared, compared as int):
/// NaN and infinity compare above every finite magnitude.
int pcmmix_core_max_magnitude_bits(const float *p, long n);

/// The largest magnitude of `frames` samples (every `stride`-th float of `x`, one channel)
/// oversampled 4×, and `peak`: each sample goes into `history` (2 × `taps` floats, a doubled
/// ring at `*at`), then y[p] = Σ_j coefficients[4j + p] · x[n − j] for the four phases.
float pcmmix_core_true_peak4(const float *x, long frames, long stride, const float *coefficients,
                             long taps, float *history, long *at, float peak);

#ifdef __cplusplus
}
#endif
