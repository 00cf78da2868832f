import Foundation
import PCMMix

/// What goes wrong while a capture runs, as the threads of an adopter's process see it.
public enum Disruption: Sendable {
  /// The whole process stops (every thread) from host time `at` for `duration` seconds: nothing
  /// is delivered and nothing is pulled. When it resumes, the consumer's pulls that came due run
  /// first (a consumer that catches up, as the guide's `PullLoop` does), then the buffers that
  /// came due are delivered.
  case wholeProcessStall(at: Double, duration: Double)
  /// One source's capture callback is blocked from `at` for `duration` seconds; its buffers are
  /// delivered all at once when it resumes. The other source and the consumer go on.
  case callbackBlocked(CaptureSide, at: Double, duration: Double)

  /// When something due at host time `t` happens: at `t`, or at the end of the stall that
  /// holds it back (`pull`: a consumer's pull; `side`: a delivery of that source).
  func postpone(_ t: Double, pull: Bool, side: CaptureSide?) -> Double {
    switch self {
    case .wholeProcessStall(let at, let d):
      return t >= at && t < at + d ? at + d : t
    case .callbackBlocked(let blocked, let at, let d):
      return !pull && side == blocked && t >= at && t < at + d ? at + d : t
    }
  }
}

/// Drives a ``ClockedCapturePipeline`` with a ``CaptureSimulator``'s events as a live capture
/// would: each buffer is appended at its delivery time, and the output is pulled every
/// `pullFrames` frames of host time, from host time 0 on. Markers are measured as the output
/// passes them (only a few seconds of output are kept), so hour-long scenes run in bounded
/// memory: once where the pipeline says each block lies on the capture timeline
/// (``PullStatus/position``), and once as a recorder would find them, writing every block back to
/// back from the first stamped one (``PullStatus/time``).
public struct SceneRunner {
  /// What the scene gave.
  public struct Result {
    /// Where the app's markers landed on the capture timeline.
    public var app: MarkerReport
    /// Where the mic's markers landed on the capture timeline.
    public var mic: MarkerReport
    /// Where the app's markers landed in the output written back to back, against their host
    /// time (the first running block's ``PullStatus/time`` is the file's start).
    public var appWritten: MarkerReport
    /// Where the mic's markers landed in the output written back to back.
    public var micWritten: MarkerReport
    /// The app source's statistics at the end.
    public var appStatistics: CaptureSideStatistics
    /// The mic source's statistics at the end.
    public var micStatistics: CaptureSideStatistics
    /// The output clock's statistics at the end.
    public var clock: CaptureClockStatistics
    /// Pulls that gave fewer frames of a source than it had delivered for their interval in
    /// the end: the source's audio came after its place was pulled.
    public var lateEvents: Int { clock.lateEvents }
    /// The largest `retainedBytes` seen.
    public var peakRetainedBytes: Int
    /// After every pull: its host time (s) and the latency then (frames).
    public var latency: [(time: Double, frames: Int)]
    /// Running pulls in which the app, and the mic, gave nothing at all.
    public var silentPulls: (app: Int, mic: Int)
    /// Running pulls whose ``PullStatus/time`` did not start where the previous one ended.
    public var discontinuities: Int
  }

  /// The pipeline under test.
  public var pipeline: ClockedCapturePipeline
  /// Host time (seconds) of timeline frame 0: the pipeline's origin.
  public let origin: Double
  /// Offset added to every stamp, as host clocks start long before a capture does.
  public let hostOffset: Double
  /// Frames each pull asks for.
  public var pullFrames: Int
  let rate: Double

  /// A runner around `configuration`, whose origin is set to host time 0 of the scene.
  public init(
    _ configuration: ClockedCapturePipeline.Configuration = .init(),
    app: StreamDescription? = nil, mic: StreamDescription? = nil, pullFrames: Int = 480,
    hostOffset: Double = 86_400
  ) throws {
    var c = configuration
    c.origin = MediaTime(seconds: hostOffset)
    pipeline = try ClockedCapturePipeline(c, app: app, mic: mic)
    origin = 0
    self.hostOffset = hostOffset
    self.pullFrames = pullFrames
    rate = Double(c.outputRate)
  }

