import PCMMix

/// Builds a ``StreamDescription`` from the first bytes, probes it, and when it probes decodes
/// the rest of the input with ``PCMDecoder``; traps when a property fails.
///
public enum FuzzProbeDecode {
  static let rates: [Double] = [8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 96_000]
  static let bits: [UInt32] = [8, 16, 24, 32, 64]

  public static func run(_ bytes: [UInt8]) {
    var r = FuzzBytes(bytes)
    let mode = r.u8()
    let description: StreamDescription
    if mode & 0x80 != 0 {
      // Every field raw.
      description = StreamDescription(
        sampleRate: Double(bitPattern: r.u64()), formatID: r.u32(), formatFlags: r.u32(),
        bytesPerPacket: r.u32(), framesPerPacket: r.u32(), bytesPerFrame: r.u32(),
        channelsPerFrame: r.u32(), bitsPerChannel: r.u32())
    } else {
      // Near-valid: common values, with the flags and one field free.
      let rate = mode & 0x40 != 0 ? Double(r.u32() % 800_000) : rates[Int(r.u8()) % rates.count]
      let flags = UInt32(r.u8()) | (r.u8() & 0x10 != 0 ? r.u32() : 0)
      let bitsPer = bits[Int(r.u8()) % bits.count]
      let channels = UInt32(r.u8() % 70)
      let planar = flags & 0x20 != 0
      var frameBytes = bitsPer / 8 * (planar ? 1 : channels)
      if mode & 0x20 != 0 { frameBytes = UInt32(r.u8()) }
      description = StreamDescription(
        sampleRate: rate, formatID: mode & 0x10 != 0 ? r.u32() : StreamDescription.linearPCM,
        formatFlags: flags, bytesPerPacket: mode & 0x08 != 0 ? UInt32(r.u8()) : frameBytes,
        framesPerPacket: mode & 0x04 != 0 ? UInt32(r.u8()) : 1, bytesPerFrame: frameBytes,
        channelsPerFrame: channels, bitsPerChannel: bitsPer)
    }
    guard let format = try? FormatProbe.probe(description) else { return }
    // What probes round-trips through its own description.
    precondition((try? FormatProbe.probe(StreamDescription(format))) == format)
    precondition(format.bytesPerFrame > 0)
    let outChannels = 1 + Int(r.u8()) % format.channelCount
    let (first, second) = (Int(r.u16()), Int(r.u16()))
    let rest = r.rest()
    let total = rest.count / format.bytesPerFrame
    let a = first % (total + 1)
    let b = second % (total + 1)
    let frames = min(a, b)..<max(a, b)
    let out = UnsafeMutableBufferPointer<Float>.allocate(
      capacity: max(1, frames.count * outChannels))
    defer { out.deallocate() }
    rest.withUnsafeBytes { raw in
      PCMDecoder.decode(
        raw, format: format, totalFrames: total, frames: frames, outputChannels: outChannels,
        into: out)
    }
    if !format.sampleType.isFloat {
      // s32 near full scale rounds up to exactly 1 in Float32 (see Fuzz/README.md).
      let top: Float = format.sampleType == .s32 ? 1 : 0x1.fffffep-1
      for x in out[..<(frames.count * outChannels)] { precondition(x >= -1 && x <= top) }
    }
  }
}
