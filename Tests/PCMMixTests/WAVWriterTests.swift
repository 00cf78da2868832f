import Foundation
import Testing

@testable import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A sink that accepts `capacity` bytes, then fails as a full disk would.
private struct FailingSink: ByteSink {
  var capacity: Int
  var written = 0

  mutating func write(_ bytes: UnsafeRawBufferPointer) throws(WAVError) {
    guard written + bytes.count <= capacity else { throw .io("test sink is full") }
    written += bytes.count
  }

  mutating func seek(toOffset offset: Int) throws(WAVError) -> Bool { false }
}

/// A seekable sink that keeps only the first 128 bytes, so a test can pretend to write 4 GiB.
private struct HeaderSink: ByteSink {
  var header = [UInt8](repeating: 0, count: 128)
  var position = 0

  mutating func write(_ bytes: UnsafeRawBufferPointer) throws(WAVError) {
    for (i, byte) in bytes.enumerated() where position + i < header.count {
      header[position + i] = byte
    }
    position += bytes.count
  }

  mutating func seek(toOffset offset: Int) throws(WAVError) -> Bool {
    position = offset
    return true
  }
}

/// `frames` frames of random int16 values as floats (k / 32768), extremes first.
private func s16Samples(frames: Int, channels: Int, seed: UInt64) -> [Float] {
  var random = SplitMix64(seed: seed)
  var values: [Int16] = [.min, .max, 0, -1, 1]
  while values.count < frames * channels {
    values.append(Int16(truncatingIfNeeded: random.next()))
  }
  return values.prefix(frames * channels).map { Float($0) / 32768 }
}

/// `frames` frames of random float bit patterns (NaNs, infinities and subnormals included).
private func f32Samples(frames: Int, channels: Int, seed: UInt64) -> [Float] {
  var random = SplitMix64(seed: seed)
  var values: [Float] = [-0.0, 0, 1, -1, .infinity, -.infinity, .nan, .leastNonzeroMagnitude]
  while values.count < frames * channels {
    values.append(Float(bitPattern: UInt32(truncatingIfNeeded: random.next())))
  }
  return Array(values.prefix(frames * channels))
}

/// Writes `samples` in pieces of 0 … 40 frames.
private func writeInPieces<S: ByteSink>(
  _ writer: inout WAVWriter<S>, _ samples: [Float], seed: UInt64
) throws {
  let channels = writer.format.channelCount
  var random = SplitMix64(seed: seed)
  var start = 0
  while start < samples.count {
    let end = min(samples.count, start + Int(random.next() % 41) * channels)
    try samples[start..<end].withUnsafeBufferPointer { try writer.write($0) }
    start = end
  }
}

/// The little-endian integer of `width` bytes at `offset`.
private func le(_ bytes: [UInt8], _ offset: Int, _ width: Int = 4) -> Int {
  (0..<width).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
}

