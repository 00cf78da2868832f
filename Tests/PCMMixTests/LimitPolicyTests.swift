import Foundation
import PCMMix
import PCMMixTestSupport
import Testing

/// The `limit` policy in both mixers: nothing past the ceiling however loud the sources, the
/// plain sum below it, and (in the clocked pipeline, whose limiter looks ahead into the timeline)
/// no change to where audio lands.
@Suite struct LimitPolicyTests {
  static let ceiling = Float(pow(10, -1.0 / 20))  // −1 dBFS
  static let ceilingInt16 = PCMEncoder.int16(ceiling)

  /// Two sources through a clocked pipeline with `policy`; the output, Float32 and int16.
  static func clocked(
    _ app: SimulatedSource, _ mic: SimulatedSource, policy: MixPolicy, seconds: Double = 4
  ) throws -> (float: [Float], int16: [Int16], meters: MixMeters) {
    var c = ClockedCapturePipeline.Configuration(
      resampler: ResamplerFactory.variableRatio(.shortForTests))
    c.policy = policy
    var float: [Float] = []
    var runner = try SceneRunner(
      c, app: app.streamDescription(rate: app.rate), mic: mic.streamDescription(rate: mic.rate))
    _ = runner.run(
      app: app, mic: mic, duration: seconds,
      onBlock: { status, block in if status.position != nil { float += block } })
    // An int16 pull is the encoder on these very floats (`pull(into:)` for Int16).
    var int16 = [Int16](repeating: 0, count: float.count)
    float.withUnsafeBufferPointer { f in
      int16.withUnsafeMutableBufferPointer { PCMEncoder.encode(f, into: $0) }
    }
    return (float, int16, runner.pipeline.meters)
  }

  static func loud(_ kind: String) -> (SimulatedSource, SimulatedSource) {
    var a = SimulatedSource(rate: 48_000, channels: 2, encoding: .f32le)
    var m = SimulatedSource(rate: 48_000, channels: 1, encoding: .f32le)
    if kind == "noise" {
      (a.noiseAmplitude, a.seed) = (1.0, 5)
      (m.noiseAmplitude, m.seed) = (1.0, 6)
    } else {
      a.tone = (frequency: 997, amplitude: 1.0)
      m.tone = (frequency: 997, amplitude: 1.0)  // in phase: the sum peaks at 2.0
    }
    return (a, m)
  }

  @Test(arguments: ["noise", "sines"])
  func theClockedPipelineNeverPassesTheCeiling(_ kind: String) throws {
    let (a, m) = Self.loud(kind)
    let r = try Self.clocked(a, m, policy: .limit)
    let peak = r.float.map(abs).max()!
    print("limit, \(kind): peak \(20 * log10(peak)) dBFS, limited \(r.meters.limitedSamples)")
    #expect(peak <= Self.ceiling)
    #expect(r.int16.map { abs(Int($0)) }.max()! <= Int(Self.ceilingInt16))
    #expect(r.meters.limitedSamples > 0)
    // It was really loud: the sum without the limiter goes well past full scale.
    let sat = try Self.clocked(a, m, policy: .saturate)
    #expect(sat.meters.clippedSamples > 1_000)
  }

  @Test func belowTheCeilingLimitIsThePlainSum() throws {
    var a = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be)
    a.tone = (frequency: 441.7, amplitude: 0.25)  // −12 dBFS
    var m = SimulatedSource(rate: 32_000, channels: 1, encoding: .s16le)
    (m.noiseAmplitude, m.seed) = (0.25, 9)
    let limited = try Self.clocked(a, m, policy: .limit)
    let saturated = try Self.clocked(a, m, policy: .saturate)
    #expect(limited.float.count == saturated.float.count && limited.float.count > 100_000)
    #expect(limited.float.map(\.bitPattern) == saturated.float.map(\.bitPattern))
    #expect(limited.int16 == saturated.int16)
    #expect(limited.meters.limitedSamples == 0 && saturated.meters.clippedSamples == 0)
  }

  @Test func theLookAheadMovesNoMarker() throws {
    var a = SimulatedSource.replayKitApp(markers: [1, 2, 3])
    a.markerAmplitude = 0.9
    var m = SimulatedSource.replayKitMic(markers: [1.5, 2.5])
    m.markerAmplitude = 0.9
    var c = ClockedCapturePipeline.Configuration(
      resampler: ResamplerFactory.variableRatio(.shortForTests))
    c.policy = .limit
    var runner = try SceneRunner(
      c, app: a.streamDescription(rate: a.rate), mic: m.streamDescription(rate: m.rate))
    let r = runner.run(app: a, mic: m, duration: 4)
    #expect(r.app.missing == 0 && r.app.maxAbsError <= 0.05, "\(r.app)")
    #expect(r.mic.missing == 0 && r.mic.maxAbsError <= 0.05, "\(r.mic)")
  }

  @Test(arguments: ["noise", "sines"])
  func theUntimedMixerNeverPassesTheCeilingEither(_ kind: String) throws {
    // No look-ahead here: the limiter acts on each sample as it comes.
    var mixer = DualBufferMixer(.init(policy: .limit))
    var rng = SplitMix64(seed: 12)
    var outF = [Float](repeating: 0, count: 960)
    var peak: Float = 0
    for block in 0..<400 {
      var x = [Float](repeating: 0, count: 960)
      var y = [Float](repeating: 0, count: 960)
      for i in 0..<480 {
        let t = Double(block * 480 + i) / 48_000
        if kind == "noise" {
          for c in 0..<2 {
            x[2 * i + c] = Float(rng.nextSigned())
            y[2 * i + c] = Float(rng.nextSigned())
          }
        } else {
          let v = Float(sin(2 * Double.pi * 997 * t))
          (x[2 * i], x[2 * i + 1], y[2 * i], y[2 * i + 1]) = (v, v, v, v)
        }
      }
      x.withUnsafeBufferPointer { mixer.append(.app, samples: $0) }
      y.withUnsafeBufferPointer { mixer.append(.mic, samples: $0) }
      let n = outF.withUnsafeMutableBufferPointer { mixer.mix(into: $0) }
      #expect(n == 480)
      peak = max(peak, outF.map(abs).max()!)
      #expect(outF.allSatisfy { abs(PCMEncoder.int16($0)) <= Self.ceilingInt16 })
    }
    #expect(peak <= Self.ceiling)
    #expect(mixer.meters.limitedSamples > 0)
  }
}

extension SplitMix64 {
  /// Uniform in [−1, 1).
  mutating func nextSigned() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }
}
