import PCMMix
import PCMMixCLI
import Testing

/// A command line and the ``Command`` it must parse to.
struct GoodLine: Sendable, CustomTestStringConvertible {
  var args: [String]
  var command: Command

  var testDescription: String { args.joined(separator: " ") }

  init(_ line: String, _ command: Command) {
    args = line.split(separator: " ").map(String.init)
    self.command = command
  }
}

/// A command line that must be refused with 64 and a message containing `message`.
struct BadLine: Sendable, CustomTestStringConvertible {
  var args: [String]
  var message: String

  var testDescription: String { args.joined(separator: " ") }

  init(_ line: String, _ message: String) {
    args = line.split(separator: " ").map(String.init)
    self.message = message
  }
}

private func convertOptions(
  _ input: String, _ output: String, format: PCMFormat? = nil, rate: Int = 48_000,
  channels: Int = 2, type: SampleType = .s16
) -> Command {
  var o = ConvertOptions(input: InputSpec(path: input, format: format), output: output)
  o.rate = rate
  o.channels = channels
  o.sampleType = type
  return .convert(o)
}

private func mixOptions(
  _ app: String, _ mic: String, _ output: String, _ change: (inout MixOptions) -> Void = { _ in }
) -> Command {
  var o = MixOptions(app: InputSpec(path: app), mic: InputSpec(path: mic), output: output)
  change(&o)
  return .mix(o)
}

private let s16be441 = PCMFormat(
  sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big)
private let f32le16k = PCMFormat(
  sampleRate: 16_000, channelCount: 1, sampleType: .f32, byteOrder: .little)

