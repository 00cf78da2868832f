// The resampler's kernels (see pcmmix_core.h). On x86 (and any target but arm64) the operations
// and their order are those of PCMMix's resampler as it was written with Swift's SIMD8<Float>,
// multiplies and adds separate. On arm64 the dot products, blended-row dot products and groups
// are instead the chains of fused multiply-adds of the AVX2 kernels (avx2_resample.c, and the
// NEON ones that mirror them): the same bits on an iPhone with or without PCMMixAccelerated as
// on an x86 server with AVX2, no longer those of x86's portable path (see the end of the file).
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"
#include "vector.h"

#if !defined(__aarch64__)
float pcmmix_core_dot(const float *h, const float *x, long n) {
  pcm_v8f s0 = {0}, s1 = {0};
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 += pcm_load(h + i) * pcm_load(x + i);
    s1 += pcm_load(h + i + 8) * pcm_load(x + i + 8);
  }
  if (i < n) s0 += pcm_load(h + i) * pcm_load(x + i);
  return pcm_sum(s0 + s1);
}

void pcmmix_core_dot2(const float *h, const float *a, const float *b, long n, float *out) {
  pcm_v8f a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    pcm_v8f c0 = pcm_load(h + i), c1 = pcm_load(h + i + 8);
    a0 += c0 * pcm_load(a + i);
    b0 += c0 * pcm_load(b + i);
    a1 += c1 * pcm_load(a + i + 8);
    b1 += c1 * pcm_load(b + i + 8);
  }
  if (i < n) {
    pcm_v8f c0 = pcm_load(h + i);
    a0 += c0 * pcm_load(a + i);
    b0 += c0 * pcm_load(b + i);
  }
  out[0] = pcm_sum(a0 + a1);
  out[1] = pcm_sum(b0 + b1);
}
#endif

double pcmmix_core_dot_double(const float *h, const float *x, long n) {
  pcm_v4d s0 = {0}, s1 = {0};
  for (long i = 0; i < n; i += 8) {
    pcm_v4f hl = *(const pcm_v4f_u *)(h + i), hh = *(const pcm_v4f_u *)(h + i + 4);
    pcm_v4f xl = *(const pcm_v4f_u *)(x + i), xh = *(const pcm_v4f_u *)(x + i + 4);
    s0 += __builtin_convertvector(hl, pcm_v4d) * __builtin_convertvector(xl, pcm_v4d);
    s1 += __builtin_convertvector(hh, pcm_v4d) * __builtin_convertvector(xh, pcm_v4d);
  }
  pcm_v4d s = s0 + s1;
  double r = -0.0;
  for (int k = 0; k < 4; k++) r += s[k];
  return r;
}

void pcmmix_core_blend(const float *a, const float *b, float t, float *row, long n) {
  pcm_v8f tv = pcm_splat(t);
  for (long i = 0; i < n; i += 8) {
    pcm_v8f x = pcm_load(a + i), y = pcm_load(b + i);
    pcm_store(row + i, x + tv * (y - x));
  }
}

#if !defined(__aarch64__)
/// Eight coefficients of the blended row, as pcmmix_core_blend stores them. (A macro, as the
/// primitives of vector.h are: nothing passed by value at -O0.)
#define blended(h0, h1, tv, i)                           \
  ({                                                     \
    const pcm_v8f blend_x_ = pcm_load((h0) + (i));       \
    blend_x_ + (tv) * (pcm_load((h1) + (i)) - blend_x_); \
  })

