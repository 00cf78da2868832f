import Foundation
import PCMMix
import PCMMixTestSupport

/// `ducking`: the default ducker (10 dB) on every scene of `EchoScene.matrix` (speech and music
/// through a loudspeaker, 30 and 120 ms, RT60 0.2 and 0.5 s, with and without clipping, the
/// phone moved at 11 s; headphones), with echo cancellation on and off, measured on the app stem
/// against the raw app per 20 ms frame (`DuckingMetrics`): where only the app plays, the median
/// and the 5th percentile of its gain (all such frames, and from 0.9 s after the talker, which
/// leaves out the ducker's own hold and release); while the talker speaks, the median; and the
/// slowest onset to −6 dB after 300 ms of silence. Then the same on the matrix with the app's
/// piece started later (`shifts`), with the talker 6 dB under the echo, and in a room 15 dB
/// noisier (`EchoScene`'s `noiseDB` −45), and with the pipeline's output at 16 kHz, at full
/// scale only.
enum DuckingBench {
  static let section = "ducking"
  /// The app's piece started this many seconds later: the echo bench's shifts (four of the
  /// seven were added after the ducker was first tuned).
  static let shifts = EchoBench.shifts

  static func run(_ options: Options, report: Report) {
    let modes = ["cancelled", "detect-only"]
    let url = URL(fileURLWithPath: EchoBench.assets)
    // `--filter ducking/16-khz`: ``atRate(_:_:assets:modes:report:)``'s table alone.
    if report.wants(section: section, row: "16-khz")
      && !report.wants(section: section, rows: modes)
    {
      return atRate(EchoBench.voiceRate, options, assets: url, modes: modes, report: report)
    }
    // `--filter ducking/other-rates`: the same table at `EchoBench.otherRates` (only when asked
    // for; about 65 s).
    if report.asksFor(section: section, row: "other-rates") {
      for rate in EchoBench.otherRates {
        atRate(rate, options, assets: url, modes: modes, report: report, every: true)
      }
      return
    }
    guard report.wants(section: section, rows: modes) else { return }
    guard var scenes = try? EchoScene.matrix(assets: url) else {
      warn("ducking: cannot read the scenes' assets in \(EchoBench.assets); section skipped")
      return
    }
    if options.scale < 1 { scenes = Array(scenes.prefix(2)) + scenes.suffix(1) }
    table(
      scenes, prefix: "", modes: modes, report: report,
      title: "Ducking (depth 10 dB), the app stem's gain per 20 ms frame against the raw app, on"
        + " the echo scenes; echo: cancellation on (cancelled) or off (the detector still knows"
        + " the app). alone: frames where only the app plays (median, 5th percentile, and 5th"
        + " percentile from 0.9 s after the talker, leaving out the ducker's hold and release);"
        + " talk p50: median while the talker speaks; onset: the slowest onset after 300 ms of"
        + " silence to reach -6 dB (\"-\" if one does not within 400 ms); hidden: onsets the"
        + " stem cannot time, the app falling silent before the duck shows (onset then counts"
        + " to the app's return), timed instead by the pipeline's duckingGainDB after each 10 ms"
        + " pull (ms to the end of the pull that left it at -6 dB or lower);"
        + " pumps: how often the"
        + " app came back above -6 dB while the talker was mid-sentence. Targets: p50 >= -0.5,"
        + " p5 >= -1.5, talk p50 <= -8.5, onsets <= 100.")
    guard options.scale >= 1 else { return }
    for shift in shifts {
      guard let shifted = try? EchoScene.matrix(assets: url, appShift: shift) else { return }
      table(
        shifted, prefix: "shifted/\(fixed(shift, 2))/", modes: modes, report: report,
        title: "Ducking on the same scenes with the app's piece started \(fixed(shift, 2)) s"
          + " later (other words and notes under the talker and in the app-alone spans; the"
          + " ducker was tuned on the first table's scenes). Columns as above; recorded as"
          + " shifted/\(fixed(shift, 2))/<scene>/<echo>.")
    }
    // The talker half as loud, and a noisier room (`EchoBench.noisyRoomDB`).
    let variants: [(prefix: String, talkerDB: Double, noiseDB: Double, what: String)] = [
      (
        "quiet-talker/", -6, -60,
        "with the talker 6 dB under the app's echo (half as loud; the first table's talker is"
          + " at the echo's level)"
      ),
      (
        "noisy-room/", 0, EchoBench.noisyRoomDB,
        "in a room 15 dB noisier (white noise at -45 dBFS instead of -60; the ducker was not"
          + " tuned on it)"
      ),
    ]
    for v in variants {
      guard
        let scenes = try? EchoScene.matrix(assets: url, talkerDB: v.talkerDB, noiseDB: v.noiseDB)
      else { return }
      table(
        scenes, prefix: v.prefix, modes: modes, report: report,
        title: "Ducking on the same scenes \(v.what). Columns as above; recorded as"
          + " \(v.prefix)<scene>/<echo>.")
    }
    atRate(EchoBench.voiceRate, options, assets: url, modes: modes, report: report)
  }

