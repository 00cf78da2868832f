/// Why a WAV stream cannot be read or written. Each case names what is wrong and, where it helps,
/// the value found.
///
/// The case names are also the spellings the reference vectors in `TestVectors/manifest.json` use.
public enum WAVError: Error, Hashable, Sendable {
  /// The input does not start with `RIFF`.
  case notRIFF
  /// The input is big-endian RIFF (`RIFX`), which this library does not read.
  case bigEndianRIFX
  /// The RIFF form type is not `WAVE`.
  case notWAVE
  /// The input ends inside the RIFF header or inside a chunk before the `data` chunk starts.
  case truncatedHeader
  /// A `data` chunk comes before any `fmt ` chunk.
  case dataBeforeFormat
  /// The input ends cleanly without a `fmt ` chunk.
  case formatChunkMissing
  /// The `fmt ` chunk (of the given size in bytes) is too short for its format tag: under 16
  /// bytes, or an extensible chunk under 40 bytes or with `cbSize` under 22.
  case formatChunkTooShort(Int)
  /// The input ends after the `fmt ` chunk without a `data` chunk.
  case missingDataChunk
  /// The format tag (or extensible sub-format) is not linear PCM or IEEE float.
  case unsupportedEncoding(tag: UInt16, name: String)
  /// The bit depth is not one this library reads for that format tag (for extensible files, the
  /// sub-format's tag), or an extensible file's valid bits exceed its container.
  case unsupportedBitDepth(bits: Int, formatTag: UInt16)
  /// The channel count is 0.
  case zeroChannels
  /// The sample rate is outside 1 … ``PCMFormat/maxSampleRate`` Hz.
  case invalidSampleRate(UInt32)
  /// The block align (bytes per frame) disagrees with channels × bytes per sample.
  case blockAlignMismatch(Int, expected: Int)
  /// The channel count is above ``PCMFormat/maxChannels``.
  case tooManyChannels(Int)
  /// Reading or writing failed; the message comes from the operating system (`strerror`).
  case io(String)
}

extension WAVError: CustomStringConvertible {
  /// One lower-case line, e.g. `unsupported encoding mu-law (format tag 0x0007)`.
  public var description: String {
    switch self {
    case .notRIFF:
      "not a WAV file: the input does not start with \"RIFF\""
    case .bigEndianRIFX:
      "big-endian RIFF (\"RIFX\") files are not supported"
    case .notWAVE:
      "the RIFF form type is not \"WAVE\""
    case .truncatedHeader:
      "the input ends inside the WAV header, before the data chunk"
    case .dataBeforeFormat:
      "the data chunk comes before the fmt chunk"
    case .formatChunkMissing:
      "the input has no fmt chunk"
    case .formatChunkTooShort(let size):
      "fmt chunk of \(size) bytes is too short (16 needed, 40 for extensible)"
    case .missingDataChunk:
      "the input has a fmt chunk but no data chunk"
    case .unsupportedEncoding(let tag, let name):
      if name.hasPrefix("format tag") {
        "unsupported encoding (\(name))"
      } else {
        "unsupported encoding \(name) (format tag \(_hex(tag)))"
      }
    case .unsupportedBitDepth(let bits, let tag):
      "\(bits)-bit \(_encodingName(tag)) samples are not supported (format tag \(_hex(tag)))"
    case .zeroChannels:
      "channel count is 0"
    case .invalidSampleRate(let rate):
      "sample rate \(rate) Hz is outside 1 … \(PCMFormat.maxSampleRate) Hz"
    case .blockAlignMismatch(let got, let expected):
      "block align is \(got) bytes, expected \(expected) for the channels and bit depth"
    case .tooManyChannels(let n):
      "channel count \(n) is above the supported \(PCMFormat.maxChannels)"
    case .io(let message):
      "i/o error: \(message)"
    }
  }
}

/// `0x0007`: a format tag as four lower-case hex digits.
internal func _hex(_ tag: UInt16) -> String {
  let digits = String(tag, radix: 16)
  return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
}

/// The name of a format tag this library reads, for messages.
private func _encodingName(_ tag: UInt16) -> String {
  switch tag {
  case 1: "PCM"
  case 3: "float"
  default: "format \(_hex(tag))"
  }
}
