// The built-in resampler's kernels for arm64 (Advanced SIMD, which every AArch64 CPU has): the
// AVX2 + FMA kernels of avx2_resample.c and upsample.c computed lane for lane, so that a
// capture resampled on an iPhone has the bits it has on an x86 server. An AVX2 register's eight
// lanes are two NEON registers here (low and high halves); each lane runs the same chain of
// fused multiply-adds (vfmaq_*: fmla) from the same zero, the even and odd taps of a group in
// separate chains as there, and the final adds and horizontal sums pair the lanes exactly as the
// AVX2 code does. scripts/arm64/kernels-check.sh compares the two byte for byte.
#include "pcmmix_kernels.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

// Fused only where an intrinsic says so: pcmmix_neon_lerp_run's Double arithmetic must round
// each product and sum as the Swift loop does (the compiler may otherwise contract a * b + c).
#pragma STDC FP_CONTRACT OFF

// The hot loops name their operations through these macros rather than the intrinsics. An
// intrinsic such as vfmaq_f32 is an inline function, and at -O0 (an adopter's Debug build:
// Xcode compiles a package dependency -O0) each of its vector arguments and its result goes
// through the stack (avx2_ops.h gives what that cost on x86-64). The macros are the same
// operations (the vector extensions' operators, and a fused multiply-add builtin where the
// compiler has one: Clang 17 and later), so the same instructions at -O2 and nothing passed by
// value at -O0. FMA(acc, a, b) is vfmaq_f32's acc + a · b, rounded once.
#if __has_builtin(__builtin_elementwise_fma)
#define FMA(acc, a, b) __builtin_elementwise_fma((a), (b), (acc))
#else
#define FMA(acc, a, b) vfmaq_f32((acc), (a), (b))
#endif
// Four floats from anywhere (vld1q_f32's load; as a macro of its own, it keeps a copy at -O0).
typedef float unaligned4 __attribute__((vector_size(16), aligned(4)));
#define LOAD(p) ((float32x4_t)(*(const unaligned4 *)(p)))
#define SPLAT(x)                                           \
  ({                                                       \
    const float splat_x_ = (x);                            \
    (float32x4_t){splat_x_, splat_x_, splat_x_, splat_x_}; \
  })
#define ZERO ((float32x4_t){0, 0, 0, 0})

// The AVX2 kernels' hsum of an eight-lane register held as its halves: lanes i and i + 4
// added, then (0 + 2) and (1 + 3), then those two (faddp). Float addition commutes, so which
// operand comes first does not change the bits; which lanes pair up does.
#define HSUM8(lo, hi)                                      \
  ({                                                       \
    const float32x4_t hsum_s_ = (lo) + (hi);               \
    (hsum_s_[0] + hsum_s_[2]) + (hsum_s_[1] + hsum_s_[3]); \
  })

// pcmmix_dot's four eight-lane accumulators are eight chains here, which hide fmla's latency
// on a core with four FP pipes (each chain waits 3 to 4 cycles for its previous fmla).
float pcmmix_neon_dot(const float *h, const float *x, long n) {
  float32x4_t s0l = ZERO, s0h = ZERO, s1l = ZERO, s1h = ZERO;
  float32x4_t s2l = ZERO, s2h = ZERO, s3l = ZERO, s3h = ZERO;
  long i = 0;
  for (; i + 32 <= n; i += 32) {
    s0l = FMA(s0l, LOAD(h + i), LOAD(x + i));
    s0h = FMA(s0h, LOAD(h + i + 4), LOAD(x + i + 4));
    s1l = FMA(s1l, LOAD(h + i + 8), LOAD(x + i + 8));
    s1h = FMA(s1h, LOAD(h + i + 12), LOAD(x + i + 12));
    s2l = FMA(s2l, LOAD(h + i + 16), LOAD(x + i + 16));
    s2h = FMA(s2h, LOAD(h + i + 20), LOAD(x + i + 20));
    s3l = FMA(s3l, LOAD(h + i + 24), LOAD(x + i + 24));
    s3h = FMA(s3h, LOAD(h + i + 28), LOAD(x + i + 28));
  }
  for (; i < n; i += 8) {
    s0l = FMA(s0l, LOAD(h + i), LOAD(x + i));
    s0h = FMA(s0h, LOAD(h + i + 4), LOAD(x + i + 4));
  }
  return HSUM8((s0l + s1l) + (s2l + s3l), (s0h + s1h) + (s2h + s3h));
}

