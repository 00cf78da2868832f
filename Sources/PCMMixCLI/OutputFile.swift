import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An output that appears whole or not at all: written to a temporary file beside the target and
/// renamed over it only by ``commit()``. Standard output (`-`) and existing non-regular files
/// (`/dev/null`, a FIFO) are written directly.
struct OutputFile {
  let path: String
  let fd: Int32
  /// The temporary file, when writing through one.
  let tempPath: String?

  /// Creates the output for `path`, refusing one that is the same file as an input (64).
  static func create(_ path: String, inputs: [String]) throws(CLIError) -> OutputFile {
    if path == "-" { return OutputFile(path: path, fd: STDOUT_FILENO, tempPath: nil) }
    var target = stat()
    let exists = stat(path, &target) == 0
    if exists {
      for input in inputs where input != "-" {
        var st = stat()
        if stat(input, &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino {
          throw CLIError(.usage, path, "output is the same file as input '\(input)'; refusing")
        }
      }
      let kind = target.st_mode & S_IFMT
      if kind == S_IFDIR { throw CLIError(.cantCreate, path, "is a directory") }
      if kind != S_IFREG {
        let fd = _openFile(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError(.cantCreate, path, _errorText(errno)) }
        return OutputFile(path: path, fd: fd, tempPath: nil)
      }
    }
    let slash = path.lastIndex(of: "/")
    let dir = slash.map { String(path[...$0]) } ?? ""
    let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
    TempFiles.counter += 1
    let temp = "\(dir).\(base).pcm-mix-\(getpid())-\(TempFiles.counter).tmp"
    // Registered before it exists, so that a signal arriving just after the file is created
    // still removes it.
    TempFiles.register(temp)
    let fd = _openFile(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      let e = errno
      TempFiles.unregister(temp)
      let reason = e == ENOENT ? "cannot create: the folder does not exist" : _errorText(e)
      throw CLIError(.cantCreate, path, reason)
    }
    return OutputFile(path: path, fd: fd, tempPath: temp)
  }

  /// Puts the finished output in place.
  func commit() throws(CLIError) {
    guard let temp = tempPath else {
      if fd != STDOUT_FILENO { _closeFile(fd) }
      return
    }
    if fsync(fd) != 0 || _closeFile(fd) != 0 {
      let e = errno
      discard()
      throw CLIError(.io, path, _errorText(e))
    }
    if rename(temp, path) != 0 {
      let e = errno
      unlink(temp)
      TempFiles.unregister(temp)
      throw CLIError(.cantCreate, path, _errorText(e))
    }
    TempFiles.unregister(temp)
  }

  /// Removes the temporary file after a failure; the target is untouched.
  func discard() {
    if fd != STDOUT_FILENO { _closeFile(fd) }
    if let temp = tempPath {
      unlink(temp)
      TempFiles.unregister(temp)
    }
  }
}

/// Temporary files to remove if the process is interrupted (SIGINT, SIGTERM, SIGHUP) or dies of
/// a trap (SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS): no failure leaves a partial file.
enum TempFiles {
  nonisolated(unsafe) static var counter = 0
  /// C strings the signal handler unlinks (an output, its report, two stems, a loudness pass's
  /// second output: at most eight at once); only touched by the main thread and the handler.
  static let slots = 8
  nonisolated(unsafe) static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
    let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
    p.initialize(repeating: nil, count: slots)
    return p
  }()
  nonisolated(unsafe) static var installed = false

  static func register(_ path: String) {
    if !installed {
      installed = true
      for sig in [SIGINT, SIGTERM, SIGHUP, SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS] {
        // A signal the caller has us ignore (nohup's SIGHUP) stays ignored.
        let ignore = unsafeBitCast(SIG_IGN, to: Int.self)
        let previous = signal(sig, _onSignal)
        if let previous, unsafeBitCast(previous, to: Int.self) == ignore { signal(sig, previous) }
      }
    }
    for i in 0..<slots where paths[i] == nil {
      paths[i] = strdup(path)
      return
    }
  }

  static func unregister(_ path: String) {
    for i in 0..<slots {
      if let p = paths[i], String(cString: p) == path {
        paths[i] = nil
        free(p)
        return
      }
    }
  }
}

/// Unlinks pending temporary files, then dies of the same signal.
private func _onSignal(_ sig: Int32) {
  for i in 0..<TempFiles.slots {
    if let p = TempFiles.paths[i] { unlink(p) }
  }
  signal(sig, SIG_DFL)
  raise(sig)
}

extension OutputFile {
  /// The report file at `path` (none without one), created beside `output`: when it cannot be
  /// created, `output` is discarded first, so nothing is left behind.
  static func createReport(_ path: String?, inputs: [String], discarding output: OutputFile)
    throws(CLIError) -> OutputFile?
  {
    guard let path else { return nil }
    do throws(CLIError) {
      return try OutputFile.create(path, inputs: inputs)
    } catch {
      output.discard()
      throw error
    }
  }
}
