#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The least-squares fit of a sine at a known frequency to a stretch of output.
///
/// Fits `y[j] ≈ a·sin(ωt) + b·cos(ωt) + c` with `t = j / rate` over the stretch; the residual is
/// everything that is not the tone (noise, distortion, aliases, imaging), so the SNR is the
/// fitted tone's power over the residual's.
struct ToneFit {
  /// Fitted amplitude.
  var amplitude: Double
  /// Phase φ of `amplitude·sin(ωt + φ)`, in radians.
  var phase: Double
  /// Tone power over residual power, in dB.
  var snrDB: Double

  /// The basis of one frequency at one rate over output frames `start ..< end`.
  struct Basis {
    let frequency: Double
    let start: Int
    let sines: [Double]
    let cosines: [Double]

    init(frequency: Double, rate: Int, start: Int, end: Int) {
      self.frequency = frequency
      self.start = start
      let w = 2 * Double.pi * frequency / Double(rate)
      sines = (start..<end).map { sin(w * Double($0)) }
      cosines = (start..<end).map { cos(w * Double($0)) }
    }

    var count: Int { sines.count }
  }

  /// Fits channel `channel` of interleaved `samples` (`channels` per frame) over the basis's
  /// frames (clipped to what `samples` holds).
  init(_ samples: UnsafeBufferPointer<Float>, channel: Int, channels: Int, basis: Basis) {
    let n = min(basis.count, samples.count / channels - basis.start)
    var (ss, sc, s1, cc, c1, ys, yc, y1) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for k in 0..<max(0, n) {
      let y = Double(samples[(basis.start + k) * channels + channel])
      let (s, c) = (basis.sines[k], basis.cosines[k])
      ss += s * s
      sc += s * c
      s1 += s
      cc += c * c
      c1 += c
      ys += y * s
      yc += y * c
      y1 += y
    }
    let x = ToneFit.solve3([
      [ss, sc, s1, ys], [sc, cc, c1, yc], [s1, c1, Double(max(0, n)), y1],
    ])
    var signal = 0.0
    var residual = 0.0
    for k in 0..<max(0, n) {
      let y = Double(samples[(basis.start + k) * channels + channel])
      let tone = x[0] * basis.sines[k] + x[1] * basis.cosines[k]
      signal += tone * tone
      let e = y - tone - x[2]
      residual += e * e
    }
    amplitude = (x[0] * x[0] + x[1] * x[1]).squareRoot()
    phase = atan2(x[1], x[0])
    snrDB = 10 * log10(signal / max(residual, .leastNonzeroMagnitude))
  }

  /// Solves a 3×3 system given as an augmented matrix, by Gaussian elimination with pivoting.
  static func solve3(_ augmented: [[Double]]) -> [Double] {
    var a = augmented
    for col in 0..<3 {
      let pivot = (col..<3).max { abs(a[$0][col]) < abs(a[$1][col]) }!
      a.swapAt(col, pivot)
      guard a[col][col] != 0 else { return [0, 0, 0] }
      for r in (col + 1)..<3 {
        let f = a[r][col] / a[col][col]
        for c in col..<4 { a[r][c] -= f * a[col][c] }
      }
    }
    var x = [0.0, 0.0, 0.0]
    for r in stride(from: 2, through: 0, by: -1) {
      var s = a[r][3]
      for c in (r + 1)..<3 { s -= a[r][c] * x[c] }
      x[r] = s / a[r][r]
    }
    return x
  }

  /// The delay (seconds) of a linear-phase system from fits of the same input tone
  /// `0.5·sin(2πft)` at two nearby frequencies: their phase difference gives the group delay
  /// (unambiguous below `1 / (2·|f2 − f1|)`), which picks the period of the first tone's
  /// precise phase delay.
  static func delay(_ first: ToneFit, at f1: Double, _ second: ToneFit, at f2: Double) -> Double {
    var dphi = second.phase - first.phase
    while dphi > Double.pi { dphi -= 2 * Double.pi }
    while dphi <= -Double.pi { dphi += 2 * Double.pi }
    let group = -dphi / (2 * Double.pi * (f2 - f1))
    let period = 1 / f1
    var phaseDelay = -first.phase / (2 * Double.pi * f1)
    phaseDelay -= (phaseDelay / period).rounded(.down) * period
    return phaseDelay + ((group - phaseDelay) / period).rounded() * period
  }
}
