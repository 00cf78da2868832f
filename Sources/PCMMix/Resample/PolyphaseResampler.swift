/// The built-in resampler: a polyphase FIR from a Kaiser-windowed sinc, stepped by exact rational
/// phase (44.1 → 48 kHz is 147 : 160), so the position never drifts however long it runs.
///
/// Each output frame costs `taps` multiply-adds per channel (``taps`` depends on the rates and
/// the ``ResamplerQuality``). History is kept per channel in planes; the only allocation is at
/// creation. Equal rates pass samples through untouched.
///
/// ```swift
/// var r = PolyphaseResampler(inputRate: 44_100, outputRate: 48_000, channelCount: 2)
/// let (consumed, produced) = r.process(input, into: output)
/// ```
public struct PolyphaseResampler: Resampler {
  public let inputRate: Int
  public let outputRate: Int
  public let channelCount: Int
  public let latency: Int
  /// The filter specification it was built from.
  public let quality: ResamplerQuality
  /// Dot-product kernels used instead of the Swift SIMD ones (see ``DotKernel``).
  public let kernel: DotKernel?

  /// Dot products from outside the library: `PCMMixAccelerated` supplies AVX2 + FMA ones, which
  /// Swift cannot emit without compiler flags. Both take `n`, a multiple of 8.
  public struct DotKernel: Sendable {
    /// `h · x` over `n` floats.
    public typealias Dot = @convention(c) (UnsafePointer<Float>, UnsafePointer<Float>, Int) -> Float
    /// `h · a` and `h · b` over `n` floats, into `out[0]` and `out[1]`.
    public typealias Dot2 =
      @convention(c) (
        UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, Int,
        UnsafeMutablePointer<Float>
      ) -> Void
    /// A name for reports.
    public var name: String
    public var dot: Dot
    public var dot2: Dot2

    public init(name: String, dot: Dot, dot2: Dot2) {
      self.name = name
      self.dot = dot
      self.dot2 = dot2
    }
  }

  @usableFromInline let up: Int
  @usableFromInline let down: Int
  @usableFromInline let bank: _PolyphaseBank?
  /// Frames each channel plane holds.
  @usableFromInline let capacity: Int
  /// Channel planes, `capacity` floats each.
  @usableFromInline var history: [Float]
  /// Valid frames in each plane.
  @usableFromInline var count = 0
  /// Plane index of the next output's first tap (may run past `count` when downsampling).
  @usableFromInline var position = 0
  /// Phase of the next output, in 1/`up` input samples, 0 ..< `up`.
  @usableFromInline var phase = 0
  /// Input frames taken since the start.
  @usableFromInline var framesIn = 0
  /// Output frames written since the start.
  @usableFromInline var framesOut = 0

  /// Filter taps per output sample and channel (0 when the rates are equal).
  public var taps: Int { bank?.taps ?? 0 }

  /// Creates a resampler; allocates the coefficient table and history.
  ///
  /// - Precondition: rates in 1 … 768,000 Hz, 1 … 64 channels.
  public init(
    inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality = .balanced,
    kernel: DotKernel? = nil
  ) {
    self.init(
      inputRate: inputRate, outputRate: outputRate, channelCount: channelCount, quality: quality,
      kernel: kernel, sharing: nil)
  }

  /// Creates a resampler, reusing `bank` when it was built for the same rates and quality.
  init(
    inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality,
    kernel: DotKernel?, sharing shared: _PolyphaseBank?
  ) {
    self.kernel = kernel
    precondition((1...PCMFormat.maxSampleRate).contains(inputRate))
    precondition((1...PCMFormat.maxSampleRate).contains(outputRate))
    precondition((1...PCMFormat.maxChannels).contains(channelCount))
    self.inputRate = inputRate
    self.outputRate = outputRate
    self.channelCount = channelCount
    self.quality = quality
    let g = RateRatio.gcd(inputRate, outputRate)
    up = outputRate / g
    down = inputRate / g
    if up == down {
      self.bank = nil
      latency = 0
      capacity = 0
      history = []
      return
    }
    let bank = shared ?? _PolyphaseBank(up: up, down: down, quality: quality)
    self.bank = bank
    let half = bank.taps / 2
    // Causal: the first output needs nothing past input frame 0.
    latency = (half * up + down - 1) / down
    capacity = bank.taps + down / up + 1024
    history = [Float](repeating: 0, count: capacity * channelCount)
    reset()
  }

  public mutating func reset() {
    framesIn = 0
    framesOut = 0
    guard bank != nil else { return }
    // Output j sits at input time (j·down − latency·up) / up; prime zeros back to its first tap.
    let start = -latency * down
    let whole = start >= 0 ? start / up : -((-start + up - 1) / up)
    phase = start - whole * up
    let firstTap = whole - taps / 2 + 1
    count = -firstTap
    position = 0
    for i in history.indices { history[i] = 0 }
  }

