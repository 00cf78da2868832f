import Foundation
import PCMMix
import PCMMixTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Section 6: the capture scene in a Debug build, as an adopter's Xcode Debug scheme compiles a
/// package dependency (`-Onone`). `Benchmarks/DebugConsumer` is a package of its own that links the
/// `PCMMix` and `PCMMixAccelerated` products by path; it is built with `swift build -c debug` (its
/// own scratch directory, so this release build is untouched) and run as a child: 44.1 kHz stereo
/// s16be app and 32 kHz mono s16le mic audio in 1,024-frame stamped buffers, a 10 ms pull
/// every 10 ms of audio, each pull timed with the appends before it (what the consumer's thread
/// of a `RealtimeCapturePipeline` does). Three rows: a `ClockedCapturePipeline` in its default
/// configuration on two tones; the same with the resampler `.acceleratedVariableRatio(.balanced)`
/// (`PCMMixAccelerated`'s kernels, at -O0 as an accelerated Debug build runs them); and the
/// README's broadcast-extension configuration with ducking and the loudness meter as well (policy
/// `limit`, echo cancellation, ducking, loudness) on an echo scene (speech through a 30 ms
/// loudspeaker path, RT60 0.2 s, a talker over it), which this process writes as a live capture
/// delivers it (``writeCapture(_:seconds:)``).
enum DebugBuild {
  static let section = "debug"
  static let row = "consumer -Onone"
  static let acceleratedRow = "consumer -Onone, accelerated"
  static let voiceRow = "consumer -Onone, echo+duck+loudness"

  /// The package root: this file is Benchmarks/Sources/pcm-mix-bench/DebugBuild.swift.
  static var root: String {
    var path = #filePath
    for _ in 0..<4 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
    return path
  }

  static func run(_ options: Options, report: Report) {
    let wanted = [row, acceleratedRow, voiceRow].filter { report.wants(section: section, row: $0) }
    guard !wanted.isEmpty else { return }
    let root = Self.root
    let tmp = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    let log = "\(tmp)/pcm-mix-bench-debug-build.txt"
    let scratch = "\(root)/.build/debug-consumer"
    guard
      let build = ChildProcess.run(
        [
          "swift", "build", "-c", "debug", "--package-path", "\(root)/Benchmarks/DebugConsumer",
          "--scratch-path", scratch,
        ], errorPath: log, keepOutput: true), build.status == 0
    else {
      warn("debug: cannot build Benchmarks/DebugConsumer (see \(log)); section skipped")
      return
    }
    let seconds = max(2, options.seconds)
    let table = Table(columns: [
      ("row", 36), ("pulls", 6), ("p50 us", 8), ("p99 us", 8), ("p99.9 us", 9), ("max us", 8),
      ("mean us", 8), ("x realtime", 10), ("allocs", 7), ("setup ms", 9), ("echo", 14),
    ])
    table.start(
      "Debug build: Benchmarks/DebugConsumer (swift build -c debug: PCMMix compiled -Onone, "
        + "C targets -O0), the capture scene through ClockedCapturePipeline: its defaults on two "
        + "tones, the same with the resampler .acceleratedVariableRatio(.balanced) "
        + "(PCMMixAccelerated), and policy limit with echo cancellation, ducking and the "
        + "loudness meter on an echo scene (speech 30 ms RT60 0.2 s; echo: the delay the "
        + "canceller found, or "
        + "bypassed); one 10 ms pull (and the appends before it) timed at a time, after the "
        + "first second; allocs: heap allocations in those appends and pulls after the first "
        + "second (malloc interposed); setup: the pipeline's creation, its filter designs "
        + "included (the first in the process)")
    let json = "\(tmp)/pcm-mix-bench-debug.json"
    for name in wanted {
      // A row reads only what its own run wrote.
      unlink(json)
      var arguments = ["\(scratch)/debug/debug-consumer"]
      var length = seconds
      if name == voiceRow {
        // The scene lasts 20 s; shorter runs (the smoke run) take its start.
        length = min(seconds, Double(EchoScene.seconds))
        let capture = "\(tmp)/pcm-mix-bench-debug-capture.bin"
        guard writeCapture(capture, seconds: length) else {
          warn("debug: cannot write the echo scene's capture (\(EchoBench.assets)); row skipped")
          continue
        }
        arguments += ["\(length)", json, capture]
      } else {
        arguments += ["\(length)", json]
      }
      // The consumer reads its resampler choice from the environment it inherits.
      if name == acceleratedRow { setenv("DEBUG_CONSUMER_ACCELERATED", "1", 1) }
      defer { unsetenv("DEBUG_CONSUMER_ACCELERATED") }
      guard let child = ChildProcess.run(arguments, errorPath: log), child.status == 0,
        let text = readTextFile(json)
      else {
        warn("debug: the Debug consumer failed (see \(log)); row \(name) skipped")
        continue
      }
      measure(
        text, name: name, build: name == row ? build.wallSeconds : nil, table: table,
        report: report)
    }
  }

