import Foundation
import PCMMixFuzzDrivers
import Testing

@testable import PCMMix

/// Properties that hold for every schedule of buffers: counters add up, memory stays bounded,
/// nothing is lost without being counted, any split of a stream gives the same output, a stalled
/// source does not make the other pile up, and a format change leaks no old samples.
///
/// The resampler dominates the cost of a debug build (its SIMD dot products are not optimized),
/// so the long runs use `_HoldResampler`, a zero-order-hold backend defined here that keeps the
/// resampler contract (exact rational rate, a latency to drop, flush, reset) at almost no cost;
/// the same properties also run, shorter, with the built-in `fast` preset
/// (`ResamplerFactory.builtin(.fast)`). The properties are about bookkeeping, not filter quality.
@Suite struct InvariantTests {
  // MARK: - Random schedules

  /// Thousands of random schedules through ``CapturePipeline``: random source, buffer length
  /// 0 … 30,000 frames (mostly short), format switches (rate, channels, byte order, sample type),
  /// sources disabled and re-enabled, malformed buffers, mix calls with random room. After every
  /// step, on both sides: the counters add up, nothing is buffered past capacity, frames are
  /// dropped only where the bounds say so, and mix output is what the counters say was emitted,
  /// finite and inside [-1, 1].
  @Test(arguments: [_Backend.hold, .fast])
  fileprivate func randomSchedulesKeepTheInvariants(_ backend: _Backend) {
    var rng = SplitMix64(seed: backend == .hold ? 0x1_2345 : 0x5_4321)
    var violations: [String] = []
    var steps = 0
    var outputFrames = 0
    var dropped = 0
    var out = [Float](repeating: 0, count: 2 * 4_096)
    var outInt = [Int16](repeating: 0, count: 2 * 4_096)
    let config = CapturePipeline.Configuration(resampler: backend.factory)
    let schedules = backend == .hold ? 1_500 : 60
    for schedule in 0..<schedules {
      var pipeline = CapturePipeline(config)
      var sources = [_Signal(rng: &rng), _Signal(rng: &rng)]
      let stepCount = Int.random(in: 1...12, using: &rng)
      for step in 0..<stepCount {
        steps += 1
        let before = (pipeline.mixer.app.counters, pipeline.mixer.mic.counters)
        let bufferedBefore = (pipeline.mixer.app.buffered, pipeline.mixer.mic.buffered)
        let at = "schedule \(schedule) step \(step)"
        let action = Int.random(in: 0..<100, using: &rng)
        switch action {
        case 0..<55:
          // Append a buffer to a random side, sometimes in a new format.
          let side = Int.random(in: 0...1, using: &rng)
          if Int.random(in: 0..<5, using: &rng) == 0 { sources[side].switchFormat(&rng) }
          let frames = _bufferLength(&rng)
          let bytes = sources[side].next(frames: frames, rng: &rng)
          let description = StreamDescription(sources[side].format)
          let enabled = side == 0 ? pipeline.mixer.app.isEnabled : pipeline.mixer.mic.isEnabled
          if let error = appendBuffer(&pipeline, side: side, bytes, description) {
            violations.append("\(at): valid buffer threw \(error)")
          }
          // Frames are dropped only for being appended while disabled or past capacity.
          let (c0, c1, b0) =
            side == 0
            ? (before.0, pipeline.mixer.app.counters, bufferedBefore.0)
            : (before.1, pipeline.mixer.mic.counters, bufferedBefore.1)
          let added = c1.framesIn - c0.framesIn
          let capacity = pipeline.mixer.app.capacity
          let expectedDrops = enabled ? max(0, b0 + added - capacity) : added
          if c1.framesDropped - c0.framesDropped != expectedDrops {
            violations.append(
              "\(at): \(c1.framesDropped - c0.framesDropped) dropped, expected \(expectedDrops)")
          }
        case 55..<60:
          // A malformed buffer: a partial frame. It throws and changes nothing.
          let side = Int.random(in: 0...1, using: &rng)
          let format = sources[side].format
          guard format.bytesPerFrame > 1 else { continue }
          let bytes = [UInt8](repeating: 0x7F, count: format.bytesPerFrame * 3 + 1)
          let description = StreamDescription(format)
          if appendBuffer(&pipeline, side: side, bytes, description) == nil {
            violations.append("\(at): partial frame accepted")
          }
          if (pipeline.mixer.app.counters, pipeline.mixer.mic.counters) != before {
            violations.append("\(at): a rejected buffer changed the counters")
          }
        case 60..<64:
          // Disable or re-enable a side.
          let side: DualBufferMixer.Side = Bool.random(using: &rng) ? .app : .mic
          pipeline.setEnabled(side, Bool.random(using: &rng))
        default:
          // Mix with random room, into floats or int16.
          let room = Int.random(in: 0...4_096, using: &rng)
          let intoInt = Int.random(in: 0..<4, using: &rng) == 0
          let written: Int
          if intoInt {
            written = outInt.withUnsafeMutableBufferPointer {
              pipeline.mix(into: UnsafeMutableBufferPointer(rebasing: $0[..<(room * 2)]))
            }
          } else {
            written = out.withUnsafeMutableBufferPointer {
              pipeline.mix(into: UnsafeMutableBufferPointer(rebasing: $0[..<(room * 2)]))
            }
            for x in out[..<(written * 2)] where !x.isFinite || abs(x) > 1 {
              violations.append("\(at): output sample \(x)")
              break
            }
          }
          if written > room { violations.append("\(at): wrote \(written) into room \(room)") }
          let (a, m) = (pipeline.mixer.app.counters, pipeline.mixer.mic.counters)
          let emitted =
            (a.framesMixed - before.0.framesMixed) + (a.framesAlone - before.0.framesAlone)
            + (m.framesAlone - before.1.framesAlone)
          if emitted != written {
            violations.append("\(at): wrote \(written), counters say \(emitted)")
          }
          if a.framesMixed - before.0.framesMixed != m.framesMixed - before.1.framesMixed {
            violations.append("\(at): sides mixed different frame counts")
          }
          if a.framesDropped != before.0.framesDropped || m.framesDropped != before.1.framesDropped
          {
            violations.append("\(at): mixing dropped frames")
          }
          outputFrames += written
        }
        for (name, side) in [("app", pipeline.mixer.app), ("mic", pipeline.mixer.mic)] {
          let c = side.counters
          if c.framesIn != c.framesEmitted + c.framesDropped + c.framesBuffered {
            violations.append("\(at): \(name) counters do not add up: \(c)")
          }
          if c.framesBuffered != side.buffered || side.buffered > side.capacity {
            violations.append("\(at): \(name) buffered \(side.buffered) of \(side.capacity)")
          }
        }
        if violations.count > 20 { break }
      }
      dropped +=
        pipeline.mixer.app.counters.framesDropped + pipeline.mixer.mic.counters.framesDropped
      if violations.count > 20 { break }
    }
    #expect(violations.isEmpty, "\(violations.count) violations, first: \(violations.prefix(5))")
    #expect(steps > schedules * 5)
    #expect(outputFrames > 0)
  }

