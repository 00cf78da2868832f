import Foundation
import PCMMix
import PCMMixCLI
import Testing

/// `pcm-mix replay`: capture logs written from the simulator, replayed through the CLI, and the
/// markers found in the output WAV where their host times put them (frame (m − t0) × 48,000).
@Suite struct ReplayTests {
  /// Added to every simulated stamp, so that t0 is not 0.
  static let hostOffset = 1_000.0
  static let rate = 48_000.0

  static func app(_ markers: [Double]) -> SimulatedSource { .replayKitApp(markers: markers) }
  static func mic(_ markers: [Double]) -> SimulatedSource { .replayKitMic(markers: markers) }

  /// A scene's logs on disk and what they hold.
  struct Logs {
    var dir: String
    var app: CaptureLogWriter.Summary?
    var mic: CaptureLogWriter.Summary?

    /// The `--app`/`--mic` arguments for the logs written.
    var arguments: [String] {
      (app == nil ? [] : ["--app", "\(dir)/app.raw", "--app-log", "\(dir)/app.csv"])
        + (mic == nil ? [] : ["--mic", "\(dir)/mic.raw", "--mic-log", "\(dir)/mic.csv"])
    }

    /// The earliest stamp of both logs.
    var t0: MediaTime? { [app?.earliest, mic?.earliest].compactMap { $0 }.min() }

    /// The output's length: where the latest stamped buffer ends.
    var endFrame: Int {
      let end = [app?.latestEnd, mic?.latestEnd].compactMap { $0 }.max()!
      return Int(((end - t0!.seconds) * ReplayTests.rate).rounded())
    }
  }

  /// Writes the logs of a scene of `duration` seconds into `dir`.
  static func writeLogs(
    _ dir: String, app: SimulatedSource?, mic: SimulatedSource?, duration: Double,
    times: CaptureLogWriter.TimeStyle = .rational
  ) throws -> Logs {
    var logs = Logs(dir: dir)
    if let app {
      logs.app = try CaptureLogWriter.write(
        CaptureSimulator(app: app, mic: nil, duration: duration), side: .app,
        raw: "\(dir)/app.raw", csv: "\(dir)/app.csv", hostOffset: hostOffset, times: times)
    }
    if let mic {
      logs.mic = try CaptureLogWriter.write(
        CaptureSimulator(app: nil, mic: mic, duration: duration), side: .mic,
        raw: "\(dir)/mic.raw", csv: "\(dir)/mic.csv", hostOffset: hostOffset, times: times)
    }
    return logs
  }

  /// What one replay gave.
  struct Replayed {
    var wav: WAVContents
    var report: [String: Any]

    func source(_ name: String) -> [String: Any] { report[name] as? [String: Any] ?? [:] }

    func statistic(_ name: String, _ key: String) -> Int {
      (source(name)["statistics"] as? [String: Any])?[key] as? Int ?? -1
    }

    /// The latency entries' values in ms.
    var latencies: [Double] {
      (report["latency"] as? [[String: Any]] ?? []).compactMap { $0["latencyMs"] as? Double }
    }
  }

  /// Replays `logs` into `name`.wav with a report, the `fast` filter and `extra` arguments.
  static func replay(_ logs: Logs, _ name: String, _ extra: [String] = []) throws -> Replayed {
    let out = "\(logs.dir)/\(name).wav"
    let report = "\(logs.dir)/\(name).json"
    cliOK(
      ["replay"] + logs.arguments
        + ["-o", out, "--report", report, "--resampler", "builtin:fast"] + extra)
    let object = try JSONSerialization.jsonObject(with: Data(try readFile(report)))
    let dict = try #require(object as? [String: Any])
    #expect(tempFiles(in: logs.dir).isEmpty)
    return Replayed(wav: try readWAV(out), report: dict)
  }

  /// Where `source`'s markers landed in the output, against their host times since `t0`.
  static func markers(_ r: Replayed, _ source: SimulatedSource, t0: MediaTime) -> MarkerReport {
    MarkerDetector.measure(
      output: r.wav.samples, channels: 2, rate: rate, origin: t0.seconds - hostOffset,
      markers: source.markers, frequency: source.markerFrequency,
      duration: source.markerDuration, searchRadius: 480)
  }