void pcmmix_core_lerp_dot2(const float *h0, const float *h1, float t, const float *a,
                           const float *b, long n, float *out, const float *next) {
  (void)next;
  pcm_v8f tv = pcm_splat(t);
  pcm_v8f a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    pcm_v8f c0 = blended(h0, h1, tv, i), c1 = blended(h0, h1, tv, i + 8);
    a0 += c0 * pcm_load(a + i);
    b0 += c0 * pcm_load(b + i);
    a1 += c1 * pcm_load(a + i + 8);
    b1 += c1 * pcm_load(b + i + 8);
  }
  if (i < n) {
    pcm_v8f c0 = blended(h0, h1, tv, i);
    a0 += c0 * pcm_load(a + i);
    b0 += c0 * pcm_load(b + i);
  }
  out[0] = pcm_sum(a0 + a1);
  out[1] = pcm_sum(b0 + b1);
}

float pcmmix_core_lerp_dot(const float *h0, const float *h1, float t, const float *x, long n,
                           const float *next) {
  (void)next;
  pcm_v8f tv = pcm_splat(t);
  pcm_v8f s0 = {0}, s1 = {0};
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 += blended(h0, h1, tv, i) * pcm_load(x + i);
    s1 += blended(h0, h1, tv, i + 8) * pcm_load(x + i + 8);
  }
  if (i < n) s0 += blended(h0, h1, tv, i) * pcm_load(x + i);
  return pcm_sum(s0 + s1);
}
#endif

long pcmmix_core_lerp_run(const float *table, long taps, double steps, double step,
                          const float *base, long stride, long channels, long count, long room,
                          float *out, long *position, double *fraction, int has_end,
                          long time_offset, double end, int *stopped, int in_double) {
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
    const double t = scaled - (double)index;
    const float *h0 = table + index * taps;
    const float *h1 = h0 + taps;
    const float *w = base + pos;
    float *o = out + produced * channels;
    if (in_double) {
      for (long c = 0; c < channels; c++) {
        const double a = pcmmix_core_dot_double(h0, w + c * stride, taps);
        o[c] = (float)(a + t * (pcmmix_core_dot_double(h1, w + c * stride, taps) - a));
      }
    } else {
      long c = 0;
      for (; c + 2 <= channels; c += 2) {
        pcmmix_core_lerp_dot2(h0, h1, (float)t, w + c * stride, w + (c + 1) * stride, taps,
                              o + c, 0);
      }
      if (c < channels) o[c] = pcmmix_core_lerp_dot(h0, h1, (float)t, w + c * stride, taps, 0);
    }
    produced++;
    frac += step;
    // The fraction is never negative: truncation is its floor.
    const long whole = (long)frac;
    pos += whole;
    frac -= (double)whole;
  }
  *position = pos;
  *fraction = frac;
  return produced;
}

#if !defined(__aarch64__)
/// Taps per partial sum in the group kernels.
enum { GROUP_BLOCK = 16 };

/// The sixteen lanes of two planes against one group table (see pcmmix_core_group16).
static void group_lanes2(const float *table, long width, const float *a, const float *b,
                         float *la, float *lb) {
  pcm_v8f a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};
  long m = 0;
  while (m < width) {
    const long stop = width < m + GROUP_BLOCK ? width : m + GROUP_BLOCK;
    pcm_v8f sa0 = {0}, sa1 = {0}, sb0 = {0}, sb1 = {0};
    for (; m < stop; m++) {
      pcm_v8f c0 = pcm_load(table + m * 16), c1 = pcm_load(table + m * 16 + 8);
      pcm_v8f xa = pcm_splat(a[m]), xb = pcm_splat(b[m]);
      sa0 += c0 * xa;
      sa1 += c1 * xa;
      sb0 += c0 * xb;
      sb1 += c1 * xb;
    }
    a0 += sa0;
    a1 += sa1;
    b0 += sb0;
    b1 += sb1;
  }
  pcm_store(la, a0);
  pcm_store(la + 8, a1);
  pcm_store(lb, b0);
  pcm_store(lb + 8, b1);
}

