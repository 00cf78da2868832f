/// One source of a ``ClockedCapturePipeline``: its chain (probe, decode, resample), its clock
/// (where buffers land, how fast it runs) and its timeline of frames waiting to be pulled.
struct TimedSource {
  var chain: SourceChain
  var clock: SourceClock
  var fifo: TimelineFIFO
  let outputRate: Int
  /// The gain, ramping over the fade time when it changes.
  var gain: Ramp
  var isEnabled = true
  /// Frames of a fade (0: none), and its raised-cosine shape: `fade[d]`, d in 0 ..< frames.
  let fade: FadeShape
  /// A fade-in that starts at this timeline frame (the source was enabled here).
  var fadeInFrom: Int?
  /// Where a disabled source's fade-out ends: its audio from here on is dropped.
  var fadeOutTo: Int?
  /// The probe's last answer, to skip probing an unchanged description.
  var lastDescription: StreamDescription?
  var lastFormat: PCMFormat?
  /// The longest buffer seen, in output frames: a source delivers its first frame this late.
  var largestBuffer = 0
  /// Timeline counters (see ``CaptureSideStatistics``).
  var framesEmitted = 0
  var framesDropped = 0
  var framesLate = 0
  var framesSilent = 0
  /// Whether the resampler holds the tail of input not yet flushed (its last ~1 ms).
  var hasTail = false
  /// Whether the stream was ended (``ClockedCapturePipeline/finish(_:)``) and nothing came
  /// since: the clock then does not wait for it.
  var isFinished = false
  /// Buffers that came with an invalid stamp (placed as unstamped).
  var invalidStamps = 0
  /// Low-passes the seam of a seamless rate switch to the lower rate's band.
  var smoother: RateSwitchSmoother
  /// The output clock's compression in force: the resampler runs this much faster (fewer
  /// output frames per input frame) on top of the drift correction.
  var compression = 0.0
  /// Fill-level steering of an unstamped source: fill summed over the current second.
  var fillSum = 0.0
  var fillFrames = 0

  init(
    _ c: ClockedCapturePipeline.Configuration, format: StreamDescription?, capacity: Int,
    gainDB: Double
  ) throws(ProbeError) {
    outputRate = c.outputRate
    chain = SourceChain(
      outputRate: c.outputRate, outputChannels: 2, resampler: c.resolvedResampler,
      resamplesEqualRates: c.driftCorrection != .off)
    chain.seamless = true
    let out = c.outputRate
    smoother = RateSwitchSmoother(outputRate: out, rates: c.preparedRates) { rate in
      // A bound on either filter's reach: 256 samples of the lower rate.
      256 * out / rate + 1
    }
    clock = SourceClock(
      .init(
        outputRate: Double(c.outputRate), tolerance: c.gapTolerance, maxOverlap: c.maxOverlap,
        steers: c.driftCorrection != .off, timeConstant: c.driftTimeConstant,
        maxAdjustment: c.maxRatioAdjustment))
    fifo = TimelineFIFO(capacity: capacity, channelCount: 2)
    gain = Ramp(gainDB == 0 ? 1 : Float(Math.pow(10, gainDB / 20)))
    fade = FadeShape(frames: Int((c.fadeSeconds * Double(c.outputRate)).rounded()))
    if let format {
      let rate = format.sampleRate
      guard rate >= Double(c.inputRates.lowerBound), rate <= Double(c.inputRates.upperBound)
      else { throw .invalidSampleRate(rate) }
      try chain.prepare(for: format, rates: c.preparedRates, into: &fifo)
      lastDescription = format
      lastFormat = chain.format
    }
  }

  /// Whether the source has delivered audio.
  var hasStarted: Bool { clock.expected != nil }

  /// What the output clock needs to know of it.
  var state: SourceState {
    SourceState(
      hasStarted: hasStarted, isEnabled: isEnabled && fadeOutTo == nil, isStamped: clock.isStamped,
      isEmpty: fifo.isEmpty, isFinished: isFinished, nextPosition: fifo.nextPosition,
      largestBuffer: largestBuffer)
  }

