import Foundation
import PCMMix
@_exported import PCMMixTestSupport
import Testing

/// Shared helpers for the libsamplerate backend's tests (the library tests' `Support.swift` is
/// not importable across test targets, so what is needed is repeated here).
enum SampleRateVectors {
  /// `TestVectors/libsamplerate/` at the repository root, found from this file's path.
  static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("TestVectors").appendingPathComponent("libsamplerate")

  /// The parsed `libsamplerate/manifest.json`.
  static let manifest: JSONObject = {
    do {
      return try JSONObject.load(root.appendingPathComponent("manifest.json"))
    } catch {
      fatalError("cannot read \(root.path)/manifest.json: \(error)")
    }
  }()

  /// Every vector, in manifest order.
  static var vectors: [JSONObject] { manifest["vectors"]!.objects! }

  /// Vector names, for `@Test(arguments:)`.
  static var names: [String] { vectors.map { $0["name"]!.string! } }

  /// The vector called `name`.
  static func vector(_ name: String) -> JSONObject {
    vectors.first { $0["name"]?.string == name }!
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
