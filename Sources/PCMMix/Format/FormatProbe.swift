/// Validates stream descriptions into ``PCMFormat`` values.
public enum FormatProbe {
  /// Reads `description` as linear PCM, or throws a ``ProbeError`` naming the field at fault.
  ///
  /// Accepted: `'lpcm'`, one frame per packet, packed samples (the packed flag may be absent when
  /// the sizes show the samples are packed), u8 (unsigned), s16/s24/s32 (signed), f32/f64, either
  /// byte order, interleaved or planar, 1 … 64 channels at 1 … 768,000 Hz.
  ///
  /// - Complexity: O(1).
  public static func probe(_ description: StreamDescription) throws(ProbeError) -> PCMFormat {
    let d = description
    guard d.formatID == StreamDescription.linearPCM else {
      throw .unsupportedFormatID(d.formatID)
    }
    let rate = d.sampleRate
    guard rate.isFinite, rate >= 1, rate <= Double(PCMFormat.maxSampleRate),
      rate == rate.rounded()
    else { throw .invalidSampleRate(rate) }
    guard d.channelsPerFrame > 0 else { throw .zeroChannels }
    guard d.channelsPerFrame <= UInt32(PCMFormat.maxChannels) else {
      throw .tooManyChannels(Int(d.channelsPerFrame))
    }
    let flags = d.flags
    let bits = d.bitsPerChannel
    let fractionBits = (d.formatFlags & 0x1F80) >> 7
    guard fractionBits == 0 else {
      throw .unsupportedFixedPoint(fractionBits: fractionBits, flags: d.formatFlags)
    }
    let type: SampleType
    if flags.contains(.isFloat) {
      switch bits {
      case 32: type = .f32
      case 64: type = .f64
      default: throw .unsupportedBitDepth(bits, flags: d.formatFlags)
      }
    } else {
      switch bits {
      case 8: type = .u8
      case 16: type = .s16
      case 24: type = .s24
      case 32: type = .s32
      default: throw .unsupportedBitDepth(bits, flags: d.formatFlags)
      }
      let signed = flags.contains(.isSignedInteger)
      if (type == .u8) == signed {
        throw .unsupportedSignedness(bits: bits, flags: d.formatFlags)
      }
    }
    guard d.framesPerPacket == 1 else { throw .unsupportedFramesPerPacket(d.framesPerPacket) }
    let interleaved = !flags.contains(.isNonInterleaved) || d.channelsPerFrame == 1
    let samplesPerFrame = flags.contains(.isNonInterleaved) ? 1 : d.channelsPerFrame
    let expected = UInt32(type.bytesPerSample) * samplesPerFrame
    if d.bytesPerFrame != expected {
      // Wider containers (e.g. 24 bits in 4 bytes, aligned high or low) are a layout we refuse
      // by name rather than misread.
      if d.bytesPerFrame > expected && d.bytesPerFrame % samplesPerFrame == 0 {
        throw .unsupportedUnpackedLayout(
          bits: bits, bytesPerFrame: d.bytesPerFrame, flags: d.formatFlags)
      }
      throw .bytesPerFrameMismatch(d.bytesPerFrame, expected: expected)
    }
    guard d.bytesPerPacket == d.bytesPerFrame else {
      throw .bytesPerPacketMismatch(d.bytesPerPacket, expected: d.bytesPerFrame)
    }
    return PCMFormat(
      sampleRate: Int(rate), channelCount: Int(d.channelsPerFrame), sampleType: type,
      byteOrder: flags.contains(.isBigEndian) ? .big : .little, isInterleaved: interleaved)
  }
}
