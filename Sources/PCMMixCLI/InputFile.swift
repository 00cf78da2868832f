import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An opened input: an audio file (WAV, RF64, BW64, RIFX or CAF) or headerless PCM, from a path
/// or standard input, read as whole frames of raw bytes in its ``format``.
struct InputFile {
  let path: String
  let format: PCMFormat
  /// The file's container; `nil` for headerless PCM.
  let container: AudioContainer?
  /// Significant bits per sample, as the header says (headerless: the sample type's).
  let validBits: Int
  /// How the input stores its samples (`s8` for CAF's signed 8-bit, read as `u8`).
  let sampleTypeSpelling: String
  /// The offset of the first audio byte (0 for headerless PCM).
  let dataOffset: Int
  /// Frames the input should hold, when known before reading.
  let expectedFrames: Int?
  /// Frames the header claims, when it states a size.
  let claimedFrames: Int?
  private let fd: Int32
  private var wav: AudioFileReader<FileDescriptorSource>?
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
      container = nil
      validBits = f.sampleType.bitsPerSample
      sampleTypeSpelling = f.typeSpelling
      dataOffset = 0
      claimedFrames = nil
      expectedFrames = source.remainingByteCount.map { $0 / f.bytesPerFrame }
    } else {
      do {
        let reader = try AudioFileReader(source: source)
        format = reader.format
        container = reader.container
        validBits = reader.validBitsPerSample
        sampleTypeSpelling = reader.fileSampleType
        dataOffset = reader.dataOffset
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

  /// Bytes after the last whole frame of a data chunk that holds all it claims (known after
  /// reading to the end).
  var strayBytes: Int { wav?.strayByteCount ?? 0 }

  /// Whether the audio ended before its header's claim (known after reading to the end).
  var isTruncated: Bool { wav?.isTruncated ?? false }

  /// Writes the input's ``readWarning`` to `console`'s standard error, if it has one.
  func warnIfReadShort(_ console: Console) {
    if let warning = readWarning { console.err(CLIError(.data, path, warning).line + "\n") }
  }

  /// The warning for a file whose data ended early or holds stray bytes after its last frame, if
  /// it does (known after reading to the end).
  var readWarning: String? {
    guard let wav else { return nil }
    let frames = "\(wav.framesRead) frame\(wav.framesRead == 1 ? "" : "s")"
    if wav.isTruncated {
      guard let claimedBytes = wav.claimedByteCount else {
        return "warning: the data runs to the end of the input, which ends inside a frame"
          + " after \(frames)"
      }
      let bytesPerFrame = format.bytesPerFrame
      var claim = "\(claimedBytes / bytesPerFrame)"
      let extra = claimedBytes % bytesPerFrame
      if extra > 0 { claim += " frames and \(extra) byte\(extra == 1 ? "" : "s")" }
      return "warning: data chunk holds \(frames), header claims \(claim)"
    }
    let stray = wav.strayByteCount
    guard stray > 0 else { return nil }
    return "warning: data chunk holds \(frames) and \(stray) stray byte\(stray == 1 ? "" : "s")"
      + " after them (less than one \(format.bytesPerFrame)-byte frame), ignored"
  }

  /// The frames of a regular file whose data chunk states its size in whole frames and holds
  /// all of them, so that any frame can be read by its position (``readFrames(at:into:)``) and no
  /// read-to-the-end warning can arise; `nil` for anything else (a pipe, raw PCM, a truncated or
  /// open-ended chunk, stray bytes).
  var wholeDataFrames: Int? {
    guard let wav, fd != STDIN_FILENO, let bytes = wav.claimedByteCount,
      bytes % format.bytesPerFrame == 0
    else { return nil }
    var st = stat()
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
      Int(st.st_size) >= dataOffset + bytes
    else { return nil }
    return bytes / format.bytesPerFrame
  }

  /// Reads up to `buffer.count / bytesPerFrame` frames from frame `frame` on with `pread(2)`,
  /// which leaves the position ``read(into:)`` uses alone, so other threads may read other
  /// parts at once. Only for a file with ``wholeDataFrames``.
  ///
  /// - Throws: 74 when the file fails or ends early (it changed while being read).
  func readFrames(at frame: Int, into buffer: UnsafeMutableRawBufferPointer) throws(CLIError)
    -> Int
  {
    let bpf = format.bytesPerFrame
    let want = min(buffer.count / bpf, max(0, (wholeFrames ?? 0) - frame)) * bpf
    var filled = 0
    while filled < want {
      let n = pread(
        fd, buffer.baseAddress! + filled, want - filled, off_t(dataOffset + frame * bpf + filled))
      if n < 0 && errno == EINTR { continue }
      if n < 0 { throw CLIError(.io, path, "read failed: \(_errorText(errno))") }
      if n == 0 { throw CLIError(.io, path, "the input ended early: it changed while being read") }
      filled += n
    }
    return want / bpf
  }

  /// ``wholeDataFrames`` as worked out when the file was opened.
  private var wholeFrames: Int? { wav?.claimedByteCount.map { $0 / format.bytesPerFrame } }

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
