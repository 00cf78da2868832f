/// Ducking: the app turned down while the talker speaks, so the voice sits on top. The voice is
/// detected on the mic after its echo is taken out (with ``ClockedCapturePipeline/Configuration``'s
/// `echoCancellation` off the canceller still runs for the detector, without touching the mic),
/// so the app's own echo never ducks the app. The detector runs ahead of the output by up to
/// ``lookahead`` (as far as both sources have delivered): the duck starts before the first
/// syllable, and a pause is known for what it is before the output reaches it. A voice ducks
/// once it reads in most blocks over 43 ms (the bursts an echo the canceller has not yet learnt
/// leaves are shorter), and the duck then starts where that voice began, up to 0.4 s earlier
/// within the look-ahead (a first syllable under a loud echo reads only here and there). The
/// gain moves
/// in dB along ramps, never steps: down over ``attack``; through a pause shorter than ``hold``
/// it stays down (the gaps between words do not pump); after the last word it comes up over
/// ``release`` as soon as the look-ahead shows no voice within ``hold`` (at once when
/// ``lookahead`` ≥ ``hold``; with less, ``hold`` − ``lookahead`` after the voice). Where the
/// app's echo is loud enough to hide the talker from the detector, a span of voice carries on
/// through the blocks it cannot tell that follow it directly, for at most one more ``hold``.
///
/// In ``ClockedCapturePipeline`` the look-ahead is audio the timeline holds already: with
/// ducking on, the pipeline runs at least ``lookahead`` and 30 ms behind the newest audio
/// (0.53 s by default; 43 ms more with echo cancellation on, for its suppressor's look-ahead),
/// whatever lower ``ClockedCapturePipeline/Configuration/latency`` asks for. `pcm-mix mix`
/// reads its files that far ahead.
public struct Ducking: Equatable, Sendable {
  /// How far the app goes down while the talker speaks (dB, default 10).
  public var depthDB = 10.0
  /// The ramp down (seconds, default 0.04).
  public var attack = 0.04
  /// The longest pause in the voice the duck stays down through (seconds, default 0.5): the
  /// gaps between words do not pump.
  public var hold = 0.5
  /// The ramp back up (seconds, default 0.25).
  public var release = 0.25
  /// How far ahead of the output the voice is looked for (seconds, default 0.5): the duck
  /// starts ``attack`` and 20 ms before the voice, and lets go at the end of a sentence once
  /// this shows no voice within ``hold``.
  public var lookahead = 0.5

  /// The defaults.
  public init() {}

  /// Checks the values.
  ///
  /// - Throws: ``ConfigurationError`` naming the first value at fault.
  public func validate() throws(ConfigurationError) {
    for (name, value, range) in [
      ("depthDB", depthDB, 0.0...60), ("attack", attack, 0.001...1), ("hold", hold, 0...5),
      ("release", release, 0.001...5), ("lookahead", lookahead, 0...0.5),
    ] where !range.contains(value) {
      throw ConfigurationError(
        name, "\(value) is not in \(range.lowerBound) … \(range.upperBound)")
    }
  }
}

