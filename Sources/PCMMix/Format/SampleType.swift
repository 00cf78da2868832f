/// The encoding of one sample in a byte stream.
///
/// Every type except `u8` comes in both byte orders (see ``ByteOrder``); the pair is spelled
/// the way the CLI spells it, e.g. `s16be` or `f32le`.
public enum SampleType: String, CaseIterable, Hashable, Sendable {
  /// Unsigned 8-bit integer, offset binary (128 is silence).
  case u8
  /// Signed 16-bit integer.
  case s16
  /// Signed 24-bit integer packed in 3 bytes.
  case s24
  /// Signed 32-bit integer.
  case s32
  /// IEEE 754 binary32.
  case f32
  /// IEEE 754 binary64.
  case f64

  /// Bytes one sample occupies.
  @inlinable
  public var bytesPerSample: Int {
    switch self {
    case .u8: 1
    case .s16: 2
    case .s24: 3
    case .s32, .f32: 4
    case .f64: 8
    }
  }

  /// Bits of one sample.
  @inlinable
  public var bitsPerSample: Int { bytesPerSample * 8 }

  /// Whether samples are IEEE floating point.
  @inlinable
  public var isFloat: Bool { self == .f32 || self == .f64 }
}

/// The order of the bytes inside one multi-byte sample.
public enum ByteOrder: String, Hashable, Sendable {
  case little
  case big

  /// The byte order of the machine running this code.
  public static var native: ByteOrder {
    1.littleEndian == 1 ? .little : .big
  }
}
