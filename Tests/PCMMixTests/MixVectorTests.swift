import Testing

@testable import PCMMix

@Suite struct MixVectorTests {
  static let names = Vectors.family("mix").map { $0["name"]!.string! }

  struct MixVector {
    let app: [Float]
    let mic: [Float]
    let expected: [Int16]
    let policy: MixPolicy
    let frames: Int

    init(_ name: String) throws {
      let v = try #require(Vectors.family("mix").first { $0["name"]?.string == name })
      #expect(v["sampleType"]?.string == "s16le" && v["channels"]?.int == 2)
      policy = try #require(MixPolicy(rawValue: v["policy"]!.string!))
      frames = v["frames"]!.int!
      app = decodeS16(try Vectors.bytes(v["appFile"]!.string!), channels: 2)
      mic = decodeS16(try Vectors.bytes(v["micFile"]!.string!), channels: 2)
      expected = try Vectors.int16(v["expectedFile"]!.string!)
      #expect(app.count == frames * 2 && mic.count == frames * 2 && expected.count == frames * 2)
    }
  }

  /// Checks `framesIn == framesEmitted + framesDropped + framesBuffered` on both sides.
  static func checkCounters(_ mixer: DualBufferMixer, dropped: Int = 0) {
    for (side, c) in [("app", mixer.app.counters), ("mic", mixer.mic.counters)] {
      #expect(
        c.framesIn == c.framesEmitted + c.framesDropped + c.framesBuffered,
        "\(side): \(c)")
      #expect(c.framesDropped == dropped, "\(side) dropped \(c.framesDropped)")
    }
  }

  @Test(arguments: names)
  func wholeBuffers(_ name: String) throws {
    let v = try MixVector(name)
    var mixer = DualBufferMixer(.init(policy: v.policy))
    v.app.withUnsafeBufferPointer { mixer.append(.app, samples: $0) }
    v.mic.withUnsafeBufferPointer { mixer.append(.mic, samples: $0) }
    var out = [Int16](repeating: 0, count: v.frames * 2 + 2)
    let n = out.withUnsafeMutableBufferPointer { mixer.mix(into: $0) }
    #expect(n == v.frames)
    let got = Array(out[..<(n * 2)])
    let bad = got.indices.filter { got[$0] != v.expected[$0] }
    #expect(
      bad.isEmpty,
      "\(bad.count) samples differ; first at \(bad.first ?? -1): \(bad.first.map { got[$0] } ?? 0) vs \(bad.first.map { v.expected[$0] } ?? 0)"
    )
    #expect(
      mixer.app.counters.framesMixed == v.frames && mixer.mic.counters.framesMixed == v.frames)
    #expect(mixer.app.buffered == 0 && mixer.mic.buffered == 0)
    Self.checkCounters(mixer)
  }

  /// The same vectors appended in random uneven pieces, sides in random order, with a mix call
  /// of random room after each append: the output is the same, sample for sample.
  @Test(arguments: names, [1, 2, 3])
  func unevenPieces(_ name: String, seed: UInt64) throws {
    let v = try MixVector(name)
    var g = SplitMix64(seed: seed)
    var mixer = DualBufferMixer(.init(policy: v.policy))
    var out: [Int16] = []
    var scratch = [Int16](repeating: 0, count: 2 * 700)
    var next = (app: 0, mic: 0)
    func mixSome(room: Int) {
      let n = scratch.withUnsafeMutableBufferPointer {
        mixer.mix(into: UnsafeMutableBufferPointer(rebasing: $0[..<(room * 2)]))
      }
      out += scratch[..<(n * 2)]
    }
    while next.app < v.frames || next.mic < v.frames {
      let takeApp = next.mic == v.frames || (next.app < v.frames && Bool.random(using: &g))
      let size = Int.random(in: 1...300, using: &g)
      if takeApp {
        let end = min(v.frames, next.app + size)
        v.app[(next.app * 2)..<(end * 2)].withUnsafeBufferPointer {
          mixer.append(.app, samples: $0)
        }
        next.app = end
      } else {
        let end = min(v.frames, next.mic + size)
        v.mic[(next.mic * 2)..<(end * 2)].withUnsafeBufferPointer {
          mixer.append(.mic, samples: $0)
        }
        next.mic = end
      }
      mixSome(room: Int.random(in: 0...700, using: &g))
      Self.checkCounters(mixer)
    }
    while mixer.availableFrames > 0 { mixSome(room: 700) }
    #expect(out.count == v.expected.count)
    #expect(out == v.expected)
    Self.checkCounters(mixer)
  }

  /// DESIGN's claim that the float path is bit-exact, independently of the vectors: for every
  /// int16 `a` against each extreme `b` (both ways round), and random pairs, the average mix is C's
  /// truncating `(a + b) / 2` and the saturating mix is `clamp(a + b)`.
  // The policies with reference vectors (`limit` limits where these extremes add up past full
  // scale; LimitPolicyTests check it against `saturate` below its ceiling).
  @Test(arguments: [MixPolicy.average, .saturate])
  func exhaustiveExtremes(_ policy: MixPolicy) {
    let extremes: [Int16] = [
      .min, .min + 1, .min + 2, -16_385, -16_384, -2, -1, 0, 1, 2, 16_383, 16_384, .max - 1, .max,
    ]
    var a: [Int16] = []
    var b: [Int16] = []
    a.reserveCapacity(65_536 * extremes.count + 5000)
    b.reserveCapacity(a.capacity)
    for x in Int16.min...Int16.max {
      for y in extremes {
        a.append(x)
        b.append(y)
      }
    }
    var g = SplitMix64(seed: 42)
    for _ in 0..<5000 {
      a.append(.random(in: .min ... .max, using: &g))
      b.append(.random(in: .min ... .max, using: &g))
    }
    let n = a.count
    // Left: app a, mic b; right: app b, mic a. Int16 → float is x / 32768, as the PCMDecoder does.
    var app = [Float](repeating: 0, count: 2 * n)
    var mic = [Float](repeating: 0, count: 2 * n)
    for i in 0..<n {
      let (fa, fb) = (Float(a[i]) * 0x1p-15, Float(b[i]) * 0x1p-15)
      (app[2 * i], app[2 * i + 1]) = (fa, fb)
      (mic[2 * i], mic[2 * i + 1]) = (fb, fa)
    }
    var mixer = DualBufferMixer(.init(capacityFrames: n, policy: policy))
    app.withUnsafeBufferPointer { mixer.append(.app, samples: $0) }
    mic.withUnsafeBufferPointer { mixer.append(.mic, samples: $0) }
    var out = [Int16](repeating: 0, count: 2 * n)
    #expect(out.withUnsafeMutableBufferPointer { mixer.mix(into: $0) } == n)
    var failures: [String] = []
    for i in 0..<n {
      let sum = Int(a[i]) + Int(b[i])
      let want =
        policy == .average ? Int16(sum / 2) : Int16(min(max(sum, Int(Int16.min)), Int(Int16.max)))
      if out[2 * i] != want || out[2 * i + 1] != want {
        failures.append("(\(a[i]), \(b[i])) → \(out[2 * i]), \(out[2 * i + 1]); expected \(want)")
      }
    }
    #expect(failures.isEmpty, "\(failures.count) pairs wrong: \(failures.prefix(8))")
  }
}