  /// Expects every marker of both sources within `ms` of its host time.
  static func expectMarkers(
    _ r: Replayed, app: SimulatedSource, mic: SimulatedSource, t0: MediaTime, within ms: Double,
    _ label: String
  ) {
    let a = markers(r, app, t0: t0)
    let m = markers(r, mic, t0: t0)
    print("replay \(label): app \(a), mic \(m), latency \(r.latencies) ms")
    #expect(a.missing == 0 && a.maxAbsError <= ms, "\(label): app \(a) \(a.errors)")
    #expect(m.missing == 0 && m.maxAbsError <= ms, "\(label): mic \(m) \(m.errors)")
  }

  /// Expects the output and the report to agree with the logs on t0 and the length.
  static func expectShape(_ r: Replayed, _ logs: Logs) throws {
    #expect(r.wav.format.sampleRate == 48_000 && r.wav.format.channelCount == 2)
    #expect(r.wav.frames == logs.endFrame)
    #expect(r.report["endFrame"] as? Int == logs.endFrame)
    let t0 = try #require(r.report["t0"] as? [String: Any])
    let expected = try #require(logs.t0)
    #expect(t0["value"] as? Int == Int(expected.value))
    #expect(t0["timescale"] as? Int == Int(expected.timescale))
    let output = try #require(r.report["output"] as? [String: Any])
    #expect(output["frames"] as? Int == logs.endFrame)
  }

  // MARK: - Scenes

  @Test("a normal capture replays with every marker within 1 ms, pulled every 10 or 20 ms")
  func normalCapture() throws {
    let a = Self.app([1, 3, 5, 7, 9])
    let m = Self.mic([2, 4, 6, 8])
    try withTempDir { dir in
      let logs = try Self.writeLogs(dir, app: a, mic: m, duration: 10)
      let t0 = try #require(logs.t0)
      let r = try Self.replay(logs, "pull10")
      try Self.expectShape(r, logs)
      Self.expectMarkers(r, app: a, mic: m, t0: t0, within: 1, "pull 10")
      for side in ["app", "mic"] {
        #expect(r.statistic(side, "framesLate") == 0)
        #expect(r.statistic(side, "gaps") == 0)
        let drift = r.source(side)["drift"] as? [[String: Any]] ?? []
        #expect(drift.count == 10, "\(side): \(drift.count) drift samples")
        #expect(drift.allSatisfy { abs($0["driftPPM"] as? Double ?? 1e9) < 50 })
      }
      #expect(r.latencies == [100])
      let clock = try #require(r.report["clock"] as? [String: Any])
      #expect(clock["lateEvents"] as? Int == 0)

      // The same capture with decimal times, pulled every 20 ms.
      let decimal = try Self.writeLogs(dir, app: a, mic: m, duration: 10, times: .decimal)
      let r20 = try Self.replay(decimal, "pull20", ["--pull", "20", "--format", "f32"])
      try Self.expectShape(r20, decimal)
      Self.expectMarkers(r20, app: a, mic: m, t0: t0, within: 1, "pull 20")
      #expect(r20.wav.format.sampleType == .f32)
      let settings = r20.report["settings"] as? [String: Any]
      #expect(settings?["pullFrames"] as? Int == 960)
    }
  }

