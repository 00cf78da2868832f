/// One source's audio at the output rate, waiting to be pulled, with where it belongs on the
/// timeline: a bounded ring of frames cut into segments, each contiguous from its start position.
///
/// ```
/// frames:    [ a a a a a | b b b b b b b | c c c ]     read ─▶ (oldest first)
/// segments:    a @ 9,600   b @ 10,240     c @ 12,000  (timeline frame of each segment's first)
/// ```
/// A source that delivers without a break appends to one segment; a gap in its timestamps (a
/// pause, a dropped buffer) starts a new one further on, so silence is never stored. Appending
/// past the capacity drops the oldest frames. Storage is allocated once, at creation.
struct TimelineFIFO: FrameSink {
  /// The frames, oldest first.
  var frames: FrameFIFO
  /// Segment starts, oldest first: index (in frames appended since creation) and position.
  var starts: [(index: Int, position: Int)]
  /// Ring bookkeeping of `starts`: the oldest and how many are in use.
  var startHead = 0
  var startCount = 0
  /// Frames appended and removed since creation: the absolute indices of the ends of the ring.
  var appended = 0
  var removed = 0
  /// Where the next appended frame goes on the timeline.
  private(set) var nextPosition = 0
  /// Whether the next appended frame starts a segment (set by ``jump(to:)``).
  var pendingJump = true

  /// The most segments held; past it a new segment's frames are stored as they come, after the
  /// previous one (arrival placement), which only happens with many tiny gaps inside the ring.
  static let maxSegments = 64

  init(capacity: Int, channelCount: Int) {
    frames = FrameFIFO(capacity: capacity, channelCount: channelCount)
    starts = Array(repeating: (0, 0), count: Self.maxSegments)
  }

  var channelCount: Int { frames.channelCount }
  var capacity: Int { frames.capacity }
  /// Frames held.
  var count: Int { frames.count }
  var isEmpty: Bool { frames.count == 0 }

  /// The next appended frame belongs at `position`.
  mutating func jump(to position: Int) {
    nextPosition = position
    pendingJump = true
  }

  /// Re-bases every position by `delta` frames (a source placed by arrival whose audio moved).
  mutating func shift(by delta: Int) {
    for i in 0..<startCount { starts[(startHead + i) % Self.maxSegments].position += delta }
    nextPosition += delta
  }

  /// Appends frames at ``nextPosition``; past capacity the oldest are dropped (see ``dropped``).
  mutating func append(_ samples: UnsafeBufferPointer<Float>) {
    let n = samples.count / frames.channelCount
    guard n > 0 else { return }
    if pendingJump {
      // A drained ring keeps no segment: the new one is the only one.
      if frames.count == 0 { startCount = 0 }
      if startCount == Self.maxSegments { startsDropOldest() }
      starts[(startHead + startCount) % Self.maxSegments] = (appended, nextPosition)
      startCount += 1
      pendingJump = false
    }
    var skip = 0
    let overflow = frames.count + n - frames.capacity
    if overflow > 0 {
      let old = min(overflow, frames.count)
      discard(old)
      skip = overflow - old
      overflowDropped += overflow
      if skip > 0 {
        // More than the whole ring at once: the newest frames are kept, in their places (as if
        // the first `skip` had been appended and dropped).
        removed += skip
        appended += skip
      }
    }
    frames.append(UnsafeBufferPointer(rebasing: samples[(skip * frames.channelCount)...]))
    appended += n - skip
    nextPosition += n
  }

  /// A timeline holds its newest frames until they are pulled: more can be summed onto them,
  /// unless its newest segment is closed (what comes next starts elsewhere).
  var canAddToNewest: Bool { !pendingJump && frames.count > 0 }

  /// Adds `frames` onto the newest frames held (see ``FrameSink/add(_:endingFramesBeforeEnd:)``);
  /// positions do not move.
  mutating func add(_ frames: UnsafeBufferPointer<Float>, endingFramesBeforeEnd before: Int) {
    self.frames.add(frames, endingFramesBeforeEnd: before)
  }

  /// Where the last seamless switch of input rate joined two runs (see
  /// ``FrameSink/noteSeam()``), until the source takes note of it.
  var seam: Int?

  mutating func noteSeam() { seam = nextPosition }

