import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `--loudness LUFS [--true-peak DB]`: a second pass over a finished output file that brings its
/// integrated loudness (BS.1770-4) to the target and keeps its true peak at or below the ceiling.
/// The first pass's file is read back and measured; the gain that moves it to the target is
/// applied through the limiter (its sample ceiling set below the true-peak ceiling), into a new
/// temporary file whose true peak is measured as it is written. Where the oversampled peak
/// still passes the ceiling, the pass runs again with the limiter lower (three tries at most).
enum LoudnessPass {
  /// What the pass did, for the report and stderr.
  struct Outcome {
    var measured: Double
    var gainDB: Double
    var integrated: Double
    var truePeak: Double
    var limitedSamples: Int
  }

  /// `output` normalized when `target` is given (see ``run(_:target:truePeakCeiling:type:)``),
  /// else `output` itself; the result is what the caller commits.
  static func apply(
    _ output: OutputFile, target: Double?, truePeakCeiling: Double, type: SampleType
  ) throws(CLIError) -> OutputFile {
    guard let target else { return output }
    do {
      return try run(output, target: target, truePeakCeiling: truePeakCeiling, type: type).0
    } catch {
      output.discard()
      throw error
    }
  }

  /// Replaces `output` (finished, not committed) by its normalized version; returns the new
  /// output to commit and what was done. `output` is discarded.
  static func run(
    _ output: OutputFile, target: Double, truePeakCeiling: Double, type: SampleType
  ) throws(CLIError) -> (OutputFile, Outcome) {
    guard let temp = output.tempPath else {
      throw CLIError(.usage, output.path, "--loudness needs a regular output file (two passes)")
    }
    let first = try measure(temp, path: output.path)
    guard first.integrated.isFinite else {
      throw CLIError(.data, output.path, "nothing to normalize: the output is silent")
    }
    let gain = target - first.integrated
    var ceiling = truePeakCeiling - 0.5
    for attempt in 0..<3 {
      let next = try OutputFile.create(output.path, inputs: [])
      do throws(CLIError) {
        let result = try write(
          from: temp, into: next, gainDB: gain, ceilingDB: ceiling, type: type,
          format: first.format)
        if result.truePeak <= truePeakCeiling + 0.05 || attempt == 2 {
          output.discard()
          return (
            next,
            Outcome(
              measured: first.integrated, gainDB: gain, integrated: result.integrated,
              truePeak: result.truePeak, limitedSamples: result.limited)
          )
        }
        next.discard()
        ceiling -= result.truePeak - truePeakCeiling + 0.2
      } catch {
        next.discard()
        throw error
      }
    }
    fatalError("unreachable: the third attempt returns")
  }

  /// Reads `temp` (the output written so far) through a loudness meter.
  static func measure(_ temp: String, path: String) throws(CLIError) -> (
    integrated: Double, format: PCMFormat
  ) {
    var input = try InputFile.open(InputSpec(path: temp))
    defer { input.close() }
    let f = input.format
    var meter = LoudnessMeter(rate: f.sampleRate, channelCount: f.channelCount)
    try forEachBlock(&input) { block, frames in meter.process(block, frames: frames) }
    return (meter.integrated, f)
  }

  /// Decodes `input` to Float32 a block at a time.
  static func forEachBlock(
    _ input: inout InputFile, _ body: (UnsafeMutablePointer<Float>, Int) -> Void
  ) throws(CLIError) {
    let f = input.format
    let perRead = 4_096
    let bytes = UnsafeMutableRawBufferPointer.allocate(
      byteCount: perRead * f.bytesPerFrame, alignment: 16)
    defer { bytes.deallocate() }
    var samples = [Float](repeating: 0, count: perRead * f.channelCount)
    while true {
      let n = try input.read(into: bytes)
      if n == 0 { break }
      samples.withUnsafeMutableBufferPointer { out in
        PCMDecoder.decode(
          UnsafeRawBufferPointer(bytes), format: f, totalFrames: n, frames: 0..<n,
          outputChannels: f.channelCount, into: out)
        body(out.baseAddress!, n)
      }
    }
  }

  /// The second pass: `temp` at `gainDB` through the limiter into `next`, measured as written.
  static func write(
    from temp: String, into next: OutputFile, gainDB: Double, ceilingDB: Double, type: SampleType,
    format: PCMFormat
  ) throws(CLIError) -> (integrated: Double, truePeak: Double, limited: Int) {
    var input = try InputFile.open(InputSpec(path: temp))
    defer { input.close() }
    let ch = format.channelCount
    var sink = try WriterSink.open(
      next, rate: format.sampleRate, channels: ch, type: type, maxFrames: input.expectedFrames)
    var limiter = Limiter(
      Limiter.Configuration(
        channelCount: ch, ceilingDB: max(-60, min(0, ceilingDB)),
        lookaheadFrames: max(1, format.sampleRate / 1000), sampleRate: format.sampleRate))
    var meter = LoudnessMeter(rate: format.sampleRate, channelCount: ch)
    let gain = Float(pow(10, gainDB / 20))
    // The limiter's delay line: its first `latency` frames out are silence, dropped.
    var skip = limiter.latencyFrames
    func emit(_ p: UnsafeMutablePointer<Float>, _ frames: Int) {
      let drop = min(skip, frames)
      skip -= drop
      guard frames > drop else { return }
      meter.process(p + drop * ch, frames: frames - drop)
      sink.append(UnsafeBufferPointer(start: p + drop * ch, count: (frames - drop) * ch))
    }
    try forEachBlock(&input) { block, frames in
      for i in 0..<(frames * ch) { block[i] *= gain }
      limiter.process(block, frames: frames)
      emit(block, frames)
    }
    var tail = [Float](repeating: 0, count: limiter.latencyFrames * ch)
    let n = tail.withUnsafeMutableBufferPointer { limiter.flush(into: $0) }
    tail.withUnsafeMutableBufferPointer { emit($0.baseAddress!, n) }
    try sink.finish(next.path)
    return (meter.integrated, meter.truePeakDB, limiter.reducedSamples)
  }

}
