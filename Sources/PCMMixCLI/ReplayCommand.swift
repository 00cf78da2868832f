import PCMMix

/// `pcm-mix replay`: capture logs through a ``ClockedCapturePipeline`` as the capture delivered
/// them (see `pcm-mix help replay` for the rules), into a WAV file on the host timeline.
///
/// Each log is read three times, row by row: to check it (and find t0), to find where the
/// output ends, and to replay it. The raw files are read once, one buffer at a time, so memory
/// does not grow with the length of the logs.
func replay(_ options: ReplayOptions, console: Console) throws(CLIError) {
  let rate = ReplaySession.outputRate
  var logs: [ReplaySourceLog] = []
  defer { for log in logs { log.close() } }
  try ReplaySourceLog.openAndScan(options, into: &logs)
  // t0: the earliest stamp of either log, as it was written.
  let origin = logs.compactMap(\.earliest).min() ?? MediaTime(value: 0, timescale: 1_000_000_000)
  let endFrame = try ReplaySourceLog.endFrame(of: &logs, t0: origin.seconds, rate: rate)

  let inputs = [options.app?.raw, options.app?.csv, options.mic?.raw, options.mic?.csv]
    .compactMap { $0 }
  let output = try OutputFile.create(options.output, inputs: inputs)
  let reportFile = try OutputFile.createReport(
    options.report, inputs: inputs + [options.output], discarding: output)
  let report: String
  var stems: StemFiles?
  do throws(CLIError) {
    var sink = try WriterSink.open(
      output, rate: rate, channels: 2, type: options.sampleType, maxFrames: endFrame)
    var session = try ReplaySession(
      options: options, logs: logs, origin: origin, endFrame: endFrame)
    if let folder = options.stems {
      stems = try StemFiles.open(
        folder, inputs: inputs + [options.output], rate: rate, type: options.sampleType,
        maxFrames: endFrame)
      session.stems = stems
      session.pipeline.keepStems()
    }
    var progress = Progress(console, "replaying", total: endFrame)
    // Cleared on failure too, so that an error line starts at the left margin.
    defer { progress.end() }
    try session.run(&logs, into: &sink, path: options.output) { progress.update($0) }
    progress.end()
    for log in logs {
      if let cut = log.cut { console.err("pcm-mix: warning: \(cut.location): \(cut.detail)\n") }
    }
    try sink.finish(options.output)
    try session.stems?.finish()
    report = session.report(options: options, logs: logs, t0: origin).rendered() + "\n"
    if let reportFile { try reportFile.write(report) }
  } catch {
    output.discard()
    reportFile?.discard()
    stems?.discard()
    throw error
  }
  try commitOutputs(
    output, loudness: options.loudness, truePeakDB: options.truePeakDB, type: options.sampleType,
    stems: stems, report: reportFile)
  if options.json { console.err(report) }
}

extension ReplaySourceLog {
  /// Opens each log `options` names into `logs` (so the caller closes them on every way out),
  /// checks every row, and refuses a rate the resampler cannot take.
  static func openAndScan(_ options: ReplayOptions, into logs: inout [ReplaySourceLog])
    throws(CLIError)
  {
    for (side, log) in [(ClockedCapturePipeline.Side.app, options.app), (.mic, options.mic)] {
      guard let log else { continue }
      logs.append(try ReplaySourceLog.open(side, log))
    }
    for i in logs.indices { try logs[i].scan() }
    if logs.allSatisfy({ $0.rows == 0 }), let log = logs.first, let cut = log.cut {
      throw CLIError(.data, cut.location, "\(cut.detail); no whole buffer is left to replay")
    }
    for log in logs {
      for (inputRate, line) in log.rates.sorted(by: { $0.value < $1.value }) {
        try options.resampler.check(
          inputRate: inputRate, outputRate: ReplaySession.outputRate,
          path: "\(log.csv.path):\(line)")
      }
    }
  }

  /// The output frame where the last buffer of any log ends (a second pass over the rows),
  /// refusing a replay longer than ``ReplaySession/maxSeconds``.
  static func endFrame(of logs: inout [ReplaySourceLog], t0: Double, rate: Int)
    throws(CLIError) -> Int
  {
    var endSeconds = 0.0
    var endRow: (path: String, line: Int)?
    for i in logs.indices {
      try logs[i].rewind()
      while let d = try logs[i].nextDelivery(t0: t0) {
        if d.end > endSeconds { (endSeconds, endRow) = (d.end, (logs[i].csv.path, d.row.line)) }
      }
    }
    if endSeconds > ReplaySession.maxSeconds, let endRow {
      throw CLIError(
        .data, "\(endRow.path):\(endRow.line)",
        "this buffer ends \(Int(endSeconds)) s after t0 (the earliest stamp); replay writes at"
          + " most \(Int(ReplaySession.maxSeconds / 3_600)) hours")
    }
    return Int((endSeconds * Double(rate)).rounded())
  }
}

