// The sixteen-output group functions of avx2_resample.c with 512-bit registers, for CPUs with
// AVX-512F (pcmmix_avx512_available()). A group's sixteen lanes fill one register, so a table
// row is one load; and the run function computes up to seven groups that share a table (a table
// cycle apart each) in one pass, so each row load serves up to fourteen planes (seven mono
// groups, or six of a stereo pair: up to 28 accumulators of the 32 registers). Every lane adds exactly what the AVX2 kernel adds, in the
// same order (even taps, odd taps, then their sum), with the same fused multiply-adds, so the
// bits are the AVX2 kernel's.
#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define PCMMIX_TARGET512 __attribute__((target("avx512f,avx2,fma")))

// `n` planes (1 to 14: up to seven groups of one table, one or two channels each)
// against one table, into `n` sets of sixteen lanes; with `stereo`, planes 2k and 2k + 1 are
// the left and right of one group, written interleaved (32 floats) to l[k]. Inlined with `n`
// constant, so the 2n accumulators live in registers (AVX-512 has 32): each row load serves all
// n planes.
PCMMIX_TARGET512 static inline __attribute__((always_inline)) void
planes512(const float *table, long width, const float *const *p, float *const *l, const int n,
          const int stereo) {
  __m512 e[14], o[14];
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
  if (!stereo) {
    for (int k = 0; k < n; k++) _mm512_storeu_ps(l[k], _mm512_add_ps(e[k], o[k]));
    return;
  }
  // Frames in order, left then right: stored straight into the output rather than through
  // lanes copied out right after they were stored (whose loads waited on those stores).
  const __m512i front = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i back =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  for (int k = 0; k < n / 2; k++) {
    const __m512 left = _mm512_add_ps(e[2 * k], o[2 * k]);
    const __m512 right = _mm512_add_ps(e[2 * k + 1], o[2 * k + 1]);
    _mm512_storeu_ps(l[k], _mm512_permutex2var_ps(left, front, right));
    _mm512_storeu_ps(l[k] + 16, _mm512_permutex2var_ps(left, back, right));
  }
}

PCMMIX_TARGET512 static void one512(const float *table, long width, const float *a, float *la) {
  planes512(table, width, &a, &la, 1, 0);
}

PCMMIX_TARGET512 static void pair512(const float *table, long width, const float *a,
                                     const float *b, float *la, float *lb) {
  const float *p[2] = {a, b};
  float *l[2] = {la, lb};
  planes512(table, width, p, l, 2, 0);
}

// A stereo pair's sixteen frames, interleaved, into `out`.
PCMMIX_TARGET512 static void frames512(const float *table, long width, const float *a,
                                       const float *b, float *out) {
  const float *p[2] = {a, b};
  planes512(table, width, p, &out, 2, 1);
}

// Lanes first ..< first + count of one channel's sixteen into interleaved `out`.
static inline void scatter(const float *lanes, float *out, long channels, long c, long first,
                           long count) {
  for (long i = 0; i < count; i++) out[i * channels + c] = lanes[first + i];
}

PCMMIX_TARGET512 void pcmmix_group16_512(const float *table, long width, const float *x,
                                         long stride, long channels, float *out, long first,
                                         long count) {
  if (channels == 2 && first == 0 && count == 16) {
    frames512(table, width, x, x + stride, out);
    return;
  }
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

// `m` groups of one table (1 to 7 for mono, else 1 to 6), planes from x + k * advance, into
// out[k], every channel. Mono writes its lanes in place (a group's sixteen outputs are
// contiguous), and stereo its frames, interleaved in registers; more channels go through
// `lanes` in pairs, up to twelve planes (24 accumulators) per pass.
PCMMIX_TARGET512 static inline __attribute__((always_inline)) void
groups512(const float *table, long width, const float *x, long advance, long stride,
          long channels, float *const *out, const int m) {
  const float *p[14];
  float *l[14];
  if (channels == 1) {
    for (int k = 0; k < m; k++) p[k] = x + k * advance;
    planes512(table, width, p, out, m, 0);
    return;
  }
  if (channels == 2) {
    for (int k = 0; k < m; k++) {
      p[2 * k] = x + k * advance;
      p[2 * k + 1] = x + k * advance + stride;
    }
    planes512(table, width, p, out, 2 * m, 1);
    return;
  }
  float lanes[12][16];
  long c = 0;
  for (; c + 2 <= channels; c += 2) {
    for (int k = 0; k < m; k++) {
      p[2 * k] = x + k * advance + c * stride;
      p[2 * k + 1] = x + k * advance + (c + 1) * stride;
      l[2 * k] = lanes[2 * k];
      l[2 * k + 1] = lanes[2 * k + 1];
    }
    planes512(table, width, p, l, 2 * m, 0);
    for (int k = 0; k < m; k++) {
      scatter(lanes[2 * k], out[k], channels, c, 0, 16);
      scatter(lanes[2 * k + 1], out[k], channels, c + 1, 0, 16);
    }
  }
  if (c < channels) {
    for (int k = 0; k < m; k++) {
      p[k] = x + k * advance + c * stride;
      l[k] = lanes[k];
    }
    planes512(table, width, p, l, m, 0);
    for (int k = 0; k < m; k++) scatter(lanes[k], out[k], channels, c, 0, 16);
  }
}

// One function per group count, each with its own registers: inlined into one switch, the
// seven loops made the compiler spill their input pointers and reload them on every row.
#define PCMMIX_GROUPS(m)                                                                          \
  PCMMIX_TARGET512 static __attribute__((noinline)) void mono_or_pairs##m(                        \
      const float *table, long width, const float *x, long advance, long stride, long channels, \
      float *const *out) {                                                                        \
    groups512(table, width, x, advance, stride, channels, out, m);                               \
  }
PCMMIX_GROUPS(1)
PCMMIX_GROUPS(2)
PCMMIX_GROUPS(3)
PCMMIX_GROUPS(4)
PCMMIX_GROUPS(5)
PCMMIX_GROUPS(6)
PCMMIX_GROUPS(7)

PCMMIX_TARGET512 void pcmmix_group16_run_512(const float *table, long width, const float *x,
                                             long advance, long stride, long channels,
                                             float *out, long out_advance, long count,
                                             float *first_out, float *last_out) {
  // As many groups per pass as the registers hold; what is left between one and two passes'
  // worth is split in halves (fewer groups than four run on too few accumulator chains to hide
  // the multiply-adds' latency). No division: this runs a few times per call.
  const long most = channels == 1 ? 7 : 6;
  long k = 0;
  while (k < count) {
    const long left = count - k;
    const int m = (int)(left <= most ? left : left < 2 * most ? (left + 1) / 2 : most);
    float *o[7];
    for (int i = 0; i < m; i++) o[i] = out + (k + i) * out_advance;
    if (k == 0 && first_out) o[0] = first_out;
    if (k + m == count && last_out) o[m - 1] = last_out;
    const float *xk = x + k * advance;
    switch (m) {
    case 7: mono_or_pairs7(table, width, xk, advance, stride, channels, o); break;
    case 6: mono_or_pairs6(table, width, xk, advance, stride, channels, o); break;
    case 5: mono_or_pairs5(table, width, xk, advance, stride, channels, o); break;
    case 4: mono_or_pairs4(table, width, xk, advance, stride, channels, o); break;
    case 3: mono_or_pairs3(table, width, xk, advance, stride, channels, o); break;
    case 2: mono_or_pairs2(table, width, xk, advance, stride, channels, o); break;
    default: mono_or_pairs1(table, width, xk, advance, stride, channels, o); break;
    }
    k += m;
  }
}

#endif
