import Foundation
import PCMMix
import PCMMixCLI
import PCMMixTestSupport
import Testing

/// `--echo-cancel` and `--stems` on `mix` and `replay`, with an echo scene written to files: the
/// contract `pcm-mix mix --app APP.wav --mic MIC.wav -o OUT.wav --echo-cancel --stems DIR`.
@Suite struct EchoCommandTests {
  static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
      "TestVectors/echo")

  /// 48 kHz mono float32 WAV bytes.
  static func floatWAV(_ x: [Float]) -> [UInt8] {
    wav(tag: 3, channels: 1, rate: 48_000, bits: 32, data: floatBytes(x.map(Double.init), bits: 32))
  }

  /// The mid channel of a stereo stem.
  static func mid(_ path: String) throws -> [Float] {
    let s = try readWAV(path).samples
    return stride(from: 0, to: s.count - 1, by: 2).map { 0.5 * (s[$0] + s[$0 + 1]) }
  }

  /// Float files can hold any value. Bursts of NaN, ±∞, 10³⁰ and −3·10³⁸ in both, the mic's
  /// 0.4 s or more after the app's last (no pair reads as an echo): the output file holds no NaN
  /// or ∞, and the mic stem keeps the contract's figures. Before, the echo canceller's sums
  /// overflowed and every sample after the app's first burst was NaN, and with equal rates
  /// (nothing resampled) each NaN went straight into the output.
  @Test func mixTakesAnyFloatValueInEitherFile() throws {
    let scene = try EchoScene(
      content: .speech, outputLatency: 0.03, room: "rt02", nonlinear: false, assets: Self.assets)
    let (app, mic) = scene.withHostileSamples()
    try withTempDir { dir in
      try writeFile("\(dir)/app.wav", Self.floatWAV(app))
      try writeFile("\(dir)/mic.wav", Self.floatWAV(mic))
      cliOK([
        "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(dir)/out.wav",
        "--echo-cancel", "--stems", "\(dir)/stems", "--format", "f32",
      ])
      let out = try readWAV("\(dir)/out.wav").samples
      #expect(out.count == 2 * scene.mic.count && out.allSatisfy { $0.isFinite })
      let m = EchoSceneMetrics(scene: scene, output: try Self.mid("\(dir)/stems/mic.wav"))
      #expect(m.erleAfter >= 25)
      #expect(m.doubleTalkSISDR >= 15)
    }
  }

  @Test func mixCancelsTheEchoAndWritesStemsOnTheTimeline() throws {
    let scene = try EchoScene(
      content: .speech, outputLatency: 0.03, room: "rt02", nonlinear: false, assets: Self.assets)
    try withTempDir { dir in
      try writeFile("\(dir)/app.wav", Self.floatWAV(scene.app))
      try writeFile("\(dir)/mic.wav", Self.floatWAV(scene.mic))
      cliOK([
        "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(dir)/out.wav",
        "--echo-cancel", "--stems", "\(dir)/stems", "--format", "f32", "--report",
        "\(dir)/report.json",
      ])
      let mic = try Self.mid("\(dir)/stems/mic.wav")
      let app = try Self.mid("\(dir)/stems/app.wav")
      #expect(mic.count == scene.mic.count && app.count == scene.app.count)
      // The app stem is the app; the mic stem the mic without its echo, on the timeline.
      #expect(EchoSceneMetrics.siSDR(app, scene.app) >= 100)
      let m = EchoSceneMetrics(scene: scene, output: mic)
      #expect(m.erleBefore >= 25 && m.erleAfter >= 25)
      #expect(m.doubleTalkSISDR >= 15)
      #expect(m.talkerAloneSISDR >= 25)
      #expect(abs(m.talkerLevel) <= 1)
      // The output is the average of the stems.
      let out = try readWAV("\(dir)/out.wav").samples
      var worst: Float = 0
      for i in 0..<mic.count {
        let expected: Float = 0.5 * (app[i] + mic[i])
        worst = max(worst, abs(out[2 * i] - expected))
      }
      #expect(worst <= 1e-6)
      let report = String(decoding: try readFile("\(dir)/report.json"), as: UTF8.self)
      #expect(report.contains("\"isBypassed\": false"))
      #expect(report.contains("\"delay\": 0.031"))
      #expect(tempFiles(in: dir).isEmpty && tempFiles(in: "\(dir)/stems").isEmpty)
    }
  }

  @Test func withoutAnEchoTheMicStemIsTheMic() throws {
    let scene = try EchoScene(
      content: .speech, outputLatency: 0.03, room: "rt02", nonlinear: false, headphones: true,
      assets: Self.assets)
    try withTempDir { dir in
      try writeFile("\(dir)/app.wav", Self.floatWAV(scene.app))
      try writeFile("\(dir)/mic.wav", Self.floatWAV(scene.mic))
      for echo in [true, false] {
        cliOK(
          [
            "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(dir)/\(echo).wav",
            "--stems", "\(dir)/\(echo)", "--format", "f32",
          ] + (echo ? ["--echo-cancel"] : []))
      }
      #expect(try readWAV("\(dir)/true.wav").data.elementsEqual(readWAV("\(dir)/false.wav").data))
      let mic = try Self.mid("\(dir)/true/mic.wav")
      #expect(mic.elementsEqual(scene.mic))
    }
  }

  /// `mix --duck` with and without `--echo-cancel` on the speech scene: the app stem (after the
  /// ducking) against the raw app per 20 ms, as `DuckingTests` measures the pipeline's.
  @Test(arguments: [true, false])
  func mixDucksTheAppUnderTheTalkerAndNotUnderItsEcho(cancel: Bool) throws {
    let scene = try EchoScene(
      content: .speech, outputLatency: 0.03, room: "rt02", nonlinear: false, assets: Self.assets)
    try withTempDir { dir in
      try writeFile("\(dir)/app.wav", Self.floatWAV(scene.app))
      try writeFile("\(dir)/mic.wav", Self.floatWAV(scene.mic))
      cliOK(
        [
          "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(dir)/out.wav",
          "--duck", "--stems", "\(dir)/stems", "--format", "f32",
        ] + (cancel ? ["--echo-cancel"] : []))
      let app = try Self.mid("\(dir)/stems/app.wav")
      #expect(app.count == scene.app.count)
      let m = DuckingMetrics(scene: scene, appStem: app)
      let q = DuckingMetrics.quantile
      print(
        "mix --duck\(cancel ? " --echo-cancel" : ""): app alone median \(q(m.appOnly, 0.5)) dB, "
          + "5 % \(q(m.appOnly, 0.05)) dB; talking median \(q(m.talking, 0.5)) dB; onsets \(m.onsets)"
      )
      #expect(q(m.appOnly, 0.5) >= -0.5)
      #expect(q(m.appOnly, 0.05) >= -1.5)
      #expect(q(m.talking, 0.5) <= -8.5)
      #expect(!m.onsets.isEmpty && m.onsets.allSatisfy { ($0 ?? .infinity) <= 100 })
      #expect(m.pumps == 0)
      // Without cancellation the mic stem is the mic as it came: the detector only listens.
      if !cancel { #expect(try Self.mid("\(dir)/stems/mic.wav").elementsEqual(scene.mic)) }
    }
  }

  @Test func aStemsPathThatIsAFileIsRefusedAndNothingIsWritten() throws {
    try withTempDir { dir in
      let tone = stereoTone(frames: 4_800, rate: 48_000)
      try writeFile("\(dir)/app.wav", wavS16(tone, channels: 2, rate: 48_000))
      try writeFile("\(dir)/stems", [1, 2, 3])
      let r = cli([
        "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/app.wav", "-o", "\(dir)/out.wav",
        "--stems", "\(dir)/stems",
      ])
      #expect(r.code == 73)
      #expect(r.err.contains("\(dir)/stems"))
      #expect(!exists("\(dir)/out.wav"))
      #expect(try readFile("\(dir)/stems") == [1, 2, 3])
    }
  }
}

@Suite struct DuckOptionTests {
  static let logs = ["replay", "--app", "a.raw", "--app-log", "a.csv", "-o", "o.wav"]

  @Test func duckTakesAnOptionalDepth() throws {
    guard case .replay(let plain) = try Command.parse(ArraySlice(Self.logs + ["--duck"])) else {
      Issue.record("not a replay")
      return
    }
    #expect(plain.ducking == Ducking())
    guard
      case .replay(let deep) = try Command.parse(
        ArraySlice(Self.logs + ["--duck", "18", "--echo-cancel"]))
    else {
      Issue.record("not a replay")
      return
    }
    #expect(deep.ducking?.depthDB == 18)
    #expect(deep.echoCancellation != nil)
    #expect(throws: CLIError.self) { try Command.parse(ArraySlice(Self.logs + ["--duck", "99"])) }
    guard
      case .mix(let mix) = try Command.parse(
        ["mix", "--app", "a.wav", "--mic", "m.wav", "-o", "o.wav", "--duck", "6"])
    else {
      Issue.record("not a mix")
      return
    }
    #expect(mix.ducking?.depthDB == 6 && mix.echoCancellation == nil)
  }
}
