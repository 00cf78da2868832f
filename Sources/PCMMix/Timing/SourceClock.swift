/// Where one source's buffers land on the timeline, and how fast its clock really runs.
///
/// The timeline counts output frames from the pipeline's origin: a buffer stamped `t` seconds
/// after the origin belongs at `P = t × outputRate`. The clock keeps `E`, where the next input
/// frame would land if the source went on without a break (each buffer moves it by its frames ×
/// the resampler's ratio), and compares each stamp with it:
///
/// ```
///            E (expected)          P (stamped)
/// timeline ──┼────────────────────────┼────────▶
///            │◀── e = P − E ─────────▶│
///  |e| ≤ tolerance   contiguous: e steers the resampler's ratio (the drift loop)
///  e  > tolerance    a gap (pause, lost buffer): the source restarts at P, silence between
///  e  < −tolerance   an overlap (time went back a little, a resent buffer): the part already
///                    placed is trimmed; further back than `maxOverlap`, the stamp cannot be
///                    right: the buffer goes on by arrival, and three such stamps that agree
///                    with each other move the source to them (a resync)
/// ```
/// The drift loop is a proportional-integral controller on `e` (critically damped, time
/// constant ``Configuration/timeConstant``, faster while it first finds the clock:
/// ``acquisition``): the integral settles on the ratio correction the source's clock needs
/// (`−driftPPM`), the proportional part pulls the position back onto the stamps. Unstamped buffers are placed by arrival by the pipeline and do not move the loop.
struct SourceClock {
  struct Configuration {
    /// Output frames per second: the timeline's unit.
    var outputRate: Double
    /// How far (seconds) a stamp may be from where the audio goes on before it is a gap or an
    /// overlap (on top of one unit of the stamp's timescale, which quantizes it).
    var tolerance: Double
    /// The furthest back (seconds) a stamp is taken as an overlap; further is a bad stamp.
    var maxOverlap: Double
    /// Whether stamps steer the resampler's ratio.
    var steers: Bool
    /// The drift loop's time constant in seconds.
    var timeConstant: Double
    /// The largest ratio correction the loop applies.
    var maxAdjustment: Double
  }

  /// What to do with a buffer.
  enum Placement: Equatable {
    /// Append after what came before (contiguous, or placed by arrival).
    case contiguous
    /// The source starts, or restarts after a gap or a resync, at this timeline position: end
    /// the previous run (flush the resampler) and jump.
    case jump(to: Int)
    /// Drop this many leading frames of the buffer (they overlap what was placed), append the rest.
    case trim(Int)
    /// Drop the whole buffer (a resent copy, or entirely in the past).
    case drop
  }

  let configuration: Configuration
  /// Where the next input frame lands (output frames), once the source has started.
  private(set) var expected: Double?
  /// Whether the source has ever delivered a stamp.
  private(set) var isStamped = false
  /// The ratio correction in force: the resampler runs at nominal × (1 + adjustment).
  private(set) var adjustment = 0.0
  /// The drift loop's integral: the correction the source's clock needs.
  private(set) var integral = 0.0
  /// The output clock's compression, which the resampler runs at on top of ``adjustment``.
  var compression = 0.0
  /// Frames added to this source's stamp positions since its clock jumped (see
  /// ``place(stamp:position:frames:rate:fingerprint:now:window:)``).
  private(set) var anchor = 0.0
  /// The last stamp and a fingerprint of its buffer, to tell a resent buffer from a run of
  /// buffers that all carry one stamp.
  private var lastStamp: MediaTime?
  private var lastFingerprint: Fingerprint?
  /// Consecutive stamps that could not be right, and the offset they agree on.
  private var badRun = 0
  private var badOffset = 0.0
  /// What happened so far.
  var counters = SourceClockCounters()
  /// Seconds of stamped audio the drift loop has steered by (see ``acquisition``).
  private(set) var steered = 0.0

  init(_ configuration: Configuration) {
    self.configuration = configuration
  }

  /// The source's clock error against the host clock, in parts per million (positive: it
  /// delivers more frames per host second than its nominal rate), as the loop estimates it.
  var driftPPM: Double { isStamped ? -integral * 1e6 : 0 }

