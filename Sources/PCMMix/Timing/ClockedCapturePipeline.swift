#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// App and mic capture in, one steady stream out: each source's audio is placed on one host
/// timeline by its timestamps (or by arrival when it has none), its clock drift is corrected by
/// steering its resampler, and the output is pulled in fixed intervals of that timeline, a
/// latency behind the newest audio.
///
/// ```
/// host time ─────────────────────────────────────────────────────────────────────▶
/// app     ▕██████████████████████▏                ▕████████████████  (paused 5 s, back)
/// mic                 ▕███████████████████████████████████████████  (started late)
/// output  ▕▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▏◀─ latency ─▶│ newest audio
///          each pull takes the next interval; a source with nothing there is silence
/// ```
/// A buffer stamped `t` lands at `t`: a mic that starts 3 s late lands at 3 s, an app that
/// pauses and resumes lands at its resume time, never shifted against the other. Unstamped
/// buffers go on after their predecessor; an unstamped source that ran dry starts again at its
/// arrival. The pipeline is single-threaded (a value type); ``RealtimeCapturePipeline`` puts it
/// behind lock-free hand-offs for capture callbacks on their own threads.
///
/// ```swift
/// var pipeline = try ClockedCapturePipeline(app: appFormat, mic: micFormat)
/// try pipeline.append(.app, appBytes, description: appFormat, time: appTime)
/// try pipeline.append(.mic, micBytes, description: micFormat, time: micTime)
/// let status = pipeline.pull(into: tenMilliseconds)  // always fills the whole buffer
/// ```
/// Storage is allocated at creation (the resamplers for ``Configuration/preparedRates``, the
/// timelines, the scratch); appending and pulling allocate nothing after that, unless a source
/// switches to a rate that was not prepared.
public struct ClockedCapturePipeline {
  /// The sources.
  public typealias Side = DualBufferMixer.Side

  /// What one pull gave.
  public typealias PullStatus = PCMMix.PullStatus

  /// What the pipeline was made with.
  public let configuration: Configuration
  var app: TimedSource
  var mic: TimedSource
  var clock: OutputClock
  /// Seconds of the origin, once known.
  var originSeconds: Double?
  var scratchA: [Float]
  var scratchB: [Float]
  var scratchC: [Float]
  /// The mix's scale: ½ for two sources under `average`, 1 otherwise, ramped when it changes.
  var mixScale = Ramp(1)
  /// Clamping or limiting, and the meters.
  var output: MixOutput

  /// Creates a pipeline and prepares it for the formats the capture will deliver (either may be
  /// `nil`): every prepared rate's resampler is made now, so no callback builds a filter.
  ///
  /// - Throws: ``ProbeError`` for a description that is not readable PCM or declares a rate
  ///   outside ``Configuration/inputRates``.
  public init(
    _ configuration: Configuration = Configuration(), app appFormat: StreamDescription? = nil,
    mic micFormat: StreamDescription? = nil
  ) throws(ProbeError) {
    var c = configuration
    c.resampler = configuration.resolvedResampler
    self.configuration = c
    let maxLatency: Double
    switch c.latency {
    case .fixed(let s): maxLatency = s
    case .adaptive(_, let most): maxLatency = most
    }
    // The timeline holds the latency and one more burst-sized delivery on top.
    let capacity = Int((maxLatency + 0.6) * Double(c.outputRate))
    app = try TimedSource(c, format: appFormat, capacity: capacity, gainDB: c.appGainDB)
    mic = try TimedSource(c, format: micFormat, capacity: capacity, gainDB: c.micGainDB)
    clock = OutputClock(c)
    originSeconds = c.origin?.seconds
    scratchA = [Float](repeating: 0, count: c.pullBlockFrames * 2)
    scratchB = [Float](repeating: 0, count: c.pullBlockFrames * 2)
    scratchC = [Float](repeating: 0, count: c.pullBlockFrames * 2)
    mixScale = Ramp(c.policy == .average ? 0.5 : 1)
    output = MixOutput(
      policy: c.policy, ceilingDB: c.ceilingDB,
      lookaheadFrames: c.policy == .limit ? c.outputRate / 1000 : 0, sampleRate: c.outputRate)
  }

  /// Takes one buffer of `side`'s audio, stamped with the host time of its first frame (or
  /// `nil`: placed after the previous buffer, or at its arrival).
  ///
  /// - Throws: ``ProbeError`` when the description is not readable PCM, declares a rate outside
  ///   ``Configuration/inputRates``, or the bytes are not a whole number of frames; the buffer
  ///   is then not used and the stream continues.
  /// - Complexity: O(frames in the buffer).
  public mutating func append(
    _ side: Side, _ bytes: UnsafeRawBufferPointer, description: StreamDescription,
    time: MediaTime? = nil
  ) throws(ProbeError) {
    try append(side, .bytes(bytes), description: description, time: time)
  }

