import CPCMMixCore

/// One source's path from raw bytes to time-aligned frames at the output rate:
/// probe → decode → resample → channel map, in blocks of at most 10 ms of input. The resampler
/// runs on the fewer of the input's and the output's channels (a mono mic is resampled once,
/// then duplicated: the same samples as duplicating first, at half the cost).
///
/// State carries from one buffer to the next (resampler history and phase), so any split of a
/// stream into buffers gives the same frames. Buffers of any length are taken; scratch storage
/// is sized for one 10 ms block and allocated only when the input rate changes. The resampler's
/// delay is dropped at the start, so output frame `j` is input time `j / outputRate`. A float
/// source's NaN or ±∞ is taken as silence, and a sample beyond ±2⁶⁴ is held there.
///
/// When the input rate changes mid-stream, the old resampler's tail is flushed into the sink and
/// a new one starts from silence: no sample of the old format is held into the new one. A
/// seamless chain over a sink that can sum (a capture timeline) overlaps the two instead:
/// the old run rings out past its end, the new one starts early, and their frames are summed,
/// so that the stream goes on as one (the capture pipelines' chains are). Changes
/// of byte order or sample type take effect at the next buffer with no reset, and so does a
/// change of channel count with the built-in resampler (its history is remapped).
public struct SourceChain {
  /// Frames per second out.
  public let outputRate: Int
  /// Samples per frame out (1 or 2).
  public let outputChannels: Int
  let factory: ResamplerFactory
  /// Whether equal rates are resampled too, so that the ratio can be steered off 1.
  public let resamplesEqualRates: Bool
  /// Resamplers made ahead for rates a source may switch to, keyed by input rate, each for
  /// ``preparedChannels`` channels; a switch to one of them swaps it in without allocating.
  var prepared: [(rate: Int, resampler: (any Resampler)?)] = []
  /// Channels the prepared resamplers run on (0 when none are prepared).
  var preparedChannels = 0
  /// The steering applied to every resampler this chain makes or swaps in.
  public private(set) var ratioAdjustment = 0.0

  /// The format of the last buffer taken, if any.
  public private(set) var format: PCMFormat?
  var lastDescription: StreamDescription?
  var resampler: (any Resampler)?
  /// Channels the resampler runs on: the fewer of the input's (up to 2) and the output's.
  var resampleChannels = 0
  /// Leading resampler frames still to drop for time alignment.
  var leadingToDrop = 0
  var blockFrames = 0
  var decoded: [Float] = []
  var mapped: [Float] = []
  var resampled: [Float] = []
  /// Whether a switch of input rate overlaps the two resamplers' runs where the sink and the
  /// backend allow (see ``switchesSeamlessly(to:)``).
  var seamless = false
  /// Input frames the current resampler has taken since it started (0: nothing to ring out).
  var runFrames = 0
  /// Frames of the new run still to be summed onto the sink's newest frames (its early outputs,
  /// and those over the old run's ring-out) instead of appended.
  var overlapRemaining = 0
  /// Where the old run's ring-out started, past the end of its input (output frames).
  var ringOutTime: Double?
  /// At the last seamless switch: the output frames either run's filter reaches (the seam's
  /// half-width), for the capture pipeline's seam smoothing.
  public internal(set) var seamSpan = 0
  /// Input frames taken since creation.
  public private(set) var framesIn = 0
  /// Frames handed to the sink since creation.
  public private(set) var framesOut = 0

  /// Creates a chain; nothing is allocated until the first buffer shows its format.
  ///
  /// - Parameters:
  ///   - outputRate: frames per second out.
  ///   - outputChannels: 1 (stereo averaged) or 2 (mono duplicated).
  ///   - resampler: makes the converter whenever the input rate differs from `outputRate`.
  ///   - resamplesEqualRates: resample an input at the output rate too (a fractional-delay
  ///     filter), so that ``adjustRatio(by:)`` can steer it; otherwise it passes untouched.
  public init(
    outputRate: Int = 48_000, outputChannels: Int = 2,
    resampler: ResamplerFactory = .builtin(.balanced),
    resamplesEqualRates: Bool = false
  ) {
    precondition((1...PCMFormat.maxSampleRate).contains(outputRate))
    precondition((1...2).contains(outputChannels))
    self.outputRate = outputRate
    self.outputChannels = outputChannels
    factory = resampler
    self.resamplesEqualRates = resamplesEqualRates
  }

