import CEchoPeers
import Foundation
import PCMMix
import PCMMixTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `echo`: the echo canceller beside speexdsp's MDF (with its preprocessor as the residual
/// suppressor) and WebRTC's classic AEC (webrtc-audio-processing 0.3), on every scene of
/// `EchoScene.matrix` (speech and music, 30 and 120 ms output latency, RT60 0.2 and 0.5 s,
/// with and without a clipping loudspeaker, the phone moved at 11 s; headphones), from one run:
/// ERLE where the app plays alone (and a perfect canceller's), convergence, the talker in
/// double talk (SI-SDR, PESQ-WB through `Benchmarks/echo_pesq.py` when PyPI's `pesq` is
/// installed), the talker alone, and CPU per 10 ms. Then ours in the pipeline: per-pull cost
/// and allocations with cancellation on and off.
enum EchoBench {
  static let section = "echo"

  struct Row {
    var name: String
    var metrics: EchoSceneMetrics
    var pesq: Double?
    /// PESQ-WB against the talker as the mic hears them (the talker and the room's noise: a
    /// perfect canceller's output) instead of the clean talker.
    var pesqHeard: Double?
    /// Ours only: PESQ-WB against the clean talker after a noise reducer
    /// (``pesqDenoised(_:_:)``).
    var pesqDenoised: Double?
    /// CPU microseconds per 10 ms of audio.
    var cost: Double
    /// Ours with the Swift kernels (``EchoKernels/swift``): the same, or nil if its output
    /// differs from the C kernels' by a bit.
    var swiftCost: Double?
    /// The canceller's own delay (frames), taken off before measuring.
    var lag: Int
  }

  static var assets: String { DebugBuild.root + "/TestVectors/echo" }

  static func run(_ options: Options, report: Report, allocCounterWorks: Bool) {
    let cancellers = ["ours", "speexdsp", "webrtc"]
    // `--filter echo/16-khz`: ``atRate(_:_:)``'s table alone (it runs with ours' too).
    if report.wants(section: section, row: "16-khz") && !report.wants(section: section, row: "ours")
    {
      return atRate(voiceRate, report)
    }
    // `--filter echo/other-rates`: the same table at ``otherRates`` (only when asked for).
    if report.asksFor(section: section, row: "other-rates") {
      for rate in otherRates { atRate(rate, report) }
      return
    }
    guard report.wants(section: section, rows: cancellers + ["pipeline"]) else { return }
    let url = URL(fileURLWithPath: assets)
    guard var scenes = try? EchoScene.matrix(assets: url) else {
      warn("echo: cannot read the scenes' assets in \(assets); section skipped")
      return
    }
    if options.scale < 1 { scenes = Array(scenes.prefix(2)) + scenes.suffix(1) }
    let pesqWorks = pesqAvailable()
    let table = Table(columns: [
      ("scene", 22), ("canceller", 9), ("ERLE dB", 11), ("perfect", 11), ("conv s", 9),
      ("DT SI-SDR", 9), ("DT echo", 7), ("PESQ", 4), ("perfect", 7), ("alone", 6), ("whole", 6),
      ("lag", 4),
      ("µs/10ms", 7), ("Swift", 7),
    ])
    table.start(
      "Echo cancellation, 20 s scenes at 48 kHz (speech or music through a loudspeaker, a talker"
        + " over it 6-9 s and 14-17 s, the echo path changed at 11 s). ERLE where the app plays"
        + " alone, before / after the change; perfect: mic minus the true echo; conv: seconds"
        + " to 20 dB (or within 3 dB of perfect where the noise holds it under 23) from the"
        + " start / the change; DT: the talker in double talk (SI-SDR dB, echo"
        + " reduction dB, PESQ-WB" + (pesqWorks ? "" : ": n/a, pip install pesq")
        + ", and a perfect canceller's PESQ-WB: the talker with the room's noise)"
        + "; alone: the talker alone against the mic, whole: the capture against the mic (SI-SDR"
        + " dB); lag: the canceller's own delay in frames, found where the talker speaks alone"
        + " and taken off before measuring; CPU per 10 ms of audio (the least of ten runs, in ten"
        + " rounds each over every scene and canceller in turn), and ours with the Swift kernels instead of the"
        + " C ones (the same bits)")
    let tmp = scratchFolder("echo")
    // First each scene's outputs and their measures, with one timed run each; then the other
    // rounds of timing, each round over every scene and canceller in turn, so that a scene's
    // runs lie minutes apart and a slow spell of the host's does not set any one figure.
    var measured: [(scene: EchoScene, ceiling: Double?, rows: [String: Row])] = []
    for scene in scenes {
      // PESQ-WB's ceiling on the scene: a perfect canceller's output (the talker and the
      // room's noise, the mic without its echo) against the clean talker.
      let ceiling =
        pesqWorks && !scene.headphones
        ? doubleTalkPESQ(scene, scene.heardTalker, folder: tmp) : nil
      var rows: [String: Row] = [:]
      for canceller in cancellers where report.wants(section: section, row: canceller) {
        if let run = run(scene, canceller) {
          rows[canceller] = measure(scene, canceller, run, pesq: pesqWorks ? tmp : nil)
        }
      }
      measured.append((scene, ceiling, rows))
    }
    for _ in 1..<rounds {
      for i in measured.indices {
        for (canceller, row) in measured[i].rows {
          measured[i].rows[canceller] = timed(measured[i].scene, canceller, row)
        }
      }
    }
    for (scene, ceiling, rows) in measured {
      for canceller in cancellers where report.wants(section: section, row: canceller) {
        guard let row = rows[canceller] else {
          table.row([scene.name, canceller, "failed"])
          continue
        }
        let m = row.metrics
        table.row([
          scene.name, canceller, erleCell(m), perfectCell(m), convergenceCell(m),
          fixed(m.doubleTalkSISDR, 1), fixed(m.doubleTalkEchoReduction, 1),
          row.pesq.map { fixed($0, 2) } ?? "n/a", ceiling.map { fixed($0, 2) } ?? "n/a",
          fixed(min(m.talkerAloneSISDR, 99), 1),
          fixed(min(m.wholeSISDR, 99), 1), "\(row.lag)", fixed(row.cost, 1),
          canceller == "ours" ? row.swiftCost.map { fixed($0, 1) } ?? "differs" : "-",
        ])
        let name = "\(scene.name)/\(canceller)"
        recordEcho(m, as: name, report, againstReferences: true)
        report.record(section, name, "pesq_wb", row.pesq ?? .nan, "MOS")
        report.record(section, name, "pesq_wb_perfect", ceiling ?? .nan, "MOS")
        report.record(section, name, "pesq_wb_heard", row.pesqHeard ?? .nan, "MOS")
        report.record(section, name, "talker_level", m.talkerLevel, "dB")
        report.record(section, name, "cpu_per_10ms", row.cost, "us")
        if canceller == "ours" {
          report.record(section, name, "cpu_per_10ms_swift", row.swiftCost ?? .nan, "us")
        }
        report.record(section, name, "lag", Double(row.lag), "frames")
      }
    }
    _ = system("rm -rf '\(tmp)'")
    if report.wants(section: section, row: "ours") {
      let ours = measured.compactMap { m in m.rows["ours"].map { (m.scene, $0.metrics) } }
      doubleTalkSplit(ours, report)
      if options.scale >= 1 && pesqWorks {
        let heard = pesqDemand(
          measured.compactMap { m in m.rows["ours"].map { (m.scene, $0) } }, report)
        pesqHeard(measured.map { ($0.scene, $0.rows) }, cancellers, lowered: heard, report)
        pesqDenoised(measured.map { ($0.scene, $0.ceiling, $0.rows["ours"]) }, report)
      }
      if options.scale >= 1 {
        shiftedScenes(report)
        heldOutScenes(report)
        noisyRoom(report)
        atRate(voiceRate, report)
      }
    }
    if report.wants(section: section, row: "pipeline") {
      pipelineCost(options, report: report, allocCounterWorks: allocCounterWorks)
    }
  }