void pcmmix_neon_dot2(const float *h, const float *a, const float *b, long n, float *out) {
  float32x4_t a0l = ZERO, a0h = ZERO, a1l = ZERO, a1h = ZERO;
  float32x4_t b0l = ZERO, b0h = ZERO, b1l = ZERO, b1h = ZERO;
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const float32x4_t c0l = LOAD(h + i), c0h = LOAD(h + i + 4);
    const float32x4_t c1l = LOAD(h + i + 8), c1h = LOAD(h + i + 12);
    a0l = FMA(a0l, c0l, LOAD(a + i));
    a0h = FMA(a0h, c0h, LOAD(a + i + 4));
    b0l = FMA(b0l, c0l, LOAD(b + i));
    b0h = FMA(b0h, c0h, LOAD(b + i + 4));
    a1l = FMA(a1l, c1l, LOAD(a + i + 8));
    a1h = FMA(a1h, c1h, LOAD(a + i + 12));
    b1l = FMA(b1l, c1l, LOAD(b + i + 8));
    b1h = FMA(b1h, c1h, LOAD(b + i + 12));
  }
  if (i < n) {
    const float32x4_t c0l = LOAD(h + i), c0h = LOAD(h + i + 4);
    a0l = FMA(a0l, c0l, LOAD(a + i));
    a0h = FMA(a0h, c0h, LOAD(a + i + 4));
    b0l = FMA(b0l, c0l, LOAD(b + i));
    b0h = FMA(b0h, c0h, LOAD(b + i + 4));
  }
  out[0] = HSUM8(a0l + a1l, a0h + a1h);
  out[1] = HSUM8(b0l + b1l, b0h + b1h);
}

// The next output's two rows into the cache, as the AVX2 kernels fetch them (a prfm per 64
// bytes: Apple's 128-byte lines take every other one twice, which costs next to nothing).
static inline void prefetch_rows(const float *next, long n) {
  if (!next) return;
  const char *p = (const char *)next;
  for (long b = 0; b < 2 * n * (long)sizeof(float); b += 64) __builtin_prefetch(p + b, 0, 3);
}

// Four coefficients of the blended row as the AVX2 kernels form them: t · (h1 − h0) + h0,
// one subtract and one fused multiply-add (tv: t in every lane).
#define BLEND4(h0, h1, tv, i)                         \
  ({                                                  \
    const float32x4_t blend_x_ = LOAD((h0) + (i));    \
    FMA(blend_x_, LOAD((h1) + (i)) - blend_x_, (tv)); \
  })

void pcmmix_neon_lerp_dot2(const float *h0, const float *h1, float t, const float *a,
                           const float *b, long n, float *out, const float *next) {
  prefetch_rows(next, n);
  const float32x4_t tv = SPLAT(t);
  float32x4_t a0l = ZERO, a0h = ZERO, a1l = ZERO, a1h = ZERO;
  float32x4_t b0l = ZERO, b0h = ZERO, b1l = ZERO, b1h = ZERO;
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const float32x4_t c0l = BLEND4(h0, h1, tv, i), c0h = BLEND4(h0, h1, tv, i + 4);
    const float32x4_t c1l = BLEND4(h0, h1, tv, i + 8), c1h = BLEND4(h0, h1, tv, i + 12);
    a0l = FMA(a0l, c0l, LOAD(a + i));
    a0h = FMA(a0h, c0h, LOAD(a + i + 4));
    b0l = FMA(b0l, c0l, LOAD(b + i));
    b0h = FMA(b0h, c0h, LOAD(b + i + 4));
    a1l = FMA(a1l, c1l, LOAD(a + i + 8));
    a1h = FMA(a1h, c1h, LOAD(a + i + 12));
    b1l = FMA(b1l, c1l, LOAD(b + i + 8));
    b1h = FMA(b1h, c1h, LOAD(b + i + 12));
  }
  if (i < n) {
    const float32x4_t c0l = BLEND4(h0, h1, tv, i), c0h = BLEND4(h0, h1, tv, i + 4);
    a0l = FMA(a0l, c0l, LOAD(a + i));
    a0h = FMA(a0h, c0h, LOAD(a + i + 4));
    b0l = FMA(b0l, c0l, LOAD(b + i));
    b0h = FMA(b0h, c0h, LOAD(b + i + 4));
  }
  out[0] = HSUM8(a0l + a1l, a0h + a1h);
  out[1] = HSUM8(b0l + b1l, b0h + b1h);
}

