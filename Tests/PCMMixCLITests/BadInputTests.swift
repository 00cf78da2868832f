import Foundation
import PCMMix
import PCMMixCLI
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One failing run: files to make in the test's folder, the command line (`$D` is that folder),
/// and what must come out: the exit code, a substring of the one stderr line, and the file that
/// line names.
struct BadCase: Sendable, CustomTestStringConvertible {
  var name: String
  var setup: @Sendable (String) throws -> Void
  var args: [String]
  var code: Int32
  var message: String
  /// The path the stderr line must name (`$D` for the folder); nil for usage errors.
  var path: String?
  /// The output the command names, when it is a regular file path: before one of the two runs
  /// of each case a file is put there first, and it must come through unchanged.
  var output: String?

  var testDescription: String { name }
}

/// A valid 48 kHz stereo s16 WAV of 100 frames (44-byte header).
private let goodWAV = wavS16(randomInt16s(200, seed: 99), channels: 2, rate: 48_000)

/// `files` written into the folder, by name.
private func files(_ files: [String: [UInt8]]) -> @Sendable (String) throws -> Void {
  { dir in for (name, bytes) in files { try writeFile("\(dir)/\(name)", bytes) } }
}

/// `convert $D/in.wav -o $D/out.wav` on `bytes`, failing with 65 and `message`.
private func convertCase(_ name: String, _ bytes: [UInt8], _ message: String) -> BadCase {
  BadCase(
    name: name, setup: files(["in.wav": bytes]),
    args: ["convert", "$D/in.wav", "-o", "$D/out.wav"], code: 65, message: message,
    path: "$D/in.wav", output: "$D/out.wav")
}

/// A WAV whose `fmt ` chunk body is `fmt`, followed by 400 bytes of data.
private func fmtCase(_ name: String, _ fmt: [UInt8], _ message: String) -> BadCase {
  convertCase(name, riff([("fmt ", fmt), ("data", Array(repeating: 0, count: 400))]), message)
}

/// A PCM `fmt ` body for 2 channels of 16 bits at 48 kHz, with `tag`.
private func tagged(_ tag: Int, bits: Int = 16) -> [UInt8] {
  fmtBody(tag: tag, channels: 2, rate: 48_000, bits: bits, blockAlign: 2 * max(1, bits / 8))
}

private let truncatedHeader = "the input ends inside the WAV header"
private let s16fmt = fmtBody(tag: 1, channels: 2, rate: 48_000, bits: 16)
private let someData = Array(repeating: UInt8(0), count: 400)

/// An input that cannot be read: chmod 000 for an ordinary user; as root (where chmod 000 does
/// not stop reading) a path that runs through a regular file, which fails with ENOTDIR.
private let unreadableCase: BadCase =
  geteuid() == 0
  ? BadCase(
    name: "unreadable input (as root: a path through a file, ENOTDIR)",
    setup: files(["plain.wav": goodWAV]),
    args: ["convert", "$D/plain.wav/x.wav", "-o", "$D/out.wav"], code: 66,
    message: "Not a directory", path: "$D/plain.wav/x.wav", output: "$D/out.wav")
  : BadCase(
    name: "unreadable input (chmod 000)",
    setup: { dir in
      try writeFile("\(dir)/locked.wav", goodWAV)
      _ = chmod("\(dir)/locked.wav", 0)
    },
    args: ["convert", "$D/locked.wav", "-o", "$D/out.wav"], code: 66,
    message: "Permission denied", path: "$D/locked.wav", output: "$D/out.wav")