  // MARK: - Any split gives the same output

  /// A ``SourceChain`` fed the same input in random pieces (empty pieces included) gives
  /// bit-for-bit the output of one call, for random formats, with the default and the fast
  /// resampler.
  @Test(arguments: [false, true])
  func streamedEqualsOneShot(fast: Bool) throws {
    var rng = SplitMix64(seed: fast ? 0xFA57 : 0xBA1A)
    let factory = ResamplerFactory.builtin(fast ? .fast : .balanced)
    for trial in 0..<(fast ? 24 : 8) {
      var signal = _Signal(rng: &rng)
      signal.switchFormat(&rng)
      let frames = Int.random(in: 1...6_000, using: &rng)
      let bytes = signal.next(frames: frames, rng: &rng)
      let format = signal.format
      var oneShot = _Collect()
      var whole = SourceChain(outputChannels: 2, resampler: factory)
      try bytes.withUnsafeBytes { try whole.process($0, format: format, into: &oneShot) }
      whole.flush(into: &oneShot)

      var streamed = _Collect()
      var pieces = SourceChain(outputChannels: 2, resampler: factory)
      var start = 0
      while start <= frames {
        let n = min(frames - start, _bufferLength(&rng, max: 2_000))
        let lower = start * format.bytesPerFrame
        let upper = (start + n) * format.bytesPerFrame
        try bytes.withUnsafeBytes {
          try pieces.process(
            UnsafeRawBufferPointer(rebasing: $0[lower..<upper]), format: format, into: &streamed)
        }
        start += n
        if start == frames { break }
      }
      pieces.flush(into: &streamed)
      #expect(streamed.samples == oneShot.samples, "trial \(trial): \(format)")
      let expected = Int((Double(frames) * 48_000 / Double(format.sampleRate)).rounded())
      #expect(abs(oneShot.samples.count / 2 - expected) <= 1, "trial \(trial): \(format)")
    }
  }