  /// Bytes of storage the chain holds: its scratch and its resamplers' ``Resampler/retainedBytes``
  /// (the built-in ones count history and their own tables; libsamplerate's private state is not
  /// visible from here and is not counted).
  public var retainedBytes: Int {
    var bytes = (decoded.capacity + mapped.capacity + resampled.capacity) * 4
    bytes += resampler?.retainedBytes ?? 0
    for slot in prepared { bytes += slot.resampler?.retainedBytes ?? 0 }
    return bytes
  }

  /// The largest magnitude a float source's sample keeps on its way in (2⁶⁴, 385 dB over full
  /// scale): beyond it a sample is held at ±2⁶⁴, and NaN or ±∞ is taken as silence, so that no
  /// sum after here (a resampler's taps, the mix of two sources) overflows to ∞ and the mix
  /// never carries a NaN. Integer sources lie within ±1 already. Without it, an equal-rate
  /// source (the CLI's, where nothing is resampled) carried a NaN into a float output file,
  /// and a float sample at 3·10³⁸ came out of the resampler as ∞.
  static let sampleBound = Float(sign: .plus, exponent: 64, significand: 1)

  /// The frames of input the chain works through at a time at `rate`: 10 ms.
  static func blockFrames(_ rate: Int) -> Int { (rate + 99) / 100 }

  /// Whether input at `rate` goes through a resampler.
  func resamples(_ rate: Int) -> Bool { rate != outputRate || resamplesEqualRates }

  /// Probes `description` and runs the buffer through the chain into `sink`.
  ///
  /// The description is probed again only when it differs from the last one.
  /// - Throws: ``ProbeError`` for a description that is not readable PCM, or a byte count that
  ///   is not a whole number of frames; nothing is consumed then.
  public mutating func process<Sink: FrameSink>(
    _ bytes: UnsafeRawBufferPointer, description: StreamDescription, into sink: inout Sink
  ) throws(ProbeError) {
    try process(.bytes(bytes), description: description, into: &sink)
  }

  /// Probes `description` (when it changed) and runs `input` through the chain.
  mutating func process<Sink: FrameSink>(
    _ input: PCMInput, description: StreamDescription, into sink: inout Sink
  ) throws(ProbeError) {
    let format: PCMFormat
    if let known = self.format, description == lastDescription {
      format = known
    } else {
      format = try FormatProbe.probe(description)
    }
    try process(input, format: format, into: &sink)
    lastDescription = description
  }

  /// Configures the chain for buffers described by `description` ahead of the first one, so
  /// that the first buffer allocates nothing either (filter tables are built here). When the
  /// chain already runs another rate, its tail is flushed into `sink` first.
  public mutating func prepare<Sink: FrameSink>(
    for description: StreamDescription, into sink: inout Sink
  ) throws(ProbeError) {
    let format = try FormatProbe.probe(description)
    if format != self.format { reconfigure(format, into: &sink) }
    lastDescription = description
  }

  /// Makes resamplers ahead of time for every rate in `rates` (with as many channels as the
  /// resampler runs for `description`), and scratch storage for the largest, so that a source
  /// switching among them mid-stream (a mic going from 48 to 16 kHz when AirPods connect) costs
  /// no allocation and no filter design inside the callback; then configures the chain for
  /// `description` as ``prepare(for:into:)`` does. The tables are shared where the backend
  /// shares them (``VariableRatioResampler`` uses one table for every upsampling rate).
  public mutating func prepare<Sink: FrameSink>(
    for description: StreamDescription, rates: [Int], into sink: inout Sink
  ) throws(ProbeError) {
    guard !rates.isEmpty else { return try prepare(for: description, into: &sink) }
    let format = try FormatProbe.probe(description)
    let channels = min(format.channelCount, 2, outputChannels)
    let wanted = Set(rates.filter { $0 > 0 && $0 <= PCMFormat.maxSampleRate && resamples($0) })
    if channels != preparedChannels { prepared = [] }
    preparedChannels = channels
    for rate in wanted.sorted() where !prepared.contains(where: { $0.rate == rate }) {
      var r = factory(rate, outputRate, channels)
      _ = r.adjustRatio(by: ratioAdjustment)
      prepared.append((rate, r))
    }
    // Scratch for the largest block any of them (or the format itself) needs.
    let rates = Array(wanted) + [format.sampleRate]
    let block = rates.map(Self.blockFrames).max()!
    let out = rates.map { rate in
      prepared.first { $0.rate == rate }?.resampler?.maxOutputFrames(
        forInputFrames: Self.blockFrames(rate)) ?? Self.blockFrames(rate)
    }.max()!
    reserve(block: block, output: out)
    try prepare(for: description, into: &sink)
  }

