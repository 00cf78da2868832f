// The echo canceller's per-bin loops (see EchoCanceller.swift), over spectra held as split real
// and imaginary arrays of `bins` floats, and its reference warp's interpolation (ReferenceWarp).
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"
#include "vector.h"

// One bin, or eight in vector lanes, of the kernels below: the same operations in the same order
// for both, so the scalar tail gives the bits the vector body would.
PCM_INLINE float pcm_load1(const float *p) { return *p; }
PCM_INLINE void pcm_store1(float *p, float x) { *p = x; }
PCM_INLINE float pcm_splat1(float x) { return x; }
PCM_INLINE float pcm_positive1(float x) { return x > 0 ? x : 0; }
PCM_INLINE pcm_v8f pcm_positive8(pcm_v8f x) {
  const pcm_v8f zero = pcm_splat(0);
  const pcm_v8i mask = x > zero;
  return (pcm_v8f)(((pcm_v8i)x & mask) | ((pcm_v8i)zero & ~mask));
}

// NAME(…, k): the bins from k on (one, or eight, as T holds), their five sums over the partitions
// in registers (EchoKernels.predict2 in Swift, partition after partition). Pointers stepped
// partition by partition, X backwards through the ring.
#define PCM_PREDICT_GROUP(NAME, T, LOAD, STORE, SPLAT)                                         \
  PCM_INLINE void NAME(const float *restrict w, const float *restrict v,                       \
                       const float *restrict p, const float *restrict ring, long ring_blocks,  \
                       long newest, long partitions, long bins, long k, float *restrict yr,    \
                       float *restrict yi, float *restrict zr, float *restrict zi,             \
                       float *restrict power) {                                                \
    const long width = 2 * bins;                                                               \
    T yr_ = SPLAT(0), yi_ = yr_, zr_ = yr_, zi_ = yr_, pw_ = yr_;                              \
    const float *x = ring + newest * width, *const ring_end = ring + ring_blocks * width;      \
    const float *wp = w + k, *vp = v + k, *pp = p + k;                                         \
    for (long part = 0; part < partitions; part++) {                                           \
      const T a = LOAD(x + k), b = LOAD(x + bins + k);                                         \
      const T wr = LOAD(wp), wi = LOAD(wp + bins);                                             \
      const T vr = LOAD(vp), vi = LOAD(vp + bins);                                             \
      yr_ = yr_ + (wr * a - wi * b);                                                           \
      yi_ = yi_ + (wr * b + wi * a);                                                           \
      zr_ = zr_ + (vr * a - vi * b);                                                           \
      zi_ = zi_ + (vr * b + vi * a);                                                           \
      pw_ = pw_ + LOAD(pp) * (a * a + b * b);                                                  \
      wp += width;                                                                             \
      vp += width;                                                                             \
      pp += bins;                                                                              \
      x = x == ring ? ring_end - width : x - width;                                            \
    }                                                                                          \
    STORE(yr + k, yr_);                                                                        \
    STORE(yi + k, yi_);                                                                        \
    STORE(zr + k, zr_);                                                                        \
    STORE(zi + k, zi_);                                                                        \
    STORE(power + k, pw_);                                                                     \
  }
PCM_PREDICT_GROUP(predict8, pcm_v8f, pcm_load, pcm_store, pcm_splat)
PCM_PREDICT_GROUP(predict1, float, pcm_load1, pcm_store1, pcm_splat1)
#undef PCM_PREDICT_GROUP

PCM_CLONES void pcmmix_core_echo_predict(const float *restrict w, const float *restrict v,
                                         const float *restrict p, const float *restrict ring,
                                         long ring_blocks, long newest, long partitions,
                                         long bins, long first, long count, float *restrict yr,
                                         float *restrict yi, float *restrict zr,
                                         float *restrict zi, float *restrict power) {
  long k = first;
  // The canceller's layout (257 bins) as a constant: the imaginary parts' offsets become
  // immediates, and the loop keeps its pointers in registers.
  if (bins == 257) {
    for (; k + 8 <= count; k += 8) {
      predict8(w, v, p, ring, ring_blocks, newest, partitions, 257, k, yr, yi, zr, zi, power);
    }
  } else {
    for (; k + 8 <= count; k += 8) {
      predict8(w, v, p, ring, ring_blocks, newest, partitions, bins, k, yr, yi, zr, zi, power);
    }
  }
  for (; k < count; k++) {
    predict1(w, v, p, ring, ring_blocks, newest, partitions, bins, k, yr, yi, zr, zi, power);
  }
}