private let goodLines: [GoodLine] = [
  GoodLine("probe a.wav", .probe(paths: ["a.wav"], json: false)),
  GoodLine("probe a.wav b.wav --json", .probe(paths: ["a.wav", "b.wav"], json: true)),
  GoodLine("probe --json -", .probe(paths: ["-"], json: true)),
  GoodLine("convert in.wav -o out.wav", convertOptions("in.wav", "out.wav")),
  GoodLine("convert -o out.wav in.wav", convertOptions("in.wav", "out.wav")),
  GoodLine("convert in.wav --output out.wav", convertOptions("in.wav", "out.wav")),
  GoodLine("convert - -o -", convertOptions("-", "-")),
  GoodLine(
    "convert in.wav -o o.wav --rate 44100 --channels 1 --format f32",
    convertOptions("in.wav", "o.wav", rate: 44_100, channels: 1, type: .f32)),
  GoodLine("convert in.wav -o o.wav --rate 1", convertOptions("in.wav", "o.wav", rate: 1)),
  GoodLine(
    "convert in.wav -o o.wav --rate 768000", convertOptions("in.wav", "o.wav", rate: 768_000)),
  GoodLine(
    "convert in.raw -o o.wav --input-format s16be:44100:2",
    convertOptions("in.raw", "o.wav", format: s16be441)),
  GoodLine(
    "convert in.raw -o o.wav --input-format f32le:16000:1 --channels 2 --format s16",
    convertOptions("in.raw", "o.wav", format: f32le16k)),
  GoodLine("mix --app a.wav --mic m.wav -o o.wav", mixOptions("a.wav", "m.wav", "o.wav")),
  GoodLine("mix -o o.wav --mic m.wav --app -", mixOptions("-", "m.wav", "o.wav")),
  GoodLine(
    "mix --app a.wav --mic m.wav -o o.wav --rate 32000 --policy saturate --pad --format f32",
    mixOptions("a.wav", "m.wav", "o.wav") {
      $0.rate = 32_000
      $0.policy = .saturate
      $0.pad = true
      $0.sampleType = .f32
    }),
  GoodLine(
    "mix --app a.wav --mic m.wav -o o.wav --policy average --app-gain -6 --mic-gain 3.5",
    mixOptions("a.wav", "m.wav", "o.wav") {
      $0.appGainDB = -6
      $0.micGainDB = 3.5
    }),
  GoodLine(
    "mix --app a.wav --mic m.wav -o o.wav --mic-drift -12.5",
    mixOptions("a.wav", "m.wav", "o.wav") { $0.micDriftPPM = -12.5 }),
  GoodLine(
    "mix --app a.raw --mic m.raw -o o.wav --app-format s16be:44100:2 --mic-format f32le:16000:1",
    mixOptions("a.raw", "m.raw", "o.wav") {
      $0.app.format = s16be441
      $0.mic.format = f32le16k
    }),
  GoodLine(
    "convert in.wav -o o.wav --phase minimum",
    {
      var o = ConvertOptions(input: InputSpec(path: "in.wav"), output: "o.wav")
      o.phase = .minimum
      return .convert(o)
    }()),
  GoodLine(
    "convert in.wav -o o.wav --resampler builtin:fast --phase capture",
    {
      var o = ConvertOptions(input: InputSpec(path: "in.wav"), output: "o.wav")
      o.resampler = .builtin(preset: "fast")
      o.phase = .capture
      return .convert(o)
    }()),
  GoodLine(
    "mix --app a.wav --mic m.wav -o o.wav --phase linear", mixOptions("a.wav", "m.wav", "o.wav")),
  GoodLine(
    "mix --phase minimum --app a.wav --mic m.wav -o o.wav",
    mixOptions("a.wav", "m.wav", "o.wav") { $0.phase = .minimum }),
  GoodLine(
    "replay --app a.raw --app-log a.csv -o o.wav --phase capture",
    {
      var o = ReplayOptions(
        app: ReplayOptions.Log(raw: "a.raw", csv: "a.csv"), mic: nil, output: "o.wav")
      o.phase = .capture
      return .replay(o)
    }()),
  GoodLine("demo", .demo(output: "pcm-mix-demo.wav")),
  GoodLine("demo -o d.wav", .demo(output: "d.wav")),
  GoodLine("--help", .help(topic: nil)),
  GoodLine("-h", .help(topic: nil)),
  GoodLine("help", .help(topic: nil)),
  GoodLine("help probe", .help(topic: "probe")),
  GoodLine("help convert", .help(topic: "convert")),
  GoodLine("help mix", .help(topic: "mix")),
  GoodLine("help demo", .help(topic: "demo")),
  GoodLine("mix --help", .help(topic: "mix")),
  GoodLine("convert in.wav --help", .help(topic: "convert")),
  GoodLine("--version", .version),
  GoodLine("-V", .version),
]

