import Foundation
import Testing

@testable import PCMMix

/// Replays every input under `Fuzz/Regressions/` (what the fuzzers found) and every seed under
/// `Fuzz/Corpus/` through the same drivers as the libFuzzer targets in `Fuzz/`, so a plain
/// `swift test` catches a regression without libFuzzer. A driver traps (fails the run) when a
/// property breaks, exactly as under the fuzzer.
@Suite struct FuzzRegressionTests {
  /// `Fuzz/` at the repository root.
  static let fuzzRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fuzz")

  static let targets = ["FuzzWAV", "FuzzProbeDecode", "FuzzPipeline"]

  /// Every replayable input: `(target, path relative to Fuzz/)`.
  fileprivate static let inputs: [_FuzzInput] = {
    var found: [_FuzzInput] = []
    for folder in ["Regressions", "Corpus"] {
      for target in targets {
        let dir = fuzzRoot.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
          found.append(_FuzzInput(target: target, path: "\(folder)/\(target)/\(name)"))
        }
      }
    }
    return found
  }()

  @Test(arguments: inputs)
  fileprivate func replays(_ input: _FuzzInput) throws {
    let bytes = [UInt8](try Data(contentsOf: Self.fuzzRoot.appendingPathComponent(input.path)))
    switch input.target {
    case "FuzzWAV": FuzzWAV.run(bytes)
    case "FuzzProbeDecode": FuzzProbeDecode.run(bytes)
    default: FuzzPipeline.run(bytes)
    }
  }

  @Test func thereAreInputsForEveryTarget() {
    for target in Self.targets {
      #expect(Self.inputs.contains { $0.target == target && $0.path.hasPrefix("Corpus/") })
    }
  }

  /// The drivers below are copies of the ones in `Fuzz/Sources/`: this fails when they drift.
  @Test(arguments: [
    "FuzzWAV/FuzzWAV", "FuzzProbeDecode/FuzzProbeDecode", "FuzzPipeline/FuzzPipeline",
  ])
  func driverCopiesMatchTheFuzzTargets(_ file: String) throws {
    let source = try String(
      contentsOf: Self.fuzzRoot.appendingPathComponent("Sources/\(file).swift"), encoding: .utf8)
    let name = String(file.split(separator: "/")[1])
    let start = try #require(source.range(of: "enum \(name) {"))
    let original = String(source[start.lowerBound...])
    let mine = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    #expect(mine.contains(original.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  /// Found by FuzzWAV (`Fuzz/Regressions/FuzzWAV/s32-full-scale-decodes-to-1.wav`): s32 values
  /// within 64 of `Int32.max` round to exactly 1.0 in Float32. The ``Decoder`` now documents
  /// that (integers map onto [-1, 1], and 8/16/24-bit values onto [-1, 1)): nothing is clamped,
  /// so the decode is the nearest Float32, as the reference vectors expect.
  @Test func s32FullScaleDecodesToOne() {
    let format = PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s32)
    let bytes: [UInt8] = [0xFF, 0xFF, 0xFF, 0x7F]
    var out: [Float] = [0]
    bytes.withUnsafeBytes { raw in
      out.withUnsafeMutableBufferPointer {
        Decoder.decode(
          raw, format: format, totalFrames: 1, frames: 0..<1, outputChannels: 1, into: $0)
      }
    }
    #expect(out[0] == 1)
  }
}