float pcmmix_neon_lerp_dot(const float *h0, const float *h1, float t, const float *x, long n,
                           const float *next) {
  prefetch_rows(next, n);
  const float32x4_t tv = SPLAT(t);
  float32x4_t s0l = ZERO, s0h = ZERO, s1l = ZERO, s1h = ZERO;
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    s0l = FMA(s0l, BLEND4(h0, h1, tv, i), LOAD(x + i));
    s0h = FMA(s0h, BLEND4(h0, h1, tv, i + 4), LOAD(x + i + 4));
    s1l = FMA(s1l, BLEND4(h0, h1, tv, i + 8), LOAD(x + i + 8));
    s1h = FMA(s1h, BLEND4(h0, h1, tv, i + 12), LOAD(x + i + 12));
  }
  if (i < n) {
    s0l = FMA(s0l, BLEND4(h0, h1, tv, i), LOAD(x + i));
    s0h = FMA(s0h, BLEND4(h0, h1, tv, i + 4), LOAD(x + i + 4));
  }
  float r = HSUM8(s0l + s1l, s0h + s1h);
#if defined(PCMMIX_PERTURB)
  // The bit harness's proof that it sees one ulp (scripts/arm64/kernels-check.sh).
  r = __builtin_nextafterf(r, __builtin_inff());
#endif
  return r;
}

// pcmmix_lerp_run's loop with the NEON dot products: the same Double arithmetic, unfused (see
// the pragma above), so the same frames, positions and fractions.
long pcmmix_neon_lerp_run(const float *table, long taps, double steps, double step,
                          const float *base, long stride, long channels, long count, long room,
                          float *out, long *position, double *fraction, int has_end,
                          long time_offset, double end, int *stopped) {
  long pos = *position, produced = 0;
  double frac = *fraction;
  *stopped = 0;
  while (pos + taps <= count && produced < room) {
    if (has_end && (double)(time_offset + pos) + frac >= end) {
      *stopped = 1;
      break;
    }
    const double scaled = frac * steps;
    const long index = (long)scaled;
    const float t = (float)(scaled - (double)index);
    const float *h0 = table + index * taps;
    double ahead = frac + step;
    ahead -= (double)(long)ahead;
    const float *next = table + (long)(ahead * steps) * taps;
    const float *w = base + pos;
    float *o = out + produced * channels;
    long c = 0;
    for (; c + 2 <= channels; c += 2) {
      pcmmix_neon_lerp_dot2(h0, h0 + taps, t, w + c * stride, w + (c + 1) * stride, taps, o + c,
                            next);
      next = 0;
    }
    if (c < channels) o[c] = pcmmix_neon_lerp_dot(h0, h0 + taps, t, w + c * stride, taps, next);
    produced++;
    frac += step;
    const long whole = (long)frac;
    pos += whole;
    frac -= (double)whole;
  }
  *position = pos;
  *fraction = frac;
  return produced;
}

// MARK: - Sixteen-output groups

