// Decoding samples to float and encoding float to int16 (see pcmmix_core.h). Integer work is
// exact; the conversions round to nearest as Swift's `Float(Int32)` and `Float(Double)` do.
#pragma STDC FP_CONTRACT OFF

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

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

typedef short pcm_v8s_u __attribute__((vector_size(16), aligned(1)));
typedef unsigned short pcm_v8us __attribute__((vector_size(16)));
typedef unsigned short pcm_v4us __attribute__((vector_size(8)));
typedef unsigned short pcm_v4us_u __attribute__((vector_size(8), aligned(1)));
typedef short pcm_v4s __attribute__((vector_size(8)));
typedef short pcm_v8ss __attribute__((vector_size(16)));
typedef int pcm_v4i __attribute__((vector_size(16)));
typedef unsigned pcm_v8u __attribute__((vector_size(32)));
typedef unsigned pcm_v8u_u __attribute__((vector_size(32), aligned(1)));

PCM_INLINE pcm_v8us swap16(pcm_v8us v) { return (v >> 8) | (v << 8); }

PCM_INLINE pcm_v8u swap32(pcm_v8u v) {
  return (v >> 24) | ((v >> 8) & 0xFF00) | ((v << 8) & 0xFF0000) | (v << 24);
}

/// Eight little-endian 4-byte words from `p`, each ending at a packed s24 sample's last byte
/// (`back` bytes before the sample), sign-extended down: a little-endian sample's value.
PCM_INLINE pcm_v8i s24le8(const unsigned char *p) {
  pcm_v8u w;
  for (int k = 0; k < 8; k++) memcpy((pcm_u32 *)&w + k, p + 3 * k, 4);
  return (pcm_v8i)w >> 8;
}

/// Eight big-endian s24 samples from 4-byte little-endian loads at each sample's first byte
/// (so the load reads one byte past the sample): hi sign-extended, mid kept, lo brought down.
PCM_INLINE pcm_v8i s24be8(const unsigned char *p) {
  pcm_v8u w;
  for (int k = 0; k < 8; k++) memcpy((pcm_u32 *)&w + k, p + 3 * k, 4);
  const pcm_v8i hi = (pcm_v8i)(w << 24) >> 8;
  return hi | (pcm_v8i)((w & 0xFF00) | ((w >> 16) & 0xFF));
}

/// s16 eight at a time; returns the samples done.
PCM_INLINE long decode_s16(const unsigned char *p, long count, int swap, float *dst) {
  long i = 0;
  // Two loads of four, so that each half is widened from a register that was loaded (widening
  // the top half of one eight-lane load reads a register left from the previous iteration).
  for (; i + 8 <= count; i += 8) {
    pcm_v4us a = *(const pcm_v4us_u *)(p + 2 * i), b = *(const pcm_v4us_u *)(p + 2 * i + 8);
    if (swap) {
      a = (a >> 8) | (a << 8);
      b = (b >> 8) | (b << 8);
    }
    const pcm_v4i x = __builtin_convertvector((pcm_v4s)a, pcm_v4i);
    const pcm_v4i y = __builtin_convertvector((pcm_v4s)b, pcm_v4i);
    *(pcm_v4f_u *)(dst + i) = __builtin_convertvector(x, pcm_v4f) * 0x1p-15f;
    *(pcm_v4f_u *)(dst + i + 4) = __builtin_convertvector(y, pcm_v4f) * 0x1p-15f;
  }
  return i;
}

/// s32 (`is_float` 0) or f32's bits, eight at a time; returns the samples done.
PCM_INLINE long decode_32(const unsigned char *p, long count, int swap, int is_float,
                          float *dst) {
  long i = 0;
  for (; i + 8 <= count; i += 8) {
    pcm_v8u v = *(const pcm_v8u_u *)(p + 4 * i);
    if (swap) v = swap32(v);
    pcm_store(dst + i,
              is_float ? (pcm_v8f)v : __builtin_convertvector((pcm_v8i)v, pcm_v8f) * 0x1p-31f);
  }
  return i;
}

void pcmmix_core_decode(const void *src, long count, int type, int swap, float *dst) {
  const unsigned char *p = src;
  long i = 0;
  // One loop per type and byte order, so that no test is inside a loop.
  switch (type) {
  case 1:
    i = swap ? decode_s16(p, count, 1, dst) : decode_s16(p, count, 0, dst);
    break;
  case 2:
    // s24: a little-endian load that ends at a little-endian sample needs the byte before it.
    if (swap) {
      for (; i + 9 <= count; i += 8) {
        pcm_store(dst + i, __builtin_convertvector(s24be8(p + 3 * i), pcm_v8f) * 0x1p-23f);
      }
    } else if (count > 0) {
      dst[0] = sample(p, 2, 0);
      for (i = 1; i + 8 <= count; i += 8) {
        pcm_store(dst + i, __builtin_convertvector(s24le8(p + 3 * i - 1), pcm_v8f) * 0x1p-23f);
      }
    }
    break;
  case 3:
    i = swap ? decode_32(p, count, 1, 0, dst) : decode_32(p, count, 0, 0, dst);
    break;
  case 4:
    if (!swap) {
      memcpy(dst, src, (size_t)count * 4);
      return;
    }
    i = decode_32(p, count, 1, 1, dst);
    break;
  }
  const int size = bytes_per_sample[type];
  for (; i < count; i++) dst[i] = sample(p + i * size, type, swap);
}

