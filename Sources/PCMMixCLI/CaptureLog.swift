import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One row of a capture log: a buffer of ``frames`` frames in ``format``, its first frame stamped
/// ``time`` (`nil`: the row has no stamp).
struct LogRow: Equatable {
  /// The row's line in its CSV file (the header is line 1).
  var line: Int
  var time: MediaTime?
  var frames: Int
  var format: PCMFormat

  /// Bytes of the buffer in the raw file.
  var byteCount: Int { frames * format.bytesPerFrame }
}

/// The grammar of a capture log's rows, apart from any file: `time,frames,format`.
enum CaptureLogSyntax {
  /// The first line of every log.
  static let header = "time,frames,format"
  /// The most frames one row may hold.
  static let maxFrames = 1 << 22
  /// The most bytes one row's buffer may take (replay holds one buffer at a time).
  static let maxBufferBytes = 16 << 20
  /// The most bytes one line may take: a log's lines are short, so a longer one is not a log.
  static let maxLineBytes = 4_096

  /// Parses a row's fields (the format as its spec, not yet parsed); throws the message.
  static func fields(_ line: String) throws(LogProblem) -> (
    time: MediaTime?, frames: Int, spec: Substring
  ) {
    let parts = line.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 3 else {
      throw LogProblem("a row has 3 fields (time,frames,format); this one has \(parts.count)")
    }
    let time = try self.time(trimmed(parts[0]))
    let frameText = trimmed(parts[1])
    guard let frames = Int(frameText), frames > 0 else {
      throw LogProblem("frames '\(frameText)' is not a positive whole number")
    }
    guard frames <= maxFrames else {
      throw LogProblem("frames \(frames) is more than one buffer can hold (\(maxFrames))")
    }
    return (time, frames, trimmed(parts[2]))
  }

  /// Parses a time: empty (no stamp), decimal seconds (`12.345`, kept to the nanosecond), or
  /// `VALUE/TIMESCALE` with a positive 32-bit timescale (kept as it is).
  static func time(_ text: Substring) throws(LogProblem) -> MediaTime? {
    if text.isEmpty { return nil }
    if let slash = text.firstIndex(of: "/") {
      let valueText = text[..<slash]
      let scaleText = text[text.index(after: slash)...]
      guard let value = Int64(valueText), let scale = Int32(scaleText) else {
        throw LogProblem("time '\(text)' is not VALUE/TIMESCALE (64- and 32-bit integers)")
      }
      guard scale > 0 else {
        throw LogProblem("time '\(text)' has a timescale that is not positive")
      }
      return MediaTime(value: value, timescale: scale)
    }
    guard let nanoseconds = decimalNanoseconds(text) else {
      throw LogProblem("time '\(text)' is not decimal seconds (12.345) or VALUE/TIMESCALE")
    }
    return MediaTime(value: nanoseconds, timescale: 1_000_000_000)
  }

  /// `[-]DIGITS[.DIGITS]` seconds in whole nanoseconds (rounded half away from zero), exactly,
  /// without going through a `Double`; `nil` when it does not parse or does not fit.
  static func decimalNanoseconds(_ text: Substring) -> Int64? {
    var rest = text[...]
    let negative = rest.first == "-"
    if negative { rest = rest.dropFirst() }
    let dot = rest.firstIndex(of: ".")
    let whole = dot.map { rest[..<$0] } ?? rest
    let fraction = dot.map { rest[rest.index(after: $0)...] } ?? ""
    guard !whole.isEmpty, whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit),
      dot == nil || !fraction.isEmpty, whole.count <= 12, let seconds = Int64(whole)
    else { return nil }
    var nanos: Int64 = 0
    var digits = 0
    for c in fraction.prefix(9) {
      nanos = nanos * 10 + Int64(c.asciiValue! - 48)
      digits += 1
    }
    while digits < 9 {
      nanos *= 10
      digits += 1
    }
    if let tenth = fraction.dropFirst(9).first, tenth >= "5" { nanos += 1 }
    let total = seconds * 1_000_000_000 + nanos
    return negative ? -total : total
  }

  /// Whether `c` is one of `0` … `9`.
  static func isDigit(_ c: Character) -> Bool { c.asciiValue.map { $0 >= 48 && $0 <= 57 } ?? false }

  /// `s` without surrounding spaces and tabs.
  static func trimmed(_ s: Substring) -> Substring {
    var s = s
    while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
    while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
    return s
  }
}