/// The sixteen lanes of one plane: the sums of group_lanes2 for either plane.
static void group_lanes1(const float *table, long width, const float *a, float *la) {
  pcm_v8f a0 = {0}, a1 = {0};
  long m = 0;
  while (m < width) {
    const long stop = width < m + GROUP_BLOCK ? width : m + GROUP_BLOCK;
    pcm_v8f sa0 = {0}, sa1 = {0};
    for (; m < stop; m++) {
      pcm_v8f xa = pcm_splat(a[m]);
      sa0 += pcm_load(table + m * 16) * xa;
      sa1 += pcm_load(table + m * 16 + 8) * xa;
    }
    a0 += sa0;
    a1 += sa1;
  }
  pcm_store(la, a0);
  pcm_store(la + 8, a1);
}

void pcmmix_core_group16(const float *table, long width, const float *x, long stride,
                         long channels, float *out, long first, long count) {
  float la[16], lb[16];
  long c = 0;
  for (; c + 2 <= channels; c += 2) {
    group_lanes2(table, width, x + c * stride, x + (c + 1) * stride, la, lb);
    for (long i = 0; i < count; i++) {
      out[i * channels + c] = la[first + i];
      out[i * channels + c + 1] = lb[first + i];
    }
  }
  if (c < channels) {
    group_lanes1(table, width, x + c * stride, la);
    for (long i = 0; i < count; i++) out[i * channels + c] = la[first + i];
  }
}

void pcmmix_core_group16x2(const float *table, long width, const float *a, const float *b,
                           float *outa, float *outb) {
  group_lanes2(table, width, a, b, outa, outb);
}
#endif

typedef int pcm_v4i __attribute__((vector_size(16)));

/// Each lane as it is when finite, else +0.
PCM_INLINE pcm_v4f finite_or_zero(pcm_v4f x) {
  pcm_v4i bits = (pcm_v4i)x;
  pcm_v4i finite = (bits & 0x7FFFFFFF) < 0x7F800000;
  return (pcm_v4f)(bits & finite);
}

void pcmmix_core_fill_planes(float *base, long stride, long channels, long at,
                             const float *input, long frames) {
  long done = 0;
  if (channels == 1) {
    float *plane = base + at;
    for (; done + 4 <= frames; done += 4) {
      *(pcm_v4f_u *)(plane + done) = finite_or_zero(*(const pcm_v4f_u *)(input + done));
    }
  } else if (channels == 2) {
    float *left = base + at, *right = left + stride;
    for (; done + 4 <= frames; done += 4) {
      pcm_v8f v = pcm_load(input + 2 * done);
      *(pcm_v4f_u *)(left + done) = finite_or_zero(__builtin_shufflevector(v, v, 0, 2, 4, 6));
      *(pcm_v4f_u *)(right + done) = finite_or_zero(__builtin_shufflevector(v, v, 1, 3, 5, 7));
    }
  }
  for (long c = 0; c < channels; c++) {
    float *plane = base + c * stride + at;
    for (long i = done; i < frames; i++) {
      union { float f; unsigned u; } v = {input[i * channels + c]};
      // Finite: the exponent is not all ones.
      plane[i] = (v.u & 0x7F800000u) != 0x7F800000u ? v.f : 0.0f;
    }
  }
}

void pcmmix_core_fir2(const float *h, long n, const float *in, long frames, float *out) {
  for (long j = 0; j < frames; j++) {
    const float *x = in + 2 * j;
    float l = 0, r = 0;
    for (long k = 0; k < n; k++) {
      l += h[k] * x[2 * k];
      r += h[k] * x[2 * k + 1];
    }
    out[2 * j] = l;
    out[2 * j + 1] = r;
  }
}

#if defined(__aarch64__)
// MARK: - arm64: the AVX2 kernels' chains

// What avx2_resample.c computes, in the vector extensions: each lane a chain of fused
// multiply-adds (pcm_fma: fmla) from zero, over the same taps in the same order, the same
// accumulators added at the end, and pcm_hsum for AVX2's horizontal sum. So an arm64 build has
// one set of bits with or without PCMMixAccelerated's NEON kernels (which give the AVX2 ones),
// and they are an x86 server's with AVX2 (scripts/arm64/kernels-check.sh compares all three).
// Fused, the accumulator chains are the bound: four eight-lane accumulators in the dot
// products (eight NEON chains), sixteen NEON chains in the groups of two planes.

