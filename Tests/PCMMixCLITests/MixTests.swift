import Foundation
import PCMMix
import PCMMixCLI
import Testing

@Suite("pcm-mix mix and demo")
struct MixTests {
  /// App 44.1 kHz stereo and mic 32 kHz mono of different lengths: the output is as long as the
  /// shorter converted input, or the longer with --pad.
  @Test(
    "lengths: the shorter converted input, the longer with --pad",
    arguments: [(8_999, 7_770), (4_411, 2_000), (0, 1_000), (1, 2)])
  func lengths(_ appFrames: Int, _ micFrames: Int) throws {
    try withTempDir { dir in
      let app = stereoTone(frames: appFrames, rate: 44_100)
      let mic = (0..<micFrames).map { Int16(truncatingIfNeeded: $0 &* 37) }
      try writeFile("\(dir)/app.wav", wavS16(app, channels: 2, rate: 44_100))
      try writeFile("\(dir)/mic.wav", wavS16(mic, channels: 1, rate: 32_000))
      let appOut = Int((Double(appFrames) * 48_000 / 44_100).rounded())
      let micOut = Int((Double(micFrames) * 48_000 / 32_000).rounded())
      for (pad, expected) in [(false, min(appOut, micOut)), (true, max(appOut, micOut))] {
        let out = "\(dir)/out-\(pad).wav"
        cliOK(
          ["mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", out]
            + (pad ? ["--pad"] : []))
        let wav = try readWAV(out)
        #expect(wav.format.sampleRate == 48_000)
        #expect(wav.format.channelCount == 2)
        #expect(wav.frames == expected, "pad \(pad)")
      }
      // The same with the inputs swapped: the other side is the shorter one now.
      cliOK(["mix", "--app", "\(dir)/mic.wav", "--mic", "\(dir)/app.wav", "-o", "\(dir)/s.wav"])
      #expect(try readWAV("\(dir)/s.wav").frames == min(appOut, micOut))
      #expect(tempFiles(in: dir).isEmpty)
    }
  }