/// The pipeline, the output position and the record of one replay.
struct ReplaySession {
  /// The output rate.
  static let outputRate = 48_000
  /// The input rates a log may use: the pipeline's (set explicitly, so both agree).
  static let inputRates = 1_000...PCMFormat.maxSampleRate
  /// The longest output replay writes.
  static let maxSeconds = 24.0 * 3_600

  var pipeline: ClockedCapturePipeline
  let pullMilliseconds: Int
  let pullFrames: Int
  let endFrame: Int
  /// Seconds of log time after which pulling stops even if the output is short (then padded).
  let giveUp: Double
  /// Output frames written.
  var written = 0
  /// `--stems`: each source as it enters the mix, written at the same timeline positions as
  /// the output, and how many frames of them are written.
  var stems: StemFiles?
  var stemsWritten = 0
  var record = ReplayRecord()

  init(options: ReplayOptions, logs: [ReplaySourceLog], origin: MediaTime, endFrame: Int)
    throws(CLIError)
  {
    var c = ClockedCapturePipeline.Configuration(
      resampler: options.resampler.steerableFactory(phase: options.phase))
    c.outputRate = Self.outputRate
    c.inputRates = Self.inputRates
    c.origin = origin
    c.policy = options.policy
    c.ceilingDB = options.ceilingDB
    c.fadeSeconds = options.fadeMilliseconds / 1000
    c.appGainDB = options.appGainDB
    c.micGainDB = options.micGainDB
    c.driftCorrection = options.drift
    c.echoCancellation = options.echoCancellation
    c.ducking = options.ducking
    // The file is written on the capture timeline: the latency may rise (holds are not
    // written), but never comes down by compressing it.
    c.lowersLatency = false
    if let ms = options.latencyMilliseconds { c.latency = .fixed(seconds: ms / 1000) }
    // Resamplers for the rates the logs use, made up front as a live capture prepares its own.
    c.preparedRates = Set(logs.flatMap(\.rates.keys)).sorted()
    let app = logs.first { $0.side == .app }
    let mic = logs.first { $0.side == .mic }
    do {
      pipeline = try ClockedCapturePipeline(
        c, app: app?.firstFormat.map(StreamDescription.init),
        mic: mic?.firstFormat.map(StreamDescription.init))
    } catch {
      let log = app ?? mic!
      throw CLIError(.data, log.csv.path, error.description)
    }
    // A source without a log (or whose log holds no whole buffer) is not part of the capture:
    // the other plays alone.
    if app.map({ $0.rows == 0 }) ?? true { pipeline.setEnabled(.app, false) }
    if mic.map({ $0.rows == 0 }) ?? true { pipeline.setEnabled(.mic, false) }
    pullMilliseconds = options.pullMilliseconds
    pullFrames = options.pullMilliseconds * Self.outputRate / 1000
    self.endFrame = endFrame
    let maxLatency: Double
    switch c.latency {
    case .fixed(let s): maxLatency = s
    case .adaptive(_, let most): maxLatency = most
    }
    giveUp = Double(endFrame) / Double(Self.outputRate) + 2 * maxLatency + c.startupWait + 5
  }

  /// Delivers every row at its time, pulls every pull interval, and writes what the pulls give
  /// at its timeline position until the output holds ``endFrame`` frames.
  /// Appends every row delivered by `now`, earliest first (the app first on a tie); `next`
  /// holds each log's next delivery, `nil` once the log has ended.
  mutating func deliver(
    _ logs: inout [ReplaySourceLog], _ next: inout [ReplayDelivery?], until now: Double,
    t0: Double, scratch bytes: UnsafeMutableRawBufferPointer
  ) throws(CLIError) {
    while let i = Self.earliest(next), next[i]!.delivery <= now {
      let row = next[i]!.row
      guard let data = try logs[i].read(row, into: bytes) else {
        // Cut short here: the log ends with the whole buffers before this row.
        next[i] = nil
        continue
      }
      do {
        try pipeline.append(
          logs[i].side, data, description: logs[i].description(row.format), time: row.time)
      } catch {
        throw CLIError(.data, "\(logs[i].csv.path):\(row.line)", error.description)
      }
      next[i] = try logs[i].nextDelivery(t0: t0)
      if next[i] == nil { try logs[i].checkEnd(bytes) }
    }
  }

