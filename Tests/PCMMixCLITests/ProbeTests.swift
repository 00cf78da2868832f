import Foundation
import PCMMix
import PCMMixCLI
import Testing

@Suite("pcm-mix probe")
struct ProbeTests {
  @Test("--json prints one object per file with the spec's fields")
  func json() throws {
    try withTempDir { dir in
      try writeFile(
        "\(dir)/a.wav", wavS16(randomInt16s(2 * 4_410, seed: 1), channels: 2, rate: 44_100))
      try writeFile(
        "\(dir)/b.wav",
        wav(tag: 3, channels: 1, rate: 8_000, bits: 32, data: floatBytes([0, 0.5, -0.5], bits: 32)))
      let r = cliOK(["probe", "\(dir)/a.wav", "\(dir)/b.wav", "--json"])
      let lines = r.out.split(separator: "\n")
      #expect(lines.count == 2)
      let objects = try lines.map {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
      }
      #expect(objects[0]["path"] as? String == "\(dir)/a.wav")
      #expect(objects[0]["sampleRate"] as? Int == 44_100)
      #expect(objects[0]["channels"] as? Int == 2)
      #expect(objects[0]["sampleType"] as? String == "s16le")
      #expect(objects[0]["frames"] as? Int == 4_410)
      #expect(objects[0]["durationSeconds"] as? Double == 0.1)
      #expect(objects[1]["sampleType"] as? String == "f32le")
      #expect(objects[1]["frames"] as? Int == 3)
      #expect(objects[1]["channels"] as? Int == 1)
    }
  }

  @Test("plain output names the format; a failing file does not stop the others")
  func plainAndFailures() throws {
    try withTempDir { dir in
      try writeFile(
        "\(dir)/a.wav", wavS16(randomInt16s(2 * 48, seed: 2), channels: 2, rate: 48_000))
      let r = cli(["probe", "\(dir)/missing.wav", "\(dir)/a.wav"])
      #expect(r.code == 66)
      #expect(r.out.contains("\(dir)/a.wav: WAV s16le 48000 Hz 2 ch, 48 frames"))
      #expect(r.errLines == ["pcm-mix: \(dir)/missing.wav: No such file or directory"])
    }
  }
}