  // MARK: - A stalled source

  /// The mic stalls for ten simulated minutes while the app keeps delivering 1,024-frame
  /// 44.1 kHz buffers (25,840 callbacks) with a mix call after each. The pipeline's memory does
  /// not change, the app never holds more than its lag bound, app audio keeps flowing at one
  /// buffer per call, nothing is dropped; when the mic returns, mixing resumes.
  ///
  /// Ten real minutes run with `_HoldResampler` (seconds in a debug build); the built-in `fast`
  /// preset, whose history and coefficients count in ``CapturePipeline/retainedBytes``, runs the
  /// same stall for 20 s (ten minutes of it take about two minutes in a debug build). Mono app.
  @Test(arguments: [(_Backend.hold, 600), (.fast, 20)])
  fileprivate func micStalled(_ backend: _Backend, seconds: Int) {
    let config = CapturePipeline.Configuration(resampler: backend.factory)
    var pipeline = CapturePipeline(config)
    let appFormat = PCMFormat(
      sampleRate: 44_100, channelCount: 1, sampleType: .s16, byteOrder: .big)
    let micFormat = PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16)
    let appDescription = StreamDescription(appFormat)
    let micDescription = StreamDescription(micFormat)
    let appBuffer = _tone(frames: 1_024, rate: 44_100, hz: 1_000, format: appFormat)
    let micBuffer = _tone(frames: 743, rate: 32_000, hz: 440, format: micFormat)
    var out = [Float](repeating: 0, count: 2 * 8_192)
    func mix() -> Int {
      out.withUnsafeMutableBufferPointer { pipeline.mix(into: $0) }
    }
    func push(app: Bool, mic: Bool) {
      if app {
        appBuffer.withUnsafeBytes { try! pipeline.append(.app, $0, description: appDescription) }
      }
      if mic {
        micBuffer.withUnsafeBytes { try! pipeline.append(.mic, $0, description: micDescription) }
      }
    }
    // Two seconds with both sources.
    for _ in 0..<86 {
      push(app: true, mic: true)
      _ = mix()
    }
    let retained = pipeline.retainedBytes
    // Mic frames already in the mixer when the stall begins still mix with the app's next ones
    // (how many depends on the two resamplers' delays).
    let micLeft = pipeline.mixer.mic.buffered
    let mixedBefore = pipeline.mixer.app.counters.framesMixed + micLeft
    let appEmittedBefore = pipeline.mixer.app.counters.framesEmitted

