import Foundation
import PCMMix

/// Drives a ``ClockedCapturePipeline`` with a ``CaptureSimulator``'s events as a live capture
/// would: each buffer is appended at its delivery time, and the output is pulled every
/// `pullFrames` frames of host time, from host time 0 on. Markers are measured as the output
/// passes them (only a few seconds of output are kept), so hour-long scenes run in bounded
/// memory.
public struct SceneRunner {
  /// What the scene gave.
  public struct Result {
    /// Where the app's and the mic's markers landed.
    public var app: MarkerReport
    /// Where the mic's markers landed.
    public var mic: MarkerReport
    /// The app source's statistics at the end.
    public var appStatistics: CaptureSourceStatistics
    /// The mic source's statistics at the end.
    public var micStatistics: CaptureSourceStatistics
    /// The output clock's statistics at the end.
    public var clock: CaptureClockStatistics
    /// Pulls that gave fewer frames of a source than it had delivered for their interval in
    /// the end: the source's audio came after its place was pulled.
    public var lateEvents: Int { clock.lateEvents }
    /// The largest `retainedBytes` seen.
    public var peakRetainedBytes: Int
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
  /// `onBlock` sees every pulled block with its status (its timeline position is nil while
  /// starting or holding); `stamp` may withhold an event's stamp (return `nil`) or change it.
  public mutating func run(
    app: SimulatedSource?, mic: SimulatedSource?, duration: Double, searchRadius: Int = 480,
    stamp: (CaptureEvent, MediaTime?) -> MediaTime? = { $1 },
    onEvent: (inout ClockedCapturePipeline, CaptureEvent) -> Void = { _, _ in },
    onBlock: (PullStatus, UnsafeBufferPointer<Float>) -> Void = { _, _ in }
  ) -> Result {
    var events = CaptureSimulator(app: app, mic: mic, duration: duration)
    var pending = events.next()
    var appTracker = MarkerTracker(source: app, rate: rate, radius: searchRadius)
    var micTracker = MarkerTracker(source: mic, rate: rate, radius: searchRadius)
    var block = [Float](repeating: 0, count: pullFrames * 2)
    var peak = 0
    var pulls = 0
    let totalPulls = Int((duration * rate / Double(pullFrames)).rounded(.up)) + 1
    while pulls < totalPulls {
      let now = Double((pulls + 1) * pullFrames) / rate
      while let e = pending, e.deliveryTime <= now {
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
        pending = events.next()
      }
      let status = block.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
      block.withUnsafeBufferPointer { b in
        onBlock(status, b)
        if let p = status.position {
          appTracker.add(b, at: p)
          micTracker.add(b, at: p)
        }
      }
      peak = max(peak, pipeline.retainedBytes)
      pulls += 1
    }
    return Result(
      app: appTracker.report, mic: micTracker.report,
      appStatistics: pipeline.statistics(.app), micStatistics: pipeline.statistics(.mic),
      clock: pipeline.clockStatistics, peakRetainedBytes: peak)
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