  /// Decides where a stamped buffer of `frames` frames at `rate` goes. `position` is its stamp
  /// on the timeline (output frames after the origin); `now` where the pipeline estimates the
  /// newest audio to be (`nil` when it knows of none yet), and `window` how far from `now` a
  /// stamp can plausibly lie.
  mutating func place(
    stamp: MediaTime, position stamped: Double, frames: Int, rate: Int, fingerprint: Fingerprint,
    now: Double?, window: Double
  ) -> Placement {
    let c = configuration
    counters.buffers += 1
    counters.framesIn += frames
    defer {
      lastStamp = stamp
      lastFingerprint = fingerprint
    }
    isStamped = true
    // This source's stamps, moved by its anchor (after a clock jump, see below).
    let position = stamped + anchor
    func fits(_ p: Double) -> Bool {
      guard let now else { return true }
      return p >= now - window && p <= now + window
    }
    guard let e0 = expected else {
      // A first stamp that cannot be the other source's clock (seconds away from its audio) is
      // anchored where the buffer arrives instead.
      if let now, !fits(position) {
        anchor += now - position
        counters.resyncs += 1
        return start(at: now)
      }
      return start(at: position)
    }
    if stamp == lastStamp {
      // The same stamp again: a resent buffer (same bytes) is dropped; a run of different
      // buffers under one stamp (some devices deliver half a second so) goes on by arrival.
      if fingerprint == lastFingerprint {
        counters.duplicates += 1
        counters.framesTrimmed += frames
        return .drop
      }
      counters.arrivalPlaced += 1
      return .contiguous
    }
    let e = position - e0
    let tolerance = (c.tolerance + 1 / Double(stamp.timescale)) * c.outputRate
    if abs(e) <= tolerance {
      badRun = 0
      let interval = Double(frames) / Double(rate)
      steered += interval
      steer(error: e, interval: interval, timeConstant: c.timeConstant * Self.gear(steered, c))
      counters.lastError = e / c.outputRate
      return .contiguous
    }
    if e > tolerance && fits(position) {
      // Ahead, where audio can be: a pause, a lost buffer.
      badRun = 0
      counters.gaps += 1
      counters.gapFrames += Int(e.rounded())
      return start(at: position)
    }
    if e < 0 && -e <= c.maxOverlap * c.outputRate {
      badRun = 0
      let perFrame = c.outputRate / Double(rate) * (1 + adjustment - compression)
      let k = Int((-e / perFrame).rounded())
      counters.overlaps += 1
      counters.framesTrimmed += min(k, frames)
      return k >= frames ? .drop : (k > 0 ? .trim(k) : .contiguous)
    }
    // Further back than any overlap, or further ahead than any audio can be yet: this stamp
    // cannot be right. Place the buffer by arrival, unless three in a row agree with each other:
    // then the source's clock really moved. Stamps that fit the timeline move the source onto
    // them; stamps that do not (a device clock reset seconds away) are re-anchored, so that the
    // source goes on where it is, heard at once.
    if badRun > 0 && abs(e - badOffset) <= tolerance {
      badRun += 1
    } else {
      (badRun, badOffset) = (1, e)
    }
    if badRun >= 3 {
      badRun = 0
      counters.resyncs += 1
      if fits(position) { return start(at: position) }
      anchor -= e
      return .contiguous
    }
    counters.arrivalPlaced += 1
    return .contiguous
  }

  /// Decides where an unstamped buffer goes: by arrival, after what came before; or, when the
  /// source has not started or has run dry (nothing of it is left for the output to play),
  /// at `arrival`, the timeline position the pipeline estimates for its first frame.
  mutating func placeByArrival(frames: Int, arrival: Double, runDry: Bool) -> Placement {
    counters.buffers += 1
    counters.framesIn += frames
    guard expected != nil else { return start(at: arrival) }
    if isStamped {
      counters.arrivalPlaced += 1
      return .contiguous
    }
    if runDry && arrival > expected! {
      counters.restarts += 1
      return start(at: arrival)
    }
    return .contiguous
  }

  /// Moves `expected` past `frames` input frames at `rate` (after they are processed), at the
  /// ratio the resampler ran at: the correction, less the output clock's compression.
  mutating func advance(frames: Int, rate: Int) {
    guard expected != nil else { return }
    let ratio = 1 + adjustment - compression
    expected! += Double(frames) * configuration.outputRate / Double(rate) * ratio
  }

  /// Moves the source's place on the timeline by `delta` frames (arrival placement re-based).
  mutating func shift(by delta: Int) {
    if expected != nil { expected! += Double(delta) }
  }

  /// The drift loop starts fast and slows to its time constant τ: at first the source's
  /// clock error is unknown (a phone's can be hundreds of ppm) and the loop must find it before
  /// the position wanders; once found, it must not follow the stamps' jitter. For the first
  /// `span` × τ seconds of stamped audio the time constant in force rises linearly from `start`
  /// × τ to τ. With τ = 2 s (0.25 s, rising to 2 s over 7 s), a clock 300 ppm off from the
  /// start strays at most 1.6 output frames at 48 kHz from its stamps and is found within 2 %
  /// in 2.2 s (`LoopResponseTests`), where a fixed 2 s loop let it stray 11 frames and took
  /// 11 s: in a live capture, enough to move the echo path the echo canceller had learnt
  /// (`EchoLiveCaptureTests`).
  static let acquisition = (start: 0.125, span: 3.5)

