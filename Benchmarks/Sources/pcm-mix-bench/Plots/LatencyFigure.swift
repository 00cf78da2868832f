#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Figure 3: how long a capture callback takes (append + mix), as the benchmark's capture
/// section measures it, drawn as the fraction of callbacks slower than each time (a CCDF, both
/// axes logarithmic: the median is where a line crosses 50 %, the tail is the rest).
enum LatencyFigure {
  static let file = "plot-callback-latency.svg"
  /// The capture section's rows drawn, with their legend names and lines (the presets' hues
  /// of the response figures; AVX2 kernels dashed).
  static let rows: [(row: String, label: String, hue: Double, dash: String?)] = [
    ("builtin-fast", "built-in fast", 25, nil),
    ("builtin-balanced", "built-in balanced (default)", 265, nil),
    ("builtin-high", "built-in high", 145, nil),
    ("builtin-fast-avx2+fma", "built-in fast, AVX2", 25, "6 3"),
    ("builtin-balanced-avx2+fma", "built-in balanced, AVX2", 265, "6 3"),
    ("src-best", "libsamplerate best", 85, "2 2"),
  ]

  static func make(seconds: Double) -> SVGDocument {
    let window = min(1.0, seconds / 2)
    let events = CaptureScene.schedule(seconds: seconds)
    let pools = CaptureScene.Pools()
    defer { pools.deallocate() }
    let load = Machine.loadAverage
    let table = Table(columns: [
      ("backend", 26), ("callbacks", 9), ("p50 us", 7), ("p99 us", 7), ("p99.9 us", 8),
      ("max us", 8), ("preempted", 9),
    ])
    table.start(
      "Callback latency: the capture scene, \(fixed(seconds, 0)) s, callbacks after the first "
        + "\(fixed(window, 1)) s; load average \(fixed(load, 2)) at the start")
    var series: [Series] = []
    var preempted = 0
    let backends = Backend.pipelineBackends
    for row in rows {
      guard let factory = backends.first(where: { $0.name == row.0 })?.factory else { continue }
      // Warm-up on a separate pipeline, as the capture section does.
      let warm = events.prefix { $0.time <= min(2, seconds) }
      _ = CaptureScene.scene(Array(warm), pools: pools, factory: factory, window: window)
      let run = CaptureScene.scene(events, pools: pools, factory: factory, window: window)
      let micros = run.latencies[run.firstWindow...].map { Double($0) * 1e-3 }
      let s = Summary(micros)
      table.row([
        row.1, "\(micros.count)", fixed(s.median, 2), fixed(s.p99, 2), fixed(s.p999, 2),
        fixed(s.max, 1), "\(run.preemptions)",
      ])
      preempted += run.preemptions
      let style = SeriesStyle(color: Colors.series(hue: row.hue), dash: row.dash)
      series.append(Series(name: row.1, style: style, points: ccdf(micros)))
    }
    return draw(
      series, seconds: seconds, window: window, callbacks: events.count,
      context: "load average \(fixed(load, 1)), \(preempted) involuntary context switches")
  }

  /// `fraction` as a percentage with as many decimals as it needs: `100 %`, `0.01 %`.
  static func percent(_ fraction: Double) -> String {
    let p = fraction * 100
    let decimals = p >= 1 ? 0 : Int(-log10(p).rounded(.up))
    return fixed(p, decimals) + " %"
  }

  /// Points (time, fraction of callbacks slower) at 200 fractions spaced evenly in log from 1
  /// down to one callback, and the slowest callback.
  static func ccdf(_ values: [Double]) -> [(x: Double, y: Double)] {
    let sorted = values.sorted()
    let n = Double(sorted.count)
    guard sorted.count > 1 else { return [] }
    var points: [(x: Double, y: Double)] = []
    for k in 0..<200 {
      let fraction = pow(1 / n, Double(k) / 199)
      // The value a `fraction` of callbacks exceed or reach.
      let rank = min(sorted.count - 1, max(0, Int((n * (1 - fraction)).rounded(.down))))
      points.append((sorted[rank], fraction))
    }
    return points
  }

  static func draw(
    _ series: [Series], seconds: Double, window: Double, callbacks: Int, context: String
  ) -> SVGDocument {
    var svg = SVGDocument(width: 800, height: 560, title: "Capture callback latency")
    let top = drawHeading(
      "Capture callback latency: append + mix, per callback",
      notes: [
        "The benchmark's capture scene: \(svgNumber(seconds)) s of 44.1 kHz stereo s16be app and "
          + "32 kHz mono s16le mic audio in 1,024-frame buffers (\(callbacks) callbacks)",
        "into CapturePipeline; the wall time of each callback after the first "
          + "\(svgNumber(window)) s, on this project's shared \(Machine.cores)-core machine",
        "(\(Machine.cpuModel); \(context) during the runs).",
      ], in: &svg)
    let all = series.flatMap { $0.points.map(\.x) }
    let lo = pow(10, log10(all.min() ?? 1).rounded(.down))
    let hi = pow(10, log10(all.max() ?? 1000).rounded(.up))
    let smallest = series.flatMap { $0.points.map(\.y) }.min() ?? 1e-4
    let panel = PlotPanel(
      id: "ccdf", left: 80, top: top + 66, width: 690, height: 360,
      x: PlotAxis(
        label: "callback time (wall clock)", range: lo...hi, scale: .log,
        format: { $0 < 1_000 ? svgNumber($0) + " µs" : svgNumber($0 / 1_000) + " ms" }),
      y: PlotAxis(
        label: "callbacks slower than that", range: pow(10, log10(smallest).rounded(.down))...1,
        scale: .log,
        format: percent))
    drawLegend(
      series.map { (name: $0.name, style: $0.style) }, left: 90, top: top + 6, columnWidth: 230,
      columns: 3, in: &svg)
    panel.drawFrame(&svg)
    for s in series { panel.draw(s, in: &svg) }
    return svg
  }
}
