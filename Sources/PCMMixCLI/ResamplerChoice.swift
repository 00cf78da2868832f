import PCMMix
import PCMMixAccelerated
import PCMMixSampleRate

/// The resampler backend named by `--resampler`: the built-in one at a preset, or one of
/// libsamplerate's converters.
package enum ResamplerChoice: Equatable, Sendable {
  case builtin(preset: String)
  case libsamplerate(SampleRateResampler.Converter)

  /// The default: the built-in `balanced` preset.
  package static let standard = ResamplerChoice.builtin(preset: "balanced")

  /// The built-in presets by the names `--resampler builtin:NAME` takes.
  package static let presets: [(name: String, quality: ResamplerQuality)] = [
    ("fast", .fast), ("balanced", .balanced), ("high", .high),
  ]

  /// Every spelling `--resampler` takes, for the help text.
  package static var spellings: [String] {
    Self.presets.map { "builtin:\($0.name)" }
      + SampleRateResampler.Converter.allCases.map(\.cliName)
  }

  /// Parses `builtin`, `builtin:PRESET` or a libsamplerate name such as `src-best`.
  package init?(_ text: String) {
    if text == "builtin" {
      self = .standard
    } else if text.hasPrefix("builtin:") {
      let name = String(text.dropFirst("builtin:".count))
      guard Self.presets.contains(where: { $0.name == name }) else { return nil }
      self = .builtin(preset: name)
    } else if let converter = SampleRateResampler.Converter(cliName: text) {
      self = .libsamplerate(converter)
    } else {
      return nil
    }
  }

  /// Refuses (64) a libsamplerate converter for a rate pair it cannot convert, naming `path`.
  func check(inputRate: Int, outputRate: Int, path: String) throws(CLIError) {
    guard case .libsamplerate(let converter) = self,
      !SampleRateResampler.supports(inputRate: inputRate, outputRate: outputRate)
    else { return }
    throw CLIError(
      .usage, path,
      "\(converter.cliName) converts ratios from 1/256 to 256; \(inputRate) Hz to \(outputRate) Hz"
        + " is outside (use --resampler builtin)")
  }

  /// How `--resampler` spells this choice (`builtin:balanced`, `src-best`, …).
  package var spelling: String {
    switch self {
    case .builtin(let name): "builtin:\(name)"
    case .libsamplerate(let converter): converter.cliName
    }
  }

  /// A factory whose resamplers can be steered, as drift correction in a
  /// ``ClockedCapturePipeline`` needs: the built-in ``VariableRatioResampler`` at the preset (with
  /// the AVX2 + FMA kernels where this CPU has them), or libsamplerate's converter.
  package var steerableFactory: ResamplerFactory { steerableFactory(phase: .capture) }

  /// ``steerableFactory`` with the built-in preset's phase response set by `phase`
  /// (libsamplerate's converters are linear phase and ignore it).
  package func steerableFactory(phase: PhaseChoice) -> ResamplerFactory {
    switch self {
    case .builtin(let name):
      return .acceleratedVariableRatio(phase.applied(to: Self.quality(name)))
    case .libsamplerate(let converter):
      return .libsamplerate(converter)
    }
  }

  /// The factory the source chains use, with the preset as it is (the capture pipeline's phase
  /// rule).
  package var factory: ResamplerFactory { factory(phase: .capture) }

  /// The factory the source chains use, with the built-in preset's phase response set by
  /// `phase` (libsamplerate's converters are linear phase and ignore it).
  package func factory(phase: PhaseChoice) -> ResamplerFactory {
    switch self {
    case .builtin(let name):
      // The AVX2 + FMA kernels where this CPU has them; the Swift path otherwise.
      return .accelerated(phase.applied(to: Self.quality(name)))
    case .libsamplerate(let converter):
      return .libsamplerate(converter)
    }
  }

  /// The preset named `name` (`balanced` if there is none by that name).
  private static func quality(_ name: String) -> ResamplerQuality {
    Self.presets.first { $0.name == name }?.quality ?? .balanced
  }

  /// Whether this is the built-in resampler (the one `--phase` applies to).
  var isBuiltin: Bool {
    if case .builtin = self { return true }
    return false
  }
}
