// Kernels for PCMMix's resampler and output stage. On x86: AVX2 + FMA (avx2_resample.c,
// avx2_levels.c, upsample.c) and AVX-512F (avx512_resample.c), built for those instructions and
// chosen at run time. Swift cannot ask for those instructions without compiler flags that would
// stop the package from being a dependency; a C function can, with a target attribute. On arm64:
// the resampler's kernels in NEON (neon_resample.c), which give the AVX2 kernels' bits.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when this CPU runs the AVX2 + FMA kernels, else 0 (then the functions must not be called).
int pcmmix_kernels_available(void);

/// 1 when this CPU (and its OS) also runs the AVX-512F group functions (`*_512`), else 0.
int pcmmix_avx512_available(void);

/// 1 on arm64, where the NEON kernels (`pcmmix_neon_*`) exist and every CPU runs them (Advanced
/// SIMD is part of AArch64), else 0.
int pcmmix_neon_available(void);

/// The most `steps` pcmmix_upsample_run and pcmmix_upsample_run_512 take when `down` is 2: they
/// copy the input's even and odd samples into stack buffers sized by it. (PCMMix's
/// `UpsampleTable.mostStepsSplit` must equal it; a test checks.)
enum { PCMMIX_UPSAMPLE_MOST_SPLIT_STEPS = 1040 };

#if defined(__x86_64__) || defined(__i386__)
// The kernels below exist only on x86 (avx2_resample.c, avx2_levels.c); call them only when
// pcmmix_kernels_available() returns 1.

/// The dot product of `n` floats of `h` and `x`, `n` a multiple of 8.
float pcmmix_dot(const float *h, const float *x, long n);

/// The dot products of `h` with `a` and with `b` (`n` floats, a multiple of 8), into out[0] and
/// out[1]; each coefficient is loaded once for both.
void pcmmix_dot2(const float *h, const float *a, const float *b, long n, float *out);

/// The dot products of the row blended between `h0` and `h1` (`h0 + t * (h1 - h0)`, formed in
/// registers, never stored) with `a` and with `b`, into out[0] and out[1]: one output frame of a
/// resampler whose phase falls between two rows of an interpolated table. `n` a multiple of 8.
/// Unless `next` is NULL, the `2 * n` floats from `next` (the next output's two rows) are
/// fetched into the cache meanwhile: the rows of a large table are far apart, and waiting on
/// them cost about a third of the time.
void pcmmix_lerp_dot2(const float *h0, const float *h1, float t, const float *a, const float *b,
                      long n, float *out, const float *next);

/// The dot product of the row blended between `h0` and `h1` with `x` (see pcmmix_lerp_dot2).
float pcmmix_lerp_dot(const float *h0, const float *h1, float t, const float *x, long n,
                      const float *next);

/// A steerable resampler's output loop: while the window at `*position` (`taps` floats of each
/// channel plane, planes `stride` apart from `base`) is complete within `count`, fewer than `room`
/// frames are written and, when `has_end`, the output's input time `(time_offset + *position) +
/// *fraction` is before `end`, writes one frame to `out` (interleaved) from the two rows of the
/// interpolated `table` (`steps` rows per input sample) around `*fraction`, by pcmmix_lerp_dot2
/// and pcmmix_lerp_dot, then advances `*fraction` by `step`, its whole part into `*position`.
/// The same Double arithmetic as VariableRatioResampler's Swift loop, so the same outputs and
/// positions. Returns the frames written; sets `*stopped` when `end` stopped it.
long pcmmix_lerp_run(const float *table, long taps, double steps, double step, const float *base,
                     long stride, long channels, long count, long room, float *out,
                     long *position, double *fraction, int has_end, long time_offset, double end,
                     int *stopped);

/// Sixteen consecutive outputs of a polyphase filter, each channel's computed as
/// `lane[i] = sum over m < width of table[m * 16 + i] * plane[m]`, where plane `c` starts at
/// `x + c * stride`. Lanes `first ..< first + count` go to `out`, interleaved
/// (`out[(i - first) * channels + c]`). `table` holds a group's coefficients spread out by tap, so
/// that every lane is its own output's dot product (zeros where its window does not reach).
void pcmmix_group16(const float *table, long width, const float *x, long stride, long channels,
                    float *out, long first, long count);

/// Two whole groups of one mono plane that share `table`: all sixteen lanes from the input at `a`
/// into `outa`, and from `b` into `outb`. Each coefficient load serves both, as for a stereo pair.
void pcmmix_group16x2(const float *table, long width, const float *a, const float *b,
                      float *outa, float *outb);

/// pcmmix_group16 with 512-bit registers (AVX-512F): the same bits, one row load per tap.
void pcmmix_group16_512(const float *table, long width, const float *x, long stride,
                        long channels, float *out, long first, long count);

