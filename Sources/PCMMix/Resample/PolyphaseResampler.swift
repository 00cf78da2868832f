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
  /// Input frames per second.
  public let inputRate: Int
  /// Output frames per second.
  public let outputRate: Int
  /// Interleaved channels in each frame.
  public let channelCount: Int
  /// Output frames of delay: the filter's group delay (linear phase) or its delay at low
  /// frequencies (minimum phase).
  public let latency: Int
  /// The filter specification it was built from.
  public let quality: ResamplerQuality
  /// Dot-product kernels used instead of the Swift SIMD ones (see `DotKernel`).
  package let kernel: DotKernel?

  let up: Int
  let down: Int
  let bank: PolyphaseBank?
  /// The sixteen-output tables, when `DotKernel.group` is used.
  let groups: GroupTables?
  /// The step-major table, when outputs come from `DotKernel.upsampleRun` (upsampling in
  /// direct form; no group tables then).
  let upsampleTable: UpsampleTable?
  /// Frames each channel plane holds.
  let capacity: Int
  /// Floats from one plane to the next: `capacity` and, with groups, a tail of zeros that the
  /// dropped lanes of a group may read.
  let stride: Int
  /// Channel planes, `stride` floats each; then, with groups, room for two groups of every
  /// channel that a call computes whole but writes in part (its first and last).
  var history: [Float]
  /// Valid frames in each plane.
  var count = 0
  /// Plane index of the next output's first tap (may run past `count` when downsampling).
  var position = 0
  /// Phase of the next output, in 1/`up` input samples, 0 ..< `up`.
  var phase = 0
  /// Input frames taken since the start.
  var framesIn = 0
  /// Output frames written since the start.
  var framesOut = 0

  /// Frames of room in each plane beyond what one window needs: input is taken this much at a
  /// time between slides of the history.
  static let slack = 1024
  /// Floats of zeros after each plane's frames, so that the lanes of a group computed past the
  /// valid input and then dropped read finite values (one SIMD width).
  static let zeroTail = 8
  /// Floats after each plane's frames that `DotKernel.upsampleRun` may read (for lanes it drops).
  static let upsampleTail = 48

  /// Filter taps per output sample and channel (0 when the rates are equal).
  public var taps: Int { bank?.taps ?? 0 }

  /// History and the exact tables (shared with this converter's copies, counted here).
  public var retainedBytes: Int { history.capacity * 4 + tableBytes }

  /// Bytes of coefficient tables this converter holds (shared with its copies): the phase table
  /// and, with the group kernel, the sixteen-output tables.
  package var tableBytes: Int {
    let rows = bank.map { $0.rows * $0.taps * 4 } ?? 0
    let tables = groups.map {
      $0.count * ($0.width * GroupTables.lanes * 4 + GroupTables.bookkeepingBytes) + up * 4
    }
    return rows + (tables ?? 0) + (upsampleTable.map { $0.count * 4 } ?? 0)
  }

  /// Makes, once per process, the minimum-phase design that every upsampling rate shares at
  /// `quality` (the presets use it at every common rate into 48 kHz; a few tens of
  /// milliseconds), so that a source switching to such a rate mid-stream does not pay for it
  /// inside a callback. Does nothing for a quality that stays linear phase there.
  package static func prepareDesign(for quality: ResamplerQuality) {
    _ = PolyphaseResampler(inputRate: 8000, outputRate: 48000, channelCount: 1, quality: quality)
  }

  /// Whether the filter is the minimum-phase one (``ResamplerQuality/PhaseResponse``): its delay
  /// is ``latency`` at low frequencies and grows towards the band edge.
  public var isMinimumPhase: Bool { bank?.isMinimumPhase ?? false }

  /// Whether outputs are computed sixteen at a time by the kernel's `DotKernel.group` (or, for
  /// an integer upsampling ratio, its `DotKernel.upsampleRun`): when it has one, the table is
  /// exact, accumulation is in Float32 and the group tables fit in 1 MiB.
  package var usesGroupKernel: Bool { groups != nil || upsampleTable != nil }

  /// Whether outputs come from the kernel's `DotKernel.upsampleRun`: it has one, the rates are a
  /// ratio `DotKernel.takesUpsample(up:down:)` accepts, the table is exact and accumulation is in
  /// Float32.
  package var usesUpsampleKernel: Bool { upsampleTable != nil }

  /// Creates a resampler; allocates the coefficient table and history.
  ///
  /// - Precondition: rates in 1 … 768,000 Hz, 1 … 64 channels.
  public init(
    inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality = .balanced
  ) {
    self.init(
      inputRate: inputRate, outputRate: outputRate, channelCount: channelCount, quality: quality,
      kernel: nil, sharing: nil, nil, nil)
  }

  /// Creates a resampler whose dot products are `kernel`'s (`nil`: the Swift ones).
  package init(
    inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality = .balanced,
    kernel: DotKernel?
  ) {
    self.init(
      inputRate: inputRate, outputRate: outputRate, channelCount: channelCount, quality: quality,
      kernel: kernel, sharing: nil, nil, nil)
  }

  /// Creates a resampler, reusing `bank` when it was built for the same rates and quality.
  init(
    inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality,
    kernel: DotKernel?, sharing shared: PolyphaseBank?, _ sharedGroups: GroupTables?,
    _ sharedUpsample: UpsampleTable?
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
      self.groups = nil
      upsampleTable = nil
      latency = 0
      capacity = 0
      stride = 0
      history = []
      return
    }
    let bank =
      shared ?? PolyphaseBank(up: up, down: down, quality: quality, outputRate: outputRate)
    self.bank = bank
    // Causal: the first output needs nothing past input frame 0 (at low frequencies: a
    // minimum-phase window may reach a fraction of a sample further, for taps near zero).
    latency =
      bank.isMinimumPhase
      ? Int((bank.lookahead * Double(up) / Double(down) - 1e-9).rounded(.up))
      : (bank.lead * up + down - 1) / down
    // Integer-ratio upsampling by the kernel's direct-form function where it has one; else
    // sixteen outputs at a time, by the kernel's group function or the Swift one, where the
    // table is exact and Float32 (a kernel without a group function keeps the per-output path).
    let exact = !bank.accumulatesInDouble && bank.interpolationSteps == 0
    let upsamples =
      exact && kernel?.upsampleRun != nil
      && DotKernel.takesUpsample(up: up, down: down)
      && (down == 1
        || UpsampleTable.steps(taps: bank.taps, up: up, down: down)
          <= UpsampleTable.mostStepsSplit)
    upsampleTable =
      upsamples ? sharedUpsample ?? UpsampleTable(bank: bank, up: up, down: down) : nil
    if (kernel == nil || kernel?.group != nil) && exact && !upsamples {
      groups =
        sharedGroups
        ?? GroupTables(bank: bank, up: up, down: down, phase0: Self.start(latency, up, down).phase)
    } else {
      groups = nil
    }
    capacity = bank.taps + down / up + Self.slack + (groups?.width ?? 0)
    stride =
      capacity
      + (groups.map { $0.width - bank.taps + Self.zeroTail } ?? (upsamples ? Self.upsampleTail : 0))
    let scratch = groups == nil ? 0 : 2 * GroupTables.lanes * channelCount
    history = [Float](repeating: 0, count: stride * channelCount + scratch)
    reset()
  }

  /// Forgets all history, as if newly made; keeps the tables.
  public mutating func reset() {
    framesIn = 0
    framesOut = 0
    guard bank != nil else { return }
    let (whole, phase) = Self.start(latency, up, down)
    self.phase = phase
    let firstTap = whole - bank!.lead + 1
    count = -firstTap
    position = 0
    for i in history.indices { history[i] = 0 }
  }

  /// Where output 0 sits: input time `(0·down − latency·up) / up` as whole input samples and a
  /// phase in 1/`up` of one.
  static func start(_ latency: Int, _ up: Int, _ down: Int) -> (whole: Int, phase: Int) {
    let start = -latency * down
    let whole = start >= 0 ? start / up : -((-start + up - 1) / up)
    return (whole, start - whole * up)
  }

  /// Mono → stereo: the history is duplicated into two planes. Since the filter is the same on
  /// every channel, the stream continues exactly as if it had been sent as stereo throughout.
  /// Other changes return `nil` (averaging stereo history into mono would not be exact).
  /// (The concrete form of ``remappingChannels(to:)``, which returns it as `any Resampler`.)
  package func remapped(to channels: Int) -> PolyphaseResampler? {
    guard channelCount == 1, channels == 2 else { return nil }
    var r = PolyphaseResampler(
      inputRate: inputRate, outputRate: outputRate, channelCount: channels, quality: quality,
      kernel: kernel, sharing: bank, groups, upsampleTable)
    (r.count, r.position, r.phase, r.framesIn, r.framesOut) = (
      count, position, phase, framesIn, framesOut
    )
    for i in 0..<min(count, capacity) {
      r.history[i] = history[i]
      r.history[r.stride + i] = history[i]
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

  /// The most frames ``process(_:into:)`` can write for `frames` input frames.
  public func maxOutputFrames(forInputFrames frames: Int) -> Int {
    bank == nil ? frames : frames * up / down + 2
  }

  /// Converts as much of `input` as `output` has room for; returns the input frames consumed and
  /// output frames written.
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

  /// Feeds zeros through the filter to write the output its history still owes; returns the frames
  /// written.
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
}
