import Foundation
import PCMMix
import PCMMixTestSupport
import Testing

/// The capture scenes (two clocks, bursts, stalls, a late source, a rate switch), on the
/// simulator: where each source's markers land in the
/// pulled output (host time of frame k is k / 48,000), and that a strict 10 ms pull never finds
/// audio that arrived too late.
@Suite struct CaptureTimingSceneTests {
  static func app(_ markers: [Double]) -> SimulatedSource { .replayKitApp(markers: markers) }
  static func mic(_ markers: [Double]) -> SimulatedSource { .replayKitMic(markers: markers) }

  /// Markers every `every` seconds from `first`, app and mic interleaved.
  static func markers(from first: Double, to last: Double, every: Double) -> [Double] {
    stride(from: first, through: last, by: every).map { $0 }
  }

  static func check(_ r: SceneRunner.Result, within ms: Double, _ label: String) {
    print(
      "\(label): app \(r.app), mic \(r.mic), latency \(r.clock.latencyFrames) frames, late \(r.lateEvents)"
    )
    if ProcessInfo.processInfo.environment["SCENE_DEBUG"] != nil {
      print(
        "  app \(r.appStatistics)\n  mic \(r.micStatistics)\n  clock \(r.clock)\n  app errors \(r.app.errors)\n  mic errors \(r.mic.errors)"
      )
    }
    #expect(r.app.missing == 0, "\(label): app markers missing")
    #expect(r.mic.missing == 0, "\(label): mic markers missing")
    #expect(r.app.maxAbsError <= ms, "\(label): app \(r.app)")
    #expect(r.mic.maxAbsError <= ms, "\(label): mic \(r.mic)")
    #expect(r.lateEvents == 0, "\(label): \(r.lateEvents) pulls found late audio")
    for s in [r.appStatistics, r.micStatistics] {
      #expect(s.framesIn == s.framesEmitted + s.framesDropped + s.framesBuffered)
    }
  }

  /// The pipeline for scene tests: a short filter (``ResamplerQuality/shortForTests``: the scenes
  /// test time, not filters, and run in debug builds), everything else as configured by
  /// `change`.
  static func runner(
    _ a: SimulatedSource?, _ m: SimulatedSource?,
    _ change: (inout ClockedCapturePipeline.Configuration) -> Void = { _ in }
  ) throws -> SceneRunner {
    var c = ClockedCapturePipeline.Configuration(
      resampler: ResamplerFactory.variableRatio(.shortForTests))
    change(&c)
    return try SceneRunner(
      c, app: a.map { $0.streamDescription(rate: $0.rate) },
      mic: m.map { $0.streamDescription(rate: $0.rate) })
  }

