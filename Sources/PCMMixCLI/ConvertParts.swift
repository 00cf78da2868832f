import Dispatch
import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How `pcm-mix convert` cuts one input into parts that threads convert at once, writing the same
/// bytes one thread would.
///
/// The built-in resampler's output `j` depends only on the input around it, on `j`'s phase
/// (`j` mod `up`, for `up` / `down` the reduced ratio) and on which sixteen outputs form its group
/// (`j` mod 16). A part that starts at input frame `s`, a multiple of ``period`` (so that its first
/// output `s × up / down` has phase 0 and opens a group), is converted by a fresh chain fed from
/// `s − preroll`: the `preroll × up / down` outputs it makes before `s` are dropped, and every
/// window after them lies in real input, so its outputs are those of one chain over the whole
/// file, bit for bit. The part before it stops once it has made its outputs up to
/// `s × up / down`.
///
///     input   [ part 0 ........ | part 1 ........ | part 2 ...... ]
///     thread 1 ────────────────────┐ reads on past its end to complete its last windows
///     thread 2          ├ preroll ┤────────────────────┐
///     thread 3                             ├ preroll ┤──────────── flush
struct ConvertParts: Equatable {
  /// Input frame where each part's output begins: 0, then multiples of ``period``.
  let starts: [Int]
  /// Input frames in all.
  let frames: Int
  /// Input frames a part after the first reads before its start, a multiple of ``period``.
  let preroll: Int
  /// The reduced ratio: `up` outputs for every `down` inputs.
  let up: Int
  let down: Int

  /// Input frames after which phase and group line up again: `down × 16 / gcd(up, 16)`.
  var period: Int { down * 16 / Self.gcd(up, 16) }

  /// The output frame where part `p` begins (exact: its start is a multiple of `down`).
  func outputStart(_ p: Int) -> Int { starts[p] / down * up }

  /// The parts for `frames` input frames at `inputRate` into `outputRate`, for at most `threads`
  /// threads; `nil` when fewer than two parts are worth it: each part must be at least four
  /// prerolls long, so that reading the preroll twice costs a quarter of a part at most. The
  /// preroll is 0.1 s of input and at least 8,192 frames, far longer than any built-in filter.
  static func plan(frames: Int, inputRate: Int, outputRate: Int, threads: Int) -> ConvertParts? {
    guard threads > 1, frames > 0, inputRate > 0, outputRate > 0 else { return nil }
    let g = gcd(inputRate, outputRate)
    let (up, down) = (outputRate / g, inputRate / g)
    let period = down * 16 / gcd(up, 16)
    guard period <= frames / 8 else { return nil }
    let preroll = (max(8_192, inputRate / 10) + period - 1) / period * period
    let count = min(threads, frames / (4 * preroll))
    guard count > 1 else { return nil }
    var starts = [0]
    for p in 1..<count {
      let start = frames / count * p / period * period
      if start > starts.last! + preroll { starts.append(start) }
    }
    guard starts.count > 1 else { return nil }
    return ConvertParts(starts: starts, frames: frames, preroll: preroll, up: up, down: down)
  }

  static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