  /// The share of the time constant in force after `seconds` of stamped audio
  /// (``acquisition``).
  static func gear(_ seconds: Double, _ c: Configuration) -> Double {
    let a = acquisition
    return min(1, a.start + (1 - a.start) * seconds / (a.span * c.timeConstant))
  }

  /// One step of the drift loop: `error` output frames (stamp − expected) measured over the
  /// last `interval` seconds. A proportional-integral controller, critically damped with time
  /// constant `timeConstant`: Kp = 2/τ, Ki = 1/τ².
  mutating func steer(error: Double, interval: Double, timeConstant: Double) {
    guard configuration.steers else { return }
    let c = configuration
    let seconds = error / c.outputRate
    let limit = c.maxAdjustment
    integral = min(
      max(integral + seconds * interval / (timeConstant * timeConstant), -limit), limit)
    adjustment = min(max(integral + 2 * seconds / timeConstant, -limit), limit)
  }

  private mutating func start(at position: Double) -> Placement {
    let p = position.rounded()
    expected = p
    return .jump(to: Int(p))
  }
}

/// What a source's clock has done with its buffers.
struct SourceClockCounters: Equatable {
  var buffers = 0
  var framesIn = 0
  var framesTrimmed = 0
  var duplicates = 0
  var overlaps = 0
  var gaps = 0
  var gapFrames = 0
  var arrivalPlaced = 0
  var resyncs = 0
  var restarts = 0
  var lastError = 0.0
}

/// The identity of a buffer: its length and a hash of 128 eight-byte words spread evenly over
/// it (all of them in a buffer of 1 KiB or less) and of its last eight bytes, to tell a resent
/// buffer from the next one at a cost that does not grow with the buffer. Real audio differs
/// everywhere between two buffers; two buffers of silence with a short sound in one of them
/// differ in a sampled word when the sound spans more than 1/128 of the buffer (a 10 ms marker
/// in a 1,024-frame buffer spans 47 %). Buffers that look the same (two of pure silence) are
/// harmless to confuse: dropping a silent buffer as resent leaves silence in its place.
struct Fingerprint: Equatable {
  var count: Int
  var hash: UInt64

  /// Words hashed at most.
  static let words = 128

  /// The fingerprint of the planes in view taken back to back: the same as that of one run of
  /// bytes holding them so.
  init(_ bytes: PCMPlanes) {
    count = bytes.byteCount
    if bytes.isOneRun && count > 0 {
      // The usual case, read in place with plain loads.
      let base = bytes.base(0)
      hash = Self.hash(count) {
        base.loadUnaligned(fromByteOffset: $0, as: UInt64.self)
      } byte: {
        base.load(fromByteOffset: $0, as: UInt8.self)
      }
    } else {
      hash = Self.hash(count, word: bytes.loadWord(at:), byte: bytes.byte(at:))
    }
  }

  /// The hash of `count` bytes, read through `word` (8 bytes at a byte offset) and `byte`.
  @inline(__always)
  static func hash(
    _ count: Int, word: (Int) -> UInt64, byte: (Int) -> UInt8
  ) -> UInt64 {
    @inline(__always) func mix(_ h: UInt64, _ word: UInt64) -> UInt64 {
      let m = (h ^ word) &* 0x100_0000_01b3
      return m ^ (m >> 29)
    }
    // Four lanes take every fourth sampled word, so that four multiply chains run side by side
    // (one chain waits on each multiply: most of a 10 ms append's time, before).
    var h = (
      UInt64(0x9E37_79B9_7F4A_7C15), UInt64(0xC2B2_AE3D_27D4_EB4F), UInt64(0x1656_67B1_9E37_79F9),
      UInt64(0x27D4_EB2F_1656_67C5)
    )
    let total = count / 8
    let step = max(1, total / Self.words)
    var i = 0
    while i + 3 * step < total {
      h = (
        mix(h.0, word(8 * i)), mix(h.1, word(8 * (i + step))), mix(h.2, word(8 * (i + 2 * step))),
        mix(h.3, word(8 * (i + 3 * step)))
      )
      i += 4 * step
    }
    while i < total {
      h.0 = mix(h.0, word(8 * i))
      i += step
    }
    var all = mix(mix(mix(h.0, h.1), h.2), h.3)
    if count >= 8 { all ^= word(count - 8) &* 0x9E37_79B1 }
    for j in (total * 8)..<count { all = (all ^ UInt64(byte(j))) &* 0x100_0000_01b3 }
    return all
  }
}
