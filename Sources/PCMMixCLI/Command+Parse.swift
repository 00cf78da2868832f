import PCMMix

extension Command {
  static let loudnessToStdout =
    "--loudness needs an output file, not standard output: it measures what it wrote, then"
    + " writes it again"

  /// Parses the arguments after the program name.
  ///
  /// - Throws: ``CLIError`` with code `usage` (64) naming what is wrong.
  package static func parse(_ args: ArraySlice<String>) throws(CLIError) -> Command {
    guard let first = args.first else { throw .usage("no command given; see 'pcm-mix --help'") }
    var rest = Arguments(args.dropFirst())
    switch first {
    case "-h", "--help":
      return .help(topic: nil)
    case "help":
      let topic = rest.next()
      if let topic, !Help.commands.contains(topic) {
        throw .usage("no help for '\(topic)'; commands: \(Help.commands.joined(separator: ", "))")
      }
      return .help(topic: topic)
    case "-V", "--version", "version":
      return .version
    case "probe": return try parseProbe(&rest)
    case "convert": return try parseConvert(&rest)
    case "mix": return try parseMix(&rest)
    case "demo": return try parseDemo(&rest)
    case "replay":
      return try parseReplay(&rest)
    default:
      throw .usage("unknown command '\(first)'; see 'pcm-mix --help'")
    }
  }

  /// Parses the arguments of `probe`.
  static func parseProbe(_ rest: inout Arguments) throws(CLIError) -> Command {
    var paths: [String] = []
    var json = false
    var loudness = false
    while let arg = rest.next() {
      switch arg {
      case "--json": json = true
      case "--loudness": loudness = true
      case "-h", "--help": return .help(topic: "probe")
      default:
        try rest.rejectOption(arg)
        paths.append(arg)
      }
    }
    guard !paths.isEmpty else { throw .usage("probe needs at least one FILE") }
    return .probe(paths: paths, json: json, loudness: loudness)
  }

  /// Parses the arguments of `convert`.
  static func parseConvert(_ rest: inout Arguments) throws(CLIError) -> Command {
    var input: String?
    var output: String?
    var inputFormat: PCMFormat?
    var rate = 48_000
    var channels = 2
    var type = SampleType.s16
    var resampler = ResamplerChoice.standard
    var phase: PhaseChoice?
    var threads: Int?
    var loudness: Double?
    var truePeak = -1.0
    while let arg = rest.next() {
      switch arg {
      case "-o", "--output": output = try rest.value(for: arg)
      case "--loudness": loudness = try rest.number(for: arg, -70...0, "LUFS")
      case "--true-peak": truePeak = try rest.number(for: arg, -20...0, "dBTP")
      case "--rate": rate = try rest.rate(for: arg)
      case "--phase": phase = try rest.phase(for: arg)
      case "--threads":
        let v = try rest.value(for: arg)
        guard let n = Int(v), (1...64).contains(n) else {
          throw .usage("--threads takes a count from 1 to 64, not '\(v)'")
        }
        threads = n
      case "--channels":
        let v = try rest.value(for: arg)
        guard let c = Int(v), c == 1 || c == 2 else {
          throw .usage("--channels takes 1 or 2, not '\(v)'")
        }
        channels = c
      case "--format": type = try rest.outputType(for: arg)
      case "--resampler": resampler = try rest.resampler(for: arg)
      case "--input-format": inputFormat = try rest.spec(for: arg)
      case "-h", "--help": return .help(topic: "convert")
      default:
        try rest.rejectOption(arg)
        guard input == nil else { throw .usage("convert takes one INPUT; '\(arg)' is extra") }
        input = arg
      }
    }
    guard let input else { throw .usage("convert needs an INPUT") }
    guard let output else { throw .usage("convert needs -o OUTPUT") }
    if loudness != nil && output == "-" { throw .usage(Self.loudnessToStdout) }
    var o = ConvertOptions(input: InputSpec(path: input, format: inputFormat), output: output)
    o.rate = rate
    o.channels = channels
    o.sampleType = type
    o.loudness = loudness
    o.truePeakDB = truePeak
    o.resampler = resampler
    o.phase = try Arguments.phase(phase, for: resampler)
    o.threads = threads
    return .convert(o)
  }

