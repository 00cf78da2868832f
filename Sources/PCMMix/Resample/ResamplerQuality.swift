/// The filter specification of the built-in resampler.
///
/// Edges are fractions of the lower Nyquist frequency, `min(inputRate, outputRate) / 2`: the
/// passband runs flat to ``passbandEdge``; from ``stopbandEdge`` up everything is rejected by
/// ``attenuation`` dB. With the stop edge at or below 1, as in every preset, nothing folds into
/// the output band: when downsampling, input above the output's Nyquist frequency is rejected
/// by the full attenuation before it can alias, and when upsampling, every image of the input
/// lies above the input's Nyquist frequency, in the stopband. A stop edge above 1 trades the
/// top of the band for taps: input between 1 and the stop edge aliases (downsampling) into the
/// band between `2 − stopbandEdge` and 1, and input there leaves images just above the input's
/// Nyquist frequency (upsampling).
///
/// Taps, and so cost and delay, grow with attenuation and shrink with the transition width:
/// about `(attenuation − 8) / (14.4 × width)` input samples, width in cycles per input sample.
public struct ResamplerQuality: Hashable, Sendable {
  /// Where the passband ends, as a fraction of the lower Nyquist.
  public let passbandEdge: Double
  /// Where the stopband begins, as a fraction of the lower Nyquist.
  public let stopbandEdge: Double
  /// Stopband rejection in dB.
  public let attenuation: Double
  /// Linear or minimum phase.
  public let phase: PhaseResponse

  /// The filter's phase response.
  ///
  /// A linear-phase filter delays every frequency alike, by half its length; that length is
  /// fixed in input samples for a given transition and rejection, so its delay grows as the
  /// input rate falls (`balanced`: 2 ms from 44.1 kHz, 11 ms from 8 kHz). A minimum-phase
  /// filter with the same magnitude response puts its energy first: its delay is a fraction of
  /// that, least at low frequencies and rising towards the band edge, and its phase is not
  /// linear (harmless for listening, but two channels must use the same filter, as they do).
  public enum PhaseResponse: Hashable, Sendable {
    case linear
    case minimum
    /// Linear phase where its delay is at most `seconds`, minimum phase where it would be more.
    case linearWithin(seconds: Double)
  }

  /// Creates a specification.
  ///
  /// - Throws: ``ConfigurationError`` unless 0 < `passbandEdge` < 1,
  ///   `passbandEdge` < `stopbandEdge` ≤ 2 − `passbandEdge` and 20 ≤ `attenuation` ≤ 200 dB.
  ///   (Any phase is valid: `linearWithin` a limit of 0 s or less is minimum phase everywhere.)
  public init(
    passbandEdge: Double, stopbandEdge: Double, attenuation: Double, phase: PhaseResponse = .linear
  ) throws(ConfigurationError) {
    guard passbandEdge > 0 && passbandEdge < 1 else {
      throw ConfigurationError("passbandEdge", "\(passbandEdge) is not in (0, 1)")
    }
    guard stopbandEdge > passbandEdge && stopbandEdge <= 2 - passbandEdge else {
      throw ConfigurationError(
        "stopbandEdge",
        "\(stopbandEdge) is not above passbandEdge \(passbandEdge) and at most 2 − passbandEdge")
    }
    guard attenuation >= 20 && attenuation <= 200 else {
      throw ConfigurationError("attenuation", "\(attenuation) dB is not in 20 … 200 dB")
    }
    self.init(
      unchecked: passbandEdge, stopbandEdge: stopbandEdge, attenuation: attenuation, phase: phase)
  }

  /// A specification the library knows to be valid (the presets).
  private init(
    unchecked passbandEdge: Double, stopbandEdge: Double, attenuation: Double,
    phase: PhaseResponse
  ) {
    self.passbandEdge = passbandEdge
    self.stopbandEdge = stopbandEdge
    self.attenuation = attenuation
    self.phase = phase
  }
}

extension ResamplerQuality {
  /// Lowest delay: ≥ 100 dB rejection from the lower Nyquist frequency up, flat within 0.1 dB
  /// to 0.9 × Nyquist, at most 1 ms of delay: linear phase where that fits, minimum phase where
  /// it would not (at every common rate into 48 kHz: linear phase would take 1.56 ms from
  /// 44.1 kHz and 1.42 ms from 96 kHz; and from 48 kHz into lower rates). The minimum-phase
  /// filter's delay is longest at the top of the band: 0.62 ms (3.6 kHz, from 8 kHz).
  public static let fast = ResamplerQuality(
    unchecked: 0.9, stopbandEdge: 1, attenuation: 103, phase: .linearWithin(seconds: 0.001))

  /// The default: ≥ 130 dB rejection from the lower Nyquist frequency up, flat within 0.01 dB
  /// to 0.9 × Nyquist, at most 1.5 ms of delay: linear phase where that fits, minimum phase
  /// where it would not (at every common rate into 48 kHz: linear phase would take 2 ms from
  /// 44.1 kHz and 1.83 ms from 96 kHz); the longest delay, at the top of the band from 8 kHz,
  /// is 0.77 ms.
  public static let balanced = ResamplerQuality(
    unchecked: 0.9, stopbandEdge: 1, attenuation: 133, phase: .linearWithin(seconds: 0.0015))

  /// Cleanest: ≥ 140 dB rejection from the lower Nyquist frequency up (designed for 150 dB),
  /// flat within 0.001 dB to 0.95 × Nyquist, at most 3 ms of delay: linear phase where that
  /// fits, minimum phase where it would not (at every common rate into 48 kHz: linear phase
  /// would take 4.5 ms from 44.1 kHz and 4.2 ms from 96 kHz); the longest delay, at the top of
  /// the band from 8 kHz, is 0.99 ms.
  public static let high = ResamplerQuality(
    unchecked: 0.95, stopbandEdge: 1, attenuation: 150, phase: .linearWithin(seconds: 0.003))

  /// The same specification with another phase response (e.g. `.balanced.with(phase: .linear)`
  /// for a constant delay at every frequency, whatever it costs in delay).
  public func with(phase: PhaseResponse) -> ResamplerQuality {
    ResamplerQuality(
      unchecked: passbandEdge, stopbandEdge: stopbandEdge, attenuation: attenuation, phase: phase)
  }
}
