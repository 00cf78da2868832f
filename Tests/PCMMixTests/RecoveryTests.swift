import Foundation
import PCMMix
import PCMMixTestSupport
import Testing

/// Disruptions as adopters meet them (a stall of the whole process, one blocked callback, a
/// device clock reset, bursts, a mic that starts late), on the simulator: what is heard, where
/// the latency goes and comes back, and where the audio lands in the output written back to
/// back from ``PullStatus/time``, as a recorder writes it.
@Suite struct RecoveryTests {
  static func markers(from first: Double, to last: Double, every: Double) -> [Double] {
    stride(from: first, through: last, by: every).map { $0 }
  }

  static func runner(_ a: SimulatedSource?, _ m: SimulatedSource?) throws -> SceneRunner {
    try CaptureTimingSceneTests.runner(a, m)
  }

  /// The latency (frames) at the last pull before host time `t`.
  static func latency(at t: Double, _ r: SceneRunner.Result) -> Int {
    r.latency.last { $0.time < t }?.frames ?? 0
  }

  /// Tones in both sources (steps are measurable), markers for where they land.
  static func toneSources() -> (SimulatedSource, SimulatedSource) {
    var a = SimulatedSource.replayKitApp(markers: [])
    a.tone = (frequency: 441.7, amplitude: 0.3)
    var m = SimulatedSource.replayKitMic(markers: [])
    m.tone = (frequency: 617.3, amplitude: 0.3)
    return (a, m)
  }

  @Test func aWholeProcessStallRaisesTheLatencyAndItComesBackUnheard() throws {
    let (a, m) = Self.toneSources()
    var runner = try Self.runner(a, m)
    // The output as written, and its largest sample-to-sample step in steady playback (before
    // the stall) and while the latency comes down (from a second after it).
    var previous: (Float, Float)?
    var steady: Float = 0
    var lowering: Float = 0
    var pulls = 0
    let r = runner.run(
      app: a, mic: m, duration: 75, disruptions: [.wholeProcessStall(at: 10, duration: 0.3)],
      onBlock: { status, block in
        pulls += 1
        let t = Double(pulls * 480) / 48_000
        guard status.time != nil else { return }
        for i in 0..<(block.count / 2) {
          let (l, r) = (block[2 * i], block[2 * i + 1])
          if let (pl, pr) = previous {
            let step = max(abs(l - pl), abs(r - pr))
            if t > 2 && t < 9.5 { steady = max(steady, step) }
            if t > 11.3 { lowering = max(lowering, step) }
          }
          previous = (l, r)
        }
      })
    let before = Self.latency(at: 9.9, r)
    let peak = r.latency.filter { $0.time > 10 && $0.time < 12 }.map(\.frames).max() ?? 0
    let back = r.latency.first { $0.time > 10.4 && abs($0.frames - before) <= 960 }
    print(
      "stall: latency \(before) -> \(peak) frames, back within 20 ms at \(back?.time ?? .nan) s;"
        + " steps steady \(steady), while lowering \(lowering); \(r.clock)")
    #expect(peak >= before + 9_600, "the stall raised the latency (holding kept its audio)")
    #expect(back != nil && back!.time <= 10.3 + 60, "latency came back within 60 s")
    #expect(abs(Self.latency(at: 75, r) - before) <= 960)
    #expect(lowering <= 1.5 * steady, "a step while lowering: \(lowering) against \(steady)")
    #expect(r.clock.latencyLowerings >= 1 && r.clock.compressedFrames > 9_000)
    #expect(r.discontinuities == 0)
  }

  @Test func oneBlockedCallbackNeverSilencesTheOtherSource() throws {
    var a = SimulatedSource.replayKitApp(markers: [])
    a.tone = (frequency: 441.7, amplitude: 0.3)
    var m = SimulatedSource.replayKitMic(
      markers: Self.markers(from: 2, to: 9, every: 1) + Self.markers(from: 15.5, to: 24, every: 1))
    m.tone = (frequency: 300, amplitude: 0.05)
    var runner = try Self.runner(a, m)
    // Pulls, from a second in (the clock starts a latency before both sources' first audio),
    // in which each source gave nothing.
    var pulls = 0
    var silent = (app: 0, mic: 0)
    let r = runner.run(
      app: a, mic: m, duration: 25,
      disruptions: [.callbackBlocked(.app, at: 10, duration: 5)],
      onBlock: { status, _ in
        pulls += 1
        guard pulls > 100 else { return }
        if status.appSilentFrames == 480 { silent.app += 1 }
        if status.micSilentFrames == 480 { silent.mic += 1 }
      })
    print(
      "blocked app: silent pulls mic \(silent.mic), app \(silent.app), latency"
        + " \(Self.latency(at: 9.9, r)) -> \(Self.latency(at: 25, r)), mic written \(r.micWritten)")
    #expect(silent.mic == 0, "the mic went silent while only the app stalled")
    #expect(silent.app > 400, "the app's 5 s were silence")
    #expect(Self.latency(at: 25, r) == Self.latency(at: 9.9, r), "one stall raised nothing")
    #expect(r.micWritten.missing == 0 && r.micWritten.maxAbsError <= 1, "\(r.micWritten)")
    #expect(r.appStatistics.framesLate > 0)
  }

