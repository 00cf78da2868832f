#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Figure 2: a logarithmic sine sweep through each converter, 96 → 44.1 kHz, as a spectrogram
/// (the picture src.infinitewave.ca compares converters by): the sweep rises to the output's
/// Nyquist frequency and leaves; everything else in the picture is what the converter added,
/// aliases first of all (lines falling back from the top as the sweep goes on above it).
enum SpectrogramFigure {
  static let file = "plot-spectrogram-96000-44100.svg"
  static let inRate = 96_000
  static let outRate = 44_100
  static let seconds = 8.0
  /// −0.1 dBFS.
  static let amplitude = 0.988_553
  static let startHz = 20.0
  /// Raised-cosine fades at both ends, so the sweep's start and end add no clicks.
  static let fade = 0.05
  static let fftSize = 2_048
  static let columns = 320
  static let rows = 150
  /// The colour map's span: −180 dB (darkest) to 0 dB (lightest).
  static let floorDB = -180.0

  /// The sweep's instantaneous frequency at `t` seconds: 20 Hz to the input's Nyquist.
  static func frequency(at t: Double) -> Double {
    startHz * pow(Double(inRate) / 2 / startHz, t / seconds)
  }

  /// The input sweep, sample `n`.
  static func sweep(_ n: Int) -> Double {
    let t = Double(n) / Double(inRate)
    let k = log(Double(inRate) / 2 / startHz)
    let phase = 2 * Double.pi * startHz * seconds / k * (exp(k * t / seconds) - 1)
    let edge = min(t, seconds - t) / fade
    let gain = edge >= 1 ? 1 : 0.5 - 0.5 * cos(Double.pi * max(0, edge))
    return amplitude * gain * sin(phase)
  }

  /// Level (dB re full scale) per STFT column and bin `0 ... fftSize / 2` of `output`.
  static func spectrogram(_ output: [Float], analyzer: SpectrumAnalyzer) -> [[Double]] {
    let hop = (output.count - fftSize) / (columns - 1)
    return output.withUnsafeBufferPointer { samples in
      (0..<columns).map { c in
        analyzer.power(samples, start: c * hop).map {
          20 * log10(max(2 * $0.squareRoot() / analyzer.windowSum, 1e-30))
        }
      }
    }
  }

  static func make() -> SVGDocument {
    let analyzer = SpectrumAnalyzer(size: fftSize)
    let frames = Int(seconds * Double(inRate))
    let table = Table(columns: [("converter", 20), ("strongest other <20k dB", 23), ("s", 5)])
    table.start(
      "Spectrogram: a log sweep 20 Hz -> 48 kHz at -0.1 dBFS, \(fixed(seconds, 0)) s, "
        + "\(inRate) -> \(outRate) Hz; strongest other: the loudest bin below 20 kHz more than "
        + "1 kHz from the sweep, once the sweep has passed 1 kHz")
    var panels: [(PlotBackend, [[Double]])] = []
    for backend in PlotBackend.compared {
      let t0 = nowNS()
      guard var r = backend.backend.make(inRate, outRate, 1) else { continue }
      let out = ResamplerTable.stream(&r, frames: frames, signal: sweep).output
      let levels = spectrogram(out, analyzer: analyzer)
      panels.append((backend, levels))
      table.row([
        backend.label, fixed(strongestOther(levels, samples: out.count), 1),
        fixed(Double(nowNS() - t0) * 1e-9, 1),
      ])
    }
    return draw(panels)
  }

  /// The loudest bin below 20 kHz more than 1 kHz away from the sweep's frequency, over the
  /// columns where the sweep is past 1 kHz (the start's fade spreads a little energy).
  static func strongestOther(_ levels: [[Double]], samples: Int) -> Double {
    let hop = (samples - fftSize) / (columns - 1)
    let binHz = Double(outRate) / Double(fftSize)
    var worst = -Double.infinity
    for (c, column) in levels.enumerated() {
      let f = frequency(at: (Double(c * hop) + Double(fftSize) / 2) / Double(outRate))
      guard f > 1_000 else { continue }
      for (k, level) in column.enumerated() where Double(k) * binHz < 20_000 {
        if abs(Double(k) * binHz - f) > 1_000 { worst = max(worst, level) }
      }
    }
    return worst
  }

