import Foundation
import PCMMix
import Testing

@testable import PCMMixCLI

/// `pcm-mix convert` cut into parts on threads: the same bytes as one thread, for every built-in
/// preset and phase, upsampling, downsampling and no resampling, mono and stereo, s16 and f32.
@Suite("pcm-mix convert in parts")
struct ConvertPartsTests {
  /// Input rate, output rate, input channels, extra options.
  static let cases: [(Int, Int, Int, [String])] = [
    (44_100, 48_000, 2, []),
    (44_100, 48_000, 2, ["--resampler", "builtin:fast"]),
    (44_100, 48_000, 2, ["--resampler", "builtin:high"]),
    (44_100, 48_000, 2, ["--phase", "minimum"]),
    (44_100, 48_000, 2, ["--phase", "capture", "--format", "f32"]),
    (32_000, 48_000, 1, []),
    (16_000, 48_000, 1, ["--channels", "1"]),
    (22_050, 48_000, 2, []),
    (96_000, 44_100, 2, ["--format", "f32"]),
    (48_000, 16_000, 2, ["--rate", "16000"]),
    (48_000, 48_000, 2, []),
  ]

  @Test("2 and 3 threads write the bytes 1 thread writes", arguments: cases.indices)
  func sameBytes(_ index: Int) throws {
    let (inRate, outRate, channels, extra) = Self.cases[index]
    // Three parts of at least four prerolls (8,232 frames at most here) each, and not a whole
    // number of periods.
    let frames = max(inRate * 33 / 10, 110_000) + 7
    let plan = ConvertParts.plan(frames: frames, inputRate: inRate, outputRate: outRate, threads: 3)
    #expect(plan?.starts.count == 3, "\(inRate) -> \(outRate): \(String(describing: plan))")
    try withTempDir { dir in
      var samples = randomInt16s(frames * channels, seed: UInt64(index))
      // Quieter noise under a loud tone, so that a misplaced sample shows in either.
      for i in samples.indices {
        let t = Double(i / channels) / Double(inRate)
        samples[i] = Int16(Double(samples[i]) / 8 + 20_000 * sin(2 * .pi * 1_000 * t))
      }
      try writeFile("\(dir)/in.wav", wavS16(samples, channels: channels, rate: inRate))
      let base = ["convert", "\(dir)/in.wav", "--rate", "\(outRate)"] + extra
      cliOK(base + ["-o", "\(dir)/one.wav", "--threads", "1"])
      let one = try readFile("\(dir)/one.wav")
      let wav = try readWAV("\(dir)/one.wav")
      #expect(wav.frames == Int((Double(frames) * Double(outRate) / Double(inRate)).rounded()))
      for threads in [2, 3] {
        cliOK(base + ["-o", "\(dir)/parts.wav", "--threads", "\(threads)"])
        let parts = try readFile("\(dir)/parts.wav")
        #expect(parts.count == one.count, "\(threads) threads")
        let differ = parts.indices.first { $0 < one.count && parts[$0] != one[$0] }
        #expect(differ == nil, "\(threads) threads: first differing byte \(differ ?? -1)")
        #expect(try readWAV("\(dir)/parts.wav").claimedFrames == wav.frames)
      }
      #expect(tempFiles(in: dir).isEmpty)
    }
  }

  @Test("the plan: parts start on whole periods, after a preroll; short or odd inputs stay whole")
  func plan() throws {
    let p = try #require(
      ConvertParts.plan(frames: 26_460_000, inputRate: 44_100, outputRate: 48_000, threads: 2))
    #expect((p.up, p.down, p.period) == (160, 147, 147))
    #expect(p.preroll == 8_232)
    #expect(p.starts == [0, 13_230_000])
    #expect(p.outputStart(1) == 14_400_000)
    #expect(p.starts.allSatisfy { $0 % p.period == 0 })
    // One thread, too short to be worth it, or a ratio whose period is too long.
    #expect(
      ConvertParts.plan(frames: 26_460_000, inputRate: 44_100, outputRate: 48_000, threads: 1)
        == nil)
    #expect(
      ConvertParts.plan(frames: 60_000, inputRate: 44_100, outputRate: 48_000, threads: 2) == nil)
    #expect(
      ConvertParts.plan(frames: 3_000_000, inputRate: 44_100, outputRate: 48_001, threads: 2)
        == nil)
  }

  @Test("a truncated file is converted whole, as far as it goes, with its warning")
  func truncatedStaysWhole() throws {
    try withTempDir { dir in
      let frames = 150_000
      var bytes = wavS16(randomInt16s(frames * 2, seed: 9), channels: 2, rate: 44_100)
      bytes.removeLast(4 * 20_000)
      try writeFile("\(dir)/in.wav", bytes)
      let r = cli(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav", "--threads", "2"])
      #expect(r.code == 0)
      #expect(r.err.contains("warning: data chunk holds 130000 frames, header claims 150000"))
      let out = try readWAV("\(dir)/out.wav")
      #expect(out.frames == Int((130_000.0 * 48_000 / 44_100).rounded()))
    }
  }

  @Test("reading by position: whole-data files only, and a file cut short under it is an I/O error")
  func readingByPosition() throws {
    try withTempDir { dir in
      let samples = randomInt16s(2 * 1_000, seed: 3)
      try writeFile("\(dir)/in.wav", wavS16(samples, channels: 2, rate: 44_100))
      var cut = wavS16(samples, channels: 2, rate: 44_100)
      cut.removeLast(4)
      try writeFile("\(dir)/cut.wav", cut)
      let cutFile = try InputFile.open(InputSpec(path: "\(dir)/cut.wav"))
      #expect(cutFile.wholeDataFrames == nil)
      cutFile.close()
      let input = try InputFile.open(InputSpec(path: "\(dir)/in.wav"))
      defer { input.close() }
      #expect(input.wholeDataFrames == 1_000)
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 * 600, alignment: 16)
      defer { buffer.deallocate() }
      // Frames 900 ..< 1000, the last: what is left, then nothing.
      #expect(try input.readFrames(at: 900, into: buffer) == 100)
      #expect(Array(buffer.bindMemory(to: Int16.self).prefix(200)) == Array(samples[1_800...]))
      #expect(try input.readFrames(at: 1_000, into: buffer) == 0)
      // The file loses its last 500 frames after it was opened.
      #expect(truncate("\(dir)/in.wav", off_t(44 + 4 * 500)) == 0)
      do throws(CLIError) {
        _ = try input.readFrames(at: 400, into: buffer)
        Issue.record("reading past the cut did not fail")
      } catch {
        #expect(error.code == .io)
        #expect(error.message.contains("the input ended early"), "\(error.message)")
      }
    }
  }

  @Test("--threads takes a count from 1 to 64")
  func threadsOption() {
    for bad in ["0", "65", "two", "-1"] {
      let r = cli(["convert", "in.wav", "-o", "out.wav", "--threads", bad])
      #expect(r.code == 64, "--threads \(bad)")
      #expect(r.err.contains("--threads takes a count from 1 to 64"), "--threads \(bad): \(r.err)")
    }
  }
}