  /// Mono → stereo: the history is duplicated into two planes. Since the filter is the same on
  /// every channel, the stream continues exactly as if it had been sent as stereo throughout.
  /// Other changes return `nil` (averaging stereo history into mono would not be exact).
  public func remappingChannels(to channels: Int) -> (any Resampler)? {
    guard channelCount == 1, channels == 2 else { return nil }
    var r = PolyphaseResampler(
      inputRate: inputRate, outputRate: outputRate, channelCount: channels, quality: quality,
      kernel: kernel, sharing: bank)
    (r.count, r.position, r.phase, r.framesIn, r.framesOut) = (
      count, position, phase, framesIn, framesOut
    )
    for i in 0..<min(count, capacity) {
      r.history[i] = history[i]
      r.history[capacity + i] = history[i]
    }
    return r
  }

  /// Steps the phase past the `latency` pre-roll outputs in O(1): they would be computed from
  /// the priming zeros and the first input only to be dropped.
  public mutating func skipLatency() -> Int {
    guard bank != nil, framesOut == 0, framesIn == 0 else { return 0 }
    let total = phase + latency * down
    position += total / up
    phase = total % up
    framesOut = latency
    return latency
  }

  public func maxOutputFrames(forInputFrames frames: Int) -> Int {
    bank == nil ? frames : frames * up / down + 2
  }

  public mutating func process(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
  ) -> (consumed: Int, produced: Int) {
    let frames = input.count / channelCount
    guard bank != nil else {
      let n = min(frames, output.count / channelCount)
      if n > 0 {
        output.baseAddress!.update(from: input.baseAddress!, count: n * channelCount)
      }
      framesIn += n
      framesOut += n
      return (n, n)
    }
    let r = _run(input.baseAddress, frames: frames, output: output, limit: Int.max)
    framesIn += r.consumed
    return r
  }

  public mutating func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    guard bank != nil else { return 0 }
    let target =
      latency
      + RateRatio.outputFrames(
        forInputFrames: framesIn, inputRate: inputRate, outputRate: outputRate)
    let wanted = target - framesOut
    guard wanted > 0 else { return 0 }
    // Zeros stand in for the input after the end, as far as the last window reaches.
    return _run(nil, frames: Int.max, output: output, limit: wanted).produced
  }

  /// Feeds `frames` frames (zeros when `input` is nil) and writes up to `limit` outputs.
  @inlinable
  mutating func _run(
    _ input: UnsafePointer<Float>?, frames: Int, output: UnsafeMutableBufferPointer<Float>,
    limit: Int
  ) -> (consumed: Int, produced: Int) {
    let bank = self.bank!
    let taps = bank.taps
    let context = _KernelContext(bank, kernel, up: up)
    let channels = channelCount
    let room = min(output.count / channels, limit)
    let (stepWhole, stepFraction) = (down / up, down % up)
    let capacity = self.capacity
    var consumed = 0
    var produced = 0
    var (count, position, phase) = (self.count, self.position, self.phase)
    history.withUnsafeMutableBufferPointer { planes in
      let base = planes.baseAddress!
      guard let out = output.baseAddress else { return }
      while true {
        // Write every output whose window is complete.
        while position + taps <= count && produced < room {
          _kernel(
            context, phase: phase, base + position, capacity, channels, out + produced * channels)
          produced += 1
          position += stepWhole
          phase += stepFraction
          if phase >= up {
            phase -= up
            position += 1
          }
        }
        if produced == room || consumed == frames { break }
        // Slide the window to the front of the planes, then take more input.
        let keep = min(position, count)
        if keep > 0 {
          for c in 0..<channels {
            let plane = base + c * capacity
            plane.update(from: plane + keep, count: count - keep)
          }
          count -= keep
          position -= keep
        }
        if position > count {
          // Downsampling skipped past everything held: the next samples are not needed.
          let skip = min(position - count, frames - consumed)
          consumed += skip
          position -= skip
          if position > count { continue }
        }
        let n = min(capacity - count, frames - consumed)
        if let input {
          let src = input + consumed * channels
          for c in 0..<channels {
            let plane = base + c * capacity + count
            for i in 0..<n { plane[i] = src[i * channels + c] }
          }
        } else {
          for c in 0..<channels { (base + c * capacity + count).update(repeating: 0, count: n) }
        }
        count += n
        consumed += n
      }
    }
    (self.count, self.position, self.phase) = (count, position, phase)
    framesOut += produced
    return (consumed, produced)
  }
}

/// What one output frame needs, gathered once per call so the per-frame work touches no
/// reference counts: the table's pointer and shape, and the kernels' function pointers.
@usableFromInline
struct _KernelContext {
  @usableFromInline let coefficients: UnsafePointer<Float>
  @usableFromInline let taps: Int
  @usableFromInline let steps: Int
  @usableFromInline let up: Int
  @usableFromInline let inDouble: Bool
  @usableFromInline let dot: PolyphaseResampler.DotKernel.Dot?
  @usableFromInline let dot2: PolyphaseResampler.DotKernel.Dot2?

