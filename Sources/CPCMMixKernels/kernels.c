#include "pcmmix_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define PCMMIX_TARGET __attribute__((target("avx2,fma")))

int pcmmix_kernels_available(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

PCMMIX_TARGET static inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Four accumulators per product hide the FMA latency; the tail takes the last 8 .. 24 taps.
PCMMIX_TARGET float pcmmix_dot(const float *h, const float *x, long n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  long i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i), _mm256_loadu_ps(x + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i + 8), _mm256_loadu_ps(x + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i + 16), _mm256_loadu_ps(x + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i + 24), _mm256_loadu_ps(x + i + 24), s3);
  }
  for (; i < n; i += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(h + i), _mm256_loadu_ps(x + i), s0);
  }
  return hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

PCMMIX_TARGET void pcmmix_dot2(const float *h, const float *a, const float *b, long n,
                               float *out) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 c0 = _mm256_loadu_ps(h + i), c1 = _mm256_loadu_ps(h + i + 8);
    a0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(a + i), a0);
    b0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b + i), b0);
    a1 = _mm256_fmadd_ps(c1, _mm256_loadu_ps(a + i + 8), a1);
    b1 = _mm256_fmadd_ps(c1, _mm256_loadu_ps(b + i + 8), b1);
  }
  if (i < n) {
    __m256 c0 = _mm256_loadu_ps(h + i);
    a0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(a + i), a0);
    b0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b + i), b0);
  }
  out[0] = hsum(_mm256_add_ps(a0, a1));
  out[1] = hsum(_mm256_add_ps(b0, b1));
}

#else

// Elsewhere (arm64: the Swift SIMD path already maps to NEON) there is no kernel.
int pcmmix_kernels_available(void) { return 0; }

float pcmmix_dot(const float *h, const float *x, long n) {
  float s = 0;
  for (long i = 0; i < n; i++) s += h[i] * x[i];
  return s;
}

void pcmmix_dot2(const float *h, const float *a, const float *b, long n, float *out) {
  out[0] = pcmmix_dot(h, a, n);
  out[1] = pcmmix_dot(h, b, n);
}

#endif
