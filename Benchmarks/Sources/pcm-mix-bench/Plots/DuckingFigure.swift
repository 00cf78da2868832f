import Foundation
import PCMMix
import PCMMixTestSupport

/// The ducking figure: the app's gain as it enters the mix (its stem against the raw app, per
/// 20 ms frame) over one echo scene, with the talker's activity shaded. The app should sit at
/// 0 dB while only it plays (its echo in the mic must not duck it) and about −10 dB while the
/// talker speaks.
enum DuckingFigure {
  static let file = "plot-ducking-gain.svg"
  /// The runs drawn: echo cancellation on and off over the speaker scene, and headphones.
  static let runs: [(label: String, cancel: Bool, headphones: Bool, hue: Double)] = [
    ("echo cancelled", true, false, 265),
    ("cancellation off", false, false, 25),
    ("headphones", false, true, 145),
  ]

  static func make() -> SVGDocument {
    var svg = SVGDocument(width: 900, height: 560, title: "Ducking: the app's gain")
    var series: [Series] = []
    var notes: [String] = []
    var talking: [Bool] = []
    for run in runs {
      guard
        let scene = try? EchoScene(
          content: .speech, outputLatency: 0.12, room: "rt05", nonlinear: false,
          headphones: run.headphones, assets: URL(fileURLWithPath: EchoBench.assets)),
        let out = try? scene.throughPipeline(
          run.cancel ? EchoCancellation() : nil, ducking: Ducking())
      else { continue }
      let m = DuckingMetrics(scene: scene, appStem: out.appStem)
      talking = m.frames.map(\.talking)
      let points = m.frames.enumerated().map {
        (x: Double($0.offset) / 50, y: $0.element.gainDB ?? .nan)
      }
      series.append(
        Series(
          name: run.label, style: SeriesStyle(color: Colors.series(hue: run.hue)), points: points))
      let q = DuckingMetrics.quantile
      // Rounded to a tenth first, so that −0.04 reads 0.0.
      let db = { (x: Double) in fixed((x * 10).rounded() / 10 + 0, 1) + " dB" }
      notes.append(
        "\(run.label): app alone, median \(db(q(m.appOnly, 0.5))), 5th percentile "
          + "\(db(q(m.appOnly, 0.05))) (\(db(q(m.appOnlyAwayFromTalk, 0.05))) from 0.9 s after "
          + "the talker on); talker speaking, median \(db(q(m.talking, 0.5))).")
    }
    guard !series.isEmpty else {
      _ = drawHeading("The echo scene's assets are missing", notes: [], in: &svg)
      return svg
    }
    let top = drawHeading(
      "Ducking: the app's gain as it enters the mix, per 20 ms",
      notes: [
        "App speech through a loudspeaker 120 ms late into a room of RT60 0.5 s, or headphones; a "
          + "talker speaks 6–9 s and 14–19 s (shaded),",
        "alone while the app is quiet 17–19 s; the phone is moved at 11 s. Default depth 10 dB. "
          + "With cancellation off the detector still knows the app.",
      ] + notes + ["`pcm-mix-bench --plots DIR --filter ducking` draws it."], in: &svg)
    let panel = PlotPanel(
      id: "ducking", left: 70, top: top + 40, width: 790, height: 300,
      x: PlotAxis(
        label: "time (s)", range: 0...20, ticks: [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]),
      y: PlotAxis(label: "app gain (dB)", range: -14...2, ticks: [-12, -10, -8, -6, -4, -2, 0, 2]))
    // The talker's frames, shaded.
    var f = 0
    while f < talking.count {
      guard talking[f] else {
        f += 1
        continue
      }
      var g = f
      while g < talking.count && talking[g] { g += 1 }
      let x0 = panel.left + panel.width * Double(f) / 50 / 20
      let x1 = panel.left + panel.width * Double(g) / 50 / 20
      svg.element(
        "rect",
        [
          "x": svgNumber(x0), "y": svgNumber(panel.top), "width": svgNumber(x1 - x0),
          "height": svgNumber(panel.height), "fill": "#f4cccc",
        ])
      f = g
    }
    panel.drawFrame(&svg)
    panel.marker(x: 11, label: "echo path changes", in: &svg)
    drawLegend(
      series.map { (name: $0.name, style: $0.style) }, left: 80, top: top + 6, columnWidth: 200,
      columns: 3, in: &svg)
    for s in series { panel.draw(s, in: &svg) }
    return svg
  }
}
