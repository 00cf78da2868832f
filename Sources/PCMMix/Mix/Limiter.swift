#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

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
/// ``Encoder/int16(_:)`` is monotonic, `Encoder.int16(y)` lies within ± the ceiling's int16
/// value. When the gain is at rest and nothing in the window exceeds the ceiling, the gain is
/// exactly 1 and the output is the delayed input bit for bit; such stretches take a fast path
/// (a SIMD magnitude scan plus the delay-line swap). Results do not depend on how a stream is
/// split into calls.
///
/// Storage is allocated once, at creation; processing allocates nothing (a copy of a limiter
/// gets its own storage the first time it processes, as arrays do).
public struct Limiter: Sendable {
  /// The ceiling, look-ahead and timing of a ``Limiter``.
  ///
  /// Out-of-range values are not errors: ``clamped`` (which the limiter applies) brings each
  /// field into its range and replaces a non-finite one with its default.
  public struct Configuration: Hashable, Sendable {
    /// Samples per frame, 1…8 (default 2).
    public var channelCount: Int
    /// The ceiling in dBFS, −60…0 (default −1). The linear ceiling is 10^(dB/20) (see
    /// ``Limiter/ceiling``).
    public var ceilingDB: Double
    /// Frames of look-ahead, and so of delay: 0 (instant attack, no delay) up to 100 ms of
    /// frames (default 48, 1 ms at 48 kHz). The gain ramps down across this many frames before
    /// a peak.
    public var lookaheadFrames: Int
    /// Time constant of the release, 1 ms…10 s (default 0.1 s): after a peak, the gain's
    /// distance from unity shrinks by a factor e per `releaseSeconds`, so from any depth the
    /// gain is within 0.1 dB of unity after at most ln(1 / 0.0114) ≈ 4.47 time constants past
    /// the hold and look-ahead (458 ms in all by default), and exactly 1 a few time constants
    /// later (the last 2⁻²⁰ of the distance is skipped).
    public var releaseSeconds: Double
    /// How long the gain stays at a peak's level before releasing, 0…1 s (default 10 ms,
    /// beyond the look-ahead's own hold). While peaks come closer together than this — the
    /// half-period of a tone above 50 Hz at the default — the gain holds steady between them
    /// instead of rippling, so it adds no distortion; it delays recovery by as much.
    public var holdSeconds: Double
    /// Frames per second, 8,000…768,000 (default 48,000).
    public var sampleRate: Double

    /// Creates a configuration; the defaults suit 48 kHz stereo with 1 ms of look-ahead.
    public init(
      channelCount: Int = 2, ceilingDB: Double = -1, lookaheadFrames: Int = 48,
      releaseSeconds: Double = 0.1, holdSeconds: Double = 0.01, sampleRate: Double = 48_000
    ) {
      self.channelCount = channelCount
      self.ceilingDB = ceilingDB
      self.lookaheadFrames = lookaheadFrames
      self.releaseSeconds = releaseSeconds
      self.holdSeconds = holdSeconds
      self.sampleRate = sampleRate
    }

    /// This configuration with every field brought into its documented range (a non-finite
    /// value takes the default).
    public var clamped: Configuration {
      func clamp(_ x: Double, _ lo: Double, _ hi: Double, _ fallback: Double) -> Double {
        x.isFinite ? min(max(x, lo), hi) : fallback
      }
      var c = self
      c.channelCount = min(max(channelCount, 1), 8)
      c.sampleRate = clamp(sampleRate, 8_000, 768_000, 48_000)
      c.ceilingDB = clamp(ceilingDB, -60, 0, -1)
      c.lookaheadFrames = min(max(lookaheadFrames, 0), Int(c.sampleRate / 10))
      c.releaseSeconds = clamp(releaseSeconds, 0.001, 10, 0.1)
      c.holdSeconds = clamp(holdSeconds, 0, 1, 0.01)
      return c
    }
  }

