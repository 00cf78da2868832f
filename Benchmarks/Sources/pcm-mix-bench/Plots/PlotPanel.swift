#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One axis of a panel: its label (with the unit), range, scale and ticks.
struct PlotAxis {
  enum Scale {
    case linear
    /// Base-10 logarithmic; the range must be positive.
    case log
  }

  var label: String
  var range: ClosedRange<Double>
  var scale: Scale = .linear
  /// Labelled tick values; by default about six "nice" ones (1, 2 or 5 × 10ⁿ apart), or each
  /// decade on a log scale.
  var ticks: [Double]? = nil
  /// The text of a tick's label.
  var format: (Double) -> String = { svgNumber($0) }

  /// Where `v` falls along the axis, 0 at the start of the range and 1 at its end; nil when it
  /// cannot be placed (not finite, or not positive on a log scale).
  func fraction(_ v: Double) -> Double? {
    guard v.isFinite else { return nil }
    switch scale {
    case .linear:
      return (v - range.lowerBound) / (range.upperBound - range.lowerBound)
    case .log:
      guard v > 0 else { return nil }
      return log10(v / range.lowerBound) / log10(range.upperBound / range.lowerBound)
    }
  }

  var tickValues: [Double] {
    if let ticks { return ticks }
    switch scale {
    case .log:
      let first = Int(log10(range.lowerBound).rounded(.up))
      let last = Int(log10(range.upperBound).rounded(.down))
      return first <= last ? (first...last).map { pow(10, Double($0)) } : []
    case .linear:
      let span = range.upperBound - range.lowerBound
      let raw = span / 6
      let magnitude = pow(10, log10(raw).rounded(.down))
      let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
      let first = (range.lowerBound / step).rounded(.up)
      let last = (range.upperBound / step).rounded(.down)
      return first <= last ? (Int(first)...Int(last)).map { Double($0) * step } : []
    }
  }
}

/// How a series is drawn.
struct SeriesStyle {
  var color: Colors.RGB
  var width = 1.6
  /// An SVG `stroke-dasharray`, or nil for a solid line.
  var dash: String? = nil
}

/// A named line of (x, y) points; a point that cannot be placed breaks the line there.
struct Series {
  var name: String
  var style: SeriesStyle
  var points: [(x: Double, y: Double)]
}

/// A plotting area at a pixel rectangle of a document, with its two axes.
///
/// ``drawFrame(_:title:)`` writes the grid, ticks, tick labels, axis labels and panel title;
/// ``draw(_:in:)`` writes one series as a `<path data-series="name">`, clipped to the area, so
/// a reader (or a test) finds each series by its name.
struct PlotPanel {
  /// Unique within the document: names the clip path.
  var id: String
  var left: Double
  var top: Double
  var width: Double
  var height: Double
  var x: PlotAxis
  var y: PlotAxis

  static let ink = "#222222"
  static let grid = "#dddddd"

  /// Pixel position of a data point, or nil when it cannot be placed. Far-off points are held
  /// 10,000 px outside the area (the clip hides them; the line's direction barely changes).
  func pixel(_ px: Double, _ py: Double) -> (x: Double, y: Double)? {
    guard let fx = x.fraction(px), let fy = y.fraction(py) else { return nil }
    let limit = 10_000.0
    return (
      min(max(left + fx * width, -limit), limit), min(max(top + (1 - fy) * height, -limit), limit)
    )
  }

  /// The grid (unless `grid` is false), the frame, the ticks with their labels, the axis
  /// labels and `title` above.
  func drawFrame(_ svg: inout SVGDocument, title: String? = nil, grid: Bool = true) {
    svg.open("defs")
    svg.open("clipPath", ["id": id + "-clip"])
    svg.element(
      "rect",
      [
        "x": svgNumber(left), "y": svgNumber(top), "width": svgNumber(width),
        "height": svgNumber(height),
      ])
    svg.close()
    svg.close()
    var gridPath = ""
    var tickPath = ""
    svg.open("g", ["font-size": "11", "fill": Self.ink])
    for v in x.tickValues {
      guard let f = x.fraction(v), (-1e-9...(1 + 1e-9)).contains(f) else { continue }
      let px = svgNumber(left + f * width)
      gridPath += "M\(px) \(svgNumber(top))V\(svgNumber(top + height))"
      tickPath += "M\(px) \(svgNumber(top + height))v4"
      svg.element(
        "text", ["x": px, "y": svgNumber(top + height + 16), "text-anchor": "middle"],
        text: x.format(v))
    }
    for v in y.tickValues {
      guard let f = y.fraction(v), (-1e-9...(1 + 1e-9)).contains(f) else { continue }
      let py = svgNumber(top + (1 - f) * height)
      gridPath += "M\(svgNumber(left)) \(py)H\(svgNumber(left + width))"
      tickPath += "M\(svgNumber(left)) \(py)h-4"
      svg.element(
        "text", ["x": svgNumber(left - 7), "y": py, "dy": "0.35em", "text-anchor": "end"],
        text: y.format(v))
    }
    svg.close()
    if grid { svg.element("path", ["d": gridPath, "stroke": Self.grid, "fill": "none"]) }
    svg.element("path", ["d": tickPath, "stroke": Self.ink, "fill": "none"])
    svg.element(
      "rect",
      [
        "x": svgNumber(left), "y": svgNumber(top), "width": svgNumber(width),
        "height": svgNumber(height), "fill": "none", "stroke": Self.ink,
      ])
    svg.element(
      "text",
      [
        "x": svgNumber(left + width / 2), "y": svgNumber(top + height + 34),
        "text-anchor": "middle", "fill": Self.ink,
      ], text: x.label)
    let cy = svgNumber(top + height / 2)
    svg.element(
      "text",
      [
        "x": svgNumber(left - 46), "y": cy, "text-anchor": "middle", "fill": Self.ink,
        "transform": "rotate(-90 \(svgNumber(left - 46)) \(cy))",
      ], text: y.label)
    if let title {
      svg.element(
        "text",
        [
          "x": svgNumber(left), "y": svgNumber(top - 8), "font-weight": "bold",
          "fill": Self.ink,
        ], text: title)
    }
  }

