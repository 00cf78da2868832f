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
      rows += 1
      lastLine = row.line
      if row.time != nil { stampedRows += 1 }
      if let t = row.time, earliest.map({ t < $0 }) ?? true { earliest = t }
      byteCount += row.byteCount
      if let size = raw.size, byteCount > size {
        throw short(row, at: byteCount - row.byteCount, size: size)
      }
      largestBuffer = max(largestBuffer, row.byteCount)
      if firstFormat == nil { firstFormat = row.format }
      if rates[row.format.sampleRate] == nil { rates[row.format.sampleRate] = row.line }
    }
    if let size = raw.size, size > byteCount { throw extraBytes(size - byteCount) }
  }

  /// 65 at `row`: the raw file ends inside its buffer, which starts at byte `offset`.
  func short(_ row: LogRow, at offset: Int, size: Int?) -> CLIError {
    let holds = size.map { "; it holds \($0)" } ?? ""
    return CLIError(
      .data, "\(csv.path):\(row.line)",
      "\(raw.path) ends inside this row's buffer (bytes \(offset) ..< \(offset + row.byteCount)"
        + "\(holds))")
  }

  /// 65 at the raw file: `count` bytes (if known) follow the last row's buffer.
  func extraBytes(_ count: Int?) -> CLIError {
    let what = count.map { "\($0) byte\($0 == 1 ? "" : "s")" } ?? "bytes"
    let last = rows == 0 ? "\(csv.path) has no rows" : "the last row is \(csv.path):\(lastLine)"
    return CLIError(.data, raw.path, "\(what) after the last row's buffer (\(last))")
  }

  /// Goes back to the first row.
  mutating func rewind() throws(CLIError) {
    try csv.rewind()
    previousDelivery = 0
  }

  /// The next row with its delivery time and the time its last sample ends, in seconds since
  /// `t0`: a stamped row ends at its stamp plus its span, an unstamped one its span after the
  /// previous row's delivery (the first at t0); it is delivered when it ends, but never before
  /// the previous row of the log.
  mutating func nextDelivery(t0: Double) throws(CLIError) -> ReplayDelivery? {
    guard let row = try csv.next() else { return nil }
    let span = Double(row.frames) / Double(row.format.sampleRate)
    let end = row.time.map { $0.seconds - t0 + span } ?? previousDelivery + span
    previousDelivery = max(previousDelivery, end)
    return ReplayDelivery(row: row, delivery: previousDelivery, end: end)
  }

  /// Reads `row`'s buffer into the front of `buffer`.
  mutating func read(_ row: LogRow, into buffer: UnsafeMutableRawBufferPointer) throws(CLIError)
    -> UnsafeRawBufferPointer
  {
    guard row.byteCount <= buffer.count else {
      throw CLIError(.data, "\(csv.path):\(row.line)", "the log changed while it was replayed")
    }
    let offset = raw.offset
    let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[..<row.byteCount])
    guard try raw.read(into: bytes) == row.byteCount else {
      throw short(row, at: offset, size: raw.size)
    }
    return UnsafeRawBufferPointer(bytes)
  }

  /// Checks that nothing follows the last row's buffer, reading one byte into `scratch`.
  mutating func checkEnd(_ scratch: UnsafeMutableRawBufferPointer) throws(CLIError) {
    let offset = raw.offset
    guard try raw.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[..<1])) == 0 else {
      throw extraBytes(raw.size.map { $0 - offset })
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