// The sixteen lanes of two planes against one group table, each lane the AVX2 pair_sums chain:
// even taps into one accumulator and odd taps into another, each from zero, then the two added.
// Sixteen lanes take four registers, so the two planes' even and odd sums are sixteen
// accumulators (of NEON's 32 registers), sixteen independent chains that keep four FP pipes busy
// through fmla's latency; each row load serves both planes. The planes are any two that share
// the table: a stereo pair, or one channel of two groups a table cycle apart. sums[0..3] get
// plane a's lanes, sums[4..7] plane b's.
static inline __attribute__((always_inline)) void
planes2(const float *table, long width, const float *a, const float *b, float32x4_t sums[8]) {
  float32x4_t ea[4], oa[4], eb[4], ob[4];
  for (int q = 0; q < 4; q++) ea[q] = oa[q] = eb[q] = ob[q] = ZERO;
  long m = 0;
  // Two taps per step: one 8-byte load brings a plane's even and odd sample, used by lane.
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    const float32x2_t xa = vld1_f32(a + m), xb = vld1_f32(b + m);
    for (int q = 0; q < 4; q++) {
      const float32x4_t c = LOAD(t + 4 * q);
      ea[q] = FMA(ea[q], c, SPLAT(xa[0]));
      eb[q] = FMA(eb[q], c, SPLAT(xb[0]));
    }
    for (int q = 0; q < 4; q++) {
      const float32x4_t c = LOAD(t + 16 + 4 * q);
      oa[q] = FMA(oa[q], c, SPLAT(xa[1]));
      ob[q] = FMA(ob[q], c, SPLAT(xb[1]));
    }
  }
  if (m < width) {
    const float *t = table + m * 16;
    const float xa = a[m], xb = b[m];
    for (int q = 0; q < 4; q++) {
      const float32x4_t c = LOAD(t + 4 * q);
      ea[q] = FMA(ea[q], c, SPLAT(xa));
      eb[q] = FMA(eb[q], c, SPLAT(xb));
    }
  }
  for (int q = 0; q < 4; q++) {
    sums[q] = ea[q] + oa[q];
    sums[4 + q] = eb[q] + ob[q];
  }
}

// One plane alone (a mono group without a partner, the last channel of an odd count): the
// chains of planes2 for one plane, eight accumulators.
static inline __attribute__((always_inline)) void
plane1(const float *table, long width, const float *a, float32x4_t sums[4]) {
  float32x4_t ea[4], oa[4];
  for (int q = 0; q < 4; q++) ea[q] = oa[q] = ZERO;
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    const float32x2_t xa = vld1_f32(a + m);
    for (int q = 0; q < 4; q++) ea[q] = FMA(ea[q], LOAD(t + 4 * q), SPLAT(xa[0]));
    for (int q = 0; q < 4; q++) oa[q] = FMA(oa[q], LOAD(t + 16 + 4 * q), SPLAT(xa[1]));
  }
  if (m < width) {
    const float *t = table + m * 16;
    for (int q = 0; q < 4; q++) ea[q] = FMA(ea[q], LOAD(t + 4 * q), SPLAT(a[m]));
  }
  for (int q = 0; q < 4; q++) sums[q] = ea[q] + oa[q];
}

// The inner loops, each in its own function (for reading their code, and llvm-mca).

// Two planes' sixteen lanes each into `la` and `lb`.
static __attribute__((noinline)) void neon_group_pair(const float *table, long width,
                                                      const float *a, const float *b, float *la,
                                                      float *lb) {
  float32x4_t s[8];
  planes2(table, width, a, b, s);
  for (int q = 0; q < 4; q++) {
    vst1q_f32(la + 4 * q, s[q]);
    vst1q_f32(lb + 4 * q, s[4 + q]);
  }
}

// A stereo pair's sixteen frames into `out` (32 floats), interleaved by the stores (st2).
static __attribute__((noinline)) void neon_group_frames(const float *table, long width,
                                                        const float *a, const float *b,
                                                        float *out) {
  float32x4_t s[8];
  planes2(table, width, a, b, s);
  for (int q = 0; q < 4; q++) {
    const float32x4x2_t frames = {{s[q], s[4 + q]}};
    vst2q_f32(out + 8 * q, frames);
  }
}

// One plane's sixteen lanes into `la`.
static __attribute__((noinline)) void neon_group_one(const float *table, long width,
                                                     const float *a, float *la) {
  float32x4_t s[4];
  plane1(table, width, a, s);
  for (int q = 0; q < 4; q++) vst1q_f32(la + 4 * q, s[q]);
}

// Lanes first ..< first + count of one channel's sixteen into interleaved `out`.
static inline void scatter(const float *lanes, float *out, long channels, long c, long first,
                           long count) {
  for (long i = 0; i < count; i++) out[i * channels + c] = lanes[first + i];
}

