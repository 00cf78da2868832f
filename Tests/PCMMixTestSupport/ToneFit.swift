import Foundation

/// Least-squares fit of `a·cos(ωn) + b·sin(ωn) + c` to a signal, for tone SNR, gain and phase:
/// the one tone fit of the tests and the benchmark.
///
/// The residual is everything that is not the tone (noise, distortion, aliases, images), so the
/// SNR is the fitted tone's power over the residual's. `phase` is the fitted cosine's at
/// sample 0: `amplitude·cos(ωn + phase)`.
public struct ToneFit {
  /// Amplitude of the fitted tone.
  public var amplitude: Double
  /// Phase of the fitted cosine at n = 0, radians.
  public var phase: Double
  /// Tone power over the power of what the fit leaves, in dB.
  public var snrDB: Double

  /// One frequency's cosines and sines over a range of samples, worked out once for fitting
  /// many signals at that frequency (the benchmark fits every backend at the same tones).
  public struct Basis {
    /// Cycles per sample.
    public let frequency: Double
    /// The samples fitted.
    public let range: Range<Int>
    let cosines: [Double]
    let sines: [Double]

    /// The basis at `frequency` (cycles per sample) over samples `range`.
    public init(frequency: Double, range: Range<Int>) {
      self.frequency = frequency
      self.range = range
      let w = 2 * Double.pi * frequency
      cosines = range.map { cos(w * Double($0)) }
      sines = range.map { sin(w * Double($0)) }
    }
  }

  /// Fits the tone at `frequency` (cycles per sample) to `x[range]`, sample n at index
  /// `n · stride + offset`.
  ///
  /// - Precondition: the range lies within `x`.
  public init(_ x: [Float], stride: Int = 1, offset: Int = 0, frequency: Double, range: Range<Int>)
  {
    precondition(range.isEmpty || (range.upperBound - 1) * stride + offset < x.count)
    self = x.withUnsafeBufferPointer {
      ToneFit($0, stride: stride, offset: offset, basis: Basis(frequency: frequency, range: range))
    }
  }

  /// Fits `basis`'s tone to the samples `n · stride + offset` of `x` for n in its range, as far
  /// as `x` reaches.
  public init(_ x: UnsafeBufferPointer<Float>, stride: Int = 1, offset: Int = 0, basis: Basis) {
    let reach = (x.count - offset + stride - 1) / stride
    let n = max(0, min(basis.range.count, reach - basis.range.lowerBound))
    func y(_ k: Int) -> Double { Double(x[(basis.range.lowerBound + k) * stride + offset]) }
    // Normal equations for the basis (cos, sin, 1).
    var (cc, cs, c1, ss, s1, yc, ys, y1) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for k in 0..<n {
      let (c, s, v) = (basis.cosines[k], basis.sines[k], y(k))
      (cc, cs, c1, ss, s1) = (cc + c * c, cs + c * s, c1 + c, ss + s * s, s1 + s)
      (yc, ys, y1) = (yc + v * c, ys + v * s, y1 + v)
    }
    let f = ToneFit.solve(
      [[cc, cs, c1], [cs, ss, s1], [c1, s1, Double(max(n, 1))]], [yc, ys, y1])
    var fitPower = 0.0
    var residual = 0.0
    for k in 0..<n {
      let tone = f[0] * basis.cosines[k] + f[1] * basis.sines[k]
      fitPower += tone * tone
      let e = y(k) - tone - f[2]
      residual += e * e
    }
    amplitude = (f[0] * f[0] + f[1] * f[1]).squareRoot()
    phase = atan2(-f[1], f[0])
    snrDB = 10 * log10(max(fitPower, 1e-300) / max(residual, 1e-300))
  }

  /// Solves `a·x = b` (square, nonsingular, any size) by Gauss–Jordan elimination with partial
  /// pivoting.
  public static func solve(_ a: [[Double]], _ b: [Double]) -> [Double] {
    var m = a
    var v = b
    let n = b.count
    for col in 0..<n {
      let p = (col..<n).max { abs(m[$0][col]) < abs(m[$1][col]) }!
      m.swapAt(col, p)
      v.swapAt(col, p)
      guard m[col][col] != 0 else { return [Double](repeating: 0, count: n) }
      for r in 0..<n where r != col {
        let f = m[r][col] / m[col][col]
        for c in 0..<n { m[r][c] -= f * m[col][c] }
        v[r] -= f * v[col]
      }
    }
    return (0..<n).map { v[$0] / m[$0][$0] }
  }

  /// The delay, in samples, of a system with a linear phase from fits of the same input tone
  /// (a cosine or a sine starting at sample 0) at two nearby frequencies, in cycles per sample:
  /// their phase difference gives the group delay (unambiguous below `1 / (2·|f2 − f1|)`),
  /// which picks the period of the first tone's precise phase delay.
  public static func delay(
    _ first: ToneFit, at f1: Double, _ second: ToneFit, at f2: Double, input: InputTone = .cosine
  ) -> Double {
    var dphi = second.phase - first.phase
    while dphi > Double.pi { dphi -= 2 * Double.pi }
    while dphi <= -Double.pi { dphi += 2 * Double.pi }
    let group = -dphi / (2 * Double.pi * (f2 - f1))
    let period = 1 / f1
    // A sine input is a cosine a quarter period late: its phase at the input is −π/2.
    let inputPhase = input == .sine ? -Double.pi / 2 : 0
    var phaseDelay = -(first.phase - inputPhase) / (2 * Double.pi * f1)
    phaseDelay -= (phaseDelay / period).rounded(.down) * period
    return phaseDelay + ((group - phaseDelay) / period).rounded() * period
  }

  /// The input of a delay measurement: a cosine or a sine, starting at sample 0.
  public enum InputTone { case cosine, sine }
}