  static func draw(_ panels: [(PlotBackend, [[Double]])]) -> SVGDocument {
    var svg = SVGDocument(
      width: 800, height: 880, title: "Spectrogram of a sine sweep, 96 → 44.1 kHz")
    let top = drawHeading(
      "A sine sweep through each converter, 96 kHz → 44.1 kHz",
      notes: [
        "Logarithmic sweep 20 Hz → 48 kHz over \(svgNumber(seconds)) s at −0.1 dBFS; "
          + "\(fftSize)-point Kaiser-windowed FFT of the output, \(columns) columns, each row the "
          + "loudest of its bins.",
        "The sweep rises to 22.05 kHz and leaves the band; anything else is what the converter "
          + "added (aliases fold back from the top).",
      ], in: &svg)
    let palette = (0..<256).map { Colors.map(Double($0) / 255) }
    for (i, (backend, levels)) in panels.enumerated() {
      let panel = PlotPanel(
        id: "sweep\(i)", left: 60 + Double(i % 2) * 400, top: top + 28 + Double(i / 2) * 200,
        width: Double(columns), height: Double(rows),
        x: PlotAxis(label: "time (s)", range: 0...seconds, ticks: [0, 2, 4, 6, 8]),
        y: PlotAxis(
          label: "frequency (kHz)", range: 0...Double(outRate) / 2,
          ticks: [0, 5_000, 10_000, 15_000, 20_000], format: { svgNumber($0 / 1000) }))
      svg.open("g", ["data-series": backend.label])
      svg.element(
        "image",
        [
          "x": svgNumber(panel.left), "y": svgNumber(panel.top), "width": svgNumber(panel.width),
          "height": svgNumber(panel.height), "preserveAspectRatio": "none",
          "href": "data:image/png;base64," + IndexedPNG.base64(image(levels, palette).bytes),
        ])
      svg.close()
      panel.drawFrame(&svg, title: backend.label, grid: false)
    }
    drawColorBar(palette, left: 460, top: top + 28 + 3 * 200 + 40, in: &svg)
    return svg
  }

  /// The grid as a palette image: a row per `rows`th of the band (the loudest of its bins),
  /// highest frequency on top.
  static func image(_ levels: [[Double]], _ palette: [Colors.RGB]) -> IndexedPNG {
    image(levels, bins: fftSize / 2, rows: rows, floorDB: floorDB, palette)
  }

  /// `levels` (a column per time, `bins` bins of each drawn) as `rows` rows of a palette image
  /// spanning `floorDB` … 0 dB, each row the loudest of its bins, highest frequency on top.
  static func image(
    _ levels: [[Double]], bins: Int, rows: Int, floorDB: Double, _ palette: [Colors.RGB]
  ) -> IndexedPNG {
    let columns = levels.count
    var pixels = [UInt8](repeating: 0, count: columns * rows)
    for (c, column) in levels.enumerated() {
      for row in 0..<rows {
        let lo = row * bins / rows
        let hi = max(lo + 1, (row + 1) * bins / rows)
        let level = column[lo..<hi].max()!
        let t = (level - floorDB) / -floorDB
        pixels[(rows - 1 - row) * columns + c] = UInt8(min(max(t, 0), 1) * 255)
      }
    }
    return IndexedPNG(width: columns, height: rows, pixels: pixels, palette: palette)
  }

  /// A horizontal bar of the colour map with its dB scale.
  static func drawColorBar(
    _ palette: [Colors.RGB], left: Double, top: Double, floorDB: Double = floorDB,
    in svg: inout SVGDocument
  ) {
    let width = 300.0
    svg.element(
      "text", ["x": svgNumber(left), "y": svgNumber(top - 10), "fill": PlotPanel.ink],
      text: "level (dB re full scale)")
    svg.open("g", ["shape-rendering": "crispEdges"])
    for (i, colour) in palette.enumerated() where i % 4 == 0 {
      svg.element(
        "rect",
        [
          "x": svgNumber(left + width * Double(i) / 256), "y": svgNumber(top),
          "width": svgNumber(width * 4 / 256 + 0.5), "height": "16", "fill": colour.hex,
        ])
    }
    svg.close()
    for db in stride(from: floorDB, through: 0, by: floorDB < -150 ? 30 : 10) {
      let x = svgNumber(left + width * (db - floorDB) / -floorDB)
      svg.element("path", ["d": "M\(x) \(svgNumber(top + 16))v4", "stroke": PlotPanel.ink])
      svg.element(
        "text",
        [
          "x": x, "y": svgNumber(top + 32), "text-anchor": "middle", "font-size": "11",
          "fill": PlotPanel.ink,
        ], text: svgNumber(db))
    }
  }
}