  @inlinable
  init(_ bank: _PolyphaseBank, _ kernel: PolyphaseResampler.DotKernel?, up: Int) {
    coefficients = UnsafePointer(bank.coefficients)
    taps = bank.taps
    steps = bank.interpolationSteps
    self.up = up
    inDouble = bank.accumulatesInDouble
    dot = bank.accumulatesInDouble ? nil : kernel?.dot
    dot2 = bank.accumulatesInDouble ? nil : kernel?.dot2
  }

  /// The coefficient rows for a phase: the exact row (and `t` 0), or the two rows of the
  /// interpolated table around it and the fraction between them.
  @inlinable @inline(__always)
  func rows(_ phase: Int) -> (UnsafePointer<Float>, UnsafePointer<Float>, Double) {
    guard steps > 0 else {
      let h = coefficients + phase * taps
      return (h, h, 0)
    }
    let scaled = phase * steps
    let row = scaled / up
    let h0 = coefficients + row * taps
    return (h0, h0 + taps, Double(scaled - row * up) / Double(up))
  }
}

/// One output frame: every channel's window dotted with the phase's coefficients.
@inlinable @inline(__always)
func _kernel(
  _ k: _KernelContext, phase: Int, _ window: UnsafeMutablePointer<Float>, _ planeStride: Int,
  _ channels: Int, _ out: UnsafeMutablePointer<Float>
) {
  let taps = k.taps
  let (h0, h1, t) = k.rows(phase)
  if k.inDouble {
    for c in 0..<channels {
      let x = window + c * planeStride
      let a = _dotDouble(h0, x, taps)
      out[c] = Float(t == 0 ? a : a + t * (_dotDouble(h1, x, taps) - a))
    }
  } else if t == 0 {
    var c = 0
    // Channels in pairs share each coefficient load.
    while c + 2 <= channels {
      let x = UnsafePointer(window + c * planeStride)
      if let dot2 = k.dot2 {
        dot2(h0, x, x + planeStride, taps, out + c)
      } else {
        (out[c], out[c + 1]) = _dot2(h0, x, x + planeStride, taps)
      }
      c += 2
    }
    if c < channels {
      let x = UnsafePointer(window + c * planeStride)
      out[c] = k.dot.map { $0(h0, x, taps) } ?? _dot(h0, x, taps)
    }
  } else {
    // Interpolated table: the phase falls between two rows.
    for c in 0..<channels {
      let x = UnsafePointer(window + c * planeStride)
      let a = k.dot.map { $0(h0, x, taps) } ?? _dot(h0, x, taps)
      let b = k.dot.map { $0(h1, x, taps) } ?? _dot(h1, x, taps)
      out[c] = a + Float(t) * (b - a)
    }
  }
}

/// Dot product of `n` floats, `n` a multiple of 8, with products and sums in Double.
@inlinable @inline(__always)
func _dotDouble(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Double {
  let ra = UnsafeRawPointer(a)
  let rb = UnsafeRawPointer(b)
  var s0 = SIMD4<Double>()
  var s1 = SIMD4<Double>()
  var offset = 0
  let end = n * 4
  while offset < end {
    let h = ra.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    let x = rb.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    s0 += SIMD4<Double>(h.lowHalf) * SIMD4<Double>(x.lowHalf)
    s1 += SIMD4<Double>(h.highHalf) * SIMD4<Double>(x.highHalf)
    offset += 32
  }
  return (s0 + s1).sum()
}

/// Dot product of `n` floats, `n` a multiple of 8, in SIMD lanes with two accumulators.
@inlinable @inline(__always)
func _dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
  let ra = UnsafeRawPointer(a)
  let rb = UnsafeRawPointer(b)
  var s0 = SIMD8<Float>()
  var s1 = SIMD8<Float>()
  var i = 0
  while i + 16 <= n {
    s0 +=
      ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
      * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
    s1 +=
      ra.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Float>.self)
      * rb.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Float>.self)
    i += 16
  }
  if i < n {
    s0 +=
      ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
      * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
  }
  return (s0 + s1).sum()
}

/// Two dot products of `n` floats against the same coefficients, `n` a multiple of 8. Two
/// accumulators per product keep the adds from waiting on each other.
@inlinable @inline(__always)
func _dot2(
  _ h: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int
) -> (Float, Float) {
  let rh = UnsafeRawPointer(h)
  let ra = UnsafeRawPointer(a)
  let rb = UnsafeRawPointer(b)
  var a0 = SIMD8<Float>()
  var a1 = SIMD8<Float>()
  var b0 = SIMD8<Float>()
  var b1 = SIMD8<Float>()
  var offset = 0
  let end = n * 4
  while offset + 64 <= end {
    let c0 = rh.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    let c1 = rh.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
    a0 += c0 * ra.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    b0 += c0 * rb.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    a1 += c1 * ra.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
    b1 += c1 * rb.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
    offset += 64
  }
  if offset < end {
    let c0 = rh.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    a0 += c0 * ra.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    b0 += c0 * rb.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
  }
  return ((a0 + a1).sum(), (b0 + b1).sum())
}