  /// Runs the scene to its end and measures the markers of `app` and `mic` (their
  /// `markerFrequency` and `markerDuration`), searching `searchRadius` frames around each.
  /// `disruptions` hold back deliveries and pulls. `onBlock` sees every pulled block with its
  /// status (its timeline position is nil while starting), and `afterPull` the pipeline after
  /// every pull; `stamp` may withhold an event's stamp (return `nil`) or change it.
  public mutating func run(
    app: SimulatedSource?, mic: SimulatedSource?, duration: Double, searchRadius: Int = 480,
    disruptions: [Disruption] = [],
    stamp: (CaptureEvent, MediaTime?) -> MediaTime? = { $1 },
    onEvent: (inout ClockedCapturePipeline, CaptureEvent) -> Void = { _, _ in },
    onBlock: (PullStatus, UnsafeBufferPointer<Float>) -> Void = { _, _ in },
    afterPull: (inout ClockedCapturePipeline) -> Void = { _ in }
  ) -> Result {
    var events = CaptureSimulator(app: app, mic: mic, duration: duration)
    // Events wait here until their (possibly postponed) time; the simulator gives them in
    // delivery order, and a postponement never reorders one source's buffers.
    var waiting: [(at: Double, event: CaptureEvent)] = []
    var appTracker = MarkerTracker(source: app, rate: rate, radius: searchRadius)
    var micTracker = MarkerTracker(source: mic, rate: rate, radius: searchRadius)
    var appWritten = MarkerTracker(source: app, rate: rate, radius: searchRadius)
    var micWritten = MarkerTracker(source: mic, rate: rate, radius: searchRadius)
    var block = [Float](repeating: 0, count: pullFrames * 2)
    var peak = 0
    var latency: [(Double, Int)] = []
    var silent = (app: 0, mic: 0)
    var discontinuities = 0
    // The file a recorder writes: its first frame's host time (scene seconds) and frames so far.
    var fileStart: Double?
    var fileFrames = 0
    var nextTime: MediaTime?
    func postponed(_ t: Double, pull: Bool, side: CaptureSide?) -> Double {
      disruptions.reduce(t) { $1.postpone($0, pull: pull, side: side) }
    }
    let totalPulls = Int((duration * rate / Double(pullFrames)).rounded(.up)) + 1
    var pending = events.next()
    for pulls in 0..<totalPulls {
      let due = Double((pulls + 1) * pullFrames) / rate
      let now = postponed(due, pull: true, side: nil)
      // Everything delivered before this pull runs: the events due by `now` whose delivery is
      // not held back past it (at a stall's end the pulls run first, so `<`).
      while let e = pending, e.deliveryTime <= now {
        waiting.append((postponed(e.deliveryTime, pull: false, side: e.side), e))
        pending = events.next()
      }
      var kept: [(at: Double, event: CaptureEvent)] = []
      for (at, e) in waiting {
        guard at < now || (at == now && at == e.deliveryTime) else {
          kept.append((at, e))
          continue
        }
        var time = e.time
        if let t = time {
          time = MediaTime(
            value: t.value + Int64(hostOffset * Double(t.timescale)), timescale: t.timescale)
        }
        time = stamp(e, time)
        e.bytes.withUnsafeBytes { bytes in
          try? pipeline.append(e.side, bytes, description: e.description, time: time)
        }
        onEvent(&pipeline, e)
      }
      waiting = kept
      let status = block.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
      block.withUnsafeBufferPointer { b in
        onBlock(status, b)
        if let p = status.position {
          appTracker.add(b, at: p)
          micTracker.add(b, at: p)
        }
        if let t = status.time {
          if let expected = nextTime, expected != t { discontinuities += 1 }
          nextTime = MediaTime(
            value: t.value + Int64(pullFrames) * Int64(t.timescale) / Int64(rate),
            timescale: t.timescale)
          if fileStart == nil { fileStart = t.seconds - hostOffset }
        }
        if let start = fileStart {
          let at = Int((start * rate).rounded()) + fileFrames
          appWritten.add(b, at: at)
          micWritten.add(b, at: at)
          fileFrames += pullFrames
        }
      }
      if status.phase == .running || status.phase == .holding {
        if status.appSilentFrames == pullFrames { silent.app += 1 }
        if status.micSilentFrames == pullFrames { silent.mic += 1 }
      }
      afterPull(&pipeline)
      latency.append((now, pipeline.clockStatistics.latencyFrames))
      peak = max(peak, pipeline.retainedBytes)
    }
    return Result(
      app: appTracker.report, mic: micTracker.report, appWritten: appWritten.report,
      micWritten: micWritten.report, appStatistics: pipeline.statistics(.app),
      micStatistics: pipeline.statistics(.mic), clock: pipeline.clockStatistics,
      peakRetainedBytes: peak, latency: latency, silentPulls: silent,
      discontinuities: discontinuities)
  }
}

