import Foundation
import PCMMix
import PCMMixCLI
import PCMMixTestSupport
import Testing

/// `mix --mic-drift PPM`: two recorders' files, each on its own crystal. The scene: markers
/// every second of host time, recorded by the app's file at 48 kHz on the host's clock and by
/// the mic's at a nominal rate on a clock `ppm` fast (it holds `rate × (1 + ppm·10⁻⁶)` frames a
/// second). Without the option the mic's markers land later and later on the output's timeline
/// (by `ppm` µs a second); with it, where the app's do.
@Suite struct MicDriftTests {
  static let markers = (0..<15).map { 0.5 + Double($0) }

  /// The drift of ``twoRecorders``' mic file (ppm).
  static let twoRecordersPPM = 50.0
  /// Speech 30 ms RT60 0.2 s as two recorders' files: the scene, and its whole mic (the echo,
  /// the talker, the room) on a clock ``twoRecordersPPM`` fast. Made once for the tests that
  /// use it (the resampling takes seconds in a Debug build).
  static let twoRecorders = Result { () throws -> (EchoScene, [Float]) in
    let scene = try EchoScene(
      content: .speech, outputLatency: 0.03, room: "rt02", nonlinear: false,
      assets: EchoCommandTests.assets)
    let ratio = 1 + twoRecordersPPM * 1e-6
    let frames = Int(Double(scene.mic.count) * ratio)
    return (scene, EchoScene.resampled(scene.mic, by: 1 / ratio, count: frames))
  }

  /// Runs `body` with ``twoRecorders``' files written as `DIR/app.wav` and `DIR/mic.wav` in a
  /// temporary folder `DIR`, and the scene.
  static func withTwoRecordersFiles(_ body: (String, EchoScene) throws -> Void) throws {
    let (scene, mic) = try twoRecorders.get()
    try withTempDir { dir in
      try writeFile("\(dir)/app.wav", EchoCommandTests.floatWAV(scene.app))
      try writeFile("\(dir)/mic.wav", EchoCommandTests.floatWAV(mic))
      try body(dir, scene)
    }
  }

  /// The number at `object`.`key` of the JSON report at `path` (nil where it is null).
  static func reported(_ path: String, _ object: String, _ key: String) throws -> Double? {
    let report = try JSONSerialization.jsonObject(with: Data(try readFile(path)))
    return ((report as? [String: Any])?[object] as? [String: Any])?[key] as? Double
  }

  /// Writes `source`'s signal as a mono float32 WAV file at nominal rate `rate`, `seconds` of
  /// host time long: frame j holds the signal at host time j / its true rate.
  static func write(_ source: SimulatedSource, rate: Int, seconds: Double, to path: String) throws {
    let trueRate = source.trueRate(nominal: rate)
    let frames = Int(seconds * trueRate)
    var x: [Double]
    if source.tone == nil && source.noiseAmplitude == 0 {
      // Markers alone: silence but for their spans (a Debug build took seconds a file to ask
      // for every frame).
      x = [Double](repeating: 0, count: frames)
      for m in source.markers {
        let from = max(0, Int((m * trueRate).rounded(.up)))
        let to = min(frames - 1, Int(((m + source.markerDuration) * trueRate).rounded(.down)))
        guard from <= to else { continue }
        for j in from...to { x[j] = source.signal(atHostTime: Double(j) / trueRate) }
      }
    } else {
      x = (0..<frames).map { source.signal(atHostTime: Double($0) / trueRate) }
    }
    try writeFile(
      path, wav(tag: 3, channels: 1, rate: rate, bits: 32, data: floatBytes(x, bits: 32)))
  }

  /// Where the markers land in a stereo stem (found − true host time, ms).
  static func landing(_ path: String) throws -> MarkerReport {
    let stem = try readWAV(path).samples
    return MarkerDetector.measure(
      output: stem, channels: 2, rate: 48_000, origin: 0, markers: markers, frequency: 1_000,
      duration: 0.010, searchRadius: 600)
  }