/// Found by FuzzPipeline (`Fuzz/Regressions/FuzzPipeline/timeout-1hz-buffer-is-42-minutes-of-work`):
/// the resampler's delay is a fixed number of *input* samples (36 with `fast`), so at very low
/// input rates it is seconds of output frames (1,728,000 at 1 Hz), and every rate change and
/// `finish` computes the whole delay and tail, almost all of it then dropped, inside the capture
/// callback. Here one frame at 100 Hz (480 frames of audio) costs 17,760 output frames of
/// filter work. Fixed: the built-in resampler steps past the pre-roll it would drop
/// (`skipLatency`), so the work is the audio's length plus the filter's tail. (A source that
/// declares 1 Hz still means seconds of audio per frame; the fuzz driver keeps its free rates at
/// 1 kHz and up for that reason.)
@Test func lowRateDelayIsBounded() {
  let work = _WorkCounter()
  let factory: ResamplerFactory = { input, output, channels in
    _CountingResampler(
      inner: PolyphaseResampler(
        inputRate: input, outputRate: output, channelCount: channels, quality: .fast),
      work: work)
  }
  var pipeline = CapturePipeline(.init(resampler: factory))
  let format = PCMFormat(sampleRate: 100, channelCount: 1, sampleType: .s16)
  let frame: [UInt8] = [0, 0x40]
  frame.withUnsafeBytes { try! pipeline.appendApp($0, description: StreamDescription(format)) }
  pipeline.finish()
  // 480 frames of audio, plus at most 100 ms (4,800 frames) of delay on each side.
  #expect(work.frames <= 480 + 2 * 4_800, "\(work.frames) output frames computed")
}

/// Counts the output frames a resampler computes.
private final class _WorkCounter: @unchecked Sendable {
  var frames = 0
}

/// Forwards to `inner`, counting its output frames in `work`.
private struct _CountingResampler: Resampler {
  var inner: PolyphaseResampler
  let work: _WorkCounter
  var inputRate: Int { inner.inputRate }
  var outputRate: Int { inner.outputRate }
  var channelCount: Int { inner.channelCount }
  var latency: Int { inner.latency }

  mutating func process(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
  ) -> (consumed: Int, produced: Int) {
    let result = inner.process(input, into: output)
    work.frames += result.produced
    return result
  }

  mutating func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    let n = inner.flush(into: output)
    work.frames += n
    return n
  }

  mutating func reset() { inner.reset() }

  mutating func skipLatency() -> Int { inner.skipLatency() }

  func maxOutputFrames(forInputFrames frames: Int) -> Int {
    inner.maxOutputFrames(forInputFrames: frames)
  }
}

/// One replayable input.
private struct _FuzzInput: Sendable, CustomTestStringConvertible {
  var target: String
  var path: String
  var testDescription: String { path }
}

// MARK: - Copies of the fuzz drivers (Fuzz/Sources/*), kept in step by the test above.

/// Reads a WAV file from memory to its end, decoded and raw; traps when a property fails.
/// (Copied into Tests/PCMMixTests/FuzzRegressionTests.swift: keep the two in step.)
enum FuzzWAV {
  static func run(_ bytes: [UInt8]) {
    guard let reader = try? WAVReader(source: MemorySource(bytes)) else { return }
    let format = reader.format
    precondition((1...PCMFormat.maxChannels).contains(format.channelCount))
    precondition((1...PCMFormat.maxSampleRate).contains(format.sampleRate))
    precondition(reader.dataOffset >= 12 && reader.dataOffset <= bytes.count)
    // Decoded, in pieces of a size taken from the input.
    var decoded = reader
    let frames = 1 + Int(bytes.count > 40 ? bytes[40] : 0) % 700
    let out = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames * format.channelCount)
    defer { out.deallocate() }
    var total = 0
    while let n = try? decoded.readFloat(into: out), n > 0 {
      precondition(n <= frames)
      total += n
      if !format.sampleType.isFloat {
        // s32 near full scale rounds up to exactly 1 in Float32 (see Fuzz/README.md).
        let top: Float = format.sampleType == .s32 ? 1 : 0x1.fffffep-1
        for x in out[..<(n * format.channelCount)] { precondition(x >= -1 && x <= top) }
      }
    }
    precondition(decoded.framesRead == total)
    if let expected = reader.expectedFrames { precondition(total <= expected) }
    precondition(total * format.bytesPerFrame <= bytes.count - reader.dataOffset)
    // Raw, into a buffer of a few frames: the same frame count.
    var raw = reader
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: format.bytesPerFrame * 3 + 1, alignment: 8)
    defer { buffer.deallocate() }
    var rawTotal = 0
    while let n = try? raw.read(into: buffer), n > 0 { rawTotal += n }
    precondition(rawTotal == total)
  }
}