  /// Places and processes one buffer (see ``ClockedCapturePipeline/append``): `position` is its
  /// stamp on the timeline, `arrival` where the pipeline estimates "now" to be.
  mutating func take(
    _ input: PCMInput, description: StreamDescription, stamp: MediaTime?,
    position: Double?, arrival: Double, now: Double?, window: Double, runDry: Bool
  ) throws(ProbeError) {
    let format: PCMFormat
    if let known = lastFormat, description == lastDescription {
      format = known
    } else {
      format = try FormatProbe.probe(description)
    }
    let planes = try PCMPlanes(input, format: format)
    // Everything the chain would refuse is refused here, before the buffer changes anything
    // (the last format too: it is what the statistics report).
    try chain.accept(format)
    (lastDescription, lastFormat) = (description, format)
    let frames = planes.frames
    guard frames > 0 else { return }
    isFinished = false
    let rate = format.sampleRate
    if fade.frames > 0, let before = chain.format, before.sampleRate != rate,
      !chain.switchesSeamlessly(to: rate, sink: fifo)
    {
      // A switch of rate the chain cannot overlap: the old run ends here (its tail placed,
      // faded out), the new one starts a new segment right after it (faded in).
      finish()
      fifo.close()
    }
    let span = Double(frames) * Double(outputRate) / Double(rate)
    largestBuffer = max(largestBuffer, Int(span.rounded(.up)))
    let placement: SourceClock.Placement
    if let stamp, let position {
      clock.compression = compression
      placement = clock.place(
        stamp: stamp, position: position, frames: frames, rate: rate,
        fingerprint: Fingerprint(planes), now: now.map { $0 - span }, window: window)
    } else {
      placement = clock.placeByArrival(frames: frames, arrival: arrival - span, runDry: runDry)
    }
    var skip = 0
    switch placement {
    case .contiguous: break
    case .jump(let p):
      // The run before ends here: its resampler tail goes after it, the new run starts at p.
      finish()
      fifo.jump(to: p)
    case .trim(let k): skip = k
    case .drop: return
    }
    chain.adjustRatio(by: clock.adjustment - compression)
    let rateBefore = chain.format?.sampleRate
    try chain.process(planes.droppingFrames(skip), format: format, into: &fifo)
    if let seam = fifo.seam {
      fifo.seam = nil
      smoother.arm(seam: seam, rates: rateBefore ?? rate, rate, half: chain.seamSpan)
    }
    smoother.run(on: &fifo)
    clock.advance(frames: frames - skip, rate: rate)
    hasTail = chain.format.map { chain.resamples($0.sampleRate) } ?? false
  }

  /// Ends the stream: the resampler's tail goes after the last buffer.
  mutating func finish() {
    chain.flush(into: &fifo)
    hasTail = false
  }

  /// Places the resampler's tail when the output is about to reach past the newest audio
  /// (`end` is the end of the next pull's interval): the source is overdue, so its last frames
  /// belong here and now, not after the gap whenever it comes back. If it goes on without a
  /// gap, its next buffer starts a new run right after the tail.
  mutating func flushIfOverdue(before end: Int) {
    guard hasTail && isEnabled && fifo.nextPosition < end + fade.frames else { return }
    finish()
    // Taken to have stopped here: what it delivers next starts a new segment, faded in, and
    // this one ends here, faded out over the audio that did arrive.
    if fade.frames > 0 { fifo.close() }
  }

  /// Disables or enables the source at timeline frame `k`: with fades, it fades out from `k`
  /// (its audio after `k` plus the fade is dropped), or fades in from `k`.
  mutating func setEnabled(_ enabled: Bool, at k: Int) {
    guard enabled != isEnabled || (enabled && fadeOutTo != nil) else { return }
    if fade.frames == 0 || (!enabled && fifo.isEmpty) {
      // Nothing to fade (or no fades): at once.
      isEnabled = enabled
      return
    }
    if enabled {
      isEnabled = true
      fadeOutTo = nil
      fadeInFrom = k
    } else {
      fadeOutTo = k + fade.frames
    }
  }

