import Foundation
import PCMMix
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One `wav` vector from `TestVectors/manifest.json`, in a `Sendable` shape for `@Test(arguments:)`.
private struct WAVVector: Sendable, CustomTestStringConvertible {
  var name: String
  var file: String
  var valid: Bool
  // Valid files.
  var sampleRate = 0
  var channels = 0
  var sampleType = ""
  var frames = 0
  var dataOffset = 0
  var blockAlign = 0
  var bitsPerSample = 0
  var dataSizeField = 0
  var truncated = false
  var claimedFrames: Int?
  var strayBytes = 0
  var samplesFile = ""
  // Broken files.
  var error = ""
  var encodingName: String?
  var formatTag: Int?

  init(_ d: JSONObject) {
    name = d["name"]!.string!
    file = d["file"]!.string!
    valid = d["valid"]!.bool!
    sampleRate = d["sampleRate"]?.int ?? 0
    channels = d["channels"]?.int ?? 0
    sampleType = d["sampleType"]?.string ?? ""
    frames = d["frames"]?.int ?? 0
    dataOffset = d["dataOffset"]?.int ?? 0
    blockAlign = d["blockAlign"]?.int ?? 0
    bitsPerSample = d["bitsPerSample"]?.int ?? 0
    dataSizeField = d["dataSizeField"]?.int ?? 0
    truncated = d["truncated"]?.bool ?? false
    claimedFrames = d["claimedFrames"]?.int
    strayBytes = d["strayBytes"]?.int ?? 0
    samplesFile = d["samplesFile"]?.string ?? ""
    error = d["error"]?.string ?? ""
    encodingName = d["encodingName"]?.string
    formatTag = d["formatTag"]?.int
  }

  var testDescription: String { name }

  /// Whether the data size field gives a length (not 0 or 0xFFFFFFFF, "to the end").
  var hasClaimedSize: Bool { dataSizeField != 0 && dataSizeField != 0xFFFF_FFFF }
}

private let wavVectors = Vectors.family("wav").map(WAVVector.init)
private let validVectors = wavVectors.filter(\.valid)
private let brokenVectors = wavVectors.filter { !$0.valid }

/// The case name of `error`, as the manifests spell it.
func caseName(_ error: WAVError) -> String {
  switch error {
  case .notRIFF: "notRIFF"
  case .notWAVE: "notWAVE"
  case .truncatedHeader: "truncatedHeader"
  case .dataBeforeFormat: "dataBeforeFormat"
  case .formatChunkMissing: "formatChunkMissing"
  case .formatChunkTooShort: "formatChunkTooShort"
  case .missingDataChunk: "missingDataChunk"
  case .unsupportedEncoding: "unsupportedEncoding"
  case .unsupportedBitDepth: "unsupportedBitDepth"
  case .zeroChannels: "zeroChannels"
  case .invalidSampleRate: "invalidSampleRate"
  case .blockAlignMismatch: "blockAlignMismatch"
  case .tooManyChannels: "tooManyChannels"
  case .ds64Missing: "ds64Missing"
  case .ds64TooShort: "ds64TooShort"
  case .truncatedCAFHeader: "truncatedCAFHeader"
  case .unsupportedCAFVersion: "unsupportedCAFVersion"
  case .cafDescriptionMissing: "cafDescriptionMissing"
  case .cafDescription: "cafDescription"
  case .unsupportedCAFEncoding: "unsupportedCAFEncoding"
  case .invalidCAFChunkSize: "invalidCAFChunkSize"
  case .cafDataMissing: "cafDataMissing"
  case .io: "io"
  }
}

/// A memory source that hands out 1 … 7 bytes per read and does not know its length, as a pipe.
struct TrickleSource: ByteSource {
  var inner: MemorySource
  var random: SplitMix64

  init(_ bytes: [UInt8], seed: UInt64) {
    inner = MemorySource(bytes)
    random = SplitMix64(seed: seed)
  }

  mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
    let n = min(buffer.count, Int(random.next() % 7) + 1)
    return try inner.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]))
  }
}

/// Decodes every remaining frame through `readFloat`, `chunkFrames` frames per call at most.
func readAllFloat<S: ByteSource>(_ reader: inout AudioFileReader<S>, chunkFrames: Int = 4096) throws
  -> [Float]
{
  let channels = reader.format.channelCount
  var buffer = [Float](repeating: .nan, count: chunkFrames * channels)
  var out: [Float] = []
  while true {
    let n = try buffer.withUnsafeMutableBufferPointer { try reader.readFloat(into: $0) }
    if n == 0 { break }
    out += buffer[0..<n * channels]
  }
  return out
}

/// Reads the rest through `readFloat` in 7-frame calls and checks it bit for bit against
/// `expected`, then the frames, the truncation and the stray bytes the reader reports at the
/// end. Returns the samples read.
@discardableResult
func expectReadsToTheEnd<S: ByteSource>(
  _ reader: inout AudioFileReader<S>, _ expected: [Float], frames: Int, truncated: Bool,
  strayBytes: Int
) throws -> [Float] {
  let samples = try readAllFloat(&reader, chunkFrames: 7)
  #expect(bits(samples) == bits(expected))
  #expect(reader.framesRead == frames)
  #expect(reader.isTruncated == truncated)
  #expect(reader.strayByteCount == strayBytes)
  return samples
}

/// Every remaining raw audio byte through `read(into:)`, `chunkFrames` frames per call at most.
func readAllRaw<S: ByteSource>(_ reader: inout AudioFileReader<S>, chunkFrames: Int) throws
  -> [UInt8]
{
  let frameBytes = reader.format.bytesPerFrame
  var buffer = [UInt8](repeating: 0, count: chunkFrames * frameBytes + frameBytes - 1)
  var out: [UInt8] = []
  while true {
    let n = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
    if n == 0 { break }
    out += buffer[0..<n * frameBytes]
  }
  return out
}

/// Float bit patterns, so -0.0 and 0.0 differ and NaN equals itself.
func bits(_ samples: [Float]) -> [UInt32] { samples.map(\.bitPattern) }

@Suite("AudioFileReader")
struct WAVReaderTests {
  @Test func manifestHasWAVVectors() {
    #expect(validVectors.count >= 30)
    #expect(brokenVectors.count >= 30)
  }

