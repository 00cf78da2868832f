import CPCMMixCore

/// The built-in resampler with a ratio that can be steered while it runs: the same filters as
/// ``PolyphaseResampler`` (``ResamplerQuality``, linear or minimum phase), read at any fractional
/// position from an interpolated table, so the conversion ratio can follow a clock that drifts.
///
/// ```swift
/// var r = VariableRatioResampler(inputRate: 44_100, outputRate: 48_000, channelCount: 2)
/// _ = r.adjustRatio(by: -300e-6)   // the source runs 300 ppm fast: 300 ppm fewer outputs
/// let (consumed, produced) = r.process(input, into: output)
/// ```
///
/// The position of the next output is an input frame index and a fraction. Each output reads the
/// two table rows around its fraction (2,048 rows per input sample for `balanced`) and blends
/// them linearly into one row, which is then dotted with every channel's window; the blend's
/// error is under −130 dB of the signal for `balanced`. Every upsampling ratio shares one table
/// (see `PolyphaseBank.interpolated`), so preparing more input rates costs history only.
///
/// Compared with ``PolyphaseResampler``: about one and a half times the work per output (the
/// blend, and no sixteen-output groups), the same delay, and not bit-identical to it. Equal
/// rates are filtered too (a fractional-delay filter), since the ratio may move off 1.
public struct VariableRatioResampler: Resampler {
  /// Input frames per second (nominal; see ``ratioAdjustment``).
  public let inputRate: Int
  /// Output frames per second.
  public let outputRate: Int
  /// Interleaved channels in each frame.
  public let channelCount: Int
  /// Output frames of delay at the nominal ratio.
  public let latency: Int
  /// The filter specification it was built from.
  public let quality: ResamplerQuality
  /// Dot products from outside the library (`PCMMixAccelerated`); only `dot` and `dot2` are used.
  package let kernel: PolyphaseResampler.DotKernel?
  /// The ratio adjustment in force (see ``adjustRatio(by:)``).
  public private(set) var ratioAdjustment = 0.0

  let bank: PolyphaseBank
  /// Input frames per output frame at the nominal ratio.
  let nominalStep: Double
  /// Input frames per output frame now.
  var step: Double
  /// Frames each channel plane holds.
  let capacity: Int
  /// Channel planes, `capacity` floats each, then one row of blended coefficients.
  var storage: [Float]
  /// Valid frames in each plane.
  var count = 0
  /// Plane index of the next output's first tap.
  var position = 0
  /// The next output's fractional position past `position`, in [0, 1).
  var fraction = 0.0
  /// Input frame index of plane index 0.
  var planeOrigin = 0
  /// Input frames taken since the start.
  public private(set) var framesIn = 0
  /// Output frames written since the start.
  public private(set) var framesOut = 0

  /// Adjustments beyond ±1 % are clamped: no clock is that far off, and the filter's transition
  /// band would no longer hold the images.
  public static let maximumAdjustment = 0.01

  /// Creates a resampler; allocates its history, and the shared table if no resampler of the
  /// same filter was made before (a few milliseconds).
  ///
  /// - Precondition: rates in 1 … 768,000 Hz, 1 … 64 channels.
  public init(
    inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality = .balanced
  ) {
    self.init(
      inputRate: inputRate, outputRate: outputRate, channelCount: channelCount, quality: quality,
      kernel: nil)
  }

  /// Creates a resampler whose dot products are `kernel`'s (`nil`: the Swift ones).
  package init(
    inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality = .balanced,
    kernel: PolyphaseResampler.DotKernel?
  ) {
    precondition((1...PCMFormat.maxSampleRate).contains(inputRate))
    precondition((1...PCMFormat.maxSampleRate).contains(outputRate))
    precondition((1...PCMFormat.maxChannels).contains(channelCount))
    self.inputRate = inputRate
    self.outputRate = outputRate
    self.channelCount = channelCount
    self.quality = quality
    self.kernel = kernel
    bank = PolyphaseBank.interpolated(
      inputRate: inputRate, outputRate: outputRate, quality: quality)
    nominalStep = Double(inputRate) / Double(outputRate)
    step = nominalStep
    latency = Int((bank.lookahead / nominalStep - 1e-9).rounded(.up))
    capacity = bank.taps + Int(nominalStep.rounded(.up)) + Self.slack
    storage = [Float](repeating: 0, count: capacity * channelCount + bank.taps)
    reset()
  }

