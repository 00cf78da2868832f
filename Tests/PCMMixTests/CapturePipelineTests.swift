import Foundation
import Testing

@testable import PCMMix

/// The whole capture path with ReplayKit-shaped input: app audio at 44.1 kHz stereo s16be in
/// 1024-frame buffers, mic audio at 32 kHz mono s16le in uneven buffers, both arriving as they
/// would in time, mixed to 48 kHz stereo as they come.
@Suite struct CapturePipelineTests {
  static let appRate = 44_100
  static let micRate = 32_000
  static let appDescription = StreamDescription(
    PCMFormat(sampleRate: appRate, channelCount: 2, sampleType: .s16, byteOrder: .big))
  static let micDescription = StreamDescription(
    PCMFormat(sampleRate: micRate, channelCount: 1, sampleType: .s16, byteOrder: .little))

  /// Tones: app left, app right, mic. Over 96 output frames each makes whole periods, so fits
  /// over a multiple of 96 frames do not see each other.
  static let appLeft = (frequency: 1000.0, amplitude: 0.5)
  static let appRight = (frequency: 1500.0, amplitude: 0.4)
  static let mic = (frequency: 2000.0, amplitude: 0.6)

  /// `seconds` of app audio: interleaved s16be bytes.
  static func appBytes(seconds: Double) -> [UInt8] {
    let frames = Int(Double(appRate) * seconds)
    var bytes = [UInt8](repeating: 0, count: frames * 4)
    for n in 0..<frames {
      let t = Double(n) / Double(appRate)
      let l = s16(appLeft.amplitude * cos(2 * Double.pi * appLeft.frequency * t))
      let r = s16(appRight.amplitude * cos(2 * Double.pi * appRight.frequency * t))
      for (k, v) in [l, r].enumerated() {
        let u = UInt16(bitPattern: v)
        bytes[4 * n + 2 * k] = UInt8(u >> 8)
        bytes[4 * n + 2 * k + 1] = UInt8(u & 0xFF)
      }
    }
    return bytes
  }

  /// `seconds` of mic audio: mono s16le bytes.
  static func micBytes(seconds: Double) -> [UInt8] {
    let frames = Int(Double(micRate) * seconds)
    var bytes = [UInt8](repeating: 0, count: frames * 2)
    for n in 0..<frames {
      let t = Double(n) / Double(micRate)
      let u = UInt16(bitPattern: s16(mic.amplitude * cos(2 * Double.pi * mic.frequency * t)))
      bytes[2 * n] = UInt8(u & 0xFF)
      bytes[2 * n + 1] = UInt8(u >> 8)
    }
    return bytes
  }

  static func s16(_ x: Double) -> Int16 { Int16(max(-32768, min(32767, (x * 32768).rounded()))) }

  /// Feeds both streams in arrival order (whichever source's next buffer starts earlier goes
  /// first), app in `appFrames`-frame buffers, mic in buffers of random length, mixing after
  /// every buffer into `output`; `each` sees the pipeline after every mix.
  static func capture(
    _ pipeline: inout CapturePipeline, app: [UInt8], mic: [UInt8], appFrames: Int = 1024,
    micFrames: ClosedRange<Int> = 200...1500, seed: UInt64 = 1, loops: Int = 1,
    output: (inout CapturePipeline) -> Void, each: (Int, CapturePipeline) -> Void = { _, _ in }
  ) throws {
    var rng = SplitMix64(seed: seed)
    let appTotal = app.count / 4 * loops
    let micTotal = mic.count / 2 * loops
    var (a, m) = (0, 0)
    var step = 0
    while a < appTotal || m < micTotal {
      // Compare start times a / appRate and m / micRate without rounding.
      let appFirst = m >= micTotal || (a < appTotal && a * micRate <= m * appRate)
      if appFirst {
        let offset = a % (app.count / 4)
        let n = min(appFrames, app.count / 4 - offset, appTotal - a)
        try app.withUnsafeBytes { b in
          try pipeline.append(
            .app, UnsafeRawBufferPointer(rebasing: b[(offset * 4)..<((offset + n) * 4)]),
            description: appDescription)
        }
        a += n
      } else {
        let offset = m % (mic.count / 2)
        let want = Int.random(in: micFrames, using: &rng)
        let n = min(want, mic.count / 2 - offset, micTotal - m)
        try mic.withUnsafeBytes { b in
          try pipeline.append(
            .mic, UnsafeRawBufferPointer(rebasing: b[(offset * 2)..<((offset + n) * 2)]),
            description: micDescription)
        }
        m += n
      }
      output(&pipeline)
      each(step, pipeline)
      step += 1
    }
  }

