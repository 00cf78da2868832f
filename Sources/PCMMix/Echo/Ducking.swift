/// Ducking: the app turned down while the talker speaks, so the voice sits on top. The voice is
/// detected on the mic after its echo is taken out (with ``ClockedCapturePipeline/Configuration``'s
/// `echoCancellation` off the canceller still runs for the detector, without touching the mic),
/// so the app's own echo never ducks the app. The detector runs ahead of the output by up to
/// ``lookahead`` (as far as both sources have delivered): the duck starts before the first
/// syllable. The gain moves in dB along ramps, never steps: down over ``attack``, held
/// ``hold`` after the voice, up over ``release``. Where the app's echo is loud enough to hide
/// the talker from the detector, the duck holds on through it, for at most one more ``hold``:
/// the app does not come back up between two of the talker's words.
public struct Ducking: Equatable, Sendable {
  /// How far the app goes down while the talker speaks (dB, default 10).
  public var depthDB = 10.0
  /// The ramp down (seconds, default 0.04).
  public var attack = 0.04
  /// How long the duck holds after the voice stops (seconds, default 0.3): the gaps between
  /// words do not pump.
  public var hold = 0.3
  /// The ramp back up (seconds, default 0.5).
  public var release = 0.5
  /// How far ahead of the output the voice is looked for (seconds, default 0.06).
  public var lookahead = 0.06

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
  let lookahead: Int
  /// Spans of voice (timeline frames), oldest first, in a ring.
  var spans: [(start: Int, end: Int)]
  var first = 0
  var count = 0
  /// The current gain (dB, 0 … −depth) and its linear value.
  package private(set) var gainDB = 0.0
  /// The last ``window`` blocks' decisions, newest last: whether each held a voice, and where
  /// it starts.
  var recentVoice: [Bool]
  var recentStart: [Int]
  var recentAt = 0
  /// The end of the last span a voice was read in (not merely held through).
  var confirmedEnd = Int.min / 2

  static let capacity = 64
  /// A voice is taken as one when at least ``confirming`` of the last ``window`` blocks hold
  /// it; the span then starts at the first of them. A lone block that reads as a voice (what a
  /// residual echo leaves now and then) ducks nothing; a syllable, many blocks long, does, and
  /// from its first block on, inside the look-ahead.
  static let confirming = 3
  static let window = 4

  package init(_ settings: Ducking, rate: Int) {
    depth = settings.depthDB
    attackStep = settings.depthDB / max(1, settings.attack * Double(rate))
    releaseStep = settings.depthDB / max(1, settings.release * Double(rate))
    holdFrames = Int(settings.hold * Double(rate))
    lookahead = Int(settings.lookahead * Double(rate))
    spans = Array(repeating: (0, 0), count: Self.capacity)
    recentVoice = Array(repeating: false, count: Self.window)
    recentStart = Array(repeating: 0, count: Self.window)
  }

  /// Frames the detector should run ahead of the output.
  package var lookaheadFrames: Int { lookahead }

  /// The block at `start ..< start + frames` holds a voice (`voice`) or not, or the detector
  /// cannot tell (`uncertain`: the app's echo could hide a voice there); blocks come in
  /// timeline order.
  package mutating func note(voice: Bool, uncertain: Bool = false, start: Int, frames: Int) {
    // A block the detector cannot tell (a loud echo over the talker) carries the last span on
    // while the duck still holds, up to one hold past the last block a voice was read in.
    if !voice && uncertain && count > 0 {
      let last = (first + count - 1) % Self.capacity
      let end = start + frames
      if spans[last].end + holdFrames > start && confirmedEnd >= end - holdFrames {
        spans[last].end = max(spans[last].end, end)
      }
    }
    let w = recentVoice.count
    recentVoice[recentAt] = voice
    recentStart[recentAt] = start
    recentAt = (recentAt + 1) % w
    guard voice else { return }
    // Confirmed by enough of the recent blocks; the span from the oldest of them that held it.
    var held = 0
    var from = start
    for i in 0..<w where recentVoice[(recentAt + i) % w] {
      if held == 0 { from = recentStart[(recentAt + i) % w] }
      held += 1
    }
    guard held >= Self.confirming else { return }
    record(from: from, to: start + frames)
    confirmedEnd = start + frames
  }

  /// Adds (or extends the last) span of voice.
  mutating func record(from start: Int, to end: Int) {
    if count > 0 {
      let last = (first + count - 1) % Self.capacity
      if spans[last].end >= start {
        spans[last].end = max(spans[last].end, end)
        return
      }
    }
    if count == Self.capacity {
      first = (first + 1) % Self.capacity
      count -= 1
    }
    spans[(first + count) % Self.capacity] = (start, end)
    count += 1
  }

  /// Whether the duck should be down at timeline frame `k`: a voice within the look-ahead, or
  /// one that ended less than the hold ago.
  func wanted(at k: Int) -> Bool {
    for i in 0..<count {
      let s = spans[(first + i) % Self.capacity]
      if s.start <= k + lookahead && s.end + holdFrames > k { return true }
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