void pcmmix_neon_group16(const float *table, long width, const float *x, long stride,
                         long channels, float *out, long first, long count) {
  // As pcmmix_group16: a whole stereo group straight to `out`, else whole groups into lanes on
  // the stack and the wanted ones copied out (never a store past the caller's range).
  if (channels == 2 && first == 0 && count == 16) {
    neon_group_frames(table, width, x, x + stride, out);
    return;
  }
  float lanes[2][16];
  long c = 0;
  for (; c + 2 <= channels; c += 2) {
    neon_group_pair(table, width, x + c * stride, x + (c + 1) * stride, lanes[0], lanes[1]);
    scatter(lanes[0], out, channels, c, first, count);
    scatter(lanes[1], out, channels, c + 1, first, count);
  }
  if (c < channels) {
    neon_group_one(table, width, x + c * stride, lanes[0]);
    scatter(lanes[0], out, channels, c, first, count);
  }
}

void pcmmix_neon_group16x2(const float *table, long width, const float *a, const float *b,
                           float *outa, float *outb) {
  neon_group_pair(table, width, a, b, outa, outb);
}

// Where group k of a run goes: `first_out` and `last_out` take the place of the first and last
// group where given (the last's when a run of one has both, as pcmmix_group16_run_512 does).
static inline float *group_out(float *out, long out_advance, long k, long count,
                               float *first_out, float *last_out) {
  if (k == count - 1 && last_out) return last_out;
  if (k == 0 && first_out) return first_out;
  return out + k * out_advance;
}

void pcmmix_neon_group16_run(const float *table, long width, const float *x, long advance,
                             long stride, long channels, float *out, long out_advance, long count,
                             float *first_out, float *last_out) {
  float lanes[2][16];
  // Channel pairs share the row loads within a group (a stereo group's frames interleaved by
  // the stores); a channel without a partner (mono, the third of three) pairs with the same
  // channel of the next group, which shares the table too. Sixteen accumulators either way:
  // two stereo groups at once would need all 32 registers for accumulators alone.
  const long pairs = channels / 2 * 2;
  for (long k = 0; k < count && pairs > 0; k++) {
    float *o = group_out(out, out_advance, k, count, first_out, last_out);
    const float *xk = x + k * advance;
    if (channels == 2) {
      neon_group_frames(table, width, xk, xk + stride, o);
      continue;
    }
    for (long c = 0; c < pairs; c += 2) {
      neon_group_pair(table, width, xk + c * stride, xk + (c + 1) * stride, lanes[0], lanes[1]);
      scatter(lanes[0], o, channels, c, 0, 16);
      scatter(lanes[1], o, channels, c + 1, 0, 16);
    }
  }
  if (pairs == channels) return;
  const long c = pairs;
  long k = 0;
  for (; k + 2 <= count; k += 2) {
    float *o0 = group_out(out, out_advance, k, count, first_out, last_out);
    float *o1 = group_out(out, out_advance, k + 1, count, first_out, last_out);
    const float *a = x + k * advance + c * stride;
    if (channels == 1) {
      neon_group_pair(table, width, a, a + advance, o0, o1);
    } else {
      neon_group_pair(table, width, a, a + advance, lanes[0], lanes[1]);
      scatter(lanes[0], o0, channels, c, 0, 16);
      scatter(lanes[1], o1, channels, c, 0, 16);
    }
  }
  if (k < count) {
    float *o = group_out(out, out_advance, k, count, first_out, last_out);
    const float *a = x + k * advance + c * stride;
    if (channels == 1) {
      neon_group_one(table, width, a, o);
    } else {
      neon_group_one(table, width, a, lanes[0]);
      scatter(lanes[0], o, channels, c, 0, 16);
    }
  }
}

// MARK: - Upsampling in direct form

// upsample.c's passes with four-lane blocks: each output is still one chain of fused
// multiply-adds over its steps in order, from zero (vfmaq_n_f32: the step's coefficient by
// element), so the bits are the AVX2 function's whatever the blocking. Up to `up`·B
// accumulators plus B inputs within 32 registers.
enum { MOST_BLOCKS = 6, MOST_UP = 6, LANES = 4 };

// One step of a pass: the `up` coefficients at `h` against the input vectors at `x`, 4 apart.
static inline __attribute__((always_inline)) void
step4(float32x4_t acc[][MOST_BLOCKS], const float *h, const float *x, const int up,
      const int B) {
  float32x4_t in[MOST_BLOCKS];
  for (int b = 0; b < B; b++) in[b] = LOAD(x + LANES * b);
  for (int p = 0; p < up; p++) {
    const float32x4_t c = SPLAT(h[p]);
    for (int b = 0; b < B; b++) acc[p][b] = FMA(acc[p][b], in[b], c);
  }
}