private let badLines: [BadLine] = [
  BadLine("", "no command given"),
  BadLine("frobnicate", "unknown command 'frobnicate'"),
  BadLine("--frobnicate", "unknown command '--frobnicate'"),
  BadLine("help frobnicate", "no help for 'frobnicate'"),
  BadLine("probe", "probe needs at least one FILE"),
  BadLine("probe --json", "probe needs at least one FILE"),
  BadLine("probe a.wav --bogus", "unknown option '--bogus'"),
  BadLine("convert in.wav -o out.wav --bogus", "unknown option '--bogus'"),
  BadLine("convert in.wav -o", "-o needs a value"),
  BadLine("convert in.wav -o out.wav --rate", "--rate needs a value"),
  BadLine("convert in.wav -o out.wav --rate 0", "--rate takes a rate in 1 … 768000 Hz, not '0'"),
  BadLine("convert in.wav -o out.wav --rate 768001", "not '768001'"),
  BadLine("convert in.wav -o out.wav --rate abc", "not 'abc'"),
  BadLine("convert in.wav -o out.wav --rate -48000", "not '-48000'"),
  BadLine("convert in.wav -o out.wav --rate 44100.5", "not '44100.5'"),
  BadLine("convert in.wav -o out.wav --channels 3", "--channels takes 1 or 2, not '3'"),
  BadLine("convert in.wav -o out.wav --channels 0", "--channels takes 1 or 2, not '0'"),
  BadLine("convert in.wav -o out.wav --channels two", "not 'two'"),
  BadLine("convert in.wav -o out.wav --channels", "--channels needs a value"),
  BadLine("convert in.wav -o out.wav --format s24", "--format takes s16 or f32, not 's24'"),
  BadLine("convert in.wav -o out.wav --format s16le", "not 's16le'"),
  BadLine("convert in.wav -o out.wav --format", "--format needs a value"),
  BadLine("convert in.wav -o out.wav --phase mixed", "--phase takes linear, minimum or capture"),
  BadLine("convert in.wav -o out.wav --phase", "--phase needs a value"),
  BadLine(
    "convert in.wav -o out.wav --resampler src-best --phase minimum",
    "--phase applies to the built-in resampler; src-best is linear phase"),
  BadLine(
    "mix --app a.wav --mic m.wav -o o.wav --phase linear --resampler src-zoh",
    "--phase applies to the built-in resampler"),
  BadLine(
    "replay --app a.raw --app-log a.csv -o o.wav --resampler src-medium --phase minimum",
    "--phase applies to the built-in resampler"),
  BadLine("convert in.raw -o out.wav --input-format s16:44100:2", "'s16:44100:2' is not"),
  BadLine("convert in.raw -o out.wav --input-format s16le:0:2", "TYPE:RATE:CHANNELS"),
  BadLine("convert in.raw -o out.wav --input-format s16le:44100:0", "TYPE:RATE:CHANNELS"),
  BadLine("convert in.raw -o out.wav --input-format s16le:44100:65", "TYPE:RATE:CHANNELS"),
  BadLine("convert in.raw -o out.wav --input-format s16le:768001:2", "TYPE:RATE:CHANNELS"),
  BadLine("convert in.raw -o out.wav --input-format s16le:44100", "TYPE:RATE:CHANNELS"),
  BadLine("convert in.raw -o out.wav --input-format s16le:44100:2:1", "TYPE:RATE:CHANNELS"),
  BadLine("convert in.raw -o out.wav --input-format u8le:8000:1", "TYPE:RATE:CHANNELS"),
  BadLine("convert in.raw -o out.wav --input-format S16LE:8000:1", "u8 s16le s16be"),
  BadLine("convert in.raw -o out.wav --input-format", "--input-format needs a value"),
  BadLine("convert in.wav", "convert needs -o OUTPUT"),
  BadLine("convert -o out.wav", "convert needs an INPUT"),
  BadLine("convert a.wav b.wav -o out.wav", "convert takes one INPUT; 'b.wav' is extra"),
  BadLine("mix --mic m.wav -o o.wav", "mix needs --app INPUT"),
  BadLine("mix --app a.wav -o o.wav", "mix needs --mic INPUT"),
  BadLine("mix --app a.wav --mic m.wav", "mix needs -o OUTPUT"),
  BadLine("mix --app a.wav --mic m.wav -o o.wav extra.wav", "'extra.wav' is extra"),
  BadLine("mix --app - --mic - -o o.wav", "only one input can be standard input"),
  BadLine(
    "mix --app a.wav --mic m.wav -o o.wav --policy loud", "average, saturate or limit, not 'loud'"),
  BadLine("mix --app a.wav --mic m.wav -o o.wav --app-gain loud", "--app-gain takes a gain"),
  BadLine("mix --app a.wav --mic m.wav -o o.wav --mic-gain 121", "not '121'"),
  BadLine("mix --app a.wav --mic m.wav -o o.wav --mic-gain nan", "not 'nan'"),
  BadLine("mix --app a.wav --mic m.wav -o o.wav --app-gain inf", "not 'inf'"),
  BadLine("mix --app a.wav --mic m.wav -o o.wav --rate 0", "not '0'"),
  BadLine("mix --app a.wav --mic m.wav -o o.wav --app-format s8:1:1", "--app-format 's8:1:1'"),
  BadLine("mix --app a.wav --mic m.wav -o o.wav --mic-format x", "--mic-format 'x' is not"),
  BadLine("mix --app a.wav --mic m.wav -o o.wav --bogus", "unknown option '--bogus'"),
  BadLine("mix --app", "--app needs a value"),
  BadLine("demo extra", "'extra' is extra"),
  BadLine("demo -o", "-o needs a value"),
]

