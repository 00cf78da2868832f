import Foundation
import PCMMix
import PCMMixCLI
import Testing

/// The little-endian float32 file at `path`.
private func float32File(_ path: String) throws -> [Float] {
  let b = try readFile(path)
  return stride(from: 0, to: b.count - 3, by: 4).map {
    Float(
      bitPattern: UInt32(b[$0]) | UInt32(b[$0 + 1]) << 8 | UInt32(b[$0 + 2]) << 16
        | UInt32(b[$0 + 3]) << 24)
  }
}

/// Container vectors at 48 kHz (so `convert` passes their samples through) and their expected
/// samples, libsndfile's decode: (vector, channels).
private let passThroughVectors: [(String, Int)] = [
  ("rf64_float_2ch_48000", 2), ("bw64_float_2ch_48000", 2), ("rifx_float_2ch_48000", 2),
  ("caf_float_little_2ch_48000", 2), ("caf_float_big_2ch_48000", 2), ("caf_sox_s32_2ch_48000", 2),
  ("caf_sox_f64_1ch_48000", 1), ("pcm25_2ch_48000", 2), ("pcm14_2ch_48000", 2),
  ("rifx_ext_pcm16_valid16_2ch", 2), ("pcm17_1ch_48000", 1),
]

@Suite("pcm-mix with RF64, BW64, RIFX, odd-depth PCM and CAF inputs")
struct ContainerTests {
  @Test(
    "convert passes a 48 kHz file's samples through bit for bit, as libsndfile reads them",
    arguments: passThroughVectors.map(\.0))
  func convertPassesThrough(_ name: String) throws {
    let channels = passThroughVectors.first { $0.0 == name }!.1
    let ext = name.hasPrefix("caf") ? "caf" : "wav"
    let input = vectorPath("containers/\(name).\(ext)")
    let expected = try float32File(vectorPath("containers/\(name).f32"))
    try withTempDir { dir in
      cliOK(["convert", input, "-o", "\(dir)/out.wav", "--format", "f32"])
      let out = try readWAV("\(dir)/out.wav")
      let want = channels == 2 ? expected : expected.flatMap { [$0, $0] }
      #expect(out.float32s.map(\.bitPattern) == want.map(\.bitPattern))
    }
  }