/// `count` whole groups that share `table`, starting `advance` samples apart (a table cycle),
/// every channel: the sixteen lanes of group k (planes from `x + k * advance + c * stride`) into
/// `out + k * out_advance`, except group 0 into `first_out` and group count - 1 into `last_out`
/// where those are not NULL, interleaved as pcmmix_group16 writes them, with the same bits as
/// `count` pcmmix_group16 calls. Up to seven groups share each row load.
void pcmmix_group16_run_512(const float *table, long width, const float *x, long advance,
                            long stride, long channels, float *out, long out_advance, long count,
                            float *first_out, float *last_out);

/// Upsampling by `up` : `down` = 3, 5 or 6 : 1 (16, 9.6, 8 kHz into 48 kHz) or 3 : 2 (32 kHz),
/// every channel, in direct form: output `j` (0 ..< `count`) is output `a = phase + j` of the
/// run whose first output's window starts at `x`; with m = a / up and p = a % up it is the sum
/// over s < `steps` of h[s * up + p] * plane[m * down + s - lead], plane c at x + c * stride and
/// lead = phase * down / up (the input before x counts as zero and is not read). `h` is the
/// exact table laid out step-major, each phase's row shifted to where its window starts (zeros
/// around it). Written interleaved to `out + j * channels`. Each output is one chain of fused
/// multiply-adds over the steps in order, so the AVX2 and AVX-512F functions give the same
/// bits, and any split of the outputs into calls does too. Reads up to 48 floats past the last
/// output's window in each plane (for results it drops).
void pcmmix_upsample_run(const float *h, long steps, long up, long down, const float *x,
                         long stride, long channels, long phase, long count, float *out);

/// pcmmix_upsample_run with 512-bit registers (AVX-512F): the same bits.
void pcmmix_upsample_run_512(const float *h, long steps, long up, long down, const float *x,
                             long stride, long channels, long phase, long count, float *out);

/// Float32 samples to int16 by PCMMix's rule (x * 32768 rounded to nearest with ties toward
/// zero, clamped; NaN to 0): the same bits as `PCMEncoder.int16` in Swift, sixteen at a time.
void pcmmix_encode_s16(const float *x, long n, short *out);

/// out[i] = (a[i] * ga + b[i] * gb) * scale over n floats (separate multiplies and adds, the
/// same bits as PCMMix's Swift loop), measuring in the same pass the largest magnitude and the
/// sum of squares of a, of b and of the result: the largest |x| as float bits (a NaN counts
/// larger than any number) as the maximum with magnitude_bits[0..2], the sums added onto
/// sums[0..2]. A non-finite sample makes its sum non-finite.
void pcmmix_mix_measure(float *out, const float *a, const float *b, long n, float ga, float gb,
                        float scale, int *magnitude_bits, double *sums);

#endif  // x86

#if defined(__aarch64__)
// The resampler's kernels in NEON (neon_resample.c), each with the contract of the x86 function
// named in its comment and the same bits as the AVX2 one: the same chain of fused multiply-adds
// per lane, the same even / odd split of the group sums, the same final adds and the AVX2
// horizontal sum's order (scripts/arm64/kernels-check.sh compares them under qemu).

/// pcmmix_dot.
float pcmmix_neon_dot(const float *h, const float *x, long n);

/// pcmmix_dot2.
void pcmmix_neon_dot2(const float *h, const float *a, const float *b, long n, float *out);

/// pcmmix_lerp_dot2 (`next` fetched with prfm).
void pcmmix_neon_lerp_dot2(const float *h0, const float *h1, float t, const float *a,
                           const float *b, long n, float *out, const float *next);

/// pcmmix_lerp_dot.
float pcmmix_neon_lerp_dot(const float *h0, const float *h1, float t, const float *x, long n,
                           const float *next);

/// pcmmix_lerp_run, by pcmmix_neon_lerp_dot2 and pcmmix_neon_lerp_dot.
long pcmmix_neon_lerp_run(const float *table, long taps, double steps, double step,
                          const float *base, long stride, long channels, long count, long room,
                          float *out, long *position, double *fraction, int has_end,
                          long time_offset, double end, int *stopped);

/// pcmmix_group16.
void pcmmix_neon_group16(const float *table, long width, const float *x, long stride,
                         long channels, float *out, long first, long count);

/// pcmmix_group16x2.
void pcmmix_neon_group16x2(const float *table, long width, const float *a, const float *b,
                           float *outa, float *outb);

/// pcmmix_group16_run_512 (the same bits as `count` pcmmix_neon_group16 calls): a stereo
/// group's two channels share each row load, and a channel without a partner (mono, the third
/// of three) pairs with the same channel of the next group.
void pcmmix_neon_group16_run(const float *table, long width, const float *x, long advance,
                             long stride, long channels, float *out, long out_advance, long count,
                             float *first_out, float *last_out);

/// pcmmix_upsample_run: the same ratios, the same bits; reads past each plane's last window no
/// further than it.
void pcmmix_neon_upsample_run(const float *h, long steps, long up, long down, const float *x,
                              long stride, long channels, long phase, long count, float *out);

#endif  // arm64

#ifdef __cplusplus
}
#endif
