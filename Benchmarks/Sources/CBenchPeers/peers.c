// soxr and speexdsp behind the API in include/peers.h.
#include "peers.h"

#include <math.h>
#include <soxr.h>
#include <speex/speex_resampler.h>
#include <stdlib.h>

struct bench_peer {
  bench_peer_kind kind;
  int channels;
  int in_rate;
  int out_rate;
  soxr_t soxr;
  SpeexResamplerState *speex;
  // speexdsp has no flush: the tail comes from feeding zeros for its input latency.
  long flush_left;
  float *zeros;
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
    p->flush_left = speex_resampler_get_input_latency(p->speex);
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
  return speex_resampler_get_output_latency(p->speex);
}

void bench_peer_destroy(bench_peer *p) {
  if (!p) return;
  if (p->soxr) soxr_delete(p->soxr);
  if (p->speex) speex_resampler_destroy(p->speex);
  free(p->zeros);
  free(p);
}