// Phases a, b and c of four consecutive m into `to` in time order (a0 b0 c0 a1 b1 c1 ...): what
// vst3q_f32 stores, by two-register permutes and plain stores. An st3 wants its three sources in
// three consecutive registers, and tying the accumulators to such tuples across the tap loop made
// the register allocator shuffle and spill them in the loop itself at six blocks (18
// accumulators and 6 inputs: 25 registers, which fit as long as each is free to go anywhere).
static inline __attribute__((always_inline)) void store3(float *to, float32x4_t a, float32x4_t b,
                                                         float32x4_t c) {
  const float32x4_t ab = vzip1q_f32(a, b);                         // a0 b0 a1 b1
  const float32x4_t bc = vzip1q_f32(b, c);                         // b0 c0 b1 c1
  const float32x4_t ab2 = vzip2q_f32(a, b);                        // a2 b2 a3 b3
  const float32x4_t bc2 = vzip2q_f32(b, c);                        // b2 c2 b3 c3
  const float32x4_t ca = vtrn1q_f32(c, vextq_f32(a, a, 1));        // c0 a1 c2 a3
  const float64x2_t ab64 = vreinterpretq_f64_f32(ab), ca64 = vreinterpretq_f64_f32(ca);
  vst1q_f32(to, vreinterpretq_f32_f64(vzip1q_f64(ab64, ca64)));    // a0 b0 c0 a1
  vst1q_f32(to + 4, vextq_f32(bc, ab2, 2));                        // b1 c1 a2 b2
  vst1q_f32(to + 8, vreinterpretq_f32_f64(vzip2q_f64(ca64, vreinterpretq_f64_f32(bc2))));
}                                                                  // c2 a3 b3 c3

// Phases a to f of four consecutive m into `to` in time order (a0 b0 c0 d0 e0 f0 a1 ...): the
// phases zipped in pairs, then each m's three pairs (64 bits each) put side by side.
static inline __attribute__((always_inline)) void store6(float *to, float32x4_t a, float32x4_t b,
                                                         float32x4_t c, float32x4_t d,
                                                         float32x4_t e, float32x4_t f) {
  for (int h = 0; h < 2; h++) {  // m = 2h and 2h + 1
    const float64x2_t ab = vreinterpretq_f64_f32(h ? vzip2q_f32(a, b) : vzip1q_f32(a, b));
    const float64x2_t cd = vreinterpretq_f64_f32(h ? vzip2q_f32(c, d) : vzip1q_f32(c, d));
    const float64x2_t ef = vreinterpretq_f64_f32(h ? vzip2q_f32(e, f) : vzip1q_f32(e, f));
    float *o = to + 12 * h;
    vst1q_f32(o, vreinterpretq_f32_f64(vzip1q_f64(ab, cd)));            // ab cd of 2h
    vst1q_f32(o + 4, vreinterpretq_f32_f64(vcopyq_laneq_f64(ab, 0, ef, 0)));  // ef 2h, ab 2h+1
    vst1q_f32(o + 8, vreinterpretq_f32_f64(vzip2q_f64(cd, ef)));        // cd ef of 2h + 1
  }
}

// One pass: B blocks of four consecutive m, every phase, of one channel, into `phased` in time
// order (B·4·up floats); the input as upsample.c's pass2 takes it (with `down` 2 its even
// samples `e` and odd samples `o`). Time order is output m·up + p at m·up + p, put together
// after the tap loop by store3 and store6 (permutes of two registers at a time, then whole
// vectors stored: no st3, whose register tuples spilled the loop); 5 goes lane by lane. The
// tap loop itself is loads, broadcasts and fmla only, in the registers the accumulators need.
static inline __attribute__((always_inline)) void
pass4(const float *h, long steps, const float *e, const float *o, float *phased, const int up,
      const int down, const int B) {
  float32x4_t acc[MOST_UP][MOST_BLOCKS];
  for (int p = 0; p < up; p++)
    for (int b = 0; b < B; b++) acc[p][b] = ZERO;
  if (down == 1) {
    for (long s = 0; s < steps; s++, h += up) step4(acc, h, e + s, up, B);
  } else {
    long s = 0;
    for (; s + 2 <= steps; s += 2, h += 2 * up) {
      step4(acc, h, e + s / 2, up, B);
      step4(acc, h + up, o + s / 2, up, B);
    }
    if (s < steps) step4(acc, h, e + s / 2, up, B);
  }
  for (int b = 0; b < B; b++) {
    float *to = phased + b * LANES * up;
    if (up == 3) {
      store3(to, acc[0][b], acc[1][b], acc[2][b]);
    } else if (up == 6) {
      store6(to, acc[0][b], acc[1][b], acc[2][b], acc[3][b], acc[4][b], acc[5][b]);
    } else {
      for (int p = 0; p < up; p++) {
        vst1q_lane_f32(to + p, acc[p][b], 0);
        vst1q_lane_f32(to + up + p, acc[p][b], 1);
        vst1q_lane_f32(to + 2 * up + p, acc[p][b], 2);
        vst1q_lane_f32(to + 3 * up + p, acc[p][b], 3);
      }
    }
  }
}