private let badCases: [BadCase] = [
  // Truncated headers, at named places (every byte is covered by `everyHeaderByte` below).
  convertCase("empty file", [], truncatedHeader),
  convertCase("cut after 3 bytes (\"RIF\")", Array(goodWAV.prefix(3)), truncatedHeader),
  convertCase("cut after 8 bytes (RIFF and its size)", Array(goodWAV.prefix(8)), truncatedHeader),
  convertCase("cut inside the form type", Array(goodWAV.prefix(11)), truncatedHeader),
  convertCase("cut after WAVE: no chunks", Array(goodWAV.prefix(12)), "no fmt chunk"),
  convertCase("cut inside the fmt chunk header", Array(goodWAV.prefix(16)), truncatedHeader),
  convertCase("cut inside the fmt body", Array(goodWAV.prefix(30)), truncatedHeader),
  convertCase("cut after the fmt chunk", Array(goodWAV.prefix(36)), "no data chunk"),
  convertCase("cut inside the data chunk header", Array(goodWAV.prefix(41)), truncatedHeader),
  // Chunk sizes past the end of the file.
  convertCase(
    "fmt chunk size larger than the file",
    riff([("fmt ", s16fmt), ("data", someData)], sizes: ["fmt ": 100_000]), truncatedHeader),
  convertCase(
    "fmt chunk size 0xFFFFFFFF",
    riff([("fmt ", s16fmt), ("data", someData)], sizes: ["fmt ": 0xFFFF_FFFF]), truncatedHeader),
  convertCase(
    "LIST chunk size larger than the file",
    riff([("LIST", [1, 2, 3, 4]), ("fmt ", s16fmt), ("data", someData)], sizes: ["LIST": 5_000]),
    truncatedHeader),
  convertCase(
    "LIST chunk size 0xFFFFFFFF",
    riff(
      [("LIST", [1, 2, 3, 4]), ("fmt ", s16fmt), ("data", someData)],
      sizes: ["LIST": 0xFFFF_FFFF]), truncatedHeader),
  // The fmt chunk missing, short or misplaced.
  convertCase("fmt missing: only data", riff([("data", someData)]), "data chunk comes before"),
  convertCase("fmt missing: only LIST", riff([("LIST", [1, 2, 3, 4])]), "no fmt chunk"),
  convertCase(
    "fmt after data", riff([("data", someData), ("fmt ", s16fmt)]), "data chunk comes before"),
  convertCase("no data chunk", riff([("fmt ", s16fmt), ("LIST", [1, 2])]), "no data chunk"),
  fmtCase(
    "fmt too short (14 bytes)", Array(s16fmt.prefix(14)), "fmt chunk of 14 bytes is too short"),
  fmtCase("fmt empty (0 bytes)", [], "fmt chunk of 0 bytes is too short"),
  fmtCase(
    "EXTENSIBLE fmt too short (18 bytes)",
    fmtBody(tag: 0xFFFE, channels: 2, rate: 48_000, bits: 16, cbSize: 22),
    "fmt chunk of 18 bytes is too short"),
  // Impossible values.
  fmtCase(
    "zero channels", fmtBody(tag: 1, channels: 0, rate: 48_000, bits: 16, blockAlign: 4),
    "channel count is 0"),
  fmtCase(
    "65 channels", fmtBody(tag: 1, channels: 65, rate: 48_000, bits: 16), "channel count 65"),
  fmtCase(
    "zero sample rate", fmtBody(tag: 1, channels: 2, rate: 0, bits: 16), "sample rate 0 Hz"),
  fmtCase(
    "sample rate 768001", fmtBody(tag: 1, channels: 2, rate: 768_001, bits: 16),
    "sample rate 768001 Hz"),
  fmtCase(
    "sample rate 0xFFFFFFFF", fmtBody(tag: 1, channels: 2, rate: 0xFFFF_FFFF, bits: 16),
    "sample rate 4294967295 Hz"),
  fmtCase(
    "block align 6 for stereo s16",
    fmtBody(tag: 1, channels: 2, rate: 48_000, bits: 16, blockAlign: 6),
    "block align is 6 bytes, expected 4"),
  fmtCase(
    "block align 0", fmtBody(tag: 1, channels: 2, rate: 48_000, bits: 16, blockAlign: 0),
    "block align is 0 bytes, expected 4"),
  fmtCase(
    "block align 8 for stereo s24 (24-in-32)",
    fmtBody(tag: 1, channels: 2, rate: 48_000, bits: 24, blockAlign: 8),
    "block align is 8 bytes, expected 6"),
  fmtCase("40-bit PCM (no container holds it)", tagged(1, bits: 40), "40-bit PCM"),
  fmtCase(
    "12-bit PCM in 1-byte containers (block align 2 for stereo)", tagged(1, bits: 12),
    "block align is 2 bytes, expected 4"),
  fmtCase("16-bit float", tagged(3, bits: 16), "16-bit float"),
  fmtCase(
    "EXTENSIBLE valid bits above the container",
    extensibleFmtBody(subTag: 1, channels: 2, rate: 48_000, bits: 16, validBits: 24),
    "24-bit PCM"),
  // Codecs this tool does not decode: the message names them.
  fmtCase("mu-law", tagged(7, bits: 8), "mu-law"),
  fmtCase("A-law", tagged(6, bits: 8), "A-law"),
  fmtCase("MS ADPCM", tagged(2, bits: 4), "ADPCM"),
  fmtCase("IMA ADPCM", tagged(0x11, bits: 4), "IMA ADPCM"),
  fmtCase("MPEG", tagged(0x50), "MPEG"),
  fmtCase("MPEG Layer 3", tagged(0x55), "MPEG Layer 3"),
  fmtCase(
    "EXTENSIBLE mu-law", extensibleFmtBody(subTag: 7, channels: 2, rate: 48_000, bits: 8),
    "mu-law"),
  fmtCase(
    "EXTENSIBLE with a foreign sub-format GUID",
    extensibleFmtBody(
      subTag: 1, channels: 2, rate: 48_000, bits: 16, guidTail: Array(repeating: 7, count: 14)),
    "extensible subformat"),
  fmtCase("unknown format tag", tagged(0x1234), "format tag 0x1234"),
  // Not WAV at all.
  convertCase("text, not RIFF", Array("hello, this is not audio\n".utf8), "not a WAV file"),
  convertCase(
    "RIFX whose fields are little-endian (a RIFF file relabelled)",
    riff([("fmt ", s16fmt), ("data", someData)], magic: "RIFX"),
    "unsupported encoding (format tag 0x0100)"),
  convertCase(
    "RIFX whose chunk sizes are little-endian (its fmt chunk reads as 256 MiB)",
    Array("RIFX".utf8) + be(436, 4) + Array("WAVEfmt ".utf8) + le(16, 4)
      + be(1, 2) + be(2, 2) + be(48_000, 4) + be(192_000, 4) + be(4, 2) + be(16, 2)
      + Array("data".utf8) + le(400, 4) + someData, truncatedHeader),
  convertCase("RIFF but AVI", riff([("LIST", [1, 2])], form: "AVI "), "not \"WAVE\""),
  // RF64 and BW64: the ds64 chunk.
  convertCase(
    "RF64 whose ds64 chunk is 20 bytes",
    rf64([("fmt ", s16fmt), ("data", someData)], dataSize: 400, ds64Size: 20), "ds64 chunk of 20"),
  convertCase(
    "RF64 whose ds64 table is longer than its chunk",
    rf64(
      [("fmt ", s16fmt), ("data", someData)], dataSize: 400, table: [("JUNK", 4)], ds64Size: 28),
    "ds64 chunk of 28 bytes is too short"),
  convertCase(
    "RF64 cut inside its ds64 chunk",
    Array(rf64([("fmt ", s16fmt), ("data", someData)], dataSize: 400).prefix(30)), truncatedHeader),
  convertCase(
    "RF64 without a ds64 chunk",
    riff([("fmt ", s16fmt), ("data", someData)], sizes: ["data": 0xFFFF_FFFF], magic: "RF64"),
    "no ds64 chunk"),
  convertCase(
    "BW64 whose ds64 table sizes a chunk past the end of the file",
    rf64(
      [("JUNK", [1, 2]), ("fmt ", s16fmt), ("data", someData)], dataSize: 400,
      table: [("JUNK", 1 << 40)], wide: ["JUNK", "data"], magic: "BW64"), truncatedHeader),
  // RIFX: every field big-endian.
  convertCase(
    "RIFX EXTENSIBLE whose sub-format GUID is little-endian",
    rifx([
      (
        "fmt ",
        be(0xFFFE, 2) + be(2, 2) + be(48_000, 4) + be(192_000, 4) + be(4, 2) + be(16, 2)
          + be(22, 2) + be(16, 2) + be(3, 4) + le(1, 4) + le(0, 2) + le(0x10, 2)
          + [0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]
      ), ("data", someData),
    ]), "extensible subformat"),
  convertCase(
    "RIFX whose fmt chunk is 14 bytes",
    rifx([("fmt ", be(1, 2) + be(2, 2) + be(48_000, 4) + be(192_000, 4) + be(4, 2))]),
    "fmt chunk of 14 bytes is too short"),
  // CAF: the desc chunk and the chunk sizes.
  convertCase(
    "CAF encoded as AAC",
    caf(
      cafDesc(
        rate: 44_100, formatID: "aac ", bytesPerPacket: 0,
        framesPerPacket: 1024, channels: 2, bits: 0), data: someData),
    "unsupported CAF encoding AAC ('aac ')"),
  convertCase(
    "CAF encoded as Apple Lossless",
    caf(
      cafDesc(
        rate: 44_100, formatID: "alac",
        bytesPerPacket: 0, framesPerPacket: 4096, channels: 2, bits: 0), data: someData),
    "Apple Lossless"),
  convertCase(
    "CAF whose desc says 6 bytes per packet for stereo s16",
    caf(cafDesc(rate: 48_000, bytesPerPacket: 6, channels: 2, bits: 16), data: someData),
    "6 bytes per packet for 2 channels of 16 bits (4 expected)"),
  convertCase(
    "CAF whose desc says 4 channels in a 4-byte s16 packet",
    caf(cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 4, bits: 16), data: someData),
    "4 bytes per packet for 4 channels"),
  convertCase(
    "CAF whose desc says 0 frames per packet",
    caf(
      cafDesc(rate: 48_000, bytesPerPacket: 4, framesPerPacket: 0, channels: 2, bits: 16),
      data: someData), "0 frames per packet"),
  convertCase(
    "CAF at 44100.5 Hz",
    caf(cafDesc(rate: 44_100.5, bytesPerPacket: 4, channels: 2, bits: 16), data: someData),
    "sample rate 44100.5 Hz is not a whole number"),
  convertCase(
    "CAF at 1 MHz",
    caf(cafDesc(rate: 1_000_000, bytesPerPacket: 4, channels: 2, bits: 16), data: someData),
    "sample rate 1000000 Hz is outside"),
  convertCase(
    "CAF with 12-bit integer samples",
    caf(cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 12), data: someData),
    "12-bit integer samples"),
  convertCase(
    "CAF whose first chunk is not desc",
    caf(cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 16), data: someData).prefix(8)
      + Array("free".utf8) + be(0, 8)
      + caf(cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 16), data: someData)
      .dropFirst(8), "does not start with a desc chunk"),
  convertCase(
    "CAF cut inside its desc chunk",
    Array(
      caf(cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 16), data: someData)
        .prefix(30)), "ends inside the CAF header"),
  convertCase(
    "CAF whose desc chunk claims more bytes than the file holds",
    Array(
      Array("caff".utf8) + be(1, 2) + be(0, 2) + Array("desc".utf8) + be(5_000, 8)
        + cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 16).dropFirst(12)
        + someData), "ends inside the CAF header"),
  convertCase(
    "CAF whose free chunk runs past the end of the file",
    caf(
      cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 16),
      chunks: [("free", [0, 0])], data: someData, sizes: ["free": 1 << 40]),
    "ends inside the CAF header"),
  convertCase(
    "CAF with a negative chunk size",
    caf(
      cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 16),
      chunks: [("free", [0, 0])], data: someData, sizes: ["free": -5]),
    "the CAF chunk 'free' has an invalid size -5"),
  convertCase(
    "CAF data chunk too small for its edit count",
    caf(
      cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 16), data: someData,
      dataSize: 2), "the CAF chunk 'data' has an invalid size 2"),
  convertCase(
    "CAF without a data chunk",
    Array("caff".utf8) + be(1, 2) + be(0, 2)
      + cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 16), "no data chunk"),
  convertCase(
    "CAF version 2",
    Array("caff".utf8) + be(2, 2) + be(0, 2)
      + cafDesc(rate: 48_000, bytesPerPacket: 4, channels: 2, bits: 16),
    "unsupported CAF file version 2"),
  BadCase(
    name: "probe: CAF in mu-law",
    setup: files([
      "a.caf": caf(
        cafDesc(rate: 8_000, formatID: "ulaw", bytesPerPacket: 1, channels: 1, bits: 8),
        data: someData)
    ]),
    args: ["probe", "$D/a.caf"], code: 65, message: "unsupported CAF encoding mu-law ('ulaw')",
    path: "$D/a.caf", output: nil),
  BadCase(
    name: "mix: a CAF mic whose desc lies",
    setup: files([
      "a.wav": goodWAV,
      "m.caf": caf(cafDesc(rate: 48_000, bytesPerPacket: 3, channels: 1, bits: 16), data: someData),
    ]),
    args: ["mix", "--app", "$D/a.wav", "--mic", "$D/m.caf", "-o", "$D/out.wav"], code: 65,
    message: "3 bytes per packet", path: "$D/m.caf", output: "$D/out.wav"),
  // Inputs that cannot be opened.
  BadCase(
    name: "input is a directory",
    setup: { dir in
      try FileManager.default.createDirectory(
        atPath: "\(dir)/d.wav", withIntermediateDirectories: false)
    },
    args: ["convert", "$D/d.wav", "-o", "$D/out.wav"], code: 66, message: "is a directory",
    path: "$D/d.wav", output: "$D/out.wav"),
  BadCase(
    name: "input missing", setup: files([:]),
    args: ["convert", "$D/missing.wav", "-o", "$D/out.wav"], code: 66,
    message: "No such file or directory", path: "$D/missing.wav", output: "$D/out.wav"),
  unreadableCase,
  // Outputs that cannot be made.
  BadCase(
    name: "output folder does not exist", setup: files(["in.wav": goodWAV]),
    args: ["convert", "$D/in.wav", "-o", "$D/nowhere/out.wav"], code: 73,
    message: "the folder does not exist", path: "$D/nowhere/out.wav", output: nil),
  BadCase(
    name: "output is a directory",
    setup: { dir in
      try writeFile("\(dir)/in.wav", goodWAV)
      try FileManager.default.createDirectory(
        atPath: "\(dir)/out.wav", withIntermediateDirectories: false)
    },
    args: ["convert", "$D/in.wav", "-o", "$D/out.wav"], code: 73, message: "is a directory",
    path: "$D/out.wav", output: nil),
  BadCase(
    name: "output to /dev/full", setup: files(["in.wav": goodWAV]),
    args: ["convert", "$D/in.wav", "-o", "/dev/full"], code: 74,
    message: "no space left on device", path: "/dev/full", output: nil),
  BadCase(
    name: "mix output to /dev/full", setup: files(["a.wav": goodWAV, "b.wav": goodWAV]),
    args: ["mix", "--app", "$D/a.wav", "--mic", "$D/b.wav", "-o", "/dev/full"], code: 74,
    message: "no space left on device", path: "/dev/full", output: nil),
  BadCase(
    name: "output is the input", setup: files(["in.wav": goodWAV]),
    args: ["convert", "$D/in.wav", "-o", "$D/in.wav"], code: 64,
    message: "same file as input", path: "$D/in.wav", output: "$D/in.wav"),
  BadCase(
    name: "output is the input by another spelling", setup: files(["in.wav": goodWAV]),
    args: ["convert", "$D/in.wav", "-o", "$D/./in.wav"], code: 64,
    message: "same file as input", path: "$D/./in.wav", output: "$D/in.wav"),
  BadCase(
    name: "output is a hard link to the input",
    setup: { dir in
      try writeFile("\(dir)/in.wav", goodWAV)
      try FileManager.default.linkItem(atPath: "\(dir)/in.wav", toPath: "\(dir)/link.wav")
    },
    args: ["convert", "$D/in.wav", "-o", "$D/link.wav"], code: 64,
    message: "same file as input", path: "$D/link.wav", output: "$D/in.wav"),
  BadCase(
    name: "output is the mic input of a mix", setup: files(["a.wav": goodWAV, "b.wav": goodWAV]),
    args: ["mix", "--app", "$D/a.wav", "--mic", "$D/b.wav", "-o", "$D/b.wav"], code: 64,
    message: "same file as input", path: "$D/b.wav", output: "$D/b.wav"),
  BadCase(
    name: "output is the raw input", setup: files(["in.raw": someData]),
    args: ["convert", "$D/in.raw", "--input-format", "u8:8000:1", "-o", "$D/in.raw"], code: 64,
    message: "same file as input", path: "$D/in.raw", output: "$D/in.raw"),
  // Raw input and its SPEC.
  BadCase(
    name: "raw input not a whole number of frames",
    setup: files(["in.raw": Array(someData.prefix(399))]),
    args: ["convert", "$D/in.raw", "--input-format", "s16le:48000:2", "-o", "$D/out.wav"],
    code: 65, message: "ends inside a frame", path: "$D/in.raw", output: "$D/out.wav"),
  BadCase(
    name: "raw input shorter than one frame", setup: files(["in.raw": [1, 2, 3]]),
    args: ["convert", "$D/in.raw", "--input-format", "f64be:48000:1", "-o", "$D/out.wav"],
    code: 65, message: "3 byte(s) left over, frames are 8 bytes", path: "$D/in.raw",
    output: "$D/out.wav"),
  BadCase(
    name: "raw mic input not whole frames",
    setup: files(["a.wav": goodWAV, "m.raw": Array(someData.prefix(301))]),
    args: [
      "mix", "--app", "$D/a.wav", "--mic", "$D/m.raw", "--mic-format", "s24le:48000:1", "-o",
      "$D/out.wav",
    ],
    code: 65, message: "ends inside a frame", path: "$D/m.raw", output: "$D/out.wav"),
  BadCase(
    name: "invalid SPEC", setup: files(["in.raw": someData]),
    args: ["convert", "$D/in.raw", "--input-format", "s16:48000:2", "-o", "$D/out.wav"],
    code: 64, message: "is not TYPE:RATE:CHANNELS", path: nil, output: "$D/out.wav"),
  BadCase(
    name: "invalid SPEC: rate 0", setup: files(["in.raw": someData]),
    args: ["convert", "$D/in.raw", "--input-format", "s16le:0:2", "-o", "$D/out.wav"],
    code: 64, message: "is not TYPE:RATE:CHANNELS", path: nil, output: "$D/out.wav"),
  // The other commands name the failing file too.
  BadCase(
    name: "mix: app input malformed", setup: files(["a.wav": [1, 2, 3, 4, 5], "b.wav": goodWAV]),
    args: ["mix", "--app", "$D/a.wav", "--mic", "$D/b.wav", "-o", "$D/out.wav"], code: 65,
    message: "not a WAV file", path: "$D/a.wav", output: "$D/out.wav"),
  BadCase(
    name: "mix: mic input missing", setup: files(["a.wav": goodWAV]),
    args: ["mix", "--app", "$D/a.wav", "--mic", "$D/b.wav", "-o", "$D/out.wav"], code: 66,
    message: "No such file", path: "$D/b.wav", output: "$D/out.wav"),
  BadCase(
    name: "mix: mic input is mu-law",
    setup: files([
      "a.wav": goodWAV, "b.wav": riff([("fmt ", tagged(7, bits: 8)), ("data", someData)]),
    ]),
    args: ["mix", "--app", "$D/a.wav", "--mic", "$D/b.wav", "-o", "$D/out.wav", "--pad"],
    code: 65, message: "mu-law", path: "$D/b.wav", output: "$D/out.wav"),
  BadCase(
    name: "probe: missing file", setup: files([:]), args: ["probe", "$D/none.wav"], code: 66,
    message: "No such file", path: "$D/none.wav", output: nil),
  BadCase(
    name: "probe: A-law",
    setup: files(["a.wav": riff([("fmt ", tagged(6, bits: 8)), ("data", someData)])]),
    args: ["probe", "--json", "$D/a.wav"], code: 65, message: "A-law", path: "$D/a.wav",
    output: nil),
  BadCase(
    name: "demo: output folder does not exist", setup: files([:]),
    args: ["demo", "-o", "$D/no/demo.wav"], code: 73, message: "the folder does not exist",
    path: "$D/no/demo.wav", output: nil),
]