  /// The counter identities that hold at every moment.
  static func checkCounters(_ p: CapturePipeline, _ label: String = "") {
    for c in [p.mixer.app.counters, p.mixer.mic.counters] {
      #expect(c.framesIn == c.framesEmitted + c.framesDropped + c.framesBuffered, "\(label)")
      #expect(c.framesBuffered <= p.mixer.configuration.capacityFrames, "\(label)")
    }
    #expect(p.mixer.app.counters.framesMixed == p.mixer.mic.counters.framesMixed)
    #expect(p.mixer.app.counters.framesIn == p.app.framesOut, "\(label)")
    #expect(p.mixer.mic.counters.framesIn == p.mic.framesOut, "\(label)")
  }

  // MARK: End to end

  @Test(arguments: [false, true])
  func replayKitShapedInputMixesAtTheRightLevels(int16: Bool) throws {
    var pipeline = CapturePipeline()
    var out: [Float] = []
    var int16Room = [Int16](repeating: 0, count: 4096 * 2)
    var floatRoom = [Float](repeating: 0, count: 4096 * 2)
    let drain = { (p: inout CapturePipeline) in
      while true {
        let n: Int
        if int16 {
          n = int16Room.withUnsafeMutableBufferPointer { p.mix(into: $0) }
          out += int16Room[..<(n * 2)].map { Float($0) / 32768 }
        } else {
          n = floatRoom.withUnsafeMutableBufferPointer { p.mix(into: $0) }
          out += floatRoom[..<(n * 2)]
        }
        if n == 0 { break }
      }
    }
    try Self.capture(
      &pipeline, app: Self.appBytes(seconds: 1), mic: Self.micBytes(seconds: 1), output: drain,
      each: { step, p in Self.checkCounters(p, "step \(step)") })
    pipeline.finish(.app)
    pipeline.finish(.mic)
    drain(&pipeline)
    Self.checkCounters(pipeline)

    // One second of each in, one second of 48 kHz stereo out, every frame of it mixed.
    #expect(out.count == 48_000 * 2)
    let (app, mic) = (pipeline.mixer.app.counters, pipeline.mixer.mic.counters)
    #expect(app.framesIn == 48_000 && mic.framesIn == 48_000)
    #expect(app.framesMixed == 48_000 && mic.framesMixed == 48_000)
    #expect(app.framesAlone == 0 && mic.framesAlone == 0)
    #expect(app.framesPadded == 0 && mic.framesPadded == 0)
    #expect(app.framesDropped == 0 && mic.framesDropped == 0)
    #expect(app.framesBuffered == 0 && mic.framesBuffered == 0)
    #expect(out.allSatisfy { $0.isFinite && abs($0) <= 1 })

    // Each tone at half its level (the average policy), on its own side, in phase.
    let range = 2000..<(2000 + 96 * 450)
    func fit(_ channel: Int, _ tone: (frequency: Double, amplitude: Double)) -> ToneFit {
      ToneFit(out, stride: 2, offset: channel, frequency: tone.frequency / 48_000, range: range)
    }
    for (channel, tone) in [(0, Self.appLeft), (1, Self.appRight), (0, Self.mic), (1, Self.mic)] {
      let f = fit(channel, tone)
      let errorDB = 20 * log10(f.amplitude / (tone.amplitude / 2))
      #expect(abs(errorDB) < 0.01, "\(tone.frequency) Hz on channel \(channel): \(errorDB) dB")
      // Each source through the default preset's filter for its rate: minimum phase where
      // linear phase would exceed the delay budget (at 32 and 44.1 kHz, whose stopband starts
      // at the input's Nyquist frequency), with its own lag at each frequency.
      let rate = tone.frequency == Self.mic.frequency ? Self.micRate : Self.appRate
      let minimumPhase =
        PolyphaseResampler(inputRate: rate, outputRate: 48_000, channelCount: 1).isMinimumPhase
      expectAligned(f, hz: tone.frequency, minimumPhase: minimumPhase, "channel \(channel):")
    }
    // Left stays left.
    #expect(fit(0, Self.appRight).amplitude < 1e-4, "app right leaks into left")
    #expect(fit(1, Self.appLeft).amplitude < 1e-4, "app left leaks into right")
  }

