// The echo canceller's per-bin loops (see EchoCanceller.swift), over spectra held as split real
// and imaginary arrays of `bins` floats.
#pragma STDC FP_CONTRACT OFF

#include "pcmmix_core.h"
#include "vector.h"

// One partition's terms added to a bin's five sums (EchoKernels.predict2 in Swift).
#define PCM_PREDICT_TERMS(T, LOAD, k)                                          \
  do {                                                                          \
    const T a = LOAD(x + (k)), b = LOAD(x + bins + (k));                       \
    const T wr = LOAD(wp + (k)), wi = LOAD(wp + bins + (k));                   \
    const T vr = LOAD(vp + (k)), vi = LOAD(vp + bins + (k));                   \
    yr_ = yr_ + (wr * a - wi * b);                                              \
    yi_ = yi_ + (wr * b + wi * a);                                              \
    zr_ = zr_ + (vr * a - vi * b);                                              \
    zi_ = zi_ + (vr * b + vi * a);                                              \
    pw_ = pw_ + LOAD(pp + (k)) * (a * a + b * b);                               \
  } while (0)

// Eight bins from k on, their sums over the partitions held in registers.
PCM_INLINE void predict8(const float *restrict w, const float *restrict v, const float *restrict p,
                         const float *restrict ring, long ring_blocks, long newest,
                         long partitions, long bins, long k, float *restrict yr,
                         float *restrict yi, float *restrict zr, float *restrict zi,
                         float *restrict power) {
  const long width = 2 * bins;
  pcm_v8f yr_ = pcm_splat(0), yi_ = yr_, zr_ = yr_, zi_ = yr_, pw_ = yr_;
  // Pointers stepped partition by partition (X backwards through the ring).
  const float *x = ring + newest * width, *const ring_end = ring + ring_blocks * width;
  const float *wp = w, *vp = v, *pp = p;
  for (long part = 0; part < partitions; part++) {
    PCM_PREDICT_TERMS(pcm_v8f, pcm_load, k);
    wp += width;
    vp += width;
    pp += bins;
    x = x == ring ? ring_end - width : x - width;
  }
  pcm_store(yr + k, yr_);
  pcm_store(yi + k, yi_);
  pcm_store(zr + k, zr_);
  pcm_store(zi + k, zi_);
  pcm_store(power + k, pw_);
}

PCM_CLONES void pcmmix_core_echo_predict(const float *restrict w, const float *restrict v,
                                         const float *restrict p, const float *restrict ring,
                                         long ring_blocks, long newest, long partitions,
                                         long bins, long first, long count, float *restrict yr,
                                         float *restrict yi,
                                         float *restrict zr, float *restrict zi,
                                         float *restrict power) {
  const long width = 2 * bins;
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
    float yr_ = 0, yi_ = 0, zr_ = 0, zi_ = 0, pw_ = 0;
    long slot = newest;
    for (long part = 0; part < partitions; part++) {
      const float *x = ring + slot * width;
      const float *wp = w + part * width, *vp = v + part * width, *pp = p + part * bins;
      PCM_PREDICT_TERMS(float, *, k);
      slot = slot == 0 ? ring_blocks - 1 : slot - 1;
    }
    yr[k] = yr_;
    yi[k] = yi_;
    zr[k] = zr_;
    zi[k] = zi_;
    power[k] = pw_;
  }
}
#undef PCM_PREDICT_TERMS

PCM_CLONES void pcmmix_core_echo_steps(const float *restrict er, const float *restrict ei,
                                       const float *restrict power, const float *restrict xr,
                                       const float *restrict xi, float *restrict psi,
                                       float *restrict rp, float *restrict inverse,
                                       float *restrict step, long bins, float floor,
                                       float partitions, float nlms_floor) {
  for (long k = 0; k < bins; k++) {
    const float e2 = er[k] * er[k] + ei[k] * ei[k];
    const float smooth = 0.7f * psi[k] + 0.3f * e2;
    psi[k] = smooth >= e2 ? smooth : e2;
    const float excess = psi[k] - 0.5f * power[k];
    const float near = 1e-6f >= excess ? 1e-6f : excess;
    inverse[k] = 1 / (power[k] + 2 * near + floor);
    const float x2 = xr[k] * xr[k] + xi[k] * xi[k];
    rp[k] = 0.9f * rp[k] + 0.1f * x2;
    step[k] = 0.4f / (partitions * rp[k] + nlms_floor);
  }
}

PCM_INLINE pcm_v8f pcm_select(pcm_v8f a, pcm_v8f b, pcm_v8i mask) {
  return (pcm_v8f)(((pcm_v8i)a & mask) | ((pcm_v8i)b & ~mask));
}