  /// Parses the arguments of `mix`.
  static func parseMix(_ rest: inout Arguments) throws(CLIError) -> Command {
    var app: String?
    var mic: String?
    var output: String?
    var appFormat: PCMFormat?
    var micFormat: PCMFormat?
    var options = MixOptions(app: InputSpec(path: ""), mic: InputSpec(path: ""), output: "")
    var phase: PhaseChoice?
    while let arg = rest.next() {
      switch arg {
      case "--phase": phase = try rest.phase(for: arg)
      case "--app": app = try rest.value(for: arg)
      case "--mic": mic = try rest.value(for: arg)
      case "-o", "--output": output = try rest.value(for: arg)
      case "--rate": options.rate = try rest.rate(for: arg)
      case "--policy": options.policy = try rest.policy(for: arg)
      case "--ceiling": options.ceilingDB = try rest.ceiling(for: arg)
      case "--fade": options.fadeMilliseconds = try rest.fade(for: arg)
      case "--report": options.report = try rest.value(for: arg)
      case "--json": options.json = true
      case "--app-gain": options.appGainDB = try rest.gain(for: arg)
      case "--mic-gain": options.micGainDB = try rest.gain(for: arg)
      case "--pad": options.pad = true
      case "--mic-drift": (options.micDriftPPM, options.micDriftFromEcho) = try rest.micDrift()
      case "--echo-cancel": options.echoCancellation = EchoCancellation()
      case "--duck": options.ducking = try rest.ducking()
      case "--stems": options.stems = try rest.value(for: arg)
      case "--loudness": options.loudness = try rest.number(for: arg, -70...0, "LUFS")
      case "--true-peak": options.truePeakDB = try rest.number(for: arg, -20...0, "dBTP")
      case "--format": options.sampleType = try rest.outputType(for: arg)
      case "--resampler": options.resampler = try rest.resampler(for: arg)
      case "--app-format": appFormat = try rest.spec(for: arg)
      case "--mic-format": micFormat = try rest.spec(for: arg)
      case "-h", "--help": return .help(topic: "mix")
      default:
        try rest.rejectOption(arg)
        throw .usage("mix takes its inputs as --app and --mic; '\(arg)' is extra")
      }
    }
    guard let app else { throw .usage("mix needs --app INPUT") }
    guard let mic else { throw .usage("mix needs --mic INPUT") }
    guard let output else { throw .usage("mix needs -o OUTPUT") }
    if app == "-" && mic == "-" { throw .usage("only one input can be standard input") }
    if options.loudness != nil && output == "-" { throw .usage(Self.loudnessToStdout) }
    if options.micDriftFromEcho && (app == "-" || mic == "-") {
      throw .usage("--mic-drift auto reads both inputs twice; standard input can be read once")
    }
    options.app = InputSpec(path: app, format: appFormat)
    options.mic = InputSpec(path: mic, format: micFormat)
    options.output = output
    options.phase = try Arguments.phase(phase, for: options.resampler)
    return .mix(options)
  }

  /// Parses the arguments of `demo`.
  static func parseDemo(_ rest: inout Arguments) throws(CLIError) -> Command {
    var output = "pcm-mix-demo.wav"
    while let arg = rest.next() {
      switch arg {
      case "-o", "--output": output = try rest.value(for: arg)
      case "-h", "--help": return .help(topic: "demo")
      default: throw .usage("demo takes only -o OUTPUT; '\(arg)' is extra")
      }
    }
    return .demo(output: output)
  }

