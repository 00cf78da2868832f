import CPCMMixAtomics

/// The capture pipeline for three threads: the app's capture callback, the mic's capture
/// callback, and the consumer that pulls 10 ms at a time (an RTC SDK's audio thread, an encoder).
///
/// ```swift
/// let pipeline = try RealtimeCapturePipeline(app: appFormat, mic: micFormat)
///
/// // ReplayKit's callback (any thread; one thread per source at a time):
/// try pipeline.append(.app, bytes, description: format, time: time)
///
/// // The consumer's 10 ms tick:
/// let status = pipeline.pull(into: buffer)   // always fills it; status says what was silence
/// ```
///
/// A capture callback only checks the buffer's description and copies its bytes into a bounded
/// lock-free ring (the hand-off ring); the pull drains both rings into a
/// ``ClockedCapturePipeline`` (placement on the timeline, decoding, resampling with drift
/// correction, mixing) that only the pulling thread touches. So no thread ever waits for
/// another: a callback costs a copy of its buffer, whatever the pull is doing, and the pull
/// never waits behind a callback's decoding or a filter design. The callbacks never
/// allocate (the rings are sized at creation); the pull allocates only to set up a format it
/// was not prepared for (a rate not in the configuration's `preparedRates`, or a source whose
/// format was not given at creation, on its first buffer), never in steady state.
///
/// Works from iOS 15 / macOS 12: the hand-off uses plain atomic loads and stores (a header of
/// compiler builtins), not `Synchronization`. ``statistics`` may be read from any thread.
///
/// A capture with one source only (no mic) should disable the other side
/// (`setEnabled(.mic, false)`): a side that is enabled but never delivers makes the output wait
/// ``ClockedCapturePipeline/Configuration/startupWait`` for it at the start, and with the
/// `average` policy the lone source plays at half level, as next to a silent one.
///
/// - Note: Each source's `append` must come from one thread at a time (as each capture callback
///   does), and `pull` from one thread at a time; a second thread that calls in while another is
///   inside gets ``CaptureError/concurrentCall`` (append) or silence with phase
///   ``PullStatus/Phase/busy`` (pull) instead of a data race.
public final class RealtimeCapturePipeline: @unchecked Sendable {
  /// The same configuration as ``ClockedCapturePipeline``'s.
  public typealias Configuration = ClockedCapturePipeline.Configuration
  /// The app or the mic source.
  public typealias Side = ClockedCapturePipeline.Side

  /// Counters of the whole pipeline, as of the last pull.
  public struct Statistics: Equatable, Sendable {
    /// The app source's counters (see ``CaptureSideStatistics``).
    public var app = CaptureSideStatistics()
    /// The mic source's counters.
    public var mic = CaptureSideStatistics()
    /// The output clock's counters.
    public var clock = CaptureClockStatistics()
    /// Buffers the app's callback could not hand over (the ring was full: no pull for a while).
    public var appHandoffDrops = 0
    /// Buffers the mic's callback could not hand over.
    public var micHandoffDrops = 0
    /// Calls refused because another thread was inside the same call.
    public var concurrentCalls = 0
    /// Buffers a callback handed over that the pull could not place (a stamp within reach of
    /// the callbacks' first stamp but not of the pipeline's origin).
    public var refusedAtPull = 0
    /// Bytes of storage held: both hand-off rings and the pipeline.
    public var retainedBytes = 0
    /// Levels of each source and the output over the last pull, for a level meter.
    public var meters: MixMeters?
    /// Host time of timeline frame 0 (``ClockedCapturePipeline/origin``), once known.
    public var origin: MediaTime?
    /// The echo canceller's state, when it is configured.
    public var echo: EchoStatistics?
    /// The output's loudness, when metered (``ClockedCapturePipeline/Configuration/meterLoudness``).
    public var loudness: LoudnessReading?
  }