  /// Frames of room beyond one window, so that the planes slide once per this much input.
  static let slack = 1024

  /// Filter taps per output sample and channel.
  public var taps: Int { bank.taps }

  /// History only: the interpolated table is shared by every resampler of the same filter
  /// (`tableBytes`), so it is not counted per resampler.
  public var retainedBytes: Int { storage.capacity * 4 }

  /// Bytes of the coefficient table (shared with every resampler of the same filter).
  package var tableBytes: Int { bank.rows * bank.taps * 4 }

  /// Whether the filter is the minimum-phase one.
  public var isMinimumPhase: Bool { bank.isMinimumPhase }

  /// The input time of the next output, in input frames since the start (before
  /// ``skipLatency()``, the first ``latency`` outputs sit before 0).
  public var nextOutputTime: Double {
    Double(planeOrigin + position + bank.lead - 1) + fraction
  }

  /// Forgets all history and any ratio adjustment, as if newly made; keeps the table.
  public mutating func reset() {
    framesIn = 0
    framesOut = 0
    storage.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    // Output 0 sits `latency` outputs before input time 0; its window starts at plane index 0,
    // and the planes hold zeros up to input frame 0.
    let start = -Double(latency) * nominalStep
    let whole = Int(start.rounded(.down))
    fraction = start - Double(whole)
    planeOrigin = whole - (bank.lead - 1)
    count = -planeOrigin
    position = 0
  }

  /// Output frames one input sample reaches: the filter's taps, at the output rate.
  public var filterSpan: Int? { Int((Double(bank.taps) / nominalStep).rounded(.up)) + 1 }

  /// Runs overlap: a switch of input rate can continue without a seam (see
  /// ``Resampler/resetToOverlap(firstOutputAt:)``).
  public var overlapsRuns: Bool { true }

  /// Writes the outputs past the end of the input that its last samples still reach: while the
  /// filter's past taps (its `lead`) cover input before the end.
  public mutating func ringOut(into output: UnsafeMutableBufferPointer<Float>) -> Int? {
    run(nil, frames: Int.max, output: output, until: Double(framesIn + bank.lead)).produced
  }

  /// After a flush: the next output's time past the end of the input, in output frames.
  public var outputTimePastEnd: Double? {
    (nextOutputTime - Double(framesIn)) / step
  }

  /// Forgets all history and starts the output where new input first reaches it (the future
  /// taps' span, `taps − lead` input frames, before the output at `offset`), on the grid of
  /// outputs that puts one `offset` output frames after input time 0. Returns the outputs
  /// before that one.
  public mutating func resetToOverlap(firstOutputAt offset: Double) -> Int? {
    reset()
    let at = max(0, offset) * step
    let early = Int((Double(bank.taps - bank.lead) / step - 1e-9).rounded(.up))
    let start = at - Double(early) * step
    let whole = Int(start.rounded(.down))
    fraction = start - Double(whole)
    planeOrigin = whole - (bank.lead - 1)
    count = -planeOrigin
    position = 0
    return early
  }

  /// Starts the output ``latency`` frames late instead of emitting them, before any input; returns
  /// the frames skipped.
  public mutating func skipLatency() -> Int {
    guard framesIn == 0, framesOut == 0 else { return 0 }
    // Input time 0: the window starts `lead − 1` frames before input frame 0.
    position = -(bank.lead - 1) - planeOrigin
    fraction = 0
    framesOut = latency
    return latency
  }

  /// Steers the ratio to `outputRate / inputRate × (1 + adjustment)` output frames per input
  /// frame from the next output on (clamped to ±``maximumAdjustment``).
  public mutating func adjustRatio(by adjustment: Double) -> Bool {
    let a = min(max(adjustment, -Self.maximumAdjustment), Self.maximumAdjustment)
    ratioAdjustment = a
    step = nominalStep / (1 + a)
    return true
  }

