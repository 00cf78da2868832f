import Foundation
import Testing

@testable import PCMMix

/// Shared helpers for the library tests: the reference vectors and a seeded generator.
enum Vectors {
  /// `TestVectors/` at the repository root, found from this file's path.
  static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("TestVectors")

  /// The parsed `manifest.json`.
  nonisolated(unsafe) static let manifest: [String: Any] = {
    let data = try! Data(contentsOf: root.appendingPathComponent("manifest.json"))
    return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
  }()

  /// Every vector of one family (`wav`, `decode`, `mix`, …), in manifest order.
  static func family(_ name: String) -> [[String: Any]] {
    (manifest["vectors"] as! [[String: Any]]).filter { $0["family"] as? String == name }
  }

  /// The bytes of a file under `TestVectors/`.
  static func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
  }

  /// A little-endian float32 file.
  static func float32(_ path: String) throws -> [Float] {
    let b = try bytes(path)
    return stride(from: 0, to: b.count - 3, by: 4).map { i in
      Float(
        bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16
          | UInt32(b[i + 3]) << 24)
    }
  }

  /// A little-endian int16 file.
  static func int16(_ path: String) throws -> [Int16] {
    let b = try bytes(path)
    return stride(from: 0, to: b.count - 1, by: 2).map { i in
      Int16(bitPattern: UInt16(b[i]) | UInt16(b[i + 1]) << 8)
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

/// Least-squares fit of `a·cos(ωn) + b·sin(ωn) + c` to a signal, for tone SNR and gain.
struct ToneFit {
  var amplitude: Double
  /// Phase of the fitted cosine at n = 0, radians.
  var phase: Double
  var snrDB: Double

  /// Fits the tone at `frequency` (cycles per sample) to `x[range]`, sample n at index n.
  init(_ x: [Float], stride: Int = 1, offset: Int = 0, frequency: Double, range: Range<Int>) {
    let w = 2 * Double.pi * frequency
    // Normal equations for the basis (cos, sin, 1).
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

/// Converts `input` (interleaved) in one call plus flush, dropping the leading latency:
/// the time-aligned one-shot output.
func resampleAligned(_ r: inout some Resampler, _ input: [Float]) -> [Float] {
  let ch = r.channelCount
  var out = [Float](
    repeating: 0,
    count: (r.maxOutputFrames(forInputFrames: input.count / ch)
      + r.latency + 64) * ch)
  var produced = 0
  input.withUnsafeBufferPointer { inp in
    out.withUnsafeMutableBufferPointer { o in
      let res = r.process(inp, into: o)
      precondition(res.consumed == input.count / ch)
      produced = res.produced
      while true {
        let n = r.flush(into: UnsafeMutableBufferPointer(rebasing: o[(produced * ch)...]))
        if n == 0 { break }
        produced += n
      }
    }
  }
  return Array(out[(r.latency * ch)..<(produced * ch)])
}