/// Builds a ``StreamDescription`` from the first bytes, probes it, and when it probes decodes
/// the rest of the input with ``Decoder``; traps when a property fails.
/// (Copied into Tests/PCMMixTests/FuzzRegressionTests.swift: keep the two in step.)
enum FuzzProbeDecode {
  static let rates: [Double] = [8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 96_000]
  static let bits: [UInt32] = [8, 16, 24, 32, 64]

  static func run(_ bytes: [UInt8]) {
    var r = FuzzBytes(bytes)
    let mode = r.u8()
    let description: StreamDescription
    if mode & 0x80 != 0 {
      // Every field raw.
      description = StreamDescription(
        sampleRate: Double(bitPattern: r.u64()), formatID: r.u32(), formatFlags: r.u32(),
        bytesPerPacket: r.u32(), framesPerPacket: r.u32(), bytesPerFrame: r.u32(),
        channelsPerFrame: r.u32(), bitsPerChannel: r.u32())
    } else {
      // Near-valid: common values, with the flags and one field free.
      let rate = mode & 0x40 != 0 ? Double(r.u32() % 800_000) : rates[Int(r.u8()) % rates.count]
      let flags = UInt32(r.u8()) | (r.u8() & 0x10 != 0 ? r.u32() : 0)
      let bitsPer = bits[Int(r.u8()) % bits.count]
      let channels = UInt32(r.u8() % 70)
      let planar = flags & 0x20 != 0
      var frameBytes = bitsPer / 8 * (planar ? 1 : channels)
      if mode & 0x20 != 0 { frameBytes = UInt32(r.u8()) }
      description = StreamDescription(
        sampleRate: rate, formatID: mode & 0x10 != 0 ? r.u32() : StreamDescription.linearPCM,
        formatFlags: flags, bytesPerPacket: mode & 0x08 != 0 ? UInt32(r.u8()) : frameBytes,
        framesPerPacket: mode & 0x04 != 0 ? UInt32(r.u8()) : 1, bytesPerFrame: frameBytes,
        channelsPerFrame: channels, bitsPerChannel: bitsPer)
    }
    guard let format = try? FormatProbe.probe(description) else { return }
    // What probes round-trips through its own description.
    precondition((try? FormatProbe.probe(StreamDescription(format))) == format)
    precondition(format.bytesPerFrame > 0)
    let outChannels = 1 + Int(r.u8()) % format.channelCount
    let (first, second) = (Int(r.u16()), Int(r.u16()))
    let rest = r.rest()
    let total = rest.count / format.bytesPerFrame
    let a = first % (total + 1)
    let b = second % (total + 1)
    let frames = min(a, b)..<max(a, b)
    let out = UnsafeMutableBufferPointer<Float>.allocate(
      capacity: max(1, frames.count * outChannels))
    defer { out.deallocate() }
    rest.withUnsafeBytes { raw in
      Decoder.decode(
        raw, format: format, totalFrames: total, frames: frames, outputChannels: outChannels,
        into: out)
    }
    if !format.sampleType.isFloat {
      // s32 near full scale rounds up to exactly 1 in Float32 (see Fuzz/README.md).
      let top: Float = format.sampleType == .s32 ? 1 : 0x1.fffffep-1
      for x in out[..<(frames.count * outChannels)] { precondition(x >= -1 && x <= top) }
    }
  }
}

/// Drives a ``CapturePipeline`` with a schedule read from the input: which source, buffer
/// lengths 0 … 30,000 frames (about 4 s of audio in all), format switches, stalls (runs of one source without a mix),
/// disabling, gains, malformed buffers, finish, mix calls of any room. After every step the
/// counters must add up, buffers stay within capacity, memory within the 50 MB an iOS broadcast
/// extension gets, and output from integer input be finite. Traps when a property fails.
/// (Copied into Tests/PCMMixTests/FuzzRegressionTests.swift: keep the two in step.)
enum FuzzPipeline {
  static let rates = [8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 96_000]
  static let types: [SampleType] = [.s16, .s24, .f32, .u8, .s32, .f64]
  static let memoryLimit = 50 << 20
  /// Output frames (at 48 kHz) one run may append in all, about 4 s of audio, so one input
  /// stays fast to run. Counted in output frames because the work is: at 1 Hz a 2,511-frame
  /// buffer is 42 minutes of audio, 120 million frames to resample (see Fuzz/README.md).
  static let frameBudget = 200_000

