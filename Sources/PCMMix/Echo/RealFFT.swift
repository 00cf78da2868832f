import CPCMMixCore

/// A fast Fourier transform of real signals of a power-of-two length `count` (at least 4), in
/// Float: the forward transform gives the `count / 2 + 1` bins from 0 to the Nyquist frequency
/// (the rest mirror them), the inverse takes them back to the signal.
///
/// The real signal of `count` samples is read as a complex one of `count / 2` (even samples
/// real, odd imaginary), transformed by an iterative radix-2 FFT (bit-reversed order first,
/// then butterflies stage by stage with each stage's twiddles laid out contiguously), and split
/// into the real signal's spectrum: `X[k] = (Z[k] + Z*[h−k]) / 2 − i·w^k·(Z[k] − Z*[h−k]) / 2`,
/// `h = count / 2`, `w = e^{−2πi/count}`. The inverse runs the same steps backwards.
///
/// Conventions as numpy's `rfft` / `irfft`: `X[k] = Σₙ x[n]·e^{−2πikn/count}`, and the inverse
/// divides by `count`. Tables are made once; a transform allocates nothing and works in the
/// caller's buffers (split real and imaginary parts, `count / 2 + 1` each). The transforms run
/// in C (`pcmmix_core_rfft_forward` and `_inverse`: eight butterflies at a time) or, with
/// ``EchoKernels/swift``, as the same steps in Swift.
///
/// - Complexity: O(`count` log `count`).
package struct RealFFT {
  package let count: Int
  /// Half the length: the complex transform's size.
  let half: Int
  /// Which loops transform: the C kernels or the same steps in Swift (the same bits).
  let kernels: EchoKernels
  /// Back to back: for each stage (sizes 2, 4, …, `half`) its twiddles `e^{−2πij/size}`,
  /// j < size / 2 (`half − 1` in all), their real parts then their imaginary ones; then the
  /// split step's `e^{−2πik/count}`, k < `half`, real parts then imaginary ones.
  let tables: [Float]
  /// The bit-reversal permutation of `half` indices.
  let reversed: [Int32]
  /// Bytes held: the tables and the permutation.
  var retainedBytes: Int { 4 * (tables.count + reversed.count) }

  /// Tables for transforms of `count` samples, a power of two from 4 to 2²⁰.
  package init?(count: Int, kernels: EchoKernels = .c) {
    guard count >= 4, count <= 1 << 20, count & (count - 1) == 0 else { return nil }
    self.count = count
    self.kernels = kernels
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
    let split = (0..<half).map { -2 * Double.pi * Double($0) / Double(count) }
    tables = tr + ti + split.map { Float(Math.cos($0)) } + split.map { Float(Math.sin($0)) }
    var reversed = [Int32](repeating: 0, count: half)
    var j = 0
    for i in 0..<half {
      reversed[i] = Int32(j)
      var bit = half >> 1
      while bit > 0 && j & bit != 0 {
        j ^= bit
        bit >>= 1
      }
      j |= bit
    }
    self.reversed = reversed
  }

  /// The spectrum of `input` (`count` samples) into `re` and `im` (`half + 1` each).
  package func forward(
    _ input: UnsafePointer<Float>, re: UnsafeMutablePointer<Float>,
    im: UnsafeMutablePointer<Float>
  ) {
    tables.withUnsafeBufferPointer { t in
      reversed.withUnsafeBufferPointer { r in
        if kernels == .c {
          pcmmix_core_rfft_forward(input, re, im, half, t.baseAddress!, r.baseAddress!)
        } else {
          swiftForward(input, re, im, t.baseAddress!, r.baseAddress!)
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
    tables.withUnsafeBufferPointer { t in
      reversed.withUnsafeBufferPointer { r in
        if kernels == .c {
          pcmmix_core_rfft_inverse(re, im, output, half, t.baseAddress!, r.baseAddress!)
        } else {
          swiftInverse(re, im, output, t.baseAddress!, r.baseAddress!)
        }
      }
    }
  }

  // MARK: - The same steps in Swift

  func swiftForward(
    _ input: UnsafePointer<Float>, _ re: UnsafeMutablePointer<Float>,
    _ im: UnsafeMutablePointer<Float>, _ tables: UnsafePointer<Float>,
    _ reversed: UnsafePointer<Int32>
  ) {
    let h = half
    // The even samples real, the odd imaginary, straight to their bit-reversed places.
    for n in 0..<h {
      let j = Int(reversed[n])
      (re[j], im[j]) = (input[2 * n], input[2 * n + 1])
    }
    stages(re, im, tables, sign: 1)
    // Split: X[k] and X[h − k] from Z[k] and Z[h − k] together.
    let (wr, wi) = (tables + 2 * (h - 1), tables + 2 * (h - 1) + h)
    let (z0r, z0i) = (re[0], im[0])
    (re[0], im[0]) = (z0r + z0i, 0)
    (re[h], im[h]) = (z0r - z0i, 0)
    var k = 1
    while k <= h / 2 {
      let m = h - k
      let (ar, ai, br, bi) = (re[k], im[k], re[m], im[m])
      // Even part E = (Z[k] + Z*[m]) / 2, odd part O = (Z[k] − Z*[m]) / 2i.
      let er = 0.5 * (ar + br)
      let ei = 0.5 * (ai - bi)
      let or = 0.5 * (ai + bi)
      let oi = -0.5 * (ar - br)
      // X[k] = E + w^k O; X[m] = E* − (w^k O)*, as w^m = −conj(w^k).
      let (cr, ci) = (wr[k], wi[k])
      let tr = cr * or - ci * oi
      let ti = cr * oi + ci * or
      (re[k], im[k]) = (er + tr, ei + ti)
      (re[m], im[m]) = (er - tr, ti - ei)
      k += 1
    }
  }

  func swiftInverse(
    _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>,
    _ output: UnsafeMutablePointer<Float>, _ tables: UnsafePointer<Float>,
    _ reversed: UnsafePointer<Int32>
  ) {
    let h = half
    let (wr, wi) = (tables + 2 * (h - 1), tables + 2 * (h - 1) + h)
    // Undo the split: Z[k] = E + i·O with E = (X[k] + X*[m]) / 2, O = w^{−k}(X[k] − X*[m]) / 2.
    let (x0, xh) = (re[0], re[h])
    (re[0], im[0]) = (0.5 * (x0 + xh), 0.5 * (x0 - xh))
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
      (re[k], im[k]) = (er - oi, ei + or)
      (re[m], im[m]) = (er + oi, or - ei)
      k += 1
    }
    for i in 0..<h {
      let j = Int(reversed[i])
      if i < j {
        (re[i], re[j]) = (re[j], re[i])
        (im[i], im[j]) = (im[j], im[i])
      }
    }
    stages(re, im, tables, sign: -1)
    // The halving in the split leaves the complex inverse `half` times z: 1 / half is the
    // transform's 1 / count.
    let scale = 1 / Float(h)
    for n in 0..<h {
      output[2 * n] = re[n] * scale
      output[2 * n + 1] = im[n] * scale
    }
  }

  /// The complex transform's butterflies in place (bit-reversed order in), conjugate twiddles
  /// when `sign` is −1 (the inverse, not divided). Sizes 2 and 4 take their twiddles (1 and
  /// ∓i) as exact operations, in one pass.
  func stages(
    _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>,
    _ tables: UnsafePointer<Float>, sign: Float
  ) {
    let h = half
    if h < 4 {
      var a = 0
      while a + 1 < h {
        let (xr, xi) = (re[a + 1], im[a + 1])
        (re[a + 1], im[a + 1]) = (re[a] - xr, im[a] - xi)
        (re[a], im[a]) = (re[a] + xr, im[a] + xi)
        a += 2
      }
      return
    }
    var a = 0
    while a < h {
      let (s0r, s0i) = (re[a] + re[a + 1], im[a] + im[a + 1])
      let (d0r, d0i) = (re[a] - re[a + 1], im[a] - im[a + 1])
      let (s1r, s1i) = (re[a + 2] + re[a + 3], im[a + 2] + im[a + 3])
      let (d1r, d1i) = (re[a + 2] - re[a + 3], im[a + 2] - im[a + 3])
      (re[a], im[a]) = (s0r + s1r, s0i + s1i)
      (re[a + 2], im[a + 2]) = (s0r - s1r, s0i - s1i)
      // (d1r + i·d1i)·(−i·sign) = sign·d1i − i·sign·d1r
      let (xr, xi) = (sign * d1i, -sign * d1r)
      (re[a + 1], im[a + 1]) = (d0r + xr, d0i + xi)
      (re[a + 3], im[a + 3]) = (d0r - xr, d0i - xi)
      a += 4
    }
    var size = 8
    var base = 3
    while size <= h {
      let m = size / 2
      var start = 0
      while start < h {
        for j in 0..<m {
          let (wr, wi) = (tables[base + j], sign * tables[h - 1 + base + j])
          let (a, b) = (start + j, start + j + m)
          let xr = re[b] * wr - im[b] * wi
          let xi = re[b] * wi + im[b] * wr
          (re[b], im[b]) = (re[a] - xr, im[a] - xi)
          (re[a], im[a]) = (re[a] + xr, im[a] + xi)
        }
        start += size
      }
      base += m
      size *= 2
    }
  }
}