  private let rings: (app: HandoffRing, mic: HandoffRing)
  /// Atomic words: see `Word`.
  private let words: UnsafeMutablePointer<Int>
  /// The pipeline, touched only by the pulling thread (under the `pulling` word).
  private var pipeline: ClockedCapturePipeline
  /// Where the pull copies each record's bytes.
  private let payload: UnsafeMutableRawPointer
  /// Each source's last checked description, touched only by that source's callback.
  private var appCheck = DescriptionCheck()
  private var micCheck = DescriptionCheck()
  /// The gains and switches last applied, touched only by the pulling thread.
  private var applied = 0
  /// Buffers the pull could not place, touched only by the pulling thread.
  private var refusedAtPull = 0
  private let published: Locked<Statistics>
  private let inputRates: ClosedRange<Int>

  /// Indices into `words`, each on its own cache line.
  private enum Word: Int {
    case appBusy = 0
    case micBusy = 8
    case pulling = 16
    case appDrops = 24
    case micDrops = 32
    case concurrent = 40
    /// Bumped on every setting change; the pull applies settings when it moved.
    case settings = 48
    case appGain = 56
    case micGain = 64
    case appEnabled = 72
    case micEnabled = 80
    /// The stamps' reference in seconds, as Double bits (see `init`).
    case reference = 88

    /// Words allocated.
    static let count = 96
  }

  /// Creates the pipeline, prepared for the formats the capture will deliver (see
  /// ``ClockedCapturePipeline/init(_:app:mic:)``), with a hand-off ring per source of
  /// `handoffBytes` (default: enough for a second of the prepared format and at least 512 KiB,
  /// room for a 512 ms burst while the consumer is stalled; at least 4 KiB and at most 64 MiB).
  ///
  /// - Throws: ``CaptureError/configuration(_:)`` for a configuration value it cannot work
  ///   with, or a `handoffBytes` above 64 MiB; ``CaptureError/format(_:)`` for a description
  ///   that is not readable PCM.
  public init(
    _ configuration: Configuration = Configuration(), app appFormat: StreamDescription? = nil,
    mic micFormat: StreamDescription? = nil, handoffBytes: Int? = nil
  ) throws(CaptureError) {
    if let handoffBytes, handoffBytes > Self.mostHandoffBytes {
      throw .configuration(
        ConfigurationError("handoffBytes", "\(handoffBytes) is above \(Self.mostHandoffBytes)"))
    }
    pipeline = try ClockedCapturePipeline(configuration, app: appFormat, mic: micFormat)
    func ringBytes(_ format: StreamDescription?) -> Int {
      if let handoffBytes { return max(handoffBytes, 4096) }
      let perSecond = format.map { Int($0.sampleRate) * Int($0.bytesPerFrame) } ?? 0
      return min(max(perSecond, 512 * 1024), Self.mostHandoffBytes)
    }
    rings = (
      HandoffRing(capacity: ringBytes(appFormat)), HandoffRing(capacity: ringBytes(micFormat))
    )
    payload = .allocate(
      byteCount: max(rings.app.largestPayload, rings.mic.largestPayload), alignment: 16)
    words = .allocate(capacity: Word.count)
    words.initialize(repeating: 0, count: Word.count)
    words[Word.appGain.rawValue] = Int(bitPattern: UInt(configuration.appGainDB.bitPattern))
    words[Word.micGain.rawValue] = Int(bitPattern: UInt(configuration.micGainDB.bitPattern))
    words[Word.appEnabled.rawValue] = 1
    words[Word.micEnabled.rawValue] = 1
    // The reference the callbacks check stamps against: the origin, or (NaN until then) the
    // first valid stamp either callback sees.
    let reference = configuration.origin?.seconds ?? .nan
    words[Word.reference.rawValue] = Int(bitPattern: UInt(reference.bitPattern))
    published = Locked(Statistics())
    inputRates = configuration.inputRates
  }

  /// The largest hand-off ring (64 MiB).
  public static let mostHandoffBytes = 64 << 20

  deinit {
    payload.deallocate()
    words.deallocate()
  }

  private func word(_ w: Word) -> UnsafeMutablePointer<Int> { words + w.rawValue }

