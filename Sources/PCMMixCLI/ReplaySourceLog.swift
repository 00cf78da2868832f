import PCMMix

/// One source's log in a replay: its CSV and raw file, what a first read found in them, and
/// where the replay stands.
struct ReplaySourceLog {
  let side: ClockedCapturePipeline.Side
  var csv: CaptureLogReader
  var raw: RawReader
  /// Found by ``scan()``.
  var rows = 0
  var stampedRows = 0
  var byteCount = 0
  var largestBuffer = 0
  var lastLine = 0
  /// The earliest stamp, as written.
  var earliest: MediaTime?
  /// The first row's format.
  var firstFormat: PCMFormat?
  /// Every input rate in the log, with the first line that has it.
  var rates: [Int: Int] = [:]
  /// Seconds since t0 at which the previous row was delivered.
  var previousDelivery = 0.0
  /// The description of the last row's format.
  var described: (format: PCMFormat, description: StreamDescription)?
  /// Rows whose buffers the raw file holds whole (all when it was not cut short).
  var usableRows = Int.max
  /// Rows handed out by ``nextDelivery(t0:)`` since the last rewind.
  var delivered = 0
  /// Where the raw file and the CSV part ways (a log cut off by a killed extension), if they
  /// do: the replay goes on with every whole buffer and says so.
  var cut: ReplayLogCut?

  /// Opens both files of `log`: 66 when either is missing or unreadable.
  static func open(_ side: ClockedCapturePipeline.Side, _ log: ReplayOptions.Log) throws(CLIError)
    -> ReplaySourceLog
  {
    let csv = try CaptureLogReader.open(log.csv, rates: ReplaySession.inputRates)
    do {
      return ReplaySourceLog(side: side, csv: csv, raw: try RawReader.open(log.raw))
    } catch {
      csv.close()
      throw error
    }
  }

  func close() {
    csv.close()
    raw.close()
  }

  /// Reads the whole CSV, checking every row and that the raw file holds exactly the bytes the
  /// rows need (when its size is known); notes what ``replay(_:console:)`` needs to know first.
  mutating func scan() throws(CLIError) {
    while let row = try csv.next() {
      // Every row is read and checked; past a cut, none is used.
      guard cut == nil else { continue }
      if let size = raw.size, byteCount + row.byteCount > size {
        cut = shortCut(row, at: byteCount, size: size)
        usableRows = rows
        continue
      }
      rows += 1
      lastLine = row.line
      if row.time != nil { stampedRows += 1 }
      if let t = row.time, earliest.map({ t < $0 }) ?? true { earliest = t }
      byteCount += row.byteCount
      largestBuffer = max(largestBuffer, row.byteCount)
      if firstFormat == nil { firstFormat = row.format }
      if rates[row.format.sampleRate] == nil { rates[row.format.sampleRate] = row.line }
    }
    if cut == nil, let size = raw.size, size > byteCount { cut = extraCut(size - byteCount) }
  }

  /// The cut where the raw file ends inside `row`'s buffer, which starts at byte `offset`.
  func shortCut(_ row: LogRow, at offset: Int, size: Int?) -> ReplayLogCut {
    let into = size.map { "\($0 - offset) bytes into" } ?? "inside"
    return ReplayLogCut(
      location: "\(csv.path):\(row.line)",
      detail: "\(raw.path) ends \(into) this row's \(row.byteCount)-byte buffer: replayed the"
        + " \(rows) whole buffer\(rows == 1 ? "" : "s") before it")
  }

  /// The cut where `count` bytes (if known) follow the last row's buffer.
  func extraCut(_ count: Int?) -> ReplayLogCut {
    let what = count.map { "\($0) byte\($0 == 1 ? "" : "s")" } ?? "bytes"
    let last = rows == 0 ? "\(csv.path) has no rows" : "the last row is \(csv.path):\(lastLine)"
    return ReplayLogCut(
      location: raw.path, detail: "\(what) after the last row's buffer, not replayed (\(last))")
  }

  /// Goes back to the first row.
  mutating func rewind() throws(CLIError) {
    try csv.rewind()
    previousDelivery = 0
    delivered = 0
  }

  /// The next row with its delivery time and the time its last sample ends, in seconds since
  /// `t0`: a stamped row ends at its stamp plus its span, an unstamped one its span after the
  /// previous row's delivery (the first at t0); it is delivered when it ends, but never before
  /// the previous row of the log.
  mutating func nextDelivery(t0: Double) throws(CLIError) -> ReplayDelivery? {
    guard delivered < min(usableRows, rows), let row = try csv.next() else { return nil }
    delivered += 1
    let span = Double(row.frames) / Double(row.format.sampleRate)
    let end = row.time.map { $0.seconds - t0 + span } ?? previousDelivery + span
    previousDelivery = max(previousDelivery, end)
    return ReplayDelivery(row: row, delivery: previousDelivery, end: end)
  }

  /// Reads `row`'s buffer into the front of `buffer`; `nil` when the raw file ends inside it
  /// (its size was not known ahead: then the log is cut here, see ``cut``).
  mutating func read(_ row: LogRow, into buffer: UnsafeMutableRawBufferPointer) throws(CLIError)
    -> UnsafeRawBufferPointer?
  {
    guard row.byteCount <= buffer.count else {
      throw CLIError(.data, "\(csv.path):\(row.line)", "the log changed while it was replayed")
    }
    let offset = raw.offset
    let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[..<row.byteCount])
    guard try raw.read(into: bytes) == row.byteCount else {
      cut = shortCut(row, at: offset, size: raw.size)
      usableRows = delivered - 1
      return nil
    }
    return UnsafeRawBufferPointer(bytes)
  }

  /// Notes bytes after the last row's buffer (a cut), reading one byte into `scratch`.
  mutating func checkEnd(_ scratch: UnsafeMutableRawBufferPointer) throws(CLIError) {
    guard cut == nil else { return }
    let offset = raw.offset
    if try raw.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[..<1])) != 0 {
      cut = extraCut(raw.size.map { $0 - offset })
    }
  }

  /// The stream description of `format` (made once per change of format).
  mutating func description(_ format: PCMFormat) -> StreamDescription {
    if let described, described.format == format { return described.description }
    let d = StreamDescription(format)
    described = (format, d)
    return d
  }
}

/// A row of a log with when it is delivered and when its last sample ends (seconds since t0).
struct ReplayDelivery {
  var row: LogRow
  var delivery: Double
  var end: Double
}

/// Where a capture log's raw file and CSV part ways: the file or line, and what was done.
struct ReplayLogCut: Equatable {
  var location: String
  var detail: String
}
