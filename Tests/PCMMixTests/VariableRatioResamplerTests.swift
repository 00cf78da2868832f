import Foundation
import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The steerable built-in resampler: the same quality as the exact one at a fixed ratio, and the
/// figure the README gives for it while its ratio is steered (≥ 120 dB tone SNR for `balanced`
/// against the ideal tone at the positions it was steered to).
@Suite struct VariableRatioResamplerTests {
  /// A mono tone at `rate` through the resampler in 10 ms blocks, the adjustment set before each
  /// block by `steer(block)`; returns the output and the ideal tone at each output's input time.
  static func steeredTone(
    rate: Int, quality: ResamplerQuality, frequency: Double, seconds: Double,
    steer: (Int) -> Double
  ) -> (output: [Float], ideal: [Double]) {
    var r = VariableRatioResampler(
      inputRate: rate, outputRate: 48_000, channelCount: 1, quality: quality)
    _ = r.skipLatency()
    let frames = Int(Double(rate) * seconds)
    let input = (0..<frames).map {
      Float(0.5 * sin(2 * .pi * frequency * Double($0) / Double(rate)))
    }
    var output: [Float] = []
    var ideal: [Double] = []
    var out = [Float](repeating: 0, count: 4096)
    let block = rate / 100
    var start = 0
    var b = 0
    while start < frames {
      _ = r.adjustRatio(by: steer(b))
      let n = min(block, frames - start)
      var time = r.nextOutputTime
      let step = Double(rate) / 48_000 / (1 + r.ratioAdjustment)
      let produced = input.withUnsafeBufferPointer { x in
        out.withUnsafeMutableBufferPointer { o in
          r.process(UnsafeBufferPointer(rebasing: x[start..<(start + n)]), into: o).produced
        }
      }
      for j in 0..<produced {
        output.append(out[j])
        ideal.append(0.5 * sin(2 * .pi * frequency * time / Double(rate)))
        time += step
      }
      start += n
      b += 1
    }
    return (output, ideal)
  }

  /// Signal over error, in dB, from `skip` outputs in to `skip` before the end.
  static func snr(_ y: [Float], _ ideal: [Double], skip: Int) -> Double {
    var s = 0.0
    var e = 0.0
    for i in skip..<(min(y.count, ideal.count) - skip) {
      s += ideal[i] * ideal[i]
      e += (Double(y[i]) - ideal[i]) * (Double(y[i]) - ideal[i])
    }
    return 10 * log10(s / max(e, 1e-300))
  }

  @Test(arguments: [8_000, 16_000, 32_000, 44_100, 48_000])
  func steeredByThreeHundredPPMKeepsTheToneClean(rate: Int) {
    // Linear phase so the output is compared with the ideal tone sample by sample (a
    // minimum-phase filter delays the band edge a little more than DC).
    let quality = ResamplerQuality.balanced.with(phase: .linear)
    let f = 0.44 * Double(rate)
    // The adjustment swings between −300 and +300 ppm over two seconds, moving every block.
    let (y, ideal) = Self.steeredTone(
      rate: rate, quality: quality, frequency: f, seconds: 2.5
    ) { b in 300e-6 * sin(2 * .pi * Double(b) / 200) }
    let snr = Self.snr(y, ideal, skip: 600)
    print("steered ±300 ppm, \(rate) Hz, \(Int(f)) Hz tone: \(String(format: "%.1f", snr)) dB")
    #expect(snr >= 120, "steered tone SNR \(snr) dB")
  }

  @Test func fixedRatioMatchesTheExactResamplersQuality() {
    // At a fixed ratio the blend of rows costs next to nothing against the exact table.
    let quality = ResamplerQuality.balanced.with(phase: .linear)
    for f in [100.0, 1_000, 10_000, 19_000] {
      let (y, ideal) = Self.steeredTone(
        rate: 44_100, quality: quality, frequency: f, seconds: 0.5
      ) { _ in 0 }
      let snr = Self.snr(y, ideal, skip: 600)
      #expect(snr >= 130, "\(f) Hz: \(snr) dB")
    }
  }

  @Test func anySplitOfTheInputGivesTheSameOutput() {
    var rng = SplitMix64(seed: 9)
    let x = (0..<(2 * 9_000)).map { _ in Float.random(in: -1...1, using: &rng) }
    func run(_ pieces: [Int]) -> [Float] {
      var r = VariableRatioResampler(inputRate: 44_100, outputRate: 48_000, channelCount: 2)
      _ = r.adjustRatio(by: 250e-6)
      _ = r.skipLatency()
      var y: [Float] = []
      var out = [Float](repeating: 0, count: 2 * 12_000)
      var start = 0
      for p in pieces + [Int.max] where start < 9_000 {
        let n = min(p, 9_000 - start)
        let k = x.withUnsafeBufferPointer { x in
          out.withUnsafeMutableBufferPointer {
            r.process(UnsafeBufferPointer(rebasing: x[(2 * start)..<(2 * (start + n))]), into: $0)
              .produced
          }
        }
        y += out[..<(2 * k)]
        start += n
      }
      let k = out.withUnsafeMutableBufferPointer { r.flush(into: $0) }
      return y + out[..<(2 * k)]
    }
    let whole = run([9_000])
    var pieces: [Int] = []
    for _ in 0..<200 { pieces.append(Int.random(in: 1...300, using: &rng)) }
    #expect(run(pieces) == whole)
    // About frames × ratio outputs in all (the outputs whose time lies within the input).
    let expected = 9_000.0 * 48_000 / 44_100 * (1 + 250e-6)
    #expect(abs(Double(whole.count / 2) - expected) <= 1)
  }

  @Test func aToneComesOutAtItsInputTime() {
    // After skipLatency, output j is input time j × step: a linear-phase tone fits with phase 0.
    let quality = ResamplerQuality.balanced.with(phase: .linear)
    var r = VariableRatioResampler(
      inputRate: 32_000, outputRate: 48_000, channelCount: 1, quality: quality)
    let x = (0..<16_000).map { Float(0.5 * cos(2 * .pi * 1_000 * Double($0) / 32_000)) }
    let y = resampleAligned(&r, x)
    let fit = ToneFit(y, frequency: 1_000.0 / 48_000, range: 1_000..<20_000)
    #expect(abs(fit.phase) < 1e-4)
    #expect(y.count == 24_000)
  }
}