/// What is wrong with one line of a log, before it is given a file and line.
struct LogProblem: Error {
  var message: String

  init(_ message: String) { self.message = message }
}

/// A capture log's CSV, read row by row through a fixed buffer; it can be read again from the
/// top (``rewind()``), so it must be a regular file.
struct CaptureLogReader {
  let path: String
  private let fd: Int32
  private var buffer = [UInt8](repeating: 0, count: 65_536)
  private var start = 0
  private var end = 0
  private var atEnd = false
  /// The number of the last line read.
  private(set) var lineNumber = 0
  /// The last spec parsed, and what it gave.
  private var lastSpec: Substring = ""
  private var lastFormat: PCMFormat?
  /// The input rates the pipeline takes.
  let rates: ClosedRange<Int>

  /// Opens the log at `path`: 66 when it is missing, unreadable or not a regular file.
  static func open(_ path: String, rates: ClosedRange<Int>) throws(CLIError) -> CaptureLogReader {
    let fd = try _openRegularOrAny(path, regular: true)
    return CaptureLogReader(path: path, fd: fd, rates: rates)
  }

  private init(path: String, fd: Int32, rates: ClosedRange<Int>) {
    self.path = path
    self.fd = fd
    self.rates = rates
  }

  func close() { _closeFile(fd) }

  /// Goes back to the top of the file.
  mutating func rewind() throws(CLIError) {
    guard lseek(fd, 0, SEEK_SET) == 0 else { throw CLIError(.io, path, _errorText(errno)) }
    (start, end, atEnd, lineNumber) = (0, 0, false, 0)
  }

  /// The next row, reading and checking the header first at the top; `nil` at the end. Blank
  /// lines are skipped.
  ///
  /// - Throws: 65 naming `path:line` for a malformed line, 74 for a read error.
  mutating func next() throws(CLIError) -> LogRow? {
    if lineNumber == 0 {
      let header = try nextLine()
      guard header == CaptureLogSyntax.header else {
        let what = header.map { "'\($0.prefix(60))'" } ?? "an empty file"
        throw problem("the first line must be '\(CaptureLogSyntax.header)', not \(what)")
      }
    }
    while let line = try nextLine() {
      if CaptureLogSyntax.trimmed(line[...]).isEmpty { continue }
      do throws(LogProblem) {
        let (time, frames, spec) = try CaptureLogSyntax.fields(line)
        let format = try self.format(spec)
        guard frames * format.bytesPerFrame <= CaptureLogSyntax.maxBufferBytes else {
          throw LogProblem(
            "a buffer of \(frames) frames of \(spec) is more than the"
              + " \(CaptureLogSyntax.maxBufferBytes >> 20) MiB replay reads at once")
        }
        return LogRow(line: lineNumber, time: time, frames: frames, format: format)
      } catch {
        throw problem(error.message)
      }
    }
    return nil
  }

  /// The format of `spec`, probed as the pipeline will take it.
  private mutating func format(_ spec: Substring) throws(LogProblem) -> PCMFormat {
    if let lastFormat, spec == lastSpec { return lastFormat }
    guard let format = PCMFormat(spec: String(spec)) else {
      throw LogProblem(
        "format '\(spec)' is not TYPE:RATE:CHANNELS with TYPE one of "
          + PCMFormat.typeSpellings.joined(separator: " "))
    }
    guard rates.contains(format.sampleRate) else {
      throw LogProblem(
        "format '\(spec)': the pipeline takes rates \(rates.lowerBound) … \(rates.upperBound) Hz")
    }
    do {
      _ = try FormatProbe.probe(StreamDescription(format))
    } catch {
      throw LogProblem("format '\(spec)': \(error.description)")
    }
    (lastSpec, lastFormat) = (spec, format)
    return format
  }

