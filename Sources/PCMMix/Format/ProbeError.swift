/// Why a ``StreamDescription`` cannot be read as linear PCM. Each case names the field at fault.
public enum ProbeError: Error, Hashable, Sendable {
  /// `formatID` is not `'lpcm'`.
  case unsupportedFormatID(UInt32)
  /// `sampleRate` is zero, negative, not a whole number, or above 768 kHz; or, from a capture
  /// pipeline, outside its `Configuration.inputRates` (1 kHz … 768 kHz by default).
  case invalidSampleRate(Double)
  /// `channelsPerFrame` is zero.
  case zeroChannels
  /// `channelsPerFrame` is above ``PCMFormat/maxChannels``.
  case tooManyChannels(Int)
  /// `bitsPerChannel` is not one this library decodes for these flags.
  case unsupportedBitDepth(UInt32, flags: UInt32)
  /// 8-bit signed, or 16/24/32-bit unsigned integer samples.
  case unsupportedSignedness(bits: UInt32, flags: UInt32)
  /// `bytesPerFrame` disagrees with bytes per sample × channels (× 1 for non-interleaved data,
  /// where a frame of one plane is one sample).
  case bytesPerFrameMismatch(UInt32, expected: UInt32)
  /// `framesPerPacket` is not 1 (linear PCM has one frame per packet).
  case unsupportedFramesPerPacket(UInt32)
  /// `bytesPerPacket` disagrees with `bytesPerFrame`.
  case bytesPerPacketMismatch(UInt32, expected: UInt32)
  /// Samples padded inside wider containers (not packed), which this library does not read.
  case unsupportedUnpackedLayout(bits: UInt32, bytesPerFrame: UInt32, flags: UInt32)
  /// Fixed-point samples (Core Audio's sample-fraction bits, mask 0x1F80, are set).
  case unsupportedFixedPoint(fractionBits: UInt32, flags: UInt32)
  /// A buffer's byte count is not a whole number of frames.
  case partialFrame(byteCount: Int, bytesPerFrame: Int)
  /// A buffer given as planes has the wrong number of them: a planar format takes one plane per
  /// channel, an interleaved one (mono included) exactly one.
  case planeCountMismatch(Int, expected: Int)
  /// The plane at `index` holds `byteCount` bytes where the first plane holds `expected`: every
  /// plane of one buffer must hold the same frames.
  case unequalPlanes(index: Int, byteCount: Int, expected: Int)
  /// A plane of planar data is not a whole number of samples (one sample per frame).
  case partialPlane(byteCount: Int, bytesPerSample: Int)
}

extension ProbeError: CustomStringConvertible {
  /// What is wrong with the description, in words.
  public var description: String {
    switch self {
    case .unsupportedFormatID(let id):
      "format ID \(fourCC(id)) is not linear PCM ('lpcm')"
    case .invalidSampleRate(let rate)
    where rate.isFinite && rate == rate.rounded() && rate >= 1
      && rate <= Double(PCMFormat.maxSampleRate):
      // A readable rate: refused by a capture pipeline's range.
      "sample rate \(hertzText(rate)) Hz is outside the input rates this capture pipeline takes"
        + " (Configuration.inputRates: 1000 … \(PCMFormat.maxSampleRate) Hz unless widened)"
    case .invalidSampleRate(let rate):
      "sample rate \(hertzText(rate)) Hz is outside 1 … \(PCMFormat.maxSampleRate) Hz or not a whole number"
    case .zeroChannels:
      "channel count is 0"
    case .tooManyChannels(let n):
      "channel count \(n) is above the supported \(PCMFormat.maxChannels)"
    case .unsupportedBitDepth(let bits, let flags):
      "\(bits)-bit \(flags & 1 != 0 ? "float" : "integer") samples are not supported"
        + " (flags 0x\(String(flags, radix: 16)))"
    case .unsupportedSignedness(let bits, let flags):
      "\(bits)-bit \(flags & 4 != 0 ? "signed" : "unsigned") integers are not supported"
        + " (flags 0x\(String(flags, radix: 16)))"
    case .bytesPerFrameMismatch(let got, let expected):
      "bytes per frame is \(got), expected \(expected) for the bit depth and channels"
    case .unsupportedFramesPerPacket(let n):
      "frames per packet is \(n), expected 1"
    case .bytesPerPacketMismatch(let got, let expected):
      "bytes per packet is \(got), expected \(expected)"
    case .unsupportedUnpackedLayout(let bits, let bpf, let flags):
      "\(bits)-bit samples in \(bpf)-byte frames (unpacked, flags 0x\(String(flags, radix: 16)))"
        + " are not supported"
    case .unsupportedFixedPoint(let bits, let flags):
      "fixed-point samples with \(bits) fraction bits are not supported"
        + " (flags 0x\(String(flags, radix: 16)))"
    case .partialFrame(let count, let bpf):
      "buffer of \(count) bytes is not a whole number of \(bpf)-byte frames"
    case .planeCountMismatch(let n, let expected):
      "\(n) plane(s) given, expected \(expected) (one per channel for planar data, one for interleaved)"
    case .unequalPlanes(let index, let count, let expected):
      "plane \(index) holds \(count) bytes, plane 0 holds \(expected); planes must be the same size"
    case .partialPlane(let count, let bps):
      "plane of \(count) bytes is not a whole number of \(bps)-byte samples"
    }
  }
}

private func fourCC(_ value: UInt32) -> String {
  let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
  if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
    return "'" + String(decoding: bytes, as: UTF8.self) + "'"
  }
  return "0x" + String(value, radix: 16)
}

/// A rate as an error message gives it: whole numbers without a fraction (`44100`), others as
/// Swift prints a `Double` (`44100.5`, `inf`, `nan`).
func hertzText(_ rate: Double) -> String {
  rate == rate.rounded() && abs(rate) < 1e15 ? String(Int(rate)) : "\(rate)"
}