  @Test func aSourceWhoseClockStepsBackTenSecondsIsHeardAtOnce() throws {
    let a = SimulatedSource.replayKitApp(markers: Self.markers(from: 1, to: 19, every: 2))
    let m = SimulatedSource.replayKitMic(
      markers: Self.markers(from: 2, to: 9, every: 1)
        + Self.markers(from: 10.05, to: 19.05, every: 1))
    var runner = try Self.runner(a, m)
    let r = runner.run(
      app: a, mic: m, duration: 20,
      stamp: { e, t in
        // From 10 s on, the mic's stamps are ten seconds early, for good.
        guard e.side == .mic, e.trueStart >= 10, let t else { return t }
        return MediaTime(value: t.value - 10 * Int64(t.timescale), timescale: t.timescale)
      })
    print("clock reset: mic \(r.mic), resyncs \(r.micStatistics.resyncs)")
    #expect(r.mic.missing == 0, "mic markers after the reset: \(r.mic.errors)")
    #expect(r.mic.maxAbsError <= 1)
    #expect(r.micStatistics.resyncs == 1)
    #expect(r.app.missing == 0 && r.app.maxAbsError <= 1)
  }

  @Test func aSourceWhoseClockJumpsAheadIsHeardAtOnce() throws {
    let a = SimulatedSource.replayKitApp(markers: Self.markers(from: 1, to: 19, every: 2))
    let m = SimulatedSource.replayKitMic(markers: Self.markers(from: 2, to: 19, every: 1))
    var runner = try Self.runner(a, m)
    let r = runner.run(
      app: a, mic: m, duration: 20,
      stamp: { e, t in
        guard e.side == .mic, e.trueStart >= 9.5, let t else { return t }
        return MediaTime(value: t.value + 10 * Int64(t.timescale), timescale: t.timescale)
      })
    print("clock jump: mic \(r.mic), resyncs \(r.micStatistics.resyncs)")
    #expect(r.mic.missing == 0 && r.mic.maxAbsError <= 1, "\(r.mic.errors)")
    #expect(r.micStatistics.resyncs == 1)
  }

  /// Markers of both sources written back to back land within 1 ms of their host time.
  static func checkWritten(_ r: SceneRunner.Result, _ label: String) {
    print("\(label): written app \(r.appWritten), mic \(r.micWritten); \(r.clock)")
    #expect(r.appWritten.missing == 0 && r.appWritten.maxAbsError <= 1, "\(label): app")
    #expect(r.micWritten.missing == 0 && r.micWritten.maxAbsError <= 1, "\(label): mic")
    #expect(r.discontinuities == 0, "\(label): the output clock jumped")
  }

  @Test func writtenBackToBackTheOutputStaysOnHostTimeThroughBursts() throws {
    var a = SimulatedSource.replayKitApp(markers: Self.markers(from: 1, to: 19, every: 2))
    a.buffering = .bursts(frames: 22_596, period: 22_596.0 / 44_100)
    let m = SimulatedSource.replayKitMic(markers: Self.markers(from: 2, to: 18, every: 2))
    var runner = try Self.runner(a, m)
    Self.checkWritten(runner.run(app: a, mic: m, duration: 20), "bursts")
  }

