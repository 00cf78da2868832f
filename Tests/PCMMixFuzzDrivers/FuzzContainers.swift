import PCMMix

/// Reads an audio file of any container the reader knows (WAV, RF64, BW64, RIFX, CAF) from memory
/// and again through a source that hands out a few bytes at a time and does not know its length,
/// as a pipe does; traps when a property fails.
///
/// Properties: both throw the same error or read the same header, the same raw bytes and the same
/// decoded samples; decoded integer samples stay in [-1, 1]; no more frames than the header
/// expects or the bytes hold; after reading to the end both agree on truncation and stray bytes.
public enum FuzzContainers {
  public static func run(_ bytes: [UInt8]) {
    // The same checks as the WAV target, on whatever container this is.
    FuzzWAV.run(bytes)
    let memory: AudioFileReader<MemorySource>
    let trickle: AudioFileReader<_TrickleSource>
    do {
      memory = try AudioFileReader(source: MemorySource(bytes))
    } catch {
      do {
        _ = try AudioFileReader(source: _TrickleSource(bytes))
        preconditionFailure("memory threw \(error), the trickle read a header")
      } catch let other {
        precondition(other == error, "memory threw \(error), the trickle \(other)")
      }
      return
    }
    do {
      trickle = try AudioFileReader(source: _TrickleSource(bytes))
    } catch {
      preconditionFailure("the trickle threw \(error), memory read a header")
    }
    precondition(memory.container == trickle.container)
    precondition(memory.format == trickle.format)
    precondition(memory.validBitsPerSample == trickle.validBitsPerSample)
    precondition(memory.validBitsPerSample <= memory.format.sampleType.bitsPerSample)
    precondition(memory.dataOffset == trickle.dataOffset)
    precondition(memory.claimedByteCount == trickle.claimedByteCount)
    precondition(memory.claimedFrames == trickle.claimedFrames)
    let a = readAll(memory)
    let b = readAll(trickle)
    precondition(a.bytes == b.bytes, "raw bytes differ")
    precondition(a.isTruncated == b.isTruncated, "truncation differs")
    precondition(a.stray == b.stray, "stray bytes differ")
    precondition(a.stray < memory.format.bytesPerFrame)
    if let expected = memory.expectedFrames {
      precondition(a.bytes.count == expected * memory.format.bytesPerFrame)
    }
  }

  /// Every raw byte a reader hands out, in pieces of up to 5 frames, and what it says at the end.
  private static func readAll<S: ByteSource>(_ reader: AudioFileReader<S>)
    -> (bytes: [UInt8], isTruncated: Bool, stray: Int)
  {
    var reader = reader
    let frameBytes = reader.format.bytesPerFrame
    var buffer = [UInt8](repeating: 0, count: 5 * frameBytes)
    var out: [UInt8] = []
    while true {
      let n = buffer.withUnsafeMutableBytes { (try? reader.read(into: $0)) ?? 0 }
      if n == 0 { break }
      out += buffer[0..<(n * frameBytes)]
    }
    return (out, reader.isTruncated, reader.strayByteCount)
  }
}

/// Hands out 1 … 7 bytes per read (a fixed pattern) and does not know its length.
struct _TrickleSource: ByteSource {
  var inner: MemorySource
  var step = 0

  init(_ bytes: [UInt8]) { inner = MemorySource(bytes) }

  mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
    step += 1
    let n = min(buffer.count, 1 + (step * 5) % 7)
    return try inner.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]))
  }
}