  /// Takes one buffer of `side`'s audio (from that source's capture thread): checks its
  /// description and copies its bytes for the next pull. `time` is the host time of its first
  /// frame (`nil`: placed by arrival).
  ///
  /// A buffer longer than the hand-off ring keeps its newest part; a buffer that finds the ring
  /// full (no pull for a second or more: the ring holds the larger of a second of the format
  /// and 512 KiB, or `handoffBytes`) is dropped and counted (``Statistics/appHandoffDrops``).
  /// - Throws: ``CaptureError/format(_:)`` for a description that is not readable PCM, a rate
  ///   outside ``ClockedCapturePipeline/Configuration/inputRates``, or bytes that are not whole frames;
  ///   ``CaptureError/concurrentCall`` when another thread is appending to the same source.
  /// - Complexity: O(bytes): one copy.
  public func append(
    _ side: Side, _ bytes: UnsafeRawBufferPointer, description: StreamDescription,
    time: MediaTime? = nil
  ) throws(CaptureError) {
    try handOver(.bytes(bytes), of: side, description, time)
  }

  /// Takes one buffer of `side`'s audio given as planes (from that source's capture thread): one
  /// raw buffer per channel for a non-interleaved description (as an `AudioBufferList` holds
  /// them, each anywhere in memory, all the same size), exactly one for an interleaved
  /// description or mono. The planes are copied into the hand-off ring one after another, as one
  /// buffer; nothing is allocated. Otherwise as ``append(_:_:description:time:)`` (a buffer
  /// longer than the ring keeps the newest frames of every plane).
  ///
  /// - Throws: ``CaptureError/format(_:)`` as ``append(_:_:description:time:)`` does, and with
  ///   ``ProbeError/planeCountMismatch(_:expected:)``,
  ///   ``ProbeError/unequalPlanes(index:byteCount:expected:)`` or
  ///   ``ProbeError/partialPlane(byteCount:bytesPerSample:)`` when the planes are not one per
  ///   channel, not the same size, or not whole samples; ``CaptureError/concurrentCall`` when
  ///   another thread is appending to the same source.
  /// - Complexity: O(bytes): one copy.
  public func append(
    _ side: Side, planes: UnsafeBufferPointer<UnsafeRawBufferPointer>,
    description: StreamDescription, time: MediaTime? = nil
  ) throws(CaptureError) {
    try handOver(.planes(planes), of: side, description, time)
  }

  /// Checks a buffer of either shape and hands it over.
  private func handOver(
    _ input: PCMInput, of side: Side, _ description: StreamDescription, _ time: MediaTime?
  ) throws(CaptureError) {
    let busy = word(side == .app ? .appBusy : .micBusy)
    guard pcmmix_exchange(busy, 1) == 0 else {
      _ = pcmmix_fetch_add_relaxed(word(.concurrent), 1)
      throw .concurrentCall
    }
    defer { pcmmix_store_release(busy, 0) }
    let format: PCMFormat
    let planes: PCMPlanes
    do {
      format =
        side == .app
        ? try appCheck.check(description, rates: inputRates)
        : try micCheck.check(description, rates: inputRates)
      planes = try PCMPlanes(input, format: format)
    } catch {
      throw .format(error)
    }
    let ring = side == .app ? rings.app : rings.mic
    // Longer than the ring: the newest frames that fit, their stamp moved on to match.
    let skipped = max(0, planes.frames - ring.largestPayload / format.bytesPerFrame)
    let kept = planes.droppingFrames(skipped)
    // An invalid stamp goes through as it is (the pull counts it and places the buffer by
    // arrival); a valid one must lie within reach of the others.
    var stamp = time
    if let t = time, t.isValid {
      try checkRange(t)
      if skipped > 0 {
        let ticks = Double(skipped) * Double(t.timescale) / Double(format.sampleRate)
        stamp = MediaTime(value: t.value &+ Int64(ticks.rounded()), timescale: t.timescale)
      }
    }
    let header = HandoffRing.Header(
      description: description, timeValue: stamp?.value ?? 0, timescale: stamp?.timescale ?? 0,
      kind: (stamp == nil ? HandoffRing.Kind.buffer : .stampedBuffer).rawValue,
      byteCount: kept.byteCount)
    if !ring.push(header, kept) {
      _ = pcmmix_fetch_add_relaxed(word(side == .app ? .appDrops : .micDrops), 1)
    }
  }