@Suite("Command line parsing")
struct ParseTests {
  @Test("parses to the right command", arguments: goodLines)
  func parses(_ line: GoodLine) throws {
    let command = try Command.parse(line.args[...])
    #expect(command == line.command)
  }

  @Test("refuses with 64 and names the problem", arguments: badLines)
  func refuses(_ line: BadLine) {
    #expect {
      try Command.parse(line.args[...])
    } throws: { error in
      guard let error = error as? CLIError else { return false }
      return error.code == .usage && error.line.contains(line.message) && error.path == nil
    }
  }

  @Test("a bad command line prints one line on stderr and exits 64", arguments: badLines)
  func badLineRun(_ line: BadLine) {
    let r = cli(line.args)
    #expect(r.code == 64)
    #expect(r.out.isEmpty)
    #expect(r.errLines.count == 1)
    #expect(r.err.hasPrefix("pcm-mix: "))
    #expect(r.err.contains(line.message))
  }

  @Test("the default options are those the spec gives")
  func defaults() throws {
    guard case .convert(let c) = try Command.parse(["convert", "a", "-o", "b"]) else {
      Issue.record("not convert")
      return
    }
    #expect(c.rate == 48_000 && c.channels == 2 && c.sampleType == .s16 && c.input.format == nil)
    guard case .mix(let m) = try Command.parse(["mix", "--app", "a", "--mic", "b", "-o", "c"])
    else {
      Issue.record("not mix")
      return
    }
    #expect(m.rate == 48_000 && m.policy == .average && m.sampleType == .s16 && !m.pad)
    #expect(m.appGainDB == 0 && m.micGainDB == 0 && m.micDriftPPM == 0)
  }

  @Test("every SPEC type spelling parses", arguments: PCMFormat.typeSpellings)
  func specTypes(_ type: String) throws {
    let command = try Command.parse(
      ["convert", "in.raw", "-o", "o.wav", "--input-format", "\(type):22050:1"])
    guard case .convert(let c) = command, let f = c.input.format else {
      Issue.record("no input format")
      return
    }
    #expect(f.typeSpelling == type)
    #expect(f.sampleRate == 22_050 && f.channelCount == 1)
  }

  @Test("--help prints the usage and exits 0")
  func help() {
    let r = cli(["--help"])
    #expect(r.code == 0)
    #expect(r.err.isEmpty)
    for usage in [
      "pcm-mix probe FILE", "pcm-mix convert INPUT", "pcm-mix mix --app", "pcm-mix demo",
    ] {
      #expect(r.out.contains(usage))
    }
    #expect(r.out.contains("64 usage"))
  }

  @Test("help COMMAND prints that command's usage", arguments: ["probe", "convert", "mix", "demo"])
  func helpTopic(_ topic: String) {
    let r = cli(["help", topic])
    #expect(r.code == 0)
    #expect(r.err.isEmpty)
    #expect(r.out.hasPrefix("usage: pcm-mix \(topic)"))
    if topic == "mix" {
      for option in ["--app", "--mic", "--policy", "--pad", "--app-gain", "--mic-format"] {
        #expect(r.out.contains(option))
      }
    }
  }

  @Test("--version prints the version")
  func version() {
    let r = cli(["--version"])
    #expect(r.code == 0)
    #expect(r.err.isEmpty)
    #expect(r.out.hasPrefix("pcm-mix "))
    #expect(r.out.hasSuffix("\n"))
    #expect(r.out.split(separator: "\n").count == 1)
  }
}
