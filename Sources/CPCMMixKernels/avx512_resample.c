// The sixteen-output group functions of avx2_resample.c with 512-bit registers, for CPUs with
// AVX-512F (pcmmix_avx512_available()). A group's sixteen lanes fill one register, so a table
// row is one load; and the twin function computes two groups that share a table (a table cycle
// apart) in one pass, so each row load serves four planes. Every lane adds exactly what the AVX2
// kernel adds, in the same order (even taps, odd taps, then their sum), with the same fused
// multiply-adds, so the bits are the AVX2 kernel's.
#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define PCMMIX_TARGET512 __attribute__((target("avx512f,avx2,fma")))

// One group, two planes.
PCMMIX_TARGET512 static void pair512(const float *table, long width, const float *a,
                                     const float *b, float *la, float *lb) {
  __m512 ae = _mm512_setzero_ps(), ao = _mm512_setzero_ps();
  __m512 be = _mm512_setzero_ps(), bo = _mm512_setzero_ps();
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    __m512 c0 = _mm512_loadu_ps(t), c1 = _mm512_loadu_ps(t + 16);
    ae = _mm512_fmadd_ps(c0, _mm512_set1_ps(a[m]), ae);
    be = _mm512_fmadd_ps(c0, _mm512_set1_ps(b[m]), be);
    ao = _mm512_fmadd_ps(c1, _mm512_set1_ps(a[m + 1]), ao);
    bo = _mm512_fmadd_ps(c1, _mm512_set1_ps(b[m + 1]), bo);
  }
  if (m < width) {
    __m512 c0 = _mm512_loadu_ps(table + m * 16);
    ae = _mm512_fmadd_ps(c0, _mm512_set1_ps(a[m]), ae);
    be = _mm512_fmadd_ps(c0, _mm512_set1_ps(b[m]), be);
  }
  _mm512_storeu_ps(la, _mm512_add_ps(ae, ao));
  _mm512_storeu_ps(lb, _mm512_add_ps(be, bo));
}

// One group, one plane.
PCMMIX_TARGET512 static void one512(const float *table, long width, const float *a, float *la) {
  __m512 ae = _mm512_setzero_ps(), ao = _mm512_setzero_ps();
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    ae = _mm512_fmadd_ps(_mm512_loadu_ps(t), _mm512_set1_ps(a[m]), ae);
    ao = _mm512_fmadd_ps(_mm512_loadu_ps(t + 16), _mm512_set1_ps(a[m + 1]), ao);
  }
  if (m < width) ae = _mm512_fmadd_ps(_mm512_loadu_ps(table + m * 16), _mm512_set1_ps(a[m]), ae);
  _mm512_storeu_ps(la, _mm512_add_ps(ae, ao));
}

// Two groups sharing a table, two planes each: eight accumulators in flight.
PCMMIX_TARGET512 static void quad512(const float *table, long width, const float *a,
                                     const float *b, const float *c, const float *d, float *la,
                                     float *lb, float *lc, float *ld) {
  __m512 ae = _mm512_setzero_ps(), ao = _mm512_setzero_ps();
  __m512 be = _mm512_setzero_ps(), bo = _mm512_setzero_ps();
  __m512 ce = _mm512_setzero_ps(), co = _mm512_setzero_ps();
  __m512 de = _mm512_setzero_ps(), dO = _mm512_setzero_ps();
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    __m512 c0 = _mm512_loadu_ps(t), c1 = _mm512_loadu_ps(t + 16);
    ae = _mm512_fmadd_ps(c0, _mm512_set1_ps(a[m]), ae);
    be = _mm512_fmadd_ps(c0, _mm512_set1_ps(b[m]), be);
    ce = _mm512_fmadd_ps(c0, _mm512_set1_ps(c[m]), ce);
    de = _mm512_fmadd_ps(c0, _mm512_set1_ps(d[m]), de);
    ao = _mm512_fmadd_ps(c1, _mm512_set1_ps(a[m + 1]), ao);
    bo = _mm512_fmadd_ps(c1, _mm512_set1_ps(b[m + 1]), bo);
    co = _mm512_fmadd_ps(c1, _mm512_set1_ps(c[m + 1]), co);
    dO = _mm512_fmadd_ps(c1, _mm512_set1_ps(d[m + 1]), dO);
  }
  if (m < width) {
    __m512 c0 = _mm512_loadu_ps(table + m * 16);
    ae = _mm512_fmadd_ps(c0, _mm512_set1_ps(a[m]), ae);
    be = _mm512_fmadd_ps(c0, _mm512_set1_ps(b[m]), be);
    ce = _mm512_fmadd_ps(c0, _mm512_set1_ps(c[m]), ce);
    de = _mm512_fmadd_ps(c0, _mm512_set1_ps(d[m]), de);
  }
  _mm512_storeu_ps(la, _mm512_add_ps(ae, ao));
  _mm512_storeu_ps(lb, _mm512_add_ps(be, bo));
  _mm512_storeu_ps(lc, _mm512_add_ps(ce, co));
  _mm512_storeu_ps(ld, _mm512_add_ps(de, dO));
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
    quad512(table, width, x + c * stride, x + (c + 1) * stride, y + c * stride,
            y + (c + 1) * stride, lanes[0], lanes[1], lanes[2], lanes[3]);
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

// Four groups sharing a table, two planes each: sixteen accumulators in flight, each row load
// serving eight planes (AVX-512 has 32 registers).
PCMMIX_TARGET512 static void oct512(const float *table, long width, const float *const p[8],
                                    float *const l[8]) {
  __m512 e[8], o[8];
  for (int k = 0; k < 8; k++) e[k] = o[k] = _mm512_setzero_ps();
  long m = 0;
  for (; m + 2 <= width; m += 2) {
    const float *t = table + m * 16;
    __m512 c0 = _mm512_loadu_ps(t), c1 = _mm512_loadu_ps(t + 16);
    for (int k = 0; k < 8; k++) e[k] = _mm512_fmadd_ps(c0, _mm512_set1_ps(p[k][m]), e[k]);
    for (int k = 0; k < 8; k++) o[k] = _mm512_fmadd_ps(c1, _mm512_set1_ps(p[k][m + 1]), o[k]);
  }
  if (m < width) {
    __m512 c0 = _mm512_loadu_ps(table + m * 16);
    for (int k = 0; k < 8; k++) e[k] = _mm512_fmadd_ps(c0, _mm512_set1_ps(p[k][m]), e[k]);
  }
  for (int k = 0; k < 8; k++) _mm512_storeu_ps(l[k], _mm512_add_ps(e[k], o[k]));
}

PCMMIX_TARGET512 void pcmmix_group16_four_512(const float *table, long width, const float *x,
                                              long advance, long stride, long channels,
                                              float *out, long out_advance) {
  if (channels == 1) {
    // Mono writes its lanes in place: a group's sixteen outputs are contiguous.
    quad512(table, width, x, x + advance, x + 2 * advance, x + 3 * advance, out,
            out + out_advance, out + 2 * out_advance, out + 3 * out_advance);
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
    quad512(table, width, x + c * stride, x + advance + c * stride, x + 2 * advance + c * stride,
            x + 3 * advance + c * stride, lanes[0], lanes[1], lanes[2], lanes[3]);
    for (int k = 0; k < 4; k++) scatter(lanes[k], out + k * out_advance, channels, c, 0, 16);
  }
}

#endif