  @Test("probe names the container, the stored type, valid bits, offsets and claims")
  func probeJSON() throws {
    let files = [
      "containers/caf_s8_big_1ch_8000.caf", "containers/rf64_24_6ch_48000.wav",
      "containers/rifx_pcm12_2ch.wav", "containers/rf64_stray_bytes.wav",
      "containers/caf_data_size_minus_one.caf", "containers/caf_data_past_end.caf",
    ].map(vectorPath)
    let r = cliOK(["probe", "--json"] + files)
    let objects = try r.out.split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
    }
    try #require(objects.count == 6)
    let caf = objects[0]
    #expect(caf["container"] as? String == "CAF")
    #expect(caf["sampleType"] as? String == "s8")
    #expect(caf["validBits"] as? Int == 8)
    #expect(caf["frames"] as? Int == 40)
    #expect(caf["claimedFrames"] as? Int == 40)
    #expect(caf["dataOffset"] as? Int == 4_096)
    #expect(caf["strayBytes"] as? Int == 0)
    #expect(caf["truncated"] as? Bool == false)
    #expect(objects[1]["container"] as? String == "RF64")
    #expect(objects[1]["sampleType"] as? String == "s24le")
    #expect(objects[1]["channels"] as? Int == 6)
    #expect(objects[1]["dataOffset"] as? Int == 104)
    #expect(objects[2]["container"] as? String == "RIFX")
    #expect(objects[2]["sampleType"] as? String == "s16be")
    #expect(objects[2]["validBits"] as? Int == 12)
    #expect(objects[3]["strayBytes"] as? Int == 3)
    #expect(objects[3]["truncated"] as? Bool == false)
    #expect(objects[4]["claimedFrames"] == nil)
    #expect(objects[4]["frames"] as? Int == 40)
    #expect(objects[5]["truncated"] as? Bool == true)
    #expect(objects[5]["claimedFrames"] as? Int == 540)
    // The help describes exactly the fields the JSON has.
    let help = cliOK(["help", "probe"]).out
    for key in Set(objects.flatMap(\.keys)) {
      #expect(help.contains(key), "help probe does not mention \(key)")
    }
  }

  @Test("mix takes a CAF app and an RF64 mic as it takes WAV files")
  func mixContainers() throws {
    try withTempDir { dir in
      let app = vectorPath("containers/caf_16_little_2ch_44100.caf")
      let mic = vectorPath("containers/rf64_16_2ch_44100.wav")
      cliOK(["mix", "--app", app, "--mic", mic, "-o", "\(dir)/mix.wav", "--rate", "44100"])
      // The same two files' audio in plain WAVs gives the same mix, bit for bit.
      for (name, path) in [("a", app), ("m", mic)] {
        cliOK(["convert", path, "-o", "\(dir)/\(name).wav", "--rate", "44100"])
      }
      cliOK([
        "mix", "--app", "\(dir)/a.wav", "--mic", "\(dir)/m.wav", "-o", "\(dir)/ref.wav",
        "--rate", "44100",
      ])
      let mix = try readWAV("\(dir)/mix.wav")
      #expect(mix.frames == 40)
      #expect(mix.int16s == (try readWAV("\(dir)/ref.wav")).int16s)
    }
  }

  @Test("a CAF through a pipe: its data size -1 runs to the end of standard input")
  func cafThroughPipe() throws {
    let bytes = try readFile(vectorPath("containers/caf_data_size_minus_one.caf"))
    let expected = try float32File(vectorPath("containers/caf_data_size_minus_one.f32"))
    let r = try runExecutable(
      ["convert", "-", "-o", "-", "--format", "f32", "--rate", "44100"], input: bytes)
    #expect(r.status == 0, "\(r.err)")
    #expect(r.err.isEmpty)
    #expect(try parseWAV(r.out).float32s.map(\.bitPattern) == expected.map(\.bitPattern))
  }

  @Test(
    "a data chunk with a stray byte after its last frame warns of the stray byte, not truncation")
  func strayByteWarning() throws {
    try withTempDir { dir in
      let samples = randomInt16s(2 * 3_713, seed: 40)
      let data = s16Bytes(samples) + [0x55]
      try writeFile(
        "\(dir)/in.wav",
        riff([
          (
            "fmt ",
            fmtBody(
              tag: 1, channels: 2, rate: 48_000,
              bits: 16)
          ), ("data", data),
        ]))
      let r = cli(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      #expect(r.code == 0)
      #expect(
        r.errLines == [
          "pcm-mix: \(dir)/in.wav: warning: data chunk holds 3713 frames and 1 stray byte after"
            + " them (less than one 4-byte frame), ignored"
        ])
      #expect(try readWAV("\(dir)/out.wav").int16s == samples)
      let probe = cliOK(["probe", "\(dir)/in.wav"]).out
      #expect(probe.contains("3713 frames") && probe.contains("1 stray byte(s)"), "\(probe)")
      #expect(!probe.contains("truncated"))
    }
  }

  @Test("RF64 and CAF data sizes past the end of the file: converted as far as they go, warned")
  func dataPastTheEnd() throws {
    for (name, claim) in [("rf64_data_past_end.wav", 1_040), ("caf_data_past_end.caf", 540)] {
      try withTempDir { dir in
        let r = cli(["convert", vectorPath("containers/\(name)"), "-o", "\(dir)/out.wav"])
        #expect(r.code == 0)
        #expect(r.err.contains("warning: data chunk holds 40 frames, header claims \(claim)"))
        #expect(r.err.hasSuffix("\(claim)\n"), "\(r.err)")
      }
    }
    // A claim that is not a whole number of frames says so.
    try withTempDir { dir in
      let data = s16Bytes(randomInt16s(20, seed: 41))
      try writeFile(
        "\(dir)/in.wav",
        riff(
          [
            (
              "fmt ",
              fmtBody(
                tag: 1, channels: 2, rate: 48_000,
                bits: 16)
            ), ("data", data),
          ], sizes: ["data": 43]))
      let r = cli(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"])
      #expect(r.err.contains("holds 10 frames, header claims 10 frames and 3 bytes"), "\(r.err)")
    }
  }

  @Test("an output whose size is known stays plain RIFF; one from a pipe reserves RF64's room")
  func rf64Reservation() throws {
    try withTempDir { dir in
      let samples = randomInt16s(2 * 4_800, seed: 42)
      let input = wavS16(samples, channels: 2, rate: 48_000)
      try writeFile("\(dir)/in.wav", input)
      cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/file.wav"])
      #expect(try readFile("\(dir)/file.wav") == input)
      // A streaming WAV from standard input has no length: a JUNK chunk the size of a ds64
      // comes first, the rest is the same file.
      var streaming = input
      streaming.replaceSubrange(4..<8, with: le(0xFFFF_FFFF, 4))
      streaming.replaceSubrange(40..<44, with: le(0xFFFF_FFFF, 4))
      let r = try runExecutable(["convert", "-", "-o", "\(dir)/pipe.wav"], input: streaming)
      #expect(r.status == 0, "\(r.err)")
      let piped = try readFile("\(dir)/pipe.wav")
      #expect(Array(piped[0..<4]) == Array("RIFF".utf8))
      #expect(piped.count == input.count + 36)
      #expect(Array(piped[12..<20]) == Array("JUNK".utf8) + le(28, 4))
      #expect(Array(piped[48...]) == Array(input[12...]))
      let out = try readWAV("\(dir)/pipe.wav")
      #expect(out.claimedFrames == 4_800)
      #expect(out.int16s == samples)
      // The same stream with its size in the header is bounded: no reservation.
      let sized = try runExecutable(["convert", "-", "-o", "\(dir)/sized.wav"], input: input)
      #expect(sized.status == 0)
      #expect(try readFile("\(dir)/sized.wav") == input)
    }
  }
}
