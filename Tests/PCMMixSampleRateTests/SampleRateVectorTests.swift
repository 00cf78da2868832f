import Foundation
import PCMMix
import Testing

@testable import PCMMixSampleRate

/// The backend against Python's `samplerate` package, which bundles its own libsamplerate
/// build: the same input and the same `src_process` calls must give the same float32 output
/// (`TestVectors/generate_libsamplerate.py` documents the calls).
@Suite struct SampleRateVectorTests {
  /// What the manifest says about exactness, and whether this run's library is the one
  /// the measurement was made with.
  static let expectExact: Bool = {
    let versions = SampleRateVectors.manifest["versions"]!.object!
    let exactness = SampleRateVectors.manifest["exactness"]!.object!
    let measuredExact = (exactness["tolerance"]?.double) == 0
    let sameLibrary =
      versions["bundledSrcGetVersion"]?.string
      == SampleRateResampler.libraryVersion
    return measuredExact && sameLibrary
  }()

  /// Fallback tolerance for another libsamplerate build (not measured; see the manifest).
  static let fallbackTolerance: Float = 1e-5

  static func converter(_ v: JSONObject) -> SampleRateResampler.Converter {
    SampleRateResampler.Converter(rawValue: v["converter"]!.string!)!
  }

  @Test func libraryVersionIsRecorded() {
    let versions = SampleRateVectors.manifest["versions"]!.object!
    print(
      "linked \(SampleRateResampler.libraryVersion); Python's samplerate bundles "
        + "\(versions["bundledSrcGetVersion"]!.string!)")
    print(
      Self.expectExact
        ? "comparing bit for bit" : "other build: tolerance \(Self.fallbackTolerance)")
    #expect(SampleRateResampler.libraryVersion.hasPrefix("libsamplerate-"))
  }

  /// Repeats every recorded call through the raw `src_process` path.
  @Test(arguments: SampleRateVectors.names)
  func sameCallsGiveTheSameOutput(name: String) throws {
    let v = SampleRateVectors.vector(name)
    let channels = v["channels"]!.int!
    let rate = v["inputRate"]!.int!
    let x = try SampleRateVectors.float32(v["inputFile"]!.string!)
    let expected = try SampleRateVectors.float32(v["outputFile"]!.string!)
    var r = SampleRateResampler(
      converter: Self.converter(v), inputRate: rate, outputRate: 48_000, channelCount: channels)
    #expect(r.silenceFrames == v["flushSilenceFrames"]!.int!)
    let silence = [Float](repeating: 0, count: r.silenceFrames * channels)
    var out: [Float] = []
    for (i, call) in (v["calls"]!.intRows!).enumerated() {
      let (start, frames, capacity, end, used, generated) =
        (call[0], call[1], call[2], call[3], call[4], call[5])
      let input = start < 0 ? silence : Array(x[(start * channels)..<((start + frames) * channels)])
      var buffer = [Float](repeating: .nan, count: capacity * channels)
      let step = input.withUnsafeBufferPointer { inp in
        buffer.withUnsafeMutableBufferPointer { o in
          r._rawProcess(inp, into: o, endOfInput: end != 0)
        }
      }
      #expect(step.used == used, "call \(i): frames used")
      #expect(step.generated == generated, "call \(i): frames generated")
      out += buffer[..<(step.generated * channels)]
    }
    try #require(out.count == expected.count)
    let difference = maxAbsDifference(out, expected)
    print("\(name): \(out.count / channels) frames, largest difference \(difference)")
    if Self.expectExact {
      #expect(out.map(\.bitPattern) == expected.map(\.bitPattern), "not bit-identical")
    } else {
      #expect(difference <= Self.fallbackTolerance)
    }
  }

  /// The wrapper's own calls (whole blocks, its flush) give the same frames, time-aligned
  /// and cut to the contract's length.
  @Test(arguments: SampleRateVectors.names)
  func wrapperGivesTheSameFrames(name: String) throws {
    let v = SampleRateVectors.vector(name)
    let channels = v["channels"]!.int!
    let rate = v["inputRate"]!.int!
    let block = v["blockFrames"]!.int!
    let rounded = v["roundedOutputFrames"]!.int!
    let x = try SampleRateVectors.float32(v["inputFile"]!.string!)
    let raw = try SampleRateVectors.float32(v["outputFile"]!.string!)
    var r = SampleRateResampler(
      converter: Self.converter(v), inputRate: rate, outputRate: 48_000, channelCount: channels)
    let out = resampleStreaming(&r, x) { _ in block }
    #expect(out.count == (r.latency + rounded) * channels)
    try #require(raw.count >= out.count)
    let expected = Array(raw[..<out.count])
    if Self.expectExact {
      #expect(out.map(\.bitPattern) == expected.map(\.bitPattern), "not bit-identical")
    } else {
      #expect(maxAbsDifference(out, expected) <= Self.fallbackTolerance)
    }
  }
}
