import Foundation
import PCMMix
import Testing

/// `--policy limit`, `--ceiling`, `--fade` and the JSON summary of `mix`, and the same options
/// on `replay`.
@Suite struct LevelOptionsTests {
  static let ceiling = PCMEncoder.int16(Float(pow(10, -1.0 / 20)))

  /// A full-scale int16 sine, stereo, 48 kHz.
  static func loud(_ frames: Int, hz: Double) -> [Int16] {
    (0..<frames).flatMap { i -> [Int16] in
      let v = Int16((32_767 * sin(2 * Double.pi * hz * Double(i) / 48_000)).rounded())
      return [v, v]
    }
  }

  @Test("mix --policy limit keeps two full-scale inputs at or below the ceiling")
  func mixLimit() throws {
    try withTempDir { dir in
      try writeFile("\(dir)/a.wav", wavS16(Self.loud(24_000, hz: 997), channels: 2, rate: 48_000))
      try writeFile("\(dir)/b.wav", wavS16(Self.loud(24_000, hz: 997), channels: 2, rate: 48_000))
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/o.wav",
        "--policy", "limit", "--report", "\(dir)/r.json",
      ])
      let out = try readWAV("\(dir)/o.wav").int16s
      #expect(out.count == 48_000)
      #expect(out.map { abs(Int($0)) }.max()! <= Int(Self.ceiling))
      // Loud: most samples were turned down, and the report says so.
      let report = try #require(
        JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/r.json")))
          as? [String: Any])
      let meters = try #require(report["meters"] as? [String: Any])
      #expect((meters["limitedSamples"] as? Int ?? 0) > 40_000)
      let output = try #require(meters["output"] as? [String: Any])
      #expect((output["peakDBFS"] as? Double ?? 0) <= -0.99)
      #expect((report["app"] as? [String: Any])?["framesMixed"] as? Int == 24_000)
      // A lower ceiling is honoured too.
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/o6.wav",
        "--policy", "limit", "--ceiling", "-6",
      ])
      let ceiling6 = Int(PCMEncoder.int16(Float(pow(10, -6.0 / 20))))
      #expect(try readWAV("\(dir)/o6.wav").int16s.map { abs(Int($0)) }.max()! <= ceiling6)
    }
  }

  @Test("mix --fade fades each input in and out; without it the output is the reference's")
  func mixFade() throws {
    try withTempDir { dir in
      let a = [Int16](repeating: 8_000, count: 2 * 9_600)  // a constant: a step at each end
      let b = [Int16](repeating: -4_000, count: 2 * 4_800)
      try writeFile("\(dir)/a.wav", wavS16(a, channels: 2, rate: 48_000))
      try writeFile("\(dir)/b.wav", wavS16(b, channels: 2, rate: 48_000))
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/f.wav",
        "--fade", "10", "--pad",
      ])
      let f = try readWAV("\(dir)/f.wav").int16s
      #expect(f.count == 2 * 9_600)
      // Faded in from near zero, out to near zero at the mic's end and at the app's end.
      #expect(abs(Int(f[0])) < 20 && abs(Int(f[2 * 9_599])) < 20)
      #expect(f[2 * 240] > 0 && f[2 * 240] < 2_000)  // halfway through the fade-in
      // The mic ended at 4,800 frames, faded out: its last frame adds almost nothing.
      #expect(abs(Int(f[2 * 4_799]) - 4_000) < 50)  // the app alone (halved) after it
      // Steps stay small everywhere (a hard start or end of 8,000 / 2 would be 4,000).
      let steps = (1..<9_600).map { abs(Int(f[2 * $0]) - Int(f[2 * ($0 - 1)])) }
      #expect(steps.max()! < 100)
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/n.wav", "--pad",
      ])
      let n = try readWAV("\(dir)/n.wav").int16s
      #expect(n[0] == 2_000 && n[2 * 9_599] == 4_000)
    }
  }

  @Test("mix --json prints the summary on standard error; bad values are usage errors")
  func mixJSONAndUsage() throws {
    try withTempDir { dir in
      let a = randomInt16s(2 * 2_000, seed: 4)
      try writeFile("\(dir)/a.wav", wavS16(a, channels: 2, rate: 48_000))
      let r = cli([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/a.wav", "-o", "\(dir)/o.wav", "--json",
      ])
      #expect(r.code == 0)
      let json = try #require(
        JSONSerialization.jsonObject(with: Data(r.err.utf8)) as? [String: Any])
      #expect((json["output"] as? [String: Any])?["frames"] as? Int == 2_000)
      #expect(json["meters"] != nil)
      for bad in [
        ["--ceiling", "3"], ["--ceiling", "x"], ["--fade", "-1"], ["--policy", "loud"],
      ] {
        let r = cli(
          ["mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/a.wav", "-o", "\(dir)/x.wav"] + bad)
        #expect(r.code == 64, "\(bad)")
      }
    }
  }

  @Test("replay --policy limit: two loud stamped sources stay at or below the ceiling")
  func replayLimit() throws {
    try withTempDir { dir in
      var app = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be)
      app.tone = (frequency: 997, amplitude: 1.0)
      var mic = SimulatedSource(rate: 48_000, channels: 1, encoding: .s16le)
      mic.tone = (frequency: 997, amplitude: 1.0)
      let logs = try ReplayTests.writeLogs(dir, app: app, mic: mic, duration: 3)
      cliOK(
        ["replay"] + logs.arguments + [
          "-o", "\(dir)/o.wav", "--policy", "limit", "--resampler", "builtin:fast",
          "--report", "\(dir)/r.json",
        ])
      let out = try readWAV("\(dir)/o.wav").int16s
      #expect(out.count > 2 * 48_000 * 2)
      #expect(out.map { abs(Int($0)) }.max()! <= Int(Self.ceiling))
      let report = try #require(
        JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/r.json")))
          as? [String: Any])
      let meters = try #require(report["meters"] as? [String: Any])
      #expect((meters["limitedSamples"] as? Int ?? 0) > 100_000)
      #expect((report["settings"] as? [String: Any])?["fadeMs"] as? Double == 10)
    }
  }
}
