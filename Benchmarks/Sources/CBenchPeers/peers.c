// soxr, speexdsp and a WebRTC-class 32-tap sinc resampler behind the API in include/peers.h.
#include "peers.h"

#include <math.h>
#include <soxr.h>
#include <speex/speex_resampler.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BENCH_X86 1
#define BENCH_AVX2_FMA __attribute__((target("avx2,fma")))
#endif

// ---------------------------------------------------------------------------------------------
// BENCH_PEER_SINC32: the cost model of WebRTC's SincResampler, in our own code.
//
// Output n sits at input position p = n * in / out (kept exactly as a whole part and a remainder
// over `den`) and interpolates the input at p - 16, from the 32 samples floor(p) - 31 ... floor(p).
// The kernel h(u) = blackman(u) * s * sinc(s * u), u in input samples, s = 0.9 * min(1, out / in),
// is tabulated for fractions f = j / 32, j = 0 ... 32: row j, tap i holds h(i - 15 - f). An output
// at fraction f = (j + a) / 32 takes the dot products with rows j and j + 1 and returns
// (1 - a) * first + a * second.

enum {
  SINC_TAPS = 32,
  SINC_OFFSETS = 32,
  // Input frames buffered per pass; a call of any length runs in passes of at most this many.
  SINC_BLOCK = 512,
  // Zero frames fed by the flush: enough for the last input to pass the whole kernel.
  SINC_TAIL = 32,
};

typedef float (*sinc_convolve_fn)(const float *x, const float *k1, const float *k2, float a);

typedef struct {
  // (SINC_OFFSETS + 1) rows of SINC_TAPS coefficients, 32-byte aligned.
  float *kernels;
  // One history plane per channel, `stride` floats apart; plane[0] is stream frame `base`
  // (negative at the start, where the history holds zeros), `count` frames are held.
  float *history;
  long stride;
  long count;
  long base;
  // Position of the next output in input frames: whole + num / den.
  long whole, num, den;
  // Step per output: step_whole + step_num / den.
  long step_whole, step_num;
  sinc_convolve_fn convolve;
} sinc32;

static float sinc_convolve_scalar(const float *x, const float *k1, const float *k2, float a) {
  float s1 = 0, s2 = 0;
  for (int i = 0; i < SINC_TAPS; i++) {
    s1 += x[i] * k1[i];
    s2 += x[i] * k2[i];
  }
  return (1.0f - a) * s1 + a * s2;
}

#ifdef BENCH_X86
BENCH_AVX2_FMA static inline float hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Both sums in vector lanes, blended in lanes, then one horizontal sum.
BENCH_AVX2_FMA static float sinc_convolve_avx2(const float *x, const float *k1, const float *k2,
                                               float a) {
  __m256 s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps();
  for (int i = 0; i < SINC_TAPS; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    s1 = _mm256_fmadd_ps(v, _mm256_load_ps(k1 + i), s1);
    s2 = _mm256_fmadd_ps(v, _mm256_load_ps(k2 + i), s2);
  }
  return hsum256(_mm256_fmadd_ps(_mm256_set1_ps(a), _mm256_sub_ps(s2, s1), s1));
}
#endif

int bench_fma_available(void) {
#ifdef BENCH_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return 0;
#endif
}

