/// A look-ahead peak limiter for interleaved Float32 frames, in place: no output sample's
/// magnitude exceeds the ceiling, and below the ceiling the signal passes bit for bit.
///
/// With a look-ahead of W frames the output is the input delayed by exactly W frames (zeros
/// first), times a gain shared by all channels of a frame. Per frame it:
/// 1. takes the frame's peak p (the largest magnitude over its channels; a non-finite sample is
///    replaced by 0 first, so it reads as silence and never reaches the state) and the largest
///    gain r ≤ 1 for which `Float(p × r)` stays at or below the ceiling;
/// 2. holds the smallest r of the last W + 1 + hold frames (a monotonic queue of the frames
///    over the ceiling, by peak): the frame leaving the delay line, the W after it and the hold
///    frames before it are all in that window;
/// 3. releases toward 1: the distance of the gain from 1 shrinks by a factor e every
///    ``Configuration/releaseSeconds``, never rising above the held minimum (instant attack);
/// 4. averages that over the last W + 1 frames, which turns a step down into a linear ramp
///    across the look-ahead. Each value averaged for the frame leaving the delay line is at most
///    that frame's own r, so the mean is too. The average is kept exactly — the values are
///    floored to multiples of 2⁻³⁰ and summed as integers — so the mean never rounds above r,
///    and it is exactly 1 when every value is.
///
/// Every output sample therefore satisfies `abs(y) ≤ ceiling` in Float32, and, since
/// ``PCMEncoder/int16(_:)`` is monotonic, `PCMEncoder.int16(y)` lies within ± the ceiling's int16
/// value. When the gain is at rest and nothing in the window exceeds the ceiling, the gain is
/// exactly 1 and the output is the delayed input bit for bit; such stretches take a fast path
/// (a SIMD magnitude scan plus the delay-line swap). Results do not depend on how a stream is
/// split into calls.
///
/// Storage is allocated once, at creation; processing allocates nothing (a copy of a limiter
/// gets its own storage the first time it processes, as arrays do).
public struct Limiter: Sendable {
  /// The configuration in effect (the one given, ``Configuration/clamped``).
  public let configuration: Configuration
  /// The linear ceiling: the largest Float not above 10^(``Configuration/ceilingDB``/20).
  public let ceiling: Float
  /// Frames of delay, ``Configuration/lookaheadFrames``.
  public var latencyFrames: Int { lookahead }
  /// Samples whose gain was below 1, since creation or ``reset()`` (frames × channels).
  public internal(set) var reducedSamples = 0
  /// The gain applied to the most recent output frame (1 at rest).
  public internal(set) var gain: Float = 1

  let channels: Int
  let lookahead: Int
  /// Frames the minimum is held over: look-ahead + 1 + hold.
  let window: Int
  /// Per-frame factor applied to the gain's distance from 1 while releasing.
  let releaseFactor: Double
  /// `ceiling`'s bit pattern: a magnitude's bits compare as integers in the same order.
  let ceilingBits: Int32
  /// W frames of delay line, a ring starting at `delayPosition`, then W spare frames that
  /// ``_delay(_:_:_:)`` passes the line's next contents through.
  var delay: [Float]
  var delayPosition = 0
  /// The monotonic queue of (frame index, peak) over frames with a peak above the ceiling,
  /// increasing in index and decreasing in peak, a ring.
  var queueIndex: [Int]
  var queuePeak: [Float]
  var queueHead = 0
  var queueCount = 0
  /// The r of the queue's front: the held minimum while the queue is not empty.
  var heldGain: Double = 1
  /// Index of the next input frame.
  var frameIndex = 0
  /// How far the released, held gain (before averaging) is below 1; Double, so that the
  /// release never stalls on rounding before it reaches ``snap``.
  var releaseGap: Double = 0
  /// The last W + 1 envelope values in units of 2⁻³⁰, a ring, and their exact sum.
  var box: [Int64]
  var boxPosition = 0
  var boxSum: Int64
  /// The lowest gain applied since ``takeMinimumGainDB()`` last ran.
  var minimumGain: Float = 1

  /// Gains closer to 1 than this while releasing become exactly 1 (−8 × 10⁻⁶ dB).
  static let snap: Double = 0x1p-20
  /// The envelope's fixed-point unit.
  static let unit: Double = 0x1p30
  /// Frames scanned per fast-path decision.
  static let chunk = 256

  /// Creates a limiter; allocates its delay line and queues.
  public init(_ configuration: Configuration = Configuration()) {
    let c = configuration.clamped
    self.configuration = c
    let exact = Math.pow(10, c.ceilingDB / 20)
    var linear = Float(exact)
    if Double(linear) > exact { linear = linear.nextDown }
    ceiling = linear
    ceilingBits = Int32(bitPattern: linear.bitPattern)
    channels = c.channelCount
    lookahead = c.lookaheadFrames
    let hold = Int((c.holdSeconds * Double(c.sampleRate)).rounded())
    window = lookahead + 1 + hold
    releaseFactor = Math.exp(-1 / (c.releaseSeconds * Double(c.sampleRate)))
    delay = [Float](repeating: 0, count: 2 * lookahead * channels)
    queueIndex = [Int](repeating: 0, count: window)
    queuePeak = [Float](repeating: 0, count: window)
    box = [Int64](repeating: Int64(Self.unit), count: lookahead + 1)
    boxSum = Int64(Self.unit) * Int64(lookahead + 1)
  }

