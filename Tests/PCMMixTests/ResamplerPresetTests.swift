import Foundation
import Testing

@testable import PCMMix

/// The built-in presets against the quality table of the resampler issue, for every input rate
/// into 48 kHz: worst tone SNR over 100 Hz … the passband edge (0.9 × the lower Nyquist; 0.95 for
/// `high`), gain error of those tones, rejection of tones the output cannot carry, and delay.
@Suite struct ResamplerPresetTests {
  struct Target: Sendable, CustomStringConvertible {
    var name: String
    var quality: ResamplerQuality
    var snrDB: Double
    var gainErrorDB: Double
    var gainEdge: Double
    var rejectionDB: Double
    var delayMs: Double
    var description: String { name }
  }

  static let targets = [
    Target(
      name: "fast", quality: .fast, snrDB: 100, gainErrorDB: 0.1, gainEdge: 0.9,
      rejectionDB: 100, delayMs: 1),
    Target(
      name: "balanced", quality: .balanced, snrDB: 130, gainErrorDB: 0.01, gainEdge: 0.9,
      rejectionDB: 130, delayMs: 1.5),
    Target(
      name: "high", quality: .high, snrDB: 140, gainErrorDB: 0.001, gainEdge: 0.95,
      rejectionDB: 140, delayMs: 3),
  ]
  /// The issue's rates, and 11,111 Hz: 11,111 : 48,000 has no common factor, so its table is the
  /// interpolated one (2,049 rows), here with the minimum-phase filter.
  static let rates = [
    8000, 11025, 11111, 16000, 22050, 24000, 32000, 44100, 88200, 96000, 192000,
  ]

  struct Case: Sendable, CustomStringConvertible {
    var target: Target
    var rate: Int
    var description: String { "\(target.name) \(rate)" }
  }

  static let cases = targets.flatMap { t in rates.map { Case(target: t, rate: $0) } }