PCM_CLONES void pcmmix_core_echo_steps(const float *restrict er, const float *restrict ei,
                                       const float *restrict power, const float *restrict xr,
                                       const float *restrict xi, float *restrict psi,
                                       float *restrict rp, float *restrict inverse,
                                       float *restrict step, long bins, float floor,
                                       float partitions, float nlms_floor) {
  for (long k = 0; k < bins; k++) {
    const float e2 = er[k] * er[k] + ei[k] * ei[k];
    const float smooth = 0.7f * psi[k] + 0.3f * e2;
    psi[k] = pcm_swift_max(e2, smooth);
    const float near = pcm_swift_max(psi[k] - 0.5f * power[k], 1e-6f);
    inverse[k] = 1 / (power[k] + 2 * near + floor);
    const float x2 = xr[k] * xr[k] + xi[k] * xi[k];
    rp[k] = 0.9f * rp[k] + 0.1f * x2;
    step[k] = 0.4f / (partitions * rp[k] + nlms_floor);
  }
}

// NAME(…, k): the bins from k on (one, or eight), through every partition, their errors, steps
// and inverse denominator held in registers (EchoKernels.kalman and .nlms in Swift).
#define PCM_UPDATE_GROUP(NAME, T, LOAD, STORE, SPLAT, POSITIVE)                                \
  PCM_INLINE void NAME(float *restrict w, float *restrict v, float *restrict p,                \
                       const float *restrict ring, long ring_blocks, long newest,              \
                       long partitions, long bins, long k, const float *restrict er_,          \
                       const float *restrict ei_, const float *restrict inverse,               \
                       const float *restrict sr_, const float *restrict si_,                   \
                       const float *restrict step_, const float *restrict q_, float a2_,       \
                       float fraction_, float revert_, float decay_) {                         \
    const long width = 2 * bins;                                                               \
    const T er = LOAD(er_ + k), ei = LOAD(ei_ + k), inv = LOAD(inverse + k);                   \
    const T sr = LOAD(sr_ + k), si = LOAD(si_ + k), step = LOAD(step_ + k);                    \
    const T q = LOAD(q_ + k), a2 = SPLAT(a2_), fraction = SPLAT(fraction_);                    \
    const T decay = SPLAT(decay_);                                                             \
    T revert = SPLAT(revert_);                                                                 \
    const float *x = ring + newest * width, *const ring_end = ring + ring_blocks * width;      \
    float *wp = w + k, *vp = v + k, *pp = p + k;                                               \
    for (long part = 0; part < partitions; part++) {                                           \
      const T xr = LOAD(x + k), xi = LOAD(x + bins + k);                                       \
      const T pk = LOAD(pp), wr = LOAD(wp), wi = LOAD(wp + bins);                              \
      const T x2 = xr * xr + xi * xi;                                                          \
      const T gain = pk * inv;                                                                 \
      const T gr = xr * er + xi * ei;                                                          \
      const T gi = xr * ei - xi * er;                                                          \
      const T nr = wr + gain * gr, ni = wi + gain * gi;                                        \
      STORE(wp, nr);                                                                           \
      STORE(wp + bins, ni);                                                                    \
      const T left = pk - fraction * gain * pk * x2;                                           \
      STORE(pp, a2 * POSITIVE(left) + q * (nr * nr + ni * ni) + revert);                       \
      revert = revert * decay;                                                                 \
      const T hr = xr * sr + xi * si;                                                          \
      const T hi = xr * si - xi * sr;                                                          \
      STORE(vp, LOAD(vp) + step * hr);                                                         \
      STORE(vp + bins, LOAD(vp + bins) + step * hi);                                           \
      wp += width;                                                                             \
      vp += width;                                                                             \
      pp += bins;                                                                              \
      x = x == ring ? ring_end - width : x - width;                                            \
    }                                                                                          \
  }
PCM_UPDATE_GROUP(update8, pcm_v8f, pcm_load, pcm_store, pcm_splat, pcm_positive8)
PCM_UPDATE_GROUP(update1, float, pcm_load1, pcm_store1, pcm_splat1, pcm_positive1)
#undef PCM_UPDATE_GROUP

