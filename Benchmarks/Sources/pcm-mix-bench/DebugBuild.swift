#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Section 6: the capture scene in a Debug build, as an adopter's Xcode Debug scheme compiles a
/// package dependency (`-Onone`). `Benchmarks/DebugConsumer` is a package of its own that links
/// only the `PCMMix` product by path; it is built with `swift build -c debug` (its own scratch
/// directory, so this release build is untouched) and run as a child: 44.1 kHz stereo s16be app
/// and 32 kHz mono s16le mic audio in 1,024-frame stamped buffers, a `ClockedCapturePipeline` in
/// its default configuration, a 10 ms pull every 10 ms of audio, each pull timed with the
/// appends before it (what the consumer's thread of a `RealtimeCapturePipeline` does).
enum DebugBuild {
  static let section = "debug"
  static let row = "consumer -Onone"

  /// The package root: this file is Benchmarks/Sources/pcm-mix-bench/DebugBuild.swift.
  static var root: String {
    var path = #filePath
    for _ in 0..<4 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
    return path
  }

  static func run(_ options: Options, report: Report) {
    guard report.wants(section: section, row: row) else { return }
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
    let json = "\(tmp)/pcm-mix-bench-debug.json"
    guard
      let child = ChildProcess.run(
        ["\(scratch)/debug/debug-consumer", "\(seconds)", json], errorPath: log),
      child.status == 0, let text = readTextFile(json)
    else {
      warn("debug: the Debug consumer failed (see \(log)); section skipped")
      return
    }
    // The one array in the output: every pull's microseconds.
    guard let open = text.firstIndex(of: "["), let close = text.lastIndex(of: "]") else { return }
    let pulls = text[text.index(after: open)..<close].split(separator: ",").compactMap {
      Double($0.filter { !$0.isWhitespace })
    }
    // The first second builds the tables' caches and warms the code; timed after it.
    let steady = Array(pulls.dropFirst(100))
    guard !steady.isEmpty else { return }
    let s = Summary(steady)
    let realtime = 10_000 / s.mean
    let table = Table(columns: [
      ("build", 16), ("pulls", 6), ("p50 us", 8), ("p99 us", 8), ("p99.9 us", 9), ("max us", 8),
      ("mean us", 8), ("x realtime", 10),
    ])
    table.start(
      "Debug build: Benchmarks/DebugConsumer (swift build -c debug: PCMMix compiled -Onone, "
        + "C targets -O0), the capture scene through ClockedCapturePipeline's defaults, "
        + "\(fixed(seconds, 1)) s, one 10 ms pull (and the appends before it) timed at a time, "
        + "after the first second")
    table.row([
      row, "\(steady.count)", fixed(s.median, 1), fixed(s.p99, 1), fixed(s.p999, 1),
      fixed(s.max, 1), fixed(s.mean, 1), fixed(realtime, 0),
    ])
    let rec = { report.record(section, row, $0, $1, $2) }
    rec("pull_p50", s.median, "us")
    rec("pull_p99", s.p99, "us")
    rec("pull_p99.9", s.p999, "us")
    rec("pull_max", s.max, "us")
    rec("pull_mean", s.mean, "us")
    rec("throughput", realtime, "x realtime")
    rec("build", build.wallSeconds, "s")
  }
}
