#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a command's text goes: the process's streams, or strings a test reads.
package struct Console {
  /// Writes to standard output.
  package var out: (String) -> Void
  /// Writes to standard error.
  package var err: (String) -> Void
  /// Whether standard error is a terminal (progress is shown only then).
  package var errIsTerminal: Bool

  /// A console writing standard output through `out` and standard error through `err`.
  package init(
    out: @escaping (String) -> Void, err: @escaping (String) -> Void, errIsTerminal: Bool = false
  ) {
    self.out = out
    self.err = err
    self.errIsTerminal = errIsTerminal
  }

  /// The process's own standard output and error.
  package static var standard: Console {
    Console(
      out: { _writeAll(STDOUT_FILENO, $0) }, err: { _writeAll(STDERR_FILENO, $0) },
      errIsTerminal: isatty(STDERR_FILENO) != 0)
  }
}

/// Progress on a terminal: a percentage, redrawn when it changes.
struct Progress {
  let console: Console
  let label: String
  let total: Int?
  var shown = -1

  init(_ console: Console, _ label: String, total: Int?) {
    self.console = console
    self.label = label
    self.total = total.flatMap { $0 > 0 ? $0 : nil }
  }

  mutating func update(_ done: Int) {
    guard console.errIsTerminal, let total else { return }
    let percent = min(100, done * 100 / total)
    if percent != shown {
      shown = percent
      console.err("\r\(label) \(percent)%")
    }
  }

  func end() {
    if console.errIsTerminal && shown >= 0 { console.err("\r\u{1B}[K") }
  }
}

/// Writes all of `text` to `fd`, ignoring failures (there is nowhere left to report them).
func _writeAll(_ fd: Int32, _ text: String) {
  var text = text
  text.withUTF8 { bytes in
    var offset = 0
    while offset < bytes.count {
      let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      offset += n
    }
  }
}
