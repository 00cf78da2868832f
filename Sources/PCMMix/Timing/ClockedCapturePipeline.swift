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
  /// Host time of timeline frame 0, once known (``Configuration/origin``, or the first stamp).
  var originTime: MediaTime?
  var scratchA: [Float]
  var scratchB: [Float]
  var scratchC: [Float]
  /// The mix's scale: ½ for two sources under `average`, 1 otherwise, ramped when it changes.
  var mixScale = Ramp(1)
  /// Clamping or limiting, and the meters.
  var output: MixOutput
  /// The echo canceller, when configured.
  var echo: EchoStage?
  /// Each source as it enters the mix, when kept (see ``keepStems()``).
  var stems: Stems?
  /// The output's loudness, when metered.
  var loudnessMeter: LoudnessMeter?

  /// Creates a pipeline and prepares it for the formats the capture will deliver (either may be
  /// `nil`): every prepared rate's resampler is made now, so no callback builds a filter.
  ///
  /// - Throws: ``CaptureError/configuration(_:)`` for a configuration value it cannot work
  ///   with (see ``Configuration/validate()``); ``CaptureError/format(_:)`` for a description
  ///   that is not readable PCM or declares a rate outside ``Configuration/inputRates``.
  public init(
    _ configuration: Configuration = Configuration(), app appFormat: StreamDescription? = nil,
    mic micFormat: StreamDescription? = nil
  ) throws(CaptureError) {
    do {
      try configuration.validate()
    } catch {
      throw .configuration(error)
    }
    var c = configuration
    c.resampler = configuration.resolvedResampler
    self.configuration = c
    // Ducking looks ahead into audio the timeline holds already: the latency covers it.
    var timing = c
    timing.latency = c.timingLatency
    let maxLatency: Double
    switch timing.latency {
    case .fixed(let s): maxLatency = s
    case .adaptive(_, let most): maxLatency = most
    }
    // The timeline holds the latency and one more burst-sized delivery on top.
    let capacity = Int((maxLatency + 0.6) * Double(c.outputRate))
    do {
      app = try TimedSource(c, format: appFormat, capacity: capacity, gainDB: c.appGainDB)
      mic = try TimedSource(c, format: micFormat, capacity: capacity, gainDB: c.micGainDB)
    } catch {
      throw .format(error)
    }
    clock = OutputClock(timing)
    originTime = c.origin
    scratchA = [Float](repeating: 0, count: c.pullBlockFrames * 2)
    scratchB = [Float](repeating: 0, count: c.pullBlockFrames * 2)
    scratchC = [Float](repeating: 0, count: c.pullBlockFrames * 2)
    mixScale = Ramp(c.policy == .average ? 0.5 : 1)
    output = MixOutput(
      policy: c.policy, ceilingDB: c.ceilingDB,
      lookaheadFrames: c.policy == .limit ? c.outputRate / 1000 : 0, sampleRate: c.outputRate)
    if c.echoCancellation != nil || c.ducking != nil {
      echo = EchoStage(
        rate: c.outputRate, settings: c.echoCancellation ?? EchoCancellation(),
        corrects: c.echoCancellation != nil, ducking: c.ducking)
    }
    if c.meterLoudness { loudnessMeter = LoudnessMeter(rate: c.outputRate, channelCount: 2) }
  }

  /// Takes one buffer of `side`'s audio, stamped with the host time of its first frame (or
  /// `nil`: placed after the previous buffer, or at its arrival). An invalid stamp
  /// (``MediaTime/invalid``, a timescale of 0) counts as none
  /// (``CaptureSideStatistics/invalidStamps``).
  ///
  /// - Throws: ``CaptureError/format(_:)`` when the description is not readable PCM, declares
  ///   a rate outside ``Configuration/inputRates``, or the bytes are not a whole number of
  ///   frames; ``CaptureError/timeOutOfRange(_:)`` when the stamp lies further from the origin
  ///   than ``Configuration/maximumTimeFromOrigin``. The buffer is then not used and the stream
  ///   continues.
  /// - Complexity: O(frames in the buffer).
  public mutating func append(
    _ side: Side, _ bytes: UnsafeRawBufferPointer, description: StreamDescription,
    time: MediaTime? = nil
  ) throws(CaptureError) {
    try append(side, .bytes(bytes), description: description, time: time)
  }

  /// Takes one buffer of `side`'s audio given as planes: one raw buffer per channel for a
  /// non-interleaved description (as an `AudioBufferList` holds them, each anywhere in memory,
  /// all the same size), exactly one for an interleaved description or mono. The planes are read
  /// where they lie: nothing is gathered, copied or allocated. Otherwise as
  /// ``append(_:_:description:time:)``.
  ///
  /// - Throws: ``CaptureError`` as ``append(_:_:description:time:)`` does, and
  ///   ``CaptureError/format(_:)`` with ``ProbeError/planeCountMismatch(_:expected:)``,
  ///   ``ProbeError/unequalPlanes(index:byteCount:expected:)`` or
  ///   ``ProbeError/partialPlane(byteCount:bytesPerSample:)`` when the planes are not one per
  ///   channel, not the same size, or not whole samples; the buffer is then not used and the
  ///   stream continues.
  /// - Complexity: O(frames in the buffer).
  public mutating func append(
    _ side: Side, planes: UnsafeBufferPointer<UnsafeRawBufferPointer>,
    description: StreamDescription, time: MediaTime? = nil
  ) throws(CaptureError) {
    try append(side, .planes(planes), description: description, time: time)
  }

  /// Takes one buffer of either shape.
  mutating func append(
    _ side: Side, _ input: PCMInput, description: StreamDescription, time: MediaTime?
  ) throws(CaptureError) {
    let rate = description.sampleRate
    let rates = configuration.inputRates
    guard rate >= Double(rates.lowerBound), rate <= Double(rates.upperBound) else {
      throw .format(.invalidSampleRate(rate))
    }
    var stamp: MediaTime?
    var position: Double?
    let firstStamp = originTime == nil
    if let time, time.isValid {
      let origin = originTime ?? time
      let seconds = time.seconds(since: origin)
      guard abs(seconds) <= Configuration.maximumTimeFromOrigin,
        abs(time.seconds) <= Configuration.mostHostSeconds
      else {
        throw .timeOutOfRange(time)
      }
      originTime = origin
      stamp = time
      // The timeline runs `shift` frames behind the stamps once latency has been taken off.
      position = seconds * Double(configuration.outputRate) - clock.shift
    }
    let arrival = arrivalPosition(for: side)
    let runDry = clock.isRunning ? state(side).nextPosition <= clock.position : false
    let hasInvalidStamp = time.map { !$0.isValid } ?? false
    let other = state(side == .app ? .mic : .app)
    let now: Double? = clock.isRunning || other.hasStarted ? arrival : nil
    // How far from `now` a stamp can lie: the latency, and a second for delivery and pauses.
    let window =
      Double(clock.isRunning ? clock.latency : clock.maximumLatency + configuration.outputRate)
      + Double(configuration.outputRate)
    do {
      try withSource(side) { (s) throws(ProbeError) in
        try s.take(
          input, description: description, stamp: stamp, position: position, arrival: arrival,
          now: now, window: window, runDry: runDry)
        if hasInvalidStamp { s.invalidStamps += 1 }
      }
    } catch {
      // A refused buffer changes nothing, not even the origin.
      if firstStamp { originTime = nil }
      throw .format(error)
    }
  }

  /// Ends `side`'s stream: the resampler's tail (its last ~1 ms) is placed after the last
  /// buffer, and the output clock no longer waits for it. A later buffer starts the source
  /// again.
  public mutating func finish(_ side: Side) {
    withSource(side) {
      $0.finish()
      $0.isFinished = true
    }
  }

  /// Sets a source's gain in dB, from the next pull on (ramped over the fade time). Values
  /// outside −120 … +40 dB are taken as the nearest in range; NaN changes nothing.
  public mutating func setGain(_ side: Side, dB: Double) {
    guard !dB.isNaN else { return }
    let clamped = min(max(dB, -120), 40)
    withSource(side) { $0.gain.set(clamped == 0 ? 1 : Float(Math.pow(10, clamped / 20)), $0.fade) }
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
  public func statistics(_ side: Side) -> CaptureSideStatistics {
    side == .app ? app.statistics : mic.statistics
  }

  /// Counters of the output clock.
  public var clockStatistics: CaptureClockStatistics { clock.statistics }

  /// Host time of timeline frame 0: ``Configuration/origin``, or the first valid stamp the
  /// pipeline took; `nil` before that.
  public var origin: MediaTime? { originTime }

  /// Levels of each source and of the output over the last pull, with a decaying peak hold,
  /// and what the limiter or the clamp did (see ``MixMeters``).
  public var meters: MixMeters { output.meters }

  /// Bytes of storage held: the timelines, the resamplers' history, scratch.
  public var retainedBytes: Int {
    app.retainedBytes + mic.retainedBytes
      + (scratchA.capacity + scratchB.capacity + scratchC.capacity) * 4
      + (echo?.retainedBytes ?? 0) + (loudnessMeter?.retainedBytes ?? 0)
  }

  /// The output's loudness as of the last pull (`nil` unless ``Configuration/meterLoudness``).
  public var loudness: LoudnessReading? { loudnessMeter?.reading }

  /// What the echo canceller is doing (`nil` when ``Configuration/echoCancellation`` is off).
  public var echoStatistics: EchoStatistics? {
    configuration.echoCancellation == nil ? nil : echo?.canceller.statistics
  }

  /// The ducking's gain on the app now (dB, 0 … −depth; `nil` without ``Configuration/ducking``).
  public var duckingGainDB: Double? { echo?.ducker?.gainDB }

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