  /// Grows the scratch to hold `block` input frames and `output` output frames (stereo).
  mutating func reserve(block: Int, output: Int) {
    if resampled.count < output * 2 { resampled = [Float](repeating: 0, count: output * 2) }
    if mapped.count < block * 2 { mapped = [Float](repeating: 0, count: block * 2) }
    if decoded.count < block * 2 { decoded = [Float](repeating: 0, count: block * 2) }
  }

  /// Steers the resampler (and any made or swapped in later) to `outputRate / inputRate ×
  /// (1 + adjustment)`; returns whether the backend can (see ``Resampler/adjustRatio(by:)``).
  /// Input at the output rate passes untouched unless the chain ``resamplesEqualRates``.
  @discardableResult
  public mutating func adjustRatio(by adjustment: Double) -> Bool {
    ratioAdjustment = adjustment
    guard resampler != nil else { return adjustment == 0 }
    return resampler!.adjustRatio(by: adjustment)
  }

  /// Runs a buffer already described by `format` through the chain into `sink`.
  ///
  /// - Throws: ``ProbeError/invalidSampleRate(_:)``, ``ProbeError/zeroChannels`` or
  ///   ``ProbeError/tooManyChannels(_:)`` for a format outside what the library converts, and
  ///   ``ProbeError/partialFrame(byteCount:bytesPerFrame:)`` when `bytes` is not a whole number
  ///   of frames; nothing is consumed then.
  /// - Complexity: O(frames); no allocation unless the input rate changed.
  public mutating func process<Sink: FrameSink>(
    _ bytes: UnsafeRawBufferPointer, format: PCMFormat, into sink: inout Sink
  ) throws(ProbeError) {
    try process(.bytes(bytes), format: format, into: &sink)
  }

  /// Checks `format`, then `input` against it, and runs it through the chain.
  mutating func process<Sink: FrameSink>(
    _ input: PCMInput, format: PCMFormat, into sink: inout Sink
  ) throws(ProbeError) {
    lastDescription = nil
    try accept(format)
    try process(PCMPlanes(input, format: format), format: format, into: &sink)
  }

  /// Refuses a format outside what the library converts (checked when it differs from the last).
  func accept(_ format: PCMFormat) throws(ProbeError) {
    if format != self.format {
      guard (1...PCMFormat.maxSampleRate).contains(format.sampleRate) else {
        throw .invalidSampleRate(Double(format.sampleRate))
      }
      guard format.channelCount > 0 else { throw .zeroChannels }
      guard format.channelCount <= PCMFormat.maxChannels else {
        throw .tooManyChannels(format.channelCount)
      }
    }
  }

  /// Runs checked `planes` of `format` through the chain into `sink`.
  mutating func process<Sink: FrameSink>(
    _ planes: PCMPlanes, format: PCMFormat, into sink: inout Sink
  ) throws(ProbeError) {
    // A format given directly invalidates the probe cache of `process(_:description:into:)`.
    lastDescription = nil
    try accept(format)
    if format != self.format { reconfigure(format, into: &sink) }
    let total = planes.frames
    let decodedChannels = min(format.channelCount, 2)
    let channels = resampleChannels
    let outChannels = outputChannels
    var scratch = takeScratch()
    _withBuffers(&scratch) { d, m, o in
      var start = 0
      while start < total {
        let n = min(blockFrames, total - start)
        PCMDecoder._decode(
          planes, format: format, frames: start..<(start + n), outputChannels: decodedChannels,
          into: d)
        if format.sampleType.isFloat {
          pcmmix_core_bound(d.baseAddress!, n * decodedChannels, Self.sampleBound, d.baseAddress!)
        }
        if resampler == nil {
          // Equal rates: map straight to the output channels.
          ChannelMapper.map(
            UnsafeBufferPointer(d), inputChannels: decodedChannels, frames: n, into: o,
            outputChannels: outChannels)
          forward(UnsafeBufferPointer(rebasing: o[..<(n * outChannels)]), into: &sink)
        } else {
          // Resample as few channels as the output allows: downmix before, upmix after.
          var input = UnsafeBufferPointer(rebasing: d[..<(n * decodedChannels)])
          if channels != decodedChannels {
            ChannelMapper.map(
              input, inputChannels: decodedChannels, frames: n, into: m, outputChannels: channels)
            input = UnsafeBufferPointer(rebasing: m[..<(n * channels)])
          }
          let (consumed, produced) = resampler!.process(input, into: resamplerRoom(o))
          assert(consumed == n, "the scratch holds maxOutputFrames(block), so all input fits")
          emit(o, frames: produced, into: &sink)
        }
        start += n
      }
    }
    (decoded, mapped, resampled) = scratch
    framesIn += total
    runFrames += total
  }