  /// Ours with the suppressor off (``EchoCancellation/suppression`` 0): the adaptive filter
  /// alone, which leaves the talker whole.
  static let filterAlone: EchoCancellation = {
    var settings = EchoCancellation()
    settings.suppression = 0
    return settings
  }()

  /// Ours in double talk, its adaptive filter alone (``EchoCancellation/suppression`` 0)
  /// beside the whole canceller: what the suppressor adds to the talker's SI-SDR, or costs it
  /// (it takes out echo the filter left, and some of the talker with it). And what the talker
  /// costs the filter: its echo reduction over the double-talk spans, and that of the same
  /// filter run on the mic without the talker (the scene's mic less its talker: the echo and
  /// the room), which learns through those spans as it does where the app plays alone.
  static func doubleTalkSplit(_ scenes: [(EchoScene, EchoSceneMetrics)], _ report: Report) {
    let table = Table(columns: [
      ("scene", 22), ("filter alone", 12), ("whole", 6), ("change", 6), ("no talker", 9),
    ])
    table.start(
      "Ours in double talk: the talker's SI-SDR (dB) from the adaptive filter alone"
        + " (suppression 0; it leaves the talker whole, so its SI-SDR is also its echo"
        + " reduction, the talker being at the echo's level) and from the whole canceller; the"
        + " same filter's echo reduction over those spans on the mic without the talker (dB)")
    for (scene, whole) in scenes where !scene.headphones {
      let out = scene.cancelled(filterAlone).output
      dump(scene, "filter", out)
      let m = EchoSceneMetrics(scene: scene, output: out)
      let quiet = EchoScene.cancel(
        mic: zip(scene.mic, scene.talker).map { $0 - $1 }, app: scene.app, filterAlone
      ).output
      let unheard = doubleTalkEchoReduction(scene, withoutTalker: quiet)
      table.row([
        scene.name, fixed(m.doubleTalkSISDR, 1), fixed(whole.doubleTalkSISDR, 1),
        (whole.doubleTalkSISDR >= m.doubleTalkSISDR ? "+" : "")
          + fixed(whole.doubleTalkSISDR - m.doubleTalkSISDR, 1),
        fixed(unheard, 1),
      ])
      report.record(section, "\(scene.name)/ours", "dt_si_sdr_filter", m.doubleTalkSISDR, "dB")
      report.record(section, "\(scene.name)/ours", "dt_echo_reduction_filter_quiet", unheard, "dB")
    }
  }