PCM_CLONES void pcmmix_core_bound(const float *in, long count, float limit, float *out) {
  const pcm_v8f zero = {0};
  const pcm_v8f hi = zero + limit, lo = zero - limit;
  const pcm_v8i exponent = (pcm_v8i){0} + 0x7F800000;
  long k = 0;
  // Eight at a time, each chunk loaded before it is stored (so `out` may be `in`): a lane whose
  // exponent is all ones becomes +0, then one past either limit takes the limit's bits.
  for (; k + 8 <= count; k += 8) {
    const pcm_v8i bits = *(const pcm_v8i_u *)(in + k);
    const pcm_v8i finite = (bits & exponent) != exponent;
    const pcm_v8f x = (pcm_v8f)(bits & finite);
    const pcm_v8i above = x > hi, below = x < lo;
    const pcm_v8i held = ((pcm_v8i)hi & above) | ((pcm_v8i)lo & below) |
                         ((pcm_v8i)x & ~(above | below));
    *(pcm_v8f_u *)(out + k) = (pcm_v8f)held;
  }
  for (; k < count; k++) {
    union { float f; unsigned u; } v = {in[k]};
    const float x = (v.u & 0x7F800000u) != 0x7F800000u ? v.f : 0.0f;
    out[k] = x > limit ? limit : (x < -limit ? -limit : x);
  }
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

/// Eight int32 lanes to int16, saturating: one pack instruction on SSE2 and NEON.
PCM_INLINE pcm_v8ss narrow(pcm_v8i q) {
  const pcm_v4i lo = __builtin_shufflevector(q, q, 0, 1, 2, 3);
  const pcm_v4i hi = __builtin_shufflevector(q, q, 4, 5, 6, 7);
#if defined(__SSE2__)
  return (pcm_v8ss)_mm_packs_epi32((__m128i)lo, (__m128i)hi);
#elif defined(__ARM_NEON)
  return (pcm_v8ss)vcombine_s16(vqmovn_s32((int32x4_t)lo), vqmovn_s32((int32x4_t)hi));
#else
  const pcm_v8i top = {32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767};
  return __builtin_convertvector(
      __builtin_elementwise_max(__builtin_elementwise_min(q, top), -top - 1), pcm_v8ss);
#endif
}

/// Eight floats to int16 by PCMMix's rule, with no float-to-int conversion and no branch: see
/// PCMEncoder's `_encodeInt16`.
PCM_INLINE pcm_v8us encode8(pcm_v8f x) {
  const pcm_v8i bits = (pcm_v8i)x;
  // |x|, raised to 2^-16 (what lies below rounds to 0 anyway; NaN compares false and takes it).
  pcm_v8f a = (pcm_v8f)(bits & 0x7FFFFFFF);
  const pcm_v8f low = pcm_splat(0x1p-16f);
  const pcm_v8i above = a > low;
  a = (pcm_v8f)(((pcm_v8i)a & above) | ((pcm_v8i)low & ~above));
  const pcm_v8f k = pcm_splat(256.0f - 0x1p-16f);
  const pcm_v8f m = a + k;
  const pcm_v8i sign = bits >> 31;
  const pcm_v8i down = (m - k) < a;
  pcm_v8i q = (pcm_v8i)m - 0x43800000 - down + sign;
  // Narrowed with saturation to int16 (nothing is outside its range but 32768 and the
  // saturating cases), then the sign put back.
  const pcm_v8ss r = narrow(q) ^ narrow(sign);
  return (pcm_v8us)r;
}

/// One sample by the scalar rule: x * 32768 rounded to nearest, ties toward zero, clamped.
PCM_INLINE pcm_u16 encode1(float x) {
  const float v = x * 32768.0f;
  if (v != v) return 0;
  const float c = v < -32768.0f ? -32768.0f : (v > 32767.0f ? 32767.0f : v);
  const int t = (int)c;
  const float f = c - (float)t;
  return (pcm_u16)(f > 0.5f ? t + 1 : (f < -0.5f ? t - 1 : t));
}

PCM_INLINE void encode_s16(const float *src, long count, unsigned char *out, int swap) {
  long i = 0;
  for (; i + 8 <= count; i += 8) {
    const pcm_v8us u = encode8(pcm_load(src + i));
    *(pcm_v8s_u *)(out + 2 * i) = (pcm_v8s_u)(swap ? swap16(u) : u);
  }
  for (; i < count; i++) {
    const pcm_u16 u = encode1(src[i]);
    const pcm_u16 v = swap ? (pcm_u16)((u >> 8) | (u << 8)) : u;
    memcpy(out + 2 * i, &v, 2);
  }
}

void pcmmix_core_encode_s16(const float *src, long count, void *dst, int swap) {
  // One loop per byte order, so that the test is not inside the loop.
  if (swap) {
    encode_s16(src, count, dst, 1);
  } else {
    encode_s16(src, count, dst, 0);
  }
}