  @Test("bursts of 22,596 frames: the latency covers them, and a fixed 50 ms counts them late")
  func bursts() throws {
    var a = Self.app([1, 3, 5, 7])
    a.buffering = .bursts(frames: 22_596, period: 22_596.0 / 44_100)
    let m = Self.mic([2, 4, 6])
    try withTempDir { dir in
      let logs = try Self.writeLogs(dir, app: a, mic: m, duration: 8)
      let r = try Self.replay(logs, "adaptive")
      try Self.expectShape(r, logs)
      Self.expectMarkers(r, app: a, mic: m, t0: try #require(logs.t0), within: 1, "bursts")
      #expect(r.statistic("app", "framesLate") == 0)
      #expect(r.statistic("mic", "framesLate") == 0)
      #expect((r.latencies.max() ?? 0) >= 512, "latency \(r.latencies) ms")

      let fixed = try Self.replay(logs, "fixed", ["--latency", "50"])
      try Self.expectShape(fixed, logs)
      #expect(fixed.statistic("app", "framesLate") > 0)
      #expect(fixed.latencies == [50])
    }
  }

  @Test("a mic that starts 3 s late and an app that pauses 5 s land at their times")
  func lateMicAndPausedApp() throws {
    var a = Self.app([1, 3, 9.3])
    a.pauses = [(at: 4, duration: 5)]
    var m = Self.mic([3.5, 5.5, 7.5, 9.6])
    m.start = 3
    try withTempDir { dir in
      let logs = try Self.writeLogs(dir, app: a, mic: m, duration: 10)
      let r = try Self.replay(logs, "out")
      try Self.expectShape(r, logs)
      Self.expectMarkers(r, app: a, mic: m, t0: try #require(logs.t0), within: 1, "late, pause")
      #expect(r.statistic("app", "gaps") == 1)
      #expect(r.statistic("app", "framesLate") == 0 && r.statistic("mic", "framesLate") == 0)
    }
  }

  @Test(
    "unstamped logs replay to the length their buffers add up to",
    arguments: ["timestamps", "fill"])
  func unstamped(drift: String) throws {
    let a = Self.app([1])
    let m = Self.mic([2])
    try withTempDir { dir in
      let logs = try Self.writeLogs(dir, app: a, mic: m, duration: 3, times: .none)
      let out = "\(dir)/out.wav"
      let report = "\(dir)/out.json"
      cliOK(
        ["replay"] + logs.arguments
          + ["-o", out, "--report", report, "--resampler", "builtin:fast", "--drift", drift])
      // Without stamps each log runs from t0 = 0, one buffer after another.
      let seconds = [logs.app!, logs.mic!].map { log in
        log.spans.reduce(0.0) { $0 + Double($1.frames) / Double($1.rate) }
      }
      let endFrame = Int((seconds.max()! * Self.rate).rounded())
      #expect(try readWAV(out).frames == endFrame)
      let json = try JSONSerialization.jsonObject(with: Data(try readFile(report)))
      let dict = try #require(json as? [String: Any])
      #expect(dict["endFrame"] as? Int == endFrame)
      #expect((dict["t0"] as? [String: Any])?["seconds"] as? Double == 0)
    }
  }

  @Test("one source alone replays, with the report's other source null")
  func oneSource() throws {
    let m = Self.mic([0.5, 1.5])
    try withTempDir { dir in
      let logs = try Self.writeLogs(dir, app: nil, mic: m, duration: 2)
      let r = try Self.replay(logs, "mic")
      try Self.expectShape(r, logs)
      #expect(r.report["app"] is NSNull)
      let found = Self.markers(r, m, t0: try #require(logs.t0))
      #expect(found.missing == 0 && found.maxAbsError <= 1, "\(found)")
    }
  }

  // MARK: - Bad logs

  /// A small pair of good logs: three 10 ms app rows, two 10 ms mic rows.
  static func writeSmallLogs(_ dir: String) throws {
    try writeFile(
      "\(dir)/app.csv",
      Array(
        "time,frames,format\n5.0,480,s16le:48000:2\n5.01,480,s16le:48000:2\n5.02,480,s16le:48000:2\n"
          .utf8))
    try writeFile("\(dir)/app.raw", [UInt8](repeating: 0, count: 3 * 1_920))
    try writeFile(
      "\(dir)/mic.csv",
      Array("time,frames,format\n500/100,320,s16le:32000:1\n\n501/100,320,s16le:32000:1\n".utf8))
    try writeFile("\(dir)/mic.raw", [UInt8](repeating: 0, count: 2 * 640))
  }

  /// A way to spoil the small logs, the file and line the error must name, and what it says.
  struct BadLog: CustomStringConvertible, Sendable {
    var name: String
    /// The file (in the folder) whose text replaces the good one.
    var file: String
    var text: String?
    var bytes: Int?
    /// What the error line must start with after `pcm-mix: DIR/`.
    var location: String
    var says: String

    var description: String { name }
  }

  static let badLogs: [BadLog] = [
    BadLog(name: "empty", file: "app.csv", text: "", location: "app.csv:1", says: "first line"),
    BadLog(
      name: "wrong header", file: "app.csv", text: "time,frames\n5.0,480\n",
      location: "app.csv:1", says: "first line"),
    BadLog(
      name: "two fields", file: "app.csv",
      text: "time,frames,format\n5.0,480,s16le:48000:2\n5.01,480\n", location: "app.csv:3",
      says: "3 fields"),
    BadLog(
      name: "four fields", file: "mic.csv",
      text: "time,frames,format\n500/100,320,s16le:32000:1,x\n", location: "mic.csv:2",
      says: "3 fields"),
    BadLog(
      name: "bad time", file: "app.csv", text: "time,frames,format\nabc,480,s16le:48000:2\n",
      location: "app.csv:2", says: "time 'abc'"),
    BadLog(
      name: "zero timescale", file: "mic.csv",
      text: "time,frames,format\n500/100,320,s16le:32000:1\n\n5/0,320,s16le:32000:1\n",
      location: "mic.csv:4", says: "timescale"),
    BadLog(
      name: "zero frames", file: "app.csv", text: "time,frames,format\n5.0,0,s16le:48000:2\n",
      location: "app.csv:2", says: "frames '0'"),
    BadLog(
      name: "negative frames", file: "app.csv",
      text: "time,frames,format\n5.0,480,s16le:48000:2\n5.01,-480,s16le:48000:2\n",
      location: "app.csv:3", says: "frames '-480'"),
    BadLog(
      name: "frames not a number", file: "app.csv",
      text: "time,frames,format\n5.0,48o,s16le:48000:2\n", location: "app.csv:2",
      says: "frames '48o'"),
    BadLog(
      name: "unknown spec", file: "app.csv",
      text: "time,frames,format\n5.0,480,s17le:48000:2\n", location: "app.csv:2",
      says: "format 's17le:48000:2'"),
    BadLog(
      name: "a broken row after a cut", file: "app.csv",
      text: "time,frames,format\n5.0,480,s16le:48000:2\n5.01,480,s16le:48000:2\n"
        + "5.02,480,s16le:48000:2\n5.03,4x0,s16le:48000:2\n",
      location: "app.csv:5", says: "frames '4x0'"),
  ]

  @Test("a malformed log exits 65 naming the file and line", arguments: badLogs)
  func badLog(_ bad: BadLog) throws {
    try withTempDir { dir in
      try Self.writeSmallLogs(dir)
      if let text = bad.text { try writeFile("\(dir)/\(bad.file)", Array(text.utf8)) }
      if let bytes = bad.bytes {
        try writeFile("\(dir)/\(bad.file)", [UInt8](repeating: 0, count: bytes))
      }
      let r = cli(
        [
          "replay", "--app", "\(dir)/app.raw", "--app-log", "\(dir)/app.csv", "--mic",
          "\(dir)/mic.raw", "--mic-log", "\(dir)/mic.csv", "-o", "\(dir)/out.wav", "--report",
          "\(dir)/out.json",
        ])
      #expect(r.code == 65)
      #expect(r.errLines.count == 1, "\(r.err)")
      let prefix = "pcm-mix: \(dir)/\(bad.location): "
      #expect(r.err.hasPrefix(prefix), "\(r.err)")
      #expect(r.err.contains(bad.says), "\(r.err)")
      #expect(!exists("\(dir)/out.wav") && !exists("\(dir)/out.json"))
      #expect(tempFiles(in: dir).isEmpty)
    }
  }

  /// A log cut off by a killed extension: the raw file ends inside a row's buffer, or holds
  /// bytes no row describes.
  @Test(
    "a raw file shorter or longer than its CSV replays every whole buffer, warns, exits 0",
    arguments: [
      ("app.raw", 2 * 1_920 + 100, 960, "app.csv:4"), ("mic.raw", 2 * 640 + 3, 1_440, "mic.raw"),
      ("app.raw", 100, 960, "app.csv:2"),
    ])
  func cutLog(file: String, bytes: Int, frames: Int, location: String) throws {
    try withTempDir { dir in
      try Self.writeSmallLogs(dir)
      try writeFile("\(dir)/\(file)", [UInt8](repeating: 0, count: bytes))
      let r = cli(
        [
          "replay", "--app", "\(dir)/app.raw", "--app-log", "\(dir)/app.csv", "--mic",
          "\(dir)/mic.raw", "--mic-log", "\(dir)/mic.csv", "-o", "\(dir)/out.wav", "--report",
          "\(dir)/out.json",
        ])
      #expect(r.code == 0, "\(r.err)")
      #expect(r.err.hasPrefix("pcm-mix: warning: \(dir)/\(location): "), "\(r.err)")
      // The whole buffers replayed: the app's first two rows when its raw file is short.
      #expect(try readWAV("\(dir)/out.wav").frames == frames)
      let report = String(decoding: try readFile("\(dir)/out.json"), as: UTF8.self)
      #expect(report.contains("\"cut\": {\"location\": \"\(dir)/\(location)\""), "\(report)")
    }
  }

  @Test("the small logs themselves replay")
  func smallLogs() throws {
    try withTempDir { dir in
      try Self.writeSmallLogs(dir)
      cliOK(
        [
          "replay", "--app", "\(dir)/app.raw", "--app-log", "\(dir)/app.csv", "--mic",
          "\(dir)/mic.raw", "--mic-log", "\(dir)/mic.csv", "-o", "\(dir)/out.wav",
        ])
      // 5.0 s is t0; the app's last row ends 30 ms later.
      #expect(try readWAV("\(dir)/out.wav").frames == 1_440)
    }
  }

  @Test("a missing log or raw file exits 66")
  func missingFiles() throws {
    try withTempDir { dir in
      try Self.writeSmallLogs(dir)
      for (raw, csv) in [("app.raw", "nope.csv"), ("nope.raw", "app.csv")] {
        let r = cli(
          ["replay", "--app", "\(dir)/\(raw)", "--app-log", "\(dir)/\(csv)", "-o", "\(dir)/o.wav"])
        #expect(r.code == 66, "\(r.err)")
        #expect(r.err.hasPrefix("pcm-mix: \(dir)/nope."), "\(r.err)")
        #expect(!exists("\(dir)/o.wav"))
      }
    }
  }

  @Test("a bad command line exits 64")
  func usage() throws {
    try withTempDir { dir in
      try Self.writeSmallLogs(dir)
      let app = ["--app", "\(dir)/app.raw", "--app-log", "\(dir)/app.csv"]
      let out = ["-o", "\(dir)/o.wav"]
      let lines: [[String]] = [
        app,
        ["--app", "\(dir)/app.raw"] + out,
        ["--app-log", "\(dir)/app.csv"] + out,
        out,
        app + out + ["--drift", "sometimes"],
        app + out + ["--pull", "0"],
        app + out + ["--pull", "101"],
        app + out + ["--latency", "-5"],
        app + out + ["--report", "\(dir)/o.wav"],
        app + ["-o", "\(dir)/app.csv"],
        app + out + ["--report", "\(dir)/app.raw"],
      ]
      for line in lines {
        let r = cli(["replay"] + line)
        #expect(r.code == 64, "\(line): \(r.err)")
        #expect(r.errLines.count == 1, "\(line): \(r.err)")
      }
      #expect(!exists("\(dir)/o.wav"))
      #expect(tempFiles(in: dir).isEmpty)
    }
  }

  @Test("replay parses to its options, and help replay gives the rules")
  func parseAndHelp() throws {
    let command = try Command.parse(
      [
        "replay", "--mic", "m.raw", "--mic-log", "m.csv", "-o", "o.wav", "--pull", "20",
        "--latency", "50", "--drift", "fill", "--resampler", "src-best", "--report", "r.json",
      ][...])
    var expected = ReplayOptions(
      app: nil, mic: ReplayOptions.Log(raw: "m.raw", csv: "m.csv"), output: "o.wav")
    expected.pullMilliseconds = 20
    expected.latencyMilliseconds = 50
    expected.drift = .timestampsAndFillLevel
    expected.resampler = .libsamplerate(.sincBest)
    expected.report = "r.json"
    #expect(command == .replay(expected))
    let help = cliOK(["help", "replay"]).out
    #expect(help.contains("time,frames,format") && help.contains("t0"))
    #expect(cliOK(["--help"]).out.contains("pcm-mix replay"))
  }
}
