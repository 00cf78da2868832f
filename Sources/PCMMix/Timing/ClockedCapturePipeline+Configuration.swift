extension ClockedCapturePipeline {
  /// How far behind the newest audio the output plays.
  public enum Latency: Equatable, Sendable {
    /// Exactly this many seconds; audio that arrives later than that is dropped (counted).
    case fixed(seconds: Double)
    /// Chosen from how the sources deliver, within these bounds: at start, one of the longest
    /// buffers seen, one pull, 20 ms and one fade (a source that delivers 512 ms bursts makes
    /// it about 550 ms); raised when audio still arrives late (the output holds, silent, for the
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
    /// The drift loop's time constant in seconds (default 2). For the first 3.5 time constants
    /// of stamped audio the loop runs faster, from an eighth of it, while it finds the clock.
    public var driftTimeConstant = 2.0
    /// The largest ratio correction (default ±0.2 %, 2,000 ppm).
    public var maxRatioAdjustment = 0.002
    /// How long (seconds) the output waits, once one source has delivered, for the other's
    /// first audio before it starts without it (default 0.75).
    public var startupWait = 0.75
    /// Input rates a source may switch to, whose resamplers are made at creation (default the
    /// common capture rates 8, 16, 24, 32, 44.1 and 48 kHz). Every rate up to the output's
    /// uses the filter tables designed at creation, so an unlisted one costs only its history
    /// (0.4 ms for 22.05 kHz); a higher one that is not listed (96 kHz) has its filter designed
    /// in the append that brings it (in a `RealtimeCapturePipeline`, the pull), 73 ms in a
    /// release build: list it if the device may switch to it.
    public var preparedRates = [8_000, 16_000, 24_000, 32_000, 44_100, 48_000]
    /// Input rates a source may declare (default 1 kHz … 768 kHz).
    public var inputRates: ClosedRange<Int> = 1_000...PCMFormat.maxSampleRate
    /// The most frames one pull is worked through at a time (larger pulls take several steps).
    public var pullBlockFrames = 4_800
    /// Whether the latency comes back down once delivery has been steady (default `true`: live
    /// streams want the least delay). A recorder that stamps its audio with
    /// ``PullStatus/captureTime`` may set `false`, so that the audio stays exactly where its
    /// stamps put it after a raise.
    public var lowersLatency = true
    /// Echo cancellation of the mic, with the app's audio as the reference (default `nil`:
    /// off). See ``EchoCancellation``: the mic is cleaned where it lies on the timeline, so the
    /// output gains no delay; with no echo to cancel (headphones) it passes unchanged. The
    /// canceller looks 53 ms past the audio it cleans at 48 kHz (its suppressor waits 43 ms for
    /// the voice decisions after each block), so the pipeline runs at least 73 ms behind the
    /// newest audio, ``latency`` notwithstanding (the default's minimum is 100 ms).
    public var echoCancellation: EchoCancellation?
    /// Whether the output's loudness is metered (default `false`): momentary, short-term and
    /// integrated loudness and the true peak, read from ``ClockedCapturePipeline/loudness``
    /// (and `RealtimeCapturePipeline.Statistics.loudness`), over the pulls that run (not the
    /// silence given while starting or holding). It costs a 10 ms pull about 10 µs on
    /// the benchmark machine (`pcm-mix-bench --filter echo/pipeline`) and allocates nothing.
    public var meterLoudness = false
    /// Ducking of the app while the talker speaks (default `nil`: off); see ``Ducking``. Its
    /// look-ahead is audio the timeline holds: the pipeline runs at least
    /// ``Ducking/lookahead`` and 30 ms behind the newest audio (43 ms more with
    /// ``echoCancellation`` on), ``latency`` notwithstanding.
    public var ducking: Ducking?

    /// The latency the pipeline runs at: ``latency``, its minimum (or fixed value) raised to
    /// what the timeline must hold ahead of the read position, and its maximum with it. With
    /// ``echoCancellation`` on, the canceller's latency and a block past the audio it cleans
    /// (``EchoCanceller/latency``: a block and its suppressor's look-ahead) and a pull: the
    /// look-ahead and 30 ms. With ``ducking`` on, ``Ducking/lookahead`` and 30 ms (two of the
    /// canceller's blocks and a pull), and the suppressor's look-ahead with cancellation.
    package var timingLatency: Latency {
      let gains =
        echoCancellation == nil
        ? 0 : EchoCanceller.lookaheadSeconds(rate: outputRate)
      let look = ducking?.lookahead ?? 0
      guard look > 0 || echoCancellation != nil else { return latency }
      let least = look + 0.03 + gains
      switch latency {
      case .fixed(let s): return .fixed(seconds: max(s, least))
      case .adaptive(let low, let high):
        return .adaptive(minimum: max(low, least), maximum: max(high, least))
      }
    }

    /// Creates a configuration with `resampler` (`nil`: the built-in steerable one at
    /// `balanced`) and the defaults below.
    public init(resampler: ResamplerFactory? = nil) {
      self.resampler = resampler
    }

    /// The backend the pipeline uses.
    var resolvedResampler: ResamplerFactory {
      resampler ?? .variableRatio(.balanced)
    }

    /// The furthest a stamp may lie from the origin, in seconds (about 115 days): beyond it, a
    /// stamp is refused (``CaptureError/timeOutOfRange(_:)``) rather than placed where no
    /// timeline position can hold it.
    public static let maximumTimeFromOrigin = 10_000_000.0

    /// The largest host time a stamp or the origin may have, in seconds (about 317 years):
    /// what a host clock reports is far below it.
    public static let mostHostSeconds = 1e10

    /// The longest latency a pipeline may be configured with, in seconds (its timelines hold
    /// this much audio and 0.6 s more).
    public static let maximumLatency = 5.0

    /// Checks every value, as the pipelines do when they are made: nothing that is not a number,
    /// nothing negative or zero where that makes no sense, nothing so large that the pipeline
    /// would hold unbounded memory.
    ///
    /// - Throws: ``ConfigurationError`` naming the first value at fault.
    public func validate() throws(ConfigurationError) {
      func check(_ name: String, _ value: Double, _ range: ClosedRange<Double>, _ unit: String)
        throws(ConfigurationError)
      {
        guard range.contains(value) else {  // NaN is in no range
          throw ConfigurationError(
            name, "\(value)\(unit) is not in \(range.lowerBound) … \(range.upperBound)\(unit)")
        }
      }
      func check(_ name: String, _ value: Int, _ range: ClosedRange<Int>, _ unit: String)
        throws(ConfigurationError)
      {
        guard range.contains(value) else {
          throw ConfigurationError(
            name, "\(value)\(unit) is not in \(range.lowerBound) … \(range.upperBound)\(unit)")
        }
      }
      try check("outputRate", outputRate, 1_000...PCMFormat.maxSampleRate, " Hz")
      try check("ceilingDB", ceilingDB, -60...0, " dB")
      try check("fadeSeconds", fadeSeconds, 0...1, " s")
      try check("appGainDB", appGainDB, -120...40, " dB")
      try check("micGainDB", micGainDB, -120...40, " dB")
      let most = Self.maximumLatency
      switch latency {
      case .fixed(let s):
        try check("latency", s, 0...most, " s")
      case .adaptive(let low, let high):
        try check("latency (minimum)", low, 0...most, " s")
        try check("latency (maximum)", high, 0...most, " s")
        guard low <= high else {
          throw ConfigurationError("latency", "minimum \(low) s is above maximum \(high) s")
        }
      }
      if let origin {
        guard origin.isValid, abs(origin.seconds) <= Self.mostHostSeconds else {
          throw ConfigurationError("origin", "\(origin) is not a valid host time")
        }
      }
      try check("gapTolerance", gapTolerance, 0...1, " s")
      try check("maxOverlap", maxOverlap, 0...most, " s")
      try check("driftTimeConstant", driftTimeConstant, 0.05...600, " s")
      try check("maxRatioAdjustment", maxRatioAdjustment, 0...0.004, "")
      try check("startupWait", startupWait, 0...60, " s")
      try check(
        "inputRates (lower bound)", inputRates.lowerBound, 1...PCMFormat.maxSampleRate, " Hz")
      try check(
        "inputRates (upper bound)", inputRates.upperBound, 1...PCMFormat.maxSampleRate, " Hz")
      try check("preparedRates (count)", preparedRates.count, 0...32, "")
      for rate in preparedRates {
        try check("preparedRates", rate, 1...PCMFormat.maxSampleRate, " Hz")
      }
      try check("pullBlockFrames", pullBlockFrames, 1...65_536, " frames")
      do {
        try echoCancellation?.validate()
      } catch {
        throw ConfigurationError("echoCancellation.\(error.parameter)", error.message)
      }
      do {
        try ducking?.validate()
      } catch {
        throw ConfigurationError("ducking.\(error.parameter)", error.message)
      }
    }
  }
}
