import Foundation
import PCMMix
import Testing

/// Every value an adopter can hand the capture pipelines either works or comes back as a typed
/// error: nothing traps (a trap ends a broadcast extension), nothing hangs. The cases are the
/// ones adopters met, one per line; ``FuzzCapture`` (in `Fuzz/`) runs the same property over
/// random configurations and schedules.
@Suite struct NoTrapTests {
  static let app = StreamDescription(
    PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big))
  static let mic = StreamDescription(
    PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16))

  @Test(arguments: [Double.nan, .infinity, -.infinity, 1e30, -1e30, 1e300, 9.3e9])
  func aTimeThatCannotBeIsInvalid(seconds: Double) {
    let t = MediaTime(seconds: seconds)
    #expect(!t.isValid)
    #expect(t.seconds.isNaN)
    #expect(t == .invalid)
    #expect(t < MediaTime(value: 0, timescale: 1))
    _ = t.hashValue
    _ = t.description
  }

  @Test func timesAtTheEdgesOfTheirTypesCompareAndHash() {
    let edges = [
      MediaTime(value: .max, timescale: 1), MediaTime(value: .min, timescale: 1),
      MediaTime(value: .min, timescale: .max), MediaTime(value: .max, timescale: 0),
      MediaTime(value: .min, timescale: 0), MediaTime(value: 5, timescale: -1),
      MediaTime(value: .min, timescale: .min), MediaTime(seconds: 1.5, timescale: -600),
    ]
    for a in edges {
      for b in edges {
        _ = (a == b, a < b)
      }
      _ = (a.hashValue, a.seconds, a.description)
    }
    #expect(MediaTime(value: .max, timescale: 1).isValid)
    #expect(!MediaTime(value: 5, timescale: -1).isValid)
    #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 2, timescale: 4))
  }

  /// One configuration value at a time, each refused with a ``ConfigurationError`` naming it.
  static let badConfigurations:
    [(String, @Sendable (inout ClockedCapturePipeline.Configuration) -> Void)] = [
      ("outputRate", { $0.outputRate = 0 }),
      ("outputRate", { $0.outputRate = -48_000 }),
      ("fadeSeconds", { $0.fadeSeconds = .nan }),
      ("fadeSeconds", { $0.fadeSeconds = -0.01 }),
      ("latency", { $0.latency = .fixed(seconds: .nan) }),
      ("latency", { $0.latency = .fixed(seconds: -1) }),
      ("latency (minimum)", { $0.latency = .adaptive(minimum: .nan, maximum: 1) }),
      ("latency (maximum)", { $0.latency = .adaptive(minimum: 0.1, maximum: .infinity) }),
      ("latency", { $0.latency = .adaptive(minimum: 1, maximum: 0.5) }),
      ("startupWait", { $0.startupWait = .nan }),
      ("pullBlockFrames", { $0.pullBlockFrames = 0 }),
      ("ceilingDB", { $0.ceilingDB = .infinity }),
      ("appGainDB", { $0.appGainDB = .nan }),
      ("driftTimeConstant", { $0.driftTimeConstant = 0 }),
      ("maxRatioAdjustment", { $0.maxRatioAdjustment = .nan }),
      ("gapTolerance", { $0.gapTolerance = -1 }),
      ("origin", { $0.origin = .invalid }),
      ("origin", { $0.origin = MediaTime(value: .max, timescale: 1) }),
      ("preparedRates", { $0.preparedRates = [0] }),
      ("inputRates (lower bound)", { $0.inputRates = 0...48_000 }),
    ]

  @Test func aConfigurationItCannotWorkWithIsRefusedByName() {
    for (name, change) in Self.badConfigurations {
      var c = ClockedCapturePipeline.Configuration()
      change(&c)
      do throws(CaptureError) {
        _ = try ClockedCapturePipeline(c, app: Self.app, mic: Self.mic)
        Issue.record("\(name): taken")
      } catch {
        guard case .configuration(let e) = error else {
          Issue.record("\(name): \(error)")
          continue
        }
        #expect(e.parameter == name, "\(e)")
      }
      do throws(CaptureError) {
        _ = try RealtimeCapturePipeline(c, app: Self.app, mic: Self.mic)
        Issue.record("\(name): taken by the real-time front")
      } catch {
        if case .configuration(let e) = error {
          #expect(e.parameter == name, "\(e)")
        } else {
          Issue.record("\(name): \(error)")
        }
      }
    }
  }

  @Test func aStampBeyondTheTimelineIsRefusedAtTheAppendNotTrappedAtThePull() throws {
    var c = ClockedCapturePipeline.Configuration(resampler: .variableRatio(.fast))
    c.origin = MediaTime(seconds: 1_000)
    var p = try ClockedCapturePipeline(c, app: Self.app, mic: Self.mic)
    let bytes = [UInt8](repeating: 0, count: 4 * 1_024)
    for stamp in [
      MediaTime(value: .max, timescale: 1_000_000_000), MediaTime(seconds: 2e14, timescale: 1_000),
      MediaTime(value: .min, timescale: 1), MediaTime(seconds: 1_000 + 1e8),
    ] {
      // The guide's pattern: a `do throws(CaptureError)` inside the closure that lends the bytes.
      let refused: CaptureError? = bytes.withUnsafeBytes { raw in
        do throws(CaptureError) {
          try p.append(.app, raw, description: Self.app, time: stamp)
          return nil
        } catch {
          return error
        }
      }
      #expect(refused == .timeOutOfRange(stamp))
    }
    // An invalid stamp is no stamp: the buffer is placed by arrival, and counted.
    try bytes.withUnsafeBytes {
      try p.append(.app, $0, description: Self.app, time: .invalid)
      try p.append(.app, $0, description: Self.app, time: MediaTime(seconds: .nan))
    }
    #expect(p.statistics(.app).invalidStamps == 2)
    #expect(p.statistics(.app).buffers == 2)
    var out = [Int16](repeating: 0, count: 960)
    for _ in 0..<200 { _ = out.withUnsafeMutableBufferPointer { p.pull(into: $0) } }
  }

  @Test func pullsOfAnySizeReturn() throws {
    var c = ClockedCapturePipeline.Configuration(resampler: .variableRatio(.fast))
    c.pullBlockFrames = 1
    var p = try ClockedCapturePipeline(c, app: Self.app, mic: Self.mic)
    let bytes = [UInt8](repeating: 1, count: 4 * 4_410)
    try bytes.withUnsafeBytes {
      try p.append(.app, $0, description: Self.app, time: MediaTime(seconds: 10))
    }
    for frames in [0, 1, 2, 3, 480, 4_096] {
      var out = [Float](repeating: 0, count: 2 * frames + 1)
      _ = out.withUnsafeMutableBufferPointer { p.pull(into: $0) }
    }
    var empty = [Int16]()
    _ = empty.withUnsafeMutableBufferPointer { p.pull(into: $0) }
  }

  /// A float source's samples can hold anything (an uninitialised buffer, a codec's glitch).
  /// Ten samples of `value` in the app at 2 s and in the mic at 3 s, with echo cancellation,
  /// ducking and the loudness meter on and the policy `average` (no limiter to catch what
  /// comes through): no output sample is NaN or ∞, and 5 s later the output is the unpoisoned
  /// run's within −40 dB (−87 to −106 measured). Before, 10³⁰ and −3·10³⁸ (an overflow in the
  /// echo canceller's sums) made every output frame after them NaN, app and mic alike, and 10⁸
  /// left the canceller taking nothing out (−12.5 dB); 3·10³⁸ came out of a resampler as ∞
  /// even with the canceller off.
  @Test(arguments: [Float.nan, .infinity, -.infinity, 1e8, 1e30, -3e38])
  func noSampleValuePoisonsTheMix(_ value: Float) throws {
    func run(_ value: Float?) throws -> [Float] {
      let app = StreamDescription(PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .f32))
      let mic = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .f32))
      var c = RealtimeCapturePipeline.Configuration()
      c.policy = .average
      c.echoCancellation = EchoCancellation()
      c.ducking = Ducking()
      c.meterLoudness = true
      let p = try RealtimeCapturePipeline(c, app: app, mic: mic)
      var output: [Float] = []
      var out = [Float](repeating: 0, count: 960)
      for k in 0..<800 {
        // 10 ms of each: a chord from the app, its echo 30 ms late in the mic under a tone.
        var a = [Float](repeating: 0, count: 2 * 441)
        var m = [Float](repeating: 0, count: 480)
        for i in 0..<441 {
          let t = Double(k * 441 + i) / 44_100
          a[2 * i] = Float(0.3 * sin(2 * .pi * 440 * t) + 0.1 * sin(2 * .pi * 1_733 * t))
          a[2 * i + 1] = a[2 * i]
        }
        for i in 0..<480 {
          let t = Double(k * 480 + i) / 48_000
          m[i] = Float(0.1 * sin(2 * .pi * 440 * (t - 0.03)) + 0.05 * sin(2 * .pi * 250 * t))
        }
        if let value, k == 200 { for i in 100..<110 { a[i] = value } }
        if let value, k == 300 { for i in 100..<110 { m[i] = value } }
        let ta = MediaTime(value: Int64(k * 441), timescale: 44_100)
        let tm = MediaTime(value: Int64(k * 480), timescale: 48_000)
        try a.withUnsafeBytes { try p.append(.app, $0, description: app, time: ta) }
        try m.withUnsafeBytes { try p.append(.mic, $0, description: mic, time: tm) }
        _ = out.withUnsafeMutableBufferPointer { p.pull(into: $0) }
        output += out
      }
      return output
    }
    let (clean, poisoned) = (try run(nil), try run(value))
    #expect(poisoned.allSatisfy { $0.isFinite })
    var (error, power) = (0.0, 0.0)
    for i in (7 * 96_000)..<(8 * 96_000) {
      error += Double(poisoned[i] - clean[i]) * Double(poisoned[i] - clean[i])
      power += Double(clean[i] * clean[i])
    }
    let dB = 10 * log10(error / power)
    #expect(dB <= -40, "\(dB) dB")
  }

  @Test func gainsThatAreNotNumbersChangeNothing() throws {
    var p = try ClockedCapturePipeline(.init(resampler: .variableRatio(.fast)), app: Self.app)
    for dB in [Double.nan, .infinity, -.infinity, 1e300, -1e300] { p.setGain(.app, dB: dB) }
    let r = try RealtimeCapturePipeline(.init(resampler: .variableRatio(.fast)), app: Self.app)
    for dB in [Double.nan, .infinity, -.infinity] { r.setGain(.mic, dB: dB) }
    var out = [Float](repeating: 0, count: 960)
    let status = out.withUnsafeMutableBufferPointer { r.pull(into: $0) }
    let finite = out.allSatisfy { $0.isFinite }
    #expect(finite, "\(status)")
  }

  @Test func aHandOffRingTooLargeIsRefused() {
    do throws(CaptureError) {
      _ = try RealtimeCapturePipeline(handoffBytes: .max)
      Issue.record("taken")
    } catch {
      if case .configuration(let e) = error {
        #expect(e.parameter == "handoffBytes")
      } else {
        Issue.record("\(error)")
      }
    }
    let small = try? RealtimeCapturePipeline(handoffBytes: -5)
    #expect(small != nil)
  }

  @Test func theRealtimeFrontRefusesAStampBeyondReachAtTheCallback() throws {
    let r = try RealtimeCapturePipeline(app: Self.app)
    let bytes = [UInt8](repeating: 0, count: 4 * 1_024)
    try bytes.withUnsafeBytes {
      try r.append(.app, $0, description: Self.app, time: MediaTime(seconds: 5))
    }
    let far = MediaTime(value: .max, timescale: 1_000_000_000)
    #expect(throws: CaptureError.timeOutOfRange(far)) {
      try bytes.withUnsafeBytes {
        try r.append(.app, $0, description: Self.app, time: far)
      }
    }
  }
}

extension NoTrapTests {
  /// A buffer refused for its bytes (not whole frames) after its description probed changes
  /// nothing, the input rate the statistics report included (FuzzCapture found it did).
  @Test func aRefusedBufferChangesNoStatistic() throws {
    var p = try ClockedCapturePipeline(.init(resampler: .variableRatio(.fast)), app: Self.app)
    let good = [UInt8](repeating: 0, count: 4 * 1_024)
    try good.withUnsafeBytes { try p.append(.app, $0, description: Self.app) }
    let before = p.statistics(.app)
    let mono16k = StreamDescription(
      PCMFormat(sampleRate: 16_000, channelCount: 1, sampleType: .s16))
    let odd = [UInt8](repeating: 0, count: 3)
    #expect(throws: CaptureError.self) {
      try odd.withUnsafeBytes { try p.append(.app, $0, description: mono16k) }
    }
    #expect(p.statistics(.app) == before)
  }
}
