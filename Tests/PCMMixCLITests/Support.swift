import Foundation
import PCMMix
import PCMMixCLI
@_exported import PCMMixTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: - Running the CLI

/// What one run of the CLI produced.
struct CLIResult {
  var code: Int32
  var out: String
  var err: String

  /// The lines written to standard error, without their newlines.
  var errLines: [String] {
    err.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
  }
}

/// Text a ``Console`` closure appends to; a class so the closures can share it.
final class _TextBox: @unchecked Sendable {
  var text = ""
}

/// Serializes in-process runs: the CLI is written for one command per process (its temp-file
/// registry for the signal handler is a plain global), so tests never run two at once.
private let _cliLock = NSLock()

/// Runs `pcm-mix args…` in this process and collects its output; `terminal` makes standard
/// error count as a terminal.
func cli(_ args: [String], terminal: Bool = false) -> CLIResult {
  let out = _TextBox()
  let err = _TextBox()
  let console = Console(
    out: { out.text += $0 }, err: { err.text += $0 }, errIsTerminal: terminal)
  _cliLock.lock()
  defer { _cliLock.unlock() }
  let code = runCLI(args[...], console: console)
  return CLIResult(code: code, out: out.text, err: err.text)
}

/// Runs `pcm-mix args…` and records an issue unless it exits 0 with nothing on standard error.
@discardableResult
func cliOK(
  _ args: [String], sourceLocation: SourceLocation = #_sourceLocation
) -> CLIResult {
  let r = cli(args)
  #expect(r.code == 0, "pcm-mix \(args): \(r.err)", sourceLocation: sourceLocation)
  #expect(r.err.isEmpty, "pcm-mix \(args): \(r.err)", sourceLocation: sourceLocation)
  return r
}

/// The built `pcm-mix` executable, which `swift test` builds beside the test bundle whatever the
/// configuration or scratch path: found next to this process's executable (or a few folders up,
/// from inside an `.xctest` bundle on macOS); `PCMMIX_EXECUTABLE` overrides it.
let executablePath: String = {
  if let path = ProcessInfo.processInfo.environment["PCMMIX_EXECUTABLE"] { return path }
  var folder = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
    .resolvingSymlinksInPath().deletingLastPathComponent()
  for _ in 0..<4 {
    let candidate = folder.appendingPathComponent("pcm-mix").path
    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    folder = folder.deletingLastPathComponent()
  }
  fatalError("pcm-mix is not built beside the tests (set PCMMIX_EXECUTABLE to its path)")
}()

/// A file under `TestVectors/` (made by the generators with libsndfile, sox and struct).
func vectorPath(_ relative: String) -> String {
  URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("TestVectors").appendingPathComponent(relative).path
}

// MARK: - Temporary folders and files

