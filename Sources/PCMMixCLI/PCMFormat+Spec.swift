import PCMMix

extension PCMFormat {
  /// Parses a `TYPE:RATE:CHANNELS` spec such as `s16be:44100:2`, the shape the CLI takes for
  /// headerless input. TYPE is one of `u8 s16le s16be s24le s24be s32le s32be f32le f32be f64le
  /// f64be`. Returns `nil` when the spec does not parse or names an unsupported rate or count.
  package init?(spec: String) {
    let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3, let rate = Int(parts[1]), let channels = Int(parts[2]),
      (1...PCMFormat.maxSampleRate).contains(rate), (1...PCMFormat.maxChannels).contains(channels)
    else { return nil }
    let typeName = String(parts[0])
    guard let (type, order) = PCMFormat.parseType(typeName) else { return nil }
    self.init(sampleRate: rate, channelCount: channels, sampleType: type, byteOrder: order)
  }

  /// Parses a type spelling (`u8`, `s16le`, `f64be`, …) into sample type and byte order.
  package static func parseType(_ name: String) -> (SampleType, ByteOrder)? {
    if name == "u8" { return (.u8, .little) }
    guard name.count >= 4 else { return nil }
    let suffix = name.suffix(2)
    guard let type = SampleType(cliSpelling: String(name.dropLast(2))), type != .u8 else {
      return nil
    }
    switch suffix {
    case "le": return (type, .little)
    case "be": return (type, .big)
    default: return nil
    }
  }

  /// Every type spelling the CLI accepts, in documentation order.
  package static let typeSpellings = [
    "u8", "s16le", "s16be", "s24le", "s24be", "s32le", "s32be", "f32le", "f32be", "f64le", "f64be",
  ]
}