  @Test func writtenBackToBackTheOutputStaysOnHostTimeWithALateMic() throws {
    let a = SimulatedSource.replayKitApp(markers: Self.markers(from: 1, to: 19, every: 2))
    // The mic starts 3 s in, and its first four buffers come 150 ms late.
    var m = SimulatedSource.replayKitMic(markers: Self.markers(from: 4, to: 18, every: 2))
    m.start = 3
    m.startupDelay = (buffers: 4, seconds: 0.15)
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 20)
    Self.checkWritten(r, "late mic")
    #expect(r.clock.latencyRaises == 0 && r.micStatistics.framesLate > 0)
  }

  @Test func writtenBackToBackTheOutputStaysOnHostTimeThroughABlockedCallback() throws {
    let a = SimulatedSource.replayKitApp(
      markers: Self.markers(from: 1, to: 9, every: 2) + Self.markers(from: 16, to: 24, every: 2))
    let m = SimulatedSource.replayKitMic(markers: Self.markers(from: 2, to: 24, every: 2))
    var runner = try Self.runner(a, m)
    let r = runner.run(
      app: a, mic: m, duration: 25, disruptions: [.callbackBlocked(.app, at: 10, duration: 5)])
    Self.checkWritten(r, "blocked callback")
  }

  @Test func aSourceLateAgainAndAgainGetsTheLatencyItNeeds() throws {
    let a = SimulatedSource.replayKitApp(markers: Self.markers(from: 1, to: 19, every: 2))
    // Every mic buffer arrives 150 ms after its last frame: more than the 100 ms latency.
    var m = SimulatedSource.replayKitMic(markers: Self.markers(from: 4, to: 18, every: 2))
    m.deliveryDelay = 0.15
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 20)
    print("late again and again: mic \(r.mic), \(r.clock)")
    #expect(r.clock.latencyRaises == 1)
    #expect(r.clock.latencyFrames >= Int(0.15 * 48_000) + 1_536)
    // From 4 s on the mic is on time, where its stamps put it.
    #expect(r.mic.missing == 0 && r.mic.maxAbsError <= 1)
    #expect(r.discontinuities == 0)
  }

  @Test func afterBothSourcesPauseTheLatencyComesBackAtOnce() throws {
    // Both sources pause 5 s (a broadcast paused): the output holds while both run dry, then
    // skips the silence when they come back, instead of playing them a second late.
    var a = SimulatedSource.replayKitApp(
      markers: Self.markers(from: 1, to: 9, every: 2) + Self.markers(from: 15.5, to: 19.5, every: 2)
    )
    a.pauses = [(at: 10, duration: 5)]
    var m = SimulatedSource.replayKitMic(
      markers: Self.markers(from: 2, to: 8, every: 2) + Self.markers(from: 16, to: 19, every: 1))
    m.pauses = [(at: 10, duration: 5)]
    var runner = try Self.runner(a, m)
    let r = runner.run(app: a, mic: m, duration: 20)
    print("both paused: app \(r.app), mic \(r.mic), \(r.clock)")
    #expect(r.app.missing == 0 && r.mic.missing == 0)
    #expect(Self.latency(at: 15.5, r) <= Self.latency(at: 9.9, r) + 960)
    #expect(r.clock.silenceSkippedFrames > 0)
  }
}

/// A mic switching between 48 and 16 kHz (AirPods' hands-free profile) goes on without a seam:
/// the old rate's resampler rings out past the switch, the new one starts early, and their
/// outputs are summed, so a tone across each switch keeps its level, with no fade and no click.
@Suite struct SeamlessRateSwitchTests {
  static func run(_ quality: ResamplerQuality) throws -> (
    levels: [Double], steps: [Float], steady: Float
  ) {
    // The device's sample clock goes on across each switch: the switches fall on sample
    // boundaries of both rates, and the stamps carry no jitter.
    var m = SimulatedSource(rate: 48_000, channels: 1, encoding: .s16le)
    m.tone = (frequency: 997, amplitude: 0.3)
    m.rateSwitches = [(at: 3.0015, rate: 16_000), (at: 6.0075, rate: 48_000)]
    m.timestampJitter = 0
    var c = ClockedCapturePipeline.Configuration(resampler: .variableRatio(quality))
    c.policy = .limit
    var runner = try SceneRunner(c, mic: m.streamDescription(rate: 48_000))
    runner.pipeline.setEnabled(.app, false)
    var output = [Float](repeating: 0, count: 2 * 48_000 * 9)
    _ = runner.run(
      app: nil, mic: m, duration: 9,
      onBlock: { status, block in
        guard let p = status.position, p >= 0 else { return }
        for i in 0..<min(block.count, output.count - 2 * p) { output[2 * p + i] = block[i] }
      })
    // The level of every 5 ms window from 1 s to 8 s (dB against the tone's), and the largest
    // sample-to-sample step within 20 ms of each switch and away from them.
    var levels: [Double] = []
    var n = 48_000
    while n < 8 * 48_000 {
      var sum = 0.0
      for i in n..<(n + 240) { sum += Double(output[2 * i]) * Double(output[2 * i]) }
      levels.append(10 * log10(sum / 240 / (0.3 * 0.3 / 2)))
      n += 240
    }
    func step(_ range: Range<Int>) -> Float {
      var most: Float = 0
      for i in range { most = max(most, abs(output[2 * i] - output[2 * i - 2])) }
      return most
    }
    let switches = [3.0015, 6.0075].map { Int($0 * 48_000) }
    if ProcessInfo.processInfo.environment["SWITCH_DUMP"] != nil {
      for i in (switches[0] - 200)..<(switches[0] + 1200) {
        let want = 0.3 * sin(2 * Double.pi * 997 * Double(i) / 48_000)
        print("dump \(i - switches[0]) \(output[2 * i]) \(want)")
      }
    }
    let steps = switches.map { step(($0 - 960)..<($0 + 960)) }
    let steady = step(48_000..<(2 * 48_000))
    return (levels, steps, steady)
  }

  @Test(arguments: [ResamplerQuality.shortForTests, .balanced])
  func aToneAcrossEachSwitchKeepsItsLevel(quality: ResamplerQuality) throws {
    let (levels, steps, steady) = try Self.run(quality)
    let (low, high) = (levels.min()!, levels.max()!)
    print("rate switch: level \(low) … \(high) dB, steps \(steps) against steady \(steady)")
    #expect(low >= -0.5 && high <= 0.5, "level \(low) … \(high) dB")
    for s in steps { #expect(s <= 1.5 * steady, "a click: step \(s) against \(steady)") }
  }
}
