#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Section 4: `pcm-mix mix` and `pcm-mix convert` end to end on WAV files, beside ffmpeg and sox
/// doing the same jobs on the same inputs, in one run.
///
/// Mix: app audio (44.1 kHz stereo s16) and mic audio (32 kHz mono s16) resampled to 48 kHz
/// stereo and averaged into one 48 kHz stereo s16 WAV. ffmpeg: `aresample` on each input, `pan`
/// the mic to both channels, `amix` (whose default `normalize` scales each of its two inputs by
/// 1/2: the average) ending with the shorter input. sox cannot mix inputs of different rates, so
/// each goes through its own `sox ... -p rate 48k` pipe (sox's default `rate` is its high
/// quality, soxr HQ); `-v 0.5` on each input averages; `-D` turns off the dither pcm-mix does not
/// add; `-b 16` writes s16. Convert: the app file to 48 kHz s16 (`ffmpeg -i in.wav -ar 48000
/// out.wav`, `sox -D in.wav -b 16 out.wav rate 48k`). The tools take turns run by run, so a
/// change in the machine's load falls on all of them. Each output is read back: its frames and
/// RMS level beside pcm-mix's for the same job, any difference shown in the table.
enum CLIEndToEnd {
  static let section = "cli"
  /// The mix with the voice features on: its memory must not grow with the input (the staging
  /// kept every frame of the side that waits, 652 MB after ten minutes, until 2026-12-07).
  static let voice = "pcm-mix mix --echo-cancel --duck"
  static let runs = 5

  /// One tool on one job.
  struct Tool {
    let name: String
    let job: String
    let argv: [String]
    /// The program that must be in PATH (nil: pcm-mix, always there).
    let needs: String?
  }