  /// The most frames ``process(_:into:)`` can write for `frames` input frames at any allowed
  /// adjustment.
  public func maxOutputFrames(forInputFrames frames: Int) -> Int {
    Int((Double(frames) / (step * (1 - 1e-9))).rounded(.up)) + 2
  }

  /// A stereo copy of a mono resampler with the same history in both channels, so a source going
  /// from mono to stereo keeps its phase; `nil` otherwise. (The concrete form of
  /// ``remappingChannels(to:)``, which returns it as `any Resampler`.)
  package func remapped(to channels: Int) -> VariableRatioResampler? {
    guard channelCount == 1, channels == 2 else { return nil }
    var r = VariableRatioResampler(
      inputRate: inputRate, outputRate: outputRate, channelCount: 2, quality: quality,
      kernel: kernel)
    (r.count, r.position, r.fraction, r.planeOrigin) = (count, position, fraction, planeOrigin)
    (r.framesIn, r.framesOut, r.step, r.ratioAdjustment) = (
      framesIn, framesOut, step, ratioAdjustment
    )
    for i in 0..<capacity {
      r.storage[i] = storage[i]
      r.storage[capacity + i] = storage[i]
    }
    return r
  }

  /// Converts as much of `input` as `output` has room for, at the adjusted ratio; returns the input
  /// frames consumed and output frames written.
  public mutating func process(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
  ) -> (consumed: Int, produced: Int) {
    let r = run(input.baseAddress, frames: input.count / channelCount, output: output, until: nil)
    framesIn += r.consumed
    return r
  }

  /// Writes the outputs whose time lies before the end of the input, reading zeros past it.
  public mutating func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    run(nil, frames: Int.max, output: output, until: Double(framesIn)).produced
  }

  /// Feeds `frames` frames (zeros when `input` is nil) and writes outputs while there is room,
  /// input for their windows and, with `until`, their time is before it.
  mutating func run(
    _ input: UnsafePointer<Float>?, frames: Int, output: UnsafeMutableBufferPointer<Float>,
    until end: Double?
  ) -> (consumed: Int, produced: Int) {
    let taps = bank.taps
    let channels = channelCount
    let room = output.count / channels
    let (capacity, step) = (self.capacity, self.step)
    let lead = bank.lead
    var (count, position, fraction, origin) = (count, position, fraction, planeOrigin)
    var consumed = 0
    var produced = 0
    let context = VariableContext(bank, kernel)
    storage.withUnsafeMutableBufferPointer { storage in
      let base = storage.baseAddress!
      let row = base + capacity * channels
      guard let out = output.baseAddress else { return }
      while true {
        // Every output whose window is complete (and, when flushing, whose time is in the input):
        // by the kernel's loop where it has one, which does what the loop below does.
        if let lerpRun = context.lerpRun {
          var stopped: Int32 = 0
          produced += lerpRun(
            context.coefficients, taps, context.steps, step, base, capacity, channels, count,
            room - produced, out + produced * channels, &position, &fraction, end == nil ? 0 : 1,
            origin + lead - 1, end ?? 0, &stopped)
          if stopped != 0 { return }
        } else if context.isPortable {
          // No kernel installed: the portable C loop. It takes every complete window, so the
          // loop below then writes nothing; on x86-64 it computes what that loop would, bit for
          // bit, while on arm64 it blends and sums fused (the AVX2 kernels' chains).
          var stopped: Int32 = 0
          produced += pcmmix_core_lerp_run(
            context.coefficients, taps, context.steps, step, base, capacity, channels, count,
            room - produced, out + produced * channels, &position, &fraction, end == nil ? 0 : 1,
            origin + lead - 1, end ?? 0, &stopped, context.inDouble ? 1 : 0)
          if stopped != 0 { return }
        }
        while position + taps <= count && produced < room {
          if let end, Double(origin + position + lead - 1) + fraction >= end { return }
          context.output(
            fraction, step, base + position, capacity, channels, row, out + produced * channels)
          produced += 1
          fraction += step
          // The fraction is never negative, so truncation is its floor (one instruction, where
          // `rounded(.down)` calls libm's `floor` on baseline x86-64).
          let whole = Int(fraction)
          position += whole
          fraction -= Double(whole)
        }
        if produced == room || consumed == frames { break }
        // Slide what the next window needs to the front of the planes, then take more input.
        let keep = min(position, count)
        if keep > 0 {
          _slidePlanes(base, stride: capacity, channels: channels, count: count, by: keep)
          count -= keep
          position -= keep
          origin += keep
        }
        let n = min(frames - consumed, capacity - count)
        _fillPlanes(
          base, stride: capacity, channels: channels, at: count,
          from: input.map { $0 + consumed * channels }, frames: n)
        count += n
        consumed += n
      }
    }
    (self.count, self.position, self.fraction, planeOrigin) = (count, position, fraction, origin)
    framesOut += produced
    return (consumed, produced)
  }
}

