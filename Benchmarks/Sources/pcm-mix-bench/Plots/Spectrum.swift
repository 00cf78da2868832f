#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A radix-2 complex FFT in Double (iterative, decimation in time), for the figures' spectra.
///
/// Written for the benchmark: the measurements must not rest on the library's own FFT.
struct FFT {
  let size: Int
  private let cosines: [Double]
  private let sines: [Double]
  private let reversed: [Int]

  /// An FFT of `size` points, a power of two.
  init(size: Int) {
    precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
    self.size = size
    let half = size / 2
    // Each twiddle computed directly (no recurrence), so their error stays at one rounding.
    cosines = (0..<half).map { cos(2 * Double.pi * Double($0) / Double(size)) }
    sines = (0..<half).map { -sin(2 * Double.pi * Double($0) / Double(size)) }
    let bits = size.trailingZeroBitCount
    reversed = (0..<size).map { i in
      var r = 0
      for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
      return r
    }
  }

  /// Replaces `re + i·im` by its transform `X[k] = Σ x[n]·e^(−2πikn/N)`.
  func transform(_ re: inout [Double], _ im: inout [Double]) {
    precondition(re.count == size && im.count == size)
    for i in 0..<size where i < reversed[i] {
      re.swapAt(i, reversed[i])
      im.swapAt(i, reversed[i])
    }
    re.withUnsafeMutableBufferPointer { xr in
      im.withUnsafeMutableBufferPointer { xi in
        var span = 2
        while span <= size {
          let half = span / 2
          let step = size / span
          var start = 0
          while start < size {
            for k in 0..<half {
              let (wr, wi) = (cosines[k * step], sines[k * step])
              let (a, b) = (start + k, start + k + half)
              let tr = xr[b] * wr - xi[b] * wi
              let ti = xr[b] * wi + xi[b] * wr
              xr[b] = xr[a] - tr
              xi[b] = xi[a] - ti
              xr[a] += tr
              xi[a] += ti
            }
            start += span
          }
          span *= 2
        }
      }
    }
  }
}

/// Power spectra of windowed stretches of a signal, with the window's sums for calibration.
///
/// The Kaiser window (β = 28) keeps every sidelobe below −220 dB, so a full-scale tone leaks
/// nothing measurable into the −180 dB floor the figures show; its main lobe is ±9 bins wide.
struct SpectrumAnalyzer {
  static let beta = 28.0
  /// Bins either side of a component's peak that hold its main lobe.
  static let lobe = 10

  let fft: FFT
  let window: [Double]
  /// Σ w: the peak bin of a tone of amplitude A is A·Σw / 2.
  let windowSum: Double
  /// N·Σ w²: the power of a tone of amplitude A summed over its lobe is A²·N·Σw² / 4.
  let lobePowerScale: Double

  init(size: Int) {
    fft = FFT(size: size)
    window = (0..<size).map {
      let r = 2 * Double($0) / Double(size - 1) - 1
      return Self.besselI0(Self.beta * (1 - r * r).squareRoot()) / Self.besselI0(Self.beta)
    }
    windowSum = window.reduce(0, +)
    lobePowerScale = Double(size) * window.reduce(0) { $0 + $1 * $1 }
  }

  var size: Int { fft.size }

  /// `|X[k]|²` for `k` in `0 ... size / 2` of `samples[start ..< start + size]`, windowed.
  func power(_ samples: UnsafeBufferPointer<Float>, start: Int) -> [Double] {
    precondition(start >= 0 && start + size <= samples.count)
    var re = (0..<size).map { Double(samples[start + $0]) * window[$0] }
    var im = [Double](repeating: 0, count: size)
    fft.transform(&re, &im)
    return (0...(size / 2)).map { re[$0] * re[$0] + im[$0] * im[$0] }
  }

  /// The amplitude of the component whose lobe holds `power[peak]`, from the power summed
  /// over its lobe (no scalloping loss, wherever it falls between bins).
  func amplitude(_ power: [Double], around peak: Int) -> Double {
    let range = max(0, peak - Self.lobe)...min(power.count - 1, peak + Self.lobe)
    return 2 * (power[range].reduce(0, +) / lobePowerScale).squareRoot()
  }

  /// The modified Bessel function of the first kind, order 0, by its power series.
  static func besselI0(_ x: Double) -> Double {
    var sum = 1.0
    var term = 1.0
    var k = 1.0
    while term > 1e-17 * sum {
      term *= (x / (2 * k)) * (x / (2 * k))
      sum += term
      k += 1
    }
    return sum
  }
}
