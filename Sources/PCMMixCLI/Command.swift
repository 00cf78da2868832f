import PCMMix

/// What one invocation of `pcm-mix` asks for.
public enum Command: Equatable, Sendable {
  case probe(paths: [String], json: Bool, loudness: Bool = false)
  case convert(ConvertOptions)
  case mix(MixOptions)
  case demo(output: String)
  /// `pcm-mix replay`: capture logs through the clocked capture pipeline.
  case replay(ReplayOptions)
  case help(topic: String?)
  case version
}

/// An input: a WAV file, or headerless PCM when `format` is given. `-` is standard input.
public struct InputSpec: Equatable, Sendable {
  /// A file path, or `-` for standard input.
  public var path: String
  /// The format of headerless PCM (`--input-format`), or `nil` for a file with a header.
  public var format: PCMFormat?

  /// Options with every default, for the given inputs and output.
  public init(path: String, format: PCMFormat? = nil) {
    self.path = path
    self.format = format
  }
}

/// The built-in resampler's phase response on the command line (`--phase`).
///
/// A file converter has the whole file, so it can afford a linear-phase filter's delay (it drops
/// it at the start): every frequency comes out at its input time. The capture pipeline cannot
/// wait that long, so its presets use minimum phase wherever linear phase would exceed their
/// delay budget: at every common rate into 48 kHz (`capture`).
public enum PhaseChoice: String, CaseIterable, Equatable, Sendable {
  /// Linear phase at every rate: every frequency delayed alike, then aligned (the default).
  case linear
  /// Minimum phase at every rate: the least delay; the top of the band lags a little.
  case minimum
  /// The preset's own rule, what the capture pipeline runs: linear phase where its delay fits
  /// the preset's budget, minimum phase where it would not (for the presets, at every common
  /// rate into 48 kHz).
  case capture

  /// `quality` with this phase response.
  public func applied(to quality: ResamplerQuality) -> ResamplerQuality {
    switch self {
    case .linear: quality.with(phase: .linear)
    case .minimum: quality.with(phase: .minimum)
    case .capture: quality
    }
  }
}

/// Options of `pcm-mix convert`.
public struct ConvertOptions: Equatable, Sendable {
  /// What to convert.
  public var input: InputSpec
  /// The WAV file to write, or `-` for standard output.
  public var output: String
  /// The output sample rate (`--rate`, default 48 kHz).
  public var rate = 48_000
  /// The output channel count (`--channels`, default 2).
  public var channels = 2
  /// The output sample type (`--format`: `s16`, the default, or `f32`).
  public var sampleType: SampleType = .s16
  /// The integrated loudness (LUFS) to normalize the output to (`--loudness`), if any.
  public var loudness: Double?
  /// The true-peak ceiling (dBTP) of `--loudness` (`--true-peak`, default -1).
  public var truePeakDB = -1.0
  /// The resampler (`--resampler`).
  public var resampler: ResamplerChoice = .standard
  /// The built-in resampler's phase response (default linear: time-aligned at every frequency).
  public var phase: PhaseChoice = .linear
  /// Threads that convert parts of the input at once (`--threads`; `nil`: one per processor,
  /// at most 4). The output is the same bytes for any count.
  public var threads: Int?

  /// Options with every default, for the given inputs and output.
  public init(input: InputSpec, output: String) {
    self.input = input
    self.output = output
  }
}

