import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `pcm-mix demo`: a synthesized ReplayKit-shaped capture through the pipeline the guide
/// recommends, a ``RealtimeCapturePipeline`` (here on one thread): each buffer handed over when
/// its last frame exists, stamped with its host time, and a steady 10 ms pull. The blocks are
/// written back to back from the first one the output clock stamps, and markers in both sources
/// show where their audio landed against its host time.
func demo(output path: String, console: Console) throws(CLIError) {
  let seconds = 5
  let scene = DemoScene(seconds: seconds)
  let output = try OutputFile.create(path, inputs: [])
  var configuration = RealtimeCapturePipeline.Configuration()
  configuration.policy = .limit
  let pipeline: RealtimeCapturePipeline
  do {
    pipeline = try RealtimeCapturePipeline(
      configuration, app: scene.appDescription, mic: scene.micDescription)
  } catch {
    throw CLIError(.data, nil, "demo formats rejected: \(error)")
  }
  let capture: DemoCapture
  do throws(CLIError) {
    capture = try scene.run(through: pipeline, seconds: seconds)
    var sink = try WriterSink.open(
      output, rate: 48_000, channels: 2, type: .s16, maxFrames: capture.written.count / 2)
    capture.written.withUnsafeBufferPointer { sink.append($0) }
    try sink.finish(path)
  } catch {
    output.discard()
    throw error
  }
  // Outside the do: a failed commit has already removed its temporary file.
  try output.commit()
  // With the WAV on standard output, the summary goes to standard error, not into the audio.
  let report = path == "-" ? console.err : console.out
  report(scene.summary(of: capture, pipeline.statistics, seconds: seconds, path: path))
}

/// What the demo's capture gave: the pulled blocks back to back from the first stamped one, and
/// what was seen on the way.
struct DemoCapture {
  var written: [Float] = []
  var fileStart: MediaTime?
  var peaks: (Float, Float) = (0, 0)
  var latencyAtStart: Int?
}