  @Test func normalCaptureLandsOnTime() throws {
    let a = Self.app(Self.markers(from: 1, to: 9, every: 2))
    let m = Self.mic(Self.markers(from: 2, to: 8, every: 2))
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 10)
    Self.check(r, within: 1, "normal")
    // 1,024-frame buffers at 32 kHz need 1,536 frames, a pull and 20 ms: the 100 ms floor.
    #expect(r.clock.latencyFrames == 4_800)
    #expect(r.appStatistics.gaps == 0 && r.micStatistics.gaps == 0)
    #expect(r.appStatistics.inputFramesTrimmed == 0 && r.micStatistics.inputFramesTrimmed == 0)
  }

  @Test func aMicClock300PPMFastStaysOnItsStamps() throws {
    // 40 s at 300 ppm would put the mic 12 ms late without correction.
    let a = Self.app(Self.markers(from: 1, to: 39, every: 2))
    var m = Self.mic(Self.markers(from: 2, to: 38, every: 2))
    m.clockPPM = 300
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 40)
    Self.check(r, within: 1, "300 ppm")
    #expect(abs(r.micStatistics.driftPPM - 300) < 10, "estimated \(r.micStatistics.driftPPM) ppm")
    #expect(abs(r.appStatistics.driftPPM) < 10)
    // Steered, not trimmed: the stamps never drifted out of tolerance.
    #expect(r.micStatistics.inputFramesTrimmed == 0 && r.micStatistics.gaps == 0)
  }

  @Test func withoutDriftCorrectionTheSameMicIsTrimmedInsteadOfSteered() throws {
    var m = Self.mic(Self.markers(from: 2, to: 38, every: 2))
    m.clockPPM = 300
    var runner = try Self.runner(nil, m) { $0.driftCorrection = .off }
    let r = runner.run(app: nil, mic: m, duration: 40)
    // Each time the error passes the 1 ms tolerance, the overlap is cut: 12 ms in 40 s.
    print("no correction: mic \(r.mic), trimmed \(r.micStatistics.inputFramesTrimmed) frames")
    #expect(r.micStatistics.inputFramesTrimmed > 300)
    #expect(r.mic.maxAbsError <= 1.5)
  }

  @Test func aMicThatStartsThreeSecondsLateLandsAtItsTime() throws {
    let a = Self.app(Self.markers(from: 1, to: 11, every: 2))
    var m = Self.mic(Self.markers(from: 3.5, to: 11.5, every: 2))
    m.start = 3
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 12)
    Self.check(r, within: 1, "late mic")
    // The output did not wait 3 s for the mic: it started after the startup wait, and the mic
    // was silent until it came.
    #expect(r.clock.startingFrames <= 36_000 + 480)
    #expect(r.micStatistics.framesSilent > 2 * 48_000)
  }

  @Test func anAppThatPausesFiveSecondsComesBackAtItsTime() throws {
    var a = Self.app(
      Self.markers(from: 1, to: 5, every: 2) + Self.markers(from: 11.5, to: 15.5, every: 2))
    a.pauses = [(at: 6, duration: 5)]
    let m = Self.mic(Self.markers(from: 2, to: 16, every: 2))
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 17)
    Self.check(r, within: 1, "app pause")
    #expect(r.appStatistics.gaps == 1)
    #expect(abs(Double(r.appStatistics.gapFrames) - 5 * 48_000) < 2_048)
  }

  @Test func burstsOf22596FramesAreNeverLate() throws {
    var a = Self.app(Self.markers(from: 1, to: 9, every: 2))
    a.buffering = .bursts(frames: 22_596, period: 22_596.0 / 44_100)
    let m = Self.mic(Self.markers(from: 2, to: 8, every: 2))
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 10)
    Self.check(r, within: 1, "bursts")
    // The latency took the bursts in from the start: one burst, one pull and 20 ms.
    #expect(r.clock.latencyRaises == 0)
    #expect(r.clock.latencyFrames >= 24_594)
  }

  @Test func aMicSwitchingFrom48To16KilohertzLandsOnTime() throws {
    let a = Self.app(Self.markers(from: 1, to: 11, every: 2))
    var m = Self.mic(Self.markers(from: 2, to: 10, every: 2) + [5.02, 5.5])
    m.rate = 48_000
    m.rateSwitches = [(at: 5, rate: 16_000)]
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 12)
    Self.check(r, within: 1, "rate switch")
    #expect(r.micStatistics.inputRate == 16_000)
  }

  @Test func stampsInOtherTimescalesLandOnTime() throws {
    var a = Self.app(Self.markers(from: 1, to: 9, every: 2))
    a.timescale = 44_100
    var m = Self.mic(Self.markers(from: 2, to: 8, every: 2))
    m.timescale = 600  // a video timescale: stamps quantized to 1.67 ms
    m.clockPPM = -150
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 10)
    Self.check(r, within: 1, "timescales")
    #expect(r.micStatistics.gaps == 0 && r.micStatistics.inputFramesTrimmed == 0)
  }

  @Test func stampsThatCannotBeRightBreakNothing() throws {
    var a = Self.app(Self.markers(from: 1, to: 9, every: 2))
    a.backwardsStamp = [40, 200]  // one buffer each, stamped a second early
    a.duplicateBuffers = [100]  // delivered twice
    var m = Self.mic(Self.markers(from: 2, to: 8, every: 2))
    m.stuckStamps = (from: 60, count: 20)  // twenty buffers under one stamp
    m.noiseAmplitude = 0.001  // real buffers differ, even between markers
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 10)
    Self.check(r, within: 1, "bad stamps")
    #expect(r.appStatistics.arrivalPlacedBuffers == 2)
    #expect(r.appStatistics.duplicateBuffers == 1)
    #expect(r.micStatistics.arrivalPlacedBuffers == 19)
    #expect(r.appStatistics.resyncs == 0 && r.micStatistics.resyncs == 0)
  }

  @Test func unstampedSourcesAreAlignedAgainAfterAPause() throws {
    // No stamps: each source is placed by arrival, so only the two sources' offsets against
    // each other can be asked for: within the latency, never the hundreds of milliseconds a
    // paused source used to leave behind for good.
    var a = Self.app(
      Self.markers(from: 1, to: 5, every: 2) + Self.markers(from: 11.5, to: 15.5, every: 2))
    a.pauses = [(at: 6, duration: 5)]
    a.timestamps = false
    var m = Self.mic(
      Self.markers(from: 1.25, to: 5.25, every: 2) + Self.markers(from: 11.75, to: 15.75, every: 2))
    m.timestamps = false
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 17, searchRadius: 9_600)
    print("unstamped: app \(r.app.errors), mic \(r.mic.errors), latency \(r.clock.latencyFrames)")
    #expect(r.app.missing == 0 && r.mic.missing == 0)
    let latency = Double(r.clock.latencyFrames) / 48
    for (x, y) in zip(r.app.errors, r.mic.errors) {
      let gap = abs(x! - y!)
      #expect(gap <= latency, "app and mic \(gap) ms apart")
    }
    #expect(r.appStatistics.restarts == 1)
    #expect(r.lateEvents == 0)
  }

  @Test func aMicThatNeverStartsHoldsNothingBack() throws {
    let a = Self.app(Self.markers(from: 1, to: 9, every: 2))
    var runner = try Self.runner(a, Self.mic([]))
    let r = runner.run(app: a, mic: nil, duration: 10)
    #expect(r.app.missing == 0 && r.app.maxAbsError <= 1, "\(r.app)")
    // The output started once the startup wait (0.75 s) was over, and the mic was silence.
    #expect(r.clock.startingFrames <= 36_000 + 480)
    #expect(r.micStatistics.framesSilent == r.clock.framesPulled - r.clock.startingFrames)
    #expect(r.lateEvents == 0)
  }

  @Test func aDisabledMicComesBackAtItsTime() throws {
    let a = Self.app(Self.markers(from: 1, to: 11, every: 2))
    let m = Self.mic(Self.markers(from: 2, to: 10, every: 2))
    var runner = try Self.runner(a, m)
    var disabled = false
    var enabled = false
    let r = runner.run(
      app: a, mic: m, duration: 12,
      onEvent: { pipeline, e in
        if !disabled && e.deliveryTime > 3.5 {
          pipeline.setEnabled(.mic, false)
          disabled = true
        }
        if !enabled && e.deliveryTime > 5.5 {
          pipeline.setEnabled(.mic, true)
          enabled = true
        }
      })
    // The mic marker at 4 s fell in the disabled stretch; the others land on time.
    #expect(r.app.missing == 0 && r.app.maxAbsError <= 1)
    #expect(r.mic.errors[1] == nil)
    #expect(r.mic.errors.enumerated().allSatisfy { $0.offset == 1 || abs($0.element ?? 99) <= 1 })
    #expect(r.micStatistics.framesDropped > 0 && r.micStatistics.framesLate == 0)
    #expect(r.lateEvents == 0)
  }

  @Test func fillLevelSteeringFollowsAnUnstampedFastMic() throws {
    var a = Self.app([])
    a.timestamps = false
    var m = Self.mic([])
    m.timestamps = false
    m.clockPPM = 300
    var runner = try Self.runner(a, m) { $0.driftCorrection = .timestampsAndFillLevel }
    let r = runner.run(app: a, mic: m, duration: 40)
    // A slow loop (20 s): by 40 s it has learnt most of the 300 ppm, and never had to drop.
    print("fill level: mic ratio adjustment \(r.micStatistics.ratioAdjustment * 1e6) ppm")
    #expect(r.micStatistics.ratioAdjustment * 1e6 < -100)
    #expect(r.micStatistics.ratioAdjustment * 1e6 > -600)
    #expect(r.micStatistics.framesDropped == 0)
  }
}