/// What one output needs, gathered once per call: the table's shape and the kernels.
struct VariableContext {
  let coefficients: UnsafePointer<Float>
  let taps: Int
  let steps: Double
  let inDouble: Bool
  let dot: PolyphaseResampler.DotKernel.Dot?
  let dot2: PolyphaseResampler.DotKernel.Dot2?
  let lerpDot: PolyphaseResampler.DotKernel.LerpDot?
  let lerpDot2: PolyphaseResampler.DotKernel.LerpDot2?
  let lerpRun: PolyphaseResampler.DotKernel.LerpRun?
  /// Whether no kernel is installed: then the portable C loop runs.
  let isPortable: Bool

  init(_ bank: PolyphaseBank, _ kernel: PolyphaseResampler.DotKernel?) {
    isPortable = kernel == nil
    coefficients = UnsafePointer(bank.coefficients)
    taps = bank.taps
    steps = Double(bank.interpolationSteps)
    inDouble = bank.accumulatesInDouble
    dot = inDouble ? nil : kernel?.dot
    dot2 = inDouble ? nil : kernel?.dot2
    lerpDot = inDouble ? nil : kernel?.lerpDot
    lerpDot2 = inDouble ? nil : kernel?.lerpDot2
    lerpRun = inDouble || kernel?.lerpDot == nil || kernel?.lerpDot2 == nil ? nil : kernel?.lerpRun
  }

  /// One output frame at `fraction` past the window at `window` (planes `stride` apart): the two
  /// rows around the fraction are blended into `row`, then dotted with each channel. The C
  /// kernels are also handed the rows of the output `step` later, to fetch meanwhile.
  @inline(__always)
  func output(
    _ fraction: Double, _ step: Double, _ window: UnsafeMutablePointer<Float>, _ stride: Int,
    _ channels: Int, _ row: UnsafeMutablePointer<Float>, _ out: UnsafeMutablePointer<Float>
  ) {
    let scaled = fraction * steps
    let index = Int(scaled)
    let t = scaled - Double(index)
    let h0 = coefficients + index * taps
    let h1 = h0 + taps
    if inDouble {
      for c in 0..<channels {
        let x = UnsafePointer(window + c * stride)
        let a = _dotDouble(h0, x, taps)
        out[c] = Float(a + t * (_dotDouble(h1, x, taps) - a))
      }
      return
    }
    if let lerpDot2, let lerpDot {
      // The kernel blends in registers as it goes; the first call fetches the next rows.
      var ahead = fraction + step
      ahead -= Double(Int(ahead))
      var next: UnsafePointer<Float>? = coefficients + Int(ahead * steps) * taps
      var c = 0
      while c + 2 <= channels {
        let x = UnsafePointer(window + c * stride)
        lerpDot2(h0, h1, Float(t), x, x + stride, taps, out + c, next)
        next = nil
        c += 2
      }
      if c < channels {
        out[c] = lerpDot(h0, h1, Float(t), UnsafePointer(window + c * stride), taps, next)
      }
      return
    }
    _blend(h0, h1, Float(t), into: row, taps)
    let h = UnsafePointer(row)
    var c = 0
    while c + 2 <= channels {
      let x = UnsafePointer(window + c * stride)
      if let dot2 {
        dot2(h, x, x + stride, taps, out + c)
      } else {
        (out[c], out[c + 1]) = _dot2(h, x, x + stride, taps)
      }
      c += 2
    }
    if c < channels {
      let x = UnsafePointer(window + c * stride)
      out[c] = dot.map { $0(h, x, taps) } ?? _dot(h, x, taps)
    }
  }
}