@Suite("Bad input and output")
struct BadInputTests {
  @Test("the table has at least 40 cases, each named once")
  func tableSize() {
    #expect(badCases.count >= 40)
    #expect(Set(badCases.map(\.name)).count == badCases.count)
  }

  /// Runs each case twice: once as it is, once with a file already at the output path. Either
  /// way the run must change nothing in the folder.
  @Test(
    "fails with one stderr line and leaves every file as it was", arguments: badCases,
    [false, true])
  func badCase(_ c: BadCase, outputExists: Bool) throws {
    try withTempDir { dir in
      try c.setup(dir)
      let expand = { (s: String) in s.replacingOccurrences(of: "$D", with: dir) }
      let args = c.args.map(expand)
      if outputExists, let output = c.output.map(expand), !exists(output) {
        try writeFile(output, Array("an existing output that must survive\n".utf8))
      }
      let before = snapshot(dir)
      let r = cli(args)
      #expect(r.code == c.code, "\(r.err)")
      #expect(r.out.isEmpty)
      #expect(r.errLines.count == 1, "stderr: \(r.err)")
      #expect(r.err.hasPrefix("pcm-mix: "))
      #expect(r.err.contains(c.message), "stderr: \(r.err)")
      if let path = c.path.map(expand) {
        #expect(r.err.hasPrefix("pcm-mix: \(path): "), "stderr: \(r.err)")
      }
      // Nothing new (no partial output, no temporary file), nothing changed, nothing removed.
      let after = snapshot(dir)
      #expect(after.keys.sorted() == before.keys.sorted())
      for (name, bytes) in before where after[name] != bytes {
        Issue.record("\(name) changed")
      }
    }
  }