typedef void (*pass_fn)(const float *, long, const float *, const float *, float *);

// One noinline function per (factor, input step, blocks), each with its own registers.
#define PASS4(u, d, b)                                                                     \
  static __attribute__((noinline)) void neon_pass_##u##_##d##_##b(                         \
      const float *h, long steps, const float *e, const float *o, float *phased) {         \
    pass4(h, steps, e, o, phased, u, d, b);                                                \
  }

// The ratios upsample.c takes (DotKernel.takesUpsample): the same set, so the same bits.
// 3 : 1 and 3 : 2: 18 accumulators and 6 inputs; 5 : 1: 20 and 4; 6 : 1: 24 and 4 (each with
// a coefficient register: at most 29 of 32). scripts/arm64/model.sh shows their loops.
PASS4(3, 1, 1) PASS4(3, 1, 2) PASS4(3, 1, 3) PASS4(3, 1, 4) PASS4(3, 1, 5) PASS4(3, 1, 6)
PASS4(5, 1, 1) PASS4(5, 1, 2) PASS4(5, 1, 3) PASS4(5, 1, 4)
PASS4(6, 1, 1) PASS4(6, 1, 2) PASS4(6, 1, 3) PASS4(6, 1, 4)
PASS4(3, 2, 1) PASS4(3, 2, 2) PASS4(3, 2, 3) PASS4(3, 2, 4) PASS4(3, 2, 5) PASS4(3, 2, 6)

// Per ratio: the passes by block count, and the most blocks a pass takes.
typedef struct {
  pass_fn pass[MOST_BLOCKS + 1];
  int most;
} passes;

static const passes *passes_for(long up, long down) {
  static const passes p31 = {{0, neon_pass_3_1_1, neon_pass_3_1_2, neon_pass_3_1_3,
                              neon_pass_3_1_4, neon_pass_3_1_5, neon_pass_3_1_6}, 6};
  static const passes p51 = {{0, neon_pass_5_1_1, neon_pass_5_1_2, neon_pass_5_1_3,
                              neon_pass_5_1_4}, 4};
  static const passes p61 = {{0, neon_pass_6_1_1, neon_pass_6_1_2, neon_pass_6_1_3,
                              neon_pass_6_1_4}, 4};
  static const passes p32 = {{0, neon_pass_3_2_1, neon_pass_3_2_2, neon_pass_3_2_3,
                              neon_pass_3_2_4, neon_pass_3_2_5, neon_pass_3_2_6}, 6};
  if (down == 2) return &p32;
  switch (up) {
  case 5: return &p51;
  case 6: return &p61;
  default: return &p31;
  }
}

// As in upsample.c: with `down` 2 the input is split a chunk of CHUNK values of m at a time.
enum { CHUNK = 192, SPLIT = CHUNK + PCMMIX_UPSAMPLE_MOST_SPLIT_STEPS / 2 + 8 };

// The even samples of `src` into `e` and the odd ones into `o`, n of each (n a multiple of 4),
// the first `skip` samples (before the first output's window, perhaps before the plane) as
// zeros, unread.
static void split(const float *src, long skip, long n, float *e, float *o) {
  long i = 0;
  for (; 2 * i < skip; i++) {
    e[i] = 0;
    o[i] = 2 * i + 1 < skip ? 0 : src[2 * i + 1];
  }
  for (; i < n && (i & 3); i++) {
    e[i] = src[2 * i];
    o[i] = src[2 * i + 1];
  }
  for (; i < n; i += 4) {
    const float32x4x2_t v = vld2q_f32(src + 2 * i);
    vst1q_f32(e + i, v.val[0]);
    vst1q_f32(o + i, v.val[1]);
  }
}

