import PCMMixCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Every measurement of a run, with its unit, and the filter that picks what runs.
final class Report {
  /// One measurement: `{"section", "name", "metric", "value", "unit"}` in the JSON output.
  struct Record {
    var section: String
    var name: String
    var metric: String
    var value: Double
    var unit: String
  }

  private(set) var records: [Record] = []
  /// Lower-cased substring a section or row name must contain to run; nil runs everything.
  let filter: String?

  init(filter: String?) {
    self.filter = filter?.lowercased()
  }

  /// Whether the filter lets `section` run at all (the section's own name, or any of its rows).
  func wants(section: String, rows: [String]) -> Bool {
    rows.contains { wants(section: section, row: $0) }
  }

  /// Whether the filter lets `row` of `section` run: it is matched against `section/row`, so
  /// `capture` picks a section, `soxr` a backend everywhere, `capture/builtin` both.
  func wants(section: String, row: String) -> Bool {
    guard let filter else { return true }
    return (section + "/" + row).lowercased().contains(filter)
  }

  /// Whether the filter names `row` itself (not only its section) and lets it run: for rows no
  /// run takes unless asked for. `--filter echo` runs the echo section without them;
  /// `--filter echo/other-rates`, or `other-rates` for every section that has such a row, runs
  /// them.
  func asksFor(section: String, row: String) -> Bool {
    guard let filter, filter.contains(row.lowercased()) else { return false }
    return wants(section: section, row: row)
  }

  /// Keeps one measurement for the JSON output.
  func record(_ section: String, _ name: String, _ metric: String, _ value: Double, _ unit: String)
  {
    records.append(Record(section: section, name: name, metric: metric, value: value, unit: unit))
  }

  /// Writes every record as a JSON array; returns false when the file cannot be written.
  func writeJSON(to path: String) -> Bool {
    var text = "[\n"
    for (i, r) in records.enumerated() {
      let value = r.value.isFinite ? "\(r.value)" : "null"
      text +=
        "  {\"section\": \(jsonString(r.section)), \"name\": \(jsonString(r.name)), "
        + "\"metric\": \(jsonString(r.metric)), \"value\": \(value), \"unit\": \(jsonString(r.unit))}"
      text += i + 1 < records.count ? ",\n" : "\n"
    }
    text += "]\n"
    return writeTextFile(path, text)
  }
}

/// A table printed row by row as results arrive: the first column left-aligned, the rest right.
struct Table {
  let columns: [(title: String, width: Int)]

  /// Prints the title line and the column headers.
  func start(_ title: String) {
    emit("")
    emit(title)
    row(columns.map(\.title))
    emit(String(repeating: "-", count: columns.map(\.width).reduce(0, +) + 2 * columns.count - 2))
  }

  /// Prints one row; missing cells are blank.
  func row(_ cells: [String]) {
    var line = ""
    for (i, column) in columns.enumerated() {
      let cell = i < cells.count ? cells[i] : ""
      line += i == 0 ? padRight(cell, column.width) : "  " + pad(cell, column.width)
    }
    emit(line)
  }
}