  /// Writes `series` as one `<path data-series="…">` clipped to the area.
  func draw(_ series: Series, in svg: inout SVGDocument) {
    var d = ""
    var pen = false
    for p in series.points {
      guard let q = pixel(p.x, p.y) else {
        pen = false
        continue
      }
      d += (pen ? "L" : "M") + svgNumber(q.x) + " " + svgNumber(q.y)
      pen = true
    }
    var attributes: SVGAttributes = [
      "data-series": series.name, "d": d, "fill": "none", "stroke": series.style.color.hex,
      "stroke-width": svgNumber(series.style.width), "stroke-linejoin": "round",
      "clip-path": "url(#\(id)-clip)",
    ]
    attributes.set("stroke-dasharray", series.style.dash)
    svg.element("path", attributes)
  }

  /// A grey band across the area from the bottom of the y range up to `level`, labelled at its
  /// right end: the region the measurement cannot resolve.
  func floorBand(below level: Double, label: String, in svg: inout SVGDocument) {
    guard let edge = pixel(x.range.lowerBound, level) else { return }
    let y0 = max(top, min(top + height, edge.y))
    svg.element(
      "rect",
      [
        "data-floor": svgNumber(level), "x": svgNumber(left), "y": svgNumber(y0),
        "width": svgNumber(width), "height": svgNumber(top + height - y0), "fill": "#ececec",
      ])
    svg.element(
      "text",
      [
        "x": svgNumber(left + 4), "y": svgNumber(top + height - 4), "font-size": "10",
        "fill": "#666666",
      ], text: label)
  }

  /// A dashed vertical reference line at `value` of the x axis, labelled at its top (`row`
  /// lines down, so neighbouring labels do not overlap).
  func marker(x value: Double, label: String, row: Int = 0, in svg: inout SVGDocument) {
    guard let f = x.fraction(value), (0...1).contains(f) else { return }
    let px = svgNumber(left + f * width)
    svg.element(
      "path",
      [
        "d": "M\(px) \(svgNumber(top))V\(svgNumber(top + height))", "stroke": "#888888",
        "stroke-dasharray": "4 3", "fill": "none",
      ])
    svg.element(
      "text",
      [
        "x": px, "y": svgNumber(top + 12 + 12 * Double(row)), "dx": "3", "font-size": "10",
        "fill": "#666666",
      ], text: label)
  }
}

/// A legend: one line swatch and name per series, in rows of `columns`, from (`left`, `top`).
func drawLegend(
  _ entries: [(name: String, style: SeriesStyle)], left: Double, top: Double, columnWidth: Double,
  columns: Int, in svg: inout SVGDocument
) {
  svg.open("g", ["font-size": "12", "fill": PlotPanel.ink])
  for (i, entry) in entries.enumerated() {
    let x = left + Double(i % columns) * columnWidth
    let y = top + Double(i / columns) * 18
    var line: SVGAttributes = [
      "d": "M\(svgNumber(x)) \(svgNumber(y))h24", "stroke": entry.style.color.hex,
      "stroke-width": svgNumber(max(2, entry.style.width)), "fill": "none",
    ]
    line.set("stroke-dasharray", entry.style.dash)
    svg.element("path", line)
    svg.element(
      "text", ["x": svgNumber(x + 30), "y": svgNumber(y), "dy": "0.35em"], text: entry.name)
  }
  svg.close()
}

/// A figure's title line and, below it, smaller lines saying what was measured; returns the
/// y coordinate below the last line.
@discardableResult
func drawHeading(_ title: String, notes: [String], in svg: inout SVGDocument) -> Double {
  svg.element(
    "text",
    ["x": "16", "y": "24", "font-size": "16", "font-weight": "bold", "fill": PlotPanel.ink],
    text: title)
  var y = 24.0
  for line in notes {
    y += 15
    svg.element(
      "text", ["x": "16", "y": svgNumber(y), "font-size": "11", "fill": "#555555"], text: line)
  }
  return y + 8
}