extension DemoScene {
  /// Hands each buffer over when its last frame exists, stamped with its host time, and pulls
  /// 10 ms every 10 ms of host time until the latency after the end has played out.
  func run(through pipeline: RealtimeCapturePipeline, seconds: Int) throws(CLIError)
    -> DemoCapture
  {
    let pullFrames = 480
    var capture = DemoCapture()
    capture.written.reserveCapacity((seconds + 1) * 48_000 * 2)
    let appBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: app.count, alignment: 16)
    defer { appBytes.deallocate() }
    appBytes.copyBytes(from: app)
    let micBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: mic.count, alignment: 16)
    defer { micBytes.deallocate() }
    micBytes.copyBytes(from: mic)
    var block = [Float](repeating: 0, count: 2 * pullFrames)
    var next = 0
    for k in 0..<((seconds + 1) * 100) {
      let now = Double(k + 1) / 100
      while next < schedule.count && schedule[next].ready <= now {
        let e = schedule[next]
        let bytes = e.source == .app ? appBytes : micBytes
        let description = e.source == .app ? appDescription : micDescription
        do {
          try pipeline.append(
            e.source, UnsafeRawBufferPointer(rebasing: bytes[e.byteRange]),
            description: description, time: MediaTime(seconds: DemoScene.hostStart + e.start))
        } catch {
          throw CLIError(.data, nil, "demo buffer rejected: \(error)")
        }
        next += 1
        if next == schedule.count {
          pipeline.finish(.app)
          pipeline.finish(.mic)
        }
      }
      let status = block.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
      guard let time = status.time else { continue }
      if capture.fileStart == nil {
        capture.fileStart = time
        capture.latencyAtStart = pipeline.statistics.clock.latencyFrames
      }
      capture.written += block
      for i in 0..<pullFrames {
        capture.peaks = (
          max(capture.peaks.0, abs(block[2 * i])), max(capture.peaks.1, abs(block[2 * i + 1]))
        )
      }
    }
    return capture
  }

  /// The demo's summary: formats, output, where the markers landed, latency, levels, memory.
  func summary(
    of capture: DemoCapture, _ s: RealtimeCapturePipeline.Statistics, seconds: Int, path: String
  ) -> String {
    let written = capture.written
    let start = capture.fileStart.map { $0.seconds - DemoScene.hostStart } ?? 0
    let appErrors = DemoScene.locate(
      appMarkers, frequency: DemoScene.appMarkerFrequency, in: written, start: start)
    let micErrors = DemoScene.locate(
      micMarkers, frequency: DemoScene.micMarkerFrequency, in: written, start: start)
    func dBFS(_ v: Float) -> String { v == 0 ? "-inf" : _fixed(20 * log10(Double(v)), 1) }
    func ms(_ frames: Int) -> String { _fixed(Double(frames) / 48, 1) }
    func summary(_ errors: [Double?]) -> String {
      let found = errors.compactMap { $0 }
      guard let worst = found.map(abs).max() else { return "none found" }
      return "\(found.count) of \(errors.count) within \(_fixed(worst, 3)) ms of their host time"
    }
    let appFormat = try? FormatProbe.probe(appDescription)
    let micFormat = try? FormatProbe.probe(micDescription)
    let peaks = capture.peaks
    return """
      pcm-mix demo: \(seconds) s of synthesized capture, stamped, through RealtimeCapturePipeline (limit)
        app  \(appFormat.map { "\($0)" } ?? "?"), \(appBufferCount) buffers of 1024 frames
        mic  \(micFormat.map { "\($0)" } ?? "?"), \(micBufferCount) buffers of 1 … 2048 frames
        out  48000 Hz stereo s16, \(written.count / 2) frames (\(_seconds(Double(written.count / 2) / 48_000)) s) -> \(path)
             written back to back from the first pull's time, host time \(_fixed(start, 4)) s of the scene
        alignment  app markers \(summary(appErrors)); mic markers \(summary(micErrors))
        latency    \(ms(capture.latencyAtStart ?? 0)) ms at the start, \(ms(s.clock.latencyFrames)) ms at the end; raised \(s.clock.latencyRaises), stall holds \(s.clock.stallHolds), lowered \(s.clock.latencyLowerings)
        late       app \(s.app.framesLate) frames, mic \(s.mic.framesLate) frames; hand-off drops \(s.appHandoffDrops + s.micHandoffDrops)
        peak left \(dBFS(peaks.0)) dBFS, right \(dBFS(peaks.1)) dBFS; limited \(s.meters?.limitedSamples ?? 0) samples
        memory held by the pipeline: \(s.retainedBytes) bytes

      """
  }
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
/// chords), mic 32 kHz mono s16le in uneven buffers (a voice-like warble that pauses), each with
/// short marker bursts at known host times, away from the other's frequencies.
struct DemoScene {
  let app: [UInt8]
  let mic: [UInt8]
  let appDescription = StreamDescription(
    PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big))
  let micDescription = StreamDescription(
    PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16, byteOrder: .little))
  /// Each buffer: its source, its bytes, the host time (scene seconds) of its first frame and
  /// when it exists whole, in the order the callbacks deliver them.
  let schedule:
    [(source: ClockedCapturePipeline.Side, byteRange: Range<Int>, start: Double, ready: Double)]
  let appBufferCount: Int
  let micBufferCount: Int
  /// Scene seconds at which a marker starts in each source.
  let appMarkers = [1.0, 2.0, 3.0, 4.0]
  let micMarkers = [1.5, 2.5, 3.5, 4.5]
  static let appMarkerFrequency = 1_600.0
  static let micMarkerFrequency = 2_500.0
  /// A marker: 5 ms of its frequency under a Hann window, peak 0.3.
  static let markerSeconds = 0.005
  /// The host clock's reading at the scene's start (it has run long before a capture starts).
  static let hostStart = 1_000.0

  static func marker(_ frequency: Double, at tau: Double) -> Double {
    guard tau >= 0 && tau <= markerSeconds else { return 0 }
    return 0.3 * (0.5 - 0.5 * cos(2 * .pi * tau / markerSeconds)) * sin(2 * .pi * frequency * tau)
  }

  init(seconds: Int) {
    let appFrames = 44_100 * seconds
    let micFrames = 32_000 * seconds
    let app = Self.synthesizeApp(frames: appFrames, markers: appMarkers)
    let mic = Self.synthesizeMic(frames: micFrames, markers: micMarkers)
    self.app = app
    self.mic = mic
    // Buffers with their start and end times; the mic's sizes vary as they do across OS
    // versions. Each is delivered 2 ms after its last frame.
    var events:
      [(source: ClockedCapturePipeline.Side, byteRange: Range<Int>, start: Double, ready: Double)] =
        []
    var start = 0
    while start < appFrames {
      let n = min(1_024, appFrames - start)
      events.append(
        (
          .app, (start * 4)..<((start + n) * 4), Double(start) / 44_100,
          Double(start + n) / 44_100 + 0.002
        ))
      start += n
    }
    appBufferCount = events.count
    let sizes = [1_024, 960, 1_500, 320, 17, 2_048, 1, 700]
    start = 0
    var k = 0
    while start < micFrames {
      let n = min(sizes[k % sizes.count], micFrames - start)
      events.append(
        (
          .mic, (start * 2)..<((start + n) * 2), Double(start) / 32_000,
          Double(start + n) / 32_000 + 0.002
        ))
      start += n
      k += 1
    }
    micBufferCount = k
    schedule = events.sorted { $0.ready < $1.ready }
  }

  /// The app's audio: two tones per channel and the markers, stereo s16be at 44.1 kHz.
  static func synthesizeApp(frames: Int, markers: [Double]) -> [UInt8] {
    var app = [UInt8]()
    app.reserveCapacity(frames * 4)
    for i in 0..<frames {
      let t = Double(i) / 44_100
      let m = markers.reduce(0) { $0 + marker(appMarkerFrequency, at: t - $1) }
      let l = 0.25 * sin(2 * .pi * 440 * t) + 0.1 * sin(2 * .pi * 3_000 * t) + m
      let r = 0.25 * sin(2 * .pi * 660 * t) + 0.1 * sin(2 * .pi * 1_250 * t) + m
      for v in [l, r] {
        let s = UInt16(bitPattern: Int16((v * 32767).rounded()))
        app.append(UInt8(s >> 8))
        app.append(UInt8(s & 0xFF))
      }
    }
    return app
  }

  /// The mic's audio: a voice-like warble under a slow envelope and the markers, mono s16le at
  /// 32 kHz.
  static func synthesizeMic(frames: Int, markers: [Double]) -> [UInt8] {
    var mic = [UInt8]()
    mic.reserveCapacity(frames * 2)
    for i in 0..<frames {
      let t = Double(i) / 32_000
      let envelope = max(0, sin(2 * .pi * 0.7 * t))
      let m = markers.reduce(0) { $0 + marker(micMarkerFrequency, at: t - $1) }
      let v = 0.4 * envelope * sin(2 * .pi * (220 + 30 * sin(2 * .pi * 5 * t)) * t) + m
      let s = UInt16(bitPattern: Int16((v * 32767).rounded()))
      mic.append(UInt8(s & 0xFF))
      mic.append(UInt8(s >> 8))
    }
    return mic
  }

  /// Where each marker landed in `output` (interleaved stereo, its frame 0 at scene time
  /// `start`), in milliseconds against its host time: the peak of the left channel's
  /// correlation with the marker within ±10 ms, to a fraction of a frame; `nil` when not found.
  static func locate(_ markers: [Double], frequency: Double, in output: [Float], start: Double)
    -> [Double?]
  {
    let length = Int(markerSeconds * 48_000)
    let template = (0...length).map { marker(frequency, at: Double($0) / 48_000) }
    let energy = template.reduce(0) { $0 + $1 * $1 }
    return markers.map { m -> Double? in
      let expected = (m - start) * 48_000
      let center = Int(expected.rounded())
      var scores: [(Int, Double)] = []
      for lag in (center - 480)...(center + 480) {
        guard lag >= 0, 2 * (lag + length) + 1 < output.count else { continue }
        var c = 0.0
        for j in 0...length { c += Double(output[2 * (lag + j)]) * template[j] }
        scores.append((lag, c))
      }
      guard let best = scores.indices.max(by: { scores[$0].1 < scores[$1].1 }),
        scores[best].1 > 0.5 * energy, best > 0, best < scores.count - 1
      else { return nil }
      // A parabola through the peak and its neighbours.
      let (a, b, c) = (scores[best - 1].1, scores[best].1, scores[best + 1].1)
      let shift = (a - c) / (2 * (a - 2 * b + c))
      return (Double(scores[best].0) + shift - expected) / 48
    }
  }
}
