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
  /// Swift cannot emit without compiler flags. `dot` and `dot2` take `n`, a multiple of 8; with
  /// ``group`` the resampler computes sixteen outputs per call where the rates allow it.
  public struct DotKernel: Sendable {
    /// `h · x` over `n` floats.
    public typealias Dot = @convention(c) (UnsafePointer<Float>, UnsafePointer<Float>, Int) -> Float
    /// `h · a` and `h · b` over `n` floats, into `out[0]` and `out[1]`.
    public typealias Dot2 =
      @convention(c) (
        UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, Int,
        UnsafeMutablePointer<Float>
      ) -> Void
    /// Sixteen consecutive outputs, all channels: `(table, width, x, stride, channels, out,
    /// first, count)` sets lane `i` of channel `c` to the sum over `m < width` of
    /// `table[m·16 + i] · x[c·stride + m]` and writes lanes `first ..< first + count` to `out`,
    /// interleaved. Lanes outside that range may read input past what is valid, but never past
    /// `width` floats from `x` in each plane, and their results are dropped.
    public typealias Group =
      @convention(c) (
        UnsafePointer<Float>, Int, UnsafePointer<Float>, Int, Int, UnsafeMutablePointer<Float>,
        Int, Int
      ) -> Void
    /// Two whole groups of a mono plane that share a table: `(table, width, a, b, outA, outB)`
    /// sets `outA[i]` (`outB[i]`) to the sum over `m < width` of `table[m·16 + i] · a[m]`
    /// (`b[m]`) for all sixteen lanes, so one coefficient load serves two groups.
    public typealias GroupPair =
      @convention(c) (
        UnsafePointer<Float>, Int, UnsafePointer<Float>, UnsafePointer<Float>,
        UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>
      ) -> Void
    /// The row blended between `h0` and `h1` by `t` dotted with `x` (``VariableRatioResampler``).
    public typealias LerpDot =
      @convention(c) (UnsafePointer<Float>, UnsafePointer<Float>, Float, UnsafePointer<Float>, Int)
      -> Float
    /// The row blended between `h0` and `h1` by `t` dotted with `a` and `b`, into `out[0]`,
    /// `out[1]`.
    public typealias LerpDot2 =
      @convention(c) (
        UnsafePointer<Float>, UnsafePointer<Float>, Float, UnsafePointer<Float>,
        UnsafePointer<Float>, Int, UnsafeMutablePointer<Float>
      ) -> Void
    /// A name for reports.
    public var name: String
    public var dot: Dot
    public var dot2: Dot2
    /// The sixteen-output kernel, if any.
    public var group: Group?
    /// The paired kernel for mono, if any (used only with ``group``).
    public var groupPair: GroupPair?
    /// Blended-row dot products for ``VariableRatioResampler``, if any.
    public var lerpDot: LerpDot?
    public var lerpDot2: LerpDot2?

    public init(
      name: String, dot: Dot, dot2: Dot2, group: Group? = nil, groupPair: GroupPair? = nil,
      lerpDot: LerpDot? = nil, lerpDot2: LerpDot2? = nil
    ) {
      self.name = name
      self.dot = dot
      self.dot2 = dot2
      self.group = group
      self.groupPair = groupPair
      self.lerpDot = lerpDot
      self.lerpDot2 = lerpDot2
    }
  }

  @usableFromInline let up: Int
  @usableFromInline let down: Int
  @usableFromInline let bank: _PolyphaseBank?
  /// The sixteen-output tables, when ``DotKernel/group`` is used.
  @usableFromInline let groups: _GroupTables?
  /// Frames each channel plane holds.
  @usableFromInline let capacity: Int
  /// Floats from one plane to the next: `capacity` and, with groups, a tail of zeros that the
  /// dropped lanes of a group may read.
  @usableFromInline let stride: Int
  /// Channel planes, `stride` floats each.
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

  /// Bytes of coefficient tables this converter holds (shared with its copies): the phase table
  /// and, with the group kernel, the sixteen-output tables.
  public var tableBytes: Int {
    let rows = bank.map { $0.rows * $0.taps * 4 } ?? 0
    return rows + (groups.map { $0.count * ($0.width * _GroupTables.lanes * 4 + 76) + up * 4 } ?? 0)
  }

  /// Makes, once per process, the minimum-phase design that every upsampling rate shares at
  /// `quality` (the presets use it below 44.1 kHz of input; a few tens of milliseconds), so that a
  /// source switching to such a rate mid-stream does not pay for it inside a callback. Does
  /// nothing for a quality that stays linear phase there.
  public static func prepareDesign(for quality: ResamplerQuality) {
    _ = PolyphaseResampler(inputRate: 8000, outputRate: 48000, channelCount: 1, quality: quality)
  }

  /// Whether the filter is the minimum-phase one (``ResamplerQuality/PhaseResponse``): its delay
  /// is ``latency`` at low frequencies and grows towards the band edge.
  public var isMinimumPhase: Bool { bank?.isMinimumPhase ?? false }

  /// Whether outputs are computed sixteen at a time by the kernel's ``DotKernel/group``: when it
  /// has one, the table is exact, accumulation is in Float32 and the group tables fit in 1 MiB.
  public var usesGroupKernel: Bool { groups != nil }

  /// Creates a resampler; allocates the coefficient table and history.
  ///
  /// - Precondition: rates in 1 … 768,000 Hz, 1 … 64 channels.
  public init(
    inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality = .balanced,
    kernel: DotKernel? = nil
  ) {
    self.init(
      inputRate: inputRate, outputRate: outputRate, channelCount: channelCount, quality: quality,
      kernel: kernel, sharing: nil, nil)
  }

  /// Creates a resampler, reusing `bank` when it was built for the same rates and quality.
  init(
    inputRate: Int, outputRate: Int, channelCount: Int, quality: ResamplerQuality,
    kernel: DotKernel?, sharing shared: _PolyphaseBank?, _ sharedGroups: _GroupTables?
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
      latency = 0
      capacity = 0
      stride = 0
      history = []
      return
    }
    let bank =
      shared ?? _PolyphaseBank(up: up, down: down, quality: quality, outputRate: outputRate)
    self.bank = bank
    // Causal: the first output needs nothing past input frame 0 (at low frequencies: a
    // minimum-phase window may reach a fraction of a sample further, for taps near zero).
    latency =
      bank.isMinimumPhase
      ? Int((bank.lookahead * Double(up) / Double(down) - 1e-9).rounded(.up))
      : (bank.lead * up + down - 1) / down
    // Sixteen outputs at a time, by the kernel's group function or the Swift one, where the
    // table is exact and Float32 (a kernel without a group function keeps the per-output path).
    if (kernel == nil || kernel?.group != nil) && !bank.accumulatesInDouble
      && bank.interpolationSteps == 0
    {
      groups =
        sharedGroups
        ?? _GroupTables(bank: bank, up: up, down: down, phase0: Self.start(latency, up, down).phase)
    } else {
      groups = nil
    }
    capacity = bank.taps + down / up + 1024 + (groups?.width ?? 0)
    stride = capacity + (groups.map { $0.width - bank.taps + 8 } ?? 0)
    history = [Float](repeating: 0, count: stride * channelCount)
    reset()
  }

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
  public func remappingChannels(to channels: Int) -> (any Resampler)? {
    guard channelCount == 1, channels == 2 else { return nil }
    var r = PolyphaseResampler(
      inputRate: inputRate, outputRate: outputRate, channelCount: channels, quality: quality,
      kernel: kernel, sharing: bank, groups)
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
    let (capacity, stride) = (self.capacity, self.stride)
    var consumed = 0
    var produced = 0
    var (count, position, phase) = (self.count, self.position, self.phase)
    // With groups: the current group's table, its input position and the next output's lane.
    var group = _GroupCursor(
      groups, framesOut: framesOut, position: position, phase: phase,
      up: up, down: down)
    history.withUnsafeMutableBufferPointer { planes in
      let base = planes.baseAddress!
      guard let out = output.baseAddress else { return }
      while true {
        // Write every output whose window is complete.
        if let groups {
          // Mono: at every group boundary, groups go in pairs a table cycle apart where they can
          // (`_pairedMonoGroups`); only when the pair computes exactly what the single call does
          // (both Swift, or both the kernel's). Then one group, or what is left of it, alone.
          let pairing = channels == 1 && context.pairsMatchSingles
          while produced < room {
            if pairing && group.lane == 0 {
              produced += _pairedMonoGroups(
                groups, context, base, stride, count: count, out + produced,
                room: room - produced, &group)
              if produced == room { break }
            }
            let offsets = groups.offsets + group.table * (_GroupTables.lanes + 1)
            let most = min(_GroupTables.lanes - group.lane, room - produced)
            var n = 0
            while n < most && group.start + Int(offsets[group.lane + n]) + taps <= count { n += 1 }
            if n == 0 { break }
            context.group16(
              groups.tables + group.table * groups.width * _GroupTables.lanes, groups.width,
              base + group.start, stride, channels, out + produced * channels, group.lane, n)
            produced += n
            group.advance(n, groups)
          }
          position = group.start
        } else {
          while position + taps <= count && produced < room {
            _kernel(
              context, phase: phase, base + position, stride, channels,
              out + produced * channels)
            produced += 1
            position += stepWhole
            phase += stepFraction
            if phase >= up {
              phase -= up
              position += 1
            }
          }
        }
        if produced == room || consumed == frames { break }
        // Slide the window (with groups: from its group's start) to the front of the planes,
        // then take more input. What falls free at the end is zeroed, so whatever a group's
        // dropped lanes read there is finite.
        let keep = min(position, count)
        if keep > 0 {
          _slidePlanes(base, stride: stride, channels: channels, count: count, by: keep)
          count -= keep
          position -= keep
          group.start -= keep
        }
        if position > count {
          // Downsampling skipped past everything held: the next samples are not needed.
          let skip = min(position - count, frames - consumed)
          consumed += skip
          position -= skip
          group.start -= skip
          if position > count { continue }
        }
        let n = min(capacity - count, frames - consumed)
        _fillPlanes(
          base, stride: stride, channels: channels, at: count,
          from: input.map { $0 + consumed * channels }, frames: n)
        count += n
        consumed += n
      }
    }
    if let groups {
      (position, phase) = group.output(groups, up: up, down: down)
    }
    (self.count, self.position, self.phase) = (count, position, phase)
    framesOut += produced
    return (consumed, produced)
  }
}