  static func run(_ options: Options, report: Report) {
    let names = [
      "pcm-mix mix", "ffmpeg mix", "sox -m", voice, "pcm-mix convert", "ffmpeg convert",
      "sox convert",
    ]
    guard report.wants(section: section, rows: names) else { return }
    let seconds = 600 * options.scale
    let tmp = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    let dir = "\(tmp)/pcm-mix-bench-\(Int((seconds * 1000).rounded()))ms"
    let app = dir + "/app.wav"
    let mic = dir + "/mic.wav"
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
      ("tool", 32), ("wall min s", 10), ("wall med s", 10), ("cpu med s", 9), ("x realtime", 10),
      ("peak RSS MB", 11), ("procs", 5), ("out frames", 10), ("RMS dBFS", 8),
      ("vs pcm-mix", 16),
    ])
    table.start(
      "CLI end to end: \(fixed(seconds, 1)) s app (44.1 kHz stereo s16) + mic (32 kHz mono s16) "
        + "WAV -> 48 kHz stereo s16 WAV (mix), the app file alone -> 48 kHz (convert); "
        + "\(runs) runs each, taking turns; inputs in \(dir)"
        + (generated ? " (generated now)" : " (reused)"))
    emit("  pcm-mix: \(via)")
    let mix = "mix"
    let convert = "convert"
    let filter =
      "[0:a]aresample=48000[a];[1:a]aresample=48000,pan=stereo|c0=c0|c1=c0[m];"
      + "[a][m]amix=inputs=2:duration=shortest[out]"
    func out(_ name: String) -> String {
      dir + "/out-" + name.filter { $0.isLetter || $0.isNumber } + ".wav"
    }
    let ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
    let tools = [
      Tool(
        name: "pcm-mix mix", job: mix,
        argv: pcmMix + ["mix", "--app", app, "--mic", mic, "-o", out("pcm-mix mix")], needs: nil),
      Tool(
        name: "ffmpeg mix", job: mix,
        argv: ffmpeg + [
          "-i", app, "-i", mic, "-filter_complex", filter, "-map", "[out]", "-c:a", "pcm_s16le",
          out("ffmpeg mix"),
        ], needs: "ffmpeg"),
      Tool(
        name: "sox -m", job: mix,
        argv: [
          "sox", "-D", "-m", "-v", "0.5", "|sox \(app) -p rate 48k", "-v", "0.5",
          "|sox \(mic) -p rate 48k channels 2", "-b", "16", out("sox -m"),
        ], needs: "sox"),
      Tool(
        name: voice, job: String(voice.dropFirst("pcm-mix ".count)),
        argv: pcmMix + [
          "mix", "--app", app, "--mic", mic, "-o", out(voice), "--echo-cancel", "--duck",
        ], needs: nil),
      Tool(
        name: "pcm-mix convert", job: convert,
        argv: pcmMix + ["convert", app, "-o", out("pcm-mix convert")], needs: nil),
      Tool(
        name: "ffmpeg convert", job: convert,
        argv: ffmpeg + ["-i", app, "-ar", "48000", out("ffmpeg convert")], needs: "ffmpeg"),
      Tool(
        name: "sox convert", job: convert,
        argv: ["sox", "-D", app, "-b", "16", out("sox convert"), "rate", "48k"], needs: "sox"),
    ].filter { report.wants(section: section, row: $0.name) }

    // Run by run, each tool in turn; a tool that is missing or fails drops out.
    var results: [String: [ChildProcess]] = [:]
    var failure: [String: String] = [:]
    for tool in tools {
      if let program = tool.needs, !inPath(program) {
        failure[tool.name] = "\(program) not installed"
      }
    }
    for _ in 0..<runs {
      for tool in tools where failure[tool.name] == nil {
        unlink(out(tool.name))
        guard let r = ChildProcess.run(tool.argv, errorPath: log) else {
          failure[tool.name] = "cannot start"
          continue
        }
        if r.status != 0 {
          failure[tool.name] = "failed (exit \(r.status))"
          warn("cli: \(tool.name) exited \(r.status): \(Files.firstLine(log))")
          continue
        }
        results[tool.name, default: []].append(r)
      }
    }

    // The outputs of the last run, read back.
    var measured: [String: WAVFile.Measure] = [:]
    for tool in tools where failure[tool.name] == nil {
      measured[tool.name] = WAVFile.measure(out(tool.name))
    }
    var wall: [String: Double] = [:]
    for tool in tools {
      defer { unlink(out(tool.name)) }
      if let why = failure[tool.name] {
        table.row([tool.name, why])
        continue
      }
      let runs = results[tool.name] ?? []
      let w = Summary(runs.map(\.wallSeconds))
      let cpu = Summary(runs.map(\.cpuSeconds))
      let rss = runs.map(\.peakRSS).max() ?? 0
      wall[tool.name] = w.median
      let m = measured[tool.name]
      let reference = measured["pcm-mix " + tool.job]
      table.row([
        tool.name, fixed(w.min, 3), fixed(w.median, 3), fixed(cpu.median, 3),
        fixed(seconds / w.median, 0), fixed(Double(rss) / 1_048_576, 1),
        "\(runs.map(\.processes).max() ?? 0)", m.map { "\($0.frames)" } ?? "unreadable",
        m.map { fixed($0.rmsDBFS, 3) } ?? "-", comparison(m, reference),
      ])
      let rec = { report.record(section, tool.name, $0, $1, $2) }
      rec("wall_min", w.min, "s")
      rec("wall_median", w.median, "s")
      rec("cpu_median", cpu.median, "s")
      rec("throughput", seconds / w.median, "x realtime")
      rec("peak_rss", Double(rss), "bytes")
      rec("peak_rss_main_process", Double(runs.map(\.mainPeakRSS).max() ?? 0), "bytes")
      rec("processes", Double(runs.map(\.processes).max() ?? 0), "count")
      rec("wait4_maxrss_inflated", Double(runs.map(\.wait4MaxRSS).max() ?? 0), "bytes")
      if let m {
        rec("output_frames", Double(m.frames), "frames")
        if m.rmsDBFS.isFinite { rec("output_rms", m.rmsDBFS, "dBFS") }
      }
      if let m, let reference, (m.rmsDBFS - reference.rmsDBFS).isFinite {
        rec("frames_minus_pcm_mix", Double(m.frames - reference.frames), "frames")
        rec("rms_minus_pcm_mix", m.rmsDBFS - reference.rmsDBFS, "dB")
      }
      rec("audio", seconds, "s")
    }
    emit(
      "  (peak RSS: each process's VmHWM, sampled every 3 ms, summed over the tool's processes; "
        + "cpu: user + system of the tool and its children; vs pcm-mix: the output's length and "
        + "RMS level against pcm-mix's for the same job, \"same\" within 0.01 dB)")
    for job in [mix, convert] {
      guard let ours = wall["pcm-mix " + job] else { continue }
      for (peer, row) in [
        ("ffmpeg", "ffmpeg " + job), ("sox", job == mix ? "sox -m" : "sox convert"),
      ] {
        guard let theirs = wall[row] else { continue }
        emit("  pcm-mix \(job) / \(row) wall time (median): \(fixed(ours / theirs, 2))x")
        report.record(section, "pcm-mix " + job, "wall_over_" + peer, ours / theirs, "ratio")
      }
    }
  }

  /// How an output compares with pcm-mix's for the same job: "same" (frames equal, level
  /// within 0.01 dB), or what differs.
  static func comparison(_ m: WAVFile.Measure?, _ reference: WAVFile.Measure?) -> String {
    guard let m, let reference else { return "-" }
    var notes: [String] = []
    if m.frames != reference.frames {
      notes.append("\(m.frames > reference.frames ? "+" : "")\(m.frames - reference.frames) fr")
    }
    let dB = m.rmsDBFS - reference.rmsDBFS
    if abs(dB) > 0.01 || !dB.isFinite { notes.append("\(dB > 0 ? "+" : "")\(fixed(dB, 2)) dB") }
    return notes.isEmpty ? "same" : notes.joined(separator: ", ")
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
