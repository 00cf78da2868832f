import Foundation
import PCMMixTestSupport
import Synchronization
import Testing

@testable import PCMMix

/// The real-time front: hand-off rings in front of a ``ClockedCapturePipeline``. Single-threaded
/// it gives the very bits the clocked pipeline gives; on three threads (run it under
/// ThreadSanitizer with `make tsan`) it loses nothing it does not count.
@Suite struct RealtimeCapturePipelineTests {
  static let config: ClockedCapturePipeline.Configuration = {
    var c = ClockedCapturePipeline.Configuration(
      resampler: ResamplerFactory.variableRatio(.shortForTests))
    c.latency = .fixed(seconds: 0.1)
    return c
  }()

  static func scene(seconds: Double) -> (SimulatedSource, SimulatedSource, [CaptureEvent]) {
    var app = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be)
    app.tone = (frequency: 1_000, amplitude: 0.3)
    var mic = SimulatedSource(rate: 32_000, channels: 1, encoding: .s16le)
    mic.tone = (frequency: 440, amplitude: 0.3)
    mic.buffering = .fixed(frames: 700)
    return (app, mic, Array(CaptureSimulator(app: app, mic: mic, duration: seconds)))
  }

  static func stamp(_ e: CaptureEvent) -> MediaTime? {
    e.time.map { MediaTime(value: $0.value + 1_000 * Int64($0.timescale), timescale: $0.timescale) }
  }

  @Test func singleThreadedItGivesTheClockedPipelinesBits() throws {
    let (a, m, events) = Self.scene(seconds: 3)
    let af = a.streamDescription(rate: a.rate)
    let mf = m.streamDescription(rate: m.rate)
    var clocked = try ClockedCapturePipeline(Self.config, app: af, mic: mf)
    let realtime = try RealtimeCapturePipeline(Self.config, app: af, mic: mf)
    var x = [Int16](repeating: 0, count: 960)
    var y = [Int16](repeating: 0, count: 960)
    var next = 0
    var pulls = 0
    var running = 0
    for tick in 1...300 {
      let now = Double(tick) * 0.01
      while next < events.count && events[next].deliveryTime <= now {
        let e = events[next]
        try e.bytes.withUnsafeBytes {
          try clocked.append(e.side, $0, description: e.description, time: Self.stamp(e))
          try realtime.append(e.side, $0, description: e.description, time: Self.stamp(e))
        }
        next += 1
      }
      let s1 = x.withUnsafeMutableBufferPointer { clocked.pull(into: $0) }
      let s2 = y.withUnsafeMutableBufferPointer { realtime.pull(into: $0) }
      #expect(s1 == s2)
      #expect(x == y)
      pulls += 1
      if s1.phase == .running { running += 1 }
    }
    #expect(running > 250)
    let stats = realtime.statistics
    #expect(stats.app == clocked.statistics(.app))
    #expect(stats.mic == clocked.statistics(.mic))
    #expect(stats.clock == clocked.clockStatistics)
  }

  /// The app and mic callbacks on their own threads, a consumer pulling on a third and a fourth
  /// thread reading the counters and changing a gain, all at once, for every buffer of a 4 s
  /// scene; then the counters add up and nothing was lost that was not counted. With `voice`,
  /// the README's configuration for a broadcast extension with ducking and the loudness meter
  /// as well (echo cancellation, policy `limit`), and the reader reads what a UI timer would:
  /// the meters, the canceller's state and the loudness (`make tsan` runs both).
  @Test(arguments: [false, true])
  func threeThreadsAndAReader(voice: Bool) throws {
    let (a, m, events) = Self.scene(seconds: 4)
    let appEvents = events.filter { $0.side == .app }
    let micEvents = events.filter { $0.side == .mic }
    var config = Self.config
    if voice {
      config.policy = .limit
      config.echoCancellation = EchoCancellation()
      config.ducking = Ducking()
      config.meterLoudness = true
    }
    let pipeline = try RealtimeCapturePipeline(
      config, app: a.streamDescription(rate: a.rate), mic: m.streamDescription(rate: m.rate))
    let producers = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let group = DispatchGroup()
    func spawn(_ body: @escaping @Sendable () -> Void) {
      group.enter()
      Thread {
        body()
        group.leave()
      }.start()
    }
    for (side, list) in [(CaptureSide.app, appEvents), (.mic, micEvents)] {
      spawn {
        for e in list {
          e.bytes.withUnsafeBytes {
            do {
              try pipeline.append(side, $0, description: e.description, time: Self.stamp(e))
            } catch {
              failures.add(1, ordering: .relaxed)
            }
          }
        }
        pipeline.finish(side)
        producers.add(1, ordering: .releasing)
      }
    }
    let pulled = Atomic<Int>(0)
    spawn {
      var out = [Float](repeating: 0, count: 960)
      // Pull until both producers are done and a second more has been pulled.
      var after = 0
      while after < 100 {
        _ = out.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
        pulled.add(1, ordering: .relaxed)
        if producers.load(ordering: .acquiring) == 2 { after += 1 }
      }
    }
    spawn {
      while producers.load(ordering: .acquiring) < 2 {
        let s = pipeline.statistics
        #expect(s.app.framesIn >= s.app.framesEmitted)
        if voice, let meters = s.meters, let echo = s.echo {
          #expect(meters.mic.heldPeakDBFS <= 0 && echo.blocks >= 0)
          #expect(s.loudness.map { !$0.momentaryLUFS.isNaN } ?? true)
        }
        pipeline.setGain(.mic, dB: -3)
      }
    }
    group.wait()
    #expect(failures.load(ordering: .relaxed) == 0)
    let s = pipeline.statistics
    for side in [s.app, s.mic] {
      #expect(side.framesIn == side.framesEmitted + side.framesDropped + side.framesBuffered)
      #expect(side.framesIn > 0)
    }
    // Every buffer was handed over or counted as dropped at the hand-off.
    #expect(s.app.buffers + s.appHandoffDrops == appEvents.count)
    #expect(s.mic.buffers + s.micHandoffDrops == micEvents.count)
    // The voice stages ran and published what they measured.
    #expect((s.echo?.blocks ?? 0 > 0) == voice)
    #expect((s.loudness != nil) == voice)
  }

  @Test func twoThreadsAppendingToOneSourceAreRefusedNotRaced() throws {
    let pipeline = try RealtimeCapturePipeline(Self.config)
    let d = StreamDescription(
      PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .s16, byteOrder: .little))
    let bytes = [UInt8](repeating: 0, count: 4 * 4_800)
    let refused = Atomic<Int>(0)
    let group = DispatchGroup()
    for _ in 0..<2 {
      group.enter()
      Thread {
        for _ in 0..<2_000 {
          bytes.withUnsafeBytes {
            do throws(CaptureError) { try pipeline.append(.app, $0, description: d) } catch {
              #expect(error == .concurrentCall)
              refused.add(1, ordering: .relaxed)
            }
          }
        }
        group.leave()
      }.start()
    }
    group.wait()
    let s = pipeline.statistics
    #expect(s.concurrentCalls == refused.load(ordering: .relaxed))
  }

  @Test func aFullRingDropsAndCountsAndALongBufferKeepsItsNewestPart() throws {
    let d = StreamDescription(
      PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .s16, byteOrder: .little))
    let pipeline = try RealtimeCapturePipeline(Self.config, app: d, handoffBytes: 16_384)
    let small = [UInt8](repeating: 1, count: 4 * 1_000)
    for _ in 0..<10 { try small.withUnsafeBytes { try pipeline.append(.app, $0, description: d) } }
    // As many 4,000-byte buffers with their headers as 16 KiB hold; the rest were dropped.
    let fit = 16_384 / (HandoffRing.headerBytes + 4_000)
    #expect(fit == 4)
    var out = [Int16](repeating: 0, count: 960)
    _ = out.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
    var s = pipeline.statistics
    #expect(s.app.buffers == fit && s.appHandoffDrops == 10 - fit)
    // A buffer longer than the ring: its newest frames that fit, stamped where they begin.
    let long = [UInt8](repeating: 2, count: 4 * 10_000)
    try long.withUnsafeBytes {
      try pipeline.append(.app, $0, description: d, time: MediaTime(seconds: 10))
    }
    _ = out.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
    s = pipeline.statistics
    #expect(s.app.buffers == fit + 1)
    #expect(s.app.inputFrames == fit * 1_000 + (16_384 - HandoffRing.headerBytes) / 4)
  }

  @Test func badBuffersAreRefusedAtTheCallback() throws {
    let pipeline = try RealtimeCapturePipeline(Self.config)
    let d = StreamDescription(
      PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .s16, byteOrder: .little))
    let odd = [UInt8](repeating: 0, count: 6)
    #expect(throws: CaptureError.format(.partialFrame(byteCount: 6, bytesPerFrame: 4))) {
      try odd.withUnsafeBytes { try pipeline.append(.mic, $0, description: d) }
    }
    var slow = d
    slow.sampleRate = 100
    #expect(throws: CaptureError.format(.invalidSampleRate(100))) {
      try odd.withUnsafeBytes { try pipeline.append(.mic, $0, description: slow) }
    }
  }
}