float pcmmix_core_dot(const float *h, const float *x, long n) {
  pcm_v8f s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
  long i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = pcm_fma(pcm_load(h + i), pcm_load(x + i), s0);
    s1 = pcm_fma(pcm_load(h + i + 8), pcm_load(x + i + 8), s1);
    s2 = pcm_fma(pcm_load(h + i + 16), pcm_load(x + i + 16), s2);
    s3 = pcm_fma(pcm_load(h + i + 24), pcm_load(x + i + 24), s3);
  }
  for (; i < n; i += 8) s0 = pcm_fma(pcm_load(h + i), pcm_load(x + i), s0);
  return pcm_hsum((s0 + s1) + (s2 + s3));
}

void pcmmix_core_dot2(const float *h, const float *a, const float *b, long n, float *out) {
  pcm_v8f a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const pcm_v8f c0 = pcm_load(h + i), c1 = pcm_load(h + i + 8);
    a0 = pcm_fma(c0, pcm_load(a + i), a0);
    b0 = pcm_fma(c0, pcm_load(b + i), b0);
    a1 = pcm_fma(c1, pcm_load(a + i + 8), a1);
    b1 = pcm_fma(c1, pcm_load(b + i + 8), b1);
  }
  if (i < n) {
    const pcm_v8f c0 = pcm_load(h + i);
    a0 = pcm_fma(c0, pcm_load(a + i), a0);
    b0 = pcm_fma(c0, pcm_load(b + i), b0);
  }
  out[0] = pcm_hsum(a0 + a1);
  out[1] = pcm_hsum(b0 + b1);
}

/// Eight coefficients of the blended row as the AVX2 kernels form them in registers:
/// t · (h1 − h0) + h0, fused (not pcmmix_core_blend's values, which stay unfused).
#define blended(h0, h1, tv, i)                                \
  ({                                                          \
    const pcm_v8f blend_x_ = pcm_load((h0) + (i));            \
    pcm_fma((tv), pcm_load((h1) + (i)) - blend_x_, blend_x_); \
  })

void pcmmix_core_lerp_dot2(const float *h0, const float *h1, float t, const float *a,
                           const float *b, long n, float *out, const float *next) {
  (void)next;
  const pcm_v8f tv = pcm_splat(t);
  pcm_v8f a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const pcm_v8f c0 = blended(h0, h1, tv, i), c1 = blended(h0, h1, tv, i + 8);
    a0 = pcm_fma(c0, pcm_load(a + i), a0);
    b0 = pcm_fma(c0, pcm_load(b + i), b0);
    a1 = pcm_fma(c1, pcm_load(a + i + 8), a1);
    b1 = pcm_fma(c1, pcm_load(b + i + 8), b1);
  }
  if (i < n) {
    const pcm_v8f c0 = blended(h0, h1, tv, i);
    a0 = pcm_fma(c0, pcm_load(a + i), a0);
    b0 = pcm_fma(c0, pcm_load(b + i), b0);
  }
  out[0] = pcm_hsum(a0 + a1);
  out[1] = pcm_hsum(b0 + b1);
}

float pcmmix_core_lerp_dot(const float *h0, const float *h1, float t, const float *x, long n,
                           const float *next) {
  (void)next;
  const pcm_v8f tv = pcm_splat(t);
  pcm_v8f s0 = {0}, s1 = {0};
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = pcm_fma(blended(h0, h1, tv, i), pcm_load(x + i), s0);
    s1 = pcm_fma(blended(h0, h1, tv, i + 8), pcm_load(x + i + 8), s1);
  }
  if (i < n) s0 = pcm_fma(blended(h0, h1, tv, i), pcm_load(x + i), s0);
  return pcm_hsum(s0 + s1);
}

