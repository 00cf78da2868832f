#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Section 4: `pcm-mix mix` end to end on WAV files, beside `sox -m` doing the same job.
///
/// The job: app audio (44.1 kHz stereo s16) and mic audio (32 kHz mono s16) resampled to
/// 48 kHz stereo and averaged into one 48 kHz stereo s16 WAV. sox cannot mix inputs of
/// different rates, so each goes through its own `sox ... -p rate 48k` pipe (sox's default
/// `rate` is its high quality, soxr HQ); `-v 0.5` on each input averages; `-D` turns off the
/// dither pcm-mix does not add; `-b 16` writes s16.
enum CLIEndToEnd {
  static let section = "cli"
  static let runs = 5

  static func run(_ options: Options, report: Report) {
    let tools = ["pcm-mix mix", "sox -m"]
    guard report.wants(section: section, rows: tools) else { return }
    let seconds = 600 * options.scale
    let tmp = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    let dir = "\(tmp)/pcm-mix-bench-\(Int((seconds * 1000).rounded()))ms"
    let app = dir + "/app.wav"
    let mic = dir + "/mic.wav"
    let out = dir + "/out.wav"
    let log = dir + "/stderr.txt"
    let appSamples = Int(seconds * 44_100) * 2
    let micSamples = Int(seconds * 32_000)
    mkdir(dir, 0o755)
    var generated = false
    if Files.size(app) != 44 + appSamples * 2 || Files.size(mic) != 44 + micSamples * 2 {
      let t0 = nowNS()
      guard
        WAVFile.write(
          app, rate: 44_100, channels: 2, frames: appSamples / 2, seed: 5, tones: [440, 554.37]),
        WAVFile.write(mic, rate: 32_000, channels: 1, frames: micSamples, seed: 6, tones: [180])
      else {
        warn("cli: cannot write the input files in \(dir); section skipped")
        return
      }
      generated = true
      report.record(section, "inputs", "generate", Double(nowNS() - t0) * 1e-9, "s")
    }

    let (pcmMix, via) = locatePCMMix()
    let table = Table(columns: [
      ("tool", 12), ("wall min s", 10), ("wall med s", 10), ("cpu med s", 9), ("x realtime", 10),
      ("peak RSS MB", 11), ("procs", 5), ("out MB", 7),
    ])
    table.start(
      "CLI end to end: \(fixed(seconds, 1)) s app (44.1 kHz stereo s16) + mic (32 kHz mono s16) "
        + "WAV -> 48 kHz stereo s16 WAV, \(runs) runs each; inputs in \(dir)"
        + (generated ? " (generated now)" : " (reused)"))
    emit("  pcm-mix: \(via)")
    let sox = "sox"
    let commands: [(String, [String])] = [
      ("pcm-mix mix", pcmMix + ["mix", "--app", app, "--mic", mic, "-o", out]),
      (
        "sox -m",
        [
          sox, "-D", "-m", "-v", "0.5", "|sox \(app) -p rate 48k", "-v", "0.5",
          "|sox \(mic) -p rate 48k channels 2", "-b", "16", out,
        ]
      ),
    ]
    var wall: [String: Double] = [:]
    for (name, argv) in commands where report.wants(section: section, row: name) {
      if name == "sox -m" && !inPath(sox) {
        table.row([name, "sox not installed"])
        continue
      }
      var results: [ChildProcess] = []
      var outBytes = 0
      for _ in 0..<runs {
        unlink(out)
        guard let r = ChildProcess.run(argv, errorPath: log) else { break }
        outBytes = Files.size(out) ?? 0
        results.append(r)
        if r.status != 0 { break }
      }
      unlink(out)
      guard let last = results.last else {
        table.row([name, "cannot start"])
        continue
      }
      if last.status != 0 {
        table.row([name, "failed (exit \(last.status))"])
        warn("cli: \(name) exited \(last.status): \(Files.firstLine(log))")
        continue
      }
      let w = Summary(results.map(\.wallSeconds))
      let cpu = Summary(results.map(\.cpuSeconds))
      let rss = results.map(\.peakRSS).max() ?? 0
      wall[name] = w.median
      table.row([
        name, fixed(w.min, 3), fixed(w.median, 3), fixed(cpu.median, 3),
        fixed(seconds / w.median, 0), fixed(Double(rss) / 1_048_576, 1),
        "\(results.map(\.processes).max() ?? 0)", fixed(Double(outBytes) / 1_048_576, 1),
      ])
      let rec = { report.record(section, name, $0, $1, $2) }
      rec("wall_min", w.min, "s")
      rec("wall_median", w.median, "s")
      rec("cpu_median", cpu.median, "s")
      rec("throughput", seconds / w.median, "x realtime")
      rec("peak_rss", Double(rss), "bytes")
      rec("peak_rss_main_process", Double(results.map(\.mainPeakRSS).max() ?? 0), "bytes")
      rec("processes", Double(results.map(\.processes).max() ?? 0), "count")
      rec("wait4_maxrss_inflated", Double(results.map(\.wait4MaxRSS).max() ?? 0), "bytes")
      rec("output_size", Double(outBytes), "bytes")
      rec("audio", seconds, "s")
    }
    emit(
      "  (peak RSS: each process's VmHWM, sampled every 3 ms, summed over the tool's processes; "
        + "cpu: user + system of the tool and its children)")
    if let ours = wall["pcm-mix mix"], let theirs = wall["sox -m"] {
      emit("  pcm-mix / sox wall time (median): \(fixed(ours / theirs, 2))x")
      report.record(section, "pcm-mix mix", "wall_over_sox", ours / theirs, "ratio")
    }
  }

  /// The `pcm-mix` release binary beside this one when it is at least as new as the library
  /// objects it was linked from; otherwise this binary running the same CLI code (`runCLI`) in a
  /// child process, so the numbers never come from a stale build.
  static func locatePCMMix() -> (argv: [String], description: String) {
    let dir = Machine.executableDirectory
    let path = dir + "/pcm-mix"
    let selfExec = [dir + "/pcm-mix-bench", "--run-cli"]
    guard Files.isExecutable(path), let built = Files.modified(path) else {
      return (selfExec, "\(path) not built; running the same CLI code through pcm-mix-bench")
    }
    var newest = 0.0
    for target in ["PCMMix.build", "PCMMixCLI.build", "PCMMixSampleRate.build"] {
      for name in Files.list(dir + "/" + target) ?? [] where name.hasSuffix(".o") {
        newest = max(newest, Files.modified(dir + "/" + target + "/" + name) ?? 0)
      }
    }
    guard built >= newest else {
      return (
        selfExec,
        "\(path) is older than the library objects; running the same CLI code through "
          + "pcm-mix-bench (build it with swift build -c release --product pcm-mix)"
      )
    }
    return ([path], path)
  }

  static func inPath(_ tool: String) -> Bool {
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains { Files.isExecutable("\($0)/\(tool)") }
  }
}