  /// A stereo tone pair through one-shot conversion (latency dropped): each channel's fit, over
  /// the steady part (the filter's whole length from either end: a minimum-phase filter reaches
  /// its full length back, not half of it), 100 ms long (ten periods of the lowest tone).
  static func fitStereo(_ q: ResamplerQuality, rate: Int, _ f0: Double, _ f1: Double)
    -> (ToneFit, ToneFit)
  {
    let design = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: 2, quality: q)
    let steady = 480 + design.latency + design.taps * 48000 / rate
    let n = (2 * steady + 4800) * rate / 48000 + 1
    var x = [Float](repeating: 0, count: 2 * n)
    for i in 0..<n {
      let t = Double(i) / Double(rate)
      x[2 * i] = Float(0.5 * cos(2 * .pi * f0 * t))
      x[2 * i + 1] = Float(0.5 * cos(2 * .pi * f1 * t))
    }
    var r = design
    let y = resampleAligned(&r, x)
    let frames = y.count / 2
    let range = steady..<(frames - steady)
    return (
      ToneFit(y, stride: 2, offset: 0, frequency: f0 / 48000, range: range),
      ToneFit(y, stride: 2, offset: 1, frequency: f1 / 48000, range: range)
    )
  }

  @Test(arguments: cases)
  func toneSNRAndGain(_ c: Case) {
    let lower = Double(min(c.rate, 48000)) / 2
    let edge = c.target.gainEdge * lower
    // Tones from 100 Hz to the gain edge, spread over the band, in stereo pairs.
    let tones = [100, 0.13 * lower, 0.31 * lower, 0.52 * lower, 0.77 * lower, 0.86 * lower, edge]
    var worstSNR = Double.infinity
    var worstGain = 0.0
    for k in stride(from: 0, to: tones.count, by: 2) {
      let f0 = tones[k]
      let f1 = tones[min(k + 1, tones.count - 1)]
      let (a, b) = Self.fitStereo(c.target.quality, rate: c.rate, f0, f1)
      for (fit, f) in [(a, f0), (b, f1)] {
        worstGain = max(worstGain, abs(20 * log10(fit.amplitude / 0.5)))
        if f <= 0.9 * lower { worstSNR = min(worstSNR, fit.snrDB) }
      }
    }
    print(
      "preset \(c): worst SNR \(String(format: "%.1f", worstSNR)) dB, worst gain error "
        + "\(String(format: "%.5f", worstGain)) dB to \(c.target.gainEdge) x Nyquist")
    #expect(worstSNR >= c.target.snrDB)
    #expect(worstGain <= c.target.gainErrorDB)
  }

  @Test(arguments: cases.filter { $0.rate > 48000 })
  func rejection(_ c: Case) {
    // Downsampling: tones from the stop edge up to the input Nyquist must vanish. The first sits
    // 1 % of the way past the edge, not on it: with the edge at the output's Nyquist frequency,
    // a tone there aliases onto itself as (−1)^n times a level that depends on its phase, which
    // the RMS below would read up to 3 dB high.
    let outNyquist = 24000.0
    let inNyquist = Double(c.rate) / 2
    let start = c.target.quality.stopbandEdge * outNyquist
    var worst = -Double.infinity
    for fraction in [0.01, 0.25, 0.5, 0.75, 0.95] {
      let f = start + fraction * (inNyquist - start)
      let n = c.rate / 10
      let x = (0..<n).map { Float(0.5 * cos(2 * .pi * f * Double($0) / Double(c.rate))) }
      var r = PolyphaseResampler(
        inputRate: c.rate, outputRate: 48000, channelCount: 1, quality: c.target.quality)
      let y = resampleAligned(&r, x)
      let skip = 480 + r.latency
      let body = y[skip..<(y.count - skip)]
      let rms = (body.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(body.count))
        .squareRoot()
      worst = max(worst, 20 * log10(max(rms * 2.0.squareRoot(), 1e-20) / 0.5))
    }
    print("preset \(c): worst alias \(String(format: "%.1f", worst)) dB")
    #expect(-worst >= c.target.rejectionDB)
  }

  @Test(arguments: cases)
  func delayIsTheLatencyAndMeetsTheTarget(_ c: Case) {
    // The raw output of a low tone, latency not dropped: its phase gives the delay.
    // 20 Hz: a period of 2,400 frames, far longer than any delay, so the phase cannot wrap.
    let f = 20.0
    let n = c.rate / 4
    let x = (0..<n).map { Float(0.5 * cos(2 * .pi * f * Double($0) / Double(c.rate))) }
    var r = PolyphaseResampler(
      inputRate: c.rate, outputRate: 48000, channelCount: 1, quality: c.target.quality)
    var y = [Float](repeating: 0, count: r.maxOutputFrames(forInputFrames: n) + 8)
    let produced = x.withUnsafeBufferPointer { i in
      y.withUnsafeMutableBufferPointer { r.process(i, into: $0).produced }
    }
    let skip = 480 + 2 * r.latency
    let fit = ToneFit(
      Array(y[..<produced]), frequency: f / 48000, range: skip..<(produced - 480))
    let delayFrames = -fit.phase / (2 * .pi * f / 48000)
    let delayMs = delayFrames / 48
    print(
      "preset \(c): \(r.taps) taps, delay \(String(format: "%.3f", delayMs)) ms"
        + " (\(r.latency) frames)")
    #expect(abs(delayFrames - Double(r.latency)) < 0.01)
    #expect(delayMs <= c.target.delayMs)
  }

  /// The delay at every frequency of the band, not only the low ones: a minimum-phase filter
  /// (the presets' choice where linear phase would be too slow) delays the top of the band more.
  /// The phase of the table's response, unwrapped from 1 Hz up to the gain edge in small steps,
  /// gives each frequency's phase delay; with the latency it must stay within the target. The
  /// filter is minimum phase exactly where its linear-phase form's delay is over the target.
  @Test(arguments: cases)
  func phaseDelayAcrossTheBandMeetsTheTarget(_ c: Case) throws {
    let r = PolyphaseResampler(
      inputRate: c.rate, outputRate: 48000, channelCount: 1, quality: c.target.quality)
    let top = c.target.gainEdge * Double(min(c.rate, 48000)) / 2
    let worst = try Self.worstPhaseDelayMs(r, upTo: top)
    let linear = PolyphaseResampler(
      inputRate: c.rate, outputRate: 48000, channelCount: 1,
      quality: c.target.quality.with(phase: .linear))
    let linearMs = Double(linear.latency) / 48
    print(
      "preset \(c): \(r.isMinimumPhase ? "minimum" : "linear") phase, worst phase delay "
        + "\(String(format: "%.3f", worst)) ms to \(Int(top)) Hz (linear phase: "
        + "\(String(format: "%.3f", linearMs)) ms)")
    #expect(worst <= c.target.delayMs)
    #expect(r.isMinimumPhase == (linearMs > c.target.delayMs))
  }

  /// The largest phase delay, latency included, from 1 Hz to `top` Hz: the phase of the table's
  /// response (a few rows, each at its fractional position), unwrapped in 600 steps.
  static func worstPhaseDelayMs(_ r: PolyphaseResampler, upTo top: Double) throws -> Double {
    let bank = try #require(r.bank)
    let steps = 600
    let rows = bank.interpolationSteps == 0 ? bank.rows : bank.interpolationSteps
    let sampled = Swift.stride(from: 0, to: rows, by: max(1, rows / 8))
    var unwrapped = 0.0
    var previous = 0.0
    var worst = 0.0
    for i in 1...steps {
      let f = 1 + (top - 1) * Double(i - 1) / Double(steps - 1)
      let w = 2 * Double.pi * f / Double(r.inputRate)  // radians per input sample
      var re = 0.0
      var im = 0.0
      for row in sampled {
        let fraction = Double(row) / Double(rows)
        for k in 0..<bank.taps {
          let d = Double(k - (bank.lead - 1)) - fraction
          let h = Double(bank.coefficients[row * bank.taps + k])
          re += h * cos(w * d)
          im += h * sin(w * d)
        }
      }
      let phase = atan2(im, re)
      var step = phase - previous
      step -= 2 * Double.pi * (step / (2 * Double.pi)).rounded()
      unwrapped += step
      previous = phase
      // A delay of τ input samples turns e^{iωn} into e^{iω(n − τ)}: the phase is −ωτ.
      let delayMs =
        Double(r.latency) / Double(r.outputRate) * 1000
        + (-unwrapped / w) / Double(r.inputRate) * 1000
      worst = max(worst, delayMs)
    }
    return worst
  }

  /// From 48 kHz into lower rates (a recorder's 16 kHz, a telephone's 8 kHz) the same table
  /// holds: long downsampling filters turn minimum phase where linear phase would be too slow
  /// (`high` into 8 kHz would otherwise delay 24.75 ms). Tone SNR and gain to the gain edge,
  /// rejection of tones between the stop edge and 24 kHz, and the delay across the band.
  @Test(arguments: targets, [8000, 11025, 16000, 44100])
  func downsamplingFrom48kMeetsTheTable(_ t: Target, outputRate: Int) throws {
    let lower = Double(outputRate) / 2
    let r = PolyphaseResampler(
      inputRate: 48000, outputRate: outputRate, channelCount: 1, quality: t.quality)
    let delay = try Self.worstPhaseDelayMs(r, upTo: t.gainEdge * lower)
    func run(_ f: Double) -> [Float] {
      let x = (0..<12_000).map { Float(0.5 * cos(2 * .pi * f * Double($0) / 48000)) }
      var fresh = r
      return resampleAligned(&fresh, x)
    }
    let skip = 2 * r.latency + r.taps * outputRate / 48000 + outputRate / 100
    var worstSNR = Double.infinity
    var worstGain = 0.0
    for f in [100, 0.5 * lower, t.gainEdge * lower] {
      let y = run(f)
      let fit = ToneFit(
        y, frequency: f / Double(outputRate), range: skip..<(y.count - skip))
      if f <= 0.9 * lower { worstSNR = min(worstSNR, fit.snrDB) }
      worstGain = max(worstGain, abs(20 * log10(fit.amplitude / 0.5)))
    }
    // (A stop edge past the input's Nyquist, as fast's 1.1 × 22,050 Hz was, would leave no
    // stopband to test.)
    var worstAlias = -Double.infinity
    let stop = t.quality.stopbandEdge * lower
    for fraction in [0.01, 0.5, 0.95] where stop < 24000 {  // (0.01: as in `rejection`)
      let f = stop + fraction * (24000 - stop)
      let y = run(f)
      let body = y[skip..<(y.count - skip)]
      let rms = (body.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(body.count))
        .squareRoot()
      worstAlias = max(worstAlias, 20 * log10(max(rms * 2.0.squareRoot(), 1e-20) / 0.5))
    }
    print(
      "preset \(t.name) 48000 → \(outputRate): \(r.isMinimumPhase ? "minimum" : "linear") phase, "
        + "\(r.taps) taps, worst SNR \(String(format: "%.1f", worstSNR)) dB, gain error "
        + "\(String(format: "%.5f", worstGain)) dB, alias \(String(format: "%.1f", worstAlias)) dB, "
        + "worst delay \(String(format: "%.3f", delay)) ms")
    #expect(worstSNR >= t.snrDB)
    #expect(worstGain <= t.gainErrorDB)
    #expect(-worstAlias >= t.rejectionDB || stop >= 24000)
    #expect(delay <= t.delayMs)
  }
}