  @Test(
    "the mic's markers land where the app's do, for a mic 200 ppm fast or slow, at 32 and 48 kHz",
    arguments: [200.0, -200.0], [32_000, 48_000])
  func micDriftPutsTheMicOnTheAppsClock(ppm: Double, micRate: Int) throws {
    let app = SimulatedSource(rate: 48_000, channels: 1, markers: Self.markers)
    let mic = SimulatedSource(rate: micRate, channels: 1, clockPPM: ppm, markers: Self.markers)
    try withTempDir { dir in
      try Self.write(app, rate: 48_000, seconds: 15.2, to: "\(dir)/app.wav")
      try Self.write(mic, rate: micRate, seconds: 15.2, to: "\(dir)/mic.wav")
      var reports: [MarkerReport] = []
      for extra in [[], ["--mic-drift", "\(ppm)"]] {
        let stems = "\(dir)/stems\(reports.count)"
        cliOK(
          [
            "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o",
            "\(dir)/out\(reports.count).wav", "--stems", stems, "--format", "f32",
          ] + extra)
        let app = try Self.landing("\(stems)/app.wav")
        #expect(app.missing == 0 && app.maxAbsError < 0.001, "app stem: \(app)")
        reports.append(try Self.landing("\(stems)/mic.wav"))
      }
      let (asRecorded, corrected) = (reports[0], reports[1])
      // As recorded, the last marker (14.5 s) is ppm × 14.5 µs late: the test sees the drift.
      let expected = ppm * 1e-6 * Self.markers.last! * 1000
      let last = asRecorded.errors.last!
      #expect(last.map { abs($0 - expected) < 0.02 } == true, "as recorded: \(asRecorded)")
      #expect(corrected.missing == 0 && corrected.maxAbsError < 0.002, "corrected: \(corrected)")
      print(
        "mic \(ppm) ppm at \(micRate) Hz: last marker \(last ?? .nan) ms as recorded;"
          + " with --mic-drift every marker within \(corrected.maxAbsError) ms")
    }
  }

