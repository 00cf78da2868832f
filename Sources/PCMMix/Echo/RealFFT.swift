import CPCMMixCore

/// A fast Fourier transform of real signals of a power-of-two length `count` (at least 4), in
/// Float: the forward transform gives the `count / 2 + 1` bins from 0 to the Nyquist frequency
/// (the rest mirror them), the inverse takes them back to the signal.
///
/// The real signal of `count` samples is read as a complex one of `count / 2` (even samples
/// real, odd imaginary), transformed by an iterative radix-2 FFT (bit-reversed order first,
/// then butterflies stage by stage with each stage's twiddles laid out contiguously: the one
/// loop in C, `pcmmix_core_fft_stages`, four butterflies at a time), and split
/// into the real signal's spectrum: `X[k] = (Z[k] + Z*[h−k]) / 2 − i·w^k·(Z[k] − Z*[h−k]) / 2`,
/// `h = count / 2`, `w = e^{−2πi/count}`. The inverse runs the same steps backwards.
///
/// Conventions as numpy's `rfft` / `irfft`: `X[k] = Σₙ x[n]·e^{−2πikn/count}`, and the inverse
/// divides by `count`. Tables are made once; a transform allocates nothing and works in the
/// caller's buffers (split real and imaginary parts, `count / 2 + 1` each, and `count / 2`
/// floats of scratch in each).
///
/// - Complexity: O(`count` log `count`).
package struct RealFFT {
  package let count: Int
  /// Half the length: the complex transform's size.
  let half: Int
  /// For each stage (sizes 2, 4, …, `half`), its twiddles `e^{−2πij/size}`, j < size / 2, back
  /// to back (`half − 1` in all).
  let twiddleRe: [Float]
  let twiddleIm: [Float]
  /// `e^{−2πik/count}` for k < `half`: the split step's twiddles.
  let splitRe: [Float]
  let splitIm: [Float]
  /// The bit-reversal permutation of `half` indices, as swaps `(i, j)` with i < j, flattened.
  let swaps: [Int32]

  /// Tables for transforms of `count` samples, a power of two from 4 to 2²⁰.
  package init?(count: Int) {
    guard count >= 4, count <= 1 << 20, count & (count - 1) == 0 else { return nil }
    self.count = count
    half = count / 2
    var tr: [Float] = []
    var ti: [Float] = []
    var size = 2
    while size <= half {
      for j in 0..<(size / 2) {
        let a = -2 * Double.pi * Double(j) / Double(size)
        tr.append(Float(Math.cos(a)))
        ti.append(Float(Math.sin(a)))
      }
      size *= 2
    }
    (twiddleRe, twiddleIm) = (tr, ti)
    splitRe = (0..<half).map { Float(Math.cos(-2 * Double.pi * Double($0) / Double(count))) }
    splitIm = (0..<half).map { Float(Math.sin(-2 * Double.pi * Double($0) / Double(count))) }
    var swaps: [Int32] = []
    var j = 0
    for i in 0..<half {
      if i < j { swaps += [Int32(i), Int32(j)] }
      var bit = half >> 1
      while bit > 0 && j & bit != 0 {
        j ^= bit
        bit >>= 1
      }
      j |= bit
    }
    self.swaps = swaps
  }

  /// The spectrum of `input` (`count` samples) into `re` and `im` (`half + 1` each).
  package func forward(
    _ input: UnsafePointer<Float>, re: UnsafeMutablePointer<Float>,
    im: UnsafeMutablePointer<Float>
  ) {
    let h = half
    // The even samples real, the odd imaginary.
    var n = 0
    while n < h {
      re[n] = input[2 * n]
      im[n] = input[2 * n + 1]
      n += 1
    }
    complexTransform(re, im, inverse: false)
    // Split: X[k] and X[h − k] from Z[k] and Z[h − k] together.
    let (z0r, z0i) = (re[0], im[0])
    re[0] = z0r + z0i
    im[0] = 0
    re[h] = z0r - z0i
    im[h] = 0
    splitRe.withUnsafeBufferPointer { wr in
      splitIm.withUnsafeBufferPointer { wi in
        var k = 1
        while k <= h / 2 {
          let m = h - k
          let (ar, ai, br, bi) = (re[k], im[k], re[m], im[m])
          // Even part E = (Z[k] + Z*[m]) / 2, odd part O = (Z[k] − Z*[m]) / 2i.
          let er = 0.5 * (ar + br)
          let ei = 0.5 * (ai - bi)
          let or = 0.5 * (ai + bi)
          let oi = -0.5 * (ar - br)
          // X[k] = E + w^k O; X[m] = E* − (w^k O)* ... with w^m = −conj(w^k).
          let (cr, ci) = (wr[k], wi[k])
          let tr = cr * or - ci * oi
          let ti = cr * oi + ci * or
          re[k] = er + tr
          im[k] = ei + ti
          re[m] = er - tr
          im[m] = ti - ei
          k += 1
        }
      }
    }
  }

  /// The signal (`count` samples, into `output`) of the spectrum in `re` and `im` (`half + 1`
  /// each, overwritten), divided by `count`.
  package func inverse(
    re: UnsafeMutablePointer<Float>, im: UnsafeMutablePointer<Float>,
    output: UnsafeMutablePointer<Float>
  ) {
    let h = half
    // Undo the split: Z[k] = E + i·O with E = (X[k] + X*[m]) / 2, O = w^{−k}(X[k] − X*[m]) / 2.
    let (x0, xh) = (re[0], re[h])
    re[0] = 0.5 * (x0 + xh)
    im[0] = 0.5 * (x0 - xh)
    splitRe.withUnsafeBufferPointer { wr in
      splitIm.withUnsafeBufferPointer { wi in
        var k = 1
        while k <= h / 2 {
          let m = h - k
          let (ar, ai, br, bi) = (re[k], im[k], re[m], im[m])
          let er = 0.5 * (ar + br)
          let ei = 0.5 * (ai - bi)
          let dr = 0.5 * (ar - br)
          let di = 0.5 * (ai + bi)
          // O = conj(w^k) · D.
          let (cr, ci) = (wr[k], -wi[k])
          let or = cr * dr - ci * di
          let oi = cr * di + ci * dr
          // Z[k] = E + i·O, Z[m] = E* + i·O*.
          re[k] = er - oi
          im[k] = ei + or
          re[m] = er + oi
          im[m] = or - ei
          k += 1
        }
      }
    }
    complexTransform(re, im, inverse: true)
    // The halving in the split leaves the complex inverse `half` times z: 1 / half is the
    // transform's 1 / count.
    let scale = 1 / Float(half)
    var n = 0
    while n < h {
      output[2 * n] = re[n] * scale
      output[2 * n + 1] = im[n] * scale
      n += 1
    }
  }

  /// The complex FFT of `half` points in place (the inverse without its 1 / `half`).
  func complexTransform(
    _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, inverse: Bool
  ) {
    swaps.withUnsafeBufferPointer { s in
      var i = 0
      while i < s.count {
        let (a, b) = (Int(s[i]), Int(s[i + 1]))
        (re[a], re[b]) = (re[b], re[a])
        (im[a], im[b]) = (im[b], im[a])
        i += 2
      }
    }
    twiddleRe.withUnsafeBufferPointer { tr in
      twiddleIm.withUnsafeBufferPointer { ti in
        pcmmix_core_fft_stages(re, im, half, tr.baseAddress!, ti.baseAddress!, inverse ? 1 : 0)
      }
    }
  }
}
