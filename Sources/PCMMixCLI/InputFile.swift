import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An opened input: a WAV file or headerless PCM, from a path or standard input, read as whole
/// frames of raw bytes in its ``format``.
struct InputFile {
  let path: String
  let format: PCMFormat
  /// Frames the input should hold, when known before reading.
  let expectedFrames: Int?
  /// Frames the WAV header claims, when it states a size.
  let claimedFrames: Int?
  private let fd: Int32
  private var wav: WAVReader<FileDescriptorSource>?
  private var raw: FileDescriptorSource?
  /// Bytes of a raw frame split across reads.
  private var carry: [UInt8] = []
  private(set) var framesRead = 0

  /// Opens `spec`: missing or unreadable input is 66, a malformed header 65.
  static func open(_ spec: InputSpec) throws(CLIError) -> InputFile {
    let fd: Int32
    if spec.path == "-" {
      fd = STDIN_FILENO
    } else {
      fd = _openFile(spec.path, O_RDONLY | O_CLOEXEC)
      guard fd >= 0 else { throw CLIError(.noInput, spec.path, _errorText(errno)) }
      var st = stat()
      if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
        _closeFile(fd)
        throw CLIError(.noInput, spec.path, "is a directory")
      }
    }
    do {
      return try InputFile(spec: spec, fd: fd)
    } catch {
      if fd != STDIN_FILENO { _closeFile(fd) }
      throw error
    }
  }

  private init(spec: InputSpec, fd: Int32) throws(CLIError) {
    path = spec.path
    self.fd = fd
    let source = FileDescriptorSource(fileDescriptor: fd)
    if let f = spec.format {
      format = f
      raw = source
      claimedFrames = nil
      expectedFrames = source.remainingByteCount.map { $0 / f.bytesPerFrame }
    } else {
      do {
        let reader = try WAVReader(source: source)
        format = reader.format
        claimedFrames = reader.claimedFrames
        expectedFrames = reader.expectedFrames
        wav = reader
      } catch {
        throw .reading(spec.path, error)
      }
    }
  }

  /// Reads whole frames into `buffer`, returning how many; 0 at the end.
  ///
  /// - Throws: 74 for a read error; 65 when raw input ends inside a frame.
  mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(CLIError) -> Int {
    let bpf = format.bytesPerFrame
    if wav != nil {
      do {
        let n = try wav!.read(into: buffer)
        framesRead += n
        return n
      } catch {
        throw .reading(path, error)
      }
    }
    // Raw: fill with the carried partial frame first, then read until a whole frame is there.
    var filled = carry.count
    carry.withUnsafeBytes { c in
      if !c.isEmpty { buffer.baseAddress!.copyMemory(from: c.baseAddress!, byteCount: c.count) }
    }
    carry.removeAll(keepingCapacity: true)
    let want = buffer.count / bpf * bpf
    while filled < want {
      let n: Int
      do {
        n = try raw!.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<want]))
      } catch {
        throw .reading(path, error)
      }
      if n == 0 { break }
      filled += n
      if filled >= bpf && filled % bpf == 0 { break }
    }
    let frames = filled / bpf
    let rest = filled - frames * bpf
    if rest > 0 {
      if frames == 0 {
        throw CLIError(
          .data, path,
          "raw input ends inside a frame: \(rest) byte(s) left over, frames are \(bpf) bytes")
      }
      carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(frames * bpf)..<filled]))
    }
    framesRead += frames
    return frames
  }

  /// The warning for a WAV whose data ended early, if it did (known after reading to the end).
  var truncationWarning: String? {
    guard let wav, wav.isTruncated else { return nil }
    let claim = claimedFrames.map { "\($0)" } ?? "more"
    return "warning: data chunk holds \(wav.framesRead) frames, header claims \(claim)"
  }

  func close() {
    if fd != STDIN_FILENO { _closeFile(fd) }
  }
}

/// `strerror` text for an errno value.
func _errorText(_ code: Int32) -> String {
  String(cString: strerror(code))
}

/// `open(2)` by a name that no method shadows, on Linux and Apple platforms alike.
func _openFile(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
  open(path, flags, mode)
}

/// `close(2)`, likewise.
@discardableResult
func _closeFile(_ fd: Int32) -> Int32 {
  close(fd)
}