    // The stall: 600 s is 25,840 callbacks of 1,024 frames at 44.1 kHz.
    let callbacks = (seconds * 44_100 + 1_023) / 1_024
    var overBound = 0
    var retainedChanged = 0
    var slowCalls = 0
    var firstFlowing: Int?
    var totalOut = 0
    for call in 0..<callbacks {
      push(app: true, mic: false)
      let stillMixing = pipeline.mixer.app.counters.framesMixed < mixedBefore
      let n = mix()
      totalOut += n
      if n > 0 && firstFlowing == nil && !stillMixing { firstFlowing = call }
      if let first = firstFlowing, call > first, !stillMixing, !(1_100...1_130).contains(n) {
        slowCalls += 1
      }
      if pipeline.mixer.app.buffered > pipeline.mixer.lagBound(for: .app) { overBound += 1 }
      if pipeline.retainedBytes != retained { retainedChanged += 1 }
    }
    let app = pipeline.mixer.app.counters
    let mic = pipeline.mixer.mic.counters
    #expect(overBound == 0)
    #expect(retainedChanged == 0)
    #expect(pipeline.retainedBytes == retained)
    // App audio flows within a few calls of the stall and then one buffer per call.
    #expect((firstFlowing ?? .max) < 10)
    #expect(slowCalls == 0)
    // Everything the app delivered came out, except at most its lag bound still buffered.
    let appIn = Double(callbacks * 1_024) * 48_000 / 44_100
    #expect(Double(totalOut) > appIn - Double(pipeline.mixer.lagBound(for: .app)) - 64)
    #expect(app.framesEmitted - appEmittedBefore == totalOut)
    #expect(app.framesMixed == mixedBefore)
    #expect(app.framesDropped == 0 && mic.framesDropped == 0)
    #expect(mic.framesPadded >= totalOut - micLeft)

    // The mic returns: mixing resumes.
    var mixedCalls = 0
    for _ in 0..<43 {
      push(app: true, mic: true)
      let mixedPrior = pipeline.mixer.mic.counters.framesMixed
      _ = mix()
      if pipeline.mixer.mic.counters.framesMixed > mixedPrior { mixedCalls += 1 }
    }
    #expect(mixedCalls == 43)
    #expect(pipeline.mixer.app.counters.framesMixed > mixedBefore + 40_000)
    #expect(pipeline.retainedBytes == retained)
    for c in [pipeline.mixer.app.counters, pipeline.mixer.mic.counters] {
      #expect(c.framesIn == c.framesEmitted + c.framesDropped + c.framesBuffered)
    }
  }

  // MARK: - Format changes leak nothing

  /// A 1 kHz tone at 44.1 kHz for one second, then a 3 kHz tone at 32 kHz for one second, on
  /// the app side of a pipeline whose mic is disabled (so the app passes through untouched).
  /// The first tone occupies exactly the first 48,000 output frames; after the new resampler's
  /// start-up (bounded by its latency and its filter's whole length: a minimum-phase filter,
  /// which the preset is at both rates, rings for all of it), the output is the 3 kHz tone with
  /// high SNR and no trace of the 1 kHz one.
  @Test func formatChangeLeaksNoOldSamples() {
    var pipeline = CapturePipeline()
    pipeline.setEnabled(.mic, false)
    let first = PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big)
    let second = PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .f32)
    let a = _tone(frames: 44_100, rate: 44_100, hz: 1_000, format: first)
    let b = _tone(frames: 32_000, rate: 32_000, hz: 3_000, format: second)
    var output: [Float] = []
    var scratch = [Float](repeating: 0, count: 2 * 8_192)
    func drain() {
      while true {
        let n = scratch.withUnsafeMutableBufferPointer { pipeline.mix(into: $0) }
        if n == 0 { break }
        output += scratch[..<(n * 2)]
      }
    }
    for (bytes, format) in [(a, first), (b, second)] {
      let step = 1_024 * format.bytesPerFrame
      for start in stride(from: 0, to: bytes.count, by: step) {
        let piece = bytes[start..<min(start + step, bytes.count)]
        piece.withUnsafeBytes {
          try! pipeline.append(.app, $0, description: StreamDescription(format))
        }
        drain()
      }
    }
    pipeline.finish(.app)
    pipeline.finish(.mic)
    drain()
    #expect(output.count == 2 * 96_000)
    let left = stride(from: 0, to: output.count, by: 2).map { output[$0] }
    let right = stride(from: 1, to: output.count, by: 2).map { output[$0] }
    #expect(left == right)
    // Each resampler's reach around a step in its input, in output frames: its latency and its
    // whole filter (a linear-phase one reaches half of it either side).
    let margin = [(32_000, 1), (44_100, 2)].map { rate, channels in
      let r = PolyphaseResampler(inputRate: rate, outputRate: 48_000, channelCount: channels)
      return r.latency + (r.taps * 48_000 + rate - 1) / rate
    }.max()!
    // The old tone up to the change.
    let old = ToneFit(left, frequency: 1_000 / 48_000, range: margin..<(48_000 - margin))
    #expect(old.snrDB > 80)
    // After the change: the new tone alone.
    let window = (48_000 + margin)..<(96_000 - margin)
    let new = ToneFit(left, frequency: 3_000 / 48_000, range: window)
    #expect(new.snrDB > 80, "SNR \(new.snrDB) dB")
    #expect(abs(new.amplitude - 0.5) < 0.01)
    let leak = ToneFit(left, frequency: 1_000 / 48_000, range: window)
    #expect(leak.amplitude < 1e-4, "1 kHz amplitude \(leak.amplitude) after the change")
  }
}

