#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where an ``AudioFileReader`` gets its bytes: a file, a pipe, or memory.
public protocol ByteSource {
  /// Reads up to `buffer.count` bytes into the start of `buffer` and returns how many it read.
  ///
  /// Returns 0 only at the end of input (or when `buffer` is empty); may return fewer bytes than
  /// asked before that, as a pipe does. Implementations retry reads interrupted by a signal.
  mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int

  /// How many bytes are left before the end of input, when that is known without reading them
  /// (a regular file or memory); `nil` for a pipe or terminal.
  var remainingByteCount: Int? { get }
}

extension ByteSource {
  /// Unknown by default.
  public var remainingByteCount: Int? { nil }
}

/// Where a ``WAVWriter`` puts its bytes: a file, a pipe, or memory.
public protocol ByteSink {
  /// Writes all of `bytes` at the current position, or throws.
  mutating func write(_ bytes: UnsafeRawBufferPointer) throws(WAVError)

  /// Moves the write position to `offset` bytes from the sink's first byte and returns `true`,
  /// or returns `false` without moving when the sink cannot seek (a pipe).
  mutating func seek(toOffset offset: Int) throws(WAVError) -> Bool
}

// MARK: - File descriptors

/// Reads from a POSIX file descriptor: a file, a pipe or standard input.
///
/// The descriptor is borrowed, not owned: the source never closes it, and the caller must keep it
/// open while the source is in use and close it afterwards.
public struct FileDescriptorSource: ByteSource, Sendable {
  /// The descriptor read from.
  public let fileDescriptor: Int32

  /// Wraps `fileDescriptor`, reading from its current position.
  public init(fileDescriptor: Int32) {
    self.fileDescriptor = fileDescriptor
  }

  /// One `read(2)`, retried on `EINTR` (and after `poll` on a non-blocking descriptor).
  public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
    while true {
      let n = _systemRead(fileDescriptor, base, buffer.count)
      if n >= 0 { return n }
      let error = errno
      if error == EINTR { continue }
      if error == EAGAIN || error == EWOULDBLOCK {
        try _waitFor(fileDescriptor, events: Int16(POLLIN))
        continue
      }
      throw .io("read: " + _errorMessage(error))
    }
  }

  /// The bytes between the current position and the end of a regular file; `nil` for anything
  /// else (pipes, terminals, sockets, devices).
  public var remainingByteCount: Int? {
    var info = stat()
    guard fstat(fileDescriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    let position = lseek(fileDescriptor, 0, SEEK_CUR)
    guard position >= 0 else { return nil }
    return max(0, Int(info.st_size) - Int(position))
  }
}

/// Writes to a POSIX file descriptor: a file, a pipe or standard output.
///
/// The descriptor is borrowed, not owned: the sink never closes it. Offsets passed to
/// ``seek(toOffset:)`` count from the descriptor's position when the sink was made, so a WAV file
/// may start part-way into a file. A pipe, socket or descriptor opened with `O_APPEND` counts as
/// unseekable.
public struct FileDescriptorSink: ByteSink, Sendable {
  /// The descriptor written to.
  public let fileDescriptor: Int32
  /// The descriptor's offset when the sink was made; `nil` when it cannot seek.
  private let origin: Int?

  /// Wraps `fileDescriptor`, writing from its current position.
  public init(fileDescriptor: Int32) {
    self.fileDescriptor = fileDescriptor
    let position = lseek(fileDescriptor, 0, SEEK_CUR)
    let flags = fcntl(fileDescriptor, F_GETFL)
    let appends = flags >= 0 && flags & O_APPEND != 0
    self.origin = position >= 0 && !appends ? Int(position) : nil
  }

  /// Writes every byte, looping over short writes and retrying on `EINTR`. A full disk
  /// (`ENOSPC`), `EIO` or a closed pipe (`EPIPE`) throws ``WAVError/io(_:)``.
  public mutating func write(_ bytes: UnsafeRawBufferPointer) throws(WAVError) {
    guard var next = bytes.baseAddress else { return }
    var left = bytes.count
    while left > 0 {
      let n = _systemWrite(fileDescriptor, next, left)
      if n > 0 {
        next += n
        left -= n
        continue
      }
      if n == 0 { throw .io("write: no bytes written") }
      let error = errno
      if error == EINTR { continue }
      if error == EAGAIN || error == EWOULDBLOCK {
        try _waitFor(fileDescriptor, events: Int16(POLLOUT))
        continue
      }
      throw .io("write: " + _errorMessage(error))
    }
  }