/// Options of `pcm-mix mix`.
public struct MixOptions: Equatable, Sendable {
  /// The app audio input.
  public var app: InputSpec
  /// The mic audio input.
  public var mic: InputSpec
  /// The WAV file to write, or `-` for standard output.
  public var output: String
  /// The output sample rate (`--rate`, default 48 kHz).
  public var rate = 48_000
  /// How the two sources are summed (`--policy`).
  public var policy: MixPolicy = .average
  /// The app source's gain in dB (`--app-gain`).
  public var appGainDB = 0.0
  /// The mic source's gain in dB (`--mic-gain`).
  public var micGainDB = 0.0
  /// Whether the shorter input is padded with silence to the longer one's length (`--pad`).
  public var pad = false
  /// The output sample type (`--format`: `s16`, the default, or `f32`).
  public var sampleType: SampleType = .s16
  /// The resampler (`--resampler`).
  public var resampler: ResamplerChoice = .standard
  /// The built-in resampler's phase response (default linear: time-aligned at every frequency).
  public var phase: PhaseChoice = .linear
  /// The `limit` policy's ceiling in dBFS.
  public var ceilingDB = -1.0
  /// Fades, in milliseconds, at each input's start and end (0, the default: none, the reference
  /// behaviour).
  public var fadeMilliseconds = 0.0
  /// The integrated loudness (LUFS) to normalize the output to (`--loudness`), if any.
  public var loudness: Double?
  /// The true-peak ceiling (dBTP) of `--loudness` (`--true-peak`, default -1).
  public var truePeakDB = -1.0
  /// Echo cancellation of the mic with the app as the reference (`--echo-cancel`), if on.
  public var echoCancellation: EchoCancellation?
  /// The folder for `app.wav` and `mic.wav`, each source as it enters the mix (`--stems`).
  public var stems: String?
  /// Where a JSON summary goes (counters, meters), if anywhere.
  public var report: String?
  /// Whether the JSON summary is also printed on standard error.
  public var json = false

  /// Options with every default, for the given inputs and output.
  public init(app: InputSpec, mic: InputSpec, output: String) {
    self.app = app
    self.mic = mic
    self.output = output
  }
}

/// Options of `pcm-mix replay`.
public struct ReplayOptions: Equatable, Sendable {
  /// One source's capture log: its buffers' bytes back to back, and the CSV that cuts them.
  public struct Log: Equatable, Sendable {
    /// The raw file of the buffers' bytes.
    public var raw: String
    /// The CSV: `time,frames,format`, a row per buffer.
    public var csv: String

    /// A log of `raw` bytes cut by `csv`.
    public init(raw: String, csv: String) {
      self.raw = raw
      self.csv = csv
    }
  }

  /// The app's log, if given.
  public var app: Log?
  /// The mic's log, if given.
  public var mic: Log?
  /// The WAV file to write.
  public var output: String
  /// Milliseconds of log time between pulls (1 … 100), and of audio per pull.
  public var pullMilliseconds = 10
  /// A fixed latency in milliseconds; `nil`: the pipeline's adaptive latency.
  public var latencyMilliseconds: Double?
  /// How the sources are combined.
  public var policy: MixPolicy = .average
  /// The `limit` policy's ceiling in dBFS.
  public var ceilingDB = -1.0
  /// Fades, in milliseconds (the pipeline's default, 10).
  public var fadeMilliseconds = 10.0
  /// App gain in dB.
  public var appGainDB = 0.0
  /// Mic gain in dB.
  public var micGainDB = 0.0
  /// The output's sample type.
  public var sampleType: SampleType = .s16
  /// The resampler backend (a steerable one is made from it).
  public var resampler: ResamplerChoice = .standard
  /// The built-in resampler's phase response (default linear: a replay writes a file, so it can
  /// afford the delay; `capture` runs the presets as the device did).
  public var phase: PhaseChoice = .linear
  /// What steers the resamplers.
  public var drift: ClockedCapturePipeline.DriftCorrection = .timestamps
  /// The integrated loudness (LUFS) to normalize the output to (`--loudness`), if any.
  public var loudness: Double?
  /// The true-peak ceiling (dBTP) of `--loudness` (`--true-peak`, default -1).
  public var truePeakDB = -1.0
  /// Ducking of the app while the talker speaks (`--duck [DEPTH_DB]`), if on.
  public var ducking: Ducking?
  /// Echo cancellation of the mic with the app as the reference (`--echo-cancel`), if on.
  public var echoCancellation: EchoCancellation?
  /// The folder for `app.wav` and `mic.wav`, each source as it enters the mix (`--stems`).
  public var stems: String?
  /// Where the JSON report goes, if anywhere.
  public var report: String?
  /// Whether the JSON report is also printed on standard error.
  public var json = false

  /// Replays `app` and/or `mic` into `output` with the default settings.
  public init(app: Log?, mic: Log?, output: String) {
    self.app = app
    self.mic = mic
    self.output = output
  }
}
