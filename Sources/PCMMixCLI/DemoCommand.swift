import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `pcm-mix demo`: a synthesized ReplayKit-shaped capture through ``CapturePipeline``, buffer by
/// buffer, as a broadcast extension would run it.
func demo(output path: String, console: Console) throws(CLIError) {
  let seconds = 5
  let scene = DemoScene(seconds: seconds)
  let output = try OutputFile.create(path, inputs: [])
  var pipeline = CapturePipeline()
  do {
    try pipeline.prepare(app: scene.appDescription, mic: scene.micDescription)
  } catch {
    throw CLIError(.data, nil, "demo formats rejected: \(error)")
  }
  var peaks: (Int16, Int16) = (0, 0)
  var framesOut = 0
  do throws(CLIError) {
    var sink = try WriterSink.open(
      output, rate: 48_000, channels: 2, type: .s16, maxFrames: (seconds + 1) * 48_000)
    let mixed = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 48_000 * 2)
    defer { mixed.deallocate() }
    let floats = UnsafeMutableBufferPointer<Float>.allocate(capacity: 48_000 * 2)
    defer { floats.deallocate() }
    func drain() {
      let n = pipeline.mix(into: mixed)
      for i in 0..<n {
        peaks.0 = max(peaks.0, mixed[2 * i].magnitude == 32768 ? .max : abs(mixed[2 * i]))
        peaks.1 = max(peaks.1, mixed[2 * i + 1].magnitude == 32768 ? .max : abs(mixed[2 * i + 1]))
      }
      // The WAV writer takes floats; int16 values are exact in them and encode back unchanged.
      for i in 0..<(n * 2) { floats[i] = Float(mixed[i]) / 32768 }
      sink.append(UnsafeBufferPointer(rebasing: floats[..<(n * 2)]))
      framesOut += n
    }
    // Deliver buffers in the order their audio begins, as the capture callbacks would.
    let appBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: scene.app.count, alignment: 16)
    defer { appBytes.deallocate() }
    appBytes.copyBytes(from: scene.app)
    let micBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: scene.mic.count, alignment: 16)
    defer { micBytes.deallocate() }
    micBytes.copyBytes(from: scene.mic)
    for event in scene.schedule {
      do {
        switch event.source {
        case .app:
          try pipeline.appendApp(
            UnsafeRawBufferPointer(rebasing: appBytes[event.byteRange]),
            description: scene.appDescription)
        case .mic:
          try pipeline.appendMic(
            UnsafeRawBufferPointer(rebasing: micBytes[event.byteRange]),
            description: scene.micDescription)
        }
      } catch {
        throw CLIError(.data, nil, "demo buffer rejected: \(error)")
      }
      drain()
    }
    pipeline.finish()
    drain()
    try sink.finish(path)
  } catch {
    output.discard()
    throw error
  }
  // Outside the do: a failed commit has already removed its temporary file.
  try output.commit()
  let app = pipeline.mixer.app.counters
  let mic = pipeline.mixer.mic.counters
  func dBFS(_ v: Int16) -> String {
    v == 0 ? "-inf" : _fixed(20 * log10(Double(v) / 32768), 1)
  }
  let appFormat = try? FormatProbe.probe(scene.appDescription)
  let micFormat = try? FormatProbe.probe(scene.micDescription)
  // With the WAV on standard output, the summary goes to standard error, not into the audio.
  let report = path == "-" ? console.err : console.out
  report(
    """
    pcm-mix demo: \(seconds) s of synthesized capture through the pipeline
      app  probed \(appFormat.map { "\($0)" } ?? "?"), \(scene.appBufferCount) buffers of 1024 frames, \(pipeline.app.framesIn) frames in
      mic  probed \(micFormat.map { "\($0)" } ?? "?"), \(scene.micBufferCount) buffers of 1 … 2048 frames, \(pipeline.mic.framesIn) frames in
      out  48000 Hz stereo s16, \(framesOut) frames (\(_seconds(Double(framesOut) / 48_000)) s) -> \(path)
      peak left \(dBFS(peaks.0)) dBFS, right \(dBFS(peaks.1)) dBFS
      mixer app: in \(app.framesIn), mixed \(app.framesMixed), alone \(app.framesAlone), padded \(app.framesPadded), dropped \(app.framesDropped), buffered \(app.framesBuffered)
      mixer mic: in \(mic.framesIn), mixed \(mic.framesMixed), alone \(mic.framesAlone), padded \(mic.framesPadded), dropped \(mic.framesDropped), buffered \(mic.framesBuffered)
      memory held by the pipeline: \(pipeline.retainedBytes) bytes

    """)
}