static long gcd(long a, long b) {
  while (b) {
    long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static void sinc32_destroy(sinc32 *s) {
  if (!s) return;
  free(s->kernels);
  free(s->history);
  free(s);
}

static sinc32 *sinc32_create(int in_rate, int out_rate, int channels) {
  sinc32 *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->kernels = aligned_alloc(32, sizeof(float) * (SINC_OFFSETS + 1) * SINC_TAPS);
  s->stride = SINC_BLOCK + 2 * SINC_TAPS;
  s->history = calloc((size_t)s->stride * channels, sizeof(float));
  if (!s->kernels || !s->history) {
    sinc32_destroy(s);
    return NULL;
  }
  double scale = 0.9 * (out_rate < in_rate ? (double)out_rate / in_rate : 1.0);
  for (int j = 0; j <= SINC_OFFSETS; j++) {
    double f = (double)j / SINC_OFFSETS;
    for (int i = 0; i < SINC_TAPS; i++) {
      double u = i - (SINC_TAPS / 2 - 1) - f;  // in [-16, 16]
      double w = 0.42 + 0.5 * cos(M_PI * u / 16) + 0.08 * cos(M_PI * u / 8);  // Blackman
      double h = u == 0 ? scale : sin(M_PI * scale * u) / (M_PI * u);
      s->kernels[j * SINC_TAPS + i] = (float)(w * h);
    }
  }
  long g = gcd(in_rate, out_rate);
  s->den = out_rate / g;
  s->step_whole = (in_rate / g) / s->den;
  s->step_num = (in_rate / g) % s->den;
  // The history starts as SINC_TAPS zero frames before the stream.
  s->base = -SINC_TAPS;
  s->count = SINC_TAPS;
  s->convolve = sinc_convolve_scalar;
#ifdef BENCH_X86
  if (bench_fma_available()) s->convolve = sinc_convolve_avx2;
#endif
  return s;
}

// Takes up to SINC_BLOCK frames into the history, writes every output they complete (at most
// `capacity`), then drops the frames no later output needs. Returns the outputs written; sets
// `*taken` to the input frames taken.
static long sinc32_pass(sinc32 *s, int channels, const float *in, long frames, float *out,
                        long capacity, long *taken) {
  long room = s->stride - s->count;  // at least SINC_BLOCK unless an earlier call ran out of room
  long n = frames < SINC_BLOCK ? frames : SINC_BLOCK;
  if (n > room) n = room;
  for (int c = 0; c < channels; c++) {
    float *plane = s->history + c * s->stride + s->count;
    for (long i = 0; i < n; i++) plane[i] = in[i * channels + c];
  }
  s->count += n;
  *taken = n;
  // Outputs whose newest tap, frame `whole`, is held.
  long last = s->base + s->count - 1;
  long outputs = 0;
  long whole = s->whole, num = s->num;
  while (whole <= last && outputs < capacity) {
    outputs++;
    whole += s->step_whole;
    num += s->step_num;
    if (num >= s->den) {
      num -= s->den;
      whole++;
    }
  }
  // Planar, one converter per channel as WebRTC runs them, each walking the same positions.
  const double per_offset = (double)SINC_OFFSETS / s->den;
  for (int c = 0; c < channels; c++) {
    const float *plane = s->history + c * s->stride;
    long w = s->whole - (SINC_TAPS - 1) - s->base, m = s->num;  // first tap's index in `plane`
    for (long k = 0; k < outputs; k++) {
      double v = m * per_offset;
      int j = (int)v;
      const float *k1 = s->kernels + j * SINC_TAPS;
      out[k * channels + c] = s->convolve(plane + w, k1, k1 + SINC_TAPS, (float)(v - j));
      w += s->step_whole;
      m += s->step_num;
      if (m >= s->den) {
        m -= s->den;
        w++;
      }
    }
  }
  s->whole = whole;
  s->num = num;
  // Keep from the first tap of the next output on.
  long drop = whole - (SINC_TAPS - 1) - s->base;
  if (drop > s->count) drop = s->count;
  if (drop > 0) {
    for (int c = 0; c < channels; c++) {
      float *plane = s->history + c * s->stride;
      memmove(plane, plane + drop, sizeof(float) * (size_t)(s->count - drop));
    }
    s->base += drop;
    s->count -= drop;
  }
  return outputs;
}

static long sinc32_process(sinc32 *s, int channels, const float *in, long frames, float *out,
                           long capacity) {
  long written = 0;
  while (frames > 0 && written < capacity) {
    long taken = 0;
    long n = sinc32_pass(s, channels, in, frames, out + written * channels, capacity - written,
                         &taken);
    if (n == 0 && taken == 0) break;
    written += n;
    in += taken * channels;
    frames -= taken;
  }
  return written;
}

// ---------------------------------------------------------------------------------------------
// The peak multiply-add rate: 12 independent FMA chains (latency 4 x 2 ports needs at least 8).
// The starting values pass through an empty asm statement, so the compiler cannot see them: with
// constants it found that c·a + b rounds back to c for most of them and dropped those chains
// (the AVX-512F probe ran 6 of its 12 and reported about 1.7 times the real rate).

#ifdef BENCH_X86
BENCH_AVX2_FMA static float fma_peak_avx2(long rounds) {
  __m256 a = _mm256_set1_ps(0.9999999f), b = _mm256_set1_ps(1e-7f);
  __asm__("" : "+x"(a), "+x"(b));
  __m256 c[12];
  for (int i = 0; i < 12; i++) {
    c[i] = _mm256_set1_ps(0.1f * (float)i);
    __asm__("" : "+x"(c[i]));
  }
  for (long r = 0; r < rounds; r++) {
    for (int i = 0; i < 12; i++) c[i] = _mm256_fmadd_ps(c[i], a, b);
  }
  __m256 s = c[0];
  for (int i = 1; i < 12; i++) s = _mm256_add_ps(s, c[i]);
  return hsum256(s);
}
#endif

#ifdef BENCH_X86
__attribute__((target("avx512f,avx2,fma"))) static float fma_peak_avx512(long rounds) {
  __m512 a = _mm512_set1_ps(0.9999999f), b = _mm512_set1_ps(1e-7f);
  __asm__("" : "+v"(a), "+v"(b));
  __m512 c[12];
  for (int i = 0; i < 12; i++) {
    c[i] = _mm512_set1_ps(0.1f * (float)i);
    __asm__("" : "+v"(c[i]));
  }
  for (long r = 0; r < rounds; r++) {
    for (int i = 0; i < 12; i++) c[i] = _mm512_fmadd_ps(c[i], a, b);
  }
  __m512 s = c[0];
  for (int i = 1; i < 12; i++) s = _mm512_add_ps(s, c[i]);
  return _mm512_reduce_add_ps(s);
}
#endif

long bench_fma_peak512(long rounds, float *sink) {
#ifdef BENCH_X86
  __builtin_cpu_init();
  if (bench_fma_available() && __builtin_cpu_supports("avx512f")) {
    *sink = fma_peak_avx512(rounds);
    return rounds * 12 * 16;
  }
#endif
  (void)rounds;
  *sink = 0;
  return 0;
}

long bench_fma_peak(long rounds, float *sink) {
#ifdef BENCH_X86
  if (bench_fma_available()) {
    *sink = fma_peak_avx2(rounds);
    return rounds * 12 * 8;
  }
#endif
  (void)rounds;
  *sink = 0;
  return 0;
}

// ---------------------------------------------------------------------------------------------

struct bench_peer {
  bench_peer_kind kind;
  int channels;
  int in_rate;
  int out_rate;
  soxr_t soxr;
  SpeexResamplerState *speex;
  // speexdsp and sinc32 have no flush: the tail comes from feeding zeros (speexdsp: its input
  // latency; sinc32: SINC_TAIL frames).
  long flush_left;
  float *zeros;
  sinc32 *sinc;
};

static unsigned long soxr_recipe(int quality) {
  switch (quality) {
  case BENCH_SOXR_QQ: return SOXR_QQ;
  case BENCH_SOXR_LQ: return SOXR_LQ;
  case BENCH_SOXR_MQ: return SOXR_MQ;
  case BENCH_SOXR_HQ: return SOXR_HQ;
  default: return SOXR_VHQ;
  }
}

bench_peer *bench_peer_create(bench_peer_kind kind, int quality, int in_rate, int out_rate,
                              int channels) {
  if (in_rate <= 0 || out_rate <= 0 || channels <= 0) return NULL;
  bench_peer *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->kind = kind;
  p->channels = channels;
  p->in_rate = in_rate;
  p->out_rate = out_rate;
  p->flush_left = -1;
  if (kind == BENCH_PEER_SOXR) {
    soxr_quality_spec_t q = soxr_quality_spec(soxr_recipe(quality), 0);
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_runtime_spec_t rt = soxr_runtime_spec(1);  // one thread, as a capture callback runs
    soxr_error_t error = NULL;
    p->soxr = soxr_create(in_rate, out_rate, (unsigned)channels, &error, &io, &q, &rt);
    if (!p->soxr || error) {
      bench_peer_destroy(p);
      return NULL;
    }
    return p;
  }
  if (kind == BENCH_PEER_SPEEX && quality >= 0 && quality <= 10) {
    int error = 0;
    // No speex_resampler_skip_zeros: the delay stays in the output, as for every other row.
    p->speex = speex_resampler_init((spx_uint32_t)channels, (spx_uint32_t)in_rate,
                                    (spx_uint32_t)out_rate, quality, &error);
    if (!p->speex || error) {
      bench_peer_destroy(p);
      return NULL;
    }
    return p;
  }
  if (kind == BENCH_PEER_SINC32) {
    p->sinc = sinc32_create(in_rate, out_rate, channels);
    if (!p->sinc) {
      bench_peer_destroy(p);
      return NULL;
    }
    return p;
  }
  free(p);
  return NULL;
}

long bench_peer_max_output(const bench_peer *p, long frames) {
  // soxr may release more than one call's worth when its internal blocks complete.
  long nominal = (long)ceil((double)frames * p->out_rate / p->in_rate);
  return p->kind == BENCH_PEER_SOXR ? 2 * nominal + 4096 : nominal + 16;
}

long bench_peer_process(bench_peer *p, const float *in, long frames, float *out,
                        long capacity) {
  if (p->kind == BENCH_PEER_SOXR) {
    size_t done = 0;
    if (soxr_process(p->soxr, in, (size_t)frames, NULL, out, (size_t)capacity, &done)) return -1;
    return (long)done;
  }
  if (p->kind == BENCH_PEER_SINC32)
    return sinc32_process(p->sinc, p->channels, in, frames, out, capacity);
  long written = 0;
  while (frames > 0 && written < capacity) {
    spx_uint32_t in_len = (spx_uint32_t)frames, out_len = (spx_uint32_t)(capacity - written);
    if (speex_resampler_process_interleaved_float(p->speex, in, &in_len,
                                                  out + written * p->channels, &out_len))
      return -1;
    in += (long)in_len * p->channels;
    frames -= in_len;
    written += out_len;
    if (in_len == 0 && out_len == 0) break;
  }
  return written;
}

long bench_peer_flush(bench_peer *p, float *out, long capacity) {
  if (p->kind == BENCH_PEER_SOXR) {
    size_t done = 0;
    if (soxr_process(p->soxr, NULL, 0, NULL, out, (size_t)capacity, &done)) return -1;
    return (long)done;
  }
  if (p->flush_left < 0) {
    p->flush_left =
        p->kind == BENCH_PEER_SINC32 ? SINC_TAIL : speex_resampler_get_input_latency(p->speex);
    p->zeros = calloc((size_t)p->flush_left * p->channels + 1, sizeof(float));
    if (!p->zeros) return -1;
  }
  // Enough output room for all of the remaining zeros; the caller loops until 0.
  long feed = p->flush_left;
  long room = (long)floor((double)capacity * p->in_rate / p->out_rate) - 1;
  if (feed > room) feed = room > 0 ? room : 0;
  if (feed == 0) return 0;
  long written = bench_peer_process(p, p->zeros, feed, out, capacity);
  p->flush_left -= feed;
  return written;
}

double bench_peer_reported_delay(const bench_peer *p) {
  if (p->kind == BENCH_PEER_SOXR) return soxr_delay(p->soxr);
  if (p->kind == BENCH_PEER_SINC32) return (double)(SINC_TAPS / 2) * p->out_rate / p->in_rate;
  return speex_resampler_get_output_latency(p->speex);
}

void bench_peer_destroy(bench_peer *p) {
  if (!p) return;
  if (p->soxr) soxr_delete(p->soxr);
  if (p->speex) speex_resampler_destroy(p->speex);
  sinc32_destroy(p->sinc);
  free(p->zeros);
  free(p);
}
