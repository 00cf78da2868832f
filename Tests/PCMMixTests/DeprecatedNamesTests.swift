import Testing

@testable import PCMMix

/// The names this release retired still compile and forward to their replacements, for one
/// release (`Sources/PCMMix/Deprecated/`): each old spelling gives what the new one gives.
/// The tests are themselves deprecated so that calling the old names does not warn.
@Suite struct DeprecatedNamesTests {
  static let app = CapturePipelineTests.appBytes(seconds: 0.25)
  static let mic = CapturePipelineTests.micBytes(seconds: 0.25)

  /// All of `app` and `mic` through one pipeline, appended in 100 ms pieces by `feed`, then
  /// finished by `finish` and mixed out.
  static func run(
    feed: (inout CapturePipeline, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void,
    finish: (inout CapturePipeline) -> Void
  ) throws -> [Int16] {
    var pipeline = CapturePipeline()
    try app.withUnsafeBytes { a in
      try mic.withUnsafeBytes { m in try feed(&pipeline, a, m) }
    }
    finish(&pipeline)
    var out = [Int16](repeating: 0, count: 2 * 48_000)
    let frames = out.withUnsafeMutableBufferPointer { pipeline.mix(into: $0) }
    return Array(out[..<(2 * frames)])
  }

  @available(*, deprecated, message: "exercises the deprecated names")
  @Test func oldAppendAndFinishGiveTheSameMix() throws {
    let new = try Self.run(
      feed: { p, a, m in
        try p.append(.app, a, description: CapturePipelineTests.appDescription)
        try p.append(.mic, m, description: CapturePipelineTests.micDescription)
      },
      finish: { p in
        p.finish(.app)
        p.finish(.mic)
      })
    let old = try Self.run(
      feed: { p, a, m in
        try p.appendApp(a, description: CapturePipelineTests.appDescription)
        try p.appendMic(m, description: CapturePipelineTests.micDescription)
      },
      finish: { p in p.finish() })
    let planes = try Self.run(
      feed: { p, a, m in
        try withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 1) { list in
          list[0] = a
          try p.appendApp(
            planes: UnsafeBufferPointer(list), description: CapturePipelineTests.appDescription)
          list[0] = m
          try p.appendMic(
            planes: UnsafeBufferPointer(list), description: CapturePipelineTests.micDescription)
        }
      },
      finish: { p in p.finish() })
    #expect(new.count > 2 * 10_000)
    #expect(old == new)
    #expect(planes == new)
  }

  @available(*, deprecated, message: "exercises the deprecated names")
  @Test func oldMixerAppendAndNormalizedForward() {
    let samples: [Float] = (0..<960).map { Float($0 % 97) / 128 }
    var a = DualBufferMixer()
    var b = DualBufferMixer()
    samples.withUnsafeBufferPointer {
      a.append(.app, samples: $0)
      a.append(.mic, samples: $0)
      b.append(.app, $0)
      b.append(.mic, $0)
    }
    var outA = [Float](repeating: 0, count: 960)
    var outB = [Float](repeating: 1, count: 960)
    #expect(outA.withUnsafeMutableBufferPointer { a.mix(into: $0) } == 480)
    #expect(outB.withUnsafeMutableBufferPointer { b.mix(into: $0) } == 480)
    #expect(outA == outB)

    let wild = DualBufferMixer.Configuration(
      channelCount: 0, capacityFrames: -5, maxLagFrames: 99, appGainDB: .nan)
    #expect(wild.normalized == wild.clamped)
    #expect(wild.clamped.channelCount == 1 && wild.clamped.maxLagFrames == 1)
  }

  @available(*, deprecated, message: "exercises the deprecated names")
  @Test func oldStatisticsNameAndDoubleRatesForward() {
    let s: CaptureSourceStatistics = CaptureSideStatistics()
    #expect(s == CaptureSideStatistics())
    #expect(LevelMeter.Configuration(sampleRate: 44_100.0).sampleRate == 44_100)
    #expect(LevelMeter.Configuration(sampleRate: Double.nan).sampleRate == 48_000)
    #expect(Limiter.Configuration(sampleRate: 32_000.4).sampleRate == 32_000)
    #expect(Limiter.Configuration(sampleRate: 1e300).sampleRate == 48_000)
  }
}
