import Foundation
import Testing

@testable import PCMMix

/// The level meter: peak and RMS of known signals, the floor for silence, the hold and its fall,
/// clipped samples, and the SIMD pass against a plain one at every length.
@Suite struct LevelMeterTests {
  /// Measures `samples` (interleaved, `channels` wide) in one block.
  static func measure(_ meter: inout LevelMeter, _ samples: [Float], channels: Int = 2) {
    samples.withUnsafeBufferPointer {
      guard let base = $0.baseAddress else { return }
      meter.measure(base, frames: samples.count / channels, channels: channels)
    }
  }

  /// One second of a 997 Hz sine at `amplitude` on both channels, left and right in phase
  /// opposition (the meter takes all channels together).
  static func sine(amplitude: Double) -> [Float] {
    (0..<48_000).flatMap { n -> [Float] in
      let v = Float(amplitude * sin(2 * Double.pi * 997 * Double(n) / 48_000))
      return [v, -v]
    }
  }

  @Test(arguments: [(1.0, 0.0, -3.01), (0.5, -6.02, -9.03)])
  func sineLevels(amplitude: Double, peak: Float, rms: Float) {
    var meter = LevelMeter()
    Self.measure(&meter, Self.sine(amplitude: amplitude))
    let r = meter.reading
    #expect(abs(r.peakDBFS - peak) <= 0.01, "peak \(r.peakDBFS)")
    #expect(abs(r.rmsDBFS - rms) <= 0.01, "rms \(r.rmsDBFS)")
    #expect(r.heldPeakDBFS == r.peakDBFS)
    #expect(r.clippedSamples == 0, "exactly full scale is not clipped")
  }

  @Test func silenceReadsTheFloor() {
    var meter = LevelMeter()
    #expect(meter.reading.peakDBFS == LevelMeter.floorDBFS)
    Self.measure(&meter, [Float](repeating: 0, count: 1_024))
    let r = meter.reading
    #expect(r.peakDBFS == -160 && r.rmsDBFS == -160 && r.heldPeakDBFS == -160)
    // Quieter than the floor reads the floor too; an empty block changes nothing.
    Self.measure(&meter, [Float](repeating: 1e-12, count: 64))
    #expect(meter.reading.peakDBFS == -160 && meter.reading.rmsDBFS == -160)
    Self.measure(&meter, [0.5, 0.5])
    Self.measure(&meter, [])
    meter.measure([0.9], frames: 1, channels: 0)
    #expect(abs(meter.reading.peakDBFS + 6.0206) < 0.001)
  }

