/// The filter specification of the built-in resampler.
///
/// Edges are fractions of the lower Nyquist frequency, `min(inputRate, outputRate) / 2`: the
/// passband runs flat to ``passbandEdge``; from ``stopbandEdge`` up everything is rejected by
/// ``attenuation`` dB. A stop edge a little above 1 trades a sliver of the band just past the
/// Nyquist frequency for delay: when downsampling, input there aliases only into the region
/// above ``passbandEdge``; when upsampling, only input above `2 − stopbandEdge` leaves faint
/// images just above the input Nyquist.
///
/// Taps, and so cost and delay, grow with attenuation and shrink with the transition width:
/// about `(attenuation − 8) / (14.4 × width)` input samples, width in cycles per input sample.
public struct ResamplerQuality: Hashable, Sendable {
  /// Where the passband ends, as a fraction of the lower Nyquist.
  public var passbandEdge: Double
  /// Where the stopband begins, as a fraction of the lower Nyquist.
  public var stopbandEdge: Double
  /// Stopband rejection in dB.
  public var attenuation: Double

  /// Creates a specification; 0 < passbandEdge < 1, passbandEdge < stopbandEdge ≤ 2 − passbandEdge.
  public init(passbandEdge: Double, stopbandEdge: Double, attenuation: Double) {
    precondition(passbandEdge > 0 && passbandEdge < 1)
    precondition(stopbandEdge > passbandEdge && stopbandEdge <= 2 - passbandEdge)
    precondition(attenuation >= 20 && attenuation <= 200)
    self.passbandEdge = passbandEdge
    self.stopbandEdge = stopbandEdge
    self.attenuation = attenuation
  }
}

extension ResamplerQuality {
  /// Lowest delay: ≥ 100 dB rejection, flat within 0.1 dB to 0.9 × Nyquist (about 0.7 ms at
  /// 44.1 → 48 kHz).
  public static let fast = ResamplerQuality(
    passbandEdge: 0.9, stopbandEdge: 1.1, attenuation: 103)

  /// The default: ≥ 130 dB rejection, flat within 0.01 dB to 0.9 × Nyquist (about 1.5 ms at
  /// 44.1 → 48 kHz).
  public static let balanced = ResamplerQuality(
    passbandEdge: 0.9, stopbandEdge: 1.04, attenuation: 133)

  /// Cleanest: 150 dB rejection, flat to 0.95 × Nyquist (about 2.8 ms at 44.1 → 48 kHz).
  public static let high = ResamplerQuality(
    passbandEdge: 0.95, stopbandEdge: 1.03, attenuation: 150)

  /// The presets by name, for command lines and benchmarks.
  public static let presets: [(name: String, quality: ResamplerQuality)] = [
    ("fast", .fast), ("balanced", .balanced), ("high", .high),
  ]
}