@Suite("WAVWriter")
struct WAVWriterTests {
  @Test(
    "round trip through MemorySink and WAVReader", arguments: [1, 2, 6], [SampleType.s16, .f32])
  func roundTrip(channels: Int, type: SampleType) throws {
    let frames = 1000
    let samples =
      type == .s16
      ? s16Samples(frames: frames, channels: channels, seed: UInt64(channels))
      : f32Samples(frames: frames, channels: channels, seed: UInt64(channels))
    var writer = try WAVWriter(
      sink: MemorySink(), sampleRate: 44_100, channelCount: channels, sampleType: type)
    try writeInPieces(&writer, samples, seed: 9)
    #expect(writer.framesWritten == frames)
    #expect(try writer.finish())
    let bytes = writer.sink.bytes

    // The header: plain PCM/float for 1–2 channels, extensible above.
    let extensible = channels > 2
    let fmtSize = extensible ? 40 : (type == .f32 ? 18 : 16)
    let dataOffset = 12 + 8 + fmtSize + 8
    let bytesPerFrame = channels * type.bytesPerSample
    let tag = type == .f32 ? 3 : 1
    #expect(writer.dataOffset == dataOffset)
    #expect(bytes.count == dataOffset + frames * bytesPerFrame)
    #expect(Array(bytes[0..<4]) == Array("RIFF".utf8))
    #expect(le(bytes, 4) == bytes.count - 8)
    #expect(Array(bytes[8..<16]) == Array("WAVEfmt ".utf8))
    #expect(le(bytes, 16) == fmtSize)
    #expect(le(bytes, 20, 2) == (extensible ? 0xFFFE : tag))
    #expect(le(bytes, 22, 2) == channels)
    #expect(le(bytes, 24) == 44_100)
    #expect(le(bytes, 28) == 44_100 * bytesPerFrame)
    #expect(le(bytes, 32, 2) == bytesPerFrame)
    #expect(le(bytes, 34, 2) == type.bitsPerSample)
    if extensible {
      #expect(le(bytes, 36, 2) == 22)
      #expect(le(bytes, 38, 2) == type.bitsPerSample)
      #expect(le(bytes, 40) == 0x3F)
      let guid: [UInt8] = [
        UInt8(tag), 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38,
        0x9B, 0x71,
      ]
      #expect(Array(bytes[44..<60]) == guid)
    } else if type == .f32 {
      #expect(le(bytes, 36, 2) == 0)
    }
    #expect(Array(bytes[dataOffset - 8..<dataOffset - 4]) == Array("data".utf8))
    #expect(le(bytes, dataOffset - 4) == frames * bytesPerFrame)

    var reader = try WAVReader(source: MemorySource(bytes))
    #expect(reader.format.typeSpelling == (type == .s16 ? "s16le" : "f32le"))
    #expect(reader.format.channelCount == channels)
    #expect(reader.format.sampleRate == 44_100)
    #expect(reader.dataOffset == dataOffset)
    #expect(reader.claimedFrames == frames)
    #expect(reader.expectedFrames == frames)
    #expect(bits(try readAllFloat(&reader, chunkFrames: 77)) == bits(samples))
    #expect(!reader.isTruncated)
  }

  @Test("int16 encoding rounds ties toward zero and clamps, as PCMEncoder does")
  func s16Encoding() throws {
    let samples: [Float] = [1.5, -1.5, 2.5 / 32768, -2.5 / 32768, 2.6 / 32768, 0.99999]
    var writer = try WAVWriter(
      sink: MemorySink(), sampleRate: 8000, channelCount: 1, sampleType: .s16)
    try samples.withUnsafeBufferPointer { try writer.write($0) }
    try writer.finish()
    let data = writer.sink.bytes[44...]
    let values = stride(from: data.startIndex, to: data.endIndex, by: 2).map {
      Int16(truncatingIfNeeded: le(writer.sink.bytes, $0, 2))
    }
    #expect(values == samples.map(PCMEncoder.int16))
    #expect(values == [32767, -32768, 2, -2, 3, 32767])
  }

  @Test("more than one scratch of samples in one call")
  func largeWrite() throws {
    let samples = s16Samples(frames: 40_000, channels: 2, seed: 3)
    var writer = try WAVWriter(
      sink: MemorySink(), sampleRate: 48_000, channelCount: 2, sampleType: .s16)
    try samples.withUnsafeBufferPointer { try writer.write($0) }
    #expect(writer.framesWritten == 40_000)
    try writer.finish()
    var reader = try WAVReader(source: MemorySource(writer.sink.bytes))
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
  }

  @Test("an unseekable sink keeps 0xFFFFFFFF sizes and still reads back whole")
  func unseekableSink() throws {
    let samples = f32Samples(frames: 300, channels: 2, seed: 5)
    var writer = try WAVWriter(
      sink: MemorySink(isSeekable: false), sampleRate: 96_000, channelCount: 2,
      sampleType: .f32)
    try writeInPieces(&writer, samples, seed: 4)
    #expect(try writer.finish() == false)
    let bytes = writer.sink.bytes
    #expect(le(bytes, 4) == 0xFFFF_FFFF)
    #expect(le(bytes, writer.dataOffset - 4) == 0xFFFF_FFFF)
    var reader = try WAVReader(source: MemorySource(bytes))
    #expect(reader.claimedFrames == nil)
    #expect(reader.expectedFrames == 300)
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
    #expect(reader.framesRead == 300)
    #expect(!reader.isTruncated)
  }