  /// One row from the consumer's JSON: every pull's microseconds, the allocations after the
  /// first second, and for the voice row the echo delay the canceller found, unless it ended
  /// bypassed (`null` if none); `build`, the consumer's build time, is recorded with the row
  /// if given.
  static func measure(
    _ text: String, name: String, build: Double?, table: Table, report: Report
  ) {
    guard let open = text.firstIndex(of: "["), let close = text.firstIndex(of: "]") else {
      return
    }
    let pulls = text[text.index(after: open)..<close].split(separator: ",").compactMap {
      Double($0.filter { !$0.isWhitespace })
    }
    // The first second builds the tables' caches and warms the code; timed after it.
    let steady = Array(pulls.dropFirst(100))
    guard !steady.isEmpty else { return }
    let s = Summary(steady)
    let realtime = 10_000 / s.mean
    let allocations = text.range(of: "\"allocations_after_1s\":").flatMap { r in
      Double(text[r.upperBound...].prefix { $0.isNumber })
    }
    let setup = text.range(of: "\"setup_ms\":").flatMap { r in
      Double(text[r.upperBound...].prefix { "0123456789.".contains($0) })
    }
    var echo = "–"
    if name == voiceRow {
      let tail = text[close...]
      let delay = tail.range(of: "\"echo_delay\":").flatMap { r in
        Double(tail[r.upperBound...].prefix { "0123456789.e-".contains($0) })
      }
      let bypassed = tail.contains("\"echo_bypassed\":true")
      echo = bypassed ? "bypassed" : delay.map { "\(fixed($0 * 1000, 1)) ms" } ?? "–"
      // Recorded only for a canceller that ran: none, and the row timed a bypassed one.
      if let delay, !bypassed { report.record(section, name, "echo_delay", delay * 1000, "ms") }
    }
    table.row([
      name, "\(steady.count)", fixed(s.median, 1), fixed(s.p99, 1), fixed(s.p999, 1),
      fixed(s.max, 1), fixed(s.mean, 1), fixed(realtime, 0),
      allocations.map { "\(Int($0))" } ?? "–", setup.map { fixed($0, 1) } ?? "–", echo,
    ])
    let rec = { report.record(section, name, $0, $1, $2) }
    rec("pull_p50", s.median, "us")
    rec("pull_p99", s.p99, "us")
    rec("pull_p99.9", s.p999, "us")
    rec("pull_max", s.max, "us")
    rec("pull_mean", s.mean, "us")
    rec("throughput", realtime, "x realtime")
    if let allocations { rec("allocations_after_first_second", allocations, "count") }
    if let setup { rec("setup", setup, "ms") }
    if let build { rec("build", build, "s") }
  }

  /// Writes the first `seconds` of the echo scene (speech through a 30 ms loudspeaker path,
  /// RT60 0.2 s, the talker over it) to `path` as a live capture delivers it: the app 44.1 kHz
  /// stereo s16be and the mic 32 kHz mono s16le, in 1,024-frame stamped buffers (or
  /// `DEBUG_CONSUMER_FRAMES`) with delivery jitter (``CaptureSimulator``), in delivery order, in
  /// the record format `debug-consumer` reads. False if the scene's assets cannot be read or the
  /// file written.
  static func writeCapture(_ path: String, seconds: Double) -> Bool {
    guard
      let scene = try? EchoScene(
        content: .speech, outputLatency: 0.03, room: "rt02", nonlinear: false,
        assets: URL(fileURLWithPath: EchoBench.assets))
    else { return false }
    var app = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be, seed: 21)
    var mic = SimulatedSource(rate: 32_000, channels: 1, encoding: .s16le, seed: 22)
    app.waveform = Waveform(scene.app, rate: EchoScene.rate)
    mic.waveform = Waveform(scene.mic, rate: EchoScene.rate)
    // The consumer's tone buffers are resized by DEBUG_CONSUMER_FRAMES; the capture's too.
    if let frames = getenv("DEBUG_CONSUMER_FRAMES").flatMap({ Int(String(cString: $0)) }),
      frames > 0
    {
      app.buffering = .fixed(frames: frames)
      mic.buffering = .fixed(frames: frames)
    }
    var bytes: [UInt8] = []
    func put<T: FixedWidthInteger>(_ v: T) {
      withUnsafeBytes(of: v.littleEndian) { bytes += $0 }
    }
    for event in CaptureSimulator(app: app, mic: mic, duration: seconds) {
      guard let time = event.time else { continue }
      put(UInt8(event.side == .app ? 0 : 1))
      put(event.deliveryTime.bitPattern)
      put(time.value)
      put(time.timescale)
      put(Int32(event.bytes.count))
      bytes += event.bytes
    }
    return FileManager.default.createFile(atPath: path, contents: Data(bytes))
  }
}
