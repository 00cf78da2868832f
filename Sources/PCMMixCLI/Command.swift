import PCMMix

/// What one invocation of `pcm-mix` asks for.
package enum Command: Equatable, Sendable {
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
package struct InputSpec: Equatable, Sendable {
  /// A file path, or `-` for standard input.
  package var path: String
  /// The format of headerless PCM (`--input-format`), or `nil` for a file with a header.
  package var format: PCMFormat?

  /// Options with every default, for the given inputs and output.
  package init(path: String, format: PCMFormat? = nil) {
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
package enum PhaseChoice: String, CaseIterable, Equatable, Sendable {
  /// Linear phase at every rate: every frequency delayed alike, then aligned (the default).
  case linear
  /// Minimum phase at every rate: the least delay; the top of the band lags a little.
  case minimum
  /// The preset's own rule, what the capture pipeline runs: linear phase where its delay fits
  /// the preset's budget, minimum phase where it would not (for the presets, at every common
  /// rate into 48 kHz).
  case capture

  /// `quality` with this phase response.
  package func applied(to quality: ResamplerQuality) -> ResamplerQuality {
    switch self {
    case .linear: quality.with(phase: .linear)
    case .minimum: quality.with(phase: .minimum)
    case .capture: quality
    }
  }
}

/// Options of `pcm-mix convert`.
package struct ConvertOptions: Equatable, Sendable {
  /// What to convert.
  package var input: InputSpec
  /// The WAV file to write, or `-` for standard output.
  package var output: String
  /// The output sample rate (`--rate`, default 48 kHz).
  package var rate = 48_000
  /// The output channel count (`--channels`, default 2).
  package var channels = 2
  /// The output sample type (`--format`: `s16`, the default, or `f32`).
  package var sampleType: SampleType = .s16
  /// The integrated loudness (LUFS) to normalize the output to (`--loudness`), if any.
  package var loudness: Double?
  /// The true-peak ceiling (dBTP) of `--loudness` (`--true-peak`, default -1).
  package var truePeakDB = -1.0
  /// The resampler (`--resampler`).
  package var resampler: ResamplerChoice = .standard
  /// The built-in resampler's phase response (default linear: time-aligned at every frequency).
  package var phase: PhaseChoice = .linear
  /// Threads that convert parts of the input at once (`--threads`; `nil`: one per processor,
  /// at most 4). The output is the same bytes for any count.
  package var threads: Int?

  /// Options with every default, for the given inputs and output.
  package init(input: InputSpec, output: String) {
    self.input = input
    self.output = output
  }
}

/// Options of `pcm-mix mix`.
package struct MixOptions: Equatable, Sendable {
  /// The app audio input.
  package var app: InputSpec
  /// The mic audio input.
  package var mic: InputSpec
  /// The WAV file to write, or `-` for standard output.
  package var output: String
  /// The output sample rate (`--rate`, default 48 kHz).
  package var rate = 48_000
  /// How the two sources are summed (`--policy`).
  package var policy: MixPolicy = .average
  /// The app source's gain in dB (`--app-gain`).
  package var appGainDB = 0.0
  /// The mic source's gain in dB (`--mic-gain`).
  package var micGainDB = 0.0
  /// Whether the shorter input is padded with silence to the longer one's length (`--pad`).
  package var pad = false
  /// How many parts per million the mic input's clock runs fast against the app input's
  /// (`--mic-drift`; negative: slow): the mic is resampled onto the app's clock. 0: as it is.
  package var micDriftPPM = 0.0
  /// Whether ``micDriftPPM`` is read from the inputs first (`--mic-drift auto`): the drift the
  /// echo canceller follows over a first pass (see `readMicDrift`).
  package var micDriftFromEcho = false
  /// The output sample type (`--format`: `s16`, the default, or `f32`).
  package var sampleType: SampleType = .s16
  /// The resampler (`--resampler`).
  package var resampler: ResamplerChoice = .standard
  /// The built-in resampler's phase response (default linear: time-aligned at every frequency).
  package var phase: PhaseChoice = .linear
  /// The `limit` policy's ceiling in dBFS.
  package var ceilingDB = -1.0
  /// Fades, in milliseconds, at each input's start and end (0, the default: none, the reference
  /// behaviour).
  package var fadeMilliseconds = 0.0
  /// The integrated loudness (LUFS) to normalize the output to (`--loudness`), if any.
  package var loudness: Double?
  /// The true-peak ceiling (dBTP) of `--loudness` (`--true-peak`, default -1).
  package var truePeakDB = -1.0
  /// Echo cancellation of the mic with the app as the reference (`--echo-cancel`), if on.
  package var echoCancellation: EchoCancellation?
  /// The app turned down while the talker speaks (`--duck [DEPTH_DB]`), if on.
  package var ducking: Ducking?
  /// The folder for `app.wav` and `mic.wav`, each source as it enters the mix (`--stems`).
  package var stems: String?
  /// Where a JSON summary goes (counters, meters), if anywhere.
  package var report: String?
  /// Whether the JSON summary is also printed on standard error.
  package var json = false

  /// Options with every default, for the given inputs and output.
  package init(app: InputSpec, mic: InputSpec, output: String) {
    self.app = app
    self.mic = mic
    self.output = output
  }
}

/// Options of `pcm-mix replay`.
package struct ReplayOptions: Equatable, Sendable {
  /// One source's capture log: its buffers' bytes back to back, and the CSV that cuts them.
  package struct Log: Equatable, Sendable {
    /// The raw file of the buffers' bytes.
    package var raw: String
    /// The CSV: `time,frames,format`, a row per buffer.
    package var csv: String

    /// A log of `raw` bytes cut by `csv`.
    package init(raw: String, csv: String) {
      self.raw = raw
      self.csv = csv
    }
  }

  /// The app's log, if given.
  package var app: Log?
  /// The mic's log, if given.
  package var mic: Log?
  /// The WAV file to write.
  package var output: String
  /// Milliseconds of log time between pulls (1 … 100), and of audio per pull.
  package var pullMilliseconds = 10
  /// A fixed latency in milliseconds; `nil`: the pipeline's adaptive latency.
  package var latencyMilliseconds: Double?
  /// How the sources are combined.
  package var policy: MixPolicy = .average
  /// The `limit` policy's ceiling in dBFS.
  package var ceilingDB = -1.0
  /// Fades, in milliseconds (the pipeline's default, 10).
  package var fadeMilliseconds = 10.0
  /// App gain in dB.
  package var appGainDB = 0.0
  /// Mic gain in dB.
  package var micGainDB = 0.0
  /// The output's sample type.
  package var sampleType: SampleType = .s16
  /// The resampler backend (a steerable one is made from it).
  package var resampler: ResamplerChoice = .standard
  /// The built-in resampler's phase response (default linear: a replay writes a file, so it can
  /// afford the delay; `capture` runs the presets as the device did).
  package var phase: PhaseChoice = .linear
  /// What steers the resamplers.
  package var drift: ClockedCapturePipeline.DriftCorrection = .timestamps
  /// The integrated loudness (LUFS) to normalize the output to (`--loudness`), if any.
  package var loudness: Double?
  /// The true-peak ceiling (dBTP) of `--loudness` (`--true-peak`, default -1).
  package var truePeakDB = -1.0
  /// Ducking of the app while the talker speaks (`--duck [DEPTH_DB]`), if on.
  package var ducking: Ducking?
  /// Echo cancellation of the mic with the app as the reference (`--echo-cancel`), if on.
  package var echoCancellation: EchoCancellation?
  /// The folder for `app.wav` and `mic.wav`, each source as it enters the mix (`--stems`).
  package var stems: String?
  /// Where the JSON report goes, if anywhere.
  package var report: String?
  /// Whether the JSON report is also printed on standard error.
  package var json = false

  /// Replays `app` and/or `mic` into `output` with the default settings.
  package init(app: Log?, mic: Log?, output: String) {
    self.app = app
    self.mic = mic
    self.output = output
  }
}