  /// How far the echo must come down in double talk for the talker's PESQ-WB to reach a mark,
  /// if it is only turned down: the scene's talker, whole, with its true echo 20, 25, 30 and
  /// 35 dB down, with the room's noise and without it (``pesqDemandLevels``), beside ours. A
  /// suppressor does not turn the echo down evenly (it takes out more where the talker is
  /// quiet), so a canceller can score above the level its echo reduction matches: ours does on
  /// speech. The scenes without the loudspeaker's clipping (the clipped echo is another
  /// signal, not another level). Returns, by scene name, the same lowered echoes' PESQ-WB
  /// against the talker with the room's noise (for ``pesqHeard(_:_:lowered:_:)``).
  static func pesqDemand(_ scenes: [(EchoScene, Row)], _ report: Report) -> [String: [Double?]] {
    let levels = pesqDemandLevels
    let table = Table(
      columns: [("scene", 22), ("ours", 4), ("ours DT echo", 12)]
        + levels.map { ("-\(Int($0)) dB", 6) } + levels.map { ("quiet -\(Int($0))", 9) })
    table.start(
      "PESQ-WB of the talker in double talk with the true echo turned down "
        + levels.dropLast().map { "\(Int($0))" }.joined(separator: ", ")
        + " and \(Int(levels.last ?? 0)) dB (the talker whole), in the scene's room (white noise at -60 dBFS) and in a silent"
        + " one (quiet); ours beside it (PESQ-WB, echo reduction dB)")
    let tmp = scratchFolder("pesq-demand")
    defer { _ = system("rm -rf '\(tmp)'") }
    var lowered: [String: [Double?]] = [:]
    for (scene, ours) in scenes where !scene.headphones && !scene.nonlinear {
      var noisy: [Double?] = []
      var quiet: [Double?] = []
      var againstHeard: [Double?] = []
      let heard = scene.heardTalker
      var withRoom = [Float](repeating: 0, count: scene.mic.count)
      var silent = withRoom
      var heardLowered = withRoom
      for level in levels {
        let g = Float(pow(10, -level / 20))
        for i in 0..<withRoom.count {
          silent[i] = scene.talker[i] + g * scene.echo[i]
          withRoom[i] = silent[i] + scene.noise[i]
          heardLowered[i] = heard[i] + g * scene.echo[i]
        }
        noisy.append(doubleTalkPESQ(scene, withRoom, folder: tmp))
        quiet.append(doubleTalkPESQ(scene, silent, folder: tmp))
        againstHeard.append(doubleTalkPESQ(scene, heardLowered, against: heard, folder: tmp))
      }
      lowered[scene.name] = againstHeard
      let name = "pesq-demand/\(scene.name)"
      let cell = { (v: Double?) in v.map { fixed($0, 2) } ?? "n/a" }
      table.row(
        [scene.name, cell(ours.pesq), fixed(ours.metrics.doubleTalkEchoReduction, 1)]
          + noisy.map(cell) + quiet.map(cell))
      for (level, (n, q)) in zip(levels, zip(noisy, quiet)) {
        report.record(section, name, "pesq_wb_echo_\(Int(level))", n ?? .nan, "MOS")
        report.record(section, name, "pesq_wb_echo_\(Int(level))_quiet", q ?? .nan, "MOS")
      }
    }
    return lowered
  }

  /// PESQ-WB in double talk against the talker as the mic hears them (the talker and the room's
  /// noise, a perfect canceller's output) rather than the clean talker, the reading under which
  /// a canceller that keeps the room tone can reach any mark (a perfect one scores the
  /// maximum): each canceller's, and the talker with the true echo turned down evenly by
  /// ``pesqDemandLevels`` (`lowered`, by scene name, from ``pesqDemand(_:_:)``: the scenes
  /// without the loudspeaker's clipping).
  static func pesqHeard(
    _ scenes: [(EchoScene, [String: Row])], _ cancellers: [String],
    lowered: [String: [Double?]], _ report: Report
  ) {
    let levels = pesqDemandLevels
    let table = Table(
      columns: [("scene", 22)] + cancellers.map { ($0, 8) } + levels.map { ("-\(Int($0)) dB", 6) })
    table.start(
      "PESQ-WB of the talker in double talk against the talker with the room's noise (a perfect"
        + " canceller's output) instead of the clean talker: each canceller's, and the true"
        + " echo turned down evenly by "
        + levels.map { "\(Int($0))" }.joined(separator: ", ") + " dB")
    let cell = { (v: Double?) in v.map { fixed($0, 2) } ?? "-" }
    for (scene, rows) in scenes where !scene.headphones {
      let values = lowered[scene.name] ?? levels.map { _ in nil }
      table.row([scene.name] + cancellers.map { cell(rows[$0]?.pesqHeard) } + values.map(cell))
      for (level, v) in zip(levels, values) {
        guard let v else { continue }
        report.record(section, "pesq-heard/\(scene.name)", "pesq_wb_echo_\(Int(level))", v, "MOS")
      }
    }
  }

  /// PESQ-WB of the talker in double talk against the clean talker, as the echo table reads
  /// it, after a noise reducer (`Benchmarks/echo_pesq.py --denoise`: a stationary-noise
  /// Wiener filter, non-causal over the file, so an upper bound of what one in the mic path
  /// would give): a perfect canceller's output (the talker and the room's noise) and ours,
  /// each beside its score without the reducer. Whether noise reduction after the canceller
  /// (one reading of the issue's 2.8) would reach the mark. Recorded as
  /// `pesq-denoised/<scene>`.
  static func pesqDenoised(_ scenes: [(EchoScene, Double?, Row?)], _ report: Report) {
    let table = Table(columns: [
      ("scene", 22), ("perfect", 7), ("+ reducer", 9), ("ours", 5), ("+ reducer", 9),
    ])
    table.start(
      "PESQ-WB of the talker in double talk against the clean talker, with a noise reducer"
        + " after the canceller (a stationary-noise Wiener filter, non-causal: an upper bound)"
        + " and without: a perfect canceller's output (the talker and the room's noise) and"
        + " ours")
    let tmp = scratchFolder("pesq-denoised")
    defer { _ = system("rm -rf '\(tmp)'") }
    let cell = { (v: Double?) in v.map { fixed($0, 2) } ?? "n/a" }
    for (scene, ceiling, ours) in scenes where !scene.headphones {
      let perfect = doubleTalkPESQ(scene, scene.heardTalker, folder: tmp, denoise: true)
      table.row([
        scene.name, cell(ceiling), cell(perfect), cell(ours?.pesq), cell(ours?.pesqDenoised),
      ])
      let name = "pesq-denoised/\(scene.name)"
      report.record(section, name, "perfect", ceiling ?? .nan, "MOS")
      report.record(section, name, "perfect_denoised", perfect ?? .nan, "MOS")
      report.record(section, name, "ours", ours?.pesq ?? .nan, "MOS")
      report.record(section, name, "ours_denoised", ours?.pesqDenoised ?? .nan, "MOS")
    }
  }

