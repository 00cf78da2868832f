/// The output side of a ``ClockedCapturePipeline``: which interval of the timeline the next
/// pull reads, how far behind the newest audio that is, and the output clock the pulls are
/// stamped with.
///
/// ```
///                 position        position + latency ≈ newest audio
/// timeline ──────────┼──────────────────────┼──────────▶
///                    │◀────── latency ─────▶│
///          each pull reads [position, position + frames) and moves on by that much
/// output clock ──────┼── block k ──┼── block k + 1 ──┼──▶  every pull, back to back
/// ```
/// The clock starts once every enabled source has delivered (or ``startupWait`` after the first
/// did), a latency behind the newest audio. From then on the output clock moves on by exactly
/// the frames pulled, whatever happens upstream; the latency moves only where the timeline is
/// read from:
/// - **Raised** (adaptive latency) when every source runs dry at once (the whole process
///   stalled: the pull holds, silent, so the late audio still plays), or when one source is late
///   again and again (its delivery needs more: the pull holds for its lateness and a margin).
///   One late delivery is dropped instead (counted): a source's stall costs only its own audio.
/// - **Lowered** when delivery has been steady for ``lowerWindow`` and every source has had
///   audio to spare all along: silence is skipped where both sources have none, otherwise the
///   sources' resamplers run up to ``maxCompression`` faster (a pitch change of a few cents,
///   ramped in and out) until the latency is what delivery needs.
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
  /// Whether the latency may come down (``ClockedCapturePipeline/Configuration/lowersLatency``).
  let lowers: Bool
  var isRunning = false
  /// Timeline frame of the next pull's first frame (where the sources are read from).
  var position = 0
  /// Output frames between the output and the newest audio.
  var latency = 0
  /// Frames still to give as silence before the timeline moves again.
  var hold = 0
  /// Frames pulled since the first source delivered, before the start.
  var waited = 0
  /// The timeline frame the clock started at, and output frames given since (running and
  /// holding): the output clock is at `startPosition + outputFrames`.
  var startPosition = 0
  var outputFrames = 0
  /// Frames the sources' timeline has been compressed by so far: a stamp `t` lands at
  /// `(t − origin) × rate − shift`.
  var shift = 0.0
  /// The compression in force (fewer timeline frames per host second, as a fraction), and the
  /// frames of latency still to take off.
  var compression = 0.0
  var lowering = 0.0
  /// Whole frames of `shift` already taken off `latency`.
  var loweredWhole = 0
  /// Output frames since the last late event, hold or raise; the smallest headroom seen in the
  /// current window, and the window's frames.
  var steadyFrames = 0
  var windowHeadroom = Int.max
  var windowFrames = 0
  /// Output-clock frames of each source's last late events, newest last (for the pattern rule).
  var lateEvents: (app: LateHistory, mic: LateHistory) = (LateHistory(), LateHistory())
  var statistics = CaptureClockStatistics()

  /// Delivery must be steady this long before the latency is lowered (3 s).
  var lowerWindow: Int { 3 * outputRate }
  /// The fastest the timeline is compressed: 0.6 % (10 cents), with the drift correction's
  /// 0.2 % inside the resampler's ±1 %: 300 ms come off in under 55 s.
  static let maxCompression = 0.006
  /// The compression changes by at most this much per output frame: in and out over 0.5 s.
  var compressionSlope: Double { Self.maxCompression / (0.5 * Double(outputRate)) }
  /// Latency to spare below which nothing is lowered (10 ms).
  var lowerThreshold: Int { outputRate / 100 }

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
    lowers = c.lowersLatency
    // The limiter's look-ahead (1 ms) is mixed ahead of the output: room for it too.
    fadeFrames =
      Int((c.fadeSeconds * rate).rounded()) + (c.policy == .limit ? c.outputRate / 1000 : 0)
  }

  /// The output clock's frame of the next pull's first frame.
  var outputPosition: Int { startPosition + outputFrames }

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
    startPosition = position
    isRunning = true
    statistics.isRunning = true
    statistics.latencyFrames = latency
    statistics.initialLatencyFrames = latency
    statistics.position = position
    return true
  }

  /// Whether this pull should hold because every live source is about to run dry at once (the
  /// process stalled, or the consumer pulls faster than real time): holding keeps their next
  /// audio in its place instead of letting it arrive late. Sources that finished or never
  /// started do not count; one source with audio is enough to go on.
  func shouldHoldForStall(_ a: SourceState, _ b: SourceState, frames: Int) -> Bool {
    guard isAdaptive, latency < maximumLatency else { return false }
    // (No array of the two: this runs in every pull, which allocates nothing.)
    let (liveA, liveB) = (Self.isLive(a), Self.isLive(b))
    guard liveA || liveB else { return false }
    let end = position + frames + fadeFrames
    return (!liveA || a.nextPosition < end) && (!liveB || b.nextPosition < end)
  }

  /// A source that delivers now: enabled, started, not finished.
  static func isLive(_ s: SourceState) -> Bool { s.isEnabled && s.hasStarted && !s.isFinished }

  /// Holds for one pull of `frames` (see ``shouldHoldForStall(_:_:frames:)``).
  mutating func holdForStall(frames: Int) {
    let raise = min(frames, maximumLatency - latency)
    latency += raise
    hold += raise
    steadyFrames = 0
    statistics.stallHolds += 1
    statistics.latencyFrames = latency
  }

  /// After a running pull of `frames`: notes each source's lateness (the oldest late audio it
  /// had, in frames, 0 for none) and raises an adaptive latency when one source has been late
  /// again and again for half a second (see ``LateHistory``).
  mutating func afterPull(lateness: (app: Int, mic: Int), frames: Int) {
    statistics.position = position
    guard lateness.app > 0 || lateness.mic > 0 else {
      steadyFrames += frames
      return
    }
    statistics.lateEvents += 1
    steadyFrames = 0
    let now = outputPosition
    let (span, gap) = (outputRate / 2, outputRate)
    var worst = 0
    if lateness.app > 0, let w = lateEvents.app.note(lateness.app, at: now, span: span, gap: gap) {
      worst = max(worst, w)
    }
    if lateness.mic > 0, let w = lateEvents.mic.note(lateness.mic, at: now, span: span, gap: gap) {
      worst = max(worst, w)
    }
    guard worst > 0, isAdaptive, latency < maximumLatency else { return }
    // Whole pulls, so each pull is either all timeline or all hold.
    let wanted = worst + margin
    let raise = min((wanted + frames - 1) / frames * frames, maximumLatency - latency)
    latency += raise
    hold += raise
    // A raise ends any lowering under way.
    lowering = 0
    statistics.latencyRaises += 1
    statistics.latencyFrames = latency
  }

  /// Lowers the latency toward what delivery needs (see the type's description), after a
  /// running pull: `a` and `b` as the sources stand now, `emptyAhead` the frames from
  /// ``position`` on where neither source has audio.
  mutating func lower(_ a: SourceState, _ b: SourceState, frames: Int, emptyAhead: Int) {
    guard lowers else { return }
    let headroom = min(
      Self.isLive(a) ? a.nextPosition - position : .max,
      Self.isLive(b) ? b.nextPosition - position : .max)
    if headroom != .max {
      windowHeadroom = min(windowHeadroom, headroom)
      windowFrames += frames
    }
    if windowFrames >= lowerWindow {
      // What a pull needs of every source beyond its own frames: a pull, the margin, a fade.
      let keep = frames + margin + fadeFrames
      let spare = min(windowHeadroom - keep, latency - minimumLatency)
      if steadyFrames >= lowerWindow && lowering <= 0 && compression == 0
        && spare >= lowerThreshold
      {
        lowering = Double(spare)
        statistics.latencyLowerings += 1
      }
      (windowHeadroom, windowFrames) = (.max, 0)
    }
    // Silence first: where neither source has audio, frames are skipped whole. A stretch of
    // silence found while the latency is above where it started (a pause after a stall hold)
    // goes at once.
    let excess = max(
      Int(lowering.rounded(.down)), latency - max(statistics.initialLatencyFrames, minimumLatency))
    let skip = min(excess, emptyAhead - fadeFrames)
    if skip >= frames && compression == 0 {
      position += skip
      latency -= skip
      lowering = max(0, lowering - Double(skip))
      statistics.silenceSkippedFrames += skip
      statistics.latencyFrames = latency
      return
    }
    guard lowering > 0 || compression > 0 else { return }
    // Then the timeline, compressed through the sources' resamplers: ramped in, held, and
    // ramped out where what is left would take the ramp to end. The sources run at the
    // compression in force, so the shift follows it to the end of the ramp.
    let step = compressionSlope * Double(frames)
    let rampOut = compression * compression / (2 * compressionSlope)
    let target = lowering > rampOut ? Self.maxCompression : 0
    compression =
      target > compression ? min(target, compression + step) : max(target, compression - step)
    let taken = compression * Double(frames)
    shift += taken
    lowering -= taken
    if compression == 0 { lowering = 0 }
    let whole = Int(shift.rounded(.down))
    if whole > loweredWhole {
      latency -= whole - loweredWhole
      loweredWhole = whole
    }
    statistics.compressedFrames = shift
    statistics.latencyFrames = latency
  }

  /// Skips ahead when every stamped, enabled source that has audio waiting is further ahead than
  /// the longest latency the timeline holds (and one of its longest buffers): the consumer fell
  /// behind further than any lowering could make up. Returns the frames skipped (whole pulls).
  mutating func skipAhead(_ a: SourceState, _ b: SourceState, frames: Int) -> Int {
    let useA = a.isEnabled && a.isStamped && !a.isEmpty
    let useB = b.isEnabled && b.isStamped && !b.isEmpty
    guard useA || useB else { return 0 }
    let ahead = min(useA ? a.nextPosition : .max, useB ? b.nextPosition : .max) - position
    let slack = max(outputRate / 10, useA ? a.largestBuffer : 0, useB ? b.largestBuffer : 0)
    guard ahead > max(latency, maximumLatency) + slack else { return 0 }
    let skip = (ahead - latency) / frames * frames
    position += skip
    statistics.skippedFrames += skip
    statistics.position = position
    return skip
  }
}

