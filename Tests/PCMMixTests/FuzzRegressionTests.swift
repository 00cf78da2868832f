import Foundation
import PCMMixFuzzDrivers
import Testing

@testable import PCMMix

/// Replays every input under `Fuzz/Regressions/` (what the fuzzers found) and every seed under
/// `Fuzz/Corpus/` through the drivers the libFuzzer targets in `Fuzz/` run, so a plain
/// `swift test` catches a regression without libFuzzer. A driver traps when a property breaks,
/// exactly as under the fuzzer, so each target's inputs run in a child process (an exit test):
/// a trap fails that target's test, names the input it was on, and the rest of the run goes on.
@Suite struct FuzzRegressionTests {
  /// `Fuzz/` at the repository root.
  static let fuzzRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fuzz")

  static let targets = [
    "FuzzWAV", "FuzzContainers", "FuzzProbeDecode", "FuzzPipeline", "FuzzCapture",
  ]

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

  /// Runs every input of `target` through its driver, first appending each input's path to
  /// the file at `log`, so its last line names the input a trap stopped on.
  static func replayAll(_ target: String, log: String) {
    let handle = FileHandle(forWritingAtPath: log)
    for input in inputs where input.target == target {
      handle?.seekToEndOfFile()
      handle?.write(Data("\(input.path)\n".utf8))
      guard let data = try? Data(contentsOf: fuzzRoot.appendingPathComponent(input.path)) else {
        fatalError("cannot read \(input.path)")
      }
      let bytes = [UInt8](data)
      switch target {
      case "FuzzWAV": FuzzWAV.run(bytes)
      case "FuzzContainers": FuzzContainers.run(bytes)
      case "FuzzProbeDecode": FuzzProbeDecode.run(bytes)
      case "FuzzCapture": FuzzCapture.run(bytes)
      default: FuzzPipeline.run(bytes)
      }
    }
  }

  @Test(arguments: targets)
  func replays(_ target: String) async {
    let count = Self.inputs.filter { $0.target == target }.count
    #expect(count > 0, "no inputs for \(target)")
    let log: String = FileManager.default.temporaryDirectory
      .appendingPathComponent("pcmmix-fuzz-replay-\(target)-\(UUID().uuidString).txt").path
    #expect(FileManager.default.createFile(atPath: log, contents: nil))
    defer { try? FileManager.default.removeItem(atPath: log) }
    let passed = await #expect(processExitsWith: .success) {
      [target = target as String, log = log as String] in
      FuzzRegressionTests.replayAll(target, log: log)
    }
    let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? []
    if passed == nil {
      Issue.record("\(target) trapped on \(lines.last.map(String.init) ?? "its first input")")
    } else {
      #expect(lines.count == count, "the child replayed \(lines.count) of \(count) inputs")
    }
  }

  @Test func thereAreInputsForEveryTarget() {
    for target in Self.targets {
      #expect(Self.inputs.contains { $0.target == target && $0.path.hasPrefix("Corpus/") })
    }
  }

  /// Found by FuzzWAV (`Fuzz/Regressions/FuzzWAV/s32-full-scale-decodes-to-1.wav`): s32 values
  /// within 64 of `Int32.max` round to exactly 1.0 in Float32. The ``PCMDecoder`` now documents
  /// that (integers map onto [-1, 1], and 8/16/24-bit values onto [-1, 1)): nothing is clamped,
  /// so the decode is the nearest Float32, as the reference vectors expect.
  @Test func s32FullScaleDecodesToOne() {
    let format = PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s32)
    let bytes: [UInt8] = [0xFF, 0xFF, 0xFF, 0x7F]
    var out: [Float] = [0]
    bytes.withUnsafeBytes { raw in
      out.withUnsafeMutableBufferPointer {
        PCMDecoder.decode(
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
/// (`skipLatency`), so the work is the audio's length plus the filter's tail. A source that
/// declares 1 Hz still means seconds of audio per frame, so the capture pipeline refuses rates
/// under 1 kHz by default (`CapturePipeline.Configuration.inputRates`).
@Test func lowRateDelayIsBounded() {
  let work = _WorkCounter()
  let factory = ResamplerFactory { input, output, channels in
    _CountingResampler(
      inner: PolyphaseResampler(
        inputRate: input, outputRate: output, channelCount: channels, quality: .fast),
      work: work)
  }
  // The default configuration refuses rates under 1 kHz; this one takes them, to show the work.
  var pipeline = CapturePipeline(.init(resampler: factory, inputRates: 1...768_000))
  let format = PCMFormat(sampleRate: 100, channelCount: 1, sampleType: .s16)
  let frame: [UInt8] = [0, 0x40]
  frame.withUnsafeBytes { try! pipeline.append(.app, $0, description: StreamDescription(format)) }
  pipeline.finish(.app)
  pipeline.finish(.mic)
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
private struct _FuzzInput: Sendable {
  var target: String
  var path: String
}

/// The capture pipeline refuses a declared rate under its `inputRates` (1 kHz by default) with a
/// typed error whose message names that range (not the probe's 1 Hz … 768 kHz, which 100 Hz is
/// within), and the stream goes on.
@Test func capturePipelineRefusesRatesBelowItsRange() throws {
  var pipeline = CapturePipeline()
  let low = StreamDescription(PCMFormat(sampleRate: 100, channelCount: 1, sampleType: .s16))
  let frame: [UInt8] = [0, 0x40]
  #expect(throws: ProbeError.invalidSampleRate(100)) {
    try frame.withUnsafeBytes { try pipeline.append(.app, $0, description: low) }
  }
  let message = "\(ProbeError.invalidSampleRate(100))"
  #expect(message.contains("100 Hz") && message.contains("inputRates"), "\(message)")
  #expect(!"\(ProbeError.invalidSampleRate(44_100.5))".contains("inputRates"))
  #expect(throws: ProbeError.invalidSampleRate(100)) { try pipeline.prepare(app: nil, mic: low) }
  #expect(pipeline.mixer.app.counters.framesIn == 0)
  let ok = StreamDescription(PCMFormat(sampleRate: 44_100, channelCount: 1, sampleType: .s16))
  try frame.withUnsafeBytes { try pipeline.append(.app, $0, description: ok) }
}
