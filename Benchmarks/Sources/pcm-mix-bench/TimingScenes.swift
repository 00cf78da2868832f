import PCMMix
import PCMMixAccelerated
import PCMMixTestSupport

/// Section 5: time. Simulated captures (`PCMMixTestSupport`'s `CaptureSimulator`: two clocks,
/// jittered delivery, markers at known host times) through the pipelines, and what they cost.
///
/// - drift: 20 minutes (`--seconds 60`; it scales) with the mic clock 300 ppm fast and the app on
///   the host clock, four ways: stamped and steered (the default), stamped without steering,
///   stamped once and then counted (as shipped mixers place audio), and today's `CapturePipeline`;
/// - hour: an hour (scaled likewise) of the same capture with the defaults;
/// - cost: per-callback and per-pull time and allocations with stamps and drift correction on,
///   beside today's append + mix;
/// - switch: a mic switching between 48 and 16 kHz every second, against an ordinary callback.
enum TimingScenes {
  static let section = "timing"

  static func run(_ options: Options, report: Report, allocCounterWorks: Bool) {
    let rows = [
      "drift/steered", "drift/unsteered", "drift/stamped-once", "drift/today", "hour/default",
      "cost/today", "cost/clocked", "cost/clocked-avx2", "cost/realtime", "cost/realtime-limit",
      "cost/realtime-planar", "switch/prepared",
    ]
    guard report.wants(section: section, rows: rows) else { return }
    let minutes = 20 * options.scale
    drift(minutes: minutes, report: report)
    hour(minutes: 3 * minutes, report: report)
    cost(seconds: max(4, 60 * options.scale), report: report, allocCounterWorks: allocCounterWorks)
    rateSwitch(
      seconds: max(4, 60 * options.scale), report: report, allocCounterWorks: allocCounterWorks)
  }

  // MARK: - Scenes

