import Foundation
import PCMMix
import Testing

@testable import PCMMixCLI

/// `probe --loudness` against libebur128 (`TestVectors/loudness/manifest.json`), and
/// `--loudness LUFS [--true-peak DB]` on `convert` and `mix`.
@Suite struct LoudnessCommandTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
      "TestVectors/loudness")

  /// Integrated loudness, range and true peak of a WAV file, from `probe --json --loudness`.
  static func loudness(_ path: String) throws -> [String: Double] {
    let r = cliOK(["probe", "--json", "--loudness", path])
    let object = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
    let l = try #require(object?["loudness"] as? [String: Any])
    return l.compactMapValues { ($0 as? NSNumber)?.doubleValue }
  }

  @Test func probeAgreesWithLibebur128() throws {
    let data = try Data(contentsOf: Self.folder.appendingPathComponent("manifest.json"))
    let manifest = try #require(
      try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
    let entry = try #require(manifest["noise_steps_44100"])
    let l = try Self.loudness(Self.folder.appendingPathComponent("noise_steps_44100.wav").path)
    let expected = { (key: String) in (entry[key] as? NSNumber)?.doubleValue ?? .nan }
    #expect(abs(l["integratedLUFS"]! - expected("integratedLUFS")) <= 0.2)
    #expect(abs(l["rangeLU"]! - expected("rangeLU")) <= 1)
    #expect(abs(l["truePeakDBTP"]! - expected("truePeakDBTP")) <= 0.2)
    #expect(abs(l["momentaryMaxLUFS"]! - expected("momentaryMaxLUFS")) <= 0.2)
  }

  @Test func convertAndMixLandOnTheTargetUnderTheCeiling() throws {
    try withTempDir { dir in
      // Noise with a crest the limiter must take care of at -10 LUFS, and a quieter tone pair.
      var noise: [Int16] = []
      var seed: UInt64 = 7
      for i in 0..<(48_000 * 8) {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let u = Double(Int64(bitPattern: seed >> 11) % 2_000_001 - 1_000_000) / 1_000_000
        let burst = (i / 12_000) % 4 == 0 ? 1.0 : 0.2
        noise.append(Int16(u * 8_000 * burst))
      }
      try writeFile("\(dir)/noise.wav", wavS16(noise, channels: 1, rate: 48_000))
      let tone = stereoTone(frames: 44_100 * 8, rate: 44_100)
      try writeFile("\(dir)/tone.wav", wavS16(tone, channels: 2, rate: 44_100))
      for (target, ceiling) in [(-23.0, -1.0), (-10.0, -1.0), (-14.0, -2.0)] {
        let out = "\(dir)/convert\(Int(target)).wav"
        cliOK([
          "convert", "\(dir)/noise.wav", "-o", out, "--loudness", "\(target)", "--true-peak",
          "\(ceiling)",
        ])
        let l = try Self.loudness(out)
        #expect(abs(l["integratedLUFS"]! - target) <= 0.5, "convert to \(target): \(l)")
        #expect(l["truePeakDBTP"]! <= ceiling, "convert to \(target): \(l)")
      }
      cliOK([
        "mix", "--app", "\(dir)/tone.wav", "--mic", "\(dir)/noise.wav", "-o", "\(dir)/mix.wav",
        "--loudness", "-16", "--policy", "limit",
      ])
      let l = try Self.loudness("\(dir)/mix.wav")
      #expect(abs(l["integratedLUFS"]! + 16) <= 0.5, "\(l)")
      #expect(l["truePeakDBTP"]! <= -1, "\(l)")
      #expect(tempFiles(in: dir).isEmpty)
    }
  }

  @Test func loudnessNeedsAFileAndSaneValues() {
    for args in [
      ["convert", "a.wav", "-o", "-", "--loudness", "-23"],
      ["mix", "--app", "a.wav", "--mic", "b.wav", "-o", "-", "--loudness", "-16"],
      ["convert", "a.wav", "-o", "b.wav", "--loudness", "3"],
      ["convert", "a.wav", "-o", "b.wav", "--loudness", "nan"],
      ["convert", "a.wav", "-o", "b.wav", "--loudness", "-23", "--true-peak", "-30"],
    ] {
      let r = cli(args)
      #expect(r.code == 64, "\(args): \(r.err)")
    }
  }
}