  /// `auto` with no echo of the app in the mic (headphones): nothing to read a drift from. A
  /// warning names the mic, and the mix is the one without the option, byte for byte.
  @Test func autoWithNoEchoWarnsAndMixesAsRecorded() throws {
    let app = SimulatedSource(rate: 48_000, channels: 1, markers: [0.5, 1.5, 2.5])
    let mic = SimulatedSource(rate: 32_000, channels: 1, tone: (440, 0.1))
    try withTempDir { dir in
      try Self.write(app, rate: 48_000, seconds: 3, to: "\(dir)/app.wav")
      try Self.write(mic, rate: 32_000, seconds: 3, to: "\(dir)/mic.wav")
      let inputs = ["mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o"]
      cliOK(inputs + ["\(dir)/plain.wav"])
      let r = cli(inputs + ["\(dir)/auto.wav", "--mic-drift", "auto"])
      #expect(r.code == 0)
      #expect(
        r.errLines == [
          "pcm-mix: \(dir)/mic.wav: warning: --mic-drift auto found no echo of the app in the mic"
            + " to read a drift from; mixed as recorded"
        ])
      #expect(try readFile("\(dir)/auto.wav") == readFile("\(dir)/plain.wav"))
    }
  }

  @Test func autoRefusesStandardInput() throws {
    let r = cli(["mix", "--app", "-", "--mic", "m.wav", "-o", "o.wav", "--mic-drift", "auto"])
    #expect(r.code == 64)
    #expect(r.err.contains("--mic-drift auto reads both inputs twice"), "\(r.err)")
  }

  @Test func micDriftIsRefusedPastAThousandPPM() throws {
    for value in ["1001", "-2000", "nan", "fast"] {
      let r = cli([
        "mix", "--app", "a.wav", "--mic", "m.wav", "-o", "o.wav", "--mic-drift", value,
      ])
      #expect(r.code == 64)
      #expect(r.err.contains("--mic-drift takes auto or ppm between -1000 and 1000"), "\(r.err)")
    }
  }

  /// The reading pass runs at 48 kHz whatever `--rate` says: at 16 kHz the canceller followed
  /// none of a 50 ppm drift over two minutes, and `auto` took out nothing.
  @Test func autoReadsTheDriftWhateverTheOutputRate() throws {
    let ppm = Self.twoRecordersPPM
    try Self.withTwoRecordersFiles { dir, _ in
      cliOK([
        "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(dir)/out.wav",
        "--rate", "16000", "--mic-drift", "auto", "--report", "\(dir)/report.json",
      ])
      let used = try #require(try Self.reported("\(dir)/report.json", "settings", "micDriftPPM"))
      #expect(abs(used - ppm) < 0.5, "auto at 16 kHz used \(used) ppm")
    }
  }

  /// Two recorders' files with the app's echo in the mic: the whole mic file (the echo, the
  /// talker, the room) on a clock 50 ppm fast, speech 30 ms RT60 0.2 s. As recorded, the
  /// canceller follows the echo only once it has read the drift, and the report gives that
  /// reading (`"micDriftPPM"`); with `--mic-drift` the mic is on the app's clock from the
  /// first frame, and the scene's figures are those of a mic with no drift.
  @Test func anEchoInTwoRecordersFilesIsCancelledFromTheStart() throws {
    let mic = try Self.twoRecorders.get().1
    let ppm = Self.twoRecordersPPM
    try Self.withTwoRecordersFiles { dir, scene in
      var outputs: [[Float]] = []
      var readings: [Double?] = []
      var settings: [Double?] = []
      for extra in [[], ["--mic-drift", "\(ppm)"], ["--mic-drift", "auto"]] {
        let run = "\(dir)/run\(outputs.count)"
        cliOK(
          [
            "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(run).wav",
            "--echo-cancel", "--stems", run, "--format", "f32", "--report", "\(run).json",
          ] + extra)
        outputs.append(try EchoCommandTests.mid("\(run)/mic.wav"))
        readings.append(try Self.reported("\(run).json", "echo", "micDriftPPM"))
        settings.append(try Self.reported("\(run).json", "settings", "micDriftPPM"))
      }
      // As recorded: the canceller read the drift, and before it did, the echo slid. With the
      // mic on the app's clock it reads none.
      #expect(readings[0].map { abs($0 - ppm) < 5 } == true, "reported: \(readings)")
      #expect(readings[1] == nil, "reported: \(readings)")
      let before =
        EchoScene.level(mic, from: 3, to: 6) - EchoScene.level(outputs[0], from: 3, to: 6)
      // On the app's clock: the figures of the targets, on the scene's own talker.
      let m = EchoSceneMetrics(scene: scene, output: outputs[1])
      #expect(m.erleBefore >= 25 && m.erleAfter >= 25)
      #expect(m.doubleTalkSISDR >= 15)
      #expect(abs(m.talkerLevel) <= 1)
      // `auto`: a first pass reads the drift from the echo's delay over the files (the
      // canceller's reading, 48.3 ppm, only vouches for it), and the mix takes it out.
      let used = try #require(settings[2])
      #expect(abs(used - ppm) < 0.5, "auto used \(settings), the canceller read \(readings)")
      let auto = EchoSceneMetrics(scene: scene, output: outputs[2])
      #expect(auto.erleBefore >= 25 && auto.erleAfter >= 25)
      #expect(auto.doubleTalkSISDR >= 15)
      print(
        "two recorders' files, mic 50 ppm fast: as recorded ERLE \(before) dB over 3-6 s,"
          + " reported \(readings[0] ?? .nan) ppm; with --mic-drift ERLE \(m.erleBefore) /"
          + " \(m.erleAfter) dB, double talk \(m.doubleTalkSISDR) dB; with auto ERLE"
          + " \(auto.erleBefore) / \(auto.erleAfter) dB, double talk \(auto.doubleTalkSISDR) dB"
          + " (auto read \(used) ppm)")
    }
  }
}