  /// The default thread count: one per processor online, at most 4.
  static var defaultThreads: Int { max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

/// Passes on only a part's outputs: drops the first `drop` samples, then lets `keep` through.
struct PartWindow<Base: FrameSink>: FrameSink {
  var base: Base
  var drop: Int
  var keep: Int

  mutating func append(_ frames: UnsafeBufferPointer<Float>) {
    let skipped = min(drop, frames.count)
    drop -= skipped
    let kept = min(keep, frames.count - skipped)
    guard kept > 0 else { return }
    base.append(UnsafeBufferPointer(rebasing: frames[skipped..<(skipped + kept)]))
    keep -= kept
  }
}

/// Encodes a part's frames straight into a 64 Ki-sample buffer and writes it with `pwrite(2)`
/// at its place in the data chunk each time it fills; keeps the first error.
struct PartWriter: FrameSink {
  let fd: Int32
  let type: SampleType
  /// Where the buffer's first byte goes in the file.
  var offset: Int
  private(set) var bytesWritten = 0
  /// Bytes whose write to disk has been started.
  private var flushedToDisk = 0
  var error: String?
  /// Encoded bytes waiting in `buffer`.
  private var filled = 0
  private let buffer: UnsafeMutableRawBufferPointer

  static var bufferSamples: Int { 65_536 }

  init(fd: Int32, type: SampleType, offset: Int) {
    self.fd = fd
    self.type = type
    self.offset = offset
    buffer = .allocate(byteCount: Self.bufferSamples * type.bytesPerSample, alignment: 16)
  }

  func deallocate() { buffer.deallocate() }

  mutating func append(_ frames: UnsafeBufferPointer<Float>) {
    var start = 0
    while start < frames.count && error == nil {
      let n = min((buffer.count - filled) / type.bytesPerSample, frames.count - start)
      filled += PCMEncoder.encodeLittleEndian(
        UnsafeBufferPointer(rebasing: frames[start..<(start + n)]), as: type,
        into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      start += n
      if filled == buffer.count { flush() }
    }
  }

  mutating func flush() {
    let count = filled
    filled = 0
    guard error == nil, count > 0 else { return }
    var done = 0
    while done < count {
      let n = pwrite(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        error = "write failed: " + (n < 0 ? _errorText(errno) : "nothing written")
        return
      }
      done += n
    }
    offset += count
    bytesWritten += count
    #if os(Linux)
      // Starts the disk write of every 2 MiB written (Linux begins writeback of dirty pages on
      // this advice), so that the fsync before the output is renamed into place waits for the
      // last few MiB only instead of the whole file: 28 ms instead of 55-80 on ten minutes.
      if bytesWritten - flushedToDisk >= 2 << 20 {
        _ = posix_fadvise(
          fd, off_t(offset - (bytesWritten - flushedToDisk)), off_t(bytesWritten - flushedToDisk),
          POSIX_FADV_DONTNEED)
        flushedToDisk = bytesWritten
      }
    #endif
  }
}

/// Cancellation shared by the threads of one run.
final class PartsControl: @unchecked Sendable {
  private let lock = DispatchSemaphore(value: 1)
  private var stop = false

  var cancelled: Bool {
    lock.wait()
    defer { lock.signal() }
    return stop
  }

  func cancel() {
    lock.wait()
    stop = true
    lock.signal()
  }
}

/// One part's conversion: reads its input frames by position, runs them through a chain of its
/// own, and hands the part's outputs to a sink.
final class PartJob: @unchecked Sendable {
  let input: InputFile
  var chain: SourceChain
  /// The input frame reading starts at.
  let from: Int
  /// Output frames of the preroll, dropped; then output frames kept (`nil`: to the end).
  let drop: Int
  let keep: Int?
  let control: PartsControl
  /// What failed, if anything (then the other parts are cancelled).
  private(set) var error: CLIError?
  /// The part's writer (its outputs go straight to their place in the file), and the file's
  /// path for its errors.
  private(set) var writer: PartWriter
  let outputPath: String
  let done = DispatchSemaphore(value: 0)

  init(
    input: InputFile, chain: SourceChain, parts: ConvertParts, part p: Int, control: PartsControl,
    writer: PartWriter, outputPath: String
  ) {
    self.input = input
    self.chain = chain
    self.control = control
    self.writer = writer
    self.outputPath = outputPath
    from = p == 0 ? 0 : parts.starts[p] - parts.preroll
    drop = p == 0 ? 0 : parts.preroll / parts.down * parts.up
    keep = p + 1 < parts.starts.count ? parts.outputStart(p + 1) - parts.outputStart(p) : nil
  }

  /// Converts the part into ``writer``, until it has the part's outputs, the input ends, another
  /// part fails or the writer does; `progress` is told the frames read so far.
  private func run(progress: (Int) -> Void) throws(CLIError) {
    let channels = chain.outputChannels
    var window = PartWindow(
      base: writer, drop: drop * channels, keep: keep.map { $0 * channels } ?? Int.max)
    defer { writer = window.base }
    let format = input.format
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: min(65_536, max(1, format.sampleRate / 10)) * format.bytesPerFrame,
      alignment: 16)
    defer { buffer.deallocate() }
    var position = from
    while window.keep > 0 {
      if control.cancelled || window.base.error != nil { return }
      let n = try input.readFrames(at: position, into: buffer)
      if n == 0 {
        chain.flush(into: &window)
        return
      }
      position += n
      do {
        try chain.process(
          UnsafeRawBufferPointer(rebasing: buffer[..<(n * format.bytesPerFrame)]),
          format: format, into: &window)
      } catch {
        throw CLIError(.data, input.path, error.description)
      }
      progress(position - from)
    }
  }

  /// Converts the part into its ``writer``; an error is kept in ``error`` and cancels the other
  /// parts.
  func runWriting(progress: (Int) -> Void = { _ in }) {
    do throws(CLIError) {
      try run(progress: progress)
      writer.flush()
      if let message = writer.error { throw CLIError(.io, outputPath, message) }
    } catch {
      self.error = error
      control.cancel()
    }
  }

  /// Runs the part on a thread of its own; `done` is signalled at the end.
  func start() {
    DispatchQueue(label: "pcm-mix.part").async { [self] in
      runWriting()
      done.signal()
    }
  }
}
