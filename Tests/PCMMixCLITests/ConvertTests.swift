import Foundation
import PCMMix
import PCMMixCLI
import Testing

@Suite("pcm-mix convert")
struct ConvertTests {
  @Test(
    "44.1 kHz → 48 kHz holds round(n × 48000 / 44100) frames",
    arguments: [0, 1, 2, 3, 441, 4_410, 11_111])
  func frameCount(_ n: Int) throws {
    try withTempDir { dir in
      try writeFile(
        "\(dir)/in.wav", wavS16(stereoTone(frames: n, rate: 44_100), channels: 2, rate: 44_100))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.format.sampleRate == 48_000)
      #expect(out.format.channelCount == 2)
      #expect(out.format.sampleType == .s16)
      #expect(out.frames == Int((Double(n) * 48_000 / 44_100).rounded()))
      // The header holds the real sizes (a data size of 0 reads as "to the end", also right).
      #expect(out.claimedFrames == (n == 0 ? nil : out.frames))
      #expect(!out.isTruncated)
      #expect(tempFiles(in: dir).isEmpty)
    }
  }

  /// Fits the tone in the output at the output sample times and compares its phase with the
  /// input tone's analytic phase at the same times: any delay left in the resampler shows as a
  /// phase offset of 2π f × delay.
  @Test("44.1 kHz → 48 kHz is time-aligned: tone phase within 1e-3 rad")
  func timeAlignment() throws {
    try withTempDir { dir in
      let (frames, fits) = try convertTonePairTo48k(dir)
      #expect(frames == 12_000)
      for (channel, fit) in fits.enumerated() {
        #expect(
          abs(fit.phaseError) < 1e-3, "channel \(channel): phase off by \(fit.phaseError) rad")
        #expect(
          abs(fit.amplitude - 0.5) < 0.01, "channel \(channel): amplitude \(fit.amplitude)")
      }
    }
  }

  @Test("48 kHz → 48 kHz s16 is bit-exact, extremes included")
  func identity() throws {
    try withTempDir { dir in
      let input = randomInt16s(2 * 4_801, seed: 1)
      try writeFile("\(dir)/in.wav", wavS16(input, channels: 2, rate: 48_000))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.frames == 4_801)
      #expect(out.int16s == input)
      // The whole file is the canonical 44-byte header and the same data.
      #expect(try readFile("\(dir)/out.wav") == wavS16(input, channels: 2, rate: 48_000))
    }
  }

  @Test("--channels 1 averages the two channels as C's (l + r) / 2")
  func mono() throws {
    try withTempDir { dir in
      let input = randomInt16s(2 * 1_000, seed: 2)
      try writeFile("\(dir)/in.wav", wavS16(input, channels: 2, rate: 48_000))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav", "--channels", "1"])
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.format.channelCount == 1)
      #expect(out.frames == 1_000)
      let expected = (0..<1_000).map { cAverage(input[2 * $0], input[2 * $0 + 1]) }
      #expect(out.int16s == expected)
    }
  }

  @Test("mono input is duplicated to both channels")
  func monoToStereo() throws {
    try withTempDir { dir in
      let input = randomInt16s(500, seed: 3)
      try writeFile("\(dir)/in.wav", wavS16(input, channels: 1, rate: 48_000))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.format.channelCount == 2)
      #expect(out.int16s == input.flatMap { [$0, $0] })
    }
  }

  @Test("--format f32 writes IEEE float with x / 32768 exactly")
  func float32() throws {
    try withTempDir { dir in
      let input = randomInt16s(2 * 700, seed: 4)
      try writeFile("\(dir)/in.wav", wavS16(input, channels: 2, rate: 48_000))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav", "--format", "f32"])
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.format.sampleType == .f32)
      #expect(out.frames == 700)
      // Tag 3 (IEEE float), 18-byte fmt with cbSize 0: no EXTENSIBLE for one or two channels.
      #expect(Array(out.header[20..<22]) == [3, 0])
      #expect(out.dataOffset == 46)
      #expect(out.float32s == input.map { Float($0) / 32_768 })
    }
  }

  @Test("--rate 44100 from 48 kHz holds round(n × 44100 / 48000) frames, tone intact")
  func downsample() throws {
    try withTempDir { dir in
      let n = 9_601
      let input = stereoTone(frames: n, rate: 48_000, phase: 1)
      try writeFile("\(dir)/in.wav", wavS16(input, channels: 2, rate: 48_000))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav", "--rate", "44100"])
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.format.sampleRate == 44_100)
      #expect(out.frames == Int((Double(n) * 44_100 / 48_000).rounded()))
      let samples = out.int16s
      let left = stride(from: 0, to: samples.count, by: 2).map { Double(samples[$0]) / 32_767 }
      let fit = fittedPhase(left, omega: 2 * .pi * 997 / 44_100, range: 441..<(out.frames - 441))
      #expect(abs(phaseDifference(fit.phase, 1)) < 1e-3)
    }
  }

  @Test("raw s16be:44100:2 input converts exactly as the same audio in a WAV")
  func rawInput() throws {
    try withTempDir { dir in
      let input = stereoTone(frames: 2_205, rate: 44_100)
      try writeFile("\(dir)/in.wav", wavS16(input, channels: 2, rate: 44_100))
      try writeFile("\(dir)/in.raw", s16Bytes(input, bigEndian: true))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/a.wav"])
      cliOK([
        "convert", "\(dir)/in.raw", "-o", "\(dir)/b.wav", "--input-format", "s16be:44100:2",
      ])
      let a = try readFile("\(dir)/a.wav")
      #expect(try parseWAV(a).frames == 2_400)
      #expect(try readFile("\(dir)/b.wav") == a)
    }
  }

  @Test("raw input that is not whole frames is refused with 65 and leaves no output")
  func rawPartialFrame() throws {
    try withTempDir { dir in
      try writeFile("\(dir)/in.raw", s16Bytes(randomInt16s(2_001, seed: 5)))
      let r = cli([
        "convert", "\(dir)/in.raw", "-o", "\(dir)/out.wav", "--input-format", "s16le:48000:2",
      ])
      #expect(r.code == 65)
      #expect(r.errLines.count == 1)
      #expect(r.err.hasPrefix("pcm-mix: \(dir)/in.raw: "))
      #expect(!exists("\(dir)/out.wav"))
      #expect(tempFiles(in: dir).isEmpty)
    }
  }

  /// One input sample type: how to write a value and what int16 it must come out as.
  struct TypeCase: Sendable, CustomTestStringConvertible {
    var name: String
    var tag: Int
    var bits: Int
    var testDescription: String { name }
  }

  @Test(
    "u8, s24, s32, f32 and f64 WAV inputs decode to the right int16",
    arguments: [
      TypeCase(name: "u8", tag: 1, bits: 8), TypeCase(name: "s24", tag: 1, bits: 24),
      TypeCase(name: "s32", tag: 1, bits: 32), TypeCase(name: "f32", tag: 3, bits: 32),
      TypeCase(name: "f64", tag: 3, bits: 64),
    ])
  func inputTypes(_ type: TypeCase) throws {
    try withTempDir { dir in
      var g = SplitMix64(seed: UInt64(type.bits * 10 + type.tag))
      // Values in [-1, 1) on the type's own grid; the expected int16 is x × 32768 rounded to
      // nearest, ties toward zero (the encoder's rule), which is exact for u8.
      let count = 2 * 600
      var data: [UInt8]
      var values: [Double]
      switch (type.tag, type.bits) {
      case (1, let bits):
        let full = 1 << (bits - 1)
        let ints = (0..<count).map { i -> Int in
          i < 2
            ? [-full, full - 1][i] : Int(truncatingIfNeeded: g.next() % UInt64(2 * full)) - full
        }
        data = intBytes(ints, bytesPerSample: bits / 8)
        values = ints.map { Double($0) / Double(full) }
      default:
        values = (0..<count).map { i in
          i < 2 ? [-1, 0.999_969_482_421_875][i] : Double(g.next() % 1_998_001) / 1e6 - 0.999
        }
        data = floatBytes(values, bits: type.bits)
      }
      try writeFile(
        "\(dir)/in.wav", wav(tag: type.tag, channels: 2, rate: 48_000, bits: type.bits, data: data))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.frames == 600)
      let got = out.int16s
      var worst = 0.0
      for (v, s) in zip(values, got) {
        worst = max(worst, abs(min(max(v * 32_768, -32_768), 32_767) - Double(s)))
      }
      // Within half an LSB plus the float32 rounding of the decoded value (2^-24 × 32768).
      #expect(worst <= 0.5 + 0.002, "\(type.name): worst error \(worst) LSB")
      if type.bits == 8 { #expect(worst == 0) }
    }
  }

  @Test("a 4-channel EXTENSIBLE s16 input keeps its first two channels")
  func extensibleInput() throws {
    try withTempDir { dir in
      let input = randomInt16s(4 * 300, seed: 6)
      let fmt = extensibleFmtBody(subTag: 1, channels: 4, rate: 48_000, bits: 16)
      try writeFile("\(dir)/in.wav", riff([("fmt ", fmt), ("data", s16Bytes(input))]))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.frames == 300)
      let expected = (0..<300).flatMap { [input[4 * $0], input[4 * $0 + 1]] }
      #expect(out.int16s == expected)
    }
  }

  @Test("chunks before data (LIST, odd-sized JUNK) are skipped")
  func extraChunks() throws {
    try withTempDir { dir in
      let input = randomInt16s(2 * 100, seed: 7)
      let file = riff([
        ("LIST", Array("INFOISFT\u{5}\0\0\0abcd\0".utf8)),
        ("fmt ", fmtBody(tag: 1, channels: 2, rate: 48_000, bits: 16)),
        ("JUNK", [1, 2, 3]),
        ("data", s16Bytes(input)),
      ])
      try writeFile("\(dir)/in.wav", file)
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      #expect(try readWAV("\(dir)/out.wav").int16s == input)
    }
  }

  @Test("a truncated WAV converts as far as it goes, warning with both frame counts")
  func truncated() throws {
    try withTempDir { dir in
      let input = randomInt16s(2 * 1_000, seed: 8)
      var file = wavS16(input, channels: 2, rate: 48_000)
      file.removeLast(4 * 400 + 1)  // 599 whole frames and half a sample remain
      try writeFile("\(dir)/in.wav", file)
      let r = cli(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      #expect(r.code == 0)
      #expect(r.errLines.count == 1)
      #expect(r.err.hasPrefix("pcm-mix: \(dir)/in.wav: "))
      #expect(r.err.contains("warning"))
      #expect(r.err.contains("599"))
      #expect(r.err.contains("1000"))
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.frames == 599)
      #expect(out.int16s == Array(input.prefix(2 * 599)))
    }
  }

  @Test("a WAV with a streaming (0xFFFFFFFF) data size reads to the end of the file")
  func streamingSizes() throws {
    try withTempDir { dir in
      let input = randomInt16s(2 * 300, seed: 9)
      let file = riff(
        [
          ("fmt ", fmtBody(tag: 1, channels: 2, rate: 48_000, bits: 16)), ("data", s16Bytes(input)),
        ],
        sizes: ["data": 0xFFFF_FFFF], riffSize: 0xFFFF_FFFF)
      try writeFile("\(dir)/in.wav", file)
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      #expect(try readWAV("\(dir)/out.wav").int16s == input)
    }
  }

  @Test("an existing output is replaced whole; no temporary file is left")
  func replacesOutput() throws {
    try withTempDir { dir in
      let input = randomInt16s(2 * 200, seed: 10)
      try writeFile("\(dir)/in.wav", wavS16(input, channels: 2, rate: 48_000))
      try writeFile("\(dir)/out.wav", Array(repeating: 0x55, count: 100_000))
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      #expect(try readFile("\(dir)/out.wav") == wavS16(input, channels: 2, rate: 48_000))
      #expect(tempFiles(in: dir).isEmpty)
    }
  }

  @Test("an output path with . and .. in it is written where it points")
  func dottedOutput() throws {
    try withTempDir { dir in
      let input = randomInt16s(2 * 50, seed: 11)
      try writeFile("\(dir)/in.wav", wavS16(input, channels: 2, rate: 48_000))
      try FileManager.default.createDirectory(
        atPath: "\(dir)/sub", withIntermediateDirectories: false)
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/sub/../sub/./out.wav"])
      #expect(try readWAV("\(dir)/sub/out.wav").int16s == input)
      #expect(tempFiles(in: "\(dir)/sub").isEmpty)
    }
  }

  @Test("relative paths, the output bare in the current folder (executable run there)")
  func relativePaths() throws {
    try withTempDir { dir in
      let input = randomInt16s(2 * 50, seed: 13)
      try writeFile("\(dir)/in.wav", wavS16(input, channels: 2, rate: 48_000))
      let r = try runExecutable(["convert", "in.wav", "-o", "out.wav"], input: [], in: dir)
      #expect(r.status == 0)
      #expect(r.err.isEmpty)
      #expect(try readWAV("\(dir)/out.wav").int16s == input)
      #expect(tempFiles(in: dir).isEmpty)
      let bad = try runExecutable(["convert", "in.wav", "-o", "in.wav"], input: [], in: dir)
      #expect(bad.status == 64)
      #expect(bad.err == "pcm-mix: in.wav: output is the same file as input 'in.wav'; refusing\n")
    }
  }

  @Test("progress only when stderr is a terminal, cleared at the end")
  func progress() throws {
    try withTempDir { dir in
      try writeFile(
        "\(dir)/in.wav", wavS16(randomInt16s(2 * 24_000, seed: 14), channels: 2, rate: 48_000))
      let quiet = cli(["convert", "\(dir)/in.wav", "-o", "\(dir)/a.wav"])
      #expect(quiet.err.isEmpty)
      let shown = cli(["convert", "\(dir)/in.wav", "-o", "\(dir)/b.wav"], terminal: true)
      #expect(shown.code == 0)
      #expect(shown.err.contains("\rconverting 20%"))
      #expect(shown.err.hasSuffix("\r\u{1B}[K"), "the progress line is cleared")
      #expect(!shown.err.contains("\n"))
      let mixed = cli(
        ["mix", "--app", "\(dir)/in.wav", "--mic", "\(dir)/in.wav", "-o", "\(dir)/c.wav"],
        terminal: true)
      #expect(mixed.err.contains("\rmixing "))
      #expect(mixed.err.hasSuffix("\r\u{1B}[K"))
    }
  }

  @Test("on a terminal, an error after progress starts its own clean line")
  func progressThenError() throws {
    try withTempDir { dir in
      // Five 100 ms blocks of raw stereo s16, then half a frame: fails at the end.
      try writeFile("\(dir)/in.raw", s16Bytes(randomInt16s(2 * 24_000 + 1, seed: 15)))
      let r = cli(
        ["convert", "\(dir)/in.raw", "--input-format", "s16le:48000:2", "-o", "\(dir)/o.wav"],
        terminal: true)
      #expect(r.code == 65)
      #expect(r.err.contains("\rconverting 20%"))
      let last = r.err.components(separatedBy: "\r\u{1B}[K").last ?? ""
      #expect(last.hasPrefix("pcm-mix: \(dir)/in.raw: raw input ends inside a frame"), "\(last)")
      #expect(last.hasSuffix("\n") && last.filter { $0 == "\n" }.count == 1)
      #expect(!exists("\(dir)/o.wav"))
    }
  }

  /// 48 kHz → 1 Hz: --rate 1 is a rate the CLI accepts, so the run must end in a WAV or a
  /// one-line error, not a crash. (It once died of SIGABRT: `PolyphaseBank` allocated an
  /// interpolated table of 2,049 rows of ~6 M taps, 49 GB. A ratio with few phases now keeps
  /// one row per phase, and the taps are capped; see `extremeDownsamplingKeepsOneRow`.) Run as
  /// a subprocess, so that a crash fails this test instead of taking the test runner down.
  @Test("48 kHz → --rate 1 does not crash")
  func extremeDownRatio() throws {
    try withTempDir { dir in
      try writeFile(
        "\(dir)/in.wav", wavS16(randomInt16s(2 * 4_800, seed: 16), channels: 2, rate: 48_000))
      let r = try runExecutable(
        ["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav", "--rate", "1"], input: [])
      #expect(r.reason == .exit, "killed by signal \(r.status): \(r.err.prefix(200))")
      if r.reason == .exit && r.status == 0 {
        #expect(try readWAV("\(dir)/out.wav").frames == 0)
      } else {
        #expect([64, 65].contains(r.status))
        #expect(r.err.hasPrefix("pcm-mix: ") && r.err.split(separator: "\n").count == 1)
        #expect(!exists("\(dir)/out.wav"))
      }
      #expect(tempFiles(in: dir).isEmpty)
    }
  }

  @Test("stdin → stdout through the executable: a pipe in, a streaming WAV out")
  func pipeThrough() throws {
    let n = 4_410
    let input = wavS16(stereoTone(frames: n, rate: 44_100), channels: 2, rate: 44_100)
    let r = try runExecutable(["convert", "-", "-o", "-"], input: input)
    #expect(r.reason == .exit)
    #expect(r.status == 0)
    #expect(r.err.isEmpty)
    let out = try parseWAV(r.out)
    #expect(out.format.sampleRate == 48_000)
    #expect(out.frames == 4_800)
    // Standard output cannot seek: the sizes stay at the streaming marker or are exact.
    let dataSize = Array(out.header.suffix(4))
    #expect(dataSize == [0xFF, 0xFF, 0xFF, 0xFF] || dataSize == le(4_800 * 4, 4))
    #expect(r.out.count == out.dataOffset + 4_800 * 4)
  }

  @Test("stdin → stdout: raw big-endian input through a pipe")
  func pipeRaw() throws {
    let samples = randomInt16s(2 * 3_333, seed: 12)
    let r = try runExecutable(
      ["convert", "-", "-o", "-", "--input-format", "s16be:48000:2"],
      input: s16Bytes(samples, bigEndian: true))
    #expect(r.status == 0)
    #expect(r.err.isEmpty)
    #expect(try parseWAV(r.out).int16s == samples)
  }
}