  static func run(_ bytes: [UInt8]) {
    var r = FuzzBytes(bytes)
    let setup = r.u8()
    let capacity = [48_000, 4_800, 1_024, 1][Int(setup & 3)]
    let lag = min(capacity, [4_800, 0, 480, 48_000][Int(setup >> 2 & 3)])
    let policy: MixPolicy = setup & 0x10 != 0 ? .saturate : .average
    let quality: ResamplerQuality = [.fast, .balanced, .high, .fast][Int(setup >> 5 & 3)]
    var pipeline = CapturePipeline(
      .init(
        mixer: .init(capacityFrames: capacity, maxLagFrames: lag, policy: policy),
        resampler: SourceChain.builtin(quality)))
    var formats = [
      PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big),
      PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16),
    ]
    var sawFloat = false
    var budget = frameBudget
    var steps = 0
    var floats = [Float](repeating: 0, count: 2 * 8_192)
    var ints = [Int16](repeating: 0, count: 2 * 8_192)
    while !r.isAtEnd && steps < 200 {
      steps += 1
      let op = r.u8()
      let side = Int(op & 1)
      switch op >> 1 & 15 {
      case 0...4:
        // One buffer, its length and samples from the input.
        append(&pipeline, side, formats[side], &r, &sawFloat, &budget)
      case 5:
        // A stall: a run of buffers on one side with no mix between.
        for _ in 0..<(1 + Int(r.u8() % 40)) {
          append(&pipeline, side, formats[side], &r, &sawFloat, &budget)
        }
      case 6, 7:
        // A format switch.
        let f = r.u8()
        var rate = rates[Int(f & 7)]
        // Now and then any rate from 1 kHz (each new rate pair builds a new filter table).
        // Below that the filter's delay alone is seconds of output frames, which every rate
        // change and finish computes: the known finding in Fuzz/README.md, which would stop
        // every run with a timeout.
        if f & 0x80 != 0 && r.u8() & 7 == 0 {
          rate = 1_000 + Int(r.u32() % UInt32(PCMFormat.maxSampleRate - 999))
        }
        formats[side] = PCMFormat(
          sampleRate: rate, channelCount: f & 0x08 != 0 ? 2 : (f & 0x40 != 0 ? 3 : 1),
          sampleType: types[Int(f >> 4 & 3) + (f & 0x40 != 0 ? 2 : 0)],
          byteOrder: r.u8() & 1 == 0 ? .little : .big, isInterleaved: f & 0x40 == 0)
      case 8...10:
        // Mix into floats with room from the input.
        let room = Int(r.u16()) % 8_193
        let n = floats.withUnsafeMutableBufferPointer {
          pipeline.mix(into: UnsafeMutableBufferPointer(rebasing: $0[..<(room * 2)]))
        }
        precondition(n <= room)
        if !sawFloat { for x in floats[..<(n * 2)] { precondition(x.isFinite) } }
        if policy == .saturate {
          for x in floats[..<(n * 2)] where !x.isNaN { precondition(abs(x) <= 1) }
        }
      case 11:
        let room = Int(r.u16()) % 8_193
        let n = ints.withUnsafeMutableBufferPointer {
          pipeline.mix(into: UnsafeMutableBufferPointer(rebasing: $0[..<(room * 2)]))
        }
        precondition(n <= room)
      case 12:
        pipeline.mixer.setEnabled(side == 0 ? .app : .mic, r.u8() & 1 == 0)
      case 13:
        // A gain of -60 … +3 dB.
        let db = Double(Int(r.u8()) % 64) - 60
        if side == 0 {
          pipeline.mixer.app.setGain(dB: db)
        } else {
          pipeline.mixer.mic.setGain(dB: db)
        }
      case 14:
        // A malformed buffer: a partial frame, or a description that does not probe.
        let bytes = r.take(Int(r.u8()))
        var d = StreamDescription(formats[side])
        if r.u8() & 1 == 0 { d.bitsPerChannel = r.u32() } else { d.sampleRate = Double(r.u32()) }
        let before = (pipeline.mixer.app.counters, pipeline.mixer.mic.counters)
        if appendBytes(&pipeline, side, bytes, d) != nil {
          // A rejected buffer changes nothing.
          precondition((pipeline.mixer.app.counters, pipeline.mixer.mic.counters) == before)
        }
      default:
        pipeline.finish()
      }
      check(pipeline)
    }
  }

  /// Appends one buffer of `format` to a side; its length (0 … 30,000 frames) and its bytes
  /// (the next input bytes, repeated) come from the input.
  static func append(
    _ pipeline: inout CapturePipeline, _ side: Int, _ format: PCMFormat, _ r: inout FuzzBytes,
    _ sawFloat: inout Bool, _ budget: inout Int
  ) {
    let length = r.u16()
    let wanted = length & 0x8000 != 0 ? Int(length & 0x7FFF) % 30_001 : Int(length % 2_048)
    let outputPerInput = Double(48_000) / Double(format.sampleRate)
    let frames = min(wanted, Int(Double(budget) / outputPerInput))
    budget -= Int((Double(frames) * outputPerInput).rounded(.up))
    let pattern = r.take(Int(r.u8() % 64))
    let count = frames * format.bytesPerFrame
    var bytes = [UInt8](repeating: 0, count: count)
    if !pattern.isEmpty { for i in 0..<count { bytes[i] = pattern[i % pattern.count] } }
    if format.sampleType.isFloat { sawFloat = true }
    let description = StreamDescription(format)
    if let error = appendBytes(&pipeline, side, bytes, description) {
      preconditionFailure("a valid buffer was refused: \(error) for \(format)")
    }
  }

  /// Appends `bytes` to the app (side 0) or the mic (side 1); returns the error, if any.
  static func appendBytes(
    _ pipeline: inout CapturePipeline, _ side: Int, _ bytes: [UInt8],
    _ description: StreamDescription
  ) -> ProbeError? {
    bytes.withUnsafeBytes { raw -> ProbeError? in
      do throws(ProbeError) {
        if side == 0 {
          try pipeline.appendApp(raw, description: description)
        } else {
          try pipeline.appendMic(raw, description: description)
        }
        return nil
      } catch {
        return error
      }
    }
  }

  /// The invariants after every step.
  static func check(_ pipeline: CapturePipeline) {
    for side in [pipeline.mixer.app, pipeline.mixer.mic] {
      let c = side.counters
      precondition(c.framesIn == c.framesEmitted + c.framesDropped + c.framesBuffered)
      precondition(c.framesBuffered == side.buffered && side.buffered <= side.capacity)
    }
    precondition(pipeline.mixer.app.counters.framesMixed == pipeline.mixer.mic.counters.framesMixed)
    precondition(pipeline.retainedBytes <= memoryLimit, "retains \(pipeline.retainedBytes) bytes")
  }
}

/// Reads fields from the fuzz input; past its end every read is zero.
struct FuzzBytes {
  let bytes: [UInt8]
  var position = 0
  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var isAtEnd: Bool { position >= bytes.count }

  mutating func u8() -> UInt8 {
    defer { position += 1 }
    return position < bytes.count ? bytes[position] : 0
  }

  mutating func u16() -> UInt16 { UInt16(u8()) | UInt16(u8()) << 8 }
  mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }
  mutating func u64() -> UInt64 { UInt64(u32()) | UInt64(u32()) << 32 }

  /// The bytes not read yet.
  mutating func rest() -> [UInt8] {
    defer { position = bytes.count }
    return position < bytes.count ? Array(bytes[position...]) : []
  }

  /// Up to `count` bytes not read yet.
  mutating func take(_ count: Int) -> [UInt8] {
    let start = min(position, bytes.count)
    let end = min(start + count, bytes.count)
    position = end
    return Array(bytes[start..<end])
  }
}