  /// Refuses a stamp further than ``ClockedCapturePipeline/Configuration/maximumTimeFromOrigin``
  /// from the origin, or from the first valid stamp either callback saw when there is none.
  private func checkRange(_ t: MediaTime) throws(CaptureError) {
    let seconds = t.seconds
    let word = word(.reference)
    var reference = Double(bitPattern: UInt64(UInt(bitPattern: pcmmix_load_acquire(word))))
    if reference.isNaN {
      // The first: it becomes the reference, unless the other callback set one meanwhile.
      let bits = Int(bitPattern: UInt(seconds.bitPattern))
      let nan = Int(bitPattern: UInt(Double.nan.bitPattern))
      let before = pcmmix_compare_exchange(word, nan, bits)
      reference = before == nan ? seconds : Double(bitPattern: UInt64(UInt(bitPattern: before)))
    }
    let most = ClockedCapturePipeline.Configuration.maximumTimeFromOrigin
    guard abs(seconds - reference) <= most,
      abs(seconds) <= ClockedCapturePipeline.Configuration.mostHostSeconds
    else {
      throw .timeOutOfRange(t)
    }
  }

  /// Ends `side`'s stream (from its capture thread): its last audio is placed at the next pull.
  public func finish(_ side: Side) {
    let busy = word(side == .app ? .appBusy : .micBusy)
    guard pcmmix_exchange(busy, 1) == 0 else {
      _ = pcmmix_fetch_add_relaxed(word(.concurrent), 1)
      return
    }
    defer { pcmmix_store_release(busy, 0) }
    let header = HandoffRing.Header(
      description: StreamDescription(
        sampleRate: 0, formatID: 0, formatFlags: 0, bytesPerPacket: 0, framesPerPacket: 0,
        bytesPerFrame: 0, channelsPerFrame: 0, bitsPerChannel: 0),
      timeValue: 0, timescale: 0, kind: HandoffRing.Kind.finish.rawValue, byteCount: 0)
    if !(side == .app ? rings.app : rings.mic).push(header, .empty) {
      _ = pcmmix_fetch_add_relaxed(word(side == .app ? .appDrops : .micDrops), 1)
    }
  }

  /// Sets a source's gain in dB (any thread), from the next pull on.
  public func setGain(_ side: Side, dB: Double) {
    pcmmix_store_relaxed(
      word(side == .app ? .appGain : .micGain), Int(bitPattern: UInt(dB.bitPattern)))
    _ = pcmmix_fetch_add_relaxed(word(.settings), 1)
  }

  /// Enables or disables a source (any thread), from the next pull on.
  public func setEnabled(_ side: Side, _ enabled: Bool) {
    pcmmix_store_relaxed(word(side == .app ? .appEnabled : .micEnabled), enabled ? 1 : 0)
    _ = pcmmix_fetch_add_relaxed(word(.settings), 1)
  }

  /// Fills all of `output` (interleaved stereo int16) with the next interval of the timeline
  /// (from the consumer's thread).
  ///
  /// - Complexity: O(frames pulled + bytes handed over since the last pull); no allocation.
  public func pull(into output: UnsafeMutableBufferPointer<Int16>) -> PullStatus {
    pulling(output) { $0.pull(into: output) }
  }

  /// Fills all of `output` (interleaved stereo Float32) with the next interval of the timeline.
  public func pull(into output: UnsafeMutableBufferPointer<Float>) -> PullStatus {
    pulling(output) { $0.pull(into: output) }
  }

  /// Counters as of the last pull (any thread).
  public var statistics: Statistics {
    var s = published.withLock { $0 }
    s.appHandoffDrops = pcmmix_load_relaxed(word(.appDrops))
    s.micHandoffDrops = pcmmix_load_relaxed(word(.micDrops))
    s.concurrentCalls = pcmmix_load_relaxed(word(.concurrent))
    return s
  }

