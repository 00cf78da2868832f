import Foundation
import Testing

@testable import PCMMix

/// WebRTC's `SincResampler` test (`common_audio/resampler/sinc_resampler_unittest.cc`, test
/// `Resample`) applied to ``PolyphaseResampler`` into 48 kHz, with WebRTC's thresholds.
///
/// As there: one second of a linear chirp at amplitude 1 (full scale) from 5 Hz
/// (`SinusoidalLinearChirpSource::kMinFrequency`) to the input Nyquist; the ideal output is the
/// same chirp evaluated at the output times, 0 where its frequency is above the output Nyquist.
/// Errors are |out − ideal| in dBFS. Unlike there, the output is time-aligned (no delay to
/// match) and the first and last 20 ms are skipped.
@Suite struct WebRTCThresholdTests {
  /// WebRTC's `kResamplingRMSError`: "almost all conversions have an RMS error of around −14 dBFS".
  static let rmsLimit = -14.58
  /// WebRTC's `kHighFrequencyMaxError`, for 0.7 … 0.9 × the lower Nyquist.
  static let highLimit = -6.02
  /// WebRTC's max-error limit below 0.7 × the lower Nyquist for a chirp into 48 kHz (its
  /// `sinc_resampler_unittest.cc` lists −62.6 dBFS for most rates, −63.4 for 8 kHz and −64.0
  /// for 32 kHz; the loosest of them).
  static let lowLimit = -62.6

  /// WebRTC's own per-rate values into 48 kHz (RMS, low-frequency max error), where it tests the
  /// rate. Where WebRTC's value is stricter than the limits above it is used instead; where it is
  /// laxer (22.05 kHz: −62.42; its 96 and 192 kHz downsampling: −28.44 / −14.11 max error, −18.40 /
  /// −20.43 RMS) the limits above hold. 88.2 kHz is not in WebRTC's table.
  static let webRTC: [Int: (rms: Double, low: Double)] = [
    8_000: (-14.58, -63.43),
    11_025: (-14.58, -62.61),
    16_000: (-14.58, -63.96),
    22_050: (-14.58, -62.42),
    32_000: (-14.58, -64.04),
    44_100: (-14.58, -62.63),
    96_000: (-18.40, -28.44),
    192_000: (-20.43, -14.11),
  ]

  static let rates = [8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 88_200, 96_000, 192_000]

  static let minFrequency = 5.0

  /// The chirp at time `t` seconds, sweeping `minFrequency` → `maxFrequency` over one second.
  static func chirp(_ t: Double, maxFrequency: Double) -> Double {
    let k = maxFrequency - minFrequency
    return sin(2 * Double.pi * (minFrequency * t + k / 2 * t * t))
  }

  static func dBFS(_ x: Double) -> Double { 20 * log10(x) }

  @Test(arguments: rates)
  func chirpInto48k(inputRate: Int) {
    let outputRate = 48_000
    let inputNyquist = Double(inputRate) / 2
    let lowerNyquist = Double(min(inputRate, outputRate)) / 2
    let input = (0..<inputRate).map {
      Float(Self.chirp(Double($0) / Double(inputRate), maxFrequency: inputNyquist))
    }
    // The chirp is compared sample by sample with the ideal one, so the filter must delay every
    // frequency alike: the default preset's linear-phase form (the preset itself is minimum phase
    // at every rate into 48 kHz, and its delay rises towards the band edge; see
    // ResamplerPresetTests).
    var r = PolyphaseResampler(
      inputRate: inputRate, outputRate: outputRate, channelCount: 1,
      quality: .balanced.with(phase: .linear))
    let out = resampleAligned(&r, input)
    #expect(out.count == outputRate)

    let skip = outputRate / 50  // 20 ms
    var sumAll = 0.0
    var countAll = 0
    var sumPass = 0.0
    var countPass = 0
    var lowMax = 0.0
    var highMax = 0.0
    for j in skip..<(min(out.count, outputRate) - skip) {
      let t = Double(j) / Double(outputRate)
      let frequency = Self.minFrequency + (inputNyquist - Self.minFrequency) * t
      let ideal = frequency > Double(outputRate) / 2 ? 0 : Self.chirp(t, maxFrequency: inputNyquist)
      let error = abs(Double(out[j]) - ideal)
      sumAll += error * error
      countAll += 1
      if frequency < 0.9 * lowerNyquist {
        sumPass += error * error
        countPass += 1
      }
      if frequency < 0.7 * lowerNyquist {
        lowMax = max(lowMax, error)
      } else if frequency < 0.9 * lowerNyquist {
        highMax = max(highMax, error)
      }
    }
    // WebRTC's RMS is over every sample, including the band above 0.9 × Nyquist where the
    // filter rolls off; the second figure is over the samples below 0.9 × Nyquist only.
    let rmsAll = Self.dBFS((sumAll / Double(countAll)).squareRoot())
    let rmsPass = Self.dBFS((sumPass / Double(countPass)).squareRoot())
    let low = Self.dBFS(lowMax)
    let high = Self.dBFS(highMax)
    let rmsLimit = min(Self.rmsLimit, Self.webRTC[inputRate]?.rms ?? 0)
    let lowLimit = min(Self.lowLimit, Self.webRTC[inputRate]?.low ?? 0)
    print(
      "chirp \(inputRate) → 48000: RMS error \(String(format: "%.2f", rmsAll)) dBFS all,"
        + " \(String(format: "%.2f", rmsPass)) dBFS below 0.9 Nyquist (limit \(rmsLimit));"
        + " max error \(String(format: "%.2f", low)) dBFS below 0.7 Nyquist (limit \(lowLimit)),"
        + " \(String(format: "%.2f", high)) dBFS 0.7 … 0.9 (limit \(Self.highLimit))")
    #expect(rmsAll <= rmsLimit)
    #expect(rmsPass <= rmsLimit)
    #expect(low <= lowLimit)
    #expect(high <= Self.highLimit)
  }
}