/// Keeps the last few seconds of a stereo output and locates one source's markers in it as
/// they pass (marker at host time `m` expected at timeline frame `m × rate`).
public struct MarkerTracker {
  let markers: [Double]
  let frequency: Double
  let duration: Double
  let rate: Double
  let radius: Int
  /// Output frames kept: enough for a marker and its search window.
  let window: Int
  var kept: [Float] = []
  /// Timeline frame of `kept[0]`.
  var keptStart = 0
  var next = 0
  var errors: [Double?] = []

  /// A tracker of `source`'s markers, searched `radius` frames around where they belong.
  public init(source: SimulatedSource?, rate: Double, radius: Int) {
    markers = (source?.markers ?? []).sorted()
    frequency = source?.markerFrequency ?? 1000
    duration = source?.markerDuration ?? 0.01
    self.rate = rate
    self.radius = radius
    window = 2 * radius + Int(duration * rate) + 4 * 480
  }

  /// Takes the next output block, whose first frame is timeline frame `position`.
  public mutating func add(_ block: UnsafeBufferPointer<Float>, at position: Int) {
    guard next < markers.count else { return }
    if kept.isEmpty || keptStart + kept.count / 2 != position {
      kept = []
      keptStart = position
    }
    kept.append(contentsOf: block)
    let end = keptStart + kept.count / 2
    while next < markers.count {
      let expected = markers[next] * rate
      let needEnd = Int(expected) + radius + Int(duration * rate) + 2
      if needEnd > end { break }
      let local = expected - Double(keptStart)
      let found = kept.withUnsafeBufferPointer {
        MarkerDetector.locate(
          in: $0, channels: 2, rate: rate, frequency: frequency, duration: duration,
          near: local, searchRadius: radius)
      }
      errors.append(found.map { ($0 - local) / rate * 1000 })
      next += 1
    }
    if kept.count / 2 > 2 * window {
      let drop = kept.count / 2 - window
      kept.removeFirst(drop * 2)
      keptStart += drop
    }
  }

  /// The markers measured so far.
  public var report: MarkerReport { MarkerReport(errors: errors) }
}

extension ResamplerQuality {
  /// A short filter for tests of time and bookkeeping rather than filters, which run in debug
  /// builds where the resampler's dot products dominate their cost: the `fast` preset as it was
  /// before its stopband moved down to the Nyquist frequency (flat to 0.9 × Nyquist, 103 dB from
  /// 1.1 ×, linear phase within 1 ms: 72 taps from 44.1 kHz into 48 kHz, where `fast` now has
  /// 144). Its top tenth of the band aliases; these tests do not look there. (A valid
  /// specification, so the initializer cannot throw.)
  public static let shortForTests = try! ResamplerQuality(
    passbandEdge: 0.9, stopbandEdge: 1.1, attenuation: 103, phase: .linearWithin(seconds: 0.001))
}