// Outputs lo ..< hi of one channel from `phased` (time order, from output a0) into `out`,
// interleaved.
static inline void emit(const float *phased, long a0, long lo, long hi, long first,
                        long channels, long c, float *out) {
  const float *src = phased + (lo - a0);
  float *dst = out + (lo - first) * channels + c;
  const long n = hi - lo;
  if (channels == 1) {
    memcpy(dst, src, (size_t)n * sizeof(float));
    return;
  }
  for (long i = 0; i < n; i++) dst[i * channels] = src[i];
}

// emit for channels c and c + 1 at once; with two channels four frames per st2.
static inline void emit2(const float *left, const float *right, long a0, long lo, long hi,
                         long first, long channels, long c, float *out) {
  if (channels != 2) {
    emit(left, a0, lo, hi, first, channels, c, out);
    emit(right, a0, lo, hi, first, channels, c + 1, out);
    return;
  }
  const float *l = left + (lo - a0), *r = right + (lo - a0);
  float *dst = out + (lo - first) * 2;
  const long n = hi - lo;
  long i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4x2_t frames = {{vld1q_f32(l + i), vld1q_f32(r + i)}};
    vst2q_f32(dst + 2 * i, frames);
  }
  for (; i < n; i++) {
    dst[2 * i] = l[i];
    dst[2 * i + 1] = r[i];
  }
}

void pcmmix_neon_upsample_run(const float *h, long steps, long up, long down, const float *x,
                              long stride, long channels, long phase, long count, float *out) {
  // upsample.c's run with four-lane blocks: chunks of blocks, channel pairs, passes of as many
  // blocks as the ratio's passes take (what is left between one and two passes' worth in
  // halves), a mono pass wholly inside the call's range straight into `out`.
  const passes *ps = passes_for(up, down);
  float phased[2][MOST_BLOCKS * LANES * MOST_UP];
  float even[2][SPLIT], odd[2][SPLIT];
  const long lead = phase * down / up;
  const float *base = x - lead;
  const long first = phase, end = phase + count;
  const long per = LANES * up;
  const long blocks = (end + per - 1) / per;
  const long chunk = down == 1 ? blocks : CHUNK / LANES;
  for (long c0 = 0; c0 < blocks; c0 += chunk) {
    const long c1 = c0 + chunk < blocks ? c0 + chunk : blocks;
    const long n = ((c1 - c0) * LANES + (steps + 1) / 2 + 1 + 3) / 4 * 4;
    for (long c = 0; c < channels; c += 2) {
      const long pair = c + 1 < channels ? 2 : 1;
      if (down != 1) {
        for (long k = 0; k < pair; k++) {
          const float *plane = base + (c + k) * stride + c0 * LANES * down;
          split(plane, c0 == 0 ? lead : 0, n, even[k], odd[k]);
        }
      }
      long b = c0;
      while (b < c1) {
        const long left = c1 - b;
        const long m =
            left <= ps->most ? left : left < 2 * ps->most ? (left + 1) / 2 : ps->most;
        const long a0 = b * per, a1 = a0 + m * per;
        const long lo = a0 > first ? a0 : first, hi = a1 < end ? a1 : end;
        const int in_place = channels == 1 && a0 >= first && a1 <= end;
        for (long k = 0; k < pair; k++) {
          float *to = in_place ? out + (a0 - first) : phased[k];
          if (down == 1) {
            ps->pass[m](h, steps, base + (c + k) * stride + b * LANES, 0, to);
          } else {
            const long at = (b - c0) * LANES;
            ps->pass[m](h, steps, even[k] + at, odd[k] + at, to);
          }
        }
        if (!in_place && pair == 2) {
          emit2(phased[0], phased[1], a0, lo, hi, first, channels, c, out);
        } else if (!in_place) {
          emit(phased[0], a0, lo, hi, first, channels, c, out);
        }
        b += m;
      }
    }
  }
}

#endif