  /// Runs a pull on the pipeline: takes the pulling word (or gives silence when another thread
  /// holds it), applies new settings, drains both rings into the pipeline, pulls, publishes.
  private func pulling<T>(
    _ output: UnsafeMutableBufferPointer<T>,
    _ body: (inout ClockedCapturePipeline) -> PullStatus
  ) -> PullStatus {
    let flag = word(.pulling)
    guard pcmmix_exchange(flag, 1) == 0 else {
      _ = pcmmix_fetch_add_relaxed(word(.concurrent), 1)
      UnsafeMutableRawBufferPointer(output).initializeMemory(as: UInt8.self, repeating: 0)
      let frames = output.count / 2
      return PullStatus(
        phase: .busy, position: nil, appSilentFrames: frames, micSilentFrames: frames)
    }
    defer { pcmmix_store_release(flag, 0) }
    applySettings()
    drain(.app)
    drain(.mic)
    let status = body(&pipeline)
    // Published without waiting: a reader holding the lock only delays this until next time.
    let (app, mic, clock) = (
      pipeline.statistics(.app), pipeline.statistics(.mic), pipeline.clockStatistics
    )
    let retained = pipeline.retainedBytes + rings.app.capacity + rings.mic.capacity
    let meters = pipeline.meters
    let (refused, origin, echo) = (refusedAtPull, pipeline.origin, pipeline.echoStatistics)
    let loudness = pipeline.loudness
    _ = published.withLockIfAvailable { s in
      (s.app, s.mic, s.clock, s.retainedBytes, s.meters) = (app, mic, clock, retained, meters)
      (s.refusedAtPull, s.origin, s.echo, s.loudness) = (refused, origin, echo, loudness)
    }
    return status
  }

  private func applySettings() {
    let generation = pcmmix_load_acquire(word(.settings))
    guard generation != applied else { return }
    applied = generation
    for (side, gain, enabled) in [
      (Side.app, Word.appGain, Word.appEnabled), (Side.mic, Word.micGain, Word.micEnabled),
    ] {
      let dB = Double(bitPattern: UInt64(UInt(bitPattern: pcmmix_load_relaxed(word(gain)))))
      pipeline.setGain(side, dB: dB)
      pipeline.setEnabled(side, pcmmix_load_relaxed(word(enabled)) != 0)
    }
  }

  /// Moves every buffer `side`'s callback handed over into the pipeline.
  private func drain(_ side: Side) {
    let ring = side == .app ? rings.app : rings.mic
    while let h = ring.pop(into: payload) {
      switch HandoffRing.Kind(rawValue: h.kind) {
      case .finish:
        pipeline.finish(side)
      case .stampedBuffer, .buffer:
        let time =
          h.kind == HandoffRing.Kind.stampedBuffer.rawValue
          ? MediaTime(value: h.timeValue, timescale: h.timescale) : nil
        // Checked by the callback already; only a stamp within reach of the callbacks'
        // reference but not of the pipeline's origin can fail here: counted, not fatal.
        do {
          try pipeline.append(
            side, UnsafeRawBufferPointer(start: payload, count: h.byteCount),
            description: h.description, time: time)
        } catch {
          refusedAtPull += 1
        }
      case nil:
        break
      }
    }
  }
}

/// A capture callback's check of its buffers' descriptions, probing only when one changes.
struct DescriptionCheck {
  var last: StreamDescription?
  var format: PCMFormat?

  mutating func check(_ d: StreamDescription, rates: ClosedRange<Int>) throws(ProbeError)
    -> PCMFormat
  {
    if let format, d == last { return format }
    guard d.sampleRate >= Double(rates.lowerBound), d.sampleRate <= Double(rates.upperBound) else {
      throw .invalidSampleRate(d.sampleRate)
    }
    let f = try FormatProbe.probe(d)
    (last, format) = (d, f)
    return f
  }
}