  // MARK: Memory

  /// The capture's memory is fixed once both formats are known: nothing grows with time.
  @Test func retainedBytesDoesNotGrowOverAMinute() throws {
    // A short filter keeps a minute of capture quick in a debug build; storage is sized the
    // same way at every quality.
    let quick = try ResamplerQuality(passbandEdge: 0.2, stopbandEdge: 1, attenuation: 21)
    var pipeline = CapturePipeline(.init(resampler: ResamplerFactory.builtin(quick)))
    var room = [Int16](repeating: 0, count: 2048 * 2)
    var afterOneSecond = 0
    var largest = 0
    var written = 0
    try Self.capture(
      &pipeline, app: Self.appBytes(seconds: 1), mic: Self.micBytes(seconds: 1),
      micFrames: 300...1800, seed: 60, loops: 60,
      output: { p in
        while true {
          let n = room.withUnsafeMutableBufferPointer { p.mix(into: $0) }
          written += n
          if n == 0 { break }
        }
      },
      each: { _, p in
        if afterOneSecond == 0 && p.mixer.app.counters.framesIn >= 48_000 {
          afterOneSecond = p.retainedBytes
        }
        largest = max(largest, p.retainedBytes)
      })
    Self.checkCounters(pipeline)
    #expect(afterOneSecond > 0)
    #expect(pipeline.retainedBytes == afterOneSecond, "grew over the minute")
    #expect(largest == afterOneSecond, "grew along the way")
    #expect(written >= 60 * 48_000 - 2 * 4800, "output fell behind")
    // Far under the extension's 50 MB.
    #expect(afterOneSecond < 4 << 20)
  }
}

/// `prepare` builds the chains up front: the first buffers then change no storage, and the
/// output is the same as without it.
@Suite struct CapturePipelinePrepareTests {
  @Test func prepareConfiguresAheadWithoutChangingOutput() throws {
    let app = StreamDescription(
      PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big))
    let mic = StreamDescription(PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16))
    let appBytes = (0..<(1024 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let micBytes = (0..<(1024 * 2)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    func run(prepared: Bool) throws -> (out: [Int16], before: Int, after: Int) {
      var p = CapturePipeline()
      if prepared { try p.prepare(app: app, mic: mic) }
      let before = p.retainedBytes
      var out = [Int16](repeating: 0, count: 4096 * 2)
      var n = 0
      for _ in 0..<3 {
        try appBytes.withUnsafeBytes { try p.append(.app, $0, description: app) }
        try micBytes.withUnsafeBytes { try p.append(.mic, $0, description: mic) }
        n += out.withUnsafeMutableBufferPointer {
          p.mix(into: UnsafeMutableBufferPointer(rebasing: $0[(n * 2)...]))
        }
      }
      return (Array(out[..<(n * 2)]), before, p.retainedBytes)
    }
    let prepared = try run(prepared: true)
    let plain = try run(prepared: false)
    #expect(prepared.before == prepared.after, "the first buffers grew storage")
    #expect(plain.before < plain.after)
    #expect(prepared.out == plain.out)
    #expect(!prepared.out.isEmpty)
  }
}