  /// The first table with the pipeline at `rate` (the ducker and the canceller run at the
  /// output rate, in blocks of their own, and were tuned at 48 kHz): the stems converted back
  /// to 48 kHz and measured against the scenes band-limited to that rate. Recorded as
  /// `16-khz/<scene>/<echo>` (`44.1-khz/…`); at full scale only. `every`: each of `modes`,
  /// whatever the filter.
  static func atRate(
    _ rate: Int, _ options: Options, assets: URL, modes: [String], report: Report,
    every: Bool = false
  ) {
    let khz = EchoBench.kilohertz(rate)
    guard options.scale >= 1, let scenes = try? EchoScene.matrix(assets: assets) else { return }
    table(
      scenes, prefix: "\(khz)-khz/", modes: modes, report: report, outputRate: rate, every: every,
      title: "Ducking on the same scenes with the pipeline's output at \(khz) kHz"
        + " (the stems converted back to 48 kHz, against the scenes band-limited the same"
        + " way). Columns as above; recorded as \(khz)-khz/<scene>/<echo>.")
  }

  /// One table: the default ducker on `scenes` in each of `modes`, recorded as
  /// `<prefix><scene>/<mode>`.
  static func table(
    _ scenes: [EchoScene], prefix: String, modes: [String], report: Report,
    outputRate: Int = EchoScene.rate, every: Bool = false, title: String
  ) {
    let table = Table(columns: [
      ("scene", 22), ("echo", 11), ("alone p50", 9), ("p5", 6), ("p5 away", 7), ("talk p50", 8),
      ("onset ms", 8), ("hidden", 7), ("pumps", 5),
    ])
    table.start(title)
    for scene in scenes {
      let heard = scene.bandLimited(to: outputRate)
      for mode in modes
      where every || report.wants(section: section, row: mode)
        || report.wants(section: section, row: prefix + mode)
      {
        guard
          let run = try? scene.throughPipeline(
            mode == "cancelled" ? EchoCancellation() : nil, ducking: Ducking(),
            outputRate: outputRate)
        else {
          table.row([scene.name, mode, "failed"])
          continue
        }
        let m = DuckingMetrics(
          scene: heard, appStem: run.appStem, duckingGain: run.duckingGain)
        let q = DuckingMetrics.quantile
        let onset = slowest(m.onsets)
        let hidden =
          m.hiddenOnsets.isEmpty
          ? "-"
          : m.hiddenOnsets.map { $0.map { fixed($0, 0) } ?? "never" }.joined(separator: " ")
        let values = [
          ("alone_p50", q(m.appOnly, 0.5)), ("alone_p5", q(m.appOnly, 0.05)),
          ("alone_p5_away", q(m.appOnlyAwayFromTalk, 0.05)), ("talk_p50", q(m.talking, 0.5)),
        ]
        // Rounded to a tenth first, so that −0.04 reads 0.0.
        table.row(
          [scene.name, mode] + values.map { fixed(($0.1 * 10).rounded() / 10 + 0, 1) }
            + [onset.map { fixed($0, 0) } ?? "-", hidden, "\(m.pumps)"])
        let name = prefix + "\(scene.name)/\(mode)"
        for (metric, value) in values { report.record(section, name, metric, value, "dB") }
        report.record(section, name, "slowest_onset", onset ?? .infinity, "ms")
        if !m.hiddenOnsets.isEmpty {
          report.record(section, name, "hidden_onsets", Double(m.hiddenOnsets.count), "count")
          report.record(
            section, name, "slowest_hidden_onset", slowest(m.hiddenOnsets) ?? .infinity, "ms")
        }
        report.record(section, name, "pumps", Double(m.pumps), "count")
      }
    }
  }

  /// The slowest of `onsets` (ms), or nil if one never reached −6 dB.
  static func slowest(_ onsets: [Double?]) -> Double? {
    onsets.contains { $0 == nil } ? nil : onsets.compactMap { $0 }.max()
  }
}
