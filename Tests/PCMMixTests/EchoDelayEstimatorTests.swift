import Foundation
import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The delay search reads the echo's lag between its decimated samples
/// (``EchoDelayEstimator/fractionalLag``): the drift it reads is the slope of those lags, so a
/// lag that clings to the whole decimated lags reads a drift in steps.
@Suite struct EchoDelayEstimatorTests {
  /// `white` through a windowed-sinc low-pass at 3.4 kHz whose kernel is moved `shift`
  /// samples late: out[i] is the low-passed noise at i − `shift`.
  static func lowPassed(_ white: [Float], by shift: Double, rate: Int) -> [Float] {
    let half = 32
    let cutoff = 3_400 / Double(rate)
    // Tap k (−half ... half) under a Blackman window.
    let taps = (-half...half).map { k in
      let t = Double(k) - shift
      let sinc = t == 0 ? 2 * cutoff : sin(2 * Double.pi * cutoff * t) / (Double.pi * t)
      let u = Double.pi * t / Double(half + 1)
      return Float(sinc * (0.42 + 0.5 * cos(u) + 0.08 * cos(2 * u)))
    }
    var out = [Float](repeating: 0, count: white.count)
    white.withUnsafeBufferPointer { w in
      taps.withUnsafeBufferPointer { h in
        for i in half..<(white.count - half) {
          var sum: Float = 0
          for k in 0...(2 * half) { sum += h[k] * w[i + half - k] }
          out[i] = sum
        }
      }
    }
    return out
  }

  /// `reference` (`white` low-passed), and as the mic the same noise `delay` frames late
  /// (the low-pass's kernel moved by the delay's fraction), fed in blocks of 256 frames for
  /// 1 s. (Content above the search's 4 kHz aliases in its decimation by averaging, unlike
  /// for the two signals at a fraction of a sample apart: on white noise the lags read were
  /// up to 0.64 frames off at 48 kHz, 0.85 with the parabola.)
  static func lag(rate: Int, white: [Float], reference: [Float], delay: Double) -> (
    found: Int?, lag: Double
  ) {
    let (whole, fraction) = (Int(delay.rounded(.down)), delay - delay.rounded(.down))
    let mic =
      [Float](repeating: 0, count: whole)
      + lowPassed(white, by: fraction, rate: rate).prefix(white.count - whole)
    let count = white.count
    var estimator = EchoDelayEstimator(
      rate: rate, maximumDelay: 0.3, interval: EchoCanceller.blocks(lasting: 12, rate: rate))
    reference.withUnsafeBufferPointer { r in
      mic.withUnsafeBufferPointer { m in
        for b in 0..<(count / 256) {
          _ = estimator.push(
            reference: r.baseAddress! + 256 * b, mic: m.baseAddress! + 256 * b, count: 256,
            active: true)
        }
      }
    }
    return (estimator.found, estimator.fractionalLag)
  }

  /// An echo 50 ms late and 0.3 frames, then moved by a quarter of a decimated sample at a
  /// time (at 48 kHz the search's samples are 6 frames apart, at 44.1 kHz 5, at 16 kHz 2):
  /// each lag is read within a twentieth of a frame (0.011 at most). With the parabola through
  /// the peak and its neighbours, as until ``EchoDelayEstimator/peak(re:im:bins:size:near:sign:)``,
  /// the lags read were up to 1.10 frames off at 48 kHz, 0.63 at 44.1 and 0.40 at 16.
  @Test(arguments: [48_000, 44_100, 16_000])
  func aLagBetweenTheSearchsSamplesIsReadWithinATwentiethOfAFrame(rate: Int) {
    let factor = rate / 8_000
    var rng = SplitMix64(seed: 0xDE1A)
    let white = rng.noise(rate)
    let reference = Self.lowPassed(white, by: 0, rate: rate)
    for quarter in 0..<4 {
      let delay = 0.05 * Double(rate) + Double(quarter * factor) / 4 + 0.3
      let (found, lag) = Self.lag(
        rate: rate, white: white, reference: reference, delay: delay)
      #expect(found.map { abs(Double($0) - delay) <= Double(factor) } == true)
      #expect(abs(lag - delay) <= 0.05, "at \(rate) Hz: \(lag) for \(delay)")
      print("EchoDelayEstimator \(rate) Hz: \(delay) read as \(lag)")
    }
  }
}