  /// Flushes the resampler's tail after the last buffer, so that the output holds
  /// `round(framesIn × outputRate / inputRate)` frames in all (for one input rate), then readies
  /// the chain for a new stream at the same rate.
  public mutating func flush<Sink: FrameSink>(into sink: inout Sink) {
    flush(into: &sink, ringingOut: false)
  }

  /// Flushes as ``flush(into:)`` does; with `ringingOut`, also the outputs past the end that the
  /// last input still reaches (the old run's half of a seamless switch).
  mutating func flush<Sink: FrameSink>(into sink: inout Sink, ringingOut: Bool) {
    guard resampler != nil else { return }
    overlapRemaining = 0
    ringOutTime = nil
    var scratch = takeScratch()
    _withBuffers(&scratch) { _, _, o in
      while true {
        let n = resampler!.flush(into: resamplerRoom(o))
        if n == 0 { break }
        emit(o, frames: n, into: &sink)
      }
      if ringingOut {
        ringOutTime = resampler!.outputTimePastEnd
        sink.noteSeam()
      }
      while ringingOut, let n = resampler!.ringOut(into: resamplerRoom(o)), n > 0 {
        emit(o, frames: n, into: &sink)
        overlapRemaining += n
      }
    }
    (decoded, mapped, resampled) = scratch
    resampler!.reset()
    leadingToDrop = resampler!.latency - resampler!.skipLatency()
    runFrames = 0
  }

  /// Whether a switch to input `rate` goes on without a seam: the chain is seamless, the
  /// current resampler has taken input and can ring out, and `rate` is resampled too. Then the
  /// old run's outputs ring out past its end and the new run starts early enough to be summed
  /// onto them: a tone across the switch keeps its level, with no fade.
  func switchesSeamlessly<Sink: FrameSink>(to rate: Int, sink: Sink) -> Bool {
    seamless && sink.canAddToNewest && runFrames > 0 && resampler?.overlapsRuns == true
      && resamples(rate)
  }

  /// The part of the output scratch the resampler may fill: what still fits once upmixed.
  func resamplerRoom(_ o: UnsafeMutableBufferPointer<Float>) -> UnsafeMutableBufferPointer<Float> {
    UnsafeMutableBufferPointer(rebasing: o[..<(o.count / outputChannels * resampleChannels)])
  }

  /// Upmixes `frames` resampled frames in place when the resampler runs on fewer channels than
  /// the output, then forwards them.
  mutating func emit<Sink: FrameSink>(
    _ o: UnsafeMutableBufferPointer<Float>, frames: Int, into sink: inout Sink
  ) {
    if resampleChannels < outputChannels {
      ChannelMapper.duplicateInPlace(o, frames: frames)
    }
    forward(UnsafeBufferPointer(rebasing: o[..<(frames * outputChannels)]), into: &sink)
  }

  /// Moves the scratch buffers (decoded, mapped, resampled) out of `self` without copying, so
  /// a closure over them may mutate `self`; they are put back after.
  mutating func takeScratch() -> ([Float], [Float], [Float]) {
    defer { (decoded, mapped, resampled) = ([], [], []) }
    return (decoded, mapped, resampled)
  }

  /// Drops the leading delay frames, passes the rest to the sink.
  mutating func forward<Sink: FrameSink>(
    _ frames: UnsafeBufferPointer<Float>, into sink: inout Sink
  ) {
    var frames = frames
    if leadingToDrop > 0 {
      let drop = min(leadingToDrop, frames.count / outputChannels)
      leadingToDrop -= drop
      frames = UnsafeBufferPointer(rebasing: frames[(drop * outputChannels)...])
    }
    if overlapRemaining > 0 {
      // The new run's first frames go onto the old run's last ones.
      let m = min(overlapRemaining, frames.count / outputChannels)
      sink.add(
        UnsafeBufferPointer(rebasing: frames[..<(m * outputChannels)]),
        endingFramesBeforeEnd: overlapRemaining - m)
      overlapRemaining -= m
      frames = UnsafeBufferPointer(rebasing: frames[(m * outputChannels)...])
    }
    framesOut += frames.count / outputChannels
    if !frames.isEmpty { sink.append(frames) }
  }