  @Test("frames after finish() are kept, and a second finish() covers them")
  func writeAfterFinish() throws {
    let samples = s16Samples(frames: 200, channels: 1, seed: 6)
    var writer = try WAVWriter(
      sink: MemorySink(), sampleRate: 16_000, channelCount: 1, sampleType: .s16)
    try samples[0..<120].withUnsafeBufferPointer { try writer.write($0) }
    try writer.finish()
    try samples[120...].withUnsafeBufferPointer { try writer.write($0) }
    try writer.finish()
    var reader = try WAVReader(source: MemorySource(writer.sink.bytes))
    #expect(reader.claimedFrames == 200)
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
  }

  @Test("over 4 GiB the sizes clamp to the streaming marker")
  func sizesAbove4GiB() throws {
    var writer = try WAVWriter(
      sink: HeaderSink(), sampleRate: 48_000, channelCount: 2, sampleType: .f32)
    writer.dataByteCount = Int(UInt32.max) - 36  // RIFF size 2³² + 1
    #expect(try writer.finish() == false)
    #expect(le(writer.sink.header, 4) == 0xFFFF_FFFF)
    #expect(le(writer.sink.header, writer.dataOffset - 4) == 0xFFFF_FFFF)
    #expect(writer.sink.position == writer.dataOffset + writer.dataByteCount)
    writer.dataByteCount = Int(UInt32.max) - 48
    #expect(try writer.finish() == true)
    #expect(le(writer.sink.header, 4) == Int(UInt32.max) - 10)
    #expect(le(writer.sink.header, writer.dataOffset - 4) == Int(UInt32.max) - 48)
  }

  @Test("a regular file through FileDescriptorSink, starting part-way into the file")
  func fileSink() throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("pcmmix-wavwriter-\(getpid()).wav")
    defer { try? FileManager.default.removeItem(at: url) }
    let fd = open(url.path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    defer { close(fd) }
    let prefix = Array("PREFIX!!".utf8)
    #expect(prefix.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == 8)
    let samples = s16Samples(frames: 500, channels: 2, seed: 8)
    var writer = try WAVWriter(
      sink: FileDescriptorSink(fileDescriptor: fd), sampleRate: 22_050, channelCount: 2,
      sampleType: .s16)
    try writeInPieces(&writer, samples, seed: 2)
    #expect(try writer.finish())
    let bytes = [UInt8](try Data(contentsOf: url))
    #expect(Array(bytes[0..<8]) == prefix)
    #expect(lseek(fd, 0, SEEK_CUR) == bytes.count)
    var reader = try WAVReader(source: MemorySource(Array(bytes[8...])))
    #expect(reader.claimedFrames == 500)
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
  }

  @Test("a pipe through FileDescriptorSink cannot seek, and reads back to the end")
  func pipeSink() throws {
    var fds: [Int32] = [-1, -1]
    try #require(pipe(&fds) == 0)
    defer { close(fds[0]) }
    let samples = s16Samples(frames: 100, channels: 1, seed: 11)
    var writer = try WAVWriter(
      sink: FileDescriptorSink(fileDescriptor: fds[1]), sampleRate: 8000, channelCount: 1,
      sampleType: .s16)
    try samples.withUnsafeBufferPointer { try writer.write($0) }
    #expect(try writer.finish() == false)
    close(fds[1])
    var reader = try WAVReader(source: FileDescriptorSource(fileDescriptor: fds[0]))
    #expect(reader.claimedFrames == nil)
    #expect(reader.expectedFrames == nil)
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
    #expect(!reader.isTruncated)
  }

  @Test("/dev/full: ENOSPC becomes WAVError.io")
  func deviceFull() throws {
    let fd = open("/dev/full", O_WRONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    let error = #expect(throws: WAVError.self) {
      _ = try WAVWriter(
        sink: FileDescriptorSink(fileDescriptor: fd), sampleRate: 48_000, channelCount: 2,
        sampleType: .s16)
    }
    guard case .io(let message)? = error else {
      Issue.record("expected .io, got \(String(describing: error))")
      return
    }
    #expect(message.contains("no space left on device"), "\(message)")
    #expect(error?.description.hasPrefix("i/o error: write: ") == true)
  }