  /// A new folder for a table's PESQ inputs, named by `tag` and the process: two benches at
  /// once wrote each other's.
  static func scratchFolder(_ tag: String) -> String {
    let folder =
      (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
      + "/pcm-mix-bench-\(tag)-\(getpid())"
    mkdir(folder, 0o755)
    return folder
  }

  /// The echo's levels under its own (dB) of ``pesqDemand(_:_:)``.
  static let pesqDemandLevels: [Double] = [20, 25, 30, 35]

  /// The echo's energy over the double-talk spans against the output's there, for an output of
  /// the mic without its talker (so all of it is what is left of the echo, and the room).
  static func doubleTalkEchoReduction(_ scene: EchoScene, withoutTalker out: [Float]) -> Double {
    var echo = 0.0
    var left = 0.0
    for span in EchoScene.doubleTalk {
      for i in EchoScene.index(span.lowerBound)..<EchoScene.index(span.upperBound) {
        echo += Double(scene.echo[i]) * Double(scene.echo[i])
        left += Double(out[i]) * Double(out[i])
      }
    }
    return 10 * log10(echo / max(left, 1e-30))
  }

  /// How far into the app's piece the shifted scenes start it (seconds; ``shiftedScenes(_:)``):
  /// the three the canceller was tuned on (2.15, 4.3, 6.45), and the four the ducking bench
  /// added, on which the canceller was first measured only after it was tuned.
  static let shifts = [1.1, 2.15, 3.2, 4.3, 5.4, 6.45, 8.6]

  /// Ours on the matrix again with the app's piece started later (``EchoScene``'s `appShift`):
  /// the same rooms, latencies, loudspeakers and talker, but other words and notes in the
  /// first seconds, under the talker and at the path change. The canceller was tuned on the
  /// matrix as it is; these show how far its figures hold off it. One untimed run a scene,
  /// recorded as `shifted/<shift>/<scene>`.
  static func shiftedScenes(_ report: Report) {
    let table = Table(columns: [
      ("scene", 22), ("app from", 8), ("ERLE dB", 11), ("perfect", 11), ("conv s", 9),
      ("DT SI-SDR", 9), ("DT echo", 7),
    ])
    table.start(
      "Ours on the same scenes with the app's piece started later (rotated): ERLE where the app"
        + " plays alone before / after the path change, and a perfect canceller's (mic minus"
        + " the true echo), seconds to 20 dB from the start / the change, the talker in double"
        + " talk (SI-SDR dB, echo reduction dB)")
    for shift in shifts {
      guard let scenes = matrix(appShift: shift, noiseDB: -60, skipping: "shifted") else { return }
      for scene in scenes where !scene.headphones {
        let out = scene.cancelled().output
        if getenv("PCMMIX_ECHO_DUMP") != nil {
          let tag = "shift\(fixed(shift, 2))-"
          dump(scene, "ours", out, tag: tag)
          dump(scene, "filter", scene.cancelled(filterAlone).output, tag: tag)
        }
        let m = EchoSceneMetrics(scene: scene, output: out)
        table.row([
          scene.name, fixed(shift, 2) + " s", erleCell(m), perfectCell(m), convergenceCell(m),
          fixed(m.doubleTalkSISDR, 1), fixed(m.doubleTalkEchoReduction, 1),
        ])
        recordEcho(m, as: "shifted/\(fixed(shift, 2))/\(scene.name)", report)
      }
    }
  }

  /// Nine more shifts of the app's piece (seconds; ``heldOutScenes(_:)``), between and beyond
  /// ``shifts``, kept out of all tuning: the canceller's figures there are read only in
  /// counts and ranges, never scene by scene while changing it. (One constant was chosen with
  /// its counts in view: the process noise on held tones, 0.0025 over 0.005 and 0.001.)
  static let heldOutShifts = [0.55, 1.65, 2.7, 3.75, 4.85, 5.95, 7.05, 8.1, 9.35]

  /// Ours on the matrix with the app's piece started at each of ``heldOutShifts``: per shift,
  /// how many of the 16 loudspeaker scenes miss one of the echo issue's targets
  /// (``EchoSceneMetrics/missedTargets``), the talker's SI-SDR in double talk on speech and
  /// on music (least / median), the least echo reduction in double talk and ERLE, and the
  /// slowest convergence. One untimed run a scene, recorded as `held-out/<shift>/<scene>`.
  static func heldOutScenes(_ report: Report) {
    let table = Table(columns: [
      ("app from", 8), ("missing", 7), ("DT speech", 11), ("DT music", 11), ("DT echo", 7),
      ("ERLE dB", 7), ("conv s", 9),
    ])
    table.start(
      "Ours on the same scenes with the app's piece started at nine shifts kept out of tuning:"
        + " scenes (of 16) missing an echo target; the talker in double talk, SI-SDR dB least /"
        + " median, on speech and on music; the least echo reduction in double talk and ERLE"
        + " (before or after the change); the slowest convergence from the start / the change")
    for shift in heldOutShifts {
      guard let scenes = matrix(appShift: shift, noiseDB: -60, skipping: "held-out") else {
        return
      }
      var missing = 0
      var speech: [Double] = []
      var music: [Double] = []
      var echo = Double.infinity
      var erle = Double.infinity
      var slowest = (0.0, 0.0)
      for scene in scenes where !scene.headphones {
        let m = EchoSceneMetrics(scene: scene, output: scene.cancelled().output)
        let missed = m.missedTargets.count
        if missed > 0 { missing += 1 }
        if scene.content == .speech {
          speech.append(m.doubleTalkSISDR)
        } else {
          music.append(m.doubleTalkSISDR)
        }
        echo = min(echo, m.doubleTalkEchoReduction)
        erle = min(erle, m.erleBefore, m.erleAfter)
        slowest.0 = max(slowest.0, m.convergence ?? .infinity)
        slowest.1 = max(slowest.1, m.reconvergence ?? .infinity)
        let name = "held-out/\(fixed(shift, 2))/\(scene.name)"
        recordEcho(m, as: name, report)
        report.record(section, name, "missed_targets", Double(missed), "targets")
      }
      func spread(_ v: [Double]) -> String {
        let sorted = v.sorted()
        guard let least = sorted.first else { return "-" }
        let median = (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
        return fixed(least, 1) + " / " + fixed(median, 1)
      }
      table.row([
        fixed(shift, 2) + " s", "\(missing)", spread(speech), spread(music), fixed(echo, 1),
        fixed(erle, 1), fixed(slowest.0, 1) + " / " + fixed(slowest.1, 1),
      ])
    }
  }

  /// The matrix's scenes with the app's piece shifted and the room's noise at `noiseDB`; nil,
  /// with a warning that the `what` scenes are skipped, when the assets cannot be read.
  static func matrix(appShift: Double, noiseDB: Double, skipping what: String) -> [EchoScene]? {
    let scenes = try? EchoScene.matrix(
      assets: URL(fileURLWithPath: assets), appShift: appShift, noiseDB: noiseDB)
    if scenes == nil {
      warn("echo: cannot read the scenes' assets in \(assets); \(what) scenes skipped")
    }
    return scenes
  }

  /// The room's noise (dBFS RMS, white) of ``noisyRoom(_:)``: 15 dB over the matrix's.
  static let noisyRoomDB = -45.0

  /// Ours on the matrix again in a noisier room (``noisyRoomDB`` instead of −60 dBFS), the
  /// headphone scenes too: how much of the echo a perfect canceller (mic minus the true echo)
  /// can take out there, what ours does, and whether the room's tone and the talker pass
  /// unchanged (the talker alone, and the whole capture with headphones, against the raw mic).
  /// The canceller was not tuned on it. One untimed run a scene, recorded as
  /// `noisy-room/<scene>`.
  static func noisyRoom(_ report: Report) {
    guard let scenes = matrix(appShift: 0, noiseDB: noisyRoomDB, skipping: "noisy-room") else {
      return
    }
    let table = Table(columns: roomColumns)
    table.start(
      "Ours on the same scenes in a room 15 dB noisier (white noise at \(fixed(noisyRoomDB, 0))"
        + " dBFS): ERLE before / after the path change and a perfect canceller's, seconds to"
        + " 20 dB (or within 3 dB of the perfect canceller), the talker in double talk (SI-SDR,"
        + " and a perfect canceller's, which keeps the room's noise; echo reduction dB), the"
        + " talker alone and the whole capture against the raw mic (SI-SDR dB)")
    for scene in scenes {
      let out = scene.cancelled().output
      if getenv("PCMMIX_ECHO_DUMP") != nil { dump(scene, "ours", out, tag: "noisy-") }
      table.row(measureRoom(scene, out, as: "noisy-room/\(scene.name)", report))
    }
  }

  /// The columns of ``noisyRoom(_:)``'s and ``atRate(_:_:)``'s tables.
  static let roomColumns = [
    ("scene", 22), ("ERLE dB", 11), ("perfect", 11), ("conv s", 9), ("DT SI-SDR", 9),
    ("perfect", 7), ("DT echo", 7), ("alone", 6), ("whole", 6),
  ]

  /// Measures `out` (ours, aligned with `scene`'s mic), records it as `name`, and returns its
  /// row of ``roomColumns``: the echo figures, and the talker in double talk against a perfect
  /// canceller's (the talker and the room's noise).
  static func measureRoom(
    _ scene: EchoScene, _ out: [Float], as name: String, _ report: Report
  ) -> [String] {
    let m = EchoSceneMetrics(scene: scene, output: out)
    let perfect = EchoSceneMetrics(
      scene: scene, output: zip(scene.talker, scene.noise).map(+)
    ).doubleTalkSISDR
    recordEcho(m, as: name, report, againstReferences: true)
    report.record(section, name, "dt_si_sdr_perfect", perfect, "dB")
    return [
      scene.name, erleCell(m), perfectCell(m), convergenceCell(m),
      fixed(m.doubleTalkSISDR, 1), fixed(perfect, 1),
      scene.headphones ? "-" : fixed(m.doubleTalkEchoReduction, 1),
      fixed(min(m.talkerAloneSISDR, 99), 1), fixed(min(m.wholeSISDR, 99), 1),
    ]
  }

  /// The output rate of ``atRate(_:_:)``'s table in a full run: a voice pipeline's (calls,
  /// transcription).
  static let voiceRate = 16_000
  /// The output rates `--filter echo/other-rates` runs ``atRate(_:_:)``'s table at (about 45 s;
  /// not part of a full run).
  static let otherRates = [8_000, 24_000, 32_000, 44_100]

  /// `rate` in kHz, as the tables and the records name it: 16, 44.1.
  static func kilohertz(_ rate: Int) -> String {
    rate % 1000 == 0 ? "\(rate / 1000)" : "\(rate / 1000).\(rate % 1000 / 100)"
  }

  /// Ours on the matrix with the pipeline at `rate` (the canceller runs at the output
  /// rate, and was tuned at 48 kHz): each scene's app and mic converted to it by the library's
  /// resampler, the output converted back, measured against the scene band-limited the same
  /// way (`EchoScene.bandLimited(to:)`), so a perfect canceller scores what the band holds.
  /// One untimed run a scene, recorded as `16-khz/<scene>` (`44.1-khz/<scene>`, …).
  static func atRate(_ rate: Int, _ report: Report) {
    let khz = kilohertz(rate)
    guard let scenes = matrix(appShift: 0, noiseDB: -60, skipping: "\(khz) kHz") else { return }
    let table = Table(columns: roomColumns)
    table.start(
      "Ours on the same scenes at a \(khz) kHz output (app and mic converted to it,"
        + " measured against the scenes band-limited the same way): ERLE before / after the"
        + " path change and a perfect canceller's, seconds to 20 dB from the start / the"
        + " change, the talker in double talk (SI-SDR, and a perfect canceller's; echo reduction"
        + " dB), the talker alone and the whole capture against the raw mic (SI-SDR dB)")
    for scene in scenes {
      let heard = scene.bandLimited(to: rate)
      let (out, _) = EchoScene.cancel(
        mic: EchoScene.converted(scene.mic, from: EchoScene.rate, to: rate),
        app: EchoScene.converted(scene.app, from: EchoScene.rate, to: rate), rate: rate)
      let back = EchoScene.converted(out, from: rate, to: EchoScene.rate)
      table.row(measureRoom(heard, back, as: "\(khz)-khz/\(scene.name)", report))
    }
  }

  /// A scene's echo figures, as `name`: ERLE before and after the path change, convergence
  /// from the start and from the change, the talker in double talk, and the perfect
  /// canceller's ERLE; `againstReferences`: also the talker alone and the whole capture
  /// against the raw mic.
  static func recordEcho(
    _ m: EchoSceneMetrics, as name: String, _ report: Report, againstReferences: Bool = false
  ) {
    report.record(section, name, "erle_before", m.erleBefore, "dB")
    report.record(section, name, "erle_after", m.erleAfter, "dB")
    report.record(section, name, "convergence", m.convergence ?? .infinity, "s")
    report.record(section, name, "reconvergence", m.reconvergence ?? .infinity, "s")
    report.record(section, name, "dt_si_sdr", m.doubleTalkSISDR, "dB")
    report.record(section, name, "dt_echo_reduction", m.doubleTalkEchoReduction, "dB")
    report.record(section, name, "perfect_before", m.perfectBefore, "dB")
    report.record(section, name, "perfect_after", m.perfectAfter, "dB")
    guard againstReferences else { return }
    report.record(section, name, "alone_si_sdr", m.talkerAloneSISDR, "dB")
    report.record(section, name, "whole_si_sdr", m.wholeSISDR, "dB")
  }

  /// Table cells: ERLE before / after the change, the perfect canceller's, and the seconds to
  /// converge from the start / the change ("-": never).
  static func erleCell(_ m: EchoSceneMetrics) -> String {
    fixed(m.erleBefore, 1) + "/" + fixed(m.erleAfter, 1)
  }
  static func perfectCell(_ m: EchoSceneMetrics) -> String {
    fixed(m.perfectBefore, 1) + "/" + fixed(m.perfectAfter, 1)
  }
  static func convergenceCell(_ m: EchoSceneMetrics) -> String {
    [m.convergence, m.reconvergence].map { $0.map { fixed($0, 1) } ?? "-" }
      .joined(separator: "/")
  }

  /// Timed runs of each canceller on each scene (the least CPU time counts).
  static let rounds = 10

  /// `row` with another timed run of the canceller on the scene: its CPU per 10 ms the least
  /// of the two (and, for ours, the Swift kernels' too, nil once their output differs by a bit
  /// from the C kernels').
  static func timed(_ scene: EchoScene, _ canceller: String, _ row: Row) -> Row {
    var row = row
    let blocks = tenMillisecondBlocks(scene)
    guard let again = run(scene, canceller) else { return row }
    row.cost = min(row.cost, again.seconds * 1e6 / blocks)
    if canceller == "ours", let cost = row.swiftCost {
      let swift = swiftRun(scene, matching: again.output)
      row.swiftCost = swift.map { min(cost, $0 * 1e6 / blocks) }
    }
    return row
  }

  /// The scene's length in 10 ms blocks (CPU figures are per 10 ms of audio).
  static func tenMillisecondBlocks(_ scene: EchoScene) -> Double {
    Double(scene.mic.count) / Double(EchoScene.rate) * 100
  }

  /// Ours with the Swift kernels: its CPU seconds, or nil if its output is not `output` bit
  /// for bit.
  static func swiftRun(_ scene: EchoScene, matching output: [Float]) -> Double? {
    let t0 = CaptureScene.threadCPU()
    let swift = scene.cancelled(kernels: .swift).output
    let seconds = Double(CaptureScene.threadCPU() - t0) * 1e-9
    return swift.map(\.bitPattern) == output.map(\.bitPattern) ? seconds : nil
  }

  /// With `PCMMIX_ECHO_DUMP=DIR`, for a look from outside: `out` and the scene's parts (mic,
  /// talker, app) as float WAV files in DIR, named `<tag><scene>-<part>.wav`.
  static func dump(_ scene: EchoScene, _ canceller: String, _ out: [Float], tag: String = "") {
    guard let folder = getenv("PCMMIX_ECHO_DUMP").map({ String(cString: $0) }) else { return }
    let name = tag + scene.name.replacingOccurrences(of: " ", with: "_")
    _ = writeFloatWAV("\(folder)/\(name)-\(canceller).wav", out)
    for (part, x) in [
      ("mic", scene.mic), ("talker", scene.talker), ("app", scene.app), ("echo", scene.echo),
    ] {
      _ = writeFloatWAV("\(folder)/\(name)-\(part).wav", x)
    }
  }

  /// One run of one canceller on the scene: its output and the CPU seconds it took.
  static func run(_ scene: EchoScene, _ canceller: String) -> (output: [Float], seconds: Double)? {
    let n = scene.mic.count
    var out = [Float](repeating: 0, count: n)
    var seconds = 0.0
    switch canceller {
    case "ours":
      let t0 = CaptureScene.threadCPU()
      out = scene.cancelled().output
      seconds = Double(CaptureScene.threadCPU() - t0) * 1e-9
    case "speexdsp", "webrtc":
      let status = scene.app.withUnsafeBufferPointer { a in
        scene.mic.withUnsafeBufferPointer { m in
          out.withUnsafeMutableBufferPointer { o in
            canceller == "speexdsp"
              ? echo_peer_speex(
                a.baseAddress, m.baseAddress, n, Int32(EchoScene.rate), o.baseAddress, &seconds)
              : echo_peer_webrtc(
                a.baseAddress, m.baseAddress, n, Int32(EchoScene.rate), o.baseAddress, &seconds)
          }
        }
      }
      guard status == 0 else { return nil }
    default:
      return nil
    }
    return (out, seconds)
  }

  /// One canceller on one scene, from its first timed run (``run(_:_:)``).
  static func measure(
    _ scene: EchoScene, _ canceller: String, _ timed: (output: [Float], seconds: Double),
    pesq folder: String?
  ) -> Row? {
    var out = timed.output
    let seconds = timed.seconds
    let blocks = tenMillisecondBlocks(scene)
    // Ours again with the Swift kernels: its CPU, if it gives the same bits.
    let swiftCost =
      canceller == "ours" ? swiftRun(scene, matching: out).map { $0 * 1e6 / blocks } : nil
    // Each canceller's own delay taken off (speexdsp's is a 10 ms frame, WebRTC's 8 ms), found
    // where the talker speaks alone: the lag, up to 25 ms, at which the output best matches the
    // mic. Ours has none.
    let lag = latency(out, scene.mic)
    if lag > 0 { out = Array(out[lag...]) + [Float](repeating: 0, count: lag) }
    let metrics = EchoSceneMetrics(scene: scene, output: out)
    dump(scene, canceller, out)
    var pesq: Double?
    var pesqHeard: Double?
    var pesqDenoised: Double?
    if let folder, !scene.headphones {
      pesq = doubleTalkPESQ(scene, out, folder: folder)
      pesqHeard = doubleTalkPESQ(scene, out, against: scene.heardTalker, folder: folder)
      if canceller == "ours" {
        pesqDenoised = doubleTalkPESQ(scene, out, folder: folder, denoise: true)
      }
    }
    return Row(
      name: scene.name, metrics: metrics, pesq: pesq, pesqHeard: pesqHeard,
      pesqDenoised: pesqDenoised,
      cost: seconds * 1e6 / blocks,
      swiftCost: swiftCost, lag: lag)
  }

  /// The lag (0 … 1,200 frames) at which `out` best matches `mic` over the talker-alone span.
  static func latency(_ out: [Float], _ mic: [Float]) -> Int {
    let start = EchoScene.index(EchoScene.talkerAlone.lowerBound + 0.5)
    let count = EchoScene.index(1.0)
    var best = (lag: 0, score: -Double.infinity)
    for lag in 0...1_200 {
      var dot = 0.0
      for i in start..<(start + count) { dot += Double(out[i + lag]) * Double(mic[i]) }
      if dot > best.score { best = (lag, dot) }
    }
    return best.lag
  }

  /// Whether `python3` can import `pesq`.
  static func pesqAvailable() -> Bool {
    system("python3 -c 'import pesq, scipy, soundfile' >/dev/null 2>&1") == 0
  }

  /// PESQ-WB of the output over both double-talk spans (their mean), against the clean talker
  /// or the given reference; `denoise`: the output through the script's noise reducer first
  /// (`echo_pesq.py --denoise`).
  static func doubleTalkPESQ(
    _ scene: EchoScene, _ out: [Float], against reference: [Float]? = nil, folder: String,
    denoise: Bool = false
  ) -> Double? {
    let ref = folder + "/talker.wav"
    let deg = folder + "/out.wav"
    guard writeFloatWAV(ref, reference ?? scene.talker), writeFloatWAV(deg, out) else {
      return nil
    }
    let spans = EchoScene.doubleTalk.map { "\($0.lowerBound) \($0.upperBound)" }
    let script = DebugBuild.root + "/Benchmarks/echo_pesq.py"
    guard
      let pipe = popen(
        "python3 '\(script)'\(denoise ? " --denoise" : "") '\(ref)' '\(deg)' "
          + spans.joined(separator: " "), "r")
    else { return nil }
    var values: [Double] = []
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, pipe) != nil {
      let text = String(
        decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self
      )
      .trimmingCharacters(in: .whitespacesAndNewlines)
      if text.hasPrefix("pesq_wb "), let v = Double(text.dropFirst(8)), v.isFinite {
        values.append(v)
      }
    }
    pclose(pipe)
    return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
  }

  /// A mono 48 kHz float32 WAV.
  static func writeFloatWAV(_ path: String, _ x: [Float]) -> Bool {
    guard let f = fopen(path, "w") else { return false }
    defer { fclose(f) }
    var h: [UInt8] = []
    func put(_ s: String) { h += Array(s.utf8) }
    func put32(_ v: Int) { for i in 0..<4 { h.append(UInt8((v >> (8 * i)) & 0xff)) } }
    func put16(_ v: Int) { for i in 0..<2 { h.append(UInt8((v >> (8 * i)) & 0xff)) } }
    put("RIFF")
    put32(36 + 4 * x.count)
    put("WAVEfmt ")
    put32(16)
    put16(3)
    put16(1)
    put32(EchoScene.rate)
    put32(EchoScene.rate * 4)
    put16(4)
    put16(32)
    put("data")
    put32(4 * x.count)
    let ok = h.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) } == h.count
    return ok && x.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) } == 4 * x.count
  }

  /// The scene through `ClockedCapturePipeline` in 10 ms buffers and pulls, with and without
  /// cancellation, and with the loudness meter: CPU per pull (median and 99th percentile over
  /// the pulls after the first second, the least of three runs), allocations in the pulls,
  /// bytes held.
  static func pipelineCost(_ options: Options, report: Report, allocCounterWorks: Bool) {
    guard let scenes = try? EchoScene.matrix(assets: URL(fileURLWithPath: assets)),
      let scene = scenes.first
    else { return }
    let table = Table(columns: [
      ("pipeline, 10 ms pulls", 24), ("p50 µs", 8), ("p99 µs", 8), ("allocs", 7), ("held KB", 8),
    ])
    table.start(
      "Echo cancellation in ClockedCapturePipeline (\(scene.name), 10 ms stamped f32 buffers of"
        + " each source, then a 10 ms pull; append + pull timed, CPU of this thread; the least of"
        + " three runs)")
    for (key, name) in [
      ("off", "echo cancellation off"), ("on", "echo cancellation on"),
      ("loudness", "loudness meter on (no echo)"), ("ducking", "ducking on (no echo)"),
      ("ducking+echo", "ducking and echo on"),
    ] {
      var c = ClockedCapturePipeline.Configuration()
      c.policy = .limit
      c.echoCancellation = key == "on" || key == "ducking+echo" ? EchoCancellation() : nil
      c.meterLoudness = key == "loudness"
      c.ducking = key.hasPrefix("ducking") ? Ducking() : nil
      c.origin = MediaTime(value: 0, timescale: 48_000)
      let d = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .f32))
      // Three runs of the whole scene, each on a new pipeline: the least median and 99th
      // percentile (a neighbour's load only ever adds), the allocations of all three.
      var (p50, p99, allocations, retained) = (Double.infinity, Double.infinity, UInt64(0), 0)
      for _ in 0..<3 {
        guard var p = try? ClockedCapturePipeline(c, app: d, mic: d) else { continue }
        var out = [Float](repeating: 0, count: 960)
        var times: [Double] = []
        times.reserveCapacity(scene.mic.count / 480)
        var at = 0
        // The buffers as the capture hands them over: bytes of their own.
        let appBytes = scene.app.withUnsafeBytes { Array($0) }
        let micBytes = scene.mic.withUnsafeBytes { Array($0) }
        appBytes.withUnsafeBytes { app in
          micBytes.withUnsafeBytes { mic in
            AllocCounting.setEnabled(true)
            var a0: UInt64?
            while at + 480 <= scene.mic.count {
              if at >= 48_000 && a0 == nil { a0 = AllocCounting.events }
              let time = MediaTime(value: Int64(at), timescale: 48_000)
              let t0 = CaptureScene.threadCPU()
              let bytes = (4 * at)..<(4 * at + 1_920)
              _ = try? p.append(
                .app, UnsafeRawBufferPointer(rebasing: app[bytes]), description: d, time: time)
              _ = try? p.append(
                .mic, UnsafeRawBufferPointer(rebasing: mic[bytes]), description: d, time: time)
              _ = out.withUnsafeMutableBufferPointer { p.pull(into: $0) }
              let t1 = CaptureScene.threadCPU()
              if a0 != nil { times.append(Double(t1 - t0) * 1e-3) }
              at += 480
            }
            allocations += AllocCounting.events - (a0 ?? AllocCounting.events)
            AllocCounting.setEnabled(false)
          }
        }
        times.sort()
        p50 = min(p50, times[times.count / 2])
        p99 = min(p99, times[min(times.count - 1, times.count * 99 / 100)])
        retained = p.retainedBytes
      }
      table.row([
        name, fixed(p50, 1), fixed(p99, 1), allocCounterWorks ? "\(allocations)" : "n/a",
        fixed(Double(retained) / 1024, 0),
      ])
      report.record(section, "pipeline/\(key)", "pull_p50", p50, "us")
      report.record(section, "pipeline/\(key)", "pull_p99", p99, "us")
      report.record(
        section, "pipeline/\(key)", "allocations", Double(allocations), "count")
      report.record(
        section, "pipeline/\(key)", "retained", Double(retained), "bytes")
    }
  }
}

extension EchoScene {
  /// The talker as the mic hears them: with the room's noise, the mic without its echo (a
  /// perfect canceller's output).
  var heardTalker: [Float] { zip(talker, noise).map(+) }
}