/// The ducking gain over the timeline: voice decisions come in block by block, ahead of the
/// output; ``apply(_:at:frames:)`` turns down stereo frames at their timeline position.
package struct Ducker {
  let depth: Double
  let attackStep: Double
  let releaseStep: Double
  let holdFrames: Int
  let unsureFrames: Int
  let lookahead: Int
  /// How far ahead of a voice the duck starts down: ``Ducking/attack`` and 20 ms, within the
  /// look-ahead.
  let lead: Int
  /// Spans of voice (timeline frames), oldest first, in a ring.
  var spans: [(start: Int, end: Int)]
  var first = 0
  var count = 0
  /// The current gain (dB, 0 … −depth) and its linear value.
  package private(set) var gainDB = 0.0
  /// The detector's last ``historyCapacity`` verdicts in a ring, newest at `historyAt - 1`:
  /// where each block starts and what it read.
  var history: [(start: Int, verdict: Verdict)]
  var historyAt = 0
  var historyCount = 0
  /// The end of the last span a voice was read in (not merely held through).
  var confirmedEnd = Int.min / 2
  /// The end of the last block noted: how far the detector has read.
  var seen = Int.min / 2
  /// How far back (frames) a new span may start before the blocks that confirmed it, and the
  /// longest run of quiet blocks it may reach across (``reachBack``, ``quietGap``).
  let reachFrames: Int
  let gapFrames: Int

  /// What the detector read in a block.
  enum Verdict: UInt8 {
    /// No voice.
    case quiet
    /// A voice.
    case voice
    /// It could not tell: the app's echo could hide a voice there.
    case unsure
  }

  static let capacity = 64
  /// Verdicts kept: enough for ``reachBack`` in blocks of 256 frames at 48 kHz and more.
  static let historyCapacity = 128
  /// A voice is taken as one when at least ``confirming`` of the last ``window`` blocks hold
  /// it, or, where the app's echo is loud (a talker over loud music reads as voice and doubt
  /// in turn), at least ``sustaining`` of the last ``longWindow`` do and none of those reads
  /// quiet. Bursts of two to four voice blocks among doubt are what an echo the canceller has
  /// not yet learnt leaves (a new note, the phone moved): with the app's piece started 2.15,
  /// 4.3 and 6.45 s later, such bursts ducked the app for 0.2–0.4 s with no one speaking
  /// when three of four blocks, or two and two in doubt, confirmed a voice. A syllable is many
  /// blocks of voice.
  static let confirming = 5
  static let window = 8
  static let sustaining = 7
  static let longWindow = 16
  /// A new span starts at the first voice block of the run of voice and doubt that leads up
  /// to the blocks that confirmed it, up to this far back (seconds, within the look-ahead):
  /// a first syllable under the app's echo often reads only here and there as a voice, and
  /// the voice is confirmed on the syllables after it.
  static let reachBack = 0.4
  /// The longest run of quiet blocks (seconds) that run may cross: the gap between a first
  /// syllable and the next (26 blocks of 256 frames at 48 kHz).
  static let quietGap = 0.14
  /// How close (seconds) after a span's end a block the detector cannot tell must begin to
  /// carry it on. At one hold, as the carry once was, lone such blocks 0.25–0.4 s after a
  /// sentence (the app's music coming back) held the duck that much longer on every music
  /// 120 ms scene. At 0.02 s, a talker 6 dB under the echo, read as doubt with quiet blocks
  /// among it for 25–45 ms, let the duck go mid-sentence on 28 of 36 rows; at 0.05 s on 16.
  /// With the detector's floor from the lesser of mic and error, 8 rows of the ducking bench's
  /// nine tables still let it go once (speech 30 ms from 4.3 s: a sentence's last fragment,
  /// 5–11 dB under the echo, read as doubt from 65 ms after the last voice). At 0.06 s 4 did,
  /// at 0.07 s 2, at 0.1 s none, and no other record moved (those rows' 5th percentile where
  /// the app plays alone −0.33 dB instead of 0.0); at 0.15 s 42 rows missed the 5th percentile
  /// target (down to −6.6 dB: doubt after sentences carried ducks under the app's own echo).
  /// 0.07 s stays at half the reach where that begins, at the cost of 2 rows.
  static let unsureReach = 0.07

  package init(_ settings: Ducking, rate: Int) {
    depth = settings.depthDB
    attackStep = settings.depthDB / max(1, settings.attack * Double(rate))
    releaseStep = settings.depthDB / max(1, settings.release * Double(rate))
    holdFrames = Int(settings.hold * Double(rate))
    lookahead = Int(settings.lookahead * Double(rate))
    lead = min(lookahead, Int((settings.attack + 0.02) * Double(rate)))
    unsureFrames = Int(Self.unsureReach * Double(rate))
    reachFrames = min(lookahead, Int(Self.reachBack * Double(rate)))
    gapFrames = Int(Self.quietGap * Double(rate))
    spans = Array(repeating: (0, 0), count: Self.capacity)
    history = Array(repeating: (0, .quiet), count: Self.historyCapacity)
    // A span written once here, as `record(from:to:)` writes one: in a Debug build the
    // runtime makes that write's type metadata on first use, an allocation that would
    // otherwise come in a pull, at the first voice.
    spans[0] = (0, 0)
  }

  /// Frames the detector should run ahead of the output.
  package var lookaheadFrames: Int { lookahead }

  /// The verdict `back` blocks before the newest (0: the newest).
  func verdict(_ back: Int) -> (start: Int, verdict: Verdict) {
    history[(historyAt - 1 - back + 2 * Self.historyCapacity) % Self.historyCapacity]
  }

  /// The block at `start ..< start + frames` holds a voice (`voice`) or not, or the detector
  /// cannot tell (`uncertain`: the app's echo could hide a voice there); blocks come in
  /// timeline order.
  package mutating func note(voice: Bool, uncertain: Bool = false, start: Int, frames: Int) {
    let end = start + frames
    seen = max(seen, end)
    // A block the detector cannot tell (a loud echo over the talker) carries the last span on
    // when it follows it directly, up to one hold past the last block a voice was read in.
    if !voice && uncertain && confirmedEnd >= end - holdFrames {
      _ = extendLast(to: end, ifEndingAfter: start - unsureFrames)
    }
    history[historyAt] = (start, voice ? .voice : uncertain ? .unsure : .quiet)
    historyAt = (historyAt + 1) % Self.historyCapacity
    historyCount = min(historyCount + 1, Self.historyCapacity)
    guard voice else { return }
    if let from = confirmed() {
      // A new span (not one that goes on within the hold) from where its run began.
      let fresh = count == 0 || spans[lastSpan].end <= from - holdFrames
      record(from: fresh ? runStart(before: from) : from, to: end)
    } else if !extendLast(to: end, ifEndingAfter: start - holdFrames) {
      // A voice block not confirmed only carries an open span on (one that ended within the
      // hold): it takes less to go on than to start (a sentence's last syllable, short and
      // soft, was read in two blocks on four loudspeaker scenes, and the app came back up
      // under it).
      return
    }
    confirmedEnd = end
  }

  /// Where the voice the newest blocks confirm starts (the oldest voice block of the window
  /// that confirms it), or nil if they do not.
  func confirmed() -> Int? {
    voiceStart(in: Self.window, needing: Self.confirming, quietAllowed: true)
      ?? voiceStart(in: Self.longWindow, needing: Self.sustaining, quietAllowed: false)
  }

  /// The oldest voice block of the last `size` blocks, if at least `needed` of them hold a
  /// voice (and, unless `quietAllowed`, none of them reads quiet).
  func voiceStart(in size: Int, needing needed: Int, quietAllowed: Bool) -> Int? {
    guard historyCount >= size else { return nil }
    var held = 0
    var from = 0
    for i in 0..<size {
      let v = verdict(i)
      if v.verdict == .voice {
        held += 1
        from = v.start
      } else if v.verdict == .quiet && !quietAllowed {
        return nil
      }
    }
    return held >= needed ? from : nil
  }

  /// The first voice block of the run of voice and doubt (quiet gaps up to ``quietGap``)
  /// that leads up to `from`, no further back than ``reachBack``.
  func runStart(before from: Int) -> Int {
    var earliest = from
    var heard = from
    for i in 0..<historyCount {
      let v = verdict(i)
      guard v.start < from else { continue }
      if v.start < from - reachFrames { break }
      switch v.verdict {
      case .quiet:
        if heard - v.start > gapFrames { return earliest }
      case .voice:
        earliest = v.start
        heard = v.start
      case .unsure:
        heard = v.start
      }
    }
    return earliest
  }

  /// Where the newest span is in the ring (while `count` > 0).
  var lastSpan: Int { (first + count - 1) % Self.capacity }

  /// Extends the last span to `end` if it ends after `bound`; returns whether it did.
  mutating func extendLast(to end: Int, ifEndingAfter bound: Int) -> Bool {
    guard count > 0 && spans[lastSpan].end > bound else { return false }
    spans[lastSpan].end = max(spans[lastSpan].end, end)
    return true
  }

  /// Adds (or extends the last) span of voice.
  mutating func record(from start: Int, to end: Int) {
    if extendLast(to: end, ifEndingAfter: start - 1) { return }
    if count == Self.capacity {
      first = (first + 1) % Self.capacity
      count -= 1
    }
    spans[(first + count) % Self.capacity] = (start, end)
    count += 1
  }

  /// Whether the duck should be down at timeline frame `k`: in a voice (from ``lead`` before
  /// it), or in a pause after one that another voice ends within the hold, or that the
  /// detector has not yet read a hold's length of (it may still be a gap between words).
  func wanted(at k: Int) -> Bool {
    for i in 0..<count {
      let s = spans[(first + i) % Self.capacity]
      if s.start > k + lead { break }
      if k < s.end { return true }
      guard k < s.end + holdFrames else { continue }
      if i + 1 < count {
        let next = spans[(first + i + 1) % Self.capacity].start
        if k < next && next < s.end + holdFrames { return true }
      } else if seen < s.end + holdFrames {
        return true
      }
    }
    return false
  }

  /// Turns down `frames` stereo frames at timeline position `k`, ramping the gain; forgets the
  /// spans that are past.
  package mutating func apply(_ x: UnsafeMutablePointer<Float>, at k: Int, frames: Int) {
    while count > 0 && spans[first].end + holdFrames <= k {
      first = (first + 1) % Self.capacity
      count -= 1
    }
    guard count > 0 || gainDB < 0 else { return }
    // The linear gain is worked out again only when the gain in dB moves (not on the frames
    // held at the depth).
    var linearDB = gainDB
    var g = Float(Math.pow(10, gainDB / 20))
    var done = 0
    while done < frames {
      // The target is decided 32 frames at a time; the gain slews toward it frame by frame.
      let n = min(32, frames - done)
      let target = wanted(at: k + done) ? -depth : 0
      for i in done..<(done + n) {
        if gainDB > target {
          gainDB = max(target, gainDB - attackStep)
        } else if gainDB < target {
          gainDB = min(target, gainDB + releaseStep)
        }
        if gainDB < 0 {
          if gainDB != linearDB {
            linearDB = gainDB
            g = Float(Math.pow(10, gainDB / 20))
          }
          x[2 * i] *= g
          x[2 * i + 1] *= g
        }
      }
      done += n
    }
  }
}
