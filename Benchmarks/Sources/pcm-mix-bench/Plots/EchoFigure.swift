import CEchoPeers
import Foundation
import PCMMix
import PCMMixTestSupport

/// The echo figure: spectrograms of one echo scene's mic and of what each canceller made of it,
/// double talk marked. Whatever is left where the app plays alone is residual echo; where the
/// talker speaks, the talker should stay whole.
enum EchoFigure {
  static let file = "plot-echo-spectrogram.svg"
  static let fftSize = 1_024
  static let columns = 400
  static let rows = 120
  static let floorDB = -110.0
  /// The scene: speech through a 120 ms output latency into an RT60 0.5 s room.
  static let latency = 0.12
  static let room = "rt05"

  static func make() -> SVGDocument {
    let analyzer = SpectrumAnalyzer(size: fftSize)
    var svg = SVGDocument(width: 920, height: 700, title: "Echo cancellation, spectrograms")
    guard
      let scene = try? EchoScene(
        content: .speech, outputLatency: latency, room: room, nonlinear: false,
        assets: URL(fileURLWithPath: EchoBench.assets))
    else {
      _ = drawHeading("The echo scene's assets are missing", notes: [], in: &svg)
      return svg
    }
    var panels: [(String, [Float])] = [("mic (app echo + talker)", scene.mic)]
    panels.append(("PCMMix", scene.cancelled().output))
    let n = scene.mic.count
    for (label, peer) in [("speexdsp (MDF + preprocess)", 0), ("WebRTC 0.3 (classic AEC)", 1)] {
      var out = [Float](repeating: 0, count: n)
      var seconds = 0.0
      let status = scene.app.withUnsafeBufferPointer { a in
        scene.mic.withUnsafeBufferPointer { m in
          out.withUnsafeMutableBufferPointer { o in
            peer == 0
              ? echo_peer_speex(
                a.baseAddress, m.baseAddress, n, Int32(EchoScene.rate), o.baseAddress, &seconds)
              : echo_peer_webrtc(
                a.baseAddress, m.baseAddress, n, Int32(EchoScene.rate), o.baseAddress, &seconds)
          }
        }
      }
      if status == 0 { panels.append((label, out)) }
    }
    let top = drawHeading(
      "The app's echo taken out of the mic: \(scene.name)",
      notes: [
        "App speech through a loudspeaker 120 ms late into a room of RT60 0.5 s; the phone is "
          + "moved at 11 s (a new echo path).",
        "A talker speaks over the app 6–9 s and 14–17 s (double talk, framed in red) and alone "
          + "17–19 s; the app is quiet 17–19 s.",
        "\(fftSize)-point spectra over 20 s, \(columns) columns; 0–8 kHz. `pcm-mix-bench --plots "
          + "DIR --filter echo` draws it; `--filter echo` measures the table.",
      ], in: &svg)
    let palette = (0..<256).map { Colors.map(Double($0) / 255) }
    let seconds = Double(n) / Double(EchoScene.rate)
    for (i, (label, signal)) in panels.enumerated() {
      let levels = spectrogram(signal, analyzer: analyzer)
      let panel = PlotPanel(
        id: "echo\(i)", left: 60 + Double(i % 2) * 420, top: top + 28 + Double(i / 2) * 260,
        width: Double(columns), height: Double(rows) * 1.5,
        x: PlotAxis(label: "time (s)", range: 0...seconds, ticks: [0, 5, 10, 15, 20]),
        y: PlotAxis(
          label: "frequency (kHz)", range: 0...8_000, ticks: [0, 2_000, 4_000, 6_000, 8_000],
          format: { svgNumber($0 / 1000) }))
      svg.open("g", ["data-series": label])
      svg.element(
        "image",
        [
          "x": svgNumber(panel.left), "y": svgNumber(panel.top), "width": svgNumber(panel.width),
          "height": svgNumber(panel.height), "preserveAspectRatio": "none",
          "href": "data:image/png;base64,"
            + IndexedPNG.base64(
              SpectrogramFigure.image(
                levels, bins: levels[0].count, rows: rows, floorDB: floorDB, palette
              ).bytes),
        ])
      svg.close()
      for span in EchoScene.doubleTalk {
        let x0 = panel.left + panel.width * span.lowerBound / seconds
        let x1 = panel.left + panel.width * span.upperBound / seconds
        svg.element(
          "rect",
          [
            "x": svgNumber(x0), "y": svgNumber(panel.top + 1), "width": svgNumber(x1 - x0),
            "height": svgNumber(panel.height - 2), "fill": "none", "stroke": "#d62728",
            "stroke-width": "2",
          ])
      }
      panel.drawFrame(&svg, title: label, grid: false)
    }
    SpectrogramFigure.drawColorBar(
      palette, left: 480, top: top + 28 + 2 * 260 + 10, floorDB: floorDB, in: &svg)
    return svg
  }

  /// Level (dB re full scale) per column and bin below 8 kHz.
  static func spectrogram(_ x: [Float], analyzer: SpectrumAnalyzer) -> [[Double]] {
    let hop = (x.count - fftSize) / (columns - 1)
    let top = fftSize * 8_000 / EchoScene.rate
    return x.withUnsafeBufferPointer { samples in
      (0..<columns).map { c in
        analyzer.power(samples, start: c * hop)[0...top].map {
          20 * log10(max(2 * $0.squareRoot() / analyzer.windowSum, 1e-30))
        }
      }
    }
  }
}
