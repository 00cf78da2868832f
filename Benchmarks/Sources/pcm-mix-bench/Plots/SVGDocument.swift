/// An SVG document written as text, element by element, with its attributes escaped.
///
/// Only what the figures need: elements are opened, closed or written whole, in order; there is
/// no tree and no parsing. Coordinates are written with at most two decimals (a hundredth of a
/// pixel). The document has a white background and uses the viewer's own sans-serif font, so it
/// needs nothing from outside (no fonts, no scripts, no stylesheets).
struct SVGDocument {
  let width: Int
  let height: Int
  private var body = ""
  private var open: [String] = []

  /// An empty `width` × `height` pixel document whose `<title>` is `title`.
  init(width: Int, height: Int, title: String) {
    self.width = width
    self.height = height
    element("title", [:], text: title)
    element("rect", ["width": "100%", "height": "100%", "fill": "#ffffff"])
  }

  /// Opens element `name`; what is written next goes inside it until ``close()``.
  mutating func open(_ name: String, _ attributes: SVGAttributes = [:]) {
    body += "<" + name + attributes.text + ">\n"
    open.append(name)
  }

  /// Closes the element opened last.
  mutating func close() {
    body += "</" + open.removeLast() + ">\n"
  }

  /// Writes element `name` whole, empty or holding `text` (escaped).
  mutating func element(_ name: String, _ attributes: SVGAttributes, text: String? = nil) {
    if let text {
      body += "<" + name + attributes.text + ">" + SVGAttributes.escape(text) + "</" + name + ">\n"
    } else {
      body += "<" + name + attributes.text + "/>\n"
    }
  }

  /// The whole document, every element closed.
  var text: String {
    precondition(open.isEmpty, "unclosed SVG elements: \(open)")
    return """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
      viewBox="0 0 \(width) \(height)" font-family="Helvetica, Arial, sans-serif" font-size="12">

      """ + body + "</svg>\n"
  }
}

/// An element's attributes in the order written, e.g. `["x": svgNumber(x), "fill": "#000"]`.
struct SVGAttributes: ExpressibleByDictionaryLiteral {
  private(set) var pairs: [(name: String, value: String)]

  init(dictionaryLiteral elements: (String, String)...) {
    pairs = elements.map { (name: $0.0, value: $0.1) }
  }

  /// Adds (or, when `value` is nil, leaves out) one attribute.
  mutating func set(_ name: String, _ value: String?) {
    if let value { pairs.append((name, value)) }
  }

  /// ` name="value"` for each attribute.
  var text: String {
    pairs.reduce(into: "") { $0 += " " + $1.name + "=\"" + Self.escape($1.value) + "\"" }
  }

  /// `s` with the five XML special characters escaped.
  static func escape(_ s: String) -> String {
    guard s.contains(where: { "&<>\"'".contains($0) }) else { return s }
    var out = ""
    for c in s {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      default: out.append(c)
      }
    }
    return out
  }
}

/// `x` rounded to a hundredth, without trailing zeros: `12`, `12.5`, `-0.25`.
func svgNumber(_ x: Double) -> String {
  guard x.isFinite else { return "0" }
  let hundredths = Int((x * 100).rounded())
  let sign = hundredths < 0 ? "-" : ""
  let a = abs(hundredths)
  let whole = "\(a / 100)"
  switch a % 100 {
  case 0: return sign + whole
  case let f where f % 10 == 0: return sign + whole + "." + "\(f / 10)"
  case let f: return sign + whole + (f < 10 ? ".0" : ".") + "\(f)"
  }
}
