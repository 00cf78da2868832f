import Foundation
import PCMMix
import PCMMixTestSupport
import Testing

/// Fades: at every change of state — a late start, a stall and its return, disabling and
/// enabling, a format switch, a gain change, the end — the output's largest sample-to-sample
/// step near the change is no larger than 1.5 × its largest step in steady playback. Steady
/// tones make steps measurable: a jump to or from a tone's middle is a click, a fade is not.
@Suite struct TransitionTests {
  /// One scene with every kind of transition; returns the output (stereo, timeline frame k at
  /// host time k / 48,000) and where each transition took effect, in timeline frames.
  static func scene(fadeSeconds: Double) throws -> (output: [Float], transitions: [(String, Int)]) {
    var app = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be)
    // Tones, and times of change that fall far from their zero crossings.
    app.tone = (frequency: 441.7, amplitude: 0.4)
    app.pauses = [(at: 3.0011, duration: 0.6)]  // stalls, then returns
    app.end = 9.0031  // ends for good
    var mic = SimulatedSource(rate: 48_000, channels: 1, encoding: .s16le)
    mic.tone = (frequency: 617.3, amplitude: 0.4)
    mic.start = 1.2041  // starts late (the tone near its peak: 0.29 of a cycle)
    mic.rateSwitches = [(at: 6.0071, rate: 16_000)]
    var c = ClockedCapturePipeline.Configuration(
      resampler: ResamplerFactory.variableRatio(.shortForTests))
    c.fadeSeconds = fadeSeconds
    var runner = try SceneRunner(
      c, app: app.streamDescription(rate: 44_100), mic: mic.streamDescription(rate: 48_000))
    var output = [Float](repeating: 0, count: 2 * 48_000 * 10)
    var transitions: [(String, Int)] = [
      ("late start", 1.2041), ("stall", 3.0011), ("return", 3.6011), ("format switch", 6.0071),
      ("end", 9.0031),
    ].map { ($0.0, Int(($0.1 * 48_000).rounded())) }
    var enabledAt: Int?
    var done: Set<String> = []
    _ = runner.run(
      app: app, mic: mic, duration: 10,
      onEvent: { pipeline, e in
        // Changes made from outside take effect at the output clock's position.
        for (name, at, change) in [
          ("disable", 4.5, { (p: inout ClockedCapturePipeline) in p.setEnabled(.mic, false) }),
          ("enable", 5.2, { (p: inout ClockedCapturePipeline) in p.setEnabled(.mic, true) }),
          ("gain change", 7.5, { (p: inout ClockedCapturePipeline) in p.setGain(.app, dB: -12) }),
        ] where e.deliveryTime >= at && !done.contains(name) {
          change(&pipeline)
          done.insert(name)
          transitions.append((name, pipeline.clockStatistics.position))
          if name == "enable" { enabledAt = pipeline.clockStatistics.position }
        }
      },
      onBlock: { status, block in
        guard let p = status.position, p >= 0 else { return }
        for i in 0..<min(block.count, output.count - 2 * p) { output[2 * p + i] = block[i] }
        // An enabled source's audio comes back where its stamps put it, a latency later: the
        // first pull after the enable in which the mic has audio again.
        if let e = enabledAt, p >= e, status.micSilentFrames < block.count / 2 {
          transitions.append(("return after enable", p + status.micSilentFrames))
          enabledAt = nil
        }
      })
    return (output, transitions)
  }

  /// The largest |y[n] − y[n−1]| over both channels for frames in `range`.
  static func largestStep(_ y: [Float], _ range: Range<Int>) -> Float {
    var most: Float = 0
    for n in max(1, range.lowerBound)..<min(range.upperBound, y.count / 2) {
      most = max(most, abs(y[2 * n] - y[2 * n - 2]), abs(y[2 * n + 1] - y[2 * n - 1]))
    }
    return most
  }

  static func steps(fadeSeconds: Double) throws -> (steady: Float, near: [(String, Float)]) {
    let (y, transitions) = try scene(fadeSeconds: fadeSeconds)
    let window = 960  // ±20 ms
    // Steady playback: every frame at least 60 ms from any transition (after the clock runs).
    var steady: Float = 0
    var n = 48_000
    while n < 9 * 48_000 {
      if transitions.allSatisfy({ abs($0.1 - n) > 2_880 }) {
        steady = max(steady, largestStep(y, n..<(n + 1)))
      }
      n += 1
    }
    let near = transitions.map { ($0.0, largestStep(y, ($0.1 - window)..<($0.1 + window))) }
    return (steady, near)
  }

  @Test func everyTransitionIsFadedNotStepped() throws {
    let (steady, near) = try Self.steps(fadeSeconds: 0.010)
    #expect(near.count == 9)
    for (name, step) in near {
      print("fades on: \(name) step \(step), steady \(steady), ratio \(step / steady)")
      #expect(step <= 1.5 * steady, "\(name): step \(step) against steady \(steady)")
    }
  }

  @Test func withoutFadesTheSameTransitionsClick() throws {
    // The measure can fail: the same scene without fades steps at its transitions.
    let (steady, near) = try Self.steps(fadeSeconds: 0)
    let clicks = near.filter { $0.1 > 1.5 * steady }.map(\.0)
    print("fades off: clicks at \(clicks), steady \(steady)")
    #expect(clicks.count >= 7)
  }
}

