import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Section 1: the capture scene, one callback at a time, as a broadcast extension sees it.
///
/// App audio (44.1 kHz stereo s16 big-endian) and mic audio (32 kHz mono s16 little-endian)
/// arrive in 1,024-frame buffers, interleaved in the order their last frames are captured. Each
/// callback appends its buffer to a ``CapturePipeline`` and then mixes whatever is ready into a
/// preallocated int16 buffer; the pair is timed (wall clock, and this thread's CPU clock around
/// it) and its heap allocations counted.
enum CaptureScene {
  static let section = "capture"
  static let bufferFrames = 1_024
  static let app = PCMFormat(
    sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big)
  static let mic = PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16)

  /// One callback: which source, which buffer of its pool, and when it arrives (seconds).
  struct Event {
    var isApp: Bool
    var buffer: Int
    var time: Double
  }

  /// What one run of the scene measured.
  struct Run {
    /// Wall nanoseconds per callback (append and mix), in callback order.
    var latencies: [UInt64]
    /// Thread CPU nanoseconds per callback (includes reading the wall clock twice).
    var cpu: [UInt64]
    /// Allocation events per callback, in callback order.
    var allocations: [UInt32]
    /// Callbacks in the first window (the "first second").
    var firstWindow: Int
    var setupAllocations: UInt64
    var retainedBytes: Int
    var framesOut: Int
    /// Involuntary context switches of this thread during the callbacks.
    var preemptions: Int
  }

  static func run(_ options: Options, report: Report, allocCounterWorks: Bool) {
    let rows = Backend.pipelineBackends
    guard report.wants(section: section, rows: rows.map(\.name)) else { return }
    let seconds = options.seconds
    let window = min(1.0, seconds / 2)
    let events = schedule(seconds: seconds)
    let pools = Pools()
    defer { pools.deallocate() }

    let timing = Table(columns: [
      ("backend", 18), ("p50 us", 7), ("p99 us", 7), ("p99.9 us", 8), ("max us", 8),
      ("cpu p99 us", 10), ("cpu max us", 10), ("preempted", 9), ("app p50", 7), ("mic p50", 7),
      ("1st cb us", 9), ("x realtime", 10),
    ])
    timing.start(
      "Capture scene: \(fixed(seconds, 1)) s, \(events.count) callbacks (app \(app), mic \(mic), "
        + "\(bufferFrames)-frame buffers), append + mix per callback; statistics over the "
        + "callbacks after the first \(fixed(window, 1)) s")
    var memoryRows: [[String]] = []
    for (name, factory) in rows where report.wants(section: section, row: name) {
      // Warm-up on a separate pipeline: code, caches and the allocator, not the measured state.
      let warm = events.prefix { $0.time <= min(2, seconds) }
      _ = scene(Array(warm), pools: pools, factory: factory, window: window)
      let r = scene(events, pools: pools, factory: factory, window: window)

      let steady = Summary(r.latencies[r.firstWindow...]).scaled(1e-3)
      let cpu = Summary(r.cpu[r.firstWindow...]).scaled(1e-3)
      let steadyEvents = events[r.firstWindow...]
      let appOnly = Summary(
        zip(steadyEvents, r.latencies[r.firstWindow...]).filter(\.0.isApp).map(\.1)
      )
      .scaled(1e-3)
      let micOnly = Summary(
        zip(steadyEvents, r.latencies[r.firstWindow...]).filter { !$0.0.isApp }.map(\.1)
      )
      .scaled(1e-3)
      let total = r.latencies.reduce(0) { $0 + Double($1) } * 1e-9
      let realtime = (events.last?.time ?? 0) / total
      let firstAllocs = r.allocations[..<r.firstWindow].reduce(0) { $0 + UInt64($1) }
      let afterAllocs = r.allocations[r.firstWindow...].reduce(0) { $0 + UInt64($1) }
      let afterCallbacks = max(1, r.latencies.count - r.firstWindow)
      let allocatingAfter = r.allocations[r.firstWindow...].filter { $0 > 0 }.count
      let first = Double(r.latencies.first ?? 0) * 1e-3
      let rss = Machine.peakRSS
      timing.row([
        name, fixed(steady.median, 2), fixed(steady.p99, 2), fixed(steady.p999, 2),
        fixed(steady.max, 1), fixed(cpu.p99, 2), fixed(cpu.max, 1), "\(r.preemptions)",
        fixed(appOnly.median, 1), fixed(micOnly.median, 1), fixed(first, 1), fixed(realtime, 0),
      ])
      let counted: (UInt64) -> String = { allocCounterWorks ? "\($0)" : "n/a" }
      memoryRows.append([
        name, counted(r.setupAllocations), counted(firstAllocs), counted(afterAllocs),
        allocCounterWorks ? fixed(Double(afterAllocs) / Double(afterCallbacks), 3) : "n/a",
        "\(r.retainedBytes)", fixed(Double(rss) / 1_048_576, 1),
      ])
      let rec = { report.record(section, name, $0, $1, $2) }
      rec("callback_p50", steady.median, "us")
      rec("callback_p99", steady.p99, "us")
      rec("callback_p99.9", steady.p999, "us")
      rec("callback_max", steady.max, "us")
      rec("callback_min", steady.min, "us")
      rec("callback_cpu_p50", cpu.median, "us")
      rec("callback_cpu_p99", cpu.p99, "us")
      rec("callback_cpu_max", cpu.max, "us")
      rec("preemptions", Double(r.preemptions), "count")
      rec("app_callback_p50", appOnly.median, "us")
      rec("app_callback_p99", appOnly.p99, "us")
      rec("mic_callback_p50", micOnly.median, "us")
      rec("mic_callback_p99", micOnly.p99, "us")
      rec("first_callback", first, "us")
      rec("throughput", realtime, "x realtime")
      rec("callbacks", Double(r.latencies.count), "count")
      rec("callbacks_first_window", Double(r.firstWindow), "count")
      rec("first_window", window, "s")
      if allocCounterWorks {
        rec("setup_allocations", Double(r.setupAllocations), "count")
        rec("allocations_first_window", Double(firstAllocs), "count")
        rec("allocations_after_first_window", Double(afterAllocs), "count")
        rec(
          "allocations_per_callback_after_first_window",
          Double(afterAllocs) / Double(afterCallbacks), "count/callback")
        rec("callbacks_allocating_after_first_window", Double(allocatingAfter), "count")
      }
      rec("retained", Double(r.retainedBytes), "bytes")
      rec("peak_rss", Double(rss), "bytes")
      rec("frames_out", Double(r.framesOut), "frames")
    }
    emit(
      "  (cpu: this thread's CPU clock around each callback, which excludes time preempted but "
        + "adds ~0.5 us of clock reads; preempted: involuntary context switches during the run; "
        + "app/mic p50: the callbacks of each source alone; '1st cb': the first callback, which "
        + "builds the app resampler)")
    let memory = Table(columns: [
      ("backend", 18), ("setup allocs", 12), ("allocs 1st s", 12), ("allocs after", 12),
      ("allocs/cb after", 15), ("retained bytes", 14), ("peak RSS MB", 11),
    ])
    memory.start(
      "Capture scene memory: heap allocations counted per callback (pipeline creation is "
        + "'setup'); retained = CapturePipeline.retainedBytes; peak RSS of the bench process")
    for row in memoryRows { memory.row(row) }
  }

  /// The callbacks of `seconds` of capture, in arrival order.
  static func schedule(seconds: Double) -> [Event] {
    var events: [Event] = []
    for (isApp, rate, pool) in [(true, 44_100.0, Pools.appCount), (false, 32_000, Pools.micCount)] {
      var k = 0
      while true {
        let t = Double((k + 1) * bufferFrames) / rate
        if t > seconds { break }
        events.append(Event(isApp: isApp, buffer: k % pool, time: t))
        k += 1
      }
    }
    // Ties (none at these rates) would go app first.
    return events.sorted { ($0.time, $0.isApp ? 0 : 1) < ($1.time, $1.isApp ? 0 : 1) }
  }

  /// This thread's CPU time in nanoseconds.
  @inline(__always)
  static func threadCPU() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
  }

  /// This thread's involuntary context switches so far.
  static func preemptions() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD
    return usage.ru_nivcsw
  }

  /// Runs the callbacks through a fresh pipeline made with `factory`.
  static func scene(
    _ events: [Event], pools: Pools, factory: ResamplerFactory, window: Double
  ) -> Run {
    var latencies = [UInt64](repeating: 0, count: events.count)
    var cpu = [UInt64](repeating: 0, count: events.count)
    var allocations = [UInt32](repeating: 0, count: events.count)
    let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 16_384 * 2)
    output.initialize(repeating: 0)
    defer { output.deallocate() }
    let appDescription = StreamDescription(app)
    let micDescription = StreamDescription(mic)
    let appBytes = bufferFrames * app.bytesPerFrame
    let micBytes = bufferFrames * mic.bytesPerFrame
    var pipeline: CapturePipeline?
    // Setup is what a broadcast extension does before capture starts: create the pipeline and
    // prepare it for the formats it will be handed, which builds the filter tables.
    let setup = AllocCounting.count {
      pipeline = CapturePipeline(.init(resampler: factory))
      try! pipeline!.prepare(app: appDescription, mic: micDescription)
    }
    var p = pipeline!
    pipeline = nil
    var framesOut = 0
    var check = 0
    let switches = preemptions()
    AllocCounting.setEnabled(true)
    for i in 0..<events.count {
      let e = events[i]
      let a0 = AllocCounting.events
      let c0 = threadCPU()
      let t0 = nowNS()
      if e.isApp {
        let bytes = UnsafeRawBufferPointer(
          start: pools.app + e.buffer * appBytes, count: appBytes)
        try! p.append(.app, bytes, description: appDescription)
      } else {
        let bytes = UnsafeRawBufferPointer(
          start: pools.mic + e.buffer * micBytes, count: micBytes)
        try! p.append(.mic, bytes, description: micDescription)
      }
      let n = p.mix(into: output)
      let t1 = nowNS()
      let c1 = threadCPU()
      let a1 = AllocCounting.events
      latencies[i] = t1 - t0
      cpu[i] = c1 - c0
      allocations[i] = UInt32(truncatingIfNeeded: a1 - a0)
      framesOut += n
      check &+= n > 0 ? Int(output[2 * n - 1]) : 0
    }
    AllocCounting.setEnabled(false)
    blackHole(check)
    let firstWindow = events.firstIndex { $0.time > window } ?? events.count
    return Run(
      latencies: latencies, cpu: cpu, allocations: allocations, firstWindow: firstWindow,
      setupAllocations: setup, retainedBytes: p.retainedBytes, framesOut: framesOut,
      preemptions: preemptions() - switches)
  }

  /// One second of each source's buffers, encoded as the capture delivers them, reused in turn.
  struct Pools {
    static let appCount = 43
    static let micCount = 31
    let app: UnsafeMutableRawPointer
    let mic: UnsafeMutableRawPointer

    init() {
      app = Self.make(
        format: CaptureScene.app, buffers: Self.appCount, seed: 1, tones: [440, 660])
      mic = Self.make(format: CaptureScene.mic, buffers: Self.micCount, seed: 2, tones: [220])
    }

    func deallocate() {
      app.deallocate()
      mic.deallocate()
    }

    /// Tones (one per channel) at -10 dBFS plus a little noise, as int16 in `format`'s order.
    static func make(format: PCMFormat, buffers: Int, seed: UInt64, tones: [Double])
      -> UnsafeMutableRawPointer
    {
      let frames = buffers * CaptureScene.bufferFrames
      let ch = format.channelCount
      let p = UnsafeMutableRawPointer.allocate(byteCount: frames * ch * 2, alignment: 16)
      var rng = SplitMix64(seed: seed)
      for i in 0..<frames {
        for c in 0..<ch {
          let t = Double(i) / Double(format.sampleRate)
          let x = 0.3 * sin(2 * Double.pi * tones[c % tones.count] * t) + 0.01 * rng.nextSigned()
          let v = Int16(x * 32_767)
          let stored = format.byteOrder == .big ? v.bigEndian : v.littleEndian
          p.storeBytes(of: stored, toByteOffset: (i * ch + c) * 2, as: Int16.self)
        }
      }
      return p
    }
  }
}