  @Test("valid vector: header fields, frames, truncation, samples", arguments: validVectors)
  fileprivate func readsValidVector(_ v: WAVVector) throws {
    let bytes = try Vectors.bytes(v.file)
    let expected = try Vectors.float32(v.samplesFile)
    var reader = try AudioFileReader(source: MemorySource(bytes))
    #expect(reader.format.sampleRate == v.sampleRate)
    #expect(reader.format.channelCount == v.channels)
    #expect(reader.format.typeSpelling == v.sampleType)
    #expect(reader.format.bytesPerFrame == v.blockAlign)
    #expect(reader.format.sampleType.bitsPerSample == v.bitsPerSample)
    #expect(reader.format.isInterleaved)
    #expect(reader.dataOffset == v.dataOffset)
    #expect(reader.expectedFrames == v.frames)
    #expect(reader.isTruncated == v.truncated)
    if v.hasClaimedSize {
      #expect(reader.claimedFrames == v.dataSizeField / v.blockAlign)
    } else {
      #expect(reader.claimedFrames == nil)
    }
    if let claimed = v.claimedFrames { #expect(reader.claimedFrames == claimed) }
    #expect(reader.strayByteCount == v.strayBytes)
    try expectReadsToTheEnd(
      &reader, expected, frames: v.frames, truncated: v.truncated, strayBytes: v.strayBytes)
  }

  @Test("valid vector through a 1 … 7 byte trickle of unknown length", arguments: validVectors)
  fileprivate func readsValidVectorFromTrickle(_ v: WAVVector) throws {
    let bytes = try Vectors.bytes(v.file)
    let expected = try Vectors.float32(v.samplesFile)
    let dataBytes = Array(bytes[v.dataOffset..<v.dataOffset + v.frames * v.blockAlign])
    for seed: UInt64 in 1...3 {
      var reader = try AudioFileReader(source: TrickleSource(bytes, seed: seed))
      #expect(reader.format.typeSpelling == v.sampleType)
      #expect(reader.dataOffset == v.dataOffset)
      #expect(reader.expectedFrames == (v.hasClaimedSize ? v.dataSizeField / v.blockAlign : nil))
      #expect(try readAllRaw(&reader, chunkFrames: Int(seed)) == dataBytes)
      #expect(reader.framesRead == v.frames)
      #expect(reader.isTruncated == v.truncated)
      #expect(reader.strayByteCount == v.strayBytes)

      var floatReader = try AudioFileReader(source: TrickleSource(bytes, seed: seed &+ 100))
      #expect(bits(try readAllFloat(&floatReader, chunkFrames: 5)) == bits(expected))
      #expect(floatReader.isTruncated == v.truncated)
    }
  }

  @Test("broken vector throws the named error", arguments: brokenVectors)
  fileprivate func rejectsBrokenVector(_ v: WAVVector) throws {
    let bytes = try Vectors.bytes(v.file)
    let sources: [any ByteSource] = [MemorySource(bytes), TrickleSource(bytes, seed: 7)]
    for source in sources {
      let error = #expect(throws: WAVError.self) { try Self.openReader(source) }
      guard let error else { continue }
      #expect(caseName(error) == v.error, "\(error)")
      switch error {
      case .unsupportedEncoding(let tag, let name):
        #expect(name == v.encodingName)
        #expect(Int(tag) == v.formatTag)
        #expect(error.description.contains(name))
      case .unsupportedBitDepth(let bits, _):
        #expect(bits == v.bitsPerSample)
      case .invalidSampleRate(let rate):
        #expect(rate == Double(v.sampleRate))
      default:
        break
      }
    }
  }

  /// Opens a reader over an existential source (opened to its concrete type).
  private static func openReader(_ source: some ByteSource) throws(WAVError) {
    _ = try AudioFileReader(source: source)
  }

  @Test("every prefix of a valid file throws or reads fewer frames", arguments: validVectors)
  fileprivate func everyPrefixIsSafe(_ v: WAVVector) throws {
    let bytes = try Vectors.bytes(v.file)
    let expected = try Vectors.float32(v.samplesFile)
    try expectEveryPrefixReads(
      bytes, expected: expected, lengths: 0...bytes.count, dataOffset: v.dataOffset,
      frames: v.frames, blockAlign: v.blockAlign, channels: v.channels
    ) { length, reader in
      let cut = length < v.dataOffset + v.frames * v.blockAlign
      if cut && (v.hasClaimedSize || (length - v.dataOffset) % v.blockAlign != 0) {
        #expect(reader.isTruncated, "length \(length)")
      }
    }
  }

  @Test("random header damage throws or reads, never traps", arguments: validVectors)
  fileprivate func damagedHeadersAreSafe(_ v: WAVVector) throws {
    let bytes = try Vectors.bytes(v.file)
    var random = SplitMix64(seed: v.name.utf8.reduce(7919) { $0 &* 31 &+ UInt64($1) })
    let extremes: [UInt32] = [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF]
    for round in 0..<300 {
      var damaged = bytes
      let headerEnd = min(bytes.count, v.dataOffset)
      for _ in 0..<(1 + Int(random.next() % 3)) {
        if round % 2 == 0 {
          damaged[Int(random.next() % UInt64(headerEnd))] = UInt8(truncatingIfNeeded: random.next())
        } else {
          let at = Int(random.next() % UInt64(headerEnd / 4)) * 4
          let word = extremes[Int(random.next() % UInt64(extremes.count))]
          for k in 0..<4 where at + k < damaged.count {
            damaged[at + k] = UInt8(truncatingIfNeeded: word >> UInt32(8 * k))
          }
        }
      }
      if round % 5 == 0 { damaged.removeLast(Int(random.next() % UInt64(damaged.count + 1))) }
      guard var reader = try? AudioFileReader(source: MemorySource(damaged)) else { continue }
      let samples = (try? readAllFloat(&reader, chunkFrames: 64)) ?? []
      #expect(samples.count == reader.framesRead * reader.format.channelCount)
      #expect(reader.framesRead * reader.format.bytesPerFrame <= damaged.count)
    }
  }

  @Test("raw reads never cross the claimed data size")
  func rawReadStopsAtClaimedSize() throws {
    let bytes = try Vectors.bytes("wav/trailing_list_after_data.wav")
    var reader = try AudioFileReader(source: MemorySource(bytes))
    let all = try readAllRaw(&reader, chunkFrames: 1000)
    #expect(all.count == 24 * 2)
    #expect(reader.source.position == reader.dataOffset + 48)
    #expect(!reader.isTruncated)
  }

  @Test("a pipe: FileDescriptorSource with unknown length")
  func readsFromPipe() throws {
    let bytes = try Vectors.bytes("wav/chunks_around_fmt.wav")
    let expected = try Vectors.float32("wav/chunks_around_fmt.f32")
    var fds: [Int32] = [-1, -1]
    try #require(pipe(&fds) == 0)
    defer { close(fds[0]) }
    var sink = FileDescriptorSink(fileDescriptor: fds[1])
    try bytes.withUnsafeBytes { try sink.write($0) }
    #expect(try sink.seek(toOffset: 0) == false)
    close(fds[1])
    var reader = try AudioFileReader(source: FileDescriptorSource(fileDescriptor: fds[0]))
    #expect(reader.source.remainingByteCount == nil)
    #expect(reader.expectedFrames == 20)
    #expect(bits(try readAllFloat(&reader)) == bits(expected))
    #expect(!reader.isTruncated)
  }

  @Test("a regular file: FileDescriptorSource knows what remains")
  func readsFromFile() throws {
    let bytes = try Vectors.bytes("wav/truncated_data_partial_tail.wav")
    let expected = try Vectors.float32("wav/truncated_data_partial_tail.f32")
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("pcmmix-wavreader-\(getpid()).wav")
    try Data(bytes).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let fd = open(url.path, O_RDONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    let source = FileDescriptorSource(fileDescriptor: fd)
    #expect(source.remainingByteCount == bytes.count)
    var reader = try AudioFileReader(source: source)
    #expect(reader.source.remainingByteCount == bytes.count - reader.dataOffset)
    #expect(reader.claimedFrames == 64)
    #expect(reader.expectedFrames == 40)
    #expect(reader.isTruncated)
    #expect(bits(try readAllFloat(&reader, chunkFrames: 16)) == bits(expected))
    #expect(reader.framesRead == 40)
  }

  @Test("extensible sub-formats, valid bits and pad bytes")
  func extensibleDetails() throws {
    // A 6-channel extensible s24 file whose valid bits exceed the container must be refused.
    var bytes = try Vectors.bytes("wav/ext_s24_6ch_48000.wav")
    let fmtBody = 12 + 8
    bytes[fmtBody + 18] = 25
    #expect(throws: WAVError.unsupportedBitDepth(bits: 25, formatTag: 1)) {
      try AudioFileReader(source: MemorySource(bytes))
    }
    // Fewer valid bits than the container read as the container.
    bytes[fmtBody + 18] = 20
    var reader = try AudioFileReader(source: MemorySource(bytes))
    #expect(reader.format.typeSpelling == "s24le")
    #expect(try readAllFloat(&reader).count == 12 * 6)
    // A known KSDATAFORMAT sub-type that is not PCM or float is named by its tag.
    bytes[fmtBody + 24] = 7
    #expect(throws: WAVError.unsupportedEncoding(tag: 7, name: "mu-law")) {
      try AudioFileReader(source: MemorySource(bytes))
    }
    // cbSize below 22.
    bytes[fmtBody + 24] = 1
    bytes[fmtBody + 16] = 21
    #expect(throws: WAVError.formatChunkTooShort(40)) {
      try AudioFileReader(source: MemorySource(bytes))
    }
  }

  @Test("channel count above the limit")
  func tooManyChannels() throws {
    var bytes = try Vectors.bytes("wav/pcm_s16_mono_8000.wav")
    bytes[22] = 65
    #expect(throws: WAVError.tooManyChannels(65)) {
      try AudioFileReader(source: MemorySource(bytes))
    }
  }

  @Test("a missing pad byte at the very end counts as a clean end")
  func missingFinalPadByte() throws {
    let fmt: [UInt8] = [1, 0, 1, 0, 0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 16, 0]
    let bytes =
      Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0] + fmt
      + Array("JUNK".utf8) + [3, 0, 0, 0, 1, 2, 3]
    #expect(throws: WAVError.missingDataChunk) { try AudioFileReader(source: MemorySource(bytes)) }
    #expect(throws: WAVError.truncatedHeader) {
      try AudioFileReader(source: MemorySource(Array(bytes.dropLast())))
    }
  }

  @Test("errors print as one lower-case line")
  func errorDescriptions() {
    let all: [WAVError] = [
      .notRIFF, .notWAVE, .truncatedHeader, .dataBeforeFormat,
      .formatChunkMissing, .formatChunkTooShort(14), .missingDataChunk,
      .unsupportedEncoding(tag: 7, name: "mu-law"),
      .unsupportedEncoding(tag: 0x1234, name: "format tag 0x1234"),
      .unsupportedBitDepth(bits: 12, formatTag: 1), .zeroChannels, .invalidSampleRate(0),
      .blockAlignMismatch(2, expected: 4), .tooManyChannels(65), .ds64Missing, .ds64TooShort(20),
      .truncatedCAFHeader, .unsupportedCAFVersion(2), .cafDescriptionMissing,
      .cafDescription("2 frames per packet (linear PCM has 1)"),
      .unsupportedCAFEncoding(formatID: "aac ", name: "AAC"),
      .invalidCAFChunkSize(type: "free", size: -5), .cafDataMissing,
      .io("write: no space left on device"),
    ]
    for error in all {
      let text = error.description
      #expect(!text.isEmpty && !text.contains("\n"))
      #expect(text.first.map { !$0.isUppercase } == true, "\(text)")
    }
    #expect(
      WAVError.unsupportedEncoding(tag: 7, name: "mu-law").description
        == "unsupported encoding mu-law (format tag 0x0007)")
  }
}

/// Reads `bytes` cut at each of `lengths`: a cut inside the header throws, and a cut after it
/// reads exactly the whole frames before the cut, bit for bit against `expected`; `more` checks
/// each reader further.
func expectEveryPrefixReads(
  _ bytes: [UInt8], expected: [Float], lengths: some Sequence<Int>, dataOffset: Int, frames: Int,
  blockAlign: Int, channels: Int,
  more: (Int, AudioFileReader<MemorySource>) -> Void = { _, _ in }
) throws {
  for length in lengths {
    var reader: AudioFileReader<MemorySource>
    do {
      reader = try AudioFileReader(source: MemorySource(Array(bytes[0..<length])))
    } catch {
      #expect(length < dataOffset, "length \(length): \(error)")
      continue
    }
    #expect(length >= dataOffset, "length \(length) parsed")
    let whole = min(frames, (length - dataOffset) / blockAlign)
    let samples = try readAllFloat(&reader, chunkFrames: 3)
    #expect(reader.framesRead == whole, "length \(length)")
    #expect(bits(samples) == bits(Array(expected[0..<whole * channels])))
    more(length, reader)
  }
}
