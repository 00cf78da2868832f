import Foundation
import PCMMix
import Testing

/// One vector of `TestVectors/containers/manifest.json` (RF64, BW64, RIFX, odd-depth PCM, CAF),
/// made by `generate_containers.py` with libsndfile, sox and struct.
private struct ContainerVector: Sendable, CustomTestStringConvertible {
  var name: String
  var kind: String
  var file: String
  var valid: Bool
  var container = ""
  var sampleType = ""
  var storedSampleType = ""
  var sampleRate = 0
  var channels = 0
  var validBits = 0
  var blockAlign = 0
  var frames = 0
  var dataOffset = 0
  var claimedFrames: Int?
  var truncated = false
  var strayBytes = 0
  var samplesFile = ""
  var error = ""
  var message = ""

  init(_ d: JSONObject) {
    name = d["name"]!.string!
    kind = d["kind"]!.string!
    file = d["file"]!.string!
    valid = d["valid"]!.bool!
    container = d["container"]?.string ?? ""
    sampleType = d["sampleType"]?.string ?? ""
    storedSampleType = d["storedSampleType"]?.string ?? ""
    sampleRate = d["sampleRate"]?.int ?? 0
    channels = d["channels"]?.int ?? 0
    validBits = d["validBits"]?.int ?? 0
    blockAlign = d["blockAlign"]?.int ?? 0
    frames = d["frames"]?.int ?? 0
    dataOffset = d["dataOffset"]?.int ?? 0
    claimedFrames = d["claimedFrames"]?.int
    truncated = d["truncated"]?.bool ?? false
    strayBytes = d["strayBytes"]?.int ?? 0
    samplesFile = d["samplesFile"]?.string ?? ""
    error = d["error"]?.string ?? ""
    message = d["message"]?.string ?? ""
  }

  var testDescription: String { name }
}

private let containerVectors: [ContainerVector] = {
  let url = Vectors.root.appendingPathComponent("containers/manifest.json")
  guard let manifest = try? JSONObject.load(url) else { fatalError("cannot read \(url.path)") }
  return (manifest["vectors"]!.objects!).map(ContainerVector.init)
}()
private let validContainers = containerVectors.filter(\.valid)
private let brokenContainers = containerVectors.filter { !$0.valid }

@Suite("Container vectors: RF64, BW64, RIFX, odd-depth PCM, CAF")
struct ContainerVectorTests {
  @Test("every kind has valid and broken vectors, every container is covered")
  func coverage() {
    for kind in ["rf64", "rifx", "oddpcm", "caf"] {
      #expect(validContainers.filter { $0.kind == kind }.count >= 10, "\(kind)")
      #expect(brokenContainers.contains { $0.kind == kind }, "\(kind)")
    }
    let containers = Set(validContainers.map(\.container))
    #expect(containers == ["WAV", "RIFX", "RF64", "BW64", "CAF"])
    // Every sample type each container holds, in each byte order it allows.
    let types = { (c: String) in
      Set(validContainers.filter { $0.container == c }.map(\.storedSampleType))
    }
    #expect(types("RF64") == ["u8", "s16le", "s24le", "s32le", "f32le", "f64le"])
    #expect(types("BW64") == ["u8", "s16le", "s24le", "s32le", "f32le", "f64le"])
    #expect(types("RIFX") == ["u8", "s16be", "s24be", "s32be", "f32be", "f64be"])
    #expect(
      types("CAF") == [
        "s8", "s16le", "s16be", "s24le", "s24be", "s32le", "s32be", "f32le", "f32be", "f64le",
        "f64be",
      ])
  }

  @Test(
    "valid vector: header, frames, samples bit for bit as libsndfile", arguments: validContainers)
  fileprivate func readsValid(_ v: ContainerVector) throws {
    let bytes = try Vectors.bytes(v.file)
    let expected = try Vectors.float32(v.samplesFile)
    var reader = try AudioFileReader(source: MemorySource(bytes))
    #expect(reader.container.rawValue == v.container)
    #expect(reader.format.typeSpelling == v.sampleType)
    #expect(reader.fileSampleType == v.storedSampleType)
    #expect(reader.format.sampleRate == v.sampleRate)
    #expect(reader.format.channelCount == v.channels)
    #expect(reader.format.bytesPerFrame == v.blockAlign)
    #expect(reader.validBitsPerSample == v.validBits)
    #expect(reader.dataOffset == v.dataOffset)
    #expect(reader.claimedFrames == v.claimedFrames)
    #expect(reader.expectedFrames == v.frames)
    #expect(reader.isTruncated == v.truncated)
    let samples = try expectReadsToTheEnd(
      &reader, expected, frames: v.frames, truncated: v.truncated, strayBytes: v.strayBytes)
    #expect(samples.count == v.frames * v.channels)
  }

  @Test("valid vector through a 1 … 7 byte trickle of unknown length", arguments: validContainers)
  fileprivate func readsValidFromTrickle(_ v: ContainerVector) throws {
    let bytes = try Vectors.bytes(v.file)
    let expected = try Vectors.float32(v.samplesFile)
    for seed: UInt64 in 1...2 {
      var reader = try AudioFileReader(source: TrickleSource(bytes, seed: seed))
      #expect(reader.dataOffset == v.dataOffset)
      #expect(reader.expectedFrames == v.claimedFrames)
      #expect(bits(try readAllFloat(&reader, chunkFrames: Int(seed) * 3)) == bits(expected))
      #expect(reader.isTruncated == v.truncated)
      #expect(reader.strayByteCount == v.strayBytes)
      // Raw reads hand out the data bytes (CAF's s8 with the top bit flipped, as u8).
      var raw = try AudioFileReader(source: TrickleSource(bytes, seed: seed &+ 50))
      var data = Array(bytes[v.dataOffset..<v.dataOffset + v.frames * v.blockAlign])
      if v.storedSampleType == "s8" { data = data.map { $0 ^ 0x80 } }
      #expect(try readAllRaw(&raw, chunkFrames: 5) == data)
    }
  }

  @Test("broken vector throws the named error", arguments: brokenContainers)
  fileprivate func rejectsBroken(_ v: ContainerVector) throws {
    let bytes = try Vectors.bytes(v.file)
    for seed: UInt64? in [nil, 3] {
      let error = #expect(throws: WAVError.self) {
        if let seed {
          _ = try AudioFileReader(source: TrickleSource(bytes, seed: seed))
        } else {
          _ = try AudioFileReader(source: MemorySource(bytes))
        }
      }
      guard let error else { continue }
      #expect(caseName(error) == v.error, "\(error)")
      #expect(error.description.contains(v.message), "\(error.description)")
    }
  }

  @Test(
    "every prefix of a valid file throws or reads a prefix of its samples",
    arguments: validContainers.filter { ["rf64", "rifx", "caf"].contains($0.kind) })
  fileprivate func everyPrefixIsSafe(_ v: ContainerVector) throws {
    let bytes = try Vectors.bytes(v.file)
    let expected = try Vectors.float32(v.samplesFile)
    // CAF files from libsndfile carry a 4 KiB free chunk: cut the header a byte at a time, the
    // audio a frame at a time.
    var lengths = Array(0...min(bytes.count, v.dataOffset + v.blockAlign))
    lengths += stride(from: v.dataOffset + v.blockAlign, through: bytes.count, by: v.blockAlign)
    try expectEveryPrefixReads(
      bytes, expected: expected, lengths: lengths, dataOffset: v.dataOffset, frames: v.frames,
      blockAlign: v.blockAlign, channels: v.channels)
  }
}