  /// A valid header cut short at every byte: 65 and a header message until the data chunk
  /// starts; from there on the file is readable and converts with a truncation warning.
  @Test("a WAV, RF64 or CAF file cut at every byte of its header")
  func everyHeaderByte() throws {
    let headers: [(String, [UInt8])] = [
      ("PCM", wavS16(randomInt16s(20, seed: 1), channels: 2, rate: 48_000)),
      (
        "LIST-float",
        riff([
          ("LIST", Array("INFOIART\u{3}\0\0\0ab\0\0".utf8)),
          ("fmt ", fmtBody(tag: 3, channels: 1, rate: 44_100, bits: 32, cbSize: 0)),
          ("data", floatBytes(Array(repeating: 0.25, count: 10), bits: 32)),
        ])
      ),
      (
        "RF64",
        rf64(
          [("fmt ", s16fmt), ("data", s16Bytes(randomInt16s(20, seed: 2)))], dataSize: 40,
          table: [("LIST", 4)])
      ),
      (
        "CAF",
        caf(
          cafDesc(rate: 48_000, flags: 0, bytesPerPacket: 4, channels: 2, bits: 16),
          chunks: [("free", [0, 0, 0])], data: s16Bytes(randomInt16s(20, seed: 3)))
      ),
    ]
    try withTempDir { dir in
      for (label, file) in headers {
        let dataStart = file.count - 40
        for cut in 0...dataStart {
          let input = "\(dir)/\(label)-in-\(cut).wav"
          let output = "\(dir)/\(label)-out-\(cut).wav"
          try writeFile(input, Array(file.prefix(cut)))
          let r = cli(["convert", input, "-o", output])
          #expect(r.errLines.count == 1, "\(label) cut at \(cut): \(r.err)")
          #expect(r.err.hasPrefix("pcm-mix: \(input): "), "\(label) cut at \(cut)")
          if cut < dataStart {
            #expect(r.code == 65, "\(label) cut at \(cut): \(r.err)")
            let known = [
              truncatedHeader, "no fmt chunk", "no data chunk", "ends inside the CAF header",
              "does not start with a desc chunk",
            ]
            #expect(known.contains { r.err.contains($0) }, "\(label) cut at \(cut): \(r.err)")
            #expect(!exists(output), "\(label) cut at \(cut)")
          } else {
            #expect(r.code == 0, "\(label) cut at \(cut): \(r.err)")
            #expect(r.err.contains("holds 0 frames, header claims 10"), "\(r.err)")
            #expect(try readWAV(output).frames == 0)
          }
          #expect(tempFiles(in: dir).isEmpty)
        }
      }
    }
  }
}