  /// The configuration in effect (the one given, ``Configuration/clamped``).
  public let configuration: Configuration
  /// The linear ceiling: the largest Float not above 10^(``Configuration/ceilingDB``/20).
  public let ceiling: Float
  /// Frames of delay, ``Configuration/lookaheadFrames``.
  public var latencyFrames: Int { lookahead }
  /// Samples whose gain was below 1, since creation or ``reset()`` (frames × channels).
  public private(set) var reducedSamples = 0
  /// The gain applied to the most recent output frame (1 at rest).
  public private(set) var gain: Float = 1

  let channels: Int
  let lookahead: Int
  /// Frames the minimum is held over: look-ahead + 1 + hold.
  let window: Int
  /// Per-frame factor applied to the gain's distance from 1 while releasing.
  let releaseFactor: Double
  /// `ceiling`'s bit pattern: a magnitude's bits compare as integers in the same order.
  let ceilingBits: Int32
  /// W frames of delay line, a ring starting at `delayPosition`.
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
    let exact = pow(10, c.ceilingDB / 20)
    var linear = Float(exact)
    if Double(linear) > exact { linear = linear.nextDown }
    ceiling = linear
    ceilingBits = Int32(bitPattern: linear.bitPattern)
    channels = c.channelCount
    lookahead = c.lookaheadFrames
    let hold = Int((c.holdSeconds * c.sampleRate).rounded())
    window = lookahead + 1 + hold
    releaseFactor = exp(-1 / (c.releaseSeconds * c.sampleRate))
    delay = [Float](repeating: 0, count: lookahead * channels)
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
    return g == 1 ? 0 : 20 * log10(Double(g))
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