  /// Takes one buffer of `side`'s audio given as planes: one raw buffer per channel for a
  /// non-interleaved description (as an `AudioBufferList` holds them, each anywhere in memory,
  /// all the same size), exactly one for an interleaved description or mono. The planes are read
  /// where they lie: nothing is gathered, copied or allocated. Otherwise as
  /// ``append(_:_:description:time:)``.
  ///
  /// - Throws: ``ProbeError`` as ``append(_:_:description:time:)`` does, and
  ///   ``ProbeError/planeCountMismatch(_:expected:)``,
  ///   ``ProbeError/unequalPlanes(index:byteCount:expected:)`` or
  ///   ``ProbeError/partialPlane(byteCount:bytesPerSample:)`` when the planes are not one per
  ///   channel, not the same size, or not whole samples; the buffer is then not used and the
  ///   stream continues.
  /// - Complexity: O(frames in the buffer).
  public mutating func append(
    _ side: Side, planes: UnsafeBufferPointer<UnsafeRawBufferPointer>,
    description: StreamDescription, time: MediaTime? = nil
  ) throws(ProbeError) {
    try append(side, .planes(planes), description: description, time: time)
  }

  /// Takes one buffer of either shape.
  mutating func append(
    _ side: Side, _ input: PCMInput, description: StreamDescription, time: MediaTime?
  ) throws(ProbeError) {
    let rate = description.sampleRate
    let rates = configuration.inputRates
    guard rate >= Double(rates.lowerBound), rate <= Double(rates.upperBound) else {
      throw .invalidSampleRate(rate)
    }
    if let time, time.isValid, originSeconds == nil { originSeconds = time.seconds }
    let stamp = time.flatMap { t in t.isValid ? t : nil }
    let position = stamp.map { ($0.seconds - originSeconds!) * Double(configuration.outputRate) }
    let arrival = arrivalPosition(for: side)
    let runDry = clock.isRunning ? state(side).nextPosition <= clock.position : false
    try withSource(side) { (s) throws(ProbeError) in
      try s.take(
        input, description: description, stamp: stamp, position: position, arrival: arrival,
        runDry: runDry)
    }
  }

  /// Ends `side`'s stream: the resampler's tail (its last ~1 ms) is placed after the last
  /// buffer. A later buffer starts the source again.
  public mutating func finish(_ side: Side) {
    withSource(side) { $0.finish() }
  }

  /// Sets a source's gain in dB, from the next pull on (ramped over the fade time).
  public mutating func setGain(_ side: Side, dB: Double) {
    withSource(side) { $0.gain.set(dB == 0 ? 1 : Float(pow(10, dB / 20)), $0.fade) }
  }

  /// Enables or disables a source from the next pull on (fading it in or out); a disabled
  /// source's audio is dropped (counted) and the other plays alone at its own gain.
  public mutating func setEnabled(_ side: Side, _ enabled: Bool) {
    let k = clock.position + output.latencyFrames
    withSource(side) { $0.setEnabled(enabled, at: k) }
  }

  /// Fills all of `output` (interleaved stereo int16) with the next interval of the timeline.
  ///
  /// - Complexity: O(frames); no allocation.
  public mutating func pull(into output: UnsafeMutableBufferPointer<Int16>) -> PullStatus {
    pull(frames: output.count / 2) { offset, block, n in
      PCMEncoder.int16(block, count: n * 2, into: output.baseAddress! + offset * 2)
    }
  }

  /// Fills all of `output` (interleaved stereo Float32) with the next interval of the timeline.
  ///
  /// - Complexity: O(frames); no allocation.
  public mutating func pull(into output: UnsafeMutableBufferPointer<Float>) -> PullStatus {
    pull(frames: output.count / 2) { offset, block, n in
      (output.baseAddress! + offset * 2).update(from: block, count: n * 2)
    }
  }

  /// Counters of a source.
  public func statistics(_ side: Side) -> CaptureSourceStatistics {
    side == .app ? app.statistics : mic.statistics
  }

  /// Counters of the output clock.
  public var clockStatistics: CaptureClockStatistics { clock.statistics }

  /// Levels of each source and of the output over the last pull, with a decaying peak hold,
  /// and what the limiter or the clamp did (see ``MixMeters``).
  public var meters: MixMeters { output.meters }

  /// Bytes of storage held: the timelines, the resamplers' history, scratch.
  public var retainedBytes: Int {
    app.retainedBytes + mic.retainedBytes
      + (scratchA.capacity + scratchB.capacity + scratchC.capacity) * 4
  }

  // MARK: - Internals

  /// What the clock reads of a source (read in place: a copy of the source would share its
  /// storage, and its next change would copy that).
  func state(_ side: Side) -> SourceState { side == .app ? app.state : mic.state }

  mutating func withSource<R, E: Error>(_ side: Side, _ body: (inout TimedSource) throws(E) -> R)
    throws(E) -> R
  {
    side == .app ? try body(&app) : try body(&mic)
  }

  /// Where an unstamped buffer arriving now would begin, before its length is known: the newest
  /// moment the pipeline knows of (a latency ahead of the output, or the other source's newest
  /// audio before the clock runs).
  func arrivalPosition(for side: Side) -> Double {
    if clock.isRunning { return Double(clock.position + clock.latency) }
    let other = state(side == .app ? .mic : .app)
    return other.hasStarted ? Double(other.nextPosition) : 0
  }
}
