/// Kaiser-window filter design (Kaiser's empirical formulas; see Oppenheim & Schafer §7.6).
package enum KaiserWindow {
  /// The Kaiser β giving `attenuation` dB of stopband rejection.
  package static func beta(attenuation a: Double) -> Double {
    if a > 50 { return 0.1102 * (a - 8.7) }
    if a >= 21 { return 0.5842 * Math.pow(a - 21, 0.4) + 0.07886 * (a - 21) }
    return 0
  }

  /// Taps needed for `attenuation` dB over a transition `width` in cycles per sample.
  package static func length(attenuation a: Double, transitionWidth width: Double) -> Int {
    Int(((a - 7.95) / (2.285 * 2 * Double.pi * width)).rounded(.up)) + 1
  }

  /// The zeroth-order modified Bessel function of the first kind, by its power series.
  package static func besselI0(_ x: Double) -> Double {
    var sum = 1.0
    var term = 1.0
    let q = x * x / 4
    var k = 1.0
    while term > sum * 1e-17 {
      term *= q / (k * k)
      sum += term
      k += 1
    }
    return sum
  }

  /// The window at `x` ∈ [-1, 1] (0 outside).
  package static func value(_ x: Double, beta: Double) -> Double {
    guard abs(x) <= 1 else { return 0 }
    return besselI0(beta * (1 - x * x).squareRoot()) / besselI0(beta)
  }
}