  /// Sets up for a new input format; the one place that may allocate.
  mutating func reconfigure<Sink: FrameSink>(_ new: PCMFormat, into sink: inout Sink) {
    let wanted = min(new.channelCount, 2, outputChannels)
    let rateChanged = format?.sampleRate != new.sampleRate
    // A stereo resampler stays stereo when the input turns mono (the mono input is duplicated
    // before it): averaging its two histories would put a seam in the stream.
    let channels = rateChanged ? wanted : max(wanted, resampleChannels)
    if !rateChanged && channels != resampleChannels, resampler != nil {
      // Same rate, new channel count: carry the history over when the backend can, so the
      // stream goes on without a seam; otherwise end the old stream and start afresh.
      if let remapped = resampler!.remappingChannels(to: channels) {
        resampler = remapped
        resampleChannels = channels
      } else {
        flush(into: &sink)
        resampler = factory(new.sampleRate, outputRate, channels)
        _ = resampler!.adjustRatio(by: ratioAdjustment)
        leadingToDrop = resampler!.latency - resampler!.skipLatency()
        resampleChannels = channels
      }
    }
    if rateChanged {
      let overlap = switchesSeamlessly(to: new.sampleRate, sink: sink)
      let oldSpan = resampler?.filterSpan
      flush(into: &sink, ringingOut: overlap)
      stow()
      resampler = nil
      leadingToDrop = 0
      resampleChannels = channels
      if resamples(new.sampleRate) {
        var r =
          takePrepared(new.sampleRate, channels) ?? factory(new.sampleRate, outputRate, channels)
        _ = r.adjustRatio(by: ratioAdjustment)
        if overlap, let offset = ringOutTime,
          let early = r.resetToOverlap(firstOutputAt: offset)
        {
          seamSpan = max(oldSpan ?? 0, r.filterSpan ?? 0)
          // Its outputs before time 0, and those over the old run's ring-out, are summed.
          overlapRemaining += early
        } else {
          overlapRemaining = 0
          leadingToDrop = r.latency - r.skipLatency()
        }
        resampler = r
      }
      let block = Self.blockFrames(new.sampleRate)
      blockFrames = block
      let out = resampler?.maxOutputFrames(forInputFrames: block) ?? block
      if preparedChannels > 0 {
        // Prepared: keep the scratch (sized for every prepared rate) unless this one needs more.
        reserve(block: block, output: out)
      } else {
        resampled = [Float](repeating: 0, count: out * 2)
        mapped = [Float](repeating: 0, count: block * 2)
        decoded = [Float](repeating: 0, count: block * 2)
      }
    }
    format = new
  }

  /// The prepared resampler for `rate`, moved out of its slot (so that using it copies nothing),
  /// reset; `nil` when none was prepared for this rate and channel count.
  mutating func takePrepared(_ rate: Int, _ channels: Int) -> (any Resampler)? {
    guard channels == preparedChannels,
      let i = prepared.firstIndex(where: { $0.rate == rate && $0.resampler != nil })
    else { return nil }
    var r: (any Resampler)? = nil
    swap(&r, &prepared[i].resampler)
    r!.reset()
    return r
  }

  /// Puts the current resampler back in its prepared slot, if it came from one.
  mutating func stow() {
    guard let rate = format?.sampleRate, resampleChannels == preparedChannels,
      let i = prepared.firstIndex(where: { $0.rate == rate && $0.resampler == nil })
    else { return }
    swap(&resampler, &prepared[i].resampler)
  }
}

/// Runs `body` over three arrays' storage at once.
func _withBuffers(
  _ arrays: inout ([Float], [Float], [Float]),
  _ body: (
    UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>,
    UnsafeMutableBufferPointer<Float>
  ) -> Void
) {
  arrays.0.withUnsafeMutableBufferPointer { a in
    arrays.1.withUnsafeMutableBufferPointer { b in
      arrays.2.withUnsafeMutableBufferPointer { c in body(a, b, c) }
    }
  }
}