// MARK: - Helpers

/// The resampler backend a property runs with.
private enum _Backend: Sendable, CustomTestStringConvertible {
  case hold
  case fast

  var factory: ResamplerFactory {
    switch self {
    case .hold: ResamplerFactory { _HoldResampler(inputRate: $0, outputRate: $1, channelCount: $2) }
    case .fast: ResamplerFactory.builtin(.fast)
    }
  }

  var testDescription: String { self == .hold ? "zero-order hold" : "built-in fast" }
}

/// A zero-order-hold converter at the exact rational rate: output frame `j` (after `latency`
/// frames of silence) repeats input frame `⌊j × inputRate / outputRate⌋`. No filter, so it costs
/// almost nothing in a debug build and never overshoots; it keeps the ``Resampler`` contract
/// the pipeline relies on (any split gives the same output, a latency to drop, reset).
private struct _HoldResampler: Resampler {
  let inputRate: Int
  let outputRate: Int
  let channelCount: Int
  let latency = 3
  var framesIn = 0
  var framesOut = 0
  var silenceLeft = 3

  init(inputRate: Int, outputRate: Int, channelCount: Int) {
    self.inputRate = inputRate
    self.outputRate = outputRate
    self.channelCount = channelCount
  }

  mutating func process(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
  ) -> (consumed: Int, produced: Int) {
    let ch = channelCount
    let n = input.count / ch
    let room = output.count / ch
    var produced = 0
    while silenceLeft > 0 && produced < room {
      for c in 0..<ch { output[produced * ch + c] = 0 }
      silenceLeft -= 1
      produced += 1
    }
    while produced < room {
      let index = framesOut * inputRate / outputRate
      if index >= framesIn + n { break }
      for c in 0..<ch { output[produced * ch + c] = input[(index - framesIn) * ch + c] }
      framesOut += 1
      produced += 1
    }
    framesIn += n
    return (n, produced)
  }

  mutating func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int { 0 }

  mutating func reset() {
    framesIn = 0
    framesOut = 0
    silenceLeft = latency
  }

  func maxOutputFrames(forInputFrames frames: Int) -> Int {
    frames * outputRate / inputRate + 2 + latency
  }
}

/// A source whose format may switch; produces in-range audio as bytes of its current format.
private struct _Signal {
  static let rates = [8_000, 16_000, 32_000, 44_100, 48_000, 96_000]
  static let types: [SampleType] = [.s16, .f32, .s24]
  var format: PCMFormat
  var phase = 0.0
  var hz = 440.0