  @Test("average of two 48 kHz int16 files equals C's truncating (a + b) / 2 exactly")
  func averageBitExact() throws {
    try withTempDir { dir in
      let a = randomInt16s(2 * 5_000, seed: 21)
      var b = randomInt16s(2 * 5_000, seed: 22)
      // Every sign and parity combination, and both extremes together.
      b[0] = .min
      b[1] = .max
      b[2...9] = [.min, .max, -1, 1, 0, 1, -3, 3]
      try writeFile("\(dir)/a.wav", wavS16(a, channels: 2, rate: 48_000))
      try writeFile("\(dir)/b.wav", wavS16(b, channels: 2, rate: 48_000))
      cliOK(["mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/o.wav"])
      let out = try readWAV("\(dir)/o.wav")
      #expect(out.frames == 5_000)
      let expected = zip(a, b).map { cAverage($0, $1) }
      let got = out.int16s
      let firstDifference = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }
      #expect(got == expected, "first difference: \(String(describing: firstDifference))")
    }
  }

  @Test("--pad continues the shorter input as silence: the tail is the longer halved")
  func padTail() throws {
    try withTempDir { dir in
      let a = randomInt16s(2 * 1_000, seed: 23)
      let b = randomInt16s(2 * 600, seed: 24)
      try writeFile("\(dir)/a.wav", wavS16(a, channels: 2, rate: 48_000))
      try writeFile("\(dir)/b.wav", wavS16(b, channels: 2, rate: 48_000))
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/o.wav", "--pad",
      ])
      let got = try readWAV("\(dir)/o.wav").int16s
      let expected = a.indices.map { cAverage(a[$0], $0 < b.count ? b[$0] : 0) }
      #expect(got == expected)
    }
  }

  @Test("saturate is a + b clamped to the int16 range")
  func saturate() throws {
    try withTempDir { dir in
      let a = randomInt16s(2 * 2_000, seed: 25)
      let b = randomInt16s(2 * 2_000, seed: 26)
      try writeFile("\(dir)/a.wav", wavS16(a, channels: 2, rate: 48_000))
      try writeFile("\(dir)/b.wav", wavS16(b, channels: 2, rate: 48_000))
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/o.wav",
        "--policy", "saturate",
      ])
      let got = try readWAV("\(dir)/o.wav").int16s
      let expected = zip(a, b).map { Int16(clamping: Int32($0) + Int32($1)) }
      #expect(got == expected)
      #expect(got.contains(.max) && got.contains(.min), "the random data does clip")
    }
  }

  @Test(
    "gains: each side scaled by 10^(dB / 20) before the policy", arguments: ["average", "saturate"])
  func gains(_ policy: String) throws {
    try withTempDir { dir in
      let a = stereoTone(frames: 2_000, rate: 48_000, left: 440, right: 660, amplitude: 0.4)
      let b = stereoTone(frames: 2_000, rate: 48_000, left: 300, right: 500, amplitude: 0.3)
      try writeFile("\(dir)/a.wav", wavS16(a, channels: 2, rate: 48_000))
      try writeFile("\(dir)/b.wav", wavS16(b, channels: 2, rate: 48_000))
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/o.wav",
        "--app-gain", "-6", "--mic-gain", "3.5", "--policy", policy,
      ])
      let got = try readWAV("\(dir)/o.wav").int16s
      let ga = pow(10, -6.0 / 20)
      let gb = pow(10, 3.5 / 20)
      let scale = policy == "average" ? 0.5 : 1
      var worst = 0.0
      for i in a.indices {
        let v = (Double(a[i]) * ga + Double(b[i]) * gb) * scale
        worst = max(worst, abs(v - Double(got[i])))
      }
      #expect(worst <= 0.5 + 0.01, "worst error \(worst) LSB")
    }
  }

  @Test("a -120 dB mic gain under saturate leaves the app as it is")
  func mutedMic() throws {
    try withTempDir { dir in
      let a = randomInt16s(2 * 300, seed: 27)
      let b = randomInt16s(2 * 300, seed: 28)
      try writeFile("\(dir)/a.wav", wavS16(a, channels: 2, rate: 48_000))
      try writeFile("\(dir)/b.wav", wavS16(b, channels: 2, rate: 48_000))
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/o.wav",
        "--mic-gain", "-120", "--policy", "saturate",
      ])
      let got = try readWAV("\(dir)/o.wav").int16s
      for i in a.indices { #expect(abs(Int(got[i]) - Int(a[i])) <= 1) }
    }
  }

  @Test("--app-format and --mic-format raw inputs mix exactly as the same audio in WAVs")
  func rawInputs() throws {
    try withTempDir { dir in
      let app = stereoTone(frames: 4_410, rate: 44_100)
      let mic = (0..<3_000).map { sin(Double($0) * 0.05) * 0.25 }
      try writeFile("\(dir)/app.wav", wavS16(app, channels: 2, rate: 44_100))
      try writeFile(
        "\(dir)/mic.wav",
        wav(tag: 3, channels: 1, rate: 32_000, bits: 32, data: floatBytes(mic, bits: 32)))
      try writeFile("\(dir)/app.raw", s16Bytes(app, bigEndian: true))
      try writeFile("\(dir)/mic.raw", floatBytes(mic, bits: 32))
      for format in ["s16", "f32"] {
        cliOK([
          "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(dir)/a.wav",
          "--format", format,
        ])
        cliOK([
          "mix", "--app", "\(dir)/app.raw", "--mic", "\(dir)/mic.raw", "-o", "\(dir)/b.wav",
          "--app-format", "s16be:44100:2", "--mic-format", "f32le:32000:1", "--format", format,
        ])
        let a = try readFile("\(dir)/a.wav")
        #expect(try parseWAV(a).frames == 4_500)
        #expect(try parseWAV(a).format.sampleType == (format == "s16" ? .s16 : .f32))
        #expect(try readFile("\(dir)/b.wav") == a, "\(format)")
      }
    }
  }

  /// At 10 Hz one frame is 100 ms and the resampler's tail is over a second of output, handed
  /// over in one piece when the input ends: more than the mixer's FIFO (4,096 frames here)
  /// holds. Nothing of it may be dropped.
  @Test("a 10 Hz input whose resampler hands over seconds at once loses nothing")
  func lowRateBurst() throws {
    try withTempDir { dir in
      let app = (0..<40).map { Int16($0 * 100) }
      let mic = randomInt16s(2 * 8_000, seed: 31)
      try writeFile("\(dir)/app.wav", wavS16(app, channels: 2, rate: 10))
      try writeFile("\(dir)/mic.wav", wavS16(mic, channels: 2, rate: 4_000))
      cliOK([
        "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(dir)/o.wav",
        "--rate", "4000",
      ])
      #expect(try readWAV("\(dir)/o.wav").frames == 8_000)
      // The app alone, converted, must be what the mix holds of it.
      cliOK(["convert", "\(dir)/app.wav", "-o", "\(dir)/c.wav", "--rate", "4000"])
      let converted = try readWAV("\(dir)/c.wav").int16s
      cliOK([
        "mix", "--app", "\(dir)/app.wav", "--mic", "\(dir)/mic.wav", "-o", "\(dir)/s.wav",
        "--rate", "4000", "--policy", "saturate", "--mic-gain", "-120",
      ])
      let mixed = try readWAV("\(dir)/s.wav").int16s
      #expect(mixed.count == converted.count)
      let worst = zip(mixed, converted).map { abs(Int($0) - Int($1)) }.max() ?? 0
      #expect(worst <= 1, "the app's audio differs from its conversion by up to \(worst) LSB")
    }
  }

  @Test("--rate sets the output rate of the mix")
  func rate() throws {
    try withTempDir { dir in
      try writeFile(
        "\(dir)/a.wav", wavS16(stereoTone(frames: 4_800, rate: 48_000), channels: 2, rate: 48_000))
      try writeFile(
        "\(dir)/b.wav", wavS16(stereoTone(frames: 3_200, rate: 32_000), channels: 2, rate: 32_000))
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/b.wav", "-o", "\(dir)/o.wav",
        "--rate", "16000",
      ])
      let out = try readWAV("\(dir)/o.wav")
      #expect(out.format.sampleRate == 16_000)
      #expect(out.frames == 1_600)
    }
  }

  @Test("one input from standard input, through the executable")
  func stdinInput() throws {
    try withTempDir { dir in
      let a = randomInt16s(2 * 2_400, seed: 29)
      let b = randomInt16s(2 * 2_400, seed: 30)
      try writeFile("\(dir)/b.wav", wavS16(b, channels: 2, rate: 48_000))
      let r = try runExecutable(
        ["mix", "--app", "-", "--mic", "\(dir)/b.wav", "-o", "\(dir)/o.wav"],
        input: wavS16(a, channels: 2, rate: 48_000))
      #expect(r.status == 0)
      #expect(r.err.isEmpty)
      #expect(try readWAV("\(dir)/o.wav").int16s == zip(a, b).map { cAverage($0, $1) })
    }
  }

  @Test("demo -o - writes the WAV alone on standard output, the summary on standard error")
  func demoToStdout() throws {
    let r = try runExecutable(["demo", "-o", "-"], input: [])
    #expect(r.status == 0)
    let out = try parseWAV(r.out)
    #expect(out.format.sampleRate == 48_000 && out.format.channelCount == 2)
    #expect(r.out.count == out.dataOffset + out.frames * 4, "bytes after the audio")
    // The summary's frame count is the WAV's: nothing else was read as audio.
    #expect(r.err.contains("stereo s16, \(out.frames) frames ("), "\(r.err)")
    #expect(r.err.contains("alignment  app markers 4 of 4 within"), "\(r.err)")
  }

  @Test("demo writes a 48 kHz stereo WAV and prints its counters")
  func demo() throws {
    try withTempDir { dir in
      let r = cliOK(["demo", "-o", "\(dir)/demo.wav"])
      let out = try readWAV("\(dir)/demo.wav")
      #expect(out.format.sampleRate == 48_000)
      #expect(out.format.channelCount == 2)
      #expect(out.format.sampleType == .s16)
      #expect(out.frames > 0)
      #expect(r.out.contains("\(out.frames) frames"))
      for counter in ["alignment", "latency", "late", "peak left", "limited"] {
        #expect(r.out.contains(counter), "\(counter)")
      }
      // Every marker, written back to back from the first stamped block, within a
      // millisecond of its host time.
      for source in ["app", "mic"] {
        let line = r.out.split(separator: "\n").first { $0.contains("alignment") } ?? ""
        let found = line.components(separatedBy: "\(source) markers 4 of 4 within ")
        #expect(found.count == 2, "\(r.out)")
        let worst = Double(found.last!.prefix { $0 != " " }) ?? 99
        #expect(worst < 1, "\(source): \(worst) ms")
      }
      #expect(out.int16s.contains { $0 != 0 })
      #expect(tempFiles(in: dir).isEmpty)
    }
  }
}
