import Foundation
import PCMMix
import Testing

@testable import PCMMixCLI

/// `--resampler`: every backend keeps the time-alignment and length contract through the CLI.
@Suite struct ResamplerOptionTests {
  @Test(arguments: ResamplerChoice.spellings + ["builtin"])
  func parsesOnConvertAndMix(_ name: String) throws {
    let choice = try #require(ResamplerChoice(name))
    guard
      case .convert(let c) = try Command.parse([
        "convert", "in.wav", "-o", "o.wav", "--resampler", name,
      ])
    else {
      Issue.record("not convert")
      return
    }
    #expect(c.resampler == choice)
    guard
      case .mix(let m) = try Command.parse([
        "mix", "--app", "a.wav", "--mic", "m.wav", "-o", "o.wav", "--resampler", name,
      ])
    else {
      Issue.record("not mix")
      return
    }
    #expect(m.resampler == choice)
  }

  @Test(arguments: ["builtin:best", "src", "soxr-hq", ""])
  func rejectsUnknownNames(_ name: String) {
    let r = cli(["convert", "in.wav", "-o", "o.wav", "--resampler", name])
    #expect(r.code == 64)
    #expect(r.err.contains("--resampler") && r.err.contains("src-best"))
  }

  @Test func helpListsTheBackends() {
    let r = cli(["--help"])
    for name in ["builtin:fast", "builtin:high", "src-best", "src-zoh", "src-linear"] {
      #expect(r.out.contains(name), "help does not name \(name)")
    }
  }

  /// The sinc backends all give the contract's length and a time-aligned tone.
  @Test(arguments: ["builtin:fast", "builtin:balanced", "builtin:high", "src-best", "src-medium"])
  func convertIsAlignedWithEveryBackend(_ name: String) throws {
    try withTempDir { dir in
      let (frames, fits) = try convertTonePairTo48k(dir, ["--resampler", name])
      #expect(frames == 12_000)
      for (channel, fit) in fits.enumerated() {
        #expect(abs(fit.phaseError) < 1e-3, "\(name) channel \(channel)")
      }
    }
  }

  /// libsamplerate's linear and zero-order-hold converters keep the length contract.
  @Test(arguments: ["src-linear", "src-zoh"])
  func simpleConvertersKeepTheLength(_ name: String) throws {
    try withTempDir { dir in
      try writeFile(
        "\(dir)/in.wav", wavS16(stereoTone(frames: 3_000, rate: 32_000), channels: 2, rate: 32_000))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav", "--resampler", name])
      #expect(try readWAV("\(dir)/out.wav").frames == 4_500)
    }
  }
}

/// libsamplerate converts ratios from 1/256 to 256 only: outside that, `--resampler src-*` is a
/// usage error that names the input (it trapped inside libsamplerate's wrapper).
@Suite struct ResamplerRatioTests {
  @Test func libsamplerateOutsideItsRatiosIsAUsageError() throws {
    try withTempDir { dir in
      try writeFile("\(dir)/in.raw", [UInt8](repeating: 0, count: 400))
      let r = cli([
        "convert", "\(dir)/in.raw", "--input-format", "s16le:100:1", "--resampler", "src-best",
        "-o", "\(dir)/out.wav",
      ])
      #expect(r.code == 64)
      #expect(r.err.contains("\(dir)/in.raw") && r.err.contains("1/256"))
      #expect(!exists("\(dir)/out.wav"))
      #expect(tempFiles(in: dir).isEmpty)
    }
  }
}
