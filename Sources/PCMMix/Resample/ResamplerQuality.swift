/// The filter specification of the built-in resampler.
///
/// Edges are fractions of the lower Nyquist frequency, `min(inputRate, outputRate) / 2`: the
/// passband runs flat to `passbandEdge`, everything from `stopbandEdge` up is rejected by
/// `attenuation` dB (so nothing above the output Nyquist aliases back, and no image of the input
/// spectrum lands below it).
public struct ResamplerQuality: Hashable, Sendable {
  /// Where the passband ends, as a fraction of the lower Nyquist.
  public var passbandEdge: Double
  /// Where the stopband begins, as a fraction of the lower Nyquist.
  public var stopbandEdge: Double
  /// Stopband rejection in dB.
  public var attenuation: Double

  /// Creates a specification; edges satisfy 0 < passbandEdge < stopbandEdge ≤ 2.
  public init(passbandEdge: Double, stopbandEdge: Double, attenuation: Double) {
    precondition(passbandEdge > 0 && passbandEdge < stopbandEdge && stopbandEdge <= 2)
    precondition(attenuation >= 20 && attenuation <= 200)
    self.passbandEdge = passbandEdge
    self.stopbandEdge = stopbandEdge
    self.attenuation = attenuation
  }

  /// The default: flat to 0.9 × Nyquist, 130 dB rejection from the Nyquist frequency up.
  public static let balanced = ResamplerQuality(
    passbandEdge: 0.9, stopbandEdge: 1.0, attenuation: 130)
}