/// The sixteen lanes of two planes against one group table, as the AVX2 pair_sums adds them:
/// even taps and odd taps in separate chains, each from zero, then the two added. (Its own
/// function, kept out of line, for reading its code.)
static __attribute__((noinline)) void fused_group_lanes2(const float *table, long width,
                                                         const float *a, const float *b,
                                                         float *la, float *lb) {
  pcm_v8f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    const pcm_v8f c0 = pcm_load(t), c1 = pcm_load(t + 8);
    const pcm_v8f xa = pcm_splat(a[m]), xb = pcm_splat(b[m]);
    a0 = pcm_fma(c0, xa, a0);
    a1 = pcm_fma(c1, xa, a1);
    b0 = pcm_fma(c0, xb, b0);
    b1 = pcm_fma(c1, xb, b1);
    const pcm_v8f c2 = pcm_load(t + 16), c3 = pcm_load(t + 24);
    const pcm_v8f ya = pcm_splat(a[m + 1]), yb = pcm_splat(b[m + 1]);
    a2 = pcm_fma(c2, ya, a2);
    a3 = pcm_fma(c3, ya, a3);
    b2 = pcm_fma(c2, yb, b2);
    b3 = pcm_fma(c3, yb, b3);
  }
  if (m < width) {
    const float *t = table + m * 16;
    const pcm_v8f xa = pcm_splat(a[m]), xb = pcm_splat(b[m]);
    a0 = pcm_fma(pcm_load(t), xa, a0);
    a1 = pcm_fma(pcm_load(t + 8), xa, a1);
    b0 = pcm_fma(pcm_load(t), xb, b0);
    b1 = pcm_fma(pcm_load(t + 8), xb, b1);
  }
  pcm_store(la, a0 + a2);
  pcm_store(la + 8, a1 + a3);
  pcm_store(lb, b0 + b2);
  pcm_store(lb + 8, b1 + b3);
}

/// The sixteen lanes of one plane: fused_group_lanes2's sums for either plane.
static __attribute__((noinline)) void fused_group_lanes1(const float *table, long width,
                                                         const float *a, float *la) {
  pcm_v8f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    const pcm_v8f xa = pcm_splat(a[m]), ya = pcm_splat(a[m + 1]);
    a0 = pcm_fma(pcm_load(t), xa, a0);
    a1 = pcm_fma(pcm_load(t + 8), xa, a1);
    a2 = pcm_fma(pcm_load(t + 16), ya, a2);
    a3 = pcm_fma(pcm_load(t + 24), ya, a3);
  }
  if (m < width) {
    const pcm_v8f xa = pcm_splat(a[m]);
    a0 = pcm_fma(pcm_load(table + m * 16), xa, a0);
    a1 = pcm_fma(pcm_load(table + m * 16 + 8), xa, a1);
  }
  pcm_store(la, a0 + a2);
  pcm_store(la + 8, a1 + a3);
}

void pcmmix_core_group16(const float *table, long width, const float *x, long stride,
                         long channels, float *out, long first, long count) {
  float la[16], lb[16];
  long c = 0;
  for (; c + 2 <= channels; c += 2) {
    fused_group_lanes2(table, width, x + c * stride, x + (c + 1) * stride, la, lb);
    for (long i = 0; i < count; i++) {
      out[i * channels + c] = la[first + i];
      out[i * channels + c + 1] = lb[first + i];
    }
  }
  if (c < channels) {
    fused_group_lanes1(table, width, x + c * stride, la);
    for (long i = 0; i < count; i++) out[i * channels + c] = la[first + i];
  }
}

void pcmmix_core_group16x2(const float *table, long width, const float *a, const float *b,
                           float *outa, float *outb) {
  fused_group_lanes2(table, width, a, b, outa, outb);
}
#endif
