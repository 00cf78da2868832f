import Foundation
import PCMMix
import PCMMixCLI
import PCMMixTestSupport
import Testing

/// Six tones from 100 Hz to 0.9 × the lower Nyquist of `rate` and 48 kHz.
private func tones(_ rate: Int) -> [Double] {
  let nyquist = Double(min(rate, 48_000)) / 2
  return [100, 0.2 * nyquist, 0.4 * nyquist, 0.6 * nyquist, 0.8 * nyquist, 0.9 * nyquist]
}

/// Converts 0.25 s of six tones at `rate` (mono f32) to 48 kHz with `extra` options and returns,
/// for each tone, how far the output is from the input's time: the fitted phase against the
/// input tone's analytic phase at the output instants, in output samples (positive: late).
private func alignmentErrors(rate: Int, _ extra: [String]) throws -> [(hz: Double, samples: Double)]
{
  let freqs = tones(rate)
  let phases = freqs.indices.map { 0.4 + 0.9 * Double($0) }
  let frames = rate / 4
  var input = [Double](repeating: 0, count: frames)
  for i in 0..<frames {
    let t = Double(i) / Double(rate)
    for (f, p) in zip(freqs, phases) { input[i] += 0.12 * sin(2 * .pi * f * t + p) }
  }
  return try withTempDir { dir in
    try writeFile(
      "\(dir)/in.wav",
      wav(
        tag: 3, channels: 1, rate: rate, bits: 32,
        data: floatBytes(input, bits: 32)))
    cliOK(
      [
        "convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav", "--channels", "1", "--format",
        "f32",
      ] + extra)
    let out = try readWAV("\(dir)/out.wav").float32s
    #expect(out.count == Int((Double(frames) * 48_000 / Double(rate)).rounded()))
    let omegas = freqs.map { 2 * Double.pi * $0 / 48_000 }
    // 30 ms off each end, where the filter sees the input's edges.
    let fit = MultiToneFit(
      out, frequencies: freqs.map { $0 / 48_000 }, range: 1_440..<(out.count - 1_440))
    return freqs.indices.map { k in
      let amplitude = fit.amplitudes[k]
      #expect(abs(amplitude - 0.12) < 0.001, "\(rate) Hz input, \(freqs[k]) Hz: \(amplitude)")
      // The input is sin(ωt + p) = cos(ωt + p − π/2).
      return (freqs[k], -phaseDifference(fit.phases[k], phases[k] - .pi / 2) / omegas[k])
    }
  }
}

private let inputRates = [
  8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 88_200, 96_000, 176_400, 192_000,
]

@Suite("convert is time-aligned at every frequency")
struct AlignmentTests {
  /// The issue's case: from 22.05 kHz the minimum-phase filter left a 7 kHz tone 1.27 samples
  /// late; linear phase (the default for files) puts every tone within 0.1 sample.
  @Test(
    "every rate 8 … 192 kHz into 48 kHz, tones to 0.9 × the lower Nyquist, within 0.1 sample",
    arguments: ["builtin:fast", "builtin:balanced"], inputRates)
  func aligned(resampler: String, rate: Int) throws {
    let errors = try alignmentErrors(rate: rate, ["--resampler", resampler])
    for (hz, samples) in errors {
      #expect(
        abs(samples) < 0.1, "\(resampler) from \(rate) Hz: \(hz) Hz is \(samples) samples late")
    }
    let worst = errors.max { abs($0.samples) < abs($1.samples) }!
    print(
      "alignment \(resampler) from \(rate) Hz: worst \(abs(worst.samples)) samples at \(worst.hz) Hz"
    )
  }

  /// The same measurement finds the minimum-phase filters (the capture pipeline's rule wherever
  /// linear phase would exceed the preset's delay budget, `--phase capture`) late at the top of
  /// the band: the test can fail.
  @Test("--phase capture and minimum are late at the top of the band, as the issue measured")
  func minimumPhaseIsLate() throws {
    for phase in ["capture", "minimum"] {
      let errors = try alignmentErrors(rate: 22_050, ["--phase", phase])
      let worst = errors.map { abs($0.samples) }.max()!
      #expect(worst > 0.5, "\(phase): worst \(worst) samples")
      print(
        "alignment --phase \(phase) from 22050 Hz: \(errors.map { "\($0.hz) Hz \($0.samples)" })")
      // Low frequencies stay aligned: the lag is the filter's phase, not a shift.
      #expect(abs(errors[0].samples) < 0.1, "\(phase): 100 Hz is \(errors[0].samples) late")
    }
    // At 44.1 kHz the capture rule is the preset's, minimum phase too (with the stopband from
    // the input's Nyquist frequency up, linear phase would take 2 ms, over the 1.5 ms budget):
    // exactly what --phase minimum gives, and late at the top of the band like it.
    #expect(
      PolyphaseResampler(inputRate: 44_100, outputRate: 48_000, channelCount: 1).isMinimumPhase)
    let capture = try alignmentErrors(rate: 44_100, ["--phase", "capture"])
    let minimum = try alignmentErrors(rate: 44_100, ["--phase", "minimum"])
    #expect(capture.map(\.samples) == minimum.map(\.samples), "\(capture) against \(minimum)")
    #expect(minimum.map { abs($0.samples) }.max()! > 0.1, "\(minimum)")
  }

  @Test("mix is time-aligned too: a 22.05 kHz tone set against silence, summed by saturate")
  func mixAligned() throws {
    let rate = 22_050
    let freqs = tones(rate)
    let frames = rate / 4
    let input = (0..<frames).map { i in
      freqs.reduce(0.0) { $0 + 0.12 * sin(2 * .pi * $1 * Double(i) / Double(rate) + 0.3) }
    }
    try withTempDir { dir in
      try writeFile(
        "\(dir)/app.wav",
        wav(
          tag: 3, channels: 1, rate: rate, bits: 32,
          data: floatBytes(input, bits: 32)))
      try writeFile(
        "\(dir)/mic.wav",
        wav(
          tag: 3, channels: 1, rate: 48_000, bits: 32,
          data: floatBytes(Array(repeating: 0, count: 12_000), bits: 32)))
      cliOK([
        "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(dir)/o.wav",
        "--policy", "saturate", "--format", "f32",
      ])
      let out = try readWAV("\(dir)/o.wav").float32s
      let omegas = freqs.map { 2 * Double.pi * $0 / 48_000 }
      let fit = MultiToneFit(
        out, stride: 2, frequencies: freqs.map { $0 / 48_000 },
        range: 1_440..<(out.count / 2 - 1_440))
      for k in freqs.indices {
        let late = -phaseDifference(fit.phases[k], 0.3 - .pi / 2) / omegas[k]
        #expect(abs(late) < 0.1, "\(freqs[k]) Hz is \(late) samples late")
      }
    }
  }
}