/// `x` with `digits` decimals.
func _fixed(_ x: Double, _ digits: Int) -> String {
  let scale = Double((0..<digits).reduce(1) { r, _ in r * 10 })
  let v = (x * scale).rounded() / scale
  var s = "\(v)"
  if let dot = s.firstIndex(of: ".") {
    let have = s.distance(from: dot, to: s.endIndex) - 1
    if have < digits { s += String(repeating: "0", count: digits - have) }
  }
  return s
}

/// The synthesized capture: app 44.1 kHz stereo s16be in 1,024-frame buffers (music-like
/// chords), mic 32 kHz mono s16le in uneven buffers (a voice-like warble that pauses).
struct DemoScene {
  let app: [UInt8]
  let mic: [UInt8]
  let appDescription = StreamDescription(
    PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big))
  let micDescription = StreamDescription(
    PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16, byteOrder: .little))
  let schedule: [(source: DualBufferMixer.Side, byteRange: Range<Int>)]
  let appBufferCount: Int
  let micBufferCount: Int

  init(seconds: Int) {
    let appFrames = 44_100 * seconds
    var app = [UInt8]()
    app.reserveCapacity(appFrames * 4)
    for i in 0..<appFrames {
      let t = Double(i) / 44_100
      let l = 0.25 * sin(2 * .pi * 440 * t) + 0.1 * sin(2 * .pi * 3_000 * t)
      let r = 0.25 * sin(2 * .pi * 660 * t) + 0.1 * sin(2 * .pi * 1_250 * t)
      for v in [l, r] {
        let s = UInt16(bitPattern: Int16((v * 32767).rounded()))
        app.append(UInt8(s >> 8))
        app.append(UInt8(s & 0xFF))
      }
    }
    let micFrames = 32_000 * seconds
    var mic = [UInt8]()
    mic.reserveCapacity(micFrames * 2)
    for i in 0..<micFrames {
      let t = Double(i) / 32_000
      let envelope = max(0, sin(2 * .pi * 0.7 * t))
      let v = 0.4 * envelope * sin(2 * .pi * (220 + 30 * sin(2 * .pi * 5 * t)) * t)
      let s = UInt16(bitPattern: Int16((v * 32767).rounded()))
      mic.append(UInt8(s & 0xFF))
      mic.append(UInt8(s >> 8))
    }
    self.app = app
    self.mic = mic
    // Buffers with their start times; the mic's sizes vary as they do across OS versions.
    var events: [(time: Double, source: DualBufferMixer.Side, range: Range<Int>)] = []
    var start = 0
    while start < appFrames {
      let n = min(1_024, appFrames - start)
      events.append((Double(start) / 44_100, .app, (start * 4)..<((start + n) * 4)))
      start += n
    }
    appBufferCount = events.count
    let sizes = [1_024, 960, 1_500, 320, 17, 2_048, 1, 700]
    start = 0
    var k = 0
    while start < micFrames {
      let n = min(sizes[k % sizes.count], micFrames - start)
      events.append((Double(start) / 32_000, .mic, (start * 2)..<((start + n) * 2)))
      start += n
      k += 1
    }
    micBufferCount = k
    schedule = events.sorted { $0.time < $1.time }.map { ($0.source, $0.range) }
  }
}
