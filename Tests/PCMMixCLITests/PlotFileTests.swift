import Foundation
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The figures `pcm-mix-bench --plots` wrote into the DocC catalog (`make plots`), as committed:
/// each parses as XML, is an `<svg>` with a title and its axis labels, and carries exactly its
/// series (`data-series` attributes), each with a non-trivial number of points.
@Suite struct PlotFileTests {
  /// One committed figure and what it must hold.
  struct Figure: Sendable, CustomTestStringConvertible {
    var file: String
    var series: [String]
    /// Points per series at least: path vertices, or pixels of an embedded grid.
    var minimumPoints: Int
    var labels: [String]

    var testDescription: String { file }
  }

  static let converters = [
    "built-in fast", "built-in balanced", "built-in high", "libsamplerate best", "soxr HQ",
    "soxr VHQ", "speexdsp 10",
  ]

  static let figures: [Figure] = [
    // 350 and 480 tones per converter: the full-range line and the passband line together.
    Figure(
      file: "plot-response-44100-48000.svg", series: converters, minimumPoints: 300,
      labels: ["frequency f (kHz)", "level (dB re the tone)", "gain (dB)"]),
    Figure(
      file: "plot-response-96000-44100.svg", series: converters, minimumPoints: 300,
      labels: ["frequency f (kHz)", "level (dB re the tone)", "gain (dB)"]),
    // A 320 × 150 grid per converter.
    Figure(
      file: "plot-spectrogram-96000-44100.svg", series: converters, minimumPoints: 10_000,
      labels: ["time (s)", "frequency (kHz)", "level (dB re full scale)"]),
    // 200 fractions per line.
    Figure(
      file: "plot-callback-latency.svg",
      series: [
        "built-in fast", "built-in balanced (default)", "built-in high", "built-in fast, AVX2",
        "built-in balanced, AVX2", "libsamplerate best",
      ], minimumPoints: 150, labels: ["callback time (wall clock)", "callbacks slower than that"]),
    // A marker every 20 s per source over the hour: 180 each.
    Figure(
      file: "plot-alignment-hour.svg",
      series: [
        "steered (default)", "unsteered", "stamped once, counted", "CapturePipeline (untimed)",
      ]
      .flatMap { [$0 + " app", $0 + " mic"] }, minimumPoints: 150,
      labels: ["capture time (min)", "marker error (ms)"]),
    // A 400 × 120 grid per signal.
    Figure(
      file: "plot-echo-spectrogram.svg",
      series: [
        "mic (app echo + talker)", "PCMMix", "speexdsp (MDF + preprocess)",
        "WebRTC 0.3 (classic AEC)",
      ], minimumPoints: 40_000, labels: ["time (s)", "frequency (kHz)", "level (dB re full scale)"]),
    // A gain per 20 ms frame over 20 s (none where the app is quiet).
    Figure(
      file: "plot-ducking-gain.svg", series: ["echo cancelled", "cancellation off", "headphones"],
      minimumPoints: 500, labels: ["time (s)", "app gain (dB)"]),
  ]

  /// `Sources/PCMMix/PCMMix.docc/Resources`, found from this file.
  static let resources = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/PCMMix/PCMMix.docc/Resources")

  /// Every `plot-*.svg` in the catalog is one of the figures above (a stale or stray one would
  /// be checked by nothing).
  @Test func everyPlotFileIsChecked() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.resources.path)
      .filter { $0.hasPrefix("plot-") && $0.hasSuffix(".svg") }
    #expect(Set(files) == Set(Self.figures.map(\.file)))
  }

  @Test(arguments: figures)
  func figureParsesAndCarriesItsSeries(_ figure: Figure) throws {
    let data = try Data(contentsOf: Self.resources.appendingPathComponent(figure.file))
    let svg = try SVGSummary(data)
    #expect(svg.root == "svg")
    #expect(!svg.title.trimmingCharacters(in: .whitespaces).isEmpty, "no <title>")
    #expect(Set(svg.points.keys) == Set(figure.series), "series drawn: \(svg.points.keys.sorted())")
    for name in figure.series {
      let points = svg.points[name] ?? 0
      #expect(points >= figure.minimumPoints, "\(name): \(points) points")
    }
    for label in figure.labels {
      #expect(svg.texts.contains(label), "no text '\(label)'")
    }
  }
}

/// What a parse of an SVG found: the root element, the title, every text, and per
/// `data-series` name the points drawn for it (path vertices, and the pixels of embedded PNG
/// grids inside an element carrying the name).
final class SVGSummary: NSObject, XMLParserDelegate {
  var root: String?
  var title = ""
  var texts: Set<String> = []
  var points: [String: Int] = [:]
  private var seriesStack: [String?] = []
  private var text = ""
  private var failure: Error?

  struct ParseError: Error, CustomStringConvertible {
    var description: String
  }

  init(_ data: Data) throws {
    super.init()
    let parser = XMLParser(data: data)
    parser.delegate = self
    // swift-corelibs-foundation's parse() can return true after an error (a truncated file),
    // so the error is checked as well.
    let parsed = parser.parse()
    if let error = failure ?? parser.parserError { throw error }
    guard parsed else { throw ParseError(description: "XML parse failed") }
  }

  func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
    if failure == nil { failure = parseError }
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
    qualifiedName: String?, attributes: [String: String] = [:]
  ) {
    if root == nil { root = elementName }
    text = ""
    let series = attributes["data-series"] ?? seriesStack.last ?? nil
    seriesStack.append(series)
    guard let series else { return }
    switch elementName {
    case "path":
      let d = attributes["d"] ?? ""
      points[series, default: 0] += d.filter { $0 == "M" || $0 == "L" }.count
    case "image":
      do {
        points[series, default: 0] += try Self.pngPixels(attributes["href"] ?? "")
      } catch {
        failure = error
        parser.abortParsing()
      }
    default:
      // An element named for a series but drawing nothing itself still names it.
      if points[series] == nil { points[series] = 0 }
    }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    text += string
  }

  func parser(
    _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
    qualifiedName: String?
  ) {
    if elementName == "title" && title.isEmpty { title = text }
    if elementName == "text" { texts.insert(text) }
    text = ""
    seriesStack.removeLast()
  }

  /// Width × height of a `data:image/png;base64,…` URI's image, after checking the PNG
  /// signature and that its first chunk is IHDR.
  static func pngPixels(_ uri: String) throws -> Int {
    let prefix = "data:image/png;base64,"
    guard uri.hasPrefix(prefix), let data = Data(base64Encoded: String(uri.dropFirst(prefix.count)))
    else { throw ParseError(description: "not a base64 PNG data URI") }
    let bytes = [UInt8](data)
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard bytes.count > 24, Array(bytes[0..<8]) == signature,
      String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR"
    else { throw ParseError(description: "not a PNG") }
    let field = { (at: Int) in bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
    return field(16) * field(20)
  }
}