  init(rng: inout SplitMix64) {
    format = PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big)
    switchFormat(&rng)
  }

  mutating func switchFormat(_ rng: inout SplitMix64) {
    format = PCMFormat(
      sampleRate: Self.rates.randomElement(using: &rng)!,
      channelCount: Int.random(in: 1...2, using: &rng),
      sampleType: Self.types.randomElement(using: &rng)!,
      byteOrder: Bool.random(using: &rng) ? .big : .little)
    hz = Double.random(in: 20...(0.45 * Double(format.sampleRate)), using: &rng)
  }

  /// `frames` frames: at 48 kHz (no resampler) full-scale noise including both extremes;
  /// otherwise a tone of amplitude 0.45 plus noise of 0.05, leaving headroom for the
  /// inter-sample peaks any band-limited resampler may produce.
  mutating func next(frames: Int, rng: inout SplitMix64) -> [UInt8] {
    var samples = [Float](repeating: 0, count: frames * format.channelCount)
    let fullScale = format.sampleRate == 48_000
    let step = 2 * Double.pi * hz / Double(format.sampleRate)
    for i in 0..<frames {
      let tone = Float(0.45 * sin(phase))
      phase += step
      if phase > 2 * Double.pi { phase -= 2 * Double.pi }
      for c in 0..<format.channelCount {
        samples[i * format.channelCount + c] =
          fullScale
          ? [-1, 1, Float.random(in: -1...1, using: &rng)].randomElement(using: &rng)!
          : tone + Float.random(in: -0.05...0.05, using: &rng)
      }
    }
    return _encode(samples, format)
  }
}

/// Buffer lengths: mostly short, sometimes empty, now and then up to `max` frames.
private func _bufferLength(_ rng: inout SplitMix64, max: Int = 30_000) -> Int {
  switch Int.random(in: 0..<100, using: &rng) {
  case 0..<5: 0
  case 5..<97: Int.random(in: 1...min(1_200, max), using: &rng)
  default: Int.random(in: 1...max, using: &rng)
  }
}

/// Interleaved samples in [-1, 1] as bytes of `format` (s16, s24 or f32, either byte order).
private func _encode(_ samples: [Float], _ format: PCMFormat) -> [UInt8] {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(samples.count * format.sampleType.bytesPerSample)
  let big = format.byteOrder == .big
  func put(_ value: UInt32, _ width: Int) {
    for k in 0..<width {
      let shift = big ? 8 * (width - 1 - k) : 8 * k
      bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
    }
  }
  for x in samples {
    switch format.sampleType {
    case .s16:
      put(UInt32(UInt16(bitPattern: Int16(max(-32_768, min(32_767, (x * 32_768).rounded()))))), 2)
    case .s24:
      let v = Int32(max(-8_388_608, min(8_388_607, (x * 8_388_608).rounded())))
      put(UInt32(bitPattern: v) & 0xFF_FFFF, 3)
    case .f32:
      put(x.bitPattern, 4)
    default:
      preconditionFailure("not generated: \(format.sampleType)")
    }
  }
  return bytes
}

/// A tone of amplitude 0.5 in `format` (every channel the same).
private func _tone(frames: Int, rate: Int, hz: Double, format: PCMFormat) -> [UInt8] {
  var samples: [Float] = []
  samples.reserveCapacity(frames * format.channelCount)
  for i in 0..<frames {
    let x = Float(0.5 * sin(2 * Double.pi * hz * Double(i) / Double(rate)))
    for _ in 0..<format.channelCount { samples.append(x) }
  }
  return _encode(samples, format)
}

/// Collects what a chain produces.
private struct _Collect: FrameSink {
  var samples: [Float] = []
  mutating func append(_ frames: UnsafeBufferPointer<Float>) { samples += frames }
}
