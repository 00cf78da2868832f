import Foundation
import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The resampler's filter design, checked from outside its code: the design FFT (C loops since
/// the Debug set-up work) against a direct DFT, and the minimum-phase prototype against the
/// specification it is designed to: the magnitude of the linear filter, its energy first.
@Suite struct FilterDesignTests {
  @Test(arguments: [2, 8, 256, 1_024])
  func theDesignFFTMatchesADirectDFT(_ n: Int) {
    var g = SplitMix64(seed: UInt64(n))
    let x = (0..<n).map { _ in
      (Double.random(in: -1...1, using: &g), Double.random(in: -1...1, using: &g))
    }
    var (re, im) = (x.map(\.0), x.map(\.1))
    let fft = FFT(count: n)
    fft.transform(&re, &im, inverse: false)
    // X[k] = Σ x[j]·e^{-2πi·jk/n}, each angle from jk mod n so it stays exact.
    var worst = 0.0
    for k in 0..<n {
      var (sr, si) = (0.0, 0.0)
      for j in 0..<n {
        let a = -2 * Double.pi * Double(j * k % n) / Double(n)
        sr += x[j].0 * cos(a) - x[j].1 * sin(a)
        si += x[j].0 * sin(a) + x[j].1 * cos(a)
      }
      worst = max(worst, hypot(re[k] - sr, im[k] - si))
    }
    #expect(worst <= 1e-13 * Double(n), "n = \(n): off the direct DFT by \(worst)")
    fft.transform(&re, &im, inverse: true)
    let back = zip(x, zip(re, im)).map { hypot($0.0 - $1.0, $0.1 - $1.1) }.max()!
    #expect(back <= 1e-14 * Double(n), "n = \(n): round trip off by \(back)")
  }

  /// The `balanced` minimum-phase prototype for upsampling (44.1 → 48 kHz): flat within
  /// 0.01 dB to 0.45 cycles per input sample, at least 130 dB down from 0.5 on, with its DC
  /// delay under a quarter of its length (a linear-phase filter's is half).
  @Test func theMinimumPhasePrototypeKeepsTheSpecificationWithItsEnergyFirst() {
    let d = FilterDesign(up: 160, down: 147, quality: .balanced, outputRate: 48_000)
    let proto = MinimumPhasePrototype(
      cutoff: d.cutoff, length: d.length, beta: d.beta, attenuation: 133)
    let p = Double(proto.oversampling)
    // |H(f)| for f in cycles per input sample, from the samples h(i/p).
    func magnitude(_ f: Double) -> Double {
      var (sr, si) = (0.0, 0.0)
      for (i, h) in proto.samples.enumerated() {
        let a = -2 * Double.pi * f * Double(i) / p
        sr += h * cos(a)
        si += h * sin(a)
      }
      return hypot(sr, si) / p
    }
    let ripple = stride(from: 0.0, through: 0.45, by: 0.005).map {
      abs(20 * log10(magnitude($0)))
    }.max()!
    let stop = stride(from: 0.5, through: 4, by: 0.0125).map {
      20 * log10(magnitude($0))
    }.max()!
    print(
      "minimum-phase prototype: \(d.length) taps × \(proto.oversampling), ripple "
        + "\(String(format: "%.1e", ripple)) dB, stopband peak \(String(format: "%.1f", stop)) dB, "
        + "DC delay \(String(format: "%.2f", proto.delay)) input samples")
    #expect(ripple <= 0.01)
    #expect(stop <= -130)
    #expect(proto.delay < Double(d.length) / 4)
  }
}