  /// A −6 dBFS block, then 10 ms blocks of silence: the held peak stays 1 s, then falls
  /// 20 dB/s to the floor; a louder block holds anew, a quieter one below the held peak does
  /// not, and one above the falling peak does.
  @Test func holdThenFall() {
    var meter = LevelMeter()
    let silence = [Float](repeating: 0, count: 2 * 480)
    Self.measure(&meter, [0.5, -0.25])
    let peak: Float = -6.0206
    var held: [Float] = []
    for _ in 0..<1_000 {
      Self.measure(&meter, silence)
      held.append(meter.reading.heldPeakDBFS)
    }
    // After k blocks, k × 10 ms have passed since the peak's block.
    for k in [1, 50, 100] { #expect(abs(held[k - 1] - peak) < 0.001, "\(k * 10) ms") }
    for k in [101, 150, 200, 500] {
      let expected = peak - 20 * (Float(k) * 0.01 - 1)
      #expect(abs(held[k - 1] - expected) < 0.01, "\(k * 10) ms: \(held[k - 1]) vs \(expected)")
    }
    #expect(held.last == LevelMeter.floorDBFS)

    Self.measure(&meter, [0.25, 0])  // −12 dBFS: held
    Self.measure(&meter, [0.5, 0])  // −6 dBFS: louder, held anew
    Self.measure(&meter, [0.125, 0])  // −18 dBFS: below the held peak, which stays
    #expect(abs(meter.reading.heldPeakDBFS - peak) < 0.001)
    #expect(abs(meter.reading.peakDBFS + 18.06) < 0.01)
    for _ in 0..<150 { Self.measure(&meter, silence) }  // 1 s hold, then 0.5 s: −16 dBFS
    #expect(abs(meter.reading.heldPeakDBFS - (peak - 10)) < 0.01)
    Self.measure(&meter, [0.25, 0])  // −12 dBFS: above the falling peak, held anew
    #expect(abs(meter.reading.heldPeakDBFS + 12.04) < 0.01)
  }

  /// Other ballistics: no hold, 60 dB/s.
  @Test func otherBallistics() {
    var meter = LevelMeter(.init(sampleRate: 44_100, holdSeconds: 0, decayDBPerSecond: 60))
    Self.measure(&meter, [1, 1])
    Self.measure(&meter, [Float](repeating: 0, count: 2 * 4_410))
    #expect(abs(meter.reading.heldPeakDBFS + 6) < 0.01)
  }

  @Test func clippedSamplesAccumulate() {
    var meter = LevelMeter()
    Self.measure(&meter, [1, -1, 0.5, 1.0000001, -1.5, 0, 2, 0.99])
    #expect(meter.reading.clippedSamples == 3)
    #expect(abs(meter.reading.peakDBFS - 6.0206) < 0.001)
    // Long enough for the SIMD pass, with its tail.
    var block = [Float](repeating: 0.1, count: 1_001)
    for i in stride(from: 0, to: 1_001, by: 10) { block[i] = i % 20 == 0 ? 1.01 : -3 }
    Self.measure(&meter, block, channels: 1)
    #expect(meter.reading.clippedSamples == 3 + 101)
    // Non-finite samples count as clipped and as silence in the levels.
    var bad = [Float](repeating: 0.5, count: 100)
    bad[3] = .nan
    bad[50] = .infinity
    bad[99] = -.infinity
    Self.measure(&meter, bad)
    let r = meter.reading
    #expect(r.clippedSamples == 3 + 101 + 3)
    #expect(abs(r.peakDBFS + 6.0206) < 0.001)
    #expect(abs(r.rmsDBFS - Float(10 * log10(0.25 * 97 / 100))) < 0.001)
    meter.reset()
    #expect(meter.reading == LevelMeter().reading)
  }

  /// The SIMD pass agrees with a plain Double one at every length from 0 to 70 samples and at
  /// a few long ones.
  @Test func simdPassMatchesPlainSums() {
    var rng = SplitMix64(seed: 60)
    for count in Array(0...70) + [1_000, 4_095, 4_096, 4_097, 20_000] {
      let x = (0..<count).map { _ in Float.random(in: -1.2...1.2, using: &rng) }
      var meter = LevelMeter()
      Self.measure(&meter, x, channels: 1)
      guard count > 0 else {
        #expect(meter.reading.peakDBFS == LevelMeter.floorDBFS)
        continue
      }
      let peak = x.map { Double(abs($0)) }.max()!
      let ms = x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(count)
      #expect(abs(Double(meter.reading.peakDBFS) - 20 * log10(peak)) < 1e-4, "\(count)")
      #expect(abs(Double(meter.reading.rmsDBFS) - 10 * log10(ms)) < 1e-4, "\(count)")
      #expect(meter.reading.clippedSamples == x.filter { abs($0) > 1 }.count, "\(count)")
    }
  }

  @Test func configurationIsClamped() {
    let c = LevelMeter.Configuration(sampleRate: .min, holdSeconds: -1, decayDBPerSecond: 1e9)
      .clamped
    #expect(
      c == LevelMeter.Configuration(sampleRate: 8_000, holdSeconds: 0, decayDBPerSecond: 1_000))
    #expect(LevelMeter.Configuration(sampleRate: .max).clamped.sampleRate == 768_000)
  }
}