  /// Moves to `offset` bytes after the sink's first byte with `lseek(2)`; `false` when the
  /// descriptor cannot seek.
  public mutating func seek(toOffset offset: Int) throws(WAVError) -> Bool {
    guard let origin else { return false }
    guard offset >= 0 else { throw .io("seek: negative offset \(offset)") }
    let target = origin.addingReportingOverflow(offset)
    guard !target.overflow, lseek(fileDescriptor, off_t(target.partialValue), SEEK_SET) >= 0 else {
      let error = errno
      if error == ESPIPE { return false }
      throw .io("seek: " + _errorMessage(error))
    }
    return true
  }
}

private func _systemRead(_ fd: Int32, _ base: UnsafeMutableRawPointer, _ count: Int) -> Int {
  #if canImport(Glibc)
    Glibc.read(fd, base, count)
  #else
    Darwin.read(fd, base, count)
  #endif
}

private func _systemWrite(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
  #if canImport(Glibc)
    Glibc.write(fd, base, count)
  #else
    Darwin.write(fd, base, count)
  #endif
}

/// Blocks until a non-blocking descriptor is ready for `events`.
private func _waitFor(_ fd: Int32, events: Int16) throws(WAVError) {
  var entry = pollfd(fd: fd, events: events, revents: 0)
  while poll(&entry, 1, -1) < 0 {
    let error = errno
    if error != EINTR { throw .io("poll: " + _errorMessage(error)) }
  }
}

/// `strerror`'s text with its first letter in lower case: `no space left on device`.
internal func _errorMessage(_ code: Int32) -> String {
  guard let text = strerror(code) else { return "error \(code)" }
  let message = String(cString: text)
  guard let first = message.first else { return "error \(code)" }
  return first.lowercased() + message.dropFirst()
}

// MARK: - Memory

extension [UInt8] {
  /// `withUnsafeMutableBytes` for a body that throws ``WAVError``, keeping the error's type
  /// (the standard library's version `rethrows` an untyped error).
  internal mutating func _withTypedBytes<Result>(
    _ body: (UnsafeMutableRawBufferPointer) throws(WAVError) -> Result
  ) throws(WAVError) -> Result {
    try withUnsafeMutableBytes { raw in
      Swift.Result { () throws(WAVError) -> Result in try body(raw) }
    }.get()
  }
}

/// Reads from an array of bytes; its ``remainingByteCount`` is always known.
public struct MemorySource: ByteSource, Sendable {
  /// All the bytes, read or not.
  public let bytes: [UInt8]
  /// How many bytes have been read.
  public private(set) var position = 0

  /// Reads `bytes` from the start.
  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Copies as many bytes as fit and remain.
  ///
  /// - Complexity: O(bytes copied).
  public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
    let n = min(buffer.count, bytes.count - position)
    guard n > 0 else { return 0 }
    bytes.withUnsafeBytes { all in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[position..<position + n]))
    }
    position += n
    return n
  }

  /// The bytes not yet read.
  public var remainingByteCount: Int? { bytes.count - position }
}

/// Collects written bytes in an array, for tests and small files. Seekable unless made otherwise.
public struct MemorySink: ByteSink, Sendable {
  /// Everything written so far.
  public private(set) var bytes: [UInt8] = []
  /// Where the next write goes.
  public private(set) var position = 0
  /// Whether ``seek(toOffset:)`` moves; `false` makes the sink behave like a pipe.
  public let isSeekable: Bool

  /// An empty sink; pass `isSeekable: false` to stand in for a pipe.
  public init(isSeekable: Bool = true) {
    self.isSeekable = isSeekable
  }

  /// Overwrites bytes from the position on and appends the rest.
  ///
  /// - Complexity: O(`bytes.count`), amortized.
  public mutating func write(_ newBytes: UnsafeRawBufferPointer) throws(WAVError) {
    let overlap = min(newBytes.count, bytes.count - position)
    for i in 0..<overlap { bytes[position + i] = newBytes[i] }
    bytes.append(contentsOf: newBytes[overlap...])
    position += newBytes.count
  }

  /// Moves the position (past the end pads with zeros, as a file does); `false` when the sink
  /// was made unseekable.
  public mutating func seek(toOffset offset: Int) throws(WAVError) -> Bool {
    guard isSeekable else { return false }
    guard offset >= 0 else { throw .io("seek: negative offset \(offset)") }
    if offset > bytes.count {
      bytes.append(contentsOf: repeatElement(0, count: offset - bytes.count))
    }
    position = offset
    return true
  }
}