  /// A data error (65) at the current line.
  func problem(_ message: String) -> CLIError {
    CLIError(.data, "\(path):\(max(lineNumber, 1))", message)
  }

  /// The next line without its `\n` (and `\r`), or `nil` at the end of the file.
  private mutating func nextLine() throws(CLIError) -> String? {
    while true {
      if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
        let line = takeLine(upTo: newline)
        start = newline + 1
        return line
      }
      if atEnd {
        guard start < end else { return nil }
        let line = takeLine(upTo: end)
        start = end
        return line
      }
      if end - start >= CaptureLogSyntax.maxLineBytes {
        lineNumber += 1
        throw problem(
          "a line is longer than \(CaptureLogSyntax.maxLineBytes) bytes: this is not a capture log"
        )
      }
      try fill()
    }
  }

  private mutating func takeLine(upTo stop: Int) -> String {
    lineNumber += 1
    var last = stop
    if last > start && buffer[last - 1] == 0x0D { last -= 1 }
    return String(decoding: buffer[start..<last], as: UTF8.self)
  }

  /// Moves what is left to the front and reads more after it.
  private mutating func fill() throws(CLIError) {
    if start > 0 {
      buffer.withUnsafeMutableBytes { b in
        let base = b.baseAddress!
        base.copyMemory(from: base + start, byteCount: end - start)
      }
      (start, end) = (0, end - start)
    }
    let n = buffer.withUnsafeMutableBytes { b in
      var n: Int
      repeat { n = read(fd, b.baseAddress! + end, b.count - end) } while n < 0 && errno == EINTR
      return n
    }
    guard n >= 0 else { throw CLIError(.io, path, "read: " + _errorText(errno)) }
    if n == 0 { atEnd = true } else { end += n }
  }
}

/// A capture log's raw file, read buffer by buffer in order.
struct RawReader {
  let path: String
  private let fd: Int32
  /// Its size, when it is a regular file.
  let size: Int?
  /// Bytes read so far.
  private(set) var offset = 0

  /// Opens the raw file at `path`: 66 when it is missing or unreadable.
  static func open(_ path: String) throws(CLIError) -> RawReader {
    let fd = try _openRegularOrAny(path, regular: false)
    let size = FileDescriptorSource(fileDescriptor: fd).remainingByteCount
    return RawReader(path: path, fd: fd, size: size)
  }

  private init(path: String, fd: Int32, size: Int?) {
    self.path = path
    self.fd = fd
    self.size = size
  }

  func close() { _closeFile(fd) }

  /// Fills all of `buffer` with the next bytes; returns how many there were (fewer only at the
  /// end of the file).
  mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(CLIError) -> Int {
    var source = FileDescriptorSource(fileDescriptor: fd)
    var filled = 0
    while filled < buffer.count {
      let n: Int
      do {
        n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      } catch {
        throw .reading(path, error)
      }
      if n == 0 { break }
      filled += n
    }
    offset += filled
    return filled
  }
}

/// Opens `path` for reading: 66 when it is missing, unreadable or a folder (or, with `regular`,
/// anything but a regular file).
private func _openRegularOrAny(_ path: String, regular: Bool) throws(CLIError) -> Int32 {
  let fd = _openFile(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { throw CLIError(.noInput, path, _errorText(errno)) }
  var st = stat()
  let kind = fstat(fd, &st) == 0 ? st.st_mode & S_IFMT : 0
  if kind == S_IFDIR {
    _closeFile(fd)
    throw CLIError(.noInput, path, "is a directory")
  }
  if regular && kind != S_IFREG {
    _closeFile(fd)
    throw CLIError(
      .noInput, path, "a capture log must be a regular file (it is read more than once)")
  }
  return fd
}
