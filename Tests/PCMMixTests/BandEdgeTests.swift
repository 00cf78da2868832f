import Foundation
import Testing

@testable import PCMMix

/// Issue 13, point 1: no aliasing or imaging into the output band, for every built-in preset.
///
/// Each preset converts a −0.1 dBFS log sweep and tones at 0.95, 0.98 and 0.99 × the lower
/// Nyquist frequency (and 1.01 × when downsampling, content the output cannot carry), as
/// ``BandEdge`` measures them; the worst alias or image anywhere from DC to the output's Nyquist
/// frequency must be at least the preset's rejection below the signal. Tones up to the
/// passband edge must keep their level within the preset's flatness.
@Suite struct BandEdgeTests {
  /// The presets' targets, from their specification (`ResamplerQuality`'s documentation), not
  /// from measurements, as ``ResamplerPresetTests`` holds them: rejection (the issue's 100, 130
  /// and 140 dB; designed for 103, 133 and 150 dB: 3 dB for the Kaiser estimate's error and
  /// Float32 coefficients, and for `high` 10, since Float32 coefficients of about −150 dB each
  /// cannot keep 150 dB everywhere) and flatness to the passband edge (its gain error: 0.1, 0.01
  /// and 0.001 dB).
  typealias Preset = ResamplerPresetTests.Target
  static let presets = ResamplerPresetTests.targets

  /// Downsampling 96 → 44.1 / 48 kHz and 48 → 16 / 8 kHz; upsampling 8, 16, 32 and 44.1 kHz
  /// into 48 kHz.
  static let conversions = [
    (96_000, 44_100), (96_000, 48_000), (48_000, 16_000), (48_000, 8_000),
    (8_000, 48_000), (16_000, 48_000), (32_000, 48_000), (44_100, 48_000),
  ]

  struct Case: Sendable, CustomStringConvertible {
    var preset: Preset
    var inputRate: Int
    var outputRate: Int
    var description: String { "\(preset.name) \(inputRate) → \(outputRate)" }
  }

  /// The costliest first (`high`, in Double), so that parallel runs end together.
  static let cases = presets.reversed().flatMap { p in
    conversions.map { Case(preset: p, inputRate: $0.0, outputRate: $0.1) }
  }

  @Test(arguments: cases)
  func noAliasOrImageInTheOutputBand(_ c: Case) {
    let r = PolyphaseResampler(
      inputRate: c.inputRate, outputRate: c.outputRate, channelCount: 1,
      quality: c.preset.quality)
    let report = BandEdge.measure(
      inputRate: c.inputRate, outputRate: c.outputRate,
      delaySpread: Double(r.taps) / Double(c.inputRate), settle: r.taps + 8
    ) { r }
    let lower = Double(min(c.inputRate, c.outputRate)) / 2
    let tones = report.tones.map { t in
      String(
        format: "%.2f: %.1f dB (gain %@)", t.fraction, t.spur.levelDB,
        t.gainDB.map { String(format: "%.2f dB", $0) } ?? "-")
    }
    print(
      "band edge \(c): \(r.taps) taps, \(r.isMinimumPhase ? "minimum" : "linear") phase; "
        + "worst \(report.worst); sweep \(String(format: "%.1f", report.sweep.levelDB)) dB; "
        + "tones \(tones.joined(separator: ", "))")
    #expect(
      report.worst.levelDB <= -c.preset.rejectionDB,
      "\(c): \(report.worst) above −\(c.preset.rejectionDB) dB")

    // Flat to the passband edge: tones over the band, fitted together (each its own amplitude).
    let fractions = [0.02, 0.25, 0.5, 0.75, c.preset.quality.passbandEdge]
    let frequencies = fractions.map { $0 * lower }
    var fresh = r
    let n = 2 * (r.taps + 8) + 2048 * c.inputRate / c.outputRate
    let x = (0..<n).map { i in
      Float(
        frequencies.reduce(0.0) {
          $0 + 0.18 * sin(2 * .pi * $1 * Double(i) / Double(c.inputRate) + $1)
        })
    }
    let y = resampleAligned(&fresh, x)
    let skip = (r.taps + 8) * c.outputRate / c.inputRate + 16
    let fit = MultiToneFit(
      y, frequencies: frequencies.map { $0 / Double(c.outputRate) },
      range: skip..<(y.count - skip))
    let worstGain = fit.amplitudes.map { abs(20 * log10($0 / 0.18)) }.max()!
    print(
      "band edge \(c): passband gain error \(String(format: "%.5f", worstGain)) dB to "
        + "\(c.preset.quality.passbandEdge) × Nyquist")
    #expect(worstGain <= c.preset.gainErrorDB, "\(c): passband moves \(worstGain) dB")
  }

  /// The instrument: a tone at −0.1 dBFS with a spur 150 dB under it, 160 Hz away (where the
  /// image of a 0.99 × Nyquist tone from 16 kHz lands), must read as that spur, at its level and
  /// frequency; and a converter that changes nothing (equal rates pass through) must show
  /// nothing but its Float32 input's rounding, under −150 dB, in the sweep's windows and the
  /// tones, with the tones' gain 0 dB.
  @Test func theInstrumentReadsWhatIsThere() {
    let rate = 48_000
    let n = 8192
    let (f, spurFrequency) = (7_920.0, 8_080.3)
    let spurAmplitude = pow(10, -150.0 / 20) * BandEdge.amplitude
    let x = (0..<n).map { i -> Double in
      let t = Double(i) / Double(rate)
      return BandEdge.amplitude * sin(2 * .pi * f * t) + spurAmplitude
        * sin(2 * .pi * spurFrequency * t)
    }
    let guardHz = Double(BandEdge.guardBins) * Double(rate) / Double(n)
    let found = BandEdge.Spectrum(x).worst(rate: rate, excluding: [(f - guardHz)...(f + guardHz)])
    print("instrument: a spur at −150 dB, \(spurFrequency) Hz, read as \(found)")
    #expect(abs(found.levelDB + 150) < 0.05)
    #expect(abs(found.frequency - spurFrequency) < 0.5)

    let passThrough = PolyphaseResampler(inputRate: rate, outputRate: rate, channelCount: 1)
    let report = BandEdge.measure(inputRate: rate, outputRate: rate, settle: 64) { passThrough }
    print("instrument: pass-through worst \(report.worst)")
    #expect(report.worst.levelDB < -150)
    for t in report.tones {
      #expect(abs(t.gainDB ?? .infinity) < 1e-6, "\(t.fraction): \(t.gainDB ?? .nan) dB")
    }
  }
}