  @Test("a sink failing part-way: write throws .io, framesWritten counts what was accepted")
  func failingSink() throws {
    var writer = try WAVWriter(
      sink: FailingSink(capacity: 44 + 32_768), sampleRate: 48_000, channelCount: 2,
      sampleType: .s16)
    let samples = s16Samples(frames: 10_000, channels: 2, seed: 12)
    #expect(throws: WAVError.io("test sink is full")) {
      try samples.withUnsafeBufferPointer { try writer.write($0) }
    }
    #expect(writer.framesWritten == 32_768 / 4)
  }

  @Test("formats the writer refuses")
  func invalidFormats() {
    func make(_ rate: Int, _ channels: Int) throws(WAVError) {
      _ = try WAVWriter(
        sink: MemorySink(), sampleRate: rate, channelCount: channels, sampleType: .f32)
    }
    #expect(throws: WAVError.invalidSampleRate(0)) { try make(0, 2) }
    #expect(throws: WAVError.invalidSampleRate(768_001)) { try make(768_001, 2) }
    #expect(throws: WAVError.zeroChannels) { try make(48_000, 0) }
    #expect(throws: WAVError.tooManyChannels(65)) { try make(48_000, 65) }
    #expect(throws: Never.self) { try make(768_000, 64) }
  }

  @Test("64 channels: extensible with the 18 standard speakers in the mask")
  func manyChannels() throws {
    var writer = try WAVWriter(
      sink: MemorySink(), sampleRate: 48_000, channelCount: 64, sampleType: .f32)
    let samples = f32Samples(frames: 10, channels: 64, seed: 13)
    try samples.withUnsafeBufferPointer { try writer.write($0) }
    try writer.finish()
    #expect(le(writer.sink.bytes, 40) == 0x3FFFF)
    var reader = try WAVReader(source: MemorySource(writer.sink.bytes))
    #expect(reader.format.channelCount == 64)
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
  }
}

/// The RF64 reservation: a `JUNK` chunk first, turned into `ds64` by `finish()` only when the
/// sizes do not fit 32 bits (the tests lower that limit to stand in for 4 GiB).
@Suite("WAVWriter RF64")
struct WAVWriterRF64Tests {
  /// An s16 stereo writer on a memory sink, reserving RF64.
  private func reservingWriter(_ sink: MemorySink = MemorySink()) throws -> WAVWriter<MemorySink> {
    try WAVWriter(
      sink: sink, sampleRate: 48_000, channelCount: 2, sampleType: .s16, reservingRF64: true)
  }

  @Test("below the limit: a plain RIFF file with a JUNK chunk first, the same audio bytes")
  func reservedButSmall() throws {
    let samples = s16Samples(frames: 700, channels: 2, seed: 21)
    var plain = try WAVWriter(
      sink: MemorySink(), sampleRate: 48_000, channelCount: 2, sampleType: .s16)
    try samples.withUnsafeBufferPointer { try plain.write($0) }
    #expect(try plain.finish())
    #expect(!plain.reservesRF64 && plain.dataOffset == 44)

    var writer = try reservingWriter()
    try writeInPieces(&writer, samples, seed: 22)
    #expect(try writer.finish())
    #expect(writer.reservesRF64 && !writer.isRF64)
    let bytes = writer.sink.bytes
    #expect(writer.dataOffset == 44 + 36)
    #expect(Array(bytes[0..<4]) == Array("RIFF".utf8))
    #expect(le(bytes, 4) == bytes.count - 8)
    #expect(Array(bytes[8..<16]) == Array("WAVEJUNK".utf8))
    #expect(le(bytes, 16) == 28)
    #expect(bytes[20..<48].allSatisfy { $0 == 0 })
    // After the JUNK chunk, the plain file's fmt and data chunks byte for byte.
    #expect(Array(bytes[48...]) == Array(plain.sink.bytes[12...]))
    var reader = try AudioFileReader(source: MemorySource(bytes))
    #expect(reader.container == .wav)
    #expect(reader.claimedFrames == 700)
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
  }

