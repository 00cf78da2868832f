import Testing

@testable import PCMMix

/// The `decode` and `encode` reference vectors, bit for bit.
@Suite struct DecoderVectorTests {
  static let decodeNames = Vectors.family("decode").map { $0["name"] as! String }

  /// A decode vector's input bytes, format and expected interleaved float32 samples.
  struct DecodeVector {
    let bytes: [UInt8]
    let format: PCMFormat
    let frames: Int
    let expected: [Float]

    init(_ name: String) throws {
      let v = try #require(Vectors.family("decode").first { $0["name"] as? String == name })
      let spelling = v["sampleType"] as! String
      let (type, order) = try #require(PCMFormat.parseType(spelling))
      format = PCMFormat(
        sampleRate: 48_000, channelCount: v["channels"] as! Int, sampleType: type,
        byteOrder: order, isInterleaved: v["layout"] as? String != "planar")
      frames = v["frames"] as! Int
      bytes = try Vectors.bytes(v["inputFile"] as! String)
      expected = try Vectors.float32(v["expectedFile"] as! String)
      #expect(bytes.count == frames * format.bytesPerFrame)
      #expect(expected.count == frames * format.channelCount)
    }

    /// Decodes `range` keeping `channels` channels. The output buffer is one sample longer than
    /// needed and filled with a sentinel, to catch writes past the end.
    func decode(_ range: Range<Int>, channels: Int) -> (samples: [Float], overrun: Bool) {
      let sentinel = Float(bitPattern: 0x7FC0_DEAD)
      var out = [Float](repeating: sentinel, count: range.count * channels + 1)
      bytes.withUnsafeBytes { src in
        out.withUnsafeMutableBufferPointer { dst in
          PCMDecoder.decode(
            src, format: format, totalFrames: frames, frames: range, outputChannels: channels,
            into: dst)
        }
      }
      let overrun = out.last!.bitPattern != sentinel.bitPattern
      return (Array(out.dropLast()), overrun)
    }

    /// The expected samples of `range`, channels `0 ..< channels`.
    func slice(_ range: Range<Int>, channels: Int) -> [Float] {
      range.flatMap { f in (0..<channels).map { expected[f * format.channelCount + $0] } }
    }
  }

  /// Index of the first sample whose bits differ, or nil. Bits, not `==`: -0.0 must stay -0.0.
  static func firstMismatch(_ a: [Float], _ b: [Float]) -> Int? {
    if a.count != b.count { return min(a.count, b.count) }
    return a.indices.first { a[$0].bitPattern != b[$0].bitPattern }
  }

  @Test func everyVectorIsListed() {
    let types = Set(Vectors.family("decode").map { $0["sampleType"] as! String })
    #expect(types == Set(PCMFormat.typeSpellings))
    #expect(Vectors.family("decode").contains { $0["layout"] as? String == "planar" })
  }

  @Test(arguments: decodeNames)
  func wholeVector(_ name: String) throws {
    let v = try DecodeVector(name)
    let (got, overrun) = v.decode(0..<v.frames, channels: v.format.channelCount)
    #expect(!overrun)
    let i = Self.firstMismatch(got, v.expected)
    #expect(
      i == nil,
      "\(name): sample \(i ?? 0) is \(i.map { got[$0] } ?? 0), expected \(i.map { v.expected[$0] } ?? 0)"
    )
  }

  @Test(arguments: decodeNames)
  func subRangesAndFirstChannel(_ name: String) throws {
    let v = try DecodeVector(name)
    let n = v.frames
    for range in [0..<n, 37..<211, 0..<1, (n - 1)..<n, 150..<150, 1..<(n - 1)] {
      for channels in 1...v.format.channelCount {
        let (got, overrun) = v.decode(range, channels: channels)
        #expect(!overrun, "\(name) \(range) \(channels) ch wrote past the end")
        let want = v.slice(range, channels: channels)
        let i = Self.firstMismatch(got, want)
        #expect(i == nil, "\(name) frames \(range), \(channels) ch: first mismatch at \(i ?? -1)")
      }
    }
  }

  // MARK: - PCMEncoder

  @Test func encodeVector() throws {
    let v = try #require(Vectors.family("encode").first)
    let input = try Vectors.float32(v["inputFile"] as! String)
    let expected = try Vectors.int16(v["expectedFile"] as! String)
    #expect(input.count == v["count"] as! Int)
    #expect(expected.count == input.count)
    var mismatches: [String] = []
    for (i, x) in input.enumerated() where PCMEncoder.int16(x) != expected[i] {
      mismatches.append(
        "\(x) (0x\(String(x.bitPattern, radix: 16))) → \(PCMEncoder.int16(x)), expected \(expected[i])"
      )
    }
    #expect(mismatches.isEmpty, "\(mismatches.count) mismatches: \(mismatches.prefix(8))")

    // The buffer form and the little-endian byte form agree with the scalar one.
    var out = [Int16](repeating: 0, count: input.count)
    input.withUnsafeBufferPointer { i in
      out.withUnsafeMutableBufferPointer { PCMEncoder.encode(i, into: $0) }
    }
    #expect(out == expected)
    var bytes = [UInt8](repeating: 0, count: input.count * 2)
    let written = input.withUnsafeBufferPointer { i in
      bytes.withUnsafeMutableBytes { PCMEncoder.encodeLittleEndian(i, as: .s16, into: $0) }
    }
    #expect(written == input.count * 2)
    #expect(bytes == (try Vectors.bytes(v["expectedFile"] as! String)))
  }

  @Test func encodeNonFinite() {
    #expect(PCMEncoder.int16(.nan) == 0)
    #expect(PCMEncoder.int16(-.nan) == 0)
    #expect(PCMEncoder.int16(.signalingNaN) == 0)
    #expect(PCMEncoder.int16(.infinity) == .max)
    #expect(PCMEncoder.int16(-.infinity) == .min)
    #expect(PCMEncoder.int16(.greatestFiniteMagnitude) == .max)
    #expect(PCMEncoder.int16(-.greatestFiniteMagnitude) == .min)
  }

  @Test func encodeRoundingRule() {
    // Ties toward zero, everything else to nearest; the clamp keeps both branches.
    let cases: [(Float, Int16)] = [
      (2.5 / 32768, 2), (-2.5 / 32768, -2), (2.6 / 32768, 3), (-2.6 / 32768, -3),
      (0.5 / 32768, 0), (-0.5 / 32768, 0), (-0.0, 0), (1, 32767), (-1, -32768),
      (32767.5 / 32768, 32767), (-32768.5 / 32768, -32768), (32766.5 / 32768, 32766),
      (-32767.5 / 32768, -32767), (1.5, 32767), (-1.5, -32768),
    ]
    for (x, want) in cases {
      #expect(PCMEncoder.int16(x) == want, "\(x * 32768) / 32768")
    }
  }

  /// Every int16 survives decode → encode unchanged.
  @Test func s16RoundTripsThroughFloat() {
    let all = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
    let format = PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s16)
    var floats = [Float](repeating: 0, count: all.count)
    all.withUnsafeBytes { src in
      floats.withUnsafeMutableBufferPointer {
        PCMDecoder.decode(
          src, format: format, totalFrames: all.count, frames: 0..<all.count, outputChannels: 1,
          into: $0)
      }
    }
    let back = floats.map(PCMEncoder.int16)
    #expect(back == all)
  }
}
