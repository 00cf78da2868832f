import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `pcm-mix mix`: two inputs, each through its own ``SourceChain``, into a ``DualBufferMixer``
/// and out to a WAV file. The inputs are read in step, 100 ms of each at a time, and a side is
/// read again only once what it gave has been mixed, so little more than that is held. The app
/// input (the larger resampling job, stereo) is read and resampled on a thread of its own
/// (``ChainThread``), a few reads ahead; the same frames reach the mixer in the same steps.
func mix(_ options: MixOptions, console: Console) throws(CLIError) {
  var options = options
  if options.micDriftFromEcho {
    options.micDriftPPM = try readMicDrift(options, console: console)
  }
  var app = try InputFile.open(options.app)
  defer { app.close() }
  var mic = try InputFile.open(options.mic)
  defer { mic.close() }
  try options.checkRates(app: app, mic: mic)
  let inputs = [options.app.path, options.mic.path]
  let output = try OutputFile.create(options.output, inputs: inputs)
  let reportFile = try OutputFile.createReport(
    options.report, inputs: inputs + [options.output], discarding: output)
  var report = ""
  var stems: StemFiles?
  do throws(CLIError) {
    let maxFrames = MixSession.maxOutputFrames(app: app, mic: mic, options)
    var sink: WriterSink? = try WriterSink.open(
      output, rate: options.rate, channels: 2, type: options.sampleType, maxFrames: maxFrames)
    var session = MixSession(options: options, app: app.format, mic: mic.format)
    defer { session.deallocate() }
    if let folder = options.stems {
      stems = try StemFiles.open(
        folder, inputs: inputs + [options.output], rate: options.rate, type: options.sampleType,
        maxFrames: maxFrames)
      session.stems = stems
    }
    try session.run(
      app: &app, mic: &mic, into: &sink, path: options.output, console: console, label: "mixing")
    try sink?.finish(options.output)
    try session.stems?.finish()
    if options.report != nil || options.json {
      report = session.report(options: options).rendered() + "\n"
      try reportFile?.write(report)
    }
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
  app.warnIfReadShort(console)
  mic.warnIfReadShort(console)
}

/// `--mic-drift auto`: a first pass over both inputs with the echo canceller and no output;
/// the drift between them is the one the canceller follows at the end
/// (``EchoStatistics/micDriftPPM``), 0 where it follows none. With no echo of the app found in
/// the mic there is nothing to read it from: a warning says so, and the mix goes as recorded.
func readMicDrift(_ options: MixOptions, console: Console) throws(CLIError) -> Double {
  var probe = MixOptions(app: options.app, mic: options.mic, output: options.output)
  // At 48 kHz whatever --rate says: a drift is a ratio, and the windows' delays are read to a
  // fraction of a frame, finer in time at 48 kHz (their readings were measured there).
  probe.rate = 48_000
  probe.resampler = options.resampler
  probe.phase = options.phase
  let settings = EchoCancellation()
  probe.echoCancellation = settings
  var app = try InputFile.open(probe.app)
  defer { app.close() }
  var mic = try InputFile.open(probe.mic)
  defer { mic.close() }
  try probe.checkRates(app: app, mic: mic)
  var session = MixSession(options: probe, app: app.format, mic: mic.format)
  defer { session.deallocate() }
  if let frames = MixSession.maxOutputFrames(app: app, mic: mic, probe) {
    let lags = Int(settings.maximumDelay * Double(probe.rate)) + 1_024
    session.echo?.windows = DriftWindows(frames: frames, rate: probe.rate, maximumDelay: lags)
  }
  var discard: WriterSink?
  try session.run(
    app: &app, mic: &mic, into: &discard, path: probe.output, console: console,
    label: "reading the mic's drift")
  let statistics = session.echo?.canceller.statistics ?? EchoStatistics()
  // The fine reading, where it agrees with the canceller's (under the 12 ppm the canceller
  // needs to read a drift at all where it follows none).
  if !statistics.isBypassed, let windows = session.echo?.windows,
    let fine = windows.drift(
      agreeingWith: statistics.micDriftPPM ?? 0,
      within: statistics.micDriftPPM == nil ? 12 : DriftWindows.agreement)
  {
    return fine * 1e6
  }
  if statistics.isBypassed {
    console.err(
      CLIError(
        .data, probe.mic.path,
        "warning: --mic-drift auto found no echo of the app in the mic to read a drift from;"
          + " mixed as recorded"
      ).line + "\n")
  }
  return statistics.micDriftPPM ?? 0
}

extension MixOptions {
  /// The mic's frames on the app's clock per frame of its own (`--mic-drift`): 1 / (1 + p).
  var micClockRatio: Double { 1 / (1 + micDriftPPM * 1e-6) }

  /// Refuses an input whose rate the chosen resampler cannot take to the output rate.
  func checkRates(app: InputFile, mic: InputFile) throws(CLIError) {
    for (input, spec) in [(app, self.app), (mic, self.mic)] {
      try resampler.check(inputRate: input.format.sampleRate, outputRate: rate, path: spec.path)
    }
  }
}

extension MixSession {
  /// The most frames the output can have, when the inputs' lengths are known: without `--pad`
  /// the output is the shorter input, so one known length bounds it.
  static func maxOutputFrames(app: InputFile, mic: InputFile, _ options: MixOptions) -> Int? {
    let appFrames = WriterSink.framesAfterConversion(
      app.expectedFrames, from: app.format.sampleRate, to: options.rate)
    let micFrames = WriterSink.framesAfterConversion(
      mic.expectedFrames, from: mic.format.sampleRate, to: options.rate
    ).map { Int((Double($0) * options.micClockRatio).rounded(.up)) + 1 }
    return options.pad
      ? appFrames.flatMap { a in micFrames.map { max(a, $0) } }
      : [appFrames, micFrames].compactMap { $0 }.min()
  }

  /// Runs the mix on `app`, read and resampled on a thread of its own (``ChainThread``), which
  /// hands it back at the end, and `mic`, into `sink` (`nil`: nothing written), with a progress
  /// line labelled `label` on a terminal.
  mutating func run(
    app: inout InputFile, mic: inout InputFile, into sink: inout WriterSink?, path: String,
    console: Console, label: String
  ) throws(CLIError) {
    let reader = ChainThread(
      input: app, chain: makeChain(), readFrames: Self.readFrames(app.format),
      threaded: ChainThread.hasSpareProcessor)
    reader.start()
    defer { app = reader.join() }
    let total = app.expectedFrames.map { $0 * rate / app.format.sampleRate }
    var progress = Progress(console, label, total: total)
    // Cleared on failure too, so that an error line starts at the left margin.
    defer { progress.end() }
    try run(app: reader, mic: &mic, into: &sink, path: path, progress: &progress)
  }

  /// Reads both sides in step and mixes until both are done. A side is read again once it
  /// holds nothing it could hand over (with fades, its last frames wait until the next read
  /// says whether it has ended).
  mutating func run(
    app reader: ChainThread, mic: inout InputFile, into sink: inout WriterSink?, path: String,
    progress: inout Progress
  ) throws(CLIError) {
    while !isDone {
      let out = framesOut
      var fed = false
      if !appDone && appStaged.frames <= fade.frames + readMargin {
        try feedApp(from: reader)
        fed = true
      }
      if !micDone && micStaged.frames <= fade.frames + readMargin {
        try feedMic(from: &mic)
        fed = true
      }
      try drain(into: &sink, path: path)
      if !fed && framesOut == out {
        // Nothing read and nothing mixed: whatever holds the mix back needs more of an input
        // (the inputs are finite, so this ends). Never reached with the margins above; a guard
        // against a hang should they fall short.
        if !appDone { try feedApp(from: reader) }
        if !micDone { try feedMic(from: &mic) }
      }
      progress.update(framesOut)
    }
  }
}

/// The state of one mix run: both chains, the mixer, and the buffers, allocated once.
struct MixSession {
  let pad: Bool
  /// Makes each side's chain (the app's runs on its reading thread).
  let factory: ResamplerFactory
  let rate: Int
  var micChain: SourceChain
  var mixer: DualBufferMixer
  /// What each chain produced that is not mixed yet (see ``Staging``).
  var appStaged = Staging()
  var micStaged = Staging()
  var appDone = false
  var micDone = false
  var framesOut = 0
  /// Fades at each input's start and end (0 frames: none).
  let fade: FadeShape
  /// Frames of each side moved to the mixer so far (where a fade-in stands).
  var appMoved = 0
  var micMoved = 0
  let micBuffer: UnsafeMutableRawBufferPointer
  let mixBuffer: UnsafeMutableBufferPointer<Float>
  let silence: UnsafeMutableBufferPointer<Float>
  /// `--echo-cancel`: the mic's staged frames cleaned before they are mixed (see ``cleanMic()``).
  var echo: StagedEcho?
  /// `--stems`: each side's frames as they enter the mixer, at its gain.
  var stems: StemFiles?
  let gains: (app: Float, mic: Float)

  init(options: MixOptions, app: PCMFormat, mic: PCMFormat) {
    pad = options.pad
    factory = options.resampler.factory(phase: options.phase)
    rate = options.rate
    if options.micDriftPPM == 0 {
      micChain = SourceChain(outputRate: options.rate, outputChannels: 2, resampler: factory)
    } else {
      // A mic whose clock runs p fast holds 1 + p of its frames per frame of the app's: it is
      // read at 1 / (1 + p) of its nominal ratio, by a resampler that can be steered off it
      // (at the output's rate too).
      micChain = SourceChain(
        outputRate: options.rate, outputChannels: 2,
        resampler: options.resampler.steerableFactory(phase: options.phase),
        resamplesEqualRates: true)
      micChain.adjustRatio(by: options.micClockRatio - 1)
    }
    // Both sides get the same count, at most 4,096 frames, and are mixed at once (see
    // `drain`): neither is ever ahead, so no lag emission happens, and 4,096 frames suffice.
    let capacity = 4_096
    mixer = DualBufferMixer(
      .init(
        capacityFrames: capacity, maxLagFrames: capacity, policy: options.policy,
        appGainDB: options.appGainDB, micGainDB: options.micGainDB, ceilingDB: options.ceilingDB))
    fade = FadeShape(
      frames: Int((options.fadeMilliseconds * Double(options.rate) / 1000).rounded()))
    micBuffer = .allocate(byteCount: Self.readFrames(mic) * mic.bytesPerFrame, alignment: 16)
    mixBuffer = .allocate(capacity: 4_096 * 2)
    silence = .allocate(capacity: 1_024 * 2)
    silence.initialize(repeating: 0)
    if options.echoCancellation != nil || options.ducking != nil {
      echo = StagedEcho(
        rate: options.rate, settings: options.echoCancellation ?? EchoCancellation(),
        corrects: options.echoCancellation != nil, ducking: options.ducking)
    }
    func linear(_ dB: Double) -> Float { dB == 0 ? 1 : Float(pow(10, dB / 20)) }
    gains = (linear(options.appGainDB), linear(options.micGainDB))
  }

  /// Frames a side may hold and still be read again: with the canceller, the mic is mixed only
  /// up to what it has cleaned, which needs its latency and a block of both sides beyond it
  /// (and three blocks to spare); with ducking the app waits for the look-ahead's voice
  /// decisions past it as well.
  var readMargin: Int {
    echo.map { $0.canceller.latency + 3 * $0.canceller.hop + ($0.ducker?.lookaheadFrames ?? 0) }
      ?? 0
  }

  /// A chain to 48 kHz (or `--rate`) stereo, as each side has.
  func makeChain() -> SourceChain {
    SourceChain(outputRate: rate, outputChannels: 2, resampler: factory)
  }

  /// Frames one read takes: 100 ms.
  static func readFrames(_ format: PCMFormat) -> Int { max(1, format.sampleRate / 10) }

  func deallocate() {
    micBuffer.deallocate()
    mixBuffer.deallocate()
    silence.deallocate()
  }

  /// Whether a side has ended and every frame of it has been mixed.
  var appEnded: Bool { appDone && appStaged.isEmpty }
  var micEnded: Bool { micDone && micStaged.isEmpty }

  /// Whether every frame that belongs in the output has been written: without --pad the output
  /// ends with the shorter input, with it with the longer.
  var isDone: Bool { pad ? appEnded && micEnded : appEnded || micEnded }

  /// Takes what the app's next read gave (see ``ChainThread``); at its end, the flushed tail.
  mutating func feedApp(from reader: ChainThread) throws(CLIError) {
    switch reader.next() {
    case .frames(var samples, _):
      appStaged.append(&samples)
      reader.recycle(&samples)
    case .end(var samples, _):
      appStaged.append(&samples)
      appDone = true
    case .failure(let error):
      throw error
    }
  }

  /// Reads up to 100 ms of the mic input into its chain; at its end, flushes the chain.
  mutating func feedMic(from input: inout InputFile) throws(CLIError) {
    let frames = try input.read(into: micBuffer)
    let format = input.format
    if frames == 0 {
      micChain.flush(into: &micStaged)
      micDone = true
      return
    }
    let bytes = UnsafeRawBufferPointer(rebasing: micBuffer[..<(frames * format.bytesPerFrame)])
    do {
      try micChain.process(bytes, format: format, into: &micStaged)
    } catch {
      throw CLIError(.data, input.path, error.description)
    }
  }

  /// Mixes every frame both sides have (with --pad, all of a side whose other has ended, against
  /// silence) and writes it out.
  ///
  /// Equal counts go into both mixer inputs and are mixed at once, so the mixer never sees one
  /// side ahead of the other: its stall handling (meant for live capture, where it emits a
  /// side that runs ahead against silence) never comes into play, whatever the chains' bursts.
  mutating func drain(into sink: inout WriterSink?, path: String) throws(CLIError) {
    // With fades, an input's last frames wait until it is known to have ended.
    var appReady = appDone ? appStaged.frames : max(0, appStaged.frames - fade.frames)
    var micReady = micDone ? micStaged.frames : max(0, micStaged.frames - fade.frames)
    if echo != nil { micReady = min(micReady, cleanMic()) }
    if let stage = echo, let ducker = stage.ducker, !micDone {
      // The app's frames wait until the voice decisions reach the look-ahead past them.
      appReady = min(appReady, max(0, stage.decided - ducker.lookaheadFrames - appMoved))
    }
    var appLeft = appReady
    var micLeft = micReady
    while true {
      var n = min(appLeft, micLeft)
      if pad && appEnded { n = micLeft }
      if pad && micEnded { n = appLeft }
      n = min(n, mixBuffer.count / 2)
      if n == 0 { break }
      if fade.frames > 0 { shapeStaged(n) }
      if echo?.ducker != nil { duckStaged(n) }
      if stems != nil { writeStems(n) }
      if appStaged.isEmpty { fill(.app, to: n) } else { appStaged.move(n, into: &mixer, .app) }
      if micStaged.isEmpty { fill(.mic, to: n) } else { micStaged.move(n, into: &mixer, .mic) }
      appLeft -= min(n, appLeft)
      micLeft -= min(n, micLeft)
      appMoved += n
      micMoved += n
      while true {
        let mixed = mixer.mix(into: mixBuffer)
        if mixed == 0 { break }
        sink?.append(UnsafeBufferPointer(rebasing: mixBuffer[..<(mixed * 2)]))
        framesOut += mixed
      }
    }
    try sink?.check(path)
    try stems?.check()
  }

  /// Turns the app's next `n` staged frames down where the talker speaks (`--duck`).
  mutating func duckStaged(_ n: Int) {
    let m = min(n, appStaged.frames)
    guard m > 0, var ducker = echo?.ducker else { return }
    // Moved out while it works on the staging (no copy), and back.
    echo?.ducker = nil
    let (start, at) = (appStaged.start, appMoved)
    appStaged.samples.withUnsafeMutableBufferPointer {
      ducker.apply($0.baseAddress! + start, at: at, frames: m)
    }
    echo?.ducker = ducker
  }

  /// Writes the next `n` frames of each side to the stems, at its gain (silence where a side has
  /// ended).
  mutating func writeStems(_ n: Int) {
    var done = 0
    while done < n {
      let m = min(n - done, silence.count / 2)
      let a = appStaged.scaled(from: done, m, gains.app, into: mixBuffer)
      let b = micStaged.scaled(from: done, m, gains.mic, into: silence)
      stems!.append(app: a, mic: b)
      // The silence buffer lent to the mic's frames is silent again.
      silence.update(repeating: 0)
      done += m
    }
  }

  /// Cleans the mic's staged frames of the app's echo as far as both sides allow (see
  /// ``StagedEcho``); returns how many staged mic frames are clean.
  mutating func cleanMic() -> Int {
    let micEnd = micMoved + micStaged.frames
    let appEnd = appMoved + appStaged.frames
    var e = echo!
    echo = nil
    defer { echo = e }
    return e.run(
      mic: &micStaged, micFirst: micMoved, micEnd: micDone ? nil : micEnd, micLength: micEnd,
      app: appStaged, appFirst: appMoved, appEnd: appDone ? nil : appEnd, appLength: appEnd)
  }

  /// Fades the next `n` staged frames of each side: in over an input's first frames, out over
  /// its last once it has ended, and, without --pad, both out where the shorter ends the output.
  mutating func shapeStaged(_ n: Int) {
    let appEnd = appDone ? appMoved + appStaged.frames : Int.max
    let micEnd = micDone ? micMoved + micStaged.frames : Int.max
    let outputEnd = pad ? Int.max : min(appEnd, micEnd)
    // (A side that ended and stands in as silence holds fewer than `n`, or none.)
    appStaged.shape(min(n, appStaged.frames), first: appMoved, end: min(appEnd, outputEnd), fade)
    micStaged.shape(min(n, micStaged.frames), first: micMoved, end: min(micEnd, outputEnd), fade)
  }

  /// The JSON summary: the output, the settings, each side's counters, the meters.
  func report(options: MixOptions) -> JSON {
    .object([
      (
        "output",
        .object([
          ("path", .string(options.output)), ("frames", .int(framesOut)),
          ("sampleRate", .int(options.rate)),
          ("sampleType", .string(options.sampleType.cliSpelling)),
        ])
      ),
      (
        "settings",
        .object([
          ("policy", .string(options.policy.cliSpelling)),
          ("ceilingDB", .double(options.ceilingDB)),
          ("fadeMs", .double(options.fadeMilliseconds)), ("pad", .bool(options.pad)),
          ("appGainDB", .double(options.appGainDB)), ("micGainDB", .double(options.micGainDB)),
          ("micDriftPPM", .double(options.micDriftPPM)),
          ("micDriftFromEcho", .bool(options.micDriftFromEcho)),
          ("resampler", .string(options.resampler.spelling)),
          ("phase", .string(options.phase.rawValue)),
        ])
      ),
      ("app", mixer.app.counters.json),
      ("mic", mixer.mic.counters.json),
      ("meters", mixer.meters.json),
      (
        "echo",
        options.echoCancellation == nil ? .null : echo.map { $0.canceller.statistics.json } ?? .null
      ),
      ("stems", stems.map { .array($0.paths.map { .string($0) }) } ?? .null),
    ])
  }

  /// Appends silence to `side` until it holds `frames` frames.
  mutating func fill(_ side: DualBufferMixer.Side, to frames: Int) {
    var buffered = side == .app ? mixer.app.buffered : mixer.mic.buffered
    while buffered < frames {
      let n = min(frames - buffered, silence.count / 2)
      mixer.append(side, samples: UnsafeBufferPointer(rebasing: silence[..<(n * 2)]))
      buffered += n
    }
  }
}

/// Frames a ``SourceChain`` produced that wait for the other side's. One read usually yields
/// about 100 ms, but a chain can hand over far more at once (at a very low input rate one frame
/// is more than 100 ms, and the resampler's flushed tail can hold seconds); the mixer's FIFOs
/// would drop what does not fit, so such a burst waits here.
struct Staging: FrameSink {
  var samples: [Float] = []
  /// The first sample not yet moved.
  var start = 0

  /// Stereo frames waiting.
  var frames: Int { (samples.count - start) / 2 }
  var isEmpty: Bool { start == samples.count }

  mutating func append(_ frames: UnsafeBufferPointer<Float>) {
    samples.append(contentsOf: frames)
  }

  /// Appends a block another thread collected. When nothing waits, the block's storage is
  /// taken as it is and `block` is left with the staging's old (empty) storage, for recycling.
  mutating func append(_ block: inout [Float]) {
    if isEmpty {
      samples.removeAll(keepingCapacity: true)
      swap(&samples, &block)
      start = 0
    } else {
      samples.append(contentsOf: block)
    }
  }

  /// Fades the first `n` staged frames, the `first`-th to the `first + n`-th of the input: in
  /// over the input's first frames, out over the frames before `end` (`Int.max`: not known).
  mutating func shape(_ n: Int, first: Int, end: Int, _ fade: FadeShape) {
    let f = fade.frames
    guard first < f || (end != .max && first + n > end - f) else { return }
    for j in 0..<n {
      let i = first + j
      var g: Float = 1
      if i < f { g = fade.value(i) }
      if end != .max && i >= end - f { g = min(g, fade.value(end - 1 - i)) }
      if g < 1 {
        samples[start + 2 * j] *= g
        samples[start + 2 * j + 1] *= g
      }
    }
  }

  /// `count` staged frames from the `from`-th on (silence past the end), times `gain`, into
  /// `buffer`.
  func scaled(
    from: Int, _ count: Int, _ gain: Float, into buffer: UnsafeMutableBufferPointer<Float>
  ) -> UnsafeBufferPointer<Float> {
    for i in 0..<(2 * count) {
      let at = start + 2 * from + i
      buffer[i] = at < samples.count ? samples[at] * gain : 0
    }
    return UnsafeBufferPointer(rebasing: buffer[..<(2 * count)])
  }

  /// Moves the first `frames` frames into `mixer`'s `side`.
  mutating func move(_ frames: Int, into mixer: inout DualBufferMixer, _ side: DualBufferMixer.Side)
  {
    let end = start + frames * 2
    samples.withUnsafeBufferPointer {
      mixer.append(side, samples: UnsafeBufferPointer(rebasing: $0[start..<end]))
    }
    start = end
    if start == samples.count {
      samples.removeAll(keepingCapacity: true)
      start = 0
    } else if start >= Self.compactionSamples && start >= samples.count - start {
      // The moved part drops out once it is at least what waits (a short copy of what waits).
      // With --echo-cancel or --duck a side waits on the other and is never moved out whole:
      // without this its array kept the whole input, 652 MB after 10 minutes of mixing.
      samples.removeSubrange(0..<start)
      start = 0
    }
  }

  /// Moved samples held before they are dropped: a second of stereo at 32 kHz, or so.
  static let compactionSamples = 65_536
}
