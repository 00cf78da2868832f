import Foundation
import Testing

@testable import PCMMix

@Suite struct PolyphaseResamplerTests {
  static let rates = [8000, 11025, 16000, 22050, 24000, 32000, 44100, 88200, 96000, 192000]

  @Test(arguments: rates)
  func toneSNRAndGain(inputRate: Int) {
    let lowerNyquist = Double(min(inputRate, 48000)) / 2
    var worst = Double.infinity
    var worstGain = 0.0
    for fraction in [0.01, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9] {
      let f = max(100, fraction * lowerNyquist)
      let n = inputRate / 4
      let x = (0..<n).map { Float(0.5 * cos(2 * Double.pi * f * Double($0) / Double(inputRate))) }
      var r = PolyphaseResampler(inputRate: inputRate, outputRate: 48000, channelCount: 1)
      let y = resampleAligned(&r, x)
      #expect(
        y.count
          == RateRatio.outputFrames(forInputFrames: n, inputRate: inputRate, outputRate: 48000))
      let skip = 1200
      let fit = ToneFit(y, frequency: f / 48000, range: skip..<(y.count - skip))
      worst = min(worst, fit.snrDB)
      worstGain = max(worstGain, abs(20 * log10(fit.amplitude / 0.5)))
      expectAligned(fit, hz: f, minimumPhase: r.isMinimumPhase)
    }
    print("rate \(inputRate): worst SNR \(worst) dB, worst gain error \(worstGain) dB")
    // The default preset's own specification (`ResamplerQuality.balanced`): ≥ 130 dB, flat
    // within 0.01 dB to 0.9 × Nyquist.
    #expect(worst >= 130)
    #expect(worstGain < 0.01)
  }
}