  /// Copies this source's audio for timeline frames `k ..< k + n` into `dst` (interleaved
  /// stereo, silence where it has none), dropping what is before `k` as late. Returns the frames
  /// of silence and how late (frames) the oldest late audio was.
  mutating func extract(_ k: Int, _ n: Int, into dst: UnsafeMutablePointer<Float>)
    -> (silent: Int, lateness: Int)
  {
    dst.update(repeating: 0, count: n * 2)
    if let end = fadeOutTo, end <= k {
      // The fade-out after disabling is over: off.
      isEnabled = false
      fadeOutTo = nil
    }
    guard isEnabled else {
      framesDropped += fifo.count
      fifo.removeAll()
      framesSilent += n
      return (n, 0)
    }
    var taken = 0
    var lateness = 0
    while let (h, run) = fifo.head {
      if h < k {
        // Arrived after its place was pulled.
        let m = min(run, k - h)
        lateness = max(lateness, k - h)
        fifo.discard(m)
        framesLate += m
        framesDropped += m
        continue
      }
      if h >= k + n {
        // In the future; but a segment that a later one starts before is a stamp that jumped
        // ahead and came back (see `SourceClock`): it is dropped.
        if let next = fifo.nextSegmentPosition, next <= h {
          fifo.discard(run)
          framesDropped += run
          continue
        }
        break
      }
      let m = min(run, k + n - h)
      let at = dst + (h - k) * 2
      fifo.peek(m, into: at)
      if fade.frames > 0 { shape(at, from: h, frames: m) }
      fifo.discard(m)
      taken += m
      framesEmitted += m
      if h + m == k + n { break }
    }
    framesSilent += n - taken
    return (n - taken, lateness)
  }

  /// Whether timeline frames `k ..< k + n` all lie at the head of the oldest segment, no fade
  /// touching them: then ``extract(_:_:into:)`` would copy them unchanged, and the mix can read
  /// them where they lie (``fifo``) and ``consumePlain(_:)`` them instead.
  func isPlain(_ k: Int, _ n: Int) -> Bool {
    guard isEnabled, fadeOutTo == nil, let (h, run) = fifo.head, h == k, run >= n else {
      return false
    }
    guard fade.frames > 0, let segment = fifo.headSegment else { return true }
    // As `shape` decides which frames it touches.
    let inStart = max(segment.start, fadeInFrom ?? .min)
    let firstOut = segment.end.map { $0 - fade.frames } ?? .max
    return k >= inStart + fade.frames && k + n <= firstOut
  }

  /// Takes `n` frames that ``isPlain(_:_:)`` said were plain, as ``extract(_:_:into:)`` takes
  /// them.
  mutating func consumePlain(_ n: Int) {
    fifo.discard(n)
    framesEmitted += n
  }

  /// Applies the fades to `frames` frames at `at`, timeline frames `h ..< h + frames` of the
  /// oldest segment: in from its start (every segment starts after a silence, a gap or a
  /// splice), out before its end once that is known, in after an enable, out after a disable.
  func shape(_ at: UnsafeMutablePointer<Float>, from h: Int, frames: Int) {
    guard let segment = fifo.headSegment else { return }
    let f = fade.frames
    let end = min(segment.end ?? .max, fadeOutTo ?? .max)
    let inStart = max(segment.start, fadeInFrom ?? .min)
    // Only the frames near a start or an end are touched.
    let lastIn = inStart + f
    let firstOut = end == .max ? Int.max : end - f
    guard h < lastIn || h + frames > firstOut else { return }
    for j in 0..<frames {
      let p = h + j
      var g: Float = 1
      if p < lastIn { g = fade.value(p - inStart) }
      if p >= firstOut { g = min(g, p >= end ? 0 : fade.value(end - 1 - p)) }
      if g < 1 {
        at[2 * j] *= g
        at[2 * j + 1] *= g
      }
    }
  }

  /// Drops (counted) every frame placed before timeline frame `p`.
  mutating func dropBefore(_ p: Int) {
    while let (h, run) = fifo.head, h < p {
      let m = min(run, p - h)
      fifo.discard(m)
      framesDropped += m
    }
  }

