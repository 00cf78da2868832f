import PCMMix

/// Drives a ``ClockedCapturePipeline`` with a configuration, formats and a schedule read from
/// the input, hostile values included: a configuration field set to NaN, ∞, a negative or zero
/// value or one far out of range; stamps with no time, an invalid timescale, `Int64.max`, a jump
/// of ±10 s or of years, jitter; buffers of 0 … 2,048 frames at any prepared or odd rate, byte
/// order, sample type and channel count, or malformed; pulls of 0 … 4,096 frames into int16 or
/// Float32; gains of NaN or ±∞; enabling, disabling, finishing. With the voice features on, one
/// of their fields hostile or at an end of its range instead, or an output rate from 1 to
/// 192 kHz.
///
/// Properties, after every step: nothing traps or hangs (libFuzzer's timeout); a configuration
/// is refused exactly when ``ClockedCapturePipeline/Configuration/validate()`` refuses it; a
/// refused buffer changes no counter; each source's timeline counters add up; the pipeline
/// holds at most 50 MB; every pull's ``PullStatus/time`` starts where the last one ended; every
/// output sample is finite, whatever the input's samples hold (a float buffer's bytes are the
/// input's, NaN and ∞ included); output from integer input is, under the `limit` policy, within
/// full scale. Half the runs have echo cancellation, ducking and the loudness meter on.
public enum FuzzCapture {
  static let memoryLimit = 50 << 20
  /// Input and output frames (at 48 kHz) one run may move in all (half a second), so one input
  /// stays fast: ten million runs are a night's fuzzing on one core.
  static let frameBudget = 4_800
  static let rates = [8_000, 16_000, 24_000, 32_000, 44_100, 48_000, 11_025, 96_000]
  static let types: [SampleType] = [.s16, .s24, .f32, .u8, .s32, .f64]
  /// A short filter: what is fuzzed here is time and bookkeeping, not filter design.
  static let quality = try! ResamplerQuality(
    passbandEdge: 0.9, stopbandEdge: 1.1, attenuation: 90, phase: .linearWithin(seconds: 0.001))

  /// A hostile value for a Double field, or `nil` to leave it as it is.
  static func hostile(_ r: inout FuzzBytes) -> Double? {
    switch r.u8() {
    case 0: .nan
    case 1: .infinity
    case 2: -.infinity
    case 3: -1
    case 4: 0
    case 5: 1e30
    case 6: -1e-300
    default: nil
    }
  }

