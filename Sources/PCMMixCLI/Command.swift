import PCMMix

/// What one invocation of `pcm-mix` asks for.
public enum Command: Equatable, Sendable {
  case probe(paths: [String], json: Bool)
  case convert(ConvertOptions)
  case mix(MixOptions)
  case demo(output: String)
  case help(topic: String?)
  case version
}

/// An input: a WAV file, or headerless PCM when `format` is given. `-` is standard input.
public struct InputSpec: Equatable, Sendable {
  public var path: String
  public var format: PCMFormat?

  public init(path: String, format: PCMFormat? = nil) {
    self.path = path
    self.format = format
  }
}

/// Options of `pcm-mix convert`.
public struct ConvertOptions: Equatable, Sendable {
  public var input: InputSpec
  public var output: String
  public var rate = 48_000
  public var channels = 2
  public var sampleType: SampleType = .s16
  public var resampler: ResamplerChoice = .standard

  public init(input: InputSpec, output: String) {
    self.input = input
    self.output = output
  }
}

/// Options of `pcm-mix mix`.
public struct MixOptions: Equatable, Sendable {
  public var app: InputSpec
  public var mic: InputSpec
  public var output: String
  public var rate = 48_000
  public var policy: MixPolicy = .average
  public var appGainDB = 0.0
  public var micGainDB = 0.0
  public var pad = false
  public var sampleType: SampleType = .s16
  public var resampler: ResamplerChoice = .standard

  public init(app: InputSpec, mic: InputSpec, output: String) {
    self.app = app
    self.mic = mic
    self.output = output
  }
}
