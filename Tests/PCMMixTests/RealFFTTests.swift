import Foundation
import Testing

@testable import PCMMix

/// `RealFFT` against numpy's `rfft` (`TestVectors/fft/generate.py`), and back.
@Suite struct RealFFTTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
      "TestVectors/fft")

  static func load<T>(_ name: String, as: T.Type) throws -> [T] {
    let data = try Data(contentsOf: folder.appendingPathComponent(name))
    return data.withUnsafeBytes { Array($0.bindMemory(to: T.self)) }
  }

  @Test(arguments: [4, 8, 64, 512, 4096])
  func forwardMatchesNumpyAndInverseGivesTheSignalBack(_ n: Int) throws {
    let input = try Self.load("input_\(n).f32", as: Float.self)
    let reference = try Self.load("rfft_\(n).f64", as: Double.self)
    #expect(input.count == n && reference.count == 2 * (n / 2 + 1))
    let fft = try #require(RealFFT(count: n))
    var re = [Float](repeating: 0, count: n / 2 + 1)
    var im = [Float](repeating: 0, count: n / 2 + 1)
    fft.forward(input, re: &re, im: &im)
    // Error against the largest bin: float32 arithmetic over log2(n) stages.
    var largest = 0.0
    var error = 0.0
    for k in 0...(n / 2) {
      let (r, i) = (reference[2 * k], reference[2 * k + 1])
      largest = max(largest, (r * r + i * i).squareRoot())
      let (dr, di) = (Double(re[k]) - r, Double(im[k]) - i)
      error = max(error, (dr * dr + di * di).squareRoot())
    }
    #expect(error <= 2e-6 * largest, "n = \(n): error \(error), largest bin \(largest)")
    var back = [Float](repeating: 0, count: n)
    fft.inverse(re: &re, im: &im, output: &back)
    let worst = zip(back, input).map { abs($0 - $1) }.max()!
    let peak = input.map(abs).max()!
    #expect(worst <= 1e-6 * Float(n).squareRoot() * peak, "n = \(n): round trip off by \(worst)")
  }

  @Test func lengthsThatAreNotPowersOfTwoAreRefused() {
    #expect(RealFFT(count: 0) == nil)
    #expect(RealFFT(count: 2) == nil)
    #expect(RealFFT(count: 48) == nil)
    #expect(RealFFT(count: 1 << 21) == nil)
  }
}