  /// For an unstamped source: brings its fill back to the latency when it got further ahead (a
  /// consumer that stalled, a source clock faster than the pull's), re-basing what is left; with
  /// fill-level drift correction, steers its ratio once a second to keep the mean fill steady.
  mutating func keepFill(
    clock output: OutputClock, frames: Int, configuration c: ClockedCapturePipeline.Configuration
  ) {
    guard isEnabled, hasStarted, !clock.isStamped, output.isRunning else { return }
    let fill = fifo.nextPosition - output.position
    let slack = max(largestBuffer, frames) + c.outputRate / 20
    if fill > output.latency + slack {
      let excess = min(fill - output.latency, fifo.count)
      fifo.discard(excess)
      framesDropped += excess
      fifo.shift(by: -excess)
      clock.shift(by: -excess)
    }
    guard c.driftCorrection == .timestampsAndFillLevel else { return }
    fillSum += Double(fill) * Double(frames)
    fillFrames += frames
    if fillFrames >= c.outputRate {
      // The mean fill of an arrival-placed source sits half its buffer below the latency.
      let target = Double(output.latency) - Double(largestBuffer) / 2
      let mean = fillSum / Double(fillFrames)
      clock.steer(
        error: target - mean, interval: Double(fillFrames) / Double(c.outputRate),
        timeConstant: 10 * c.driftTimeConstant)
      (fillSum, fillFrames) = (0, 0)
    }
  }

  /// The counters as the public type.
  var statistics: CaptureSideStatistics {
    var s = CaptureSideStatistics()
    let c = clock.counters
    s.buffers = c.buffers
    s.inputFrames = c.framesIn
    s.inputFramesTrimmed = c.framesTrimmed
    s.duplicateBuffers = c.duplicates
    s.gaps = c.gaps
    s.gapFrames = c.gapFrames
    s.arrivalPlacedBuffers = c.arrivalPlaced
    s.resyncs = c.resyncs
    s.restarts = c.restarts
    s.invalidStamps = invalidStamps
    s.framesIn = fifo.appended
    s.framesEmitted = framesEmitted
    s.framesDropped = framesDropped + fifo.overflowDropped
    s.framesLate = framesLate
    s.framesBuffered = fifo.count
    s.framesSilent = framesSilent
    s.isStamped = clock.isStamped
    s.driftPPM = clock.driftPPM
    s.ratioAdjustment = clock.adjustment
    s.lastPositionError = c.lastError
    s.inputRate = lastFormat?.sampleRate
    return s
  }

  /// Bytes held: the timeline's frames and the chain.
  var retainedBytes: Int {
    fifo.capacity * fifo.channelCount * 4 + chain.retainedBytes + smoother.retainedBytes
  }
}

/// A gain that moves to a new value over a fade's frames (raised cosine) instead of stepping.
struct Ramp {
  private(set) var from: Float
  private(set) var to: Float
  /// Frames of the ramp done; the ramp is over at the fade's length.
  private(set) var done: Int

  init(_ value: Float) {
    (from, to, done) = (value, value, .max)
  }

  /// The gain now (at the start of the next block).
  func current(_ fade: FadeShape) -> Float {
    done >= fade.frames ? to : from + (to - from) * fade.value(done)
  }

  /// Whether it stays one value for the next block.
  var isSteady: Bool { from == to || done == .max }

  /// Moves toward `value` from where it is now.
  mutating func set(_ value: Float, _ fade: FadeShape) {
    if fade.frames == 0 {
      (from, to, done) = (value, value, .max)
    } else {
      (from, to, done) = (current(fade), value, 0)
    }
  }

  /// The value for the next block if no ramp is under way (a finished one is marked done), or
  /// `nil` while one is: then ``apply(_:frames:_:)`` does the work.
  mutating func settled(_ fade: FadeShape) -> Float? {
    guard done >= fade.frames else { return nil }
    done = .max
    return to
  }

  /// Multiplies `count` frames of interleaved stereo at `x` by the gain, moving along the ramp.
  mutating func apply(_ x: UnsafeMutablePointer<Float>, frames count: Int, _ fade: FadeShape) {
    if done >= fade.frames {
      let g = to
      done = .max
      // A gain of 1 changes no bit: skipped.
      if g != 1 { for i in 0..<(2 * count) { x[i] *= g } }
      return
    }
    for j in 0..<count {
      let g = done + j >= fade.frames ? to : from + (to - from) * fade.table[done + j]
      x[2 * j] *= g
      x[2 * j + 1] *= g
    }
    done = min(done + count, fade.frames)
  }
}
