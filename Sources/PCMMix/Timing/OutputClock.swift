/// The output side of a ``ClockedCapturePipeline``: which interval of the timeline the next
/// pull gives, and how far behind the newest audio that is.
///
/// ```
///                 position        position + latency ≈ newest audio
/// timeline ──────────┼──────────────────────┼──────────▶
///                    │◀────── latency ─────▶│
///          each pull gives [position, position + frames) and moves on by that much
/// ```
/// The clock starts once every enabled source has delivered (or ``startupWait`` after the first
/// did), a latency behind the newest audio; then every pull moves it on by exactly the frames
/// pulled. Audio that arrives for an interval already pulled is late: with an adaptive latency
/// the clock then holds (silence, off the timeline) for the difference plus a margin, so the
/// same delivery is on time from then on. A consumer that falls far behind every stamped source
/// (it stalled) skips ahead.
struct OutputClock {
  let outputRate: Int
  let minimumLatency: Int
  let maximumLatency: Int
  let isAdaptive: Bool
  let startupWait: Int
  /// Added to what the deliveries need, for scheduling jitter.
  let margin: Int
  /// Frames of a fade: a source whose newest audio is closer than a pull and this is taken to
  /// have stopped, so the latency keeps it further away in normal delivery.
  let fadeFrames: Int
  var isRunning = false
  /// Timeline frame of the next pull's first frame.
  var position = 0
  /// Output frames between the output and the newest audio.
  var latency = 0
  /// Frames still to give as silence before the timeline moves again.
  var hold = 0
  /// Frames pulled since the first source delivered, before the start.
  var waited = 0
  var statistics = CaptureClockStatistics()

  init(_ c: ClockedCapturePipeline.Configuration) {
    outputRate = c.outputRate
    let rate = Double(c.outputRate)
    switch c.latency {
    case .fixed(let s):
      (minimumLatency, maximumLatency, isAdaptive) = (Int(s * rate), Int(s * rate), false)
    case .adaptive(let low, let high):
      (minimumLatency, maximumLatency, isAdaptive) = (Int(low * rate), Int(high * rate), true)
    }
    startupWait = Int(c.startupWait * rate)
    margin = c.outputRate / 50
    // The limiter's look-ahead (1 ms) is mixed ahead of the output: room for it too.
    fadeFrames =
      Int((c.fadeSeconds * rate).rounded()) + (c.policy == .limit ? c.outputRate / 1000 : 0)
  }

  /// Starts the clock when the sources are in (see the type's description); returns whether it
  /// started at this pull.
  mutating func tryStart(_ a: SourceState, _ b: SourceState, frames: Int) -> Bool {
    guard a.hasStarted || b.hasStarted else { return false }
    waited += frames
    let allIn = (!a.isEnabled || a.hasStarted) && (!b.isEnabled || b.hasStarted)
    guard allIn || waited >= startupWait else { return false }
    // Of the sources that delivered: one of the longest buffers (its first frame is that old
    // when it arrives), one pull (the pull may come just after it), and the margin.
    let longest = max(a.hasStarted ? a.largestBuffer : 0, b.hasStarted ? b.largestBuffer : 0)
    let needed = longest + frames + margin + fadeFrames
    latency = isAdaptive ? min(max(needed, minimumLatency), maximumLatency) : minimumLatency
    let newest = max(a.hasStarted ? a.nextPosition : .min, b.hasStarted ? b.nextPosition : .min)
    position = newest - latency
    isRunning = true
    statistics.isRunning = true
    statistics.latencyFrames = latency
    statistics.position = position
    return true
  }

  /// After a pull: audio found `lateness` frames late raises an adaptive latency.
  mutating func afterPull(lateness: Int, frames: Int) {
    statistics.position = position
    guard lateness > 0 else { return }
    statistics.lateEvents += 1
    guard isAdaptive, latency < maximumLatency else { return }
    // Whole pulls, so each pull is either all timeline or all hold.
    let wanted = lateness + margin
    let raise = min((wanted + frames - 1) / frames * frames, maximumLatency - latency)
    latency += raise
    hold += raise
    statistics.latencyRaises += 1
    statistics.latencyFrames = latency
  }

  /// Skips ahead when every stamped, enabled source that has audio waiting is further ahead than
  /// the latency and one of its longest buffers (and at least 100 ms) allow: the consumer fell
  /// behind. Returns the frames skipped (whole pulls).
  mutating func skipAhead(_ a: SourceState, _ b: SourceState, frames: Int) -> Int {
    let useA = a.isEnabled && a.isStamped && !a.isEmpty
    let useB = b.isEnabled && b.isStamped && !b.isEmpty
    guard useA || useB else { return 0 }
    let ahead = min(useA ? a.nextPosition : .max, useB ? b.nextPosition : .max) - position
    let slack = max(outputRate / 10, useA ? a.largestBuffer : 0, useB ? b.largestBuffer : 0)
    guard ahead > latency + slack else { return 0 }
    let skip = (ahead - latency) / frames * frames
    position += skip
    statistics.skippedFrames += skip
    statistics.position = position
    return skip
  }
}

/// What the output clock reads of a source, gathered without copying it.
struct SourceState {
  var hasStarted: Bool
  var isEnabled: Bool
  var isStamped: Bool
  var isEmpty: Bool
  /// Where the source's next frame goes on the timeline.
  var nextPosition: Int
  /// Its longest buffer, in output frames.
  var largestBuffer: Int
}
