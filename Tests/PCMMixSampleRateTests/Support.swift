import Foundation
import PCMMix
import Testing

/// Shared helpers for the libsamplerate backend's tests (the library tests' `Support.swift` is
/// not importable across test targets, so what is needed is repeated here).
enum SampleRateVectors {
  /// `TestVectors/libsamplerate/` at the repository root, found from this file's path.
  static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("TestVectors").appendingPathComponent("libsamplerate")

  /// The parsed `libsamplerate/manifest.json`.
  nonisolated(unsafe) static let manifest: [String: Any] = {
    let data = try! Data(contentsOf: root.appendingPathComponent("manifest.json"))
    return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
  }()

  /// Every vector, in manifest order.
  static var vectors: [[String: Any]] { manifest["vectors"] as! [[String: Any]] }

  /// Vector names, for `@Test(arguments:)`.
  static var names: [String] { vectors.map { $0["name"] as! String } }

  /// The vector called `name`.
  static func vector(_ name: String) -> [String: Any] {
    vectors.first { $0["name"] as? String == name }!
  }

  /// A little-endian float32 file under `libsamplerate/`.
  static func float32(_ path: String) throws -> [Float] {
    let b = [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    return stride(from: 0, to: b.count - 3, by: 4).map { i in
      Float(
        bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16
          | UInt32(b[i + 3]) << 24)
    }
  }
}

/// A seeded generator (SplitMix64) so random tests are repeatable.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Least-squares fit of `a·cos(ωn) + b·sin(ωn) + c` to a signal, for tone SNR, gain and phase.
struct ToneFit {
  var amplitude: Double
  /// Phase of the fitted cosine at n = 0, radians.
  var phase: Double
  var snrDB: Double

  /// Fits the tone at `frequency` (cycles per sample) to `x[range]`, sample n at index n.
  init(_ x: [Float], stride: Int = 1, offset: Int = 0, frequency: Double, range: Range<Int>) {
    let w = 2 * Double.pi * frequency
    var m = [[Double]](repeating: [0, 0, 0], count: 3)
    var v = [0.0, 0.0, 0.0]
    for n in range {
      let y = Double(x[n * stride + offset])
      let basis = [cos(w * Double(n)), sin(w * Double(n)), 1]
      for i in 0..<3 {
        v[i] += basis[i] * y
        for j in 0..<3 { m[i][j] += basis[i] * basis[j] }
      }
    }
    let s = ToneFit.solve3(m, v)
    var fitPower = 0.0
    var residual = 0.0
    for n in range {
      let fitted = s[0] * cos(w * Double(n)) + s[1] * sin(w * Double(n)) + s[2]
      let y = Double(x[n * stride + offset])
      fitPower += fitted * fitted
      residual += (y - fitted) * (y - fitted)
    }
    amplitude = (s[0] * s[0] + s[1] * s[1]).squareRoot()
    phase = atan2(-s[1], s[0])
    snrDB = 10 * log10(fitPower / max(residual, 1e-300))
  }

  static func solve3(_ a: [[Double]], _ b: [Double]) -> [Double] {
    var m = a
    var v = b
    for col in 0..<3 {
      let p = (col..<3).max { abs(m[$0][col]) < abs(m[$1][col]) }!
      m.swapAt(col, p)
      v.swapAt(col, p)
      for r in 0..<3 where r != col {
        let f = m[r][col] / m[col][col]
        for c in 0..<3 { m[r][c] -= f * m[col][c] }
        v[r] -= f * v[col]
      }
    }
    return (0..<3).map { v[$0] / m[$0][$0] }
  }
}

/// Streams `input` (interleaved) through `r` in blocks of the sizes `blockSize` gives (called
/// with the block index), flushes, and returns everything produced, latency included.
/// Every `process` call must take its whole block within ``Resampler/maxOutputFrames``.
func resampleStreaming(
  _ r: inout some Resampler, _ input: [Float], blockSize: (Int) -> Int
) -> [Float] {
  let ch = r.channelCount
  let frames = input.count / ch
  var out: [Float] = []
  var start = 0
  var index = 0
  input.withUnsafeBufferPointer { inp in
    while start < frames {
      let n = min(max(1, blockSize(index)), frames - start)
      let room = r.maxOutputFrames(forInputFrames: n)
      var block = [Float](repeating: .nan, count: room * ch)
      let res = block.withUnsafeMutableBufferPointer { o in
        r.process(UnsafeBufferPointer(rebasing: inp[(start * ch)..<((start + n) * ch)]), into: o)
      }
      #expect(res.consumed == n, "block \(index) of \(n) frames: consumed \(res.consumed)")
      #expect(res.produced <= room)
      out += block[..<(res.produced * ch)]
      start += n
      index += 1
    }
  }
  var tail = [Float](repeating: .nan, count: 64 * ch)
  while true {
    let n = tail.withUnsafeMutableBufferPointer { r.flush(into: $0) }
    if n == 0 { break }
    out += tail[..<(n * ch)]
  }
  return out
}

/// Converts `input` in one call plus flush and drops the leading latency: the time-aligned
/// one-shot output.
func resampleAligned(_ r: inout some Resampler, _ input: [Float]) -> [Float] {
  let all = resampleStreaming(&r, input) { _ in Int.max }
  return Array(all[(r.latency * r.channelCount)...])
}

/// `amplitude · cos(2π f n / rate + phase)` for `frames` frames.
func tone(
  _ frequency: Double, rate: Int, frames: Int, amplitude: Double = 0.5, phase: Double = 0
) -> [Float] {
  (0..<frames).map { n in
    Float(amplitude * cos(2 * Double.pi * frequency * Double(n) / Double(rate) + phase))
  }
}

/// Interleaves equal-length channels.
func interleave(_ channels: [[Float]]) -> [Float] {
  let frames = channels[0].count
  var out = [Float](repeating: 0, count: frames * channels.count)
  for (c, samples) in channels.enumerated() {
    for n in 0..<frames { out[n * channels.count + c] = samples[n] }
  }
  return out
}

/// The largest absolute difference between two equal-length runs.
func maxAbsDifference(_ a: [Float], _ b: [Float]) -> Float {
  zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
}
