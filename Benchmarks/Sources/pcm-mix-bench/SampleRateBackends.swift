import PCMMix
import PCMMixSampleRate

/// libsamplerate's converters as pipeline backends, through `PCMMixSampleRate`, named as the
/// `pcm-mix` command line names them (`src-best`, `src-medium`, `src-fastest`, `src-zoh`,
/// `src-linear`).
///
/// The one place the benchmark touches `SampleRateResampler`: while that type is unavailable,
/// `all` returns `[]` here and the libsamplerate rows drop out of every table.
enum SampleRateBackends {
  static var all: [(name: String, factory: ResamplerFactory)] {
    SampleRateResampler.Converter.allCases.map { ($0.cliName, ResamplerFactory.libsamplerate($0)) }
  }
}