/// int16 output, measured on its own: its floor is the 16-bit quantization (for a sine of
/// amplitude A of full scale, 6.02 × 16 + 1.76 + 20·log10(A) dB: 92.1 dB at A = 0.5), and the
/// resampler must not be what limits it.
@Suite struct Int16OutputQualityTests {
  @Test(arguments: [8000, 32000, 44100, 96000])
  func int16OutputReachesTheQuantizationFloor(rate: Int) {
    let floor = 6.02 * 16 + 1.76 + 20 * log10(0.5)
    for f in [440.0, 0.5 * Double(min(rate, 48000)) / 2, 0.85 * Double(min(rate, 48000)) / 2] {
      let n = rate / 4
      let x = (0..<n).map { Float(0.5 * cos(2 * .pi * f * Double($0) / Double(rate))) }
      var r = PolyphaseResampler(inputRate: rate, outputRate: 48000, channelCount: 1)
      let y = resampleAligned(&r, x).map { Float(PCMEncoder.int16($0)) / 32768 }
      let fit = ToneFit(y, frequency: f / 48000, range: 1200..<(y.count - 1200))
      print("int16 \(rate) Hz → 48 kHz, \(Int(f)) Hz: SNR \(String(format: "%.2f", fit.snrDB)) dB")
      #expect(fit.snrDB >= floor - 1, "\(f) Hz: \(fit.snrDB) dB, floor \(floor) dB")
    }
  }
}
