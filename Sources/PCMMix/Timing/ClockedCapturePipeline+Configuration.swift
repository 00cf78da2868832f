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
      resampler ?? .variableRatio(.balanced)
    }
  }
}
