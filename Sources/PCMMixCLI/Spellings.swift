import PCMMix

// The command line's words for the library's enumerations. They are the CLI's (its options and
// its JSON reports), written here, so a renamed case in the library cannot change what a script
// types or reads, and a new case does not compile until it has a word.

extension MixPolicy {
  /// The policy's command-line name (`--policy NAME`, and the reports).
  package var cliSpelling: String {
    switch self {
    case .average: "average"
    case .saturate: "saturate"
    case .limit: "limit"
    }
  }

  /// The policy `--policy NAME` names.
  package init?(cliSpelling name: String) {
    guard let hit = Self.allCases.first(where: { $0.cliSpelling == name }) else { return nil }
    self = hit
  }
}

extension SampleType {
  /// The sample type's command-line name, without byte order (`s16` in `s16le:44100:2`, and the
  /// reports).
  package var cliSpelling: String {
    switch self {
    case .u8: "u8"
    case .s16: "s16"
    case .s24: "s24"
    case .s32: "s32"
    case .f32: "f32"
    case .f64: "f64"
    }
  }

  /// The sample type a `TYPE` spelling names (without `le`/`be`).
  package init?(cliSpelling name: String) {
    guard let hit = Self.allCases.first(where: { $0.cliSpelling == name }) else { return nil }
    self = hit
  }
}
