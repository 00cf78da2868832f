import PCMMix

/// A failure the CLI reports as one line, `pcm-mix: PATH: message`, with a sysexits code.
package struct CLIError: Error, Equatable, Sendable {
  /// The sysexits(3) codes the CLI uses.
  package enum Code: Int32, Sendable {
    /// EX_USAGE: the command line is wrong.
    case usage = 64
    /// EX_DATAERR: the input is malformed or unsupported.
    case data = 65
    /// EX_NOINPUT: an input is missing or unreadable.
    case noInput = 66
    /// EX_CANTCREAT: the output cannot be created.
    case cantCreate = 73
    /// EX_IOERR: reading or writing failed part-way.
    case io = 74
  }

  /// The exit status this error ends the command with.
  package var code: Code
  /// The file the message is about, if any.
  package var path: String?
  /// What went wrong, for a person to read.
  package var message: String

  /// An error with its exit status, the file it concerns, and its message.
  package init(_ code: Code, _ path: String?, _ message: String) {
    self.code = code
    self.path = path
    self.message = message
  }

  /// The line printed on standard error.
  package var line: String {
    "pcm-mix: " + (path.map { "\($0): " } ?? "") + message
  }

  static func usage(_ message: String) -> CLIError { CLIError(.usage, nil, message) }

  /// A reader error for `path`: I/O failures are 74, everything else malformed data, 65.
  static func reading(_ path: String, _ error: WAVError) -> CLIError {
    if case .io(let m) = error { return CLIError(.io, path, m) }
    return CLIError(.data, path, error.description)
  }
}
