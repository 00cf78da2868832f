// The sixteen-output group functions of avx2_resample.c with 512-bit registers, for CPUs with
// AVX-512F (pcmmix_avx512_available()). A group's sixteen lanes fill one register, so a table
// row is one load; and the twin and four functions compute two or four groups that share a table
// (a table cycle apart each) in one pass, so each row load serves up to eight planes (four groups
// of a stereo pair, sixteen accumulators). Every lane adds exactly what the AVX2
// kernel adds, in the same order (even taps, odd taps, then their sum), with the same fused
// multiply-adds, so the bits are the AVX2 kernel's.
#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define PCMMIX_TARGET512 __attribute__((target("avx512f,avx2,fma")))

// `n` planes (1, 2, 4 or 8: one, two or four groups of one table, one or two channels each)
// against one table, into `n` sets of sixteen lanes. Inlined with `n` constant, so the 2n
// accumulators live in registers (AVX-512 has 32): each row load serves all n planes.
PCMMIX_TARGET512 static inline __attribute__((always_inline)) void
planes512(const float *table, long width, const float *const *p, float *const *l, const int n) {
  __m512 e[8], o[8];
  for (int k = 0; k < n; k++) e[k] = o[k] = _mm512_setzero_ps();
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    __m512 c0 = _mm512_loadu_ps(t), c1 = _mm512_loadu_ps(t + 16);
    for (int k = 0; k < n; k++) e[k] = _mm512_fmadd_ps(c0, _mm512_set1_ps(p[k][m]), e[k]);
    for (int k = 0; k < n; k++) o[k] = _mm512_fmadd_ps(c1, _mm512_set1_ps(p[k][m + 1]), o[k]);
  }
  if (m < width) {
    __m512 c0 = _mm512_loadu_ps(table + m * 16);
    for (int k = 0; k < n; k++) e[k] = _mm512_fmadd_ps(c0, _mm512_set1_ps(p[k][m]), e[k]);
  }
  for (int k = 0; k < n; k++) _mm512_storeu_ps(l[k], _mm512_add_ps(e[k], o[k]));
}

PCMMIX_TARGET512 static void one512(const float *table, long width, const float *a, float *la) {
  planes512(table, width, &a, &la, 1);
}

PCMMIX_TARGET512 static void pair512(const float *table, long width, const float *a,
                                     const float *b, float *la, float *lb) {
  const float *p[2] = {a, b};
  float *l[2] = {la, lb};
  planes512(table, width, p, l, 2);
}

PCMMIX_TARGET512 static void quad512(const float *table, long width, const float *const p[4],
                                     float *const l[4]) {
  planes512(table, width, p, l, 4);
}

PCMMIX_TARGET512 static void oct512(const float *table, long width, const float *const p[8],
                                    float *const l[8]) {
  planes512(table, width, p, l, 8);
}

// Lanes first ..< first + count of one channel's sixteen into interleaved `out`.
static inline void scatter(const float *lanes, float *out, long channels, long c, long first,
                           long count) {
  for (long i = 0; i < count; i++) out[i * channels + c] = lanes[first + i];
}

PCMMIX_TARGET512 void pcmmix_group16_512(const float *table, long width, const float *x,
                                         long stride, long channels, float *out, long first,
                                         long count) {
  float lanes[2][16];
  long c = 0;
  for (; c + 2 <= channels; c += 2) {
    pair512(table, width, x + c * stride, x + (c + 1) * stride, lanes[0], lanes[1]);
    scatter(lanes[0], out, channels, c, first, count);
    scatter(lanes[1], out, channels, c + 1, first, count);
  }
  if (c < channels) {
    one512(table, width, x + c * stride, lanes[0]);
    scatter(lanes[0], out, channels, c, first, count);
  }
}

PCMMIX_TARGET512 void pcmmix_group16x2_512(const float *table, long width, const float *a,
                                           const float *b, float *outa, float *outb) {
  pair512(table, width, a, b, outa, outb);
}

PCMMIX_TARGET512 void pcmmix_group16_twin_512(const float *table, long width, const float *x,
                                              const float *y, long stride, long channels,
                                              float *outx, float *outy) {
  float lanes[4][16];
  long c = 0;
  for (; c + 2 <= channels; c += 2) {
    const float *p[4] = {x + c * stride, x + (c + 1) * stride, y + c * stride,
                         y + (c + 1) * stride};
    float *l[4] = {lanes[0], lanes[1], lanes[2], lanes[3]};
    quad512(table, width, p, l);
    scatter(lanes[0], outx, channels, c, 0, 16);
    scatter(lanes[1], outx, channels, c + 1, 0, 16);
    scatter(lanes[2], outy, channels, c, 0, 16);
    scatter(lanes[3], outy, channels, c + 1, 0, 16);
  }
  if (c < channels) {
    pair512(table, width, x + c * stride, y + c * stride, lanes[0], lanes[1]);
    scatter(lanes[0], outx, channels, c, 0, 16);
    scatter(lanes[1], outy, channels, c, 0, 16);
  }
}

PCMMIX_TARGET512 void pcmmix_group16_four_512(const float *table, long width, const float *x,
                                              long advance, long stride, long channels,
                                              float *out, long out_advance) {
  if (channels == 1) {
    // Mono writes its lanes in place: a group's sixteen outputs are contiguous.
    const float *p[4] = {x, x + advance, x + 2 * advance, x + 3 * advance};
    float *l[4] = {out, out + out_advance, out + 2 * out_advance, out + 3 * out_advance};
    quad512(table, width, p, l);
    return;
  }
  float lanes[8][16];
  long c = 0;
  for (; c + 2 <= channels; c += 2) {
    const float *p[8];
    float *l[8];
    for (int k = 0; k < 4; k++) {
      p[2 * k] = x + k * advance + c * stride;
      p[2 * k + 1] = x + k * advance + (c + 1) * stride;
      l[2 * k] = lanes[2 * k];
      l[2 * k + 1] = lanes[2 * k + 1];
    }
    oct512(table, width, p, l);
    for (int k = 0; k < 4; k++) {
      scatter(lanes[2 * k], out + k * out_advance, channels, c, 0, 16);
      scatter(lanes[2 * k + 1], out + k * out_advance, channels, c + 1, 0, 16);
    }
  }
  if (c < channels) {
    const float *p[4];
    float *l[4];
    for (int k = 0; k < 4; k++) {
      p[k] = x + k * advance + c * stride;
      l[k] = lanes[k];
    }
    quad512(table, width, p, l);
    for (int k = 0; k < 4; k++) scatter(lanes[k], out + k * out_advance, channels, c, 0, 16);
  }
}

#endif