/// With fades off (and no steering), the clocked pipeline's output is exactly the plain mix of
/// the two sources, each converted on its own and placed at its first stamp: `(a + b) × ½`.
@Suite struct FadesOffTests {
  @Test func fadesOffGiveThePlainMixBitForBit() throws {
    var app = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be)
    app.tone = (frequency: 441.7, amplitude: 0.4)
    app.timestampJitter = 0
    var mic = SimulatedSource(rate: 32_000, channels: 1, encoding: .s16le)
    mic.tone = (frequency: 617.3, amplitude: 0.4)
    mic.timestampJitter = 0
    mic.start = 0.25
    var c = ClockedCapturePipeline.Configuration(
      resampler: ResamplerFactory.variableRatio(.shortForTests))
    c.fadeSeconds = 0
    c.driftCorrection = .off
    var runner = try SceneRunner(
      c, app: app.streamDescription(rate: 44_100), mic: mic.streamDescription(rate: 32_000))
    var output = [Float](repeating: .nan, count: 2 * 48_000 * 3)
    var expectedA: [Float] = []
    var expectedM: [Float] = []
    var chains = [
      CaptureSide.app: SourceChain(resampler: c.resampler!),
      .mic: SourceChain(resampler: c.resampler!),
    ]
    var first: [CaptureSide: Int] = [:]
    struct Collect: FrameSink {
      var frames: [Float] = []
      mutating func append(_ f: UnsafeBufferPointer<Float>) { frames += f }
    }
    var sinks = [CaptureSide.app: Collect(), .mic: Collect()]
    _ = runner.run(
      app: app, mic: mic, duration: 3,
      onEvent: { _, e in
        if first[e.side] == nil { first[e.side] = Int((e.trueStart * 48_000).rounded()) }
        e.bytes.withUnsafeBytes {
          try? chains[e.side]!.process($0, description: e.description, into: &sinks[e.side]!)
        }
      },
      onBlock: { status, block in
        guard let p = status.position, p >= 0 else { return }
        for i in 0..<min(block.count, output.count - 2 * p) { output[2 * p + i] = block[i] }
      })
    expectedA = sinks[.app]!.frames
    expectedM = sinks[.mic]!.frames
    let pa = first[.app]!
    let pm = first[.mic]!
    // Compare where both sources have audio and the output was written.
    var compared = 0
    for k in max(pa, pm)..<(3 * 48_000) where !output[2 * k].isNaN {
      let ia = k - pa
      let im = k - pm
      guard 2 * ia + 1 < expectedA.count, 2 * im + 1 < expectedM.count else { break }
      for ch in 0..<2 {
        let plain = (expectedA[2 * ia + ch] + expectedM[2 * im + ch]) * 0.5
        if output[2 * k + ch].bitPattern != plain.bitPattern {
          Issue.record("frame \(k) ch \(ch): \(output[2 * k + ch]) != \(plain)")
          return
        }
      }
      compared += 1
    }
    #expect(compared > 2 * 48_000)
  }
}
