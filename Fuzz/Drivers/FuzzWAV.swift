import PCMMix

/// Reads a WAV file from memory to its end, decoded and raw; traps when a property fails.
///
public enum FuzzWAV {
  /// Runs one fuzz input (`bytes`); traps on a broken invariant.
  public static func run(_ bytes: [UInt8]) {
    guard let reader = try? AudioFileReader(source: MemorySource(bytes)) else { return }
    let format = reader.format
    precondition((1...PCMFormat.maxChannels).contains(format.channelCount))
    precondition((1...PCMFormat.maxSampleRate).contains(format.sampleRate))
    precondition(reader.dataOffset >= 12 && reader.dataOffset <= bytes.count)
    // Decoded, in pieces of a size taken from the input.
    var decoded = reader
    let frames = 1 + Int(bytes.count > 40 ? bytes[40] : 0) % 700
    let out = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames * format.channelCount)
    defer { out.deallocate() }
    var total = 0
    while let n = try? decoded.readFloat(into: out), n > 0 {
      precondition(n <= frames)
      total += n
      if !format.sampleType.isFloat {
        // s32 near full scale rounds up to exactly 1 in Float32 (see Fuzz/README.md).
        let top: Float = format.sampleType == .s32 ? 1 : 0x1.fffffep-1
        for x in out[..<(n * format.channelCount)] { precondition(x >= -1 && x <= top) }
      }
    }
    precondition(decoded.framesRead == total)
    if let expected = reader.expectedFrames { precondition(total <= expected) }
    precondition(total * format.bytesPerFrame <= bytes.count - reader.dataOffset)
    // Raw, into a buffer of a few frames: the same frame count.
    var raw = reader
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: format.bytesPerFrame * 3 + 1, alignment: 8)
    defer { buffer.deallocate() }
    var rawTotal = 0
    while let n = try? raw.read(into: buffer), n > 0 { rawTotal += n }
    precondition(rawTotal == total)
  }
}