  /// Runs one fuzz input (`bytes`); traps on a broken invariant.
  public static func run(_ bytes: [UInt8]) {
    var r = FuzzBytes(bytes)
    var c = ClockedCapturePipeline.Configuration(resampler: .variableRatio(quality))
    let setup = r.u8()
    c.policy = [.average, .limit, .saturate, .limit][Int(setup & 3)]
    c.fadeSeconds = [0.010, 0, 0.002, 0.010][Int(setup >> 2 & 3)]
    c.latency =
      setup & 0x10 != 0 ? .fixed(seconds: 0.05) : .adaptive(minimum: 0.02, maximum: 0.15)
    c.driftCorrection = setup & 0x20 != 0 ? .timestampsAndFillLevel : .timestamps
    c.preparedRates = [16_000, 48_000]
    if setup & 0x80 != 0 {
      c.echoCancellation = EchoCancellation()
      c.ducking = Ducking()
      c.meterLoudness = true
    }
    if setup & 0x40 != 0 {
      // One field hostile.
      let v = hostile(&r) ?? Double(Int32(bitPattern: r.u32()))
      // Fields 14 … 23 are the voice features' (each a no-op with them off): hostile, or at
      // either end of its range or anywhere in it, since each may meet any output rate.
      func edge(_ range: ClosedRange<Double>) -> Double {
        switch r.u8() % 4 {
        case 0: range.lowerBound
        case 1: range.upperBound
        case 2: range.lowerBound + (range.upperBound - range.lowerBound) * Double(r.u8()) / 255
        default: v
        }
      }
      switch r.u8() % 24 {
      // A few output rates (each new one designs filters for a second or so).
      case 0: c.outputRate = [0, -48_000, 999, 1_000, 8_000, 768_001, .max][Int(r.u8() % 7)]
      case 1: c.ceilingDB = v
      case 2: c.fadeSeconds = v
      case 3: c.appGainDB = v
      case 4: c.latency = .fixed(seconds: v)
      case 5: c.latency = .adaptive(minimum: v, maximum: 1)
      case 6: c.latency = .adaptive(minimum: 0.1, maximum: v)
      case 7: c.gapTolerance = v
      case 8: c.maxOverlap = v
      case 9: c.driftTimeConstant = v
      case 10: c.maxRatioAdjustment = v
      case 11: c.startupWait = v
      case 12: c.pullBlockFrames = Int(r.u32() % 70_000)
      case 13:
        c.origin = MediaTime(
          value: Int64(bitPattern: r.u64()), timescale: Int32(bitPattern: r.u32()))
      case 14: c.echoCancellation?.maximumDelay = edge(0...1)
      case 15: c.echoCancellation?.filterLength = edge(0.02...0.5)
      case 16: c.echoCancellation?.suppression = edge(0...4)
      case 17: c.echoCancellation?.comfortNoise = r.u8() & 1 == 0
      case 18: c.ducking?.depthDB = edge(0...60)
      case 19: c.ducking?.attack = edge(0.001...1)
      case 20: c.ducking?.hold = edge(0...5)
      case 21: c.ducking?.release = edge(0.001...5)
      case 22: c.ducking?.lookahead = edge(0...0.5)
      default:
        if c.echoCancellation != nil {
          c.outputRate = [1_000, 8_000, 22_050, 96_000, 192_000][Int(r.u8() % 5)]
        }
      }
    }
    var formats = [
      PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big),
      PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16),
    ]
    let valid: Bool
    do {
      try c.validate()
      valid = true
    } catch {
      valid = false
    }
    var pipeline: ClockedCapturePipeline
    do throws(CaptureError) {
      pipeline = try ClockedCapturePipeline(
        c, app: StreamDescription(formats[0]), mic: StreamDescription(formats[1]))
      precondition(valid, "a configuration validate() refuses was taken")
    } catch {
      guard case .configuration = error else { preconditionFailure("refused: \(error)") }
      precondition(!valid, "a configuration validate() takes was refused: \(error)")
      return
    }
    var budget = frameBudget
    var sawFloat = false
    var stampFrames = [Int64](repeating: 0, count: 2)
    var nextTime: MediaTime?
    var floats = [Float](repeating: 0, count: 2 * 8_192)
    var ints = [Int16](repeating: 0, count: 2 * 8_192)
    var steps = 0
    while !r.isAtEnd && steps < 200 && budget > 0 {
      steps += 1
      let op = r.u8()
      let side: ClockedCapturePipeline.Side = op & 1 == 0 ? .app : .mic
      let s = op & 1 == 0 ? 0 : 1
      switch op >> 1 & 15 {
      case 0...5:
        // One buffer, with a stamp of the kind the input says.
        let format = formats[s]
        let frames = min(Int(r.u16() % 1_025), budget * format.sampleRate / 48_000)
        budget -= (frames * 48_000 + format.sampleRate - 1) / format.sampleRate
        let pattern = r.take(Int(r.u8() % 32))
        var data = [UInt8](repeating: 0, count: frames * format.bytesPerFrame)
        if !pattern.isEmpty { for i in data.indices { data[i] = pattern[i % pattern.count] } }
        if format.sampleType.isFloat { sawFloat = true }
        let ns = Int64(1_000_000_000)
        let base = 1_000 * ns + stampFrames[s] * ns / Int64(format.sampleRate)
        var time: MediaTime?
        switch r.u8() % 10 {
        case 0: time = nil
        case 1: time = MediaTime(value: base, timescale: 0)
        case 2: time = MediaTime(value: .max, timescale: 1_000_000_000)
        case 3: time = MediaTime(value: base - 10 * ns, timescale: 1_000_000_000)
        case 4: time = MediaTime(value: base + 10 * ns, timescale: 1_000_000_000)
        case 5:
          time = MediaTime(value: Int64(bitPattern: r.u64()), timescale: Int32(bitPattern: r.u32()))
        case 6: time = MediaTime(seconds: hostile(&r) ?? 1e12)
        default: time = MediaTime(value: base + Int64(r.u8()) * 1_000, timescale: 1_000_000_000)
        }
        let before = (pipeline.statistics(.app), pipeline.statistics(.mic))
        if appendBuffer(&pipeline, side, data, StreamDescription(format), time) != nil {
          precondition(
            (pipeline.statistics(.app), pipeline.statistics(.mic)) == before,
            "a refused buffer changed the counters")
        }
        stampFrames[s] += Int64(frames)
      case 6:
        // A format switch.
        let f = r.u8()
        formats[s] = PCMFormat(
          sampleRate: rates[Int(f & 7)], channelCount: f & 0x08 != 0 ? 2 : 1,
          sampleType: types[Int(f >> 4 & 3) + (f & 0x40 != 0 ? 2 : 0)],
          byteOrder: f & 0x80 == 0 ? .little : .big)
      case 7:
        // A malformed buffer: a description that does not probe, or a partial frame.
        let data = r.take(Int(r.u8()))
        var d = StreamDescription(formats[s])
        switch r.u8() % 4 {
        case 0: d.bitsPerChannel = r.u32()
        case 1: d.sampleRate = [Double.nan, .infinity, -1, 0, 1e300][Int(r.u8() % 5)]
        case 2: d.channelsPerFrame = r.u32()
        default: d.bytesPerFrame = r.u32()
        }
        let before = (pipeline.statistics(.app), pipeline.statistics(.mic))
        if appendBuffer(&pipeline, side, data, d, nil) != nil {
          precondition(
            (pipeline.statistics(.app), pipeline.statistics(.mic)) == before,
            "a refused buffer changed the counters")
        }
      case 8...10:
        // A pull of any size, into floats or int16.
        let frames = min(Int(r.u16()) % 1_025, budget)
        budget -= frames
        let status: PullStatus
        if op & 0x80 == 0 {
          status = floats.withUnsafeMutableBufferPointer {
            pipeline.pull(into: UnsafeMutableBufferPointer(rebasing: $0[..<(2 * frames)]))
          }
          for x in floats[..<(2 * frames)] {
            precondition(x.isFinite, "non-finite output")
            if !sawFloat && c.policy != .average {
              precondition(abs(x) <= 1, "past full scale: \(x)")
            }
          }
        } else {
          status = ints.withUnsafeMutableBufferPointer {
            pipeline.pull(into: UnsafeMutableBufferPointer(rebasing: $0[..<(2 * frames)]))
          }
        }
        if let t = status.time {
          if let expected = nextTime {
            precondition(t == expected, "the output clock jumped: \(t), expected \(expected)")
          }
          nextTime = MediaTime(value: t.value + Int64(frames), timescale: t.timescale)
        }
      case 11:
        pipeline.setGain(side, dB: hostile(&r) ?? Double(Int8(bitPattern: r.u8())))
      case 12:
        pipeline.setEnabled(side, r.u8() & 1 == 0)
      default:
        pipeline.finish(side)
      }
      for side in [ClockedCapturePipeline.Side.app, .mic] {
        let s = pipeline.statistics(side)
        precondition(s.framesIn == s.framesEmitted + s.framesDropped + s.framesBuffered)
      }
      precondition(pipeline.retainedBytes <= memoryLimit, "retains \(pipeline.retainedBytes)")
    }
  }

  /// Appends `data` to `side`; returns the error, if any.
  static func appendBuffer(
    _ pipeline: inout ClockedCapturePipeline, _ side: ClockedCapturePipeline.Side,
    _ data: [UInt8], _ description: StreamDescription, _ time: MediaTime?
  ) -> CaptureError? {
    data.withUnsafeBytes { raw -> CaptureError? in
      do throws(CaptureError) {
        try pipeline.append(side, raw, description: description, time: time)
        return nil
      } catch {
        return error
      }
    }
  }
}