PCM_CLONES void pcmmix_core_echo_update(float *restrict w, float *restrict v, float *restrict p,
                                        const float *restrict ring, long ring_blocks,
                                        long newest, long partitions, long bins, long first,
                                        long count, const float *restrict er,
                                        const float *restrict ei, const float *restrict inverse,
                                        const float *restrict sr, const float *restrict si,
                                        const float *restrict step, const float *restrict q,
                                        float a2, float fraction, float revert, float decay) {
  long k = first;
  // As in pcmmix_core_echo_predict: the canceller's layout as a constant.
  if (bins == 257) {
    for (; k + 8 <= count; k += 8) {
      update8(w, v, p, ring, ring_blocks, newest, partitions, 257, k, er, ei, inverse, sr, si,
              step, q, a2, fraction, revert, decay);
    }
  } else {
    for (; k + 8 <= count; k += 8) {
      update8(w, v, p, ring, ring_blocks, newest, partitions, bins, k, er, ei, inverse, sr, si,
              step, q, a2, fraction, revert, decay);
    }
  }
  for (; k < count; k++) {
    update1(w, v, p, ring, ring_blocks, newest, partitions, bins, k, er, ei, inverse, sr, si,
            step, q, a2, fraction, revert, decay);
  }
}

// Eight bins at a time, then one (the same operations per bin): a compiler vectorizes the plain
// loop itself, but not at -O0, where it ran 5 % of the instructions of a Debug pull with echo
// cancellation.
PCM_CLONES void pcmmix_core_echo_power_add(const float *restrict xr, const float *restrict xi,
                                          long bins, float weight, float *restrict out) {
  const pcm_v8f w = pcm_splat(weight);
  long k = 0;
  for (; k + 8 <= bins; k += 8) {
    const pcm_v8f a = pcm_load(xr + k), b = pcm_load(xi + k);
    pcm_store(out + k, pcm_load(out + k) + w * (a * a + b * b));
  }
  for (; k < bins; k++) out[k] += weight * (xr[k] * xr[k] + xi[k] * xi[k]);
}


PCM_CLONES void pcmmix_core_echo_gains(const float *restrict se, const float *restrict sy,
                                       const float *restrict residual,
                                       const float *restrict path, const uint8_t *restrict hold,
                                       float *restrict gains, float *restrict er,
                                       float *restrict ei, long bins, float overdrive,
                                       float echo_only, float unlearnt, float misadjusted,
                                       int explained, int on, float floor, float rise,
                                       float fall) {
  // (The cost model counts the division as too dear to vectorize; it is not: 8 lanes for the
  // price of about 2 scalar ones.)
#pragma clang loop vectorize(enable)
  for (long k = 0; k < bins; k++) {
    const float s = se[k];
    const float onset = explained && hold[k] > 0 ? s : 0;
    const float r = pcm_swift_max(
        pcm_swift_max(pcm_swift_max(residual[k], 0.1f * echo_only * path[k]),
                  pcm_swift_max(unlearnt * pcm_swift_max(0, path[k] - sy[k]),
                            misadjusted * pcm_swift_min(s, sy[k]))),
        onset);
    float g = pcm_swift_max(floor, 1 - overdrive * r / s);
    const float share = g > gains[k] ? rise : fall;
    g = share * g + (1 - share) * gains[k];
    g = on && s > 0 ? g : 1;
    gains[k] = g;
    er[k] *= g;
    ei[k] *= g;
  }
}

PCM_CLONES void pcmmix_core_echo_warp(const float *restrict history, long first,
                                      const float *restrict table, long taps, long phases,
                                      double position, double ratio, long count,
                                      float *restrict out) {
  for (long i = 0; i < count; i++) {
    const double p = position + (double)i * ratio;
    const long whole = (long)p;
    const double phase = (p - (double)whole) * (double)phases;
    const long row = (long)phase < phases - 1 ? (long)phase : phases - 1;
    const float t = (float)(phase - (double)row);
    const float *x = history + (whole - taps / 2 + 1 - first);
    const float *a = table + row * taps;
    const float *b = a + taps;
    pcm_v8f sa = {0}, sb = {0};
    for (long k = 0; k < taps; k += 8) {
      const pcm_v8f v = *(const pcm_v8f_u *)(x + k);
      sa += *(const pcm_v8f_u *)(a + k) * v;
      sb += *(const pcm_v8f_u *)(b + k) * v;
    }
    // The lanes from −0 one by one, as Swift's SIMD sum() adds them (pcm_sum, written out: a
    // vector argument may not cross into a function of the default clone).
    float ra = -0.0f, rb = -0.0f;
    for (int j = 0; j < 8; j++) {
      ra += sa[j];
      rb += sb[j];
    }
    out[i] = ra + t * (rb - ra);
  }
}