  mutating func run(
    _ logs: inout [ReplaySourceLog], into sink: inout WriterSink, path: String,
    progress: (Int) -> Void
  ) throws(CLIError) {
    let t0 = pipeline.configuration.origin?.seconds ?? 0
    for i in logs.indices { try logs[i].rewind() }
    var next: [ReplayDelivery?] = []
    for i in logs.indices { next.append(try logs[i].nextDelivery(t0: t0)) }
    let largest = max(1, logs.map(\.largestBuffer).max() ?? 1)
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: largest, alignment: 16)
    defer { bytes.deallocate() }
    var block = [Float](repeating: 0, count: pullFrames * 2)
    var finished = false
    var pull = 0
    var nextSample = 1_000
    while true {
      let nowMs = (pull + 1) * pullMilliseconds
      let now = Double(nowMs) / 1000
      try deliver(&logs, &next, until: now, t0: t0, scratch: bytes)
      if !finished && next.allSatisfy({ $0 == nil }) {
        for log in logs { pipeline.finish(log.side) }
        finished = true
      }
      let status = block.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
      if let position = status.position {
        block.withUnsafeBufferPointer { place($0, at: position, into: &sink) }
        try sink.check(path)
      }
      if stems != nil { try placeStems() }
      record.noteLatency(pipeline.clockStatistics, time: now, rate: Self.outputRate)
      if nowMs >= nextSample {
        for log in logs {
          record.sampleDrift(log.side == .app ? 0 : 1, pipeline.statistics(log.side), time: now)
        }
        nextSample += 1_000
      }
      progress(written)
      pull += 1
      if finished && written >= endFrame { break }
      if finished && now > giveUp {
        record.paddedFrames = endFrame - written
        writeSilence(endFrame - written, into: &sink)
        try sink.check(path)
        break
      }
    }
    if stems != nil { try finishStems() }
  }

  /// Writes the stems the pipeline collected at their timeline positions, as ``place`` writes
  /// the output: what lies before what is written or past ``endFrame`` is dropped, a jump
  /// ahead is filled with silence.
  mutating func placeStems() throws(CLIError) {
    var s = stems!
    stems = nil
    var at = stemsWritten
    let end = endFrame
    pipeline.takeStems { position, app, mic in
      let frames = app.count / 2
      let first = max(position, at)
      let last = min(position + frames, end)
      if first > at { Self.silence(min(first, end) - at, into: &s) }
      at = max(at, min(first, end))
      guard last > first else { return }
      let r = ((first - position) * 2)..<((last - position) * 2)
      s.append(
        app: UnsafeBufferPointer(rebasing: app[r]), mic: UnsafeBufferPointer(rebasing: mic[r]))
      at = last
    }
    stemsWritten = at
    stems = s
    try s.check()
  }

  /// Pads the stems with silence to ``endFrame``.
  mutating func finishStems() throws(CLIError) {
    if stemsWritten < endFrame {
      Self.silence(endFrame - stemsWritten, into: &stems!)
      stemsWritten = endFrame
    }
    try stems!.check()
  }

  /// Appends `frames` frames of silence to both stems.
  static func silence(_ frames: Int, into stems: inout StemFiles) {
    forEachSilence(frames) { stems.append(app: $0, mic: $0) }
  }

  /// Hands `frames` stereo frames of silence to `body`, 4,800 at most at a time.
  static func forEachSilence(_ frames: Int, _ body: (UnsafeBufferPointer<Float>) -> Void) {
    guard frames > 0 else { return }
    let zeros = [Float](repeating: 0, count: 2 * min(frames, 4_800))
    var left = frames
    zeros.withUnsafeBufferPointer { z in
      while left > 0 {
        let n = min(left, z.count / 2)
        body(UnsafeBufferPointer(rebasing: z[..<(n * 2)]))
        left -= n
      }
    }
  }

  /// The index of the row delivered first (the app's on a tie), or `nil` when none is left.
  static func earliest(_ next: [ReplayDelivery?]) -> Int? {
    var best: Int?
    for (i, d) in next.enumerated() {
      guard let d else { continue }
      if let b = best, next[b]!.delivery <= d.delivery { continue }
      best = i
    }
    return best
  }

  /// Writes a pulled block that starts at timeline frame `position`: what lies before the
  /// output's end so far or past ``endFrame`` is dropped; a jump ahead is filled with silence.
  mutating func place(
    _ block: UnsafeBufferPointer<Float>, at position: Int, into sink: inout WriterSink
  ) {
    let frames = block.count / 2
    let first = max(position, written)
    let last = min(position + frames, endFrame)
    if first > written {
      let gap = min(first, endFrame) - written
      record.filledFrames += gap
      writeSilence(gap, into: &sink)
    }
    guard last > first else { return }
    sink.append(
      UnsafeBufferPointer(rebasing: block[((first - position) * 2)..<((last - position) * 2)]))
    written = last
  }

  /// Appends `frames` frames of silence.
  mutating func writeSilence(_ frames: Int, into sink: inout WriterSink) {
    guard frames > 0 else { return }
    Self.forEachSilence(frames) { sink.append($0) }
    written += frames
  }

  /// One side's part of the report: its log, statistics, drift samples and echo statistics.
  func sideReport(_ side: ClockedCapturePipeline.Side, logs: [ReplaySourceLog]) -> JSON {
    guard let log = logs.first(where: { $0.side == side }) else { return .null }
    let samples = record.drift[side == .app ? 0 : 1].map { s -> JSON in
      .object([
        ("time", .double(s.time)), ("driftPPM", .double(s.driftPPM)),
        ("positionErrorMs", .double(s.positionErrorMs)),
        ("ratioAdjustment", .double(s.ratioAdjustment)),
      ])
    }
    return .object([
      ("raw", .string(log.raw.path)), ("log", .string(log.csv.path)), ("rows", .int(log.rows)),
      (
        "cut",
        log.cut.map {
          .object([("location", .string($0.location)), ("detail", .string($0.detail))])
        } ?? .null
      ),
      ("stampedRows", .int(log.stampedRows)), ("bytes", .int(log.byteCount)),
      ("statistics", pipeline.statistics(side).json), ("drift", .array(samples)),
      ("echo", side == .mic ? pipeline.echoStatistics.map(\.json) ?? .null : .null),
    ])
  }

  /// The settings the replay ran with.
  func settingsReport(_ options: ReplayOptions) -> JSON {
    let latency: JSON
    if let ms = options.latencyMilliseconds {
      latency = .object([("mode", .string("fixed")), ("ms", .double(ms))])
    } else {
      latency = .object([("mode", .string("adaptive"))])
    }
    let drift: String
    switch options.drift {
    case .off: drift = "off"
    case .timestamps: drift = "timestamps"
    case .timestampsAndFillLevel: drift = "fill"
    }
    return .object([
      ("pullMs", .int(pullMilliseconds)), ("pullFrames", .int(pullFrames)),
      ("latency", latency), ("drift", .string(drift)),
      ("resampler", .string(options.resampler.spelling)),
      ("phase", .string(options.phase.rawValue)),
      ("policy", .string(options.policy.cliSpelling)),
      ("ceilingDB", .double(options.ceilingDB)),
      ("fadeMs", .double(options.fadeMilliseconds)),
      ("appGainDB", .double(options.appGainDB)), ("micGainDB", .double(options.micGainDB)),
    ])
  }

  /// The JSON report (see `pcm-mix help replay`).
  func report(options: ReplayOptions, logs: [ReplaySourceLog], t0: MediaTime) -> JSON {
    return .object([
      (
        "t0",
        .object([
          ("seconds", .double(t0.seconds)), ("value", .int(Int(t0.value))),
          ("timescale", .int(Int(t0.timescale))),
        ])
      ),
      ("endFrame", .int(endFrame)),
      (
        "output",
        .object([
          ("path", .string(options.output)), ("frames", .int(written)),
          ("sampleRate", .int(Self.outputRate)), ("channels", .int(2)),
          ("sampleType", .string(options.sampleType.cliSpelling)),
          ("filledFrames", .int(record.filledFrames)),
          ("paddedFrames", .int(record.paddedFrames)),
        ])
      ),
      ("settings", settingsReport(options)),
      ("app", sideReport(.app, logs: logs)),
      ("mic", sideReport(.mic, logs: logs)),
      ("clock", pipeline.clockStatistics.json),
      ("meters", pipeline.meters.json),
      (
        "latency",
        .array(
          record.latency.map {
            .object([("time", .double($0.time)), ("latencyMs", .double($0.ms))])
          })
      ),
    ])
  }
}
