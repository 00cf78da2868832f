import PCMMix

/// Drives a ``CapturePipeline`` with a schedule read from the input: which source, buffer
/// lengths 0 … 30,000 frames (about 4 s of audio in all), format switches, stalls (runs of one source without a mix),
/// disabling, gains, malformed buffers, finish, mix calls of any room. After every step the
/// counters must add up, buffers stay within capacity, memory within the 50 MB an iOS broadcast
/// extension gets, and output from integer input be finite. Traps when a property fails.
///
public enum FuzzPipeline {
  static let rates = [8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 96_000]
  static let types: [SampleType] = [.s16, .s24, .f32, .u8, .s32, .f64]
  static let memoryLimit = 50 << 20
  /// Output frames (at 48 kHz) one run may append in all, about 4 s of audio, so one input
  /// stays fast to run. Counted in output frames because the work is: at 1 Hz a 2,511-frame
  /// buffer is 42 minutes of audio, 120 million frames to resample (see Fuzz/README.md).
  static let frameBudget = 200_000

  /// Runs one fuzz input (`bytes`); traps on a broken invariant.
  public static func run(_ bytes: [UInt8]) {
    var r = FuzzBytes(bytes)
    let setup = r.u8()
    let capacity = [48_000, 4_800, 1_024, 1][Int(setup & 3)]
    let lag = min(capacity, [4_800, 0, 480, 48_000][Int(setup >> 2 & 3)])
    let policy: MixPolicy = setup & 0x10 != 0 ? .saturate : .average
    let quality: ResamplerQuality = [.fast, .balanced, .high, .fast][Int(setup >> 5 & 3)]
    var pipeline = CapturePipeline(
      .init(
        mixer: .init(capacityFrames: capacity, maxLagFrames: lag, policy: policy),
        resampler: ResamplerFactory.builtin(quality)))
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
        pipeline.setEnabled(side == 0 ? .app : .mic, r.u8() & 1 == 0)
      case 13:
        // A gain of -60 … +3 dB.
        let db = Double(Int(r.u8()) % 64) - 60
        if side == 0 {
          pipeline.setGain(.app, dB: db)
        } else {
          pipeline.setGain(.mic, dB: db)
        }
      case 14:
        // A malformed buffer: a partial frame, or a description that does not probe.
        let bytes = r.take(Int(r.u8()))
        var d = StreamDescription(formats[side])
        if r.u8() & 1 == 0 { d.bitsPerChannel = r.u32() } else { d.sampleRate = Double(r.u32()) }
        let before = (pipeline.mixer.app.counters, pipeline.mixer.mic.counters)
        if appendBuffer(&pipeline, side: side, bytes, d) != nil {
          // A rejected buffer changes nothing.
          precondition((pipeline.mixer.app.counters, pipeline.mixer.mic.counters) == before)
        }
      default:
        pipeline.finish(.app)
        pipeline.finish(.mic)
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
    if let error = appendBuffer(&pipeline, side: side, bytes, description) {
      preconditionFailure("a valid buffer was refused: \(error) for \(format)")
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

/// Appends `bytes` to the app (side 0) or the mic (side 1) of `pipeline`; returns the error, if
/// any, instead of throwing (so callers can assert on it inside closures).
public func appendBuffer(
  _ pipeline: inout CapturePipeline, side: Int, _ bytes: [UInt8],
  _ description: StreamDescription
) -> ProbeError? {
  bytes.withUnsafeBytes { raw -> ProbeError? in
    do throws(ProbeError) {
      if side == 0 {
        try pipeline.append(.app, raw, description: description)
      } else {
        try pipeline.append(.mic, raw, description: description)
      }
      return nil
    } catch {
      return error
    }
  }
}