  /// Parses the arguments of `replay`.
  static func parseReplay(_ rest: inout Arguments) throws(CLIError) -> Command {
    var paths: [String: String] = [:]
    var options = ReplayOptions(app: nil, mic: nil, output: "")
    var output: String?
    var phase: PhaseChoice?
    while let arg = rest.next() {
      switch arg {
      case "--phase": phase = try rest.phase(for: arg)
      case "--app", "--app-log", "--mic", "--mic-log": paths[arg] = try rest.value(for: arg)
      case "-o", "--output": output = try rest.value(for: arg)
      case "--pull": options.pullMilliseconds = try rest.pullMilliseconds(for: arg)
      case "--latency": options.latencyMilliseconds = try rest.latencyMilliseconds(for: arg)
      case "--policy": options.policy = try rest.policy(for: arg)
      case "--ceiling": options.ceilingDB = try rest.ceiling(for: arg)
      case "--fade": options.fadeMilliseconds = try rest.fade(for: arg)
      case "--app-gain": options.appGainDB = try rest.gain(for: arg)
      case "--mic-gain": options.micGainDB = try rest.gain(for: arg)
      case "--format": options.sampleType = try rest.outputType(for: arg)
      case "--resampler": options.resampler = try rest.resampler(for: arg)
      case "--drift": options.drift = try rest.drift(for: arg)
      case "--report": options.report = try rest.value(for: arg)
      case "--json": options.json = true
      case "--echo-cancel": options.echoCancellation = EchoCancellation()
      case "--duck": options.ducking = try rest.ducking()
      case "--stems": options.stems = try rest.value(for: arg)
      case "--loudness": options.loudness = try rest.number(for: arg, -70...0, "LUFS")
      case "--true-peak": options.truePeakDB = try rest.number(for: arg, -20...0, "dBTP")
      case "-h", "--help": return .help(topic: "replay")
      default:
        try rest.rejectOption(arg)
        throw .usage(
          "replay takes its inputs as --app/--app-log and --mic/--mic-log; '\(arg)' is extra")
      }
    }
    options.app = try ReplayOptions.Log.paired("app", paths)
    options.mic = try ReplayOptions.Log.paired("mic", paths)
    guard options.app != nil || options.mic != nil else {
      throw .usage("replay needs --app RAW --app-log CSV, --mic RAW --mic-log CSV, or both")
    }
    guard let output else { throw .usage("replay needs -o OUTPUT") }
    if options.loudness != nil && output == "-" { throw .usage(Self.loudnessToStdout) }
    options.output = output
    options.phase = try Arguments.phase(phase, for: options.resampler)
    let inputs = [options.app?.raw, options.app?.csv, options.mic?.raw, options.mic?.csv]
    if inputs.contains("-") { throw .usage("replay reads its logs from files, not standard input") }
    if let report = options.report, report == output {
      throw .usage("--report and -o name the same file '\(report)'")
    }
    return .replay(options)
  }
}

extension ReplayOptions.Log {
  /// The log of `side` from `--SIDE` and `--SIDE-log` in `paths` (`nil` without either);
  /// refuses one without the other.
  static func paired(_ side: String, _ paths: [String: String]) throws(CLIError) -> Self? {
    let raw = paths["--\(side)"]
    let csv = paths["--\(side)-log"]
    if raw != nil && csv == nil { throw .usage("--\(side) needs --\(side)-log CSV") }
    if csv != nil && raw == nil { throw .usage("--\(side)-log needs --\(side) RAW") }
    guard let raw, let csv else { return nil }
    return Self(raw: raw, csv: csv)
  }
}

/// The arguments still to read, with typed option values.
struct Arguments {
  var args: ArraySlice<String>

  init(_ args: ArraySlice<String>) { self.args = args }

  mutating func next() -> String? { args.popFirst() }

  /// `--mic-drift`'s value: parts per million, -1000 … 1000, or `auto` (read from the inputs).
  mutating func micDrift() throws(CLIError) -> (ppm: Double, auto: Bool) {
    if args.first == "auto" {
      args.removeFirst()
      return (0, true)
    }
    return (try number(for: "--mic-drift", -1_000...1_000, "auto or ppm"), false)
  }

  /// `--duck [DEPTH_DB]`: the ducking, with the depth when the next argument is a number.
  mutating func ducking() throws(CLIError) -> Ducking {
    var d = Ducking()
    if let v = args.first, let depth = Double(v) {
      args.removeFirst()
      guard depth.isFinite, (0...60).contains(depth) else {
        throw .usage("--duck takes a depth in dB from 0 to 60, not '\(v)'")
      }
      d.depthDB = depth
    }
    return d
  }

  mutating func value(for option: String) throws(CLIError) -> String {
    guard let v = args.popFirst() else { throw .usage("\(option) needs a value") }
    return v
  }

  mutating func rate(for option: String) throws(CLIError) -> Int {
    let v = try value(for: option)
    guard let r = Int(v), (1...PCMFormat.maxSampleRate).contains(r) else {
      throw .usage("\(option) takes a rate in 1 … \(PCMFormat.maxSampleRate) Hz, not '\(v)'")
    }
    return r
  }

  mutating func gain(for option: String) throws(CLIError) -> Double {
    let v = try value(for: option)
    guard let g = Double(v), g.isFinite, abs(g) <= 120 else {
      throw .usage("\(option) takes a gain in dB between -120 and 120, not '\(v)'")
    }
    return g
  }

  /// A mix policy: average, saturate or limit.
  mutating func policy(for option: String) throws(CLIError) -> MixPolicy {
    let v = try value(for: option)
    guard let p = MixPolicy(cliSpelling: v) else {
      throw .usage("\(option) takes average, saturate or limit, not '\(v)'")
    }
    return p
  }