/// Runs `body` in a fresh empty folder that is removed afterwards.
func withTempDir<R>(_ body: (String) throws -> R) throws -> R {
  let dir = FileManager.default.temporaryDirectory
    .appendingPathComponent("pcm-mix-cli-tests-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
  defer {
    // Restore permissions a test may have taken away, so removal works.
    _ = chmod(dir, 0o755)
    if let names = try? FileManager.default.subpathsOfDirectory(atPath: dir) {
      for name in names { _ = chmod(dir + "/" + name, 0o755) }
    }
    try? FileManager.default.removeItem(atPath: dir)
  }
  return try body(dir)
}

/// Writes `bytes` to `path`, replacing what is there.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
  try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The bytes of the file at `path`.
func readFile(_ path: String) throws -> [UInt8] {
  [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Whether anything (file, folder, dangling link) is at `path`.
func exists(_ path: String) -> Bool {
  var st = stat()
  return lstat(path, &st) == 0
}

/// Every regular file under `dir` (relative path → bytes), to compare before and after a run.
func snapshot(_ dir: String) -> [String: [UInt8]] {
  var result: [String: [UInt8]] = [:]
  let names = (try? FileManager.default.subpathsOfDirectory(atPath: dir)) ?? []
  for name in names {
    var isDir: ObjCBool = false
    let path = dir + "/" + name
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { continue }
    result[name] = isDir.boolValue ? [] : (try? readFile(path)) ?? [0xDE, 0xAD]
  }
  return result
}

/// Temporary files the CLI leaves beside its output while writing (`.NAME.pcm-mix-PID-N.tmp`).
func tempFiles(in dir: String) -> [String] {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
  return names.filter { $0.hasSuffix(".tmp") || $0.contains(".pcm-mix-") }
}

// MARK: - Making WAV files

/// Little-endian bytes of `value`'s low `count` bytes.
func le(_ value: Int, _ count: Int) -> [UInt8] {
  (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}

/// A RIFF file: `form` (normally `WAVE`) and the chunks in order, each padded to an even size.
/// `sizes` overrides the size field of the chunks named there; `riffSize` that of the RIFF.
func riff(
  _ chunks: [(id: String, body: [UInt8])], form: String = "WAVE", sizes: [String: Int] = [:],
  riffSize: Int? = nil, magic: String = "RIFF"
) -> [UInt8] {
  var body = Array(form.utf8)
  for chunk in chunks {
    body += Array(chunk.id.utf8)
    body += le(sizes[chunk.id] ?? chunk.body.count, 4)
    body += chunk.body
    if chunk.body.count % 2 == 1 { body.append(0) }
  }
  return Array(magic.utf8) + le(riffSize ?? body.count, 4) + body
}

/// A RIFX file (big-endian RIFF): the chunks in order, sizes big-endian, each padded to an even
/// size; the bodies are written as given.
func rifx(_ chunks: [(id: String, body: [UInt8])]) -> [UInt8] {
  var body = Array("WAVE".utf8)
  for chunk in chunks {
    body += Array(chunk.id.utf8) + be(chunk.body.count, 4) + chunk.body
    if chunk.body.count % 2 == 1 { body.append(0) }
  }
  return Array("RIFX".utf8) + be(body.count, 4) + body
}

/// A `fmt ` chunk body: 16 bytes, or 18 with `cbSize` 0 when `cbSize` is asked for.
func fmtBody(
  tag: Int, channels: Int, rate: Int, bits: Int, blockAlign: Int? = nil, cbSize: Int? = nil
) -> [UInt8] {
  let align = blockAlign ?? channels * bits / 8
  var b = le(tag, 2) + le(channels, 2) + le(rate, 4) + le(rate * align, 4)
  b += le(align, 2) + le(bits, 2)
  if let cbSize { b += le(cbSize, 2) }
  return b
}

/// A WAVE_FORMAT_EXTENSIBLE `fmt ` body with sub-format `subTag`.
func extensibleFmtBody(
  subTag: Int, channels: Int, rate: Int, bits: Int, validBits: Int? = nil,
  guidTail: [UInt8] = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]
) -> [UInt8] {
  var b = fmtBody(tag: 0xFFFE, channels: channels, rate: rate, bits: bits, cbSize: 22)
  b += le(validBits ?? bits, 2) + le((1 << channels) - 1, 4) + le(subTag, 2) + guidTail
  return b
}

/// A canonical PCM or float WAV file holding `data` (already encoded).
func wav(tag: Int = 1, channels: Int, rate: Int, bits: Int, data: [UInt8]) -> [UInt8] {
  riff([
    ("fmt ", fmtBody(tag: tag, channels: channels, rate: rate, bits: bits)), ("data", data),
  ])
}

/// A 44-byte-header s16 WAV file of interleaved `samples`.
func wavS16(_ samples: [Int16], channels: Int, rate: Int) -> [UInt8] {
  wav(channels: channels, rate: rate, bits: 16, data: s16Bytes(samples))
}

/// Big-endian bytes of `value`'s low `count` bytes.
func be(_ value: Int, _ count: Int) -> [UInt8] {
  (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}

/// A CAF `desc` chunk (header and 32-byte body).
func cafDesc(
  rate: Double, formatID: String = "lpcm", flags: Int = 2, bytesPerPacket: Int,
  framesPerPacket: Int = 1, channels: Int, bits: Int
) -> [UInt8] {
  Array("desc".utf8) + be(32, 8) + be(Int(truncatingIfNeeded: rate.bitPattern), 8)
    + Array(formatID.utf8)
    + be(flags, 4) + be(bytesPerPacket, 4) + be(framesPerPacket, 4) + be(channels, 4)
    + be(bits, 4)
}

/// A CAF file: version 1, `chunks` as given (each `(type, body)`, sizes from the bodies unless
/// `sizes` names them), then a `data` chunk with its edit count and `data` (its size field
/// `dataSize`, by default 4 + the bytes).
func caf(
  _ desc: [UInt8], chunks: [(String, [UInt8])] = [], data: [UInt8], dataSize: Int? = nil,
  sizes: [String: Int] = [:]
) -> [UInt8] {
  var bytes = Array("caff".utf8) + be(1, 2) + be(0, 2) + desc
  for (type, body) in chunks {
    bytes += Array(type.utf8) + be(sizes[type] ?? body.count, 8) + body
  }
  return bytes + Array("data".utf8) + be(dataSize ?? 4 + data.count, 8) + be(0, 4) + data
}

/// An RF64 (or BW64) file: a `ds64` chunk (`ds64Size` overrides its size field; `table` its
/// entries), then `chunks`; every chunk named in `wide` gets the 32-bit size 0xFFFFFFFF.
func rf64(
  _ chunks: [(id: String, body: [UInt8])], dataSize: Int, table: [(String, Int)] = [],
  ds64Size: Int? = nil, wide: Set<String> = ["data"], magic: String = "RF64"
) -> [UInt8] {
  var ds64 = le(0, 8) + le(dataSize, 8) + le(0, 8) + le(table.count, 4)
  for (id, size) in table { ds64 += Array(id.utf8) + le(size, 8) }
  var body = Array("WAVE".utf8) + Array("ds64".utf8) + le(ds64Size ?? ds64.count, 4) + ds64
  for chunk in chunks {
    body += Array(chunk.id.utf8) + le(wide.contains(chunk.id) ? 0xFFFF_FFFF : chunk.body.count, 4)
    body += chunk.body
    if chunk.body.count % 2 == 1 { body.append(0) }
  }
  return Array(magic.utf8) + le(0xFFFF_FFFF, 4) + body
}

/// Int16 samples as little-endian (or big-endian) bytes.
func s16Bytes(_ samples: [Int16], bigEndian: Bool = false) -> [UInt8] {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(samples.count * 2)
  for s in samples {
    let v = UInt16(bitPattern: s)
    let pair = [UInt8(v & 0xFF), UInt8(v >> 8)]
    bytes += bigEndian ? pair.reversed() : pair
  }
  return bytes
}

/// Integer samples of `bytesPerSample` bytes, little-endian two's complement (u8: offset).
func intBytes(_ samples: [Int], bytesPerSample: Int) -> [UInt8] {
  var bytes: [UInt8] = []
  for s in samples { bytes += le(bytesPerSample == 1 ? s + 128 : s, bytesPerSample) }
  return bytes
}

/// Float samples as little-endian f32 or f64 bytes.
func floatBytes(_ samples: [Double], bits: Int) -> [UInt8] {
  var bytes: [UInt8] = []
  for s in samples {
    if bits == 32 {
      bytes += le(Int(Float(s).bitPattern), 4)
    } else {
      bytes += le(Int(truncatingIfNeeded: s.bitPattern), 8)
    }
  }
  return bytes
}

/// An interleaved stereo int16 tone: left `sin(2π fL t + phase)`, right at `fR`, both at
/// `amplitude` of full scale, rounded to nearest.
func stereoTone(
  frames: Int, rate: Int, left fL: Double = 997, right fR: Double = 1_499,
  amplitude: Double = 0.5, phase: Double = 0.3
) -> [Int16] {
  var s: [Int16] = []
  s.reserveCapacity(frames * 2)
  for n in 0..<frames {
    let t = Double(n) / Double(rate)
    s.append(Int16((amplitude * 32_767 * sin(2 * .pi * fL * t + phase)).rounded()))
    s.append(Int16((amplitude * 32_767 * sin(2 * .pi * fR * t + phase)).rounded()))
  }
  return s
}

// MARK: - Reading WAV files

/// A WAV file as the library reads it.
struct WAVContents {
  var format: PCMFormat
  var frames: Int
  /// The raw data chunk bytes (whole frames).
  var data: [UInt8]
  var isTruncated: Bool
  var claimedFrames: Int?
  var dataOffset: Int
  /// The first 44 … 68 bytes: the header the writer put out.
  var header: [UInt8]

  /// The samples of an s16 file.
  var int16s: [Int16] {
    stride(from: 0, to: data.count - 1, by: 2).map {
      Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
    }
  }

  /// The samples of an f32 file.
  var float32s: [Float] {
    stride(from: 0, to: data.count - 3, by: 4).map {
      Float(
        bitPattern: UInt32(data[$0]) | UInt32(data[$0 + 1]) << 8 | UInt32(data[$0 + 2]) << 16
          | UInt32(data[$0 + 3]) << 24)
    }
  }

  /// Every sample as a Float in [-1, 1), whatever the type.
  var samples: [Float] {
    switch format.sampleType {
    case .s16: int16s.map { Float($0) / 32_768 }
    case .f32: float32s
    default: []
    }
  }
}

/// Reads a whole WAV from bytes with ``WAVReader``.
func parseWAV(_ bytes: [UInt8]) throws -> WAVContents {
  var reader = try WAVReader(source: MemorySource(bytes))
  var data: [UInt8] = []
  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
  defer { buffer.deallocate() }
  while true {
    let n = try reader.read(into: buffer)
    if n == 0 { break }
    data += buffer[..<(n * reader.format.bytesPerFrame)]
  }
  return WAVContents(
    format: reader.format, frames: reader.framesRead, data: data, isTruncated: reader.isTruncated,
    claimedFrames: reader.claimedFrames, dataOffset: reader.dataOffset,
    header: Array(bytes.prefix(reader.dataOffset)))
}

/// Reads a whole WAV file with ``WAVReader``.
func readWAV(_ path: String) throws -> WAVContents {
  try parseWAV(try readFile(path))
}

// MARK: - Numbers

/// Random int16 samples over the whole range, with the extremes included.
func randomInt16s(_ count: Int, seed: UInt64) -> [Int16] {
  var g = SplitMix64(seed: seed)
  var s = (0..<count).map { _ in Int16(truncatingIfNeeded: g.next()) }
  let extremes: [Int16] = [.min, .max, .min, .min, .max, .max, -1, 1, 0, -1]
  for (i, e) in extremes.enumerated() where i < count { s[i] = e }
  return s
}

/// The phase (radians, in (-π, π]) of the sinusoid of angular frequency `omega` (per sample)
/// that best fits `x[i]` for `i` in `range`, as `sin(omega i + phase)`: a least-squares fit of
/// `a sin + b cos`.
func fittedPhase(_ x: [Double], omega: Double, range: Range<Int>) -> (phase: Double, amp: Double) {
  var ss = 0.0
  var cc = 0.0
  var sc = 0.0
  var xs = 0.0
  var xc = 0.0
  for i in range {
    let s = sin(omega * Double(i))
    let c = cos(omega * Double(i))
    ss += s * s
    cc += c * c
    sc += s * c
    xs += x[i] * s
    xc += x[i] * c
  }
  let det = ss * cc - sc * sc
  let a = (xs * cc - xc * sc) / det
  let b = (xc * ss - xs * sc) / det
  return (atan2(b, a), (a * a + b * b).squareRoot())
}

/// `a − b` wrapped into (-π, π].
func phaseDifference(_ a: Double, _ b: Double) -> Double {
  var d = (a - b).truncatingRemainder(dividingBy: 2 * .pi)
  if d > .pi { d -= 2 * .pi }
  if d <= -.pi { d += 2 * .pi }
  return d
}

/// C's `(a + b) / 2` on int16 values promoted to int: truncates toward zero.
func cAverage(_ a: Int16, _ b: Int16) -> Int16 {
  Int16((Int32(a) + Int32(b)) / 2)
}

// MARK: - Subprocesses

/// The result of running the executable.
struct ProcessResult {
  var status: Int32
  var reason: Process.TerminationReason
  var out: [UInt8]
  var err: String
}

/// Runs the built `pcm-mix` with `args` in `folder` (by default this process's), feeding
/// `input` on standard input, and waits for it.
func runExecutable(_ args: [String], input: [UInt8], in folder: String? = nil) throws
  -> ProcessResult
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executablePath)
  process.arguments = args
  if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
  let stdin = Pipe()
  let stdout = Pipe()
  let stderr = Pipe()
  process.standardInput = stdin
  process.standardOutput = stdout
  process.standardError = stderr
  try process.run()
  // Feed standard input from another thread so a full pipe cannot deadlock against output.
  let writer = Thread {
    stdin.fileHandleForWriting.write(Data(input))
    try? stdin.fileHandleForWriting.close()
  }
  writer.start()
  let errBox = _TextBox()
  let errDone = DispatchSemaphore(value: 0)
  DispatchQueue.global().async {
    let data = stderr.fileHandleForReading.readDataToEndOfFile()
    errBox.text = String(decoding: data, as: UTF8.self)
    errDone.signal()
  }
  let out = stdout.fileHandleForReading.readDataToEndOfFile()
  errDone.wait()
  process.waitUntilExit()
  return ProcessResult(
    status: process.terminationStatus, reason: process.terminationReason, out: [UInt8](out),
    err: errBox.text)
}

/// Converts 0.25 s of a 44.1 kHz stereo tone pair (997 Hz left, 1,499 Hz right, both at phase
/// 0.3) to 48 kHz with `pcm-mix convert` plus `extra` arguments, then fits each channel's tone at
/// the output sample times, skipping 10 ms at either end where the filter sees the input's
/// edges. Returns the output's frames and, per channel, how far the fitted phase is from the
/// input's analytic phase (a delay left in the resampler shows as 2π f × delay) and the
/// fitted amplitude.
func convertTonePairTo48k(_ dir: String, _ extra: [String] = []) throws -> (
  frames: Int, fits: [(phaseError: Double, amplitude: Double)]
) {
  let phase = 0.3
  let input = stereoTone(frames: 11_025, rate: 44_100, left: 997, right: 1_499, phase: phase)
  try writeFile("\(dir)/in.wav", wavS16(input, channels: 2, rate: 44_100))
  cliOK(["convert", "\(dir)/in.wav", "-o", "\(dir)/out.wav"] + extra)
  let out = try readWAV("\(dir)/out.wav")
  let samples = out.int16s.map { Double($0) / 32_767 }
  let range = 480..<(out.frames - 480)
  let fits = [(0, 997.0), (1, 1_499.0)].map { channel, f in
    let x = stride(from: channel, to: samples.count, by: 2).map { samples[$0] }
    let fit = fittedPhase(x, omega: 2 * .pi * f / 48_000, range: range)
    return (phaseDifference(fit.phase, phase), fit.amp)
  }
  return (out.frames, fits)
}
