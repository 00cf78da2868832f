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

  /// How far behind the newest audio the output plays.
  public enum Latency: Equatable, Sendable {
    /// Exactly this many seconds; audio that arrives later than that is dropped (counted).
    case fixed(seconds: Double)
    /// Chosen from how the sources deliver, within these bounds: at start, one of the longest
    /// buffers seen, one pull and 20 ms (a source that delivers 512 ms bursts makes it about
    /// 540 ms); raised when audio still arrives late (the output holds, silent, for the
    /// difference), never lowered.
    case adaptive(minimum: Double, maximum: Double)
  }

  /// What steers the resamplers' ratios.
  public enum DriftCorrection: Equatable, Sendable {
    /// Nothing: each source converts at its nominal rate (stamps still place its audio).
    case off
    /// Each stamped source's rate is estimated from its stamps against the host clock.
    case timestamps
    /// Stamped sources as above; an unstamped one is steered to keep its fill level steady
    /// against the pull clock.
    case timestampsAndFillLevel
  }

  /// Output rate, latency, drift correction, mixing.
  public struct Configuration: Sendable {
    /// Frames per second out (default 48,000).
    public var outputRate = 48_000
    /// The resampler backend; it must be steerable for drift correction (libsamplerate's is,
    /// ``VariableRatioResampler``'s is); `nil`, the default, is ``VariableRatioResampler`` at
    /// `balanced`, whose tables are then designed when the pipeline is made.
    public var resampler: ResamplerFactory?
    /// How samples are combined (`limit` is recommended; `average`, the reference's, is the
    /// default).
    public var policy: MixPolicy = .average
    /// The `limit` policy's ceiling in dBFS (default −1). Its limiter looks 1 ms ahead, which
    /// the timeline already holds: it adds no delay.
    public var ceilingDB = -1.0
    /// The length of every fade, in seconds (default 10 ms; 0 turns fades off and gives the
    /// output of a pipeline without them, bit for bit). A source fades in, raised cosine, where
    /// it starts or comes back (after a gap, a stall, a resync, a format switch, being enabled)
    /// and fades out over the last audio that arrived before it stops, stalls, switches format
    /// or is disabled; a gain change ramps over the same time.
    public var fadeSeconds = 0.010
    /// App gain in dB.
    public var appGainDB = 0.0
    /// Mic gain in dB.
    public var micGainDB = 0.0
    /// How far behind the newest audio the output plays (default adaptive, 100 ms … 1 s).
    ///
    /// The 100 ms floor covers one 1,024-frame buffer at 16 kHz (64 ms: a mic that AirPods
    /// switch to hands-free mid-stream delivers its first such buffer 64 ms after its first frame
    /// was captured), one 10 ms pull and 20 ms of scheduling jitter; a capture of 1,024-frame
    /// buffers at 32 kHz and up needs only 53 ms. It is also the jitter buffer WebRTC's external
    /// audio source and LiveKit use.
    public var latency = Latency.adaptive(minimum: 0.100, maximum: 1.0)
    /// Host time of timeline frame 0; `nil`: the first stamp seen.
    public var origin: MediaTime?
    /// What steers the resamplers (default: the timestamps).
    public var driftCorrection = DriftCorrection.timestamps
    /// How far (seconds) a stamp may be from where the audio goes on before it counts as a gap
    /// or an overlap, on top of one unit of the stamp's timescale (default 1 ms).
    public var gapTolerance = 0.001
    /// The furthest back (seconds) a stamp is taken as an overlap; beyond, it cannot be right.
    public var maxOverlap = 0.25
    /// The drift loop's time constant in seconds (default 2).
    public var driftTimeConstant = 2.0
    /// The largest ratio correction (default ±0.2 %, 2,000 ppm).
    public var maxRatioAdjustment = 0.002
    /// How long (seconds) the output waits, once one source has delivered, for the other's
    /// first audio before it starts without it (default 0.75).
    public var startupWait = 0.75
    /// Input rates a source may switch to, whose resamplers are made at creation (default the
    /// common capture rates 8, 16, 24, 32, 44.1 and 48 kHz).
    public var preparedRates = [8_000, 16_000, 24_000, 32_000, 44_100, 48_000]
    /// Input rates a source may declare (default 1 kHz … 768 kHz).
    public var inputRates: ClosedRange<Int> = 1_000...PCMFormat.maxSampleRate
    /// The most frames one pull is worked through at a time (larger pulls take several steps).
    public var pullBlockFrames = 4_800

    /// Creates a configuration with `resampler` (`nil`: the built-in steerable one at
    /// `balanced`) and the defaults below.
    public init(resampler: ResamplerFactory? = nil) {
      self.resampler = resampler
    }

    /// The backend the pipeline uses.
    var resolvedResampler: ResamplerFactory {
      resampler ?? VariableRatioResampler.factory(.balanced)
    }
  }

  /// What one pull gave.
  public typealias PullStatus = PCMMix.PullStatus

  /// What the pipeline was made with.
  public let configuration: Configuration
  var app: _TimedSource
  var mic: _TimedSource
  var clock: _OutputClock
  /// Seconds of the origin, once known.
  var originSeconds: Double?
  var scratchA: [Float]
  var scratchB: [Float]
  /// The mix's scale: ½ for two sources under `average`, 1 otherwise, ramped when it changes.
  var mixScale = _Ramp(1)
  /// Clamping or limiting, and the meters.
  var output: _MixOutput

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
    app = try _TimedSource(c, format: appFormat, capacity: capacity, gainDB: c.appGainDB)
    mic = try _TimedSource(c, format: micFormat, capacity: capacity, gainDB: c.micGainDB)
    clock = _OutputClock(c)
    originSeconds = c.origin?.seconds
    scratchA = [Float](repeating: 0, count: c.pullBlockFrames * 2)
    scratchB = [Float](repeating: 0, count: c.pullBlockFrames * 2)
    mixScale = _Ramp(c.policy == .average ? 0.5 : 1)
    output = _MixOutput(
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
        bytes, description: description, stamp: stamp, position: position, arrival: arrival,
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
      Encoder.int16(block, count: n * 2, into: output.baseAddress! + offset * 2)
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
    app.retainedBytes + mic.retainedBytes + (scratchA.capacity + scratchB.capacity) * 4
  }

  // MARK: - Internals

  /// What the clock reads of a source (read in place: a copy of the source would share its
  /// storage, and its next change would copy that).
  func state(_ side: Side) -> _SourceState { side == .app ? app.state : mic.state }

  mutating func withSource<R, E: Error>(_ side: Side, _ body: (inout _TimedSource) throws(E) -> R)
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

  /// One pull of `frames` frames, handed to `emit` in blocks of mixed interleaved Float32.
  mutating func pull(
    frames: Int, _ emit: (_ offset: Int, _ block: UnsafePointer<Float>, _ frames: Int) -> Void
  ) -> PullStatus {
    clock.statistics.pulls += 1
    clock.statistics.framesPulled += frames
    if !clock.isRunning && clock.tryStart(app.state, mic.state, frames: frames) {
      // What lies before the start is not late, only older than the output.
      app.dropBefore(clock.position)
      mic.dropBefore(clock.position)
      primeLimiter()
    }
    guard clock.isRunning, clock.hold == 0 else {
      let phase: PullStatus.Phase = clock.isRunning ? .holding : .starting
      if clock.isRunning {
        clock.hold = max(0, clock.hold - frames)
        clock.statistics.holdingFrames += frames
      } else {
        clock.statistics.startingFrames += frames
      }
      emitSilence(frames, emit)
      return PullStatus(
        phase: phase, position: nil, appSilentFrames: frames, micSilentFrames: frames)
    }
    let start = clock.position
    // The mix runs the limiter's look-ahead ahead of the output (the timeline holds that audio
    // already), so the limiter adds no delay.
    let ahead = start + output.latencyFrames
    app.flushIfOverdue(before: ahead + frames)
    mic.flushIfOverdue(before: ahead + frames)
    var silent = (app: 0, mic: 0)
    var lateness = 0
    // The scratch moves out of `self` while `self` mixes into it, and back after.
    var (a, b) = (scratchA, scratchB)
    (scratchA, scratchB) = ([], [])
    _withBlocks(&a, &b) { x, y, room in
      var done = 0
      while done < frames {
        let n = min(frames - done, room)
        let r = mix(ahead + done, n, x, y)
        silent.app += r.appSilent
        silent.mic += r.micSilent
        lateness = max(lateness, r.lateness)
        output.finish(x, frames: n)
        emit(done, x, n)
        done += n
      }
    }
    (scratchA, scratchB) = (a, b)
    clock.position += frames
    clock.afterPull(lateness: lateness, frames: frames)
    // A consumer that fell behind every stamped source skips ahead; an unstamped source that
    // got ahead of the latency is brought back to it (or steered, by its fill level).
    let skip = clock.skipAhead(app.state, mic.state, frames: frames)
    if skip > 0 {
      app.dropBefore(clock.position)
      mic.dropBefore(clock.position)
      primeLimiter()
    }
    app.keepFill(clock: clock, frames: frames, configuration: configuration)
    mic.keepFill(clock: clock, frames: frames, configuration: configuration)
    return PullStatus(
      phase: .running, position: start, appSilentFrames: silent.app, micSilentFrames: silent.mic)
  }

  /// Mixes timeline frames `k ..< k + n` into `x` (`y` is scratch): each source's audio with its
  /// fades, metered, at its gain, summed, at the mix's scale; as the `DualBufferMixer` computes
  /// `(a·ga + b·gb)·scale`, with each factor ramped. Before the output stage.
  mutating func mix(
    _ k: Int, _ n: Int, _ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>
  )
    -> (appSilent: Int, micSilent: Int, lateness: Int)
  {
    // Both sources play at half level under `average`, one alone at full level; the change
    // ramps like a fade.
    let both = app.isEnabled && app.fadeOutTo == nil && mic.isEnabled && mic.fadeOutTo == nil
    let scale: Float = configuration.policy == .average && both ? 0.5 : 1
    if scale != mixScale.to { mixScale.set(scale, app.fade) }
    let ra = app.extract(k, n, into: x)
    let rb = mic.extract(k, n, into: y)
    output.appMeter.measure(x, frames: n, channels: 2)
    output.micMeter.measure(y, frames: n, channels: 2)
    app.gain.apply(x, frames: n, app.fade)
    mic.gain.apply(y, frames: n, mic.fade)
    for i in 0..<(n * 2) { x[i] += y[i] }
    mixScale.apply(x, frames: n, app.fade)
    return (ra.silent, rb.silent, max(ra.lateness, rb.lateness))
  }

  /// Fills the limiter's look-ahead with the timeline's first frames (its output, the delay
  /// line's silence, is not used), at the start and after a skip.
  mutating func primeLimiter() {
    let w = output.latencyFrames
    guard w > 0 else { return }
    output.limiter!.reset()
    var (a, b) = (scratchA, scratchB)
    (scratchA, scratchB) = ([], [])
    _withBlocks(&a, &b) { x, y, room in
      var done = 0
      while done < w {
        let n = min(w - done, room)
        _ = mix(clock.position + done, n, x, y)
        output.limiter!.process(x, frames: n)
        done += n
      }
    }
    (scratchA, scratchB) = (a, b)
  }

  /// Gives `frames` frames of silence in blocks.
  mutating func emitSilence(
    _ frames: Int, _ emit: (_ offset: Int, _ block: UnsafePointer<Float>, _ frames: Int) -> Void
  ) {
    var a = scratchA
    scratchA = []
    a.withUnsafeMutableBufferPointer { pa in
      var done = 0
      while done < frames {
        let n = min(frames - done, pa.count / 2)
        pa.baseAddress!.update(repeating: 0, count: n * 2)
        emit(done, pa.baseAddress!, n)
        done += n
      }
    }
    scratchA = a
  }
}

/// Runs `body` over two stereo scratch arrays' storage (`room` frames each).
func _withBlocks(
  _ a: inout [Float], _ b: inout [Float],
  _ body: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void
) {
  a.withUnsafeMutableBufferPointer { pa in
    b.withUnsafeMutableBufferPointer { pb in body(pa.baseAddress!, pb.baseAddress!, pa.count / 2) }
  }
}