/// Where the grouped loop stands: the table of the current group of sixteen outputs, the input
/// position of its first window, and the lane of the next output in it.
@usableFromInline
struct _GroupCursor {
  @usableFromInline var table = 0
  @usableFromInline var start = 0
  @usableFromInline var lane = 0

  /// The cursor of output `framesOut`, which sits at `position` and `phase`.
  @inlinable
  init(_ groups: _GroupTables?, framesOut: Int, position: Int, phase: Int, up: Int, down: Int) {
    guard let groups else { return }
    lane = framesOut % _GroupTables.lanes
    let back = lane * down
    let q = ((phase - back % up) % up + up) % up
    table = Int(groups.tableOfPhase[q])
    precondition(table >= 0, "output \(framesOut) is not in a known group")
    start = position - (q + back) / up
  }

  /// Moves past `n` outputs.
  @inlinable @inline(__always)
  mutating func advance(_ n: Int, _ groups: _GroupTables) {
    lane += n
    if lane == _GroupTables.lanes {
      start += Int(groups.offsets[table * (_GroupTables.lanes + 1) + lane])
      table = Int(groups.next[table])
      lane = 0
    }
  }

  /// The next output's window position and phase.
  @inlinable
  func output(_ groups: _GroupTables, up: Int, down: Int) -> (position: Int, phase: Int) {
    let offsets = groups.offsets + table * (_GroupTables.lanes + 1)
    return (start + Int(offsets[lane]), (Int(groups.startPhase[table]) + lane * down) % up)
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
  @usableFromInline let group: PolyphaseResampler.DotKernel.Group?
  @usableFromInline let groupPair: PolyphaseResampler.DotKernel.GroupPair?

  @inlinable
  init(_ bank: _PolyphaseBank, _ kernel: PolyphaseResampler.DotKernel?, up: Int) {
    coefficients = UnsafePointer(bank.coefficients)
    taps = bank.taps
    steps = bank.interpolationSteps
    self.up = up
    inDouble = bank.accumulatesInDouble
    dot = bank.accumulatesInDouble ? nil : kernel?.dot
    dot2 = bank.accumulatesInDouble ? nil : kernel?.dot2
    group = bank.accumulatesInDouble ? nil : kernel?.group
    groupPair = bank.accumulatesInDouble ? nil : kernel?.groupPair
  }

  /// Sixteen outputs of a group (see ``PolyphaseResampler/DotKernel/group``): the kernel's
  /// function when it has one, the Swift one otherwise.
  @inlinable @inline(__always)
  func group16(
    _ table: UnsafePointer<Float>, _ width: Int, _ x: UnsafePointer<Float>, _ stride: Int,
    _ channels: Int, _ out: UnsafeMutablePointer<Float>, _ first: Int, _ count: Int
  ) {
    if let group {
      group(table, width, x, stride, channels, out, first, count)
    } else {
      _group16(table, width, x, stride, channels, out, first, count)
    }
  }

  /// Two whole groups of a mono plane sharing `table` (see
  /// ``PolyphaseResampler/DotKernel/groupPair``), by the kernel or in Swift.
  @inlinable @inline(__always)
  func group16x2(
    _ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>,
    _ b: UnsafePointer<Float>, _ outA: UnsafeMutablePointer<Float>,
    _ outB: UnsafeMutablePointer<Float>
  ) {
    if let groupPair {
      groupPair(table, width, a, b, outA, outB)
    } else {
      _group16x2(table, width, a, b, outA, outB)
    }
  }

  /// Whether ``group16x2(_:_:_:_:_:_:)`` adds exactly as two ``group16(_:_:_:_:_:_:_:_:)`` calls
  /// would: both Swift, or both the kernel's.
  @inlinable var pairsMatchSingles: Bool { group == nil || groupPair != nil }

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

/// Mono, from a group boundary: of the next `cycle + j` whole groups that are complete and fit
/// in `room` (`cycle` = the number of tables, `j` ≤ `cycle`), the first `j` are computed together
/// with the last `j` (a table cycle later, same table: one coefficient load for two groups) and
/// the rest alone; repeated while at least `cycle + 1` whole groups are ready. Returns the
/// frames written; moves `group` past them.
@inlinable
func _pairedMonoGroups(
  _ groups: _GroupTables, _ context: _KernelContext, _ base: UnsafeMutablePointer<Float>,
  _ stride: Int, count: Int, _ out: UnsafeMutablePointer<Float>, room: Int,
  _ group: inout _GroupCursor
) -> Int {
  let lanes = _GroupTables.lanes
  let cycle = groups.count
  let advance = groups.cycleAdvance
  func next(_ start: inout Int, _ table: inout Int) {
    start += Int(groups.offsets[table * (lanes + 1) + lanes])
    table = Int(groups.next[table])
  }
  var produced = 0
  while true {
    var whole = 0
    var (s, t) = (group.start, group.table)
    let most = min((room - produced) / lanes, 2 * cycle)
    while whole < most && s + groups.width <= count {
      next(&s, &t)
      whole += 1
    }
    guard whole > cycle else { break }
    let pairs = whole - cycle
    var (start, table) = (group.start, group.table)
    let first = out + produced
    for i in 0..<cycle {
      let t = groups.tables + table * groups.width * lanes
      let outA = first + i * lanes
      if i < pairs {
        context.group16x2(
          t, groups.width, base + start, base + start + advance, outA,
          first + (cycle + i) * lanes)
      } else {
        context.group16(t, groups.width, base + start, stride, 1, outA, 0, lanes)
      }
      next(&start, &table)
    }
    produced += whole * lanes
    (group.start, group.table) = (s, t)
  }
  return produced
}

/// The Swift form of ``PolyphaseResampler/DotKernel/group``: sixteen outputs, every channel.
@inlinable
func _group16(
  _ table: UnsafePointer<Float>, _ width: Int, _ x: UnsafePointer<Float>, _ stride: Int,
  _ channels: Int, _ out: UnsafeMutablePointer<Float>, _ first: Int, _ count: Int
) {
  var c = 0
  while c + 2 <= channels {
    let (a, b) = _groupLanes(table, width, x + c * stride, x + (c + 1) * stride)
    for i in 0..<count {
      out[i * channels + c] = a[first + i]
      out[i * channels + c + 1] = b[first + i]
    }
    c += 2
  }
  if c < channels {
    let a = _groupLanes(table, width, x + c * stride)
    for i in 0..<count { out[i * channels + c] = a[first + i] }
  }
}

/// The Swift form of ``PolyphaseResampler/DotKernel/groupPair``.
@inlinable
func _group16x2(
  _ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>,
  _ b: UnsafePointer<Float>, _ outA: UnsafeMutablePointer<Float>,
  _ outB: UnsafeMutablePointer<Float>
) {
  let (la, lb) = _groupLanes(table, width, a, b)
  UnsafeMutableRawPointer(outA).storeBytes(of: la, as: SIMD16<Float>.self)
  UnsafeMutableRawPointer(outB).storeBytes(of: lb, as: SIMD16<Float>.self)
}

/// Sixteen lanes of two planes against one group table: each tap's input sample, broadcast,
/// times the tap's sixteen coefficients, one row load for both planes. Sums run over blocks of
/// ``_groupBlock`` taps, each block's added to the total: a separate multiply and add rounds
/// twice per tap, and shorter running sums keep that error near the per-output path's.
@inlinable @inline(__always)
func _groupLanes(
  _ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>,
  _ b: UnsafePointer<Float>
) -> (SIMD16<Float>, SIMD16<Float>) {
  let t = UnsafeRawPointer(table)
  var a0 = SIMD8<Float>()
  var a1 = SIMD8<Float>()
  var b0 = SIMD8<Float>()
  var b1 = SIMD8<Float>()
  var m = 0
  while m < width {
    let end = min(width, m + _groupBlock)
    var sa0 = SIMD8<Float>()
    var sa1 = SIMD8<Float>()
    var sb0 = SIMD8<Float>()
    var sb1 = SIMD8<Float>()
    while m < end {
      let c0 = t.loadUnaligned(fromByteOffset: m * 64, as: SIMD8<Float>.self)
      let c1 = t.loadUnaligned(fromByteOffset: m * 64 + 32, as: SIMD8<Float>.self)
      let xa = SIMD8<Float>(repeating: a[m])
      let xb = SIMD8<Float>(repeating: b[m])
      sa0 += c0 * xa
      sa1 += c1 * xa
      sb0 += c0 * xb
      sb1 += c1 * xb
      m += 1
    }
    a0 += sa0
    a1 += sa1
    b0 += sb0
    b1 += sb1
  }
  return (SIMD16(lowHalf: a0, highHalf: a1), SIMD16(lowHalf: b0, highHalf: b1))
}

/// Sixteen lanes of one plane: the same sums, in the same order, as
/// ``_groupLanes(_:_:_:_:)`` gives for either of its planes.
@inlinable @inline(__always)
func _groupLanes(_ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>)
  -> SIMD16<Float>
{
  let t = UnsafeRawPointer(table)
  var a0 = SIMD8<Float>()
  var a1 = SIMD8<Float>()
  var m = 0
  while m < width {
    let end = min(width, m + _groupBlock)
    var sa0 = SIMD8<Float>()
    var sa1 = SIMD8<Float>()
    while m < end {
      let xa = SIMD8<Float>(repeating: a[m])
      sa0 += t.loadUnaligned(fromByteOffset: m * 64, as: SIMD8<Float>.self) * xa
      sa1 += t.loadUnaligned(fromByteOffset: m * 64 + 32, as: SIMD8<Float>.self) * xa
      m += 1
    }
    a0 += sa0
    a1 += sa1
  }
  return SIMD16(lowHalf: a0, highHalf: a1)
}

/// Taps per partial sum in the Swift group kernel.
@usableFromInline let _groupBlock = 16
