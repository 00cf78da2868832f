import Foundation
import Testing

@testable import PCMMix

/// The timing loops as a control engineer checks them: the drift loop's step response against
/// its critically damped design, and a gap's silence frame by frame.
@Suite struct LoopResponseTests {
  /// A source whose clock steps from exact to `drift` fast after `stepAt` seconds, in 10 ms
  /// buffers of 480 frames at 48 kHz, through the real `SourceClock` (placement, steering,
  /// advance). Returns the ratio adjustment and the position error (output frames, stamp −
  /// expected) per buffer from the step on.
  static func stepResponse(
    drift: Double, timeConstant: Double, seconds: Double, stepAt: Double = 1
  ) -> (adjustment: [Double], error: [Double]) {
    let step = Int(stepAt * 100)
    var clock = SourceClock(
      .init(
        outputRate: 48_000, tolerance: 0.001, maxOverlap: 0.25, steers: true,
        timeConstant: timeConstant, maxAdjustment: 0.002))
    let format = PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s16)
    let word: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
    let fingerprint = word.withUnsafeBytes {
      Fingerprint(PCMPlanes(contiguous: $0.baseAddress, frames: 4, format: format))
    }
    var host = 0.0
    var adjustment: [Double] = []
    var error: [Double] = []
    for k in 0..<Int(seconds * 100) {
      let stamp = MediaTime(value: Int64((host * 1e9).rounded()), timescale: 1_000_000_000)
      let expected = clock.expected
      _ = clock.place(
        stamp: stamp, position: host * 48_000, frames: 480, rate: 48_000, fingerprint: fingerprint,
        now: nil, window: 1e9)
      clock.advance(frames: 480, rate: 48_000)
      if k >= step {
        adjustment.append(clock.adjustment)
        error.append(host * 48_000 - (expected ?? 0))
      }
      host += k < step ? 0.01 : 0.01 / (1 + drift)
    }
    return (adjustment, error)
  }

  /// Kp = 2/τ, Ki = 1/τ² puts both poles at −1/τ. For a step of `d` in the source's rate, the
  /// position error is d·t·e^(−t/τ): it peaks at t = τ at d·τ/e and returns to 0 without crossing
  /// it; the correction is d·(1 − e^(−x)(1 − x)), x = t/τ, overshooting by e^(−2) ≈ 13.5 % at
  /// x = 2 and staying within 2 % of d after x ≈ 5.4. A proportional gain of 1/τ (ζ = 0.5)
  /// overshoots by 30 % with an error that crosses zero by 16 %; 3/τ overshoots by 8 %.
  /// Once the loop has found the clock (after its acquisition, 3.5 τ = 7 s of stamped audio).
  @Test func theDriftLoopHasTheCriticallyDampedStepResponse() {
    let (d, tau) = (500e-6, 2.0)
    let (adjustment, error) = Self.stepResponse(
      drift: d, timeConstant: tau, seconds: 40, stepAt: 10)
    let target = 1 / (1 + d) - 1  // the ratio that takes the faster clock's frames in time
    let overshoot = (adjustment.min()! - target) / target
    #expect(abs(overshoot - exp(-2)) < 0.01, "overshoot \(overshoot)")

    let peak = error.max(by: { abs($0) < abs($1) })!
    let peakIndex = error.firstIndex(of: peak)!
    #expect(abs(abs(peak) / (d * tau / M_E * 48_000) - 1) < 0.03, "peak error \(peak) frames")
    #expect(abs(Double(peakIndex) * 0.01 - tau) < 0.1, "peak at \(Double(peakIndex) * 0.01) s")
    // Critically damped: the error never crosses to the other side (by 1 % of its peak).
    #expect(error.allSatisfy { $0 * peak.sign.factor >= -0.01 * abs(peak) })

    let unsettled = adjustment.lastIndex { abs($0 - target) > 0.02 * abs(target) }!
    let settling = Double(unsettled + 1) * 0.01 / tau
    #expect(settling > 5.0 && settling < 5.8, "settled within 2 % after \(settling) τ")
  }

  /// A clock off from the first buffer on: found while the loop is still fast
  /// (`SourceClock.acquisition`), so the source stays near its stamps; a fixed 2 s loop lets it
  /// wander d·τ/e (11 frames at 300 ppm) and takes 5.4 τ (11 s) to settle within 2 %.
  @Test func aClockOffFromTheStartIsFoundWithinASecond() {
    let (d, tau) = (300e-6, 2.0)
    let (adjustment, error) = Self.stepResponse(
      drift: d, timeConstant: tau, seconds: 20, stepAt: 0)
    let target = 1 / (1 + d) - 1
    let peak = error.map(abs).max()!
    let unsettled = adjustment.lastIndex { abs($0 - target) > 0.02 * abs(target) }!
    // Measured: 1.61 frames at most, 0.71 from 2 s on, within 2 % after 2.16 s.
    #expect(peak <= 2, "peak error \(peak) frames")
    #expect(error[200...].allSatisfy { abs($0) <= 1 }, "from 2 s on")
    #expect(Double(unsettled + 1) * 0.01 <= 3, "within 2 % after \(Double(unsettled + 1) * 0.01) s")
  }

  /// A 200 ms gap in the app's stamps (a lost run of buffers), with a full-scale-free constant
  /// signal around it and a silent mic: every frame of the gap is exactly 0 in both channels,
  /// from the end of the audio before it (its fade-out included) to the start of the audio
  /// after it.
  @Test func aGapIsSilenceInBothChannelsForItsWholeLength() throws {
    let app = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .f32))
    let mic = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .f32))
    var c = ClockedCapturePipeline.Configuration()
    c.latency = .fixed(seconds: 0.1)
    var pipeline = try ClockedCapturePipeline(c, app: app, mic: mic)
    let level: Float = 0.25
    let appBuffer = [Float](repeating: level, count: 2 * 480)
    let micBuffer = [Float](repeating: 0, count: 480)
    let (gapStart, gapEnd) = (100, 120)  // buffers: 1.00 s … 1.20 s
    var timeline = [Float](repeating: .nan, count: 2 * 48_000 * 3)
    var block = [Float](repeating: 0, count: 2 * 480)
    for k in 0..<250 {
      let time = MediaTime(value: Int64(k) * 480, timescale: 48_000)
      if k < gapStart || k >= gapEnd {
        try appBuffer.withUnsafeBytes {
          try pipeline.append(.app, $0, description: app, time: time)
        }
      }
      try micBuffer.withUnsafeBytes { try pipeline.append(.mic, $0, description: mic, time: time) }
      let status = block.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
      if let p = status.position, p >= 0, 2 * (p + 480) <= timeline.count {
        timeline.replaceSubrange(2 * p..<2 * (p + 480), with: block)
      }
    }
    let fade = Int((c.fadeSeconds * 48_000).rounded())
    // The audio before and after is at its steady level (the policy's share of `level`) past
    // the fades, so the gap's edges are where they should be.
    let steady = timeline[2 * 24_000]
    #expect(steady > 0 && steady <= level)
    // Within a millionth: the drift loop, fast while it acquires the clock, moves the
    // resampler's ratio by a hair before the gap and the constant level by an ulp.
    #expect(abs(timeline[2 * (gapStart * 480 - fade - 10)] - steady) <= 1e-6)
    #expect(abs(timeline[2 * (gapEnd * 480 + fade + 10) + 1] - steady) <= 1e-6)
    let gap = timeline[2 * gapStart * 480..<2 * gapEnd * 480]
    #expect(!gap.contains { $0.isNaN }, "the whole gap was pulled")
    let loud = gap.indices.filter { gap[$0] != 0 }
    let first = loud.first.map { ($0 - gap.startIndex) / 2 } ?? -1
    #expect(
      loud.count == 0, "\(loud.count) of \(gap.count) gap samples not 0, first at frame \(first)")
  }
}

extension FloatingPointSign {
  fileprivate var factor: Double { self == .minus ? -1 : 1 }
}