  /// Whole milliseconds between pulls, 1 … 100.
  mutating func pullMilliseconds(for option: String) throws(CLIError) -> Int {
    let v = try value(for: option)
    guard let ms = Int(v), (1...100).contains(ms) else {
      throw .usage("\(option) takes whole milliseconds from 1 to 100, not '\(v)'")
    }
    return ms
  }

  /// A fixed latency in milliseconds, above 0 and at most 10,000.
  mutating func latencyMilliseconds(for option: String) throws(CLIError) -> Double {
    let v = try value(for: option)
    guard let ms = Double(v), ms.isFinite, ms > 0, ms <= 10_000 else {
      throw .usage("\(option) takes milliseconds above 0, at most 10000, not '\(v)'")
    }
    return ms
  }

  /// How replay corrects drift: off, timestamps or fill.
  mutating func drift(for option: String) throws(CLIError) -> ClockedCapturePipeline.DriftCorrection
  {
    let v = try value(for: option)
    switch v {
    case "off": return .off
    case "timestamps": return .timestamps
    case "fill": return .timestampsAndFillLevel
    default: throw .usage("\(option) takes off, timestamps or fill, not '\(v)'")
    }
  }

  mutating func ceiling(for option: String) throws(CLIError) -> Double {
    let v = try value(for: option)
    guard let db = Double(v), db.isFinite, db >= -60, db <= 0 else {
      throw .usage("\(option) takes a ceiling in dBFS between -60 and 0, not '\(v)'")
    }
    return db
  }

  /// A finite number within `range`, in `unit` (named in the error).
  mutating func number(for option: String, _ range: ClosedRange<Double>, _ unit: String)
    throws(CLIError) -> Double
  {
    let v = try value(for: option)
    guard let x = Double(v), x.isFinite, range.contains(x) else {
      throw .usage(
        "\(option) takes \(unit) between \(Int(range.lowerBound)) and \(Int(range.upperBound)),"
          + " not '\(v)'")
    }
    return x
  }

  mutating func fade(for option: String) throws(CLIError) -> Double {
    let v = try value(for: option)
    guard let ms = Double(v), ms.isFinite, ms >= 0, ms <= 1_000 else {
      throw .usage("\(option) takes milliseconds from 0 to 1000, not '\(v)'")
    }
    return ms
  }

  mutating func outputType(for option: String) throws(CLIError) -> SampleType {
    let v = try value(for: option)
    switch v {
    case "s16": return .s16
    case "f32": return .f32
    default: throw .usage("\(option) takes s16 or f32, not '\(v)'")
    }
  }

  mutating func resampler(for option: String) throws(CLIError) -> ResamplerChoice {
    let v = try value(for: option)
    guard let choice = ResamplerChoice(v) else {
      throw .usage(
        "\(option) takes builtin[:PRESET] or one of "
          + ResamplerChoice.spellings.joined(separator: " ") + ", not '\(v)'")
    }
    return choice
  }

  mutating func phase(for option: String) throws(CLIError) -> PhaseChoice {
    let v = try value(for: option)
    guard let phase = PhaseChoice(rawValue: v) else {
      throw .usage("\(option) takes linear, minimum or capture, not '\(v)'")
    }
    return phase
  }

  /// The phase to use: `given`, or linear; refused (64) with a libsamplerate converter, whose
  /// filters are linear phase and have no other.
  static func phase(_ given: PhaseChoice?, for resampler: ResamplerChoice) throws(CLIError)
    -> PhaseChoice
  {
    guard let given else { return .linear }
    guard resampler.isBuiltin else {
      throw .usage(
        "--phase applies to the built-in resampler; \(resampler.spelling) is linear phase")
    }
    return given
  }

  mutating func spec(for option: String) throws(CLIError) -> PCMFormat {
    let v = try value(for: option)
    guard let f = PCMFormat(spec: v) else {
      throw .usage(
        "\(option) '\(v)' is not TYPE:RATE:CHANNELS with TYPE one of "
          + PCMFormat.typeSpellings.joined(separator: " "))
    }
    return f
  }

  /// Throws for anything that looks like an unknown option (a lone `-` is standard input).
  func rejectOption(_ arg: String) throws(CLIError) {
    if arg.hasPrefix("-") && arg != "-" { throw .usage("unknown option '\(arg)'") }
  }
}
