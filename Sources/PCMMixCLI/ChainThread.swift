import Dispatch
import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One input read and run through its ``SourceChain`` on a thread of its own, ahead of the
/// thread that mixes, encodes and writes: the frames of each read go over as one block, in
/// order, `batch` blocks at a time (so that the threads meet once per `batch` reads) through a
/// queue of at most `depth` batches.
///
/// The blocks hold exactly what reading and processing on the caller's thread gave, read by
/// read (a chain's output does not depend on how its input is split, and the reads are the same),
/// so the output file does not change; the work of the two threads overlaps. Memory stays
/// bounded: `depth` queued batches of `batch` reads' frames, one being filled, one being taken.
final class ChainThread: @unchecked Sendable {
  /// What one read gave.
  enum Block {
    /// The frames one read gave (possibly none), interleaved at the chain's output channels,
    /// and the input's frames read so far.
    case frames([Float], framesRead: Int)
    /// The input ended: the resampler's flushed tail (possibly empty).
    case end([Float], framesRead: Int)
    /// Reading or processing failed; nothing follows.
    case failure(CLIError)
  }

  /// The input and its chain: the thread's alone from ``start()`` until ``join()`` returns.
  private var input: InputFile
  private var chain: SourceChain
  private let readBytes: Int
  private let batch: Int
  /// Samples one read's block is expected to hold (its storage is reserved up front).
  private let blockSamples: Int
  /// Batches made and not yet taken, oldest first (guarded by `lock`; at most `depth`).
  private var queue: [[Block]] = []
  /// Arrays given back by ``recycle(_:)`` for the next blocks (guarded by `lock`): blocks reuse
  /// storage instead of being allocated on one thread and freed on the other.
  private var spare: [[Float]] = []
  /// What is left of the batch being taken, last block first, on the taking thread: each block
  /// is moved out, so that its array is not shared and ``recycle(_:)`` reuses its storage.
  private var taken: [Block] = []
  private var cancelled = false
  // Every semaphore starts at 0 and is raised after: libdispatch traps when one is freed below
  // its starting value, as `slots` is when the reader stops before taking every block.
  private let lock = DispatchSemaphore(value: 0)
  /// Free places in the queue, and batches in it.
  private let slots = DispatchSemaphore(value: 0)
  private let items = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)
  private var started = false
  /// Whether reading runs on a thread of its own; without, on the caller's, in ``next()``.
  let threaded: Bool
  /// The read buffer when not threaded.
  private var inlineBuffer: UnsafeMutableRawBufferPointer?
  /// The most batches the queue has held (for the tests: never more than `depth`).
  private(set) var mostQueued = 0

  /// Whether a second thread can run beside this one: more than one processor online. With one,
  /// reading on the caller's thread (in ``next()``) does the same work without the hand-over.
  static var hasSpareProcessor: Bool { sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 }

  /// Reads `input` `readFrames` frames at a time (at least one) into `chain`.
  init(
    input: InputFile, chain: SourceChain, readFrames: Int, batch: Int = 8, depth: Int = 2,
    threaded: Bool = true
  ) {
    self.input = input
    self.threaded = threaded
    self.chain = chain
    readBytes = max(1, readFrames) * input.format.bytesPerFrame
    self.batch = max(1, batch)
    let frames = Double(max(1, readFrames)) * Double(chain.outputRate)
    blockSamples = Int(min(1e6, frames / Double(input.format.sampleRate) + 64)) * 2
    lock.signal()
    for _ in 0..<max(1, depth) { slots.signal() }
  }

  /// Starts reading on a new thread (without `threaded`, nothing: ``next()`` reads).
  func start() {
    precondition(!started)
    guard threaded else { return }
    started = true
    DispatchQueue(label: "pcm-mix.input").async { [self] in
      run()
      finished.signal()
    }
  }

  /// The next block, waiting for it; call it only until it returns `.end` or `.failure`.
  func next() -> Block {
    guard threaded else {
      if inlineBuffer == nil {
        inlineBuffer = .allocate(byteCount: readBytes, alignment: 16)
      }
      return read(into: inlineBuffer!)
    }
    if taken.isEmpty {
      items.wait()
      lock.wait()
      taken = queue.removeFirst()
      lock.signal()
      slots.signal()
      taken.reverse()
    }
    return taken.removeLast()
  }

  /// Gives a block's array back once its frames are used, for a later block to fill.
  func recycle(_ samples: inout [Float]) {
    samples.removeAll(keepingCapacity: true)
    lock.wait()
    if spare.count < 2 * batch { spare.append(samples) }
    lock.signal()
    samples = []
  }

  /// An array with room for a block: a recycled one when there is one.
  private func storage() -> [Float] {
    lock.wait()
    let recycled = spare.popLast()
    lock.signal()
    if let recycled { return recycled }
    var fresh: [Float] = []
    fresh.reserveCapacity(blockSamples)
    return fresh
  }

  /// Stops the thread if it still runs, waits for it, and hands the input back (to close it and
  /// read its warnings).
  func join() -> InputFile {
    inlineBuffer?.deallocate()
    inlineBuffer = nil
    if started {
      lock.wait()
      cancelled = true
      lock.signal()
      // Wakes a thread waiting for room; it sees `cancelled` and stops.
      slots.signal()
      finished.wait()
      started = false
    }
    return input
  }

  /// The thread's loop: read, process, hand over, until the input ends, fails or is cancelled.
  private func run() {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readBytes, alignment: 16)
    defer { buffer.deallocate() }
    var blocks: [Block] = []
    while true {
      let block = read(into: buffer)
      blocks.append(block)
      var last = true
      if case .frames = block { last = false }
      if last || blocks.count == batch {
        guard hand(blocks), !last else { return }
        blocks = []
        blocks.reserveCapacity(batch)
      }
    }
  }

  /// One read through the chain.
  private func read(into buffer: UnsafeMutableRawBufferPointer) -> Block {
    var staged = _Collector(samples: storage())
    do throws(CLIError) {
      let frames = try input.read(into: buffer)
      if frames == 0 {
        chain.flush(into: &staged)
        return .end(staged.samples, framesRead: input.framesRead)
      }
      let format = input.format
      let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<(frames * format.bytesPerFrame)])
      do {
        try chain.process(bytes, format: format, into: &staged)
      } catch {
        throw CLIError(.data, input.path, error.description)
      }
      return .frames(staged.samples, framesRead: input.framesRead)
    } catch {
      return .failure(error)
    }
  }

  /// Puts `blocks` in the queue once there is room; `false` when cancelled.
  private func hand(_ blocks: [Block]) -> Bool {
    slots.wait()
    lock.wait()
    defer { lock.signal() }
    if cancelled { return false }
    queue.append(blocks)
    mostQueued = max(mostQueued, queue.count)
    items.signal()
    return true
  }
}

/// Collects a chain's frames for one block.
struct _Collector: FrameSink {
  var samples: [Float] = []

  mutating func append(_ frames: UnsafeBufferPointer<Float>) {
    samples.append(contentsOf: frames)
  }
}