  /// The capture: 44.1 kHz stereo s16be app and 32 kHz mono s16le mic in 1,024-frame
  /// buffers, markers every 10 s (app at 5, 25, 45 … s, mic at 15, 35, …).
  static func sources(seconds: Double, micPPM: Double) -> (SimulatedSource, SimulatedSource) {
    var app = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be)
    app.markers = Array(stride(from: 5.0, to: seconds - 2, by: 20))
    app.markerFrequency = 1_000
    app.seed = 11
    var mic = SimulatedSource(rate: 32_000, channels: 1, encoding: .s16le)
    mic.clockPPM = micPPM
    mic.markers = Array(stride(from: 15.0, to: seconds - 2, by: 20))
    mic.markerFrequency = 2_500
    mic.seed = 12
    return (app, mic)
  }

  static var defaultResampler: ResamplerFactory {
    ResamplerFactory.acceleratedVariableRatio(.balanced)
  }

  static func drift(minutes: Double, report: Report) {
    let seconds = minutes * 60
    let (app, mic) = sources(seconds: seconds, micPPM: 300)
    let table = Table(columns: [
      ("scene", 20), ("app p50 ms", 10), ("app max ms", 10), ("mic p50 ms", 10),
      ("mic max ms", 10), ("missing", 7), ("late pulls", 10), ("trimmed", 9), ("x realtime", 10),
    ])
    table.start(
      "Drift: \(fixed(minutes, 1)) minutes, mic clock +300 ppm, app on the host clock; marker "
        + "|error| against host time (ClockedCapturePipeline, balanced; 'today' is "
        + "CapturePipeline, aligned on its first app marker)")
    let radius = 48_000  // ±1 s: unsteered audio may be hundreds of milliseconds off
    for name in ["drift/steered", "drift/unsteered", "drift/stamped-once", "drift/today"]
    where report.wants(section: section, row: name) {
      let t0 = nowNS()
      let placed = place(
        Placement(rawValue: String(name.dropFirst("drift/".count)))!, app: app, mic: mic,
        seconds: seconds, radius: radius)
      let (appReport, micReport) = (placed.app, placed.mic)
      let (late, trimmed) = (placed.lateEvents, placed.micFramesTrimmed)
      let elapsed = Double(nowNS() - t0) * 1e-9
      table.row([
        name, fixed(appReport.p50AbsError, 3), fixed(appReport.maxAbsError, 3),
        fixed(micReport.p50AbsError, 3), fixed(micReport.maxAbsError, 3),
        "\(appReport.missing + micReport.missing)", "\(late)", "\(trimmed)",
        fixed(seconds / elapsed, 0),
      ])
      let rec = { report.record(section, name, $0, $1, $2) }
      rec("minutes", minutes, "min")
      rec("app_error_p50", appReport.p50AbsError, "ms")
      rec("app_error_max", appReport.maxAbsError, "ms")
      rec("mic_error_p50", micReport.p50AbsError, "ms")
      rec("mic_error_max", micReport.maxAbsError, "ms")
      rec("markers_missing", Double(appReport.missing + micReport.missing), "count")
      rec("markers", Double(appReport.errors.count + micReport.errors.count), "count")
      rec("late_pulls", Double(late), "count")
      rec("mic_frames_trimmed", Double(trimmed), "frames")
    }
    emit(
      "  (steered: the default; unsteered: driftCorrection .off, the stamps still place the audio, "
        + "so the error is cut back by trimming whenever it passes 1 ms; stamped-once: only each "
        + "source's first buffer is stamped, then audio goes on by count as shipped mixers place "
        + "it; today: CapturePipeline, no stamps, mixed as it arrives, bounded by its lag bound)")
  }

  /// The ways the drift scene places a capture on the host timeline.
  enum Placement: String, CaseIterable {
    /// Stamps and drift correction (the defaults).
    case steered
    /// Stamps, drift correction off: the stamps place the audio, trimming catches it up.
    case unsteered
    /// Only each source's first buffer stamped, then placed by count.
    case stampedOnce = "stamped-once"
    /// Today's `CapturePipeline`: no stamps, mixed as it arrives.
    case today
  }

  /// Where the markers of `app` and `mic` landed (searched ±`radius` output frames) after
  /// `seconds` of their capture placed `placement`'s way, with the balanced resampler.
  static func place(
    _ placement: Placement, app: SimulatedSource, mic: SimulatedSource, seconds: Double,
    radius: Int
  ) -> (app: MarkerReport, mic: MarkerReport, lateEvents: Int, micFramesTrimmed: Int) {
    if placement == .today {
      let (a, m) = today(app: app, mic: mic, seconds: seconds, radius: radius)
      return (a, m, 0, 0)
    }
    var c = ClockedCapturePipeline.Configuration(resampler: defaultResampler)
    if placement == .unsteered { c.driftCorrection = .off }
    var runner = try! SceneRunner(
      c, app: app.streamDescription(rate: app.rate), mic: mic.streamDescription(rate: mic.rate))
    var stamped: Set<CaptureSide> = []
    let r = runner.run(app: app, mic: mic, duration: seconds, searchRadius: radius) { e, t in
      guard placement == .stampedOnce else { return t }
      return stamped.insert(e.side).inserted ? t : nil
    }
    return (r.app, r.mic, r.lateEvents, r.micStatistics.inputFramesTrimmed)
  }

  /// Today's `CapturePipeline` on the same capture: appended as it arrives, mixed after every
  /// callback; its output has no timeline, so frame 0 is put where the first app marker says.
  static func today(app: SimulatedSource, mic: SimulatedSource, seconds: Double, radius: Int)
    -> (MarkerReport, MarkerReport)
  {
    var pipeline = CapturePipeline(.init(resampler: defaultResampler))
    var appTrack = MarkerTracker(source: app, rate: 48_000, radius: radius)
    var micTrack = MarkerTracker(source: mic, rate: 48_000, radius: radius)
    var out = [Float](repeating: 0, count: 96_000)
    var written = 0
    var offset: Int?
    var probe = MarkerTracker(source: app, rate: 48_000, radius: radius)
    var head: [Float] = []
    for e in CaptureSimulator(app: app, mic: mic, duration: seconds) {
      e.bytes.withUnsafeBytes { bytes in
        if e.side == .app {
          try? pipeline.append(.app, bytes, description: e.description)
        } else {
          try? pipeline.append(.mic, bytes, description: e.description)
        }
      }
      let n = out.withUnsafeMutableBufferPointer { pipeline.mix(into: $0) }
      guard n > 0 else { continue }
      out.withUnsafeBufferPointer { b in
        let block = UnsafeBufferPointer(rebasing: b[..<(2 * n)])
        if let offset {
          appTrack.add(block, at: written + offset)
          micTrack.add(block, at: written + offset)
        } else {
          // Until the first app marker is found, keep the output and find it.
          head += block
          probe.add(block, at: written)
          if let first = probe.report.errors.first {
            let o = -Int(((first ?? 0) * 48).rounded())
            offset = o
            head.withUnsafeBufferPointer {
              appTrack.add($0, at: o)
              micTrack.add($0, at: o)
            }
            head = []
          }
        }
      }
      written += n
    }
    return (appTrack.report, micTrack.report)
  }

  /// The hour's capture: the drift scene's, with the app's clock 20 ppm slow as well.
  static func hourSources(seconds: Double) -> (SimulatedSource, SimulatedSource) {
    var (app, mic) = sources(seconds: seconds, micPPM: 300)
    app.clockPPM = -20
    return (app, mic)
  }

  static func hour(minutes: Double, report: Report) {
    let name = "hour/default"
    guard report.wants(section: section, row: name) else { return }
    let seconds = minutes * 60
    let (app, mic) = hourSources(seconds: seconds)
    var c = ClockedCapturePipeline.Configuration(resampler: defaultResampler)
    c.latency = .adaptive(minimum: 0.1, maximum: 1)
    var runner = try! SceneRunner(
      c, app: app.streamDescription(rate: app.rate), mic: mic.streamDescription(rate: mic.rate))
    let t0 = nowNS()
    let r = runner.run(app: app, mic: mic, duration: seconds, searchRadius: 4_800)
    let elapsed = Double(nowNS() - t0) * 1e-9
    let both = MarkerReport(errors: r.app.errors + r.mic.errors)
    let table = Table(columns: [
      ("scene", 14), ("markers", 7), ("p50 ms", 8), ("max ms", 8), ("late pulls", 10),
      ("holds", 5), ("latency ms", 10), ("mic ppm est", 11), ("peak retained", 13),
      ("x realtime", 10),
    ])
    table.start(
      "Hour: \(fixed(minutes, 1)) minutes, mic +300 ppm, app -20 ppm, 1,024-frame buffers with "
        + "3 ms delivery jitter, defaults (stamps, drift correction, adaptive latency), 10 ms pulls"
    )
    table.row([
      name, "\(both.errors.count)", fixed(both.p50AbsError, 4), fixed(both.maxAbsError, 4),
      "\(r.lateEvents)", "\(r.clock.latencyRaises)", fixed(Double(r.clock.latencyFrames) / 48, 1),
      fixed(r.micStatistics.driftPPM, 1), "\(r.peakRetainedBytes)", fixed(seconds / elapsed, 0),
    ])
    let rec = { report.record(section, name, $0, $1, $2) }
    rec("minutes", minutes, "min")
    rec("markers", Double(both.errors.count), "count")
    rec("markers_missing", Double(both.missing), "count")
    rec("error_p50", both.p50AbsError, "ms")
    rec("error_max", both.maxAbsError, "ms")
    rec("late_pulls", Double(r.lateEvents), "count")
    rec("latency_raises", Double(r.clock.latencyRaises), "count")
    rec("latency", Double(r.clock.latencyFrames) / 48, "ms")
    rec("mic_drift_estimate", r.micStatistics.driftPPM, "ppm")
    rec("app_drift_estimate", r.appStatistics.driftPPM, "ppm")
    rec("peak_retained", Double(r.peakRetainedBytes), "bytes")
  }

  // MARK: - Cost

  /// What one pipeline costs per operation on the same capture.
  struct Costs {
    var appends: [UInt64] = []
    var pulls: [UInt64] = []
    var allocations: UInt64 = 0
    var setupAllocations: UInt64 = 0
    var retained = 0
  }

  static func cost(seconds: Double, report: Report, allocCounterWorks: Bool) {
    // As an adopter on this CPU runs it: the AVX2 int16 encoder where there is one.
    AcceleratedKernels.install()
    defer { AcceleratedKernels.uninstall() }
    let (app, mic) = sources(seconds: seconds, micPPM: 300)
    let events = Array(CaptureSimulator(app: app, mic: mic, duration: seconds))
    let table = Table(columns: [
      ("pipeline", 18), ("append p50", 10), ("append p99", 10), ("append max", 10),
      ("pull p50", 8), ("pull p99", 8), ("pull max", 8), ("allocs after 1s", 15), ("retained", 9),
    ])
    table.start(
      "Cost, microseconds: \(fixed(seconds, 0)) s of the capture above (stamped, mic +300 ppm), "
        + "10 ms pulls of 480 frames; statistics and allocations after the first second")
    for name in [
      "cost/today", "cost/clocked", "cost/clocked-avx2", "cost/realtime", "cost/realtime-limit",
      "cost/realtime-planar",
    ] where report.wants(section: section, row: name) {
      _ = measure(name, events: Array(events.prefix(200)), app: app, mic: mic)  // warm-up
      let c = measure(name, events: events, app: app, mic: mic)
      let skip = { (x: [UInt64], n: Int) in Array(x.dropFirst(min(n, x.count / 2))) }
      let appends = Summary(skip(c.appends, 80)).scaled(1e-3)
      let pulls = Summary(skip(c.pulls, 100)).scaled(1e-3)
      table.row([
        name, fixed(appends.median, 2), fixed(appends.p99, 2), fixed(appends.max, 1),
        c.pulls.isEmpty ? "-" : fixed(pulls.median, 2), c.pulls.isEmpty ? "-" : fixed(pulls.p99, 2),
        c.pulls.isEmpty ? "-" : fixed(pulls.max, 1), allocCounterWorks ? "\(c.allocations)" : "n/a",
        "\(c.retained)",
      ])
      let rec = { report.record(section, name, $0, $1, $2) }
      rec("append_p50", appends.median, "us")
      rec("append_p99", appends.p99, "us")
      rec("append_max", appends.max, "us")
      if !c.pulls.isEmpty {
        rec("pull_p50", pulls.median, "us")
        rec("pull_p99", pulls.p99, "us")
        rec("pull_max", pulls.max, "us")
      }
      if allocCounterWorks {
        rec("allocations_after_first_second", Double(c.allocations), "count")
        rec("setup_allocations", Double(c.setupAllocations), "count")
      }
      rec("retained", Double(c.retained), "bytes")
    }
    emit(
      "  (today: CapturePipeline, append + mix in each callback, no stamps; clocked: "
        + "ClockedCapturePipeline, stamps and drift correction, balanced, append = placement + "
        + "decode + resample, pull = mix; realtime: RealtimeCapturePipeline, average without "
        + "fades, append = a copy into the hand-off ring, pull = drain + decode + resample + mix; "
        + "realtime-limit: the same with the limit policy and 10 ms fades; realtime-planar: "
        + "realtime with the app's stereo handed over as two separate planes, as Core Audio "
        + "delivers non-interleaved audio)")
  }

  /// Runs `events` through the pipeline `name` names, pulling 480 frames every 10 ms of their
  /// delivery times, timing each append and each pull.
  static func measure(
    _ name: String, events: [CaptureEvent], app: SimulatedSource, mic: SimulatedSource
  ) -> Costs {
    var costs = Costs()
    let planar = name == "cost/realtime-planar"
    // The planar row: each app buffer split into one plane per channel beforehand, described
    // as non-interleaved.
    let appPlanes = planar ? events.map { Self.planes($0) } : []
    let af = app.streamDescription(rate: app.rate)
    let afPlanar = Self.planarDescription(af)
    let mf = mic.streamDescription(rate: mic.rate)
    var out = [Int16](repeating: 0, count: 960)
    var today: CapturePipeline?
    var clocked: ClockedCapturePipeline?
    var realtime: RealtimeCapturePipeline?
    costs.setupAllocations = AllocCounting.count {
      switch name {
      case "cost/today":
        today = CapturePipeline(.init(resampler: ResamplerFactory.accelerated(.balanced)))
        try! today!.prepare(app: af, mic: mf)
      case "cost/clocked":
        clocked = try! ClockedCapturePipeline(
          .init(resampler: ResamplerFactory.variableRatio(.balanced)), app: af, mic: mf)
      case "cost/clocked-avx2":
        clocked = try! ClockedCapturePipeline(.init(resampler: defaultResampler), app: af, mic: mf)
      default:
        // `average` without fades (today's mix), or the recommended `limit` with fades.
        var c = ClockedCapturePipeline.Configuration(resampler: defaultResampler)
        if name == "cost/realtime-limit" {
          c.policy = .limit
        } else {
          c.fadeSeconds = 0
        }
        realtime = try! RealtimeCapturePipeline(c, app: af, mic: mf)
      }
    }
    costs.appends.reserveCapacity(events.count)
    costs.pulls.reserveCapacity(Int((events.last?.deliveryTime ?? 0) * 100) + 16)
    var nextPull = 0.01
    var check = 0
    var a0: UInt64?
    AllocCounting.setEnabled(true)
    for (i, e) in events.enumerated() {
      // Counted from the second second on (the first runs code for the first time).
      if a0 == nil && e.deliveryTime > 1 { a0 = AllocCounting.events }
      while e.deliveryTime > nextPull && today == nil {
        let t0 = nowNS()
        let status = out.withUnsafeMutableBufferPointer { o in
          clocked != nil ? clocked!.pull(into: o) : realtime!.pull(into: o)
        }
        costs.pulls.append(nowNS() - t0)
        check &+= status.appSilentFrames &+ Int(out[959])
        nextPull += 0.01
      }
      let time = e.time.map {
        MediaTime(value: $0.value + 86_400 * Int64($0.timescale), timescale: $0.timescale)
      }
      if planar && e.side == .app {
        let (l, r) = appPlanes[i]
        let t0 = nowNS()
        l.withUnsafeBytes { l in
          r.withUnsafeBytes { r in
            withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 2) { p in
              (p[0], p[1]) = (l, r)
              try? realtime!.append(
                .app, planes: UnsafeBufferPointer(p), description: afPlanar, time: time)
            }
          }
        }
        costs.appends.append(nowNS() - t0)
        continue
      }
      e.bytes.withUnsafeBytes { bytes in
        let t0 = nowNS()
        if today != nil {
          if e.side == .app {
            try? today!.append(.app, bytes, description: e.description)
          } else {
            try? today!.append(.mic, bytes, description: e.description)
          }
          check &+= out.withUnsafeMutableBufferPointer { today!.mix(into: $0) }
        } else if clocked != nil {
          try? clocked!.append(e.side, bytes, description: e.description, time: time)
        } else {
          try? realtime!.append(e.side, bytes, description: e.description, time: time)
        }
        costs.appends.append(nowNS() - t0)
      }
    }
    // Arrays above had room reserved; what is counted is the pipelines'.
    costs.allocations = AllocCounting.events - (a0 ?? AllocCounting.events)
    AllocCounting.setEnabled(false)
    blackHole(check)
    costs.retained =
      today?.retainedBytes ?? clocked?.retainedBytes ?? realtime?.statistics.retainedBytes ?? 0
    return costs
  }

  /// An interleaved stereo event's bytes as two planes (left, right); empty for other events.
  static func planes(_ e: CaptureEvent) -> ([UInt8], [UInt8]) {
    guard e.side == .app, let f = try? FormatProbe.probe(e.description), f.channelCount == 2 else {
      return ([], [])
    }
    let bps = f.sampleType.bytesPerSample
    var (l, r) = ([UInt8](), [UInt8]())
    for frame in stride(from: 0, to: e.bytes.count, by: 2 * bps) {
      l += e.bytes[frame..<(frame + bps)]
      r += e.bytes[(frame + bps)..<(frame + 2 * bps)]
    }
    return (l, r)
  }

  /// `d` with its channels non-interleaved.
  static func planarDescription(_ d: StreamDescription) -> StreamDescription {
    let f = try! FormatProbe.probe(d)
    return StreamDescription(
      PCMFormat(
        sampleRate: f.sampleRate, channelCount: f.channelCount, sampleType: f.sampleType,
        byteOrder: f.byteOrder, isInterleaved: false))
  }

  // MARK: - Rate switch

  static func rateSwitch(seconds: Double, report: Report, allocCounterWorks: Bool) {
    let name = "switch/prepared"
    guard report.wants(section: section, row: name) else { return }
    let (app, _) = sources(seconds: seconds, micPPM: 0)
    var mic = SimulatedSource(rate: 48_000, channels: 1, encoding: .s16le)
    mic.tone = (frequency: 440, amplitude: 0.3)
    mic.rateSwitches = stride(from: 1.0, to: seconds, by: 1).map {
      (at: $0, rate: Int($0) % 2 == 1 ? 16_000 : 48_000)
    }
    let events = Array(CaptureSimulator(app: app, mic: mic, duration: seconds))
    var pipeline = try! ClockedCapturePipeline(
      .init(resampler: defaultResampler), app: app.streamDescription(rate: app.rate),
      mic: mic.streamDescription(rate: 48_000))
    var out = [Int16](repeating: 0, count: 960)
    var ordinary: [UInt64] = []
    var switches: [UInt64] = []
    var switchAllocations: UInt64 = 0
    var lastRate = 48_000.0
    var nextPull = 0.01
    ordinary.reserveCapacity(events.count)
    switches.reserveCapacity(Int(seconds) + 1)
    for e in events {
      while e.deliveryTime > nextPull {
        _ = out.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
        nextPull += 0.01
      }
      let switching = e.side == .mic && e.description.sampleRate != lastRate
      if e.side == .mic { lastRate = e.description.sampleRate }
      let time = e.time.map {
        MediaTime(value: $0.value + 86_400 * Int64($0.timescale), timescale: $0.timescale)
      }
      let a0 = AllocCounting.events
      AllocCounting.setEnabled(true)
      let t0 = nowNS()
      e.bytes.withUnsafeBytes {
        try? pipeline.append(e.side, $0, description: e.description, time: time)
      }
      let t = nowNS() - t0
      AllocCounting.setEnabled(false)
      if switching {
        switches.append(t)
        switchAllocations += AllocCounting.events - a0
      } else if e.side == .mic {
        ordinary.append(t)
      }
    }
    let o = Summary(Array(ordinary.dropFirst(50))).scaled(1e-3)
    let s = Summary(switches).scaled(1e-3)
    let table = Table(columns: [
      ("scene", 16), ("switches", 8), ("switch p50", 10), ("switch max", 10),
      ("mic cb p50", 10), ("mic cb p99", 10), ("max / p99", 9), ("switch allocs", 13),
    ])
    table.start(
      "Rate switch, microseconds: the mic alternates 48 / 16 kHz every second (both prepared), "
        + "each switch's first mic append (placement, the old resampler's tail, the prepared one "
        + "swapped in, decode, resample) against the ordinary mic appends")
    table.row([
      name, "\(switches.count)", fixed(s.median, 2), fixed(s.max, 2), fixed(o.median, 2),
      fixed(o.p99, 2), fixed(s.max / o.p99, 2), allocCounterWorks ? "\(switchAllocations)" : "n/a",
    ])
    let rec = { report.record(section, name, $0, $1, $2) }
    rec("switches", Double(switches.count), "count")
    rec("switch_p50", s.median, "us")
    rec("switch_max", s.max, "us")
    rec("ordinary_p50", o.median, "us")
    rec("ordinary_p99", o.p99, "us")
    rec("switch_max_over_ordinary_p99", s.max / o.p99, "x")
    if allocCounterWorks { rec("switch_allocations", Double(switchAllocations), "count") }
  }
}