  /// Whether the gain is exactly 1 and stays so while nothing over the ceiling arrives.
  public var isAtRest: Bool {
    queueCount == 0 && releaseGap == 0 && boxSum == Int64(Self.unit) * Int64(lookahead + 1)
  }

  /// Returns the lowest gain applied since the previous call (or creation), in dB — 0 when the
  /// limiter did not act, −infinity for a gain of 0 — and starts a new period.
  public mutating func takeMinimumGainDB() -> Double {
    let g = minimumGain
    minimumGain = 1
    return g == 1 ? 0 : 20 * Math.log10(Double(g))
  }

  /// Returns to the state at creation: silence in the delay line, gain 1, counters 0.
  public mutating func reset() {
    for i in delay.indices { delay[i] = 0 }
    delayPosition = 0
    queueHead = 0
    queueCount = 0
    frameIndex = 0
    releaseGap = 0
    heldGain = 1
    for i in box.indices { box[i] = Int64(Self.unit) }
    boxPosition = 0
    boxSum = Int64(Self.unit) * Int64(lookahead + 1)
    minimumGain = 1
    reducedSamples = 0
    gain = 1
  }

  /// Limits `buffer.count / channelCount` whole frames of `buffer` in place (a partial frame
  /// at the end is left alone).
  ///
  /// - Complexity: O(frames); no allocation.
  public mutating func process(_ buffer: UnsafeMutableBufferPointer<Float>) {
    guard let base = buffer.baseAddress else { return }
    process(base, frames: buffer.count / channels)
  }

  /// Limits `frames` interleaved frames at `samples` in place: each output frame is the input
  /// frame ``latencyFrames`` earlier, times the gain. A count below 1 does nothing.
  ///
  /// - Complexity: O(frames); no allocation. At rest and below the ceiling, about one SIMD
  ///   magnitude scan plus the delay-line swap.
  public mutating func process(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    guard frames > 0 else { return }
    var delay = self.delay
    var queueIndex = self.queueIndex
    var queuePeak = self.queuePeak
    var box = self.box
    self.delay = []
    self.queueIndex = []
    self.queuePeak = []
    self.box = []
    delay.withUnsafeMutableBufferPointer { d in
      queueIndex.withUnsafeMutableBufferPointer { qi in
        queuePeak.withUnsafeMutableBufferPointer { qv in
          box.withUnsafeMutableBufferPointer { b in
            let line = d.baseAddress ?? samples
            var done = 0
            while done < frames {
              let n = min(Self.chunk, frames - done)
              let p = samples + done * channels
              if isAtRest && _maxMagnitudeBits(p, n * channels) <= ceilingBits {
                _delay(p, n, line)
                frameIndex += n
                boxPosition = (boxPosition + n) % (lookahead + 1)
                gain = 1
              } else {
                // Stereo gets its own copy of the loop, with the channel loops unrolled.
                if channels == 2 {
                  _limit(p, n, 2, line, qi.baseAddress!, qv.baseAddress!, b.baseAddress!)
                } else {
                  _limit(p, n, channels, line, qi.baseAddress!, qv.baseAddress!, b.baseAddress!)
                }
              }
              done += n
            }
          }
        }
      }
    }
    self.delay = delay
    self.queueIndex = queueIndex
    self.queuePeak = queuePeak
    self.box = box
  }

  /// Runs `body` on the delay line's W frames, oldest first (as a block of W frames or more
  /// leaves them: ``delayPosition`` 0).
  func withLine<R>(_ body: (UnsafePointer<Float>) -> R) -> R {
    precondition(delayPosition == 0)
    return delay.withUnsafeBufferPointer { body($0.baseAddress!) }
  }

  /// Moves past `frames` frames at `samples` that the caller knows to be at or below the
  /// ceiling (their largest magnitude's bits at most ``ceilingBits``) without scanning them,
  /// exactly as ``process(_:frames:)`` would: only at rest, when the frames pass at gain 1
  /// (through the delay line, with look-ahead). Returns whether it did; otherwise the caller
  /// runs `process`.
  mutating func passQuiet(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> Bool {
    guard isAtRest, frames > 0 else { return false }
    if lookahead > 0 {
      var delay = self.delay
      self.delay = []
      delay.withUnsafeMutableBufferPointer { _delay(samples, frames, $0.baseAddress!) }
      self.delay = delay
      boxPosition = (boxPosition + frames) % (lookahead + 1)
    }
    frameIndex += frames
    gain = 1
    return true
  }

  /// Writes the frames still in the delay line into `output` by processing silence: the end of
  /// a stream. Writes min(``latencyFrames``, `output.count / channelCount`) frames and returns
  /// that count; give it room for ``latencyFrames`` frames to drain the line in one call. The
  /// limiter is left as after that much silence (call ``reset()`` to start a new stream).
  ///
  /// - Complexity: O(``latencyFrames``); no allocation.
  public mutating func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    let n = min(lookahead, output.count / channels)
    guard n > 0, let base = output.baseAddress else { return 0 }
    base.update(repeating: 0, count: n * channels)
    process(base, frames: n)
    return n
  }
}
