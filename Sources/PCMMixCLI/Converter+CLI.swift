import PCMMixSampleRate

extension SampleRateResampler.Converter {
  /// The name the `pcm-mix` command line uses: `src-best`, `src-medium`, `src-fastest`,
  /// `src-zoh`, `src-linear`.
  package var cliName: String {
    switch self {
    case .sincBest: "src-best"
    case .sincMedium: "src-medium"
    case .sincFastest: "src-fastest"
    case .zeroOrderHold: "src-zoh"
    case .linear: "src-linear"
    }
  }

  /// The converter a command-line name (``cliName``) stands for, or nil.
  package init?(cliName: String) {
    guard let match = Self.allCases.first(where: { $0.cliName == cliName }) else { return nil }
    self = match
  }
}
