/// Why an audio file (WAV, RF64, BW64, RIFX or CAF) cannot be read, or a WAV file written. Each
/// case names what is wrong and, where it helps, the value found.
///
/// The case names are also the spellings the reference vectors in `TestVectors/manifest.json` and
/// `TestVectors/containers/manifest.json` use.
public enum WAVError: Error, Hashable, Sendable {
  /// The input starts with none of `RIFF`, `RIFX`, `RF64`, `BW64` and `caff`.
  case notRIFF
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
  /// An RF64 or BW64 file has no `ds64` chunk before a chunk whose size (0xFFFFFFFF) it must
  /// give.
  case ds64Missing
  /// The `ds64` chunk (of the given size in bytes) is shorter than its 28 fixed bytes plus 12
  /// per entry of the table it declares.
  case ds64TooShort(Int)
  /// The input ends inside a CAF file's header, before the first audio byte.
  case truncatedCAFHeader
  /// The CAF file's version is not 1 (the only one there is).
  case unsupportedCAFVersion(Int)
  /// The CAF file's first chunk is not `desc`.
  case cafDescriptionMissing
  /// The CAF `desc` chunk contradicts itself, or describes linear PCM this library does not read
  /// (the message says which field).
  case cafDescription(String)
  /// The CAF audio is not linear PCM: its format ID (`aac `, `alac`, `ulaw`, …) and the
  /// encoding's name.
  case unsupportedCAFEncoding(formatID: String, name: String)
  /// A CAF chunk's size is negative (only a `data` chunk may say -1, "to the end of the file"),
  /// or a `data` chunk is too small for its 4-byte edit count.
  case invalidCAFChunkSize(type: String, size: Int64)
  /// The CAF file ends after its `desc` chunk (and others) without a `data` chunk.
  case cafDataMissing
  /// Reading or writing failed; the message comes from the operating system (`strerror`).
  case io(String)
}

extension WAVError: CustomStringConvertible {
  /// One lower-case line, e.g. `unsupported encoding mu-law (format tag 0x0007)`.
  public var description: String {
    switch self {
    case .notRIFF:
      "not a WAV file: the input does not start with \"RIFF\", \"RIFX\", \"RF64\", \"BW64\""
        + " or CAF's \"caff\""
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
    case .ds64Missing:
      "the RF64 file has no ds64 chunk to give its 64-bit sizes"
    case .ds64TooShort(let size):
      "ds64 chunk of \(size) bytes is too short (28 needed, plus 12 per table entry)"
    case .truncatedCAFHeader:
      "the input ends inside the CAF header, before the audio data"
    case .unsupportedCAFVersion(let version):
      "unsupported CAF file version \(version) (only 1 exists)"
    case .cafDescriptionMissing:
      "the CAF file does not start with a desc chunk"
    case .cafDescription(let message):
      "invalid CAF desc chunk: \(message)"
    case .unsupportedCAFEncoding(let id, let name):
      "unsupported CAF encoding \(name) ('\(id)')"
    case .invalidCAFChunkSize(let type, let size):
      "the CAF chunk '\(type)' has an invalid size \(size)"
    case .cafDataMissing:
      "the CAF file has no data chunk"
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