  /// The frames at timeline positions `p ..< p + count` of the newest segment, copied out
  /// (`write` false) or back in (`write` true) at `buffer`; `false` when they are not all held
  /// in it.
  mutating func access(
    _ p: Int, _ count: Int, _ buffer: UnsafeMutablePointer<Float>, write: Bool
  ) -> Bool {
    guard count > 0, startCount > 0 else { return false }
    let newestStart = starts[(startHead + startCount - 1) % Self.maxSegments].position
    // Frame at position q is (nextPosition − 1 − q) frames before the newest.
    let fromEnd = nextPosition - p - count
    let first = frames.count - fromEnd - count
    guard p >= newestStart, fromEnd >= 0, first >= 0 else { return false }
    frames.access(first, count, buffer, write: write)
    return true
  }

  /// The frames held at timeline positions `p ..< p + count`, in whichever segments hold them,
  /// one run at a time: copied to `buffer`, handed to `body(at, run)` (`at` frames into the
  /// range), and copied back when `write`. Positions not held are skipped.
  mutating func withHeld(
    _ p: Int, _ count: Int, _ buffer: UnsafeMutablePointer<Float>, write: Bool,
    _ body: (_ at: Int, _ run: Int) -> Void
  ) {
    guard count > 0, frames.count > 0 else { return }
    for i in 0..<startCount {
      let s = starts[(startHead + i) % Self.maxSegments]
      let next = (startHead + i + 1) % Self.maxSegments
      let end = i + 1 < startCount ? starts[next].index : appended
      // This segment's held frames, as positions, within the range.
      let lo = max(p, s.position + (max(s.index, removed) - s.index))
      let hi = min(p + count, s.position + (end - s.index))
      guard lo < hi else { continue }
      let first = s.index + (lo - s.position) - removed
      frames.access(first, hi - lo, buffer, write: false)
      body(lo - p, hi - lo)
      if write { frames.access(first, hi - lo, buffer, write: true) }
    }
  }

  /// Frames dropped because the ring was full, since creation.
  var overflowDropped = 0

  /// The oldest frame's segment: its position and how many frames of it are held.
  var head: (position: Int, run: Int)? {
    guard frames.count > 0 else { return nil }
    let s = starts[startHead]
    let end = startCount > 1 ? starts[(startHead + 1) % Self.maxSegments].index : appended
    return (s.position + (removed - s.index), end - removed)
  }

  /// The oldest segment's bounds on the timeline: where its first frame is (it may have been
  /// removed), and where it ends once that is known (a later segment exists, or the next append
  /// starts one: ``jump(to:)`` closed it).
  var headSegment: (start: Int, end: Int?)? {
    guard startCount > 0 else { return nil }
    let s = starts[startHead]
    if startCount > 1 {
      return (s.position, s.position + starts[(startHead + 1) % Self.maxSegments].index - s.index)
    }
    return (s.position, pendingJump ? s.position + appended - s.index : nil)
  }

  /// Ends the newest segment where it is: frames appended later start a new one right after it
  /// (a splice), as after a format switch or when its source is taken to have stopped.
  mutating func close() {
    pendingJump = true
  }

  /// The start position of the segment after the oldest, if there is one.
  var nextSegmentPosition: Int? {
    startCount > 1 ? starts[(startHead + 1) % Self.maxSegments].position : nil
  }

  /// Copies the oldest `count` frames into `output`.
  func peek(_ count: Int, into output: UnsafeMutablePointer<Float>) {
    frames.peek(count, into: output)
  }

  /// Removes the oldest `count` frames.
  mutating func discard(_ count: Int) {
    frames.discard(count)
    removed += count
    advanceStarts()
  }

  /// Removes every frame.
  mutating func removeAll() {
    discard(frames.count)
  }

  /// Forgets segments whose frames are all removed (keeping the one the next append extends).
  private mutating func advanceStarts() {
    while startCount > 1 && starts[(startHead + 1) % Self.maxSegments].index <= removed {
      startHead = (startHead + 1) % Self.maxSegments
      startCount -= 1
    }
    if startCount == 1 && frames.count == 0 && starts[startHead].index < removed {
      // The only segment is empty: keep its position current for the next append.
      starts[startHead] = (removed, starts[startHead].position + removed - starts[startHead].index)
    }
  }

  /// With every segment slot in use, merges the two oldest: the second's frames then follow the
  /// first's, as if delivered without a gap.
  private mutating func startsDropOldest() {
    let second = (startHead + 1) % Self.maxSegments
    starts[second] = starts[startHead]
    startHead = second
    startCount -= 1
  }
}