  @Test(
    "past the limit: RF64 with a ds64 chunk, read back whole", arguments: [SampleType.s16, .f32])
  func promoted(type: SampleType) throws {
    let frames = 1_000
    let samples =
      type == .s16
      ? s16Samples(frames: frames, channels: 2, seed: 23)
      : f32Samples(frames: frames, channels: 2, seed: 23)
    var writer = try WAVWriter(
      sink: MemorySink(), sampleRate: 44_100, channelCount: 2, sampleType: type,
      reservingRF64: true)
    writer.largestRIFFSize = 2_000
    try writeInPieces(&writer, samples, seed: 24)
    #expect(try writer.finish())
    #expect(writer.isRF64)
    let bytes = writer.sink.bytes
    let dataBytes = frames * 2 * type.bytesPerSample
    #expect(bytes.count == writer.dataOffset + dataBytes)
    #expect(Array(bytes[0..<4]) == Array("RF64".utf8))
    #expect(le(bytes, 4) == 0xFFFF_FFFF)
    #expect(Array(bytes[8..<16]) == Array("WAVEds64".utf8))
    #expect(le(bytes, 16) == 28)
    #expect(le(bytes, 20, 8) == bytes.count - 8)
    #expect(le(bytes, 28, 8) == dataBytes)
    #expect(le(bytes, 36, 8) == frames)
    #expect(le(bytes, 44) == 0)
    #expect(le(bytes, writer.dataOffset - 4) == 0xFFFF_FFFF)
    var reader = try AudioFileReader(source: MemorySource(bytes))
    #expect(reader.container == .rf64)
    #expect(reader.claimedFrames == frames)
    #expect(reader.expectedFrames == frames)
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
    #expect(!reader.isTruncated)
    // Through a pipe-like trickle, too: the sizes come from the ds64 chunk.
    var trickle = try AudioFileReader(source: TrickleSource(bytes, seed: 5))
    #expect(trickle.claimedFrames == frames)
    #expect(bits(try readAllFloat(&trickle)) == bits(samples))
  }

  @Test("a finish() below the limit, more frames, a finish() past it: RIFF, then RF64")
  func growsIntoRF64() throws {
    let samples = s16Samples(frames: 600, channels: 2, seed: 25)
    var writer = try reservingWriter()
    writer.largestRIFFSize = 1_500
    try samples[0..<400].withUnsafeBufferPointer { try writer.write($0) }
    #expect(try writer.finish())
    #expect(!writer.isRF64)
    #expect(try AudioFileReader(source: MemorySource(writer.sink.bytes)).claimedFrames == 200)
    try samples[400...].withUnsafeBufferPointer { try writer.write($0) }
    #expect(try writer.finish())
    #expect(writer.isRF64)
    var reader = try AudioFileReader(source: MemorySource(writer.sink.bytes))
    #expect(reader.container == .rf64 && reader.claimedFrames == 600)
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
  }

  @Test("4 GiB of f32 stereo at the real limit: RF64 sizes in 64 bits")
  func realLimit() throws {
    var writer = try WAVWriter(
      sink: HeaderSink(), sampleRate: 48_000, channelCount: 2, sampleType: .f32,
      reservingRF64: true)
    #expect(writer.reservesRF64 && writer.dataOffset == 46 + 36)
    // The issue's case: 4.34 GB, 542,500,000 frames; libsndfile stopped at 536,870,911.
    let frames = 542_500_000
    writer.dataByteCount = frames * 8
    #expect(try writer.finish())
    let header = writer.sink.header
    #expect(Array(header[0..<4]) == Array("RF64".utf8))
    #expect(le(header, 28, 8) == frames * 8)
    #expect(le(header, 36, 8) == frames)
    #expect(le(header, 20, 8) == writer.dataOffset - 8 + frames * 8)
    #expect(writer.sink.position == writer.dataOffset + frames * 8)
    // One byte less than the RIFF limit stays RIFF.
    writer.dataByteCount = Int(UInt32.max) - 1 - (writer.dataOffset - 8)
    #expect(try writer.finish())
    #expect(Array(writer.sink.header[0..<4]) == Array("RIFF".utf8))
    #expect(le(writer.sink.header, 4) == Int(UInt32.max) - 1)
  }

  @Test("an unseekable sink gets no JUNK chunk and keeps the streaming marker")
  func unseekable() throws {
    let samples = s16Samples(frames: 50, channels: 2, seed: 26)
    var writer = try reservingWriter(MemorySink(isSeekable: false))
    #expect(!writer.reservesRF64 && writer.dataOffset == 44)
    try samples.withUnsafeBufferPointer { try writer.write($0) }
    #expect(try writer.finish() == false)
    #expect(le(writer.sink.bytes, 4) == 0xFFFF_FFFF)
    var reader = try AudioFileReader(source: MemorySource(writer.sink.bytes))
    #expect(bits(try readAllFloat(&reader)) == bits(samples))
  }
}
