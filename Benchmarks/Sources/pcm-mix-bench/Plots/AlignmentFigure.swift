import PCMMixTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Figure 4: where each source's audio lands over a simulated hour (the timing section's hour:
/// mic clock 300 ppm fast, app 20 ppm slow, jittered delivery, a marker every 20 s per source),
/// placed the four ways of the drift scene: the clocked pipeline steered by its stamps (the
/// default), the same unsteered, stamped once then counted, and today's untimed mixer.
enum AlignmentFigure {
  static let file = "plot-alignment-hour.svg"
  /// ±2 s of output frames: the counted placements drift by more than a second in an hour.
  static let radius = 96_000

  static let labels: [TimingScenes.Placement: String] = [
    .steered: "steered (default)", .unsteered: "unsteered", .stampedOnce: "stamped once, counted",
    .today: "CapturePipeline (untimed)",
  ]

  static func make(minutes: Double) -> SVGDocument {
    let seconds = minutes * 60
    let (app, mic) = TimingScenes.hourSources(seconds: seconds)
    let table = Table(columns: [
      ("placement", 26), ("app p50 ms", 10), ("app max ms", 10), ("mic p50 ms", 10),
      ("mic max ms", 10), ("missing", 7), ("s", 5),
    ])
    table.start(
      "Alignment: \(fixed(minutes, 0)) minutes, mic +300 ppm, app -20 ppm; marker error "
        + "(found - expected host time), searched +-\(radius / 48) ms")
    var series: [TimingScenes.Placement: [Series]] = [:]
    for (i, placement) in TimingScenes.Placement.allCases.enumerated() {
      let t0 = nowNS()
      let r = TimingScenes.place(placement, app: app, mic: mic, seconds: seconds, radius: radius)
      let label = labels[placement]!
      table.row([
        label, fixed(r.app.p50AbsError, 3), fixed(r.app.maxAbsError, 3),
        fixed(r.mic.p50AbsError, 3), fixed(r.mic.maxAbsError, 3),
        "\(r.app.missing + r.mic.missing)", fixed(Double(nowNS() - t0) * 1e-9, 1),
      ])
      let colour = Colors.series(i, of: TimingScenes.Placement.allCases.count)
      // The first of each panel's pair drawn wider, so a line the second covers still shows.
      let width = i % 2 == 0 ? 3.0 : 1.5
      series[placement] = [(app, r.app, "app", "5 3"), (mic, r.mic, "mic", nil)].map {
        source, report, side, dash in
        let times = source.markers.sorted()
        let points = zip(times, report.errors).map { (x: $0 / 60, y: $1 ?? .nan) }
        return Series(
          name: "\(label) \(side)", style: SeriesStyle(color: colour, width: width, dash: dash),
          points: points)
      }
    }
    return draw(series, minutes: minutes)
  }

  static func draw(_ series: [TimingScenes.Placement: [Series]], minutes: Double) -> SVGDocument {
    var svg = SVGDocument(width: 800, height: 820, title: "Alignment over a simulated hour")
    let top = drawHeading(
      "Where the audio lands: marker error over \(svgNumber(minutes)) simulated minutes",
      notes: [
        "Simulated capture (44.1 kHz stereo app, 20 ppm slow; 32 kHz mono mic, 300 ppm fast; "
          + "1,024-frame buffers, 3 ms jitter), a marker every 20 s per source;",
        "error = where the marker is found in the 48 kHz output − its host time "
          + "(the untimed mixer's output is put on the host clock at its first app marker).",
      ], in: &svg)
    let panels: [([TimingScenes.Placement], String, String)] = [
      ([.steered, .unsteered], "near", "Clocked pipeline, placed by its stamps (ms)"),
      ([.stampedOnce, .today], "far", "Placed by count after the start (ms)"),
    ]
    var panelTop = top + 70
    for (placements, id, title) in panels {
      let drawn = placements.flatMap { series[$0] ?? [] }
      drawLegend(
        drawn.map { (name: $0.name, style: $0.style) }, left: 80, top: panelTop - 50,
        columnWidth: 345, columns: 2, in: &svg)
      let values = drawn.flatMap { $0.points.map(\.y) }.filter(\.isFinite)
      let high = niceCeiling(max(values.max() ?? 1, 1e-3) * 1.05)
      let low = -niceCeiling(max(-(values.min() ?? -1), 1e-3) * 1.05)
      let panel = PlotPanel(
        id: id, left: 80, top: panelTop, width: 690, height: 250,
        x: PlotAxis(
          label: "capture time (min)", range: 0...minutes,
          ticks: stride(from: 0, through: minutes, by: minutes >= 30 ? 10 : 1).map { $0 }),
        y: PlotAxis(label: "marker error (ms)", range: low...high))
      panel.drawFrame(&svg, title: title)
      for s in drawn { panel.draw(s, in: &svg) }
      panelTop += 250 + 120
    }
    return svg
  }

  /// The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10ⁿ) at least `x`.
  static func niceCeiling(_ x: Double) -> Double {
    let magnitude = pow(10, log10(x).rounded(.down))
    return [1.0, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map { $0 * magnitude }.first { $0 >= x }
      ?? 10 * magnitude
  }
}