// Eight bins from k on, through every partition: the bin's errors, steps and inverse
// denominator held in registers.
PCM_INLINE void update8(float *restrict w, float *restrict v, float *restrict p,
                        const float *restrict ring, long ring_blocks, long newest,
                        long partitions, long bins, long k, const float *restrict er_,
                        const float *restrict ei_, const float *restrict inverse,
                        const float *restrict sr_, const float *restrict si_,
                        const float *restrict step_, float a2_, float fraction_) {
  const long width = 2 * bins;
  const pcm_v8f er = pcm_load(er_ + k), ei = pcm_load(ei_ + k), inv = pcm_load(inverse + k);
  const pcm_v8f sr = pcm_load(sr_ + k), si = pcm_load(si_ + k), step = pcm_load(step_ + k);
  const pcm_v8f a2 = pcm_splat(a2_), fraction = pcm_splat(fraction_);
  const pcm_v8f zero = pcm_splat(0), one = pcm_splat(1);
  // Pointers stepped partition by partition (X backwards through the ring).
  const float *x = ring + newest * width, *const ring_end = ring + ring_blocks * width;
  float *wp = w + k, *vp = v + k, *pp = p + k;
  for (long part = 0; part < partitions; part++) {
    const pcm_v8f xr = pcm_load(x + k), xi = pcm_load(x + bins + k);
    const pcm_v8f pk = pcm_load(pp), wr = pcm_load(wp), wi = pcm_load(wp + bins);
    const pcm_v8f x2 = xr * xr + xi * xi;
    const pcm_v8f gain = pk * inv;
    const pcm_v8f gr = xr * er + xi * ei;
    const pcm_v8f gi = xr * ei - xi * er;
    const pcm_v8f nr = wr + gain * gr, ni = wi + gain * gi;
    pcm_store(wp, nr);
    pcm_store(wp + bins, ni);
    const pcm_v8f left = pk - fraction * gain * pk * x2;
    const pcm_v8f kept = pcm_select(left, zero, left > zero);
    pcm_store(pp, a2 * kept + (one - a2) * (nr * nr + ni * ni));
    const pcm_v8f hr = xr * sr + xi * si;
    const pcm_v8f hi = xr * si - xi * sr;
    pcm_store(vp, pcm_load(vp) + step * hr);
    pcm_store(vp + bins, pcm_load(vp + bins) + step * hi);
    wp += width;
    vp += width;
    pp += bins;
    x = x == ring ? ring_end - width : x - width;
  }
}

PCM_CLONES void pcmmix_core_echo_update(float *restrict w, float *restrict v, float *restrict p,
                                        const float *restrict ring, long ring_blocks,
                                        long newest, long partitions, long bins, long first,
                                        long count,
                                        const float *restrict er, const float *restrict ei,
                                        const float *restrict inverse, const float *restrict sr,
                                        const float *restrict si, const float *restrict step,
                                        float a2, float fraction) {
  const long width = 2 * bins;
  long k = first;
  // As in pcmmix_core_echo_predict: the canceller's layout as a constant.
  if (bins == 257) {
    for (; k + 8 <= count; k += 8) {
      update8(w, v, p, ring, ring_blocks, newest, partitions, 257, k, er, ei, inverse, sr, si,
              step, a2, fraction);
    }
  } else {
    for (; k + 8 <= count; k += 8) {
      update8(w, v, p, ring, ring_blocks, newest, partitions, bins, k, er, ei, inverse, sr, si,
              step, a2, fraction);
    }
  }
  for (; k < count; k++) {
    long slot = newest;
    for (long part = 0; part < partitions; part++) {
      const float *x = ring + slot * width;
      float *wp = w + part * width, *vp = v + part * width, *pp = p + part * bins;
      const float xr = x[k], xi = x[bins + k];
      const float x2 = xr * xr + xi * xi;
      const float gain = pp[k] * inverse[k];
      const float gr = xr * er[k] + xi * ei[k];
      const float gi = xr * ei[k] - xi * er[k];
      const float nr = wp[k] + gain * gr, ni = wp[bins + k] + gain * gi;
      wp[k] = nr;
      wp[bins + k] = ni;
      const float left = pp[k] - fraction * gain * pp[k] * x2;
      pp[k] = a2 * (left > 0 ? left : 0) + (1 - a2) * (nr * nr + ni * ni);
      const float hr = xr * sr[k] + xi * si[k];
      const float hi = xr * si[k] - xi * sr[k];
      vp[k] += step[k] * hr;
      vp[bins + k] += step[k] * hi;
      slot = slot == 0 ? ring_blocks - 1 : slot - 1;
    }
  }
}

PCM_CLONES void pcmmix_core_echo_power_add(const float *restrict xr, const float *restrict xi,
                                          long bins, float weight, float *restrict out) {
  for (long k = 0; k < bins; k++) out[k] += weight * (xr[k] * xr[k] + xi[k] * xi[k]);
}

// Swift's max and min of two floats: the second where it is greater or equal (less).
PCM_INLINE float swift_max(float a, float b) { return b >= a ? b : a; }
PCM_INLINE float swift_min(float a, float b) { return b < a ? b : a; }

PCM_CLONES void pcmmix_core_echo_gains(const float *restrict se, const float *restrict sy,
                                       const float *restrict residual,
                                       const float *restrict path, const uint8_t *restrict hold,
                                       float *restrict gains, float *restrict er,
                                       float *restrict ei, long bins, float overdrive,
                                       float echo_only, float unlearnt, float misadjusted,
                                       int explained, int on, float floor) {
  // (The cost model counts the division as too dear to vectorize; it is not: 8 lanes for the
  // price of about 2 scalar ones.)
#pragma clang loop vectorize(enable)
  for (long k = 0; k < bins; k++) {
    const float s = se[k];
    const float onset = explained && hold[k] > 0 ? s : 0;
    const float r = swift_max(
        swift_max(swift_max(residual[k], 0.1f * echo_only * path[k]),
                  swift_max(unlearnt * swift_max(0, path[k] - sy[k]),
                            misadjusted * swift_min(s, sy[k]))),
        onset);
    float g = swift_max(floor, 1 - overdrive * r / s);
    g = g > gains[k] ? 0.5f * (g + gains[k]) : g;
    g = on && s > 0 ? g : 1;
    gains[k] = g;
    er[k] *= g;
    ei[k] *= g;
  }
}