/// A source's run of late events on the output clock, for the rule that raises the latency: a
/// source late again and again for half a second needs more latency; one late delivery, or a
/// few in a row from a source that is slow to start, is a stall that is over.
struct LateHistory {
  /// Output frames of the run's first and last events (`.min`: no run), how many, and the
  /// largest lateness in it.
  var first = Int.min
  var last = Int.min
  var count = 0
  var most = 0

  /// Notes a late event of `lateness` frames at output frame `now`; returns the lateness to
  /// raise for when the run has lasted `span` frames (events no more than `gap` apart), and
  /// then starts a new run.
  mutating func note(_ lateness: Int, at now: Int, span: Int, gap: Int) -> Int? {
    if last == .min || now - last > gap {
      (first, count, most) = (now, 0, 0)
    }
    last = now
    count += 1
    most = max(most, lateness)
    guard count >= 3, now - first >= span else { return nil }
    defer { (first, last, count, most) = (.min, .min, 0, 0) }
    return most
  }
}

/// What the output clock reads of a source, gathered without copying it.
struct SourceState {
  var hasStarted: Bool
  var isEnabled: Bool
  var isStamped: Bool
  var isEmpty: Bool
  /// Whether its stream was ended (``ClockedCapturePipeline/finish(_:)``) and nothing came since.
  var isFinished: Bool
  /// Where the source's next frame goes on the timeline.
  var nextPosition: Int
  /// Its longest buffer, in output frames.
  var largestBuffer: Int
}