  /// Moves past `frames` frames that the caller knows to be at or below the ceiling (their
  /// largest magnitude's bits at most ``ceilingBits``) without reading them, exactly as
  /// ``process(_:frames:)`` would: only at rest and with no look-ahead, when the frames pass
  /// unchanged. Returns whether it did; otherwise the caller runs `process`.
  mutating func passQuiet(frames: Int) -> Bool {
    guard lookahead == 0, isAtRest, frames > 0 else { return false }
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

  /// Swaps `n` frames at `p` with the delay line: the fast path's whole work.
  @inline(__always)
  mutating func _delay(
    _ p: UnsafeMutablePointer<Float>, _ n: Int, _ line: UnsafeMutablePointer<Float>
  ) {
    guard lookahead > 0 else { return }
    var i = 0
    while i < n {
      let k = min(n - i, lookahead - delayPosition)
      _swap(p + i * channels, line + delayPosition * channels, k * channels)
      i += k
      delayPosition += k
      if delayPosition == lookahead { delayPosition = 0 }
    }
  }

  /// The per-frame path: peak, held minimum, release, exact average, delay, gain.
  @inline(__always)
  mutating func _limit(
    _ p: UnsafeMutablePointer<Float>, _ n: Int, _ ch: Int, _ line: UnsafeMutablePointer<Float>,
    _ qi: UnsafeMutablePointer<Int>, _ qv: UnsafeMutablePointer<Float>,
    _ b: UnsafeMutablePointer<Int64>
  ) {
    let w = lookahead
    let size = window
    let c = ceiling
    let a = releaseFactor
    let boxLength = w + 1
    let full = Int64(Self.unit) * Int64(boxLength)
    // Just below 1 / full: the product with any sum is at most the exact mean, so rounding it
    // (monotonic) cannot pass a Float the mean is at most.
    let reciprocal = (1 / Double(full)).nextDown
    var head = queueHead
    var held = heldGain
    var count = queueCount
    var index = frameIndex
    var gap = releaseGap
    var sum = boxSum
    var bp = boxPosition
    var dp = delayPosition
    var g: Float = gain
    var lowest = minimumGain
    var reduced = reducedSamples
    for f in 0..<n {
      let x = p + f * ch
      var peak: Float = 0
      for k in 0..<ch {
        let v = x[k]
        if v.isFinite {
          peak = max(peak, abs(v))
        } else {
          x[k] = 0
        }
      }
      // The queue holds peaks (decreasing from the front); the held gain is the front's r,
      // worked out only when the front changes, so the comparisons wait on no division.
      var newFront = false
      if count > 0 && qi[head] <= index - size {
        head += 1
        if head == size { head = 0 }
        count -= 1
        newFront = true
      }
      if peak > c {
        while count > 0 {
          var back = head + count - 1
          if back >= size { back -= size }
          if qv[back] > peak { break }
          count -= 1
        }
        var slot = head + count
        if slot >= size { slot -= size }
        qi[slot] = index
        qv[slot] = peak
        count += 1
        if count == 1 { newFront = true }
      }
      if newFront && count > 0 {
        let top = qv[head]
        // One step down from the rounded quotient is below the exact one, so the product
        // cannot round past the ceiling (a select, not a branch).
        let r = c / top
        let below = r > 0 ? Float(bitPattern: r.bitPattern &- 1) : 0
        held = Double(r * top > c ? below : r)
      }
      index &+= 1
      // The release works on the distance from 1 (one multiply per frame on the carried
      // chain); the held minimum pushes it out again.
      gap *= a
      if gap < Self.snap { gap = 0 }
      var e = 1 - gap
      if count > 0 {
        gap = max(gap, 1 - held)
        e = min(1 - gap, held)
      }
      let q = Int64(e * Self.unit)
      sum &+= q &- b[bp]
      b[bp] = q
      bp += 1
      if bp == boxLength { bp = 0 }
      g = sum == full ? 1 : Float(Double(sum) * reciprocal)
      if w > 0 {
        let d = line + dp * ch
        for k in 0..<ch {
          let out = d[k]
          d[k] = x[k]
          x[k] = out * g
        }
        dp += 1
        if dp == w { dp = 0 }
      } else {
        for k in 0..<ch { x[k] *= g }
      }
      if g < 1 {
        reduced += ch
        lowest = min(lowest, g)
      }
    }
    queueHead = head
    heldGain = held
    queueCount = count
    frameIndex = index
    releaseGap = gap
    boxSum = sum
    boxPosition = bp
    delayPosition = dp
    gain = g
    minimumGain = lowest
    reducedSamples = reduced
  }
}

/// The largest magnitude's bit pattern among `count` floats, as Int32: NaN and infinity
/// compare above every finite magnitude, so one comparison with a ceiling's bits also catches
/// them.
@inline(__always)
func _maxMagnitudeBits(_ p: UnsafePointer<Float>, _ count: Int) -> Int32 {
  let raw = UnsafeRawPointer(p)
  let mask = SIMD8<Int32>(repeating: 0x7FFF_FFFF)
  var m0 = SIMD8<Int32>()
  var m1 = SIMD8<Int32>()
  var i = 0
  while i + 16 <= count {
    m0 = pointwiseMax(m0, raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Int32>.self) & mask)
    m1 = pointwiseMax(
      m1, raw.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Int32>.self) & mask)
    i += 16
  }
  var m = pointwiseMax(m0, m1).max()
  while i < count {
    m = max(m, Int32(bitPattern: p[i].bitPattern) & 0x7FFF_FFFF)
    i += 1
  }
  return m
}

/// Exchanges `count` floats between `a` and `b` (not overlapping).
@inline(__always)
func _swap(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, _ count: Int) {
  let ra = UnsafeMutableRawPointer(a)
  let rb = UnsafeMutableRawPointer(b)
  var i = 0
  while i + 8 <= count {
    let x = ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
    let y = rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
    ra.storeBytes(of: y, toByteOffset: i * 4, as: SIMD8<Float>.self)
    rb.storeBytes(of: x, toByteOffset: i * 4, as: SIMD8<Float>.self)
    i += 8
  }
  while i < count {
    let t = a[i]
    a[i] = b[i]
    b[i] = t
    i += 1
  }
}
