import Testing

@testable import PCMMix

@Suite struct ChannelMapperTests {
  static func map(_ input: [Float], from: Int, to: Int, sentinel: Float = -7) -> [Float] {
    let frames = input.count / from
    var out = [Float](repeating: sentinel, count: frames * to + 1)
    input.withUnsafeBufferPointer { i in
      out.withUnsafeMutableBufferPointer {
        ChannelMapper.map(i, inputChannels: from, frames: frames, into: $0, outputChannels: to)
      }
    }
    #expect(out.last == sentinel, "wrote past \(frames) frames")
    return Array(out.dropLast())
  }

  /// A seeded mix of full-scale random samples and awkward values (±0, tiny, ±1, > 1).
  static func stereoNoise(frames: Int, seed: UInt64) -> [Float] {
    var g = SplitMix64(seed: seed)
    let special: [Float] = [0, -0.0, 1, -1, 1.5, -2, .leastNormalMagnitude, 0x1p-24, -0x1p-15]
    return (0..<(frames * 2)).map { i in
      i < special.count * 2 ? special[i % special.count] : Float.random(in: -1...1, using: &g)
    }
  }

  @Test func monoToStereoVector() throws {
    let v = try #require(Vectors.family("channels").first)
    #expect(v["inputChannels"] as? Int == 1 && v["outputChannels"] as? Int == 2)
    let mono = decodeS16(try Vectors.bytes(v["inputFile"] as! String), channels: 1)
    let expected = try Vectors.int16(v["expectedFile"] as! String)
    #expect(mono.count == v["frames"] as! Int)

    let stereo = Self.map(mono, from: 1, to: 2)
    #expect(stereo.map(PCMEncoder.int16) == expected)
    for f in 0..<mono.count {
      #expect(stereo[2 * f].bitPattern == mono[f].bitPattern)
      #expect(stereo[2 * f + 1].bitPattern == mono[f].bitPattern)
    }
  }

  @Test func monoToStereoKeepsBitsOfAnyFloat() {
    let mono = Self.stereoNoise(frames: 500, seed: 11)
    let stereo = Self.map(mono, from: 1, to: 2)
    for f in 0..<mono.count {
      #expect(stereo[2 * f].bitPattern == mono[f].bitPattern)
      #expect(stereo[2 * f + 1].bitPattern == mono[f].bitPattern)
    }
  }

  /// Stereo → stereo is a copy: left stays left, right stays right (the reference sample swapped
  /// them), also when input and output are the same memory.
  @Test func stereoToStereoIsIdentity() {
    let input = Self.stereoNoise(frames: 1000, seed: 12)
    let out = Self.map(input, from: 2, to: 2)
    #expect(out.map(\.bitPattern) == input.map(\.bitPattern))

    let left: [Float] = [0.25, 0.5, -1]
    let asymmetric: [Float] = left.flatMap { [$0, 0] }
    let mapped = Self.map(asymmetric, from: 2, to: 2)
    #expect(stride(from: 0, to: mapped.count, by: 2).map { mapped[$0] } == left)
    #expect(stride(from: 1, to: mapped.count, by: 2).allSatisfy { mapped[$0] == 0 })

    var inPlace = input
    inPlace.withUnsafeMutableBufferPointer { b in
      ChannelMapper.map(
        UnsafeBufferPointer(b), inputChannels: 2, frames: 1000, into: b, outputChannels: 2)
    }
    #expect(inPlace.map(\.bitPattern) == input.map(\.bitPattern))
  }

  @Test func monoToMonoIsIdentity() {
    let input = Self.stereoNoise(frames: 200, seed: 13)
    #expect(Self.map(input, from: 1, to: 1).map(\.bitPattern) == input.map(\.bitPattern))
  }

  /// Stereo → mono is (L + R) / 2, rounded once: the same as the exact mean rounded to Float.
  @Test func stereoToMonoAverages() {
    let input = Self.stereoNoise(frames: 4000, seed: 14)
    let mono = Self.map(input, from: 2, to: 1)
    for f in 0..<mono.count {
      let exact = Float((Double(input[2 * f]) + Double(input[2 * f + 1])) / 2)
      #expect(mono[f] == exact, "frame \(f): \(input[2 * f]), \(input[2 * f + 1])")
    }
  }

  /// From int16 through float and back, stereo → mono is C's `(L + R) / 2`.
  @Test func stereoToMonoOfInt16IsTruncatingAverage() {
    var g = SplitMix64(seed: 15)
    let extremes: [Int16] = [.min, .min + 1, -2, -1, 0, 1, 2, .max - 1, .max]
    var pairs: [(Int16, Int16)] = extremes.flatMap { a in extremes.map { (a, $0) } }
    for _ in 0..<4000 {
      pairs.append(
        (Int16.random(in: .min ... .max, using: &g), .random(in: .min ... .max, using: &g)))
    }
    let bytes = pairs.flatMap { [$0.0, $0.1] }.flatMap { v in
      [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
    }
    let mono = Self.map(decodeS16(bytes, channels: 2), from: 2, to: 1)
    for (i, (l, r)) in pairs.enumerated() {
      #expect(PCMEncoder.int16(mono[i]) == Int16((Int(l) + Int(r)) / 2), "\(l), \(r)")
    }
  }
}
