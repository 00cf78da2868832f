import PCMMix

/// `pcm-mix mix`: two inputs, each through its own ``SourceChain``, into a ``DualBufferMixer``
/// and out to a WAV file. The inputs are read in step, 100 ms of each at a time, so the mixer
/// holds little more than that.
func mix(_ options: MixOptions, console: Console) throws(CLIError) {
  var app = try InputFile.open(options.app)
  defer { app.close() }
  var mic = try InputFile.open(options.mic)
  defer { mic.close() }
  let output = try OutputFile.create(
    options.output, inputs: [options.app.path, options.mic.path])
  do throws(CLIError) {
    var sink = try WriterSink.open(
      output, rate: options.rate, channels: 2, type: options.sampleType)
    var session = _MixSession(options: options, app: app.format, mic: mic.format)
    defer { session.deallocate() }
    var progress = Progress(
      console, "mixing",
      total: app.expectedFrames.map { $0 * options.rate / app.format.sampleRate })
    while !session.isDone {
      if !session.appDone { try session.feed(.app, from: &app) }
      if !session.micDone { try session.feed(.mic, from: &mic) }
      try session.drain(into: &sink, path: options.output)
      progress.update(session.framesOut)
    }
    try sink.finish(options.output)
    progress.end()
    try output.commit()
  } catch {
    output.discard()
    throw error
  }
  for input in [app, mic] {
    if let warning = input.truncationWarning {
      console.err(CLIError(.data, input.path, warning).line + "\n")
    }
  }
}

/// The state of one mix run: both chains, the mixer, and the buffers, allocated once.
struct _MixSession {
  let pad: Bool
  var appChain: SourceChain
  var micChain: SourceChain
  var mixer: DualBufferMixer
  var appDone = false
  var micDone = false
  var framesOut = 0
  let appBuffer: UnsafeMutableRawBufferPointer
  let micBuffer: UnsafeMutableRawBufferPointer
  let mixBuffer: UnsafeMutableBufferPointer<Float>
  let silence: UnsafeMutableBufferPointer<Float>

  init(options: MixOptions, app: PCMFormat, mic: PCMFormat) {
    pad = options.pad
    appChain = SourceChain(outputRate: options.rate, outputChannels: 2)
    micChain = SourceChain(outputRate: options.rate, outputChannels: 2)
    // The inputs are read in step, so neither side runs far ahead: no lag emission is needed,
    // and a second of capacity covers a 100 ms read plus the resamplers' delays.
    let capacity = max(options.rate, 4_096)
    mixer = DualBufferMixer(
      .init(
        capacityFrames: capacity, maxLagFrames: capacity, policy: options.policy,
        appGainDB: options.appGainDB, micGainDB: options.micGainDB))
    appBuffer = .allocate(byteCount: max(1, app.sampleRate / 10) * app.bytesPerFrame, alignment: 16)
    micBuffer = .allocate(byteCount: max(1, mic.sampleRate / 10) * mic.bytesPerFrame, alignment: 16)
    mixBuffer = .allocate(capacity: 4_096 * 2)
    silence = .allocate(capacity: 1_024 * 2)
    silence.initialize(repeating: 0)
  }

  func deallocate() {
    appBuffer.deallocate()
    micBuffer.deallocate()
    mixBuffer.deallocate()
    silence.deallocate()
  }

  /// Whether every frame that belongs in the output has been written.
  var isDone: Bool {
    if appDone && micDone { return mixer.availableFrames == 0 }
    guard !pad else { return false }
    // Without --pad the output ends with the shorter input: once one side has ended and the
    // other has produced as many frames, the rest of the other is not needed.
    if appDone { return micChain.framesOut >= appChain.framesOut && mixer.availableFrames == 0 }
    if micDone { return appChain.framesOut >= micChain.framesOut && mixer.availableFrames == 0 }
    return false
  }

  /// Reads up to 100 ms of one input into its chain; at its end, flushes the chain.
  mutating func feed(_ side: DualBufferMixer.Side, from input: inout InputFile) throws(CLIError) {
    let buffer = side == .app ? appBuffer : micBuffer
    let frames = try input.read(into: buffer)
    let format = input.format
    if frames == 0 {
      if side == .app {
        appChain.finish(into: &mixer.app)
        appDone = true
      } else {
        micChain.finish(into: &mixer.mic)
        micDone = true
      }
      return
    }
    let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<(frames * format.bytesPerFrame)])
    do {
      if side == .app {
        try appChain.process(bytes, format: format, into: &mixer.app)
      } else {
        try micChain.process(bytes, format: format, into: &mixer.mic)
      }
    } catch {
      throw CLIError(.data, input.path, error.description)
    }
  }

  /// With --pad, continues an ended side as silence to match the other; then writes out
  /// everything the mixer has ready.
  mutating func drain(into sink: inout WriterSink, path: String) throws(CLIError) {
    if pad {
      if appDone { _fill(&mixer.app, to: mixer.mic.buffered) }
      if micDone { _fill(&mixer.mic, to: mixer.app.buffered) }
    }
    while true {
      let n = mixer.mix(into: mixBuffer)
      if n == 0 { break }
      sink.append(UnsafeBufferPointer(rebasing: mixBuffer[..<(n * 2)]))
      framesOut += n
    }
    try sink.check(path)
  }

  /// Appends silence to `side` until it holds `frames` frames.
  func _fill(_ side: inout MixerInput, to frames: Int) {
    while side.buffered < frames {
      let n = min(frames - side.buffered, silence.count / 2)
      side.append(UnsafeBufferPointer(rebasing: silence[..<(n * 2)]))
    }
  }
}
