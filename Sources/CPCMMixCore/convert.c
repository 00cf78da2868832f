// Decoding samples to float and encoding float to int16 (see pcmmix_core.h). Integer work is
// exact; the conversions round to nearest as Swift's `Float(Int32)` and `Float(Double)` do.
#pragma STDC FP_CONTRACT OFF

#include <string.h>

#include "pcmmix_core.h"
#include "vector.h"

typedef unsigned short pcm_u16;
typedef unsigned int pcm_u32;
typedef unsigned long long pcm_u64;

PCM_INLINE pcm_u16 load16(const unsigned char *p, int swap) {
  pcm_u16 v;
  memcpy(&v, p, 2);
  return swap ? (pcm_u16)((v >> 8) | (v << 8)) : v;
}

PCM_INLINE pcm_u32 load32(const unsigned char *p, int swap) {
  pcm_u32 v;
  memcpy(&v, p, 4);
  return swap ? __builtin_bswap32(v) : v;
}

PCM_INLINE pcm_u64 load64(const unsigned char *p, int swap) {
  pcm_u64 v;
  memcpy(&v, p, 8);
  return swap ? __builtin_bswap64(v) : v;
}

/// One sample at `p` as a float.
PCM_INLINE float sample(const unsigned char *p, int type, int swap) {
  switch (type) {
  case 0:
    return (float)p[0] * 0x1p-7f - 1.0f;
  case 1:
    return (float)(int)(short)load16(p, swap) * 0x1p-15f;
  case 2: {
    // Big-endian when `swap` on a little-endian machine: hi, mid, lo in memory order.
    const int hi = swap ? p[0] : p[2], mid = p[1], lo = swap ? p[2] : p[0];
    const int v = (int)(((pcm_u32)hi << 24) | ((pcm_u32)mid << 16) | ((pcm_u32)lo << 8)) >> 8;
    return (float)v * 0x1p-23f;
  }
  case 3:
    return (float)(int)load32(p, swap) * 0x1p-31f;
  case 4: {
    pcm_u32 u = load32(p, swap);
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  default: {
    pcm_u64 u = load64(p, swap);
    double d;
    memcpy(&d, &u, 8);
    return (float)d;
  }
  }
}

static const int bytes_per_sample[6] = {1, 2, 3, 4, 4, 8};

void pcmmix_core_decode(const void *src, long count, int type, int swap, float *dst) {
  const unsigned char *p = src;
  long i = 0;
  if (type == 1) {
    // s16, eight at a time.
    for (; i + 8 <= count; i += 8) {
      pcm_v8i v;
      for (int k = 0; k < 8; k++) v[k] = (short)load16(p + 2 * (i + k), swap);
      pcm_store(dst + i, __builtin_convertvector(v, pcm_v8f) * 0x1p-15f);
    }
  } else if (type == 4 && !swap) {
    memcpy(dst, src, (size_t)count * 4);
    return;
  }
  const int size = bytes_per_sample[type];
  for (; i < count; i++) dst[i] = sample(p + i * size, type, swap);
}

void pcmmix_core_decode_strided(const void *src, long stride, long count, int type, int swap,
                                float *dst, long out_stride) {
  const unsigned char *p = src;
  for (long i = 0; i < count; i++) dst[i * out_stride] = sample(p + i * stride, type, swap);
}

void pcmmix_core_swap32(const void *src, long count, void *dst) {
  const unsigned char *p = src;
  unsigned char *q = dst;
  for (long i = 0; i < count; i++) {
    const pcm_u32 u = load32(p + 4 * i, 1);
    memcpy(q + 4 * i, &u, 4);
  }
}

void pcmmix_core_encode_s16(const float *src, long count, void *dst, int swap) {
  unsigned char *out = dst;
  long i = 0;
  // Eight at a time, with no float-to-int conversion and no branch: see PCMEncoder's _int16x8.
  for (; i + 8 <= count; i += 8) {
    const pcm_v8i bits = (pcm_v8i)pcm_load(src + i);
    pcm_v8f a = (pcm_v8f)(bits & 0x7FFFFFFF);
    const pcm_v8f low = pcm_splat(0x1p-16f);
    // NaN compares false and takes `low`.
    const pcm_v8i above = a > low;
    a = (pcm_v8f)(((pcm_v8i)a & above) | ((pcm_v8i)low & ~above));
    const pcm_v8f k = pcm_splat(256.0f - 0x1p-16f);
    const pcm_v8f m = a + k;
    const pcm_v8i sign = bits >> 31;
    const pcm_v8i down = (m - k) < a;
    pcm_v8i q = (pcm_v8i)m - 0x43800000 - down + sign;
    q = ((q > 32767) & 32767) | (~(q > 32767) & q);
    q = ((q < -32768) & -32768) | (~(q < -32768) & q);
    q ^= sign;
    for (int j = 0; j < 8; j++) {
      pcm_u16 u = (pcm_u16)q[j];
      if (swap) u = (pcm_u16)((u >> 8) | (u << 8));
      memcpy(out + 2 * (i + j), &u, 2);
    }
  }
  for (; i < count; i++) {
    const float v = src[i] * 32768.0f;
    int r = 0;
    if (v == v) {
      const float c = v < -32768.0f ? -32768.0f : (v > 32767.0f ? 32767.0f : v);
      const int t = (int)c;
      const float f = c - (float)t;
      r = f > 0.5f ? t + 1 : (f < -0.5f ? t - 1 : t);
    }
    pcm_u16 u = (pcm_u16)r;
    if (swap) u = (pcm_u16)((u >> 8) | (u << 8));
    memcpy(out + 2 * i, &u, 2);
  }
}
