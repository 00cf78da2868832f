/// Figure 1: each resampler's magnitude response, full range and passband, on one conversion.
enum ResponseFigure {
  /// The conversions drawn: app audio into the pipeline's rate, and the downsampling every
  /// converter comparison shows (src.infinitewave.ca's 96 → 44.1 kHz).
  static let conversions = [(44_100, 48_000), (96_000, 44_100)]

  static func fileName(_ inRate: Int, _ outRate: Int) -> String {
    "plot-response-\(inRate)-\(outRate).svg"
  }

  /// Measures every compared converter and draws the figure; prints what it measured.
  static func make(inRate: Int, outRate: Int) -> SVGDocument {
    let analyzer = SpectrumAnalyzer(size: MeasuredResponse.analysisSize)
    let edge = Double(min(inRate, outRate)) / 2
    let floor = MeasuredResponse.floor(rate: outRate, analyzer: analyzer)
    var measured: [(PlotBackend, MeasuredResponse)] = []
    let table = Table(columns: [
      ("converter", 20), ("max |gain| to 20k dB", 20), ("-0.1 dB at Hz", 13),
      ("-3 dB at Hz", 11), ("worst <20k dB", 13), ("worst beyond dB", 15), ("s", 5),
    ])
    let tones = MeasuredResponse.tones(inRate: inRate, outRate: outRate).count
    table.start(
      "Response \(inRate) -> \(outRate) Hz: \(tones) stepped sines per converter; worst <20k: the strongest alias or image landing below "
        + "20 kHz; analysis floor \(fixed(floor, 1)) dB")
    for backend in PlotBackend.compared {
      let t0 = nowNS()
      guard
        let r = MeasuredResponse(
          backend.backend, inRate: inRate, outRate: outRate, analyzer: analyzer)
      else {
        table.row([backend.label, "refused"])
        continue
      }
      measured.append((backend, r))
      let flat = r.gain.filter { $0.x <= 20_000 }.map { abs($0.y) }.max() ?? .nan
      let tenth = r.gain.first { $0.y < -0.1 }?.x ?? .nan
      let threeDB = r.gain.first { $0.y < -3.01 }?.x ?? .nan
      let audible = zip(r.rejection, r.landsAt).filter { $0.1 < 20_000 }.map(\.0.y).max() ?? .nan
      table.row([
        backend.label, fixed(flat, 5), fixed(tenth, 0), fixed(threeDB, 0), fixed(audible, 1),
        fixed(r.rejection.map(\.y).max() ?? .nan, 1), fixed(Double(nowNS() - t0) * 1e-9, 1),
      ])
    }
    return draw(measured, inRate: inRate, outRate: outRate, edge: edge, floor: floor)
  }

  static func draw(
    _ measured: [(PlotBackend, MeasuredResponse)], inRate: Int, outRate: Int, edge: Double,
    floor: Double
  ) -> SVGDocument {
    let up = inRate < outRate
    let kHz = { (hz: Double) in svgNumber(hz / 1000) }
    var svg = SVGDocument(
      width: 800, height: 860,
      title: "Magnitude response, \(kHz(Double(inRate))) → \(kHz(Double(outRate))) kHz")
    let top = drawHeading(
      "Magnitude response, \(kHz(Double(inRate))) kHz → \(kHz(Double(outRate))) kHz",
      notes: [
        "Stepped sines at −6 dBFS, one fresh converter per tone, "
          + "\(MeasuredResponse.analysisSize) output samples after "
          + "\(svgNumber(MeasuredResponse.settle * 1000)) ms. "
          + "Below \(kHz(edge)) kHz: the tone's gain (sine fit).",
        up
          ? "Above: the strongest image a tone at \(kHz(Double(inRate))) kHz − f leaves (its image "
            + "at f; Kaiser-windowed FFT); above \(kHz(Double(outRate) / 2)) kHz it folds back to "
            + "\(kHz(Double(outRate))) kHz − f."
          : "Above: the strongest alias of the tone at f (Kaiser-windowed FFT), which folds back "
            + "into the band below \(kHz(Double(outRate) / 2)) kHz.",
      ], in: &svg)
    let entries = measured.map { (name: $0.0.label, style: $0.0.style) }
    drawLegend(entries, left: 80, top: top + 6, columnWidth: 175, columns: 4, in: &svg)
    let full = PlotPanel(
      id: "full", left: 70, top: top + 62, width: 710, height: 330,
      x: PlotAxis(
        label: "frequency f (kHz)", range: 0...Double(up ? inRate : inRate / 2),
        ticks: stride(from: 0.0, through: Double(up ? inRate : inRate / 2), by: 4_000).map { $0 },
        format: { svgNumber($0 / 1000) }),
      y: PlotAxis(
        label: "level (dB re the tone)", range: -180...10,
        ticks: stride(from: -180.0, through: 0, by: 20).map { $0 }))
    full.drawFrame(&svg, title: "Full range (dB)")
    full.floorBand(
      below: floor,
      label: "grey: below the analysis floor (beside a Float32 sine: \(fixed(floor, 1)) dB)",
      in: &svg)
    full.marker(x: edge, label: "\(kHz(edge)) kHz", in: &svg)
    if up {
      full.marker(
        x: Double(outRate) / 2, label: "\(kHz(Double(outRate) / 2)) kHz", row: 1, in: &svg)
    }
    for (backend, r) in measured {
      full.draw(
        Series(name: backend.label, style: backend.style, points: r.gain + r.rejection), in: &svg)
    }
    let zoom = PlotPanel(
      id: "passband", left: 70, top: full.top + full.height + 74, width: 710, height: 250,
      x: PlotAxis(
        label: "frequency f (kHz)", range: 0...edge,
        ticks: stride(from: 0.0, through: edge, by: 2_000).map { $0 },
        format: { svgNumber($0 / 1000) }),
      y: PlotAxis(
        label: "gain (dB)", range: -0.1...0.1,
        ticks: stride(from: -0.1, through: 0.1001, by: 0.02).map { $0 },
        format: { svgNumber($0) }))
    zoom.drawFrame(&svg, title: "Passband (dB, ±0.1 dB)")
    for (backend, r) in measured {
      zoom.draw(Series(name: backend.label, style: backend.style, points: r.gain), in: &svg)
    }
    return svg
  }
}
