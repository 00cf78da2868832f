/// A fixed-capacity ring of interleaved Float32 frames; storage is allocated once.
struct FrameFIFO: FrameSink {
  /// Samples per frame.
  let channelCount: Int
  /// The most frames it holds.
  let capacity: Int
  var storage: [Float]
  /// Frame index of the oldest frame in `storage`.
  var head = 0
  /// Frames held.
  private(set) var count = 0

  /// Creates an empty ring holding up to `capacity` frames of `channelCount` samples.
  init(capacity: Int, channelCount: Int) {
    precondition(capacity >= 1 && channelCount >= 1)
    self.capacity = capacity
    self.channelCount = channelCount
    storage = [Float](repeating: 0, count: capacity * channelCount)
  }

  /// Room left, in frames.
  var freeFrames: Int { capacity - count }

  /// Appends frames at the back.
  ///
  /// - Precondition: they fit (`frames.count / channelCount ≤ freeFrames`).
  /// - Complexity: O(frames).
  mutating func append(_ frames: UnsafeBufferPointer<Float>) {
    let n = frames.count / channelCount
    precondition(n <= freeFrames, "FrameFIFO overflow")
    guard n > 0, let src = frames.baseAddress else { return }
    let ch = channelCount
    let tail = (head + count) % capacity
    let first = min(n, capacity - tail)
    storage.withUnsafeMutableBufferPointer { s in
      (s.baseAddress! + tail * ch).update(from: src, count: first * ch)
      if first < n { s.baseAddress!.update(from: src + first * ch, count: (n - first) * ch) }
    }
    count += n
  }

  /// Adds `frames` onto the newest frames held, the last onto the frame `before` frames before
  /// the newest; what reaches past the oldest frame is skipped.
  ///
  /// - Complexity: O(frames).
  mutating func add(_ frames: UnsafeBufferPointer<Float>, endingFramesBeforeEnd before: Int) {
    let n = frames.count / channelCount
    guard n > 0, before >= 0, before < count, let src = frames.baseAddress else { return }
    let ch = channelCount
    // Frame i of `frames` lands `n − 1 − i + before` frames before the newest.
    let skip = max(0, n + before - count)
    storage.withUnsafeMutableBufferPointer { s in
      for i in skip..<n {
        var f = head + count - 1 - (n - 1 - i + before)
        if f >= capacity { f -= capacity }
        for c in 0..<ch { s[f * ch + c] += src[i * ch + c] }
      }
    }
  }

  /// Copies `frames` frames from frame `first` (counted from the oldest) out to `buffer`, or
  /// (with `write`) from `buffer` back in.
  ///
  /// - Precondition: `first + frames ≤ count`.
  mutating func access(
    _ first: Int, _ frames: Int, _ buffer: UnsafeMutablePointer<Float>, write: Bool
  ) {
    precondition(first >= 0 && first + frames <= count)
    var done = 0
    while done < frames {
      let (start, run) = self.run(from: first + done)
      let n = min(run, frames - done)
      let ch = channelCount
      storage.withUnsafeMutableBufferPointer { s in
        let at = s.baseAddress! + start
        if write {
          at.update(from: buffer + done * ch, count: n * ch)
        } else {
          (buffer + done * ch).update(from: at, count: n * ch)
        }
      }
      done += n
    }
  }

  /// Copies the oldest `frames` frames into `output` without removing them.
  ///
  /// - Precondition: `frames ≤ count` and `output` has room.
  func peek(_ frames: Int, into output: UnsafeMutablePointer<Float>) {
    precondition(frames <= count)
    guard frames > 0 else { return }
    let ch = channelCount
    let first = min(frames, capacity - head)
    storage.withUnsafeBufferPointer { s in
      output.update(from: s.baseAddress! + head * ch, count: first * ch)
      if first < frames {
        (output + first * ch).update(from: s.baseAddress!, count: (frames - first) * ch)
      }
    }
  }

  /// Where frame `offset` (counted from the oldest) starts in `storage`, in samples, and how
  /// many frames from there lie in one run before the ring wraps or the frames end.
  ///
  /// - Precondition: `offset < count`.
  func run(from offset: Int) -> (start: Int, frames: Int) {
    precondition(offset < count)
    var f = head + offset
    if f >= capacity { f -= capacity }
    return (f * channelCount, min(count - offset, capacity - f))
  }

  /// Removes the oldest `frames` frames.
  mutating func discard(_ frames: Int) {
    precondition(frames <= count)
    head = (head + frames) % capacity
    count -= frames
    if count == 0 { head = 0 }
  }

  /// Removes every frame.
  mutating func removeAll() {
    head = 0
    count = 0
  }
}
