/// A fixed-capacity ring of interleaved Float32 frames; storage is allocated once.
public struct FrameFIFO: FrameSink {
  /// Samples per frame.
  public let channelCount: Int
  /// The most frames it holds.
  public let capacity: Int
  var storage: [Float]
  /// Frame index of the oldest frame in `storage`.
  var head = 0
  /// Frames held.
  public private(set) var count = 0

  /// Creates an empty ring holding up to `capacity` frames of `channelCount` samples.
  public init(capacity: Int, channelCount: Int) {
    precondition(capacity >= 1 && channelCount >= 1)
    self.capacity = capacity
    self.channelCount = channelCount
    storage = [Float](repeating: 0, count: capacity * channelCount)
  }

  /// Room left, in frames.
  public var freeFrames: Int { capacity - count }

  /// Appends frames at the back.
  ///
  /// - Precondition: they fit (`frames.count / channelCount ≤ freeFrames`).
  /// - Complexity: O(frames).
  public mutating func append(_ frames: UnsafeBufferPointer<Float>) {
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

  /// Copies the oldest `frames` frames into `output` without removing them.
  ///
  /// - Precondition: `frames ≤ count` and `output` has room.
  public func peek(_ frames: Int, into output: UnsafeMutablePointer<Float>) {
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

  /// Removes the oldest `frames` frames.
  public mutating func discard(_ frames: Int) {
    precondition(frames <= count)
    head = (head + frames) % capacity
    count -= frames
    if count == 0 { head = 0 }
  }

  /// Removes every frame.
  public mutating func removeAll() {
    head = 0
    count = 0
  }
}
