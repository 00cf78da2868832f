import Foundation
import PCMMix
import PCMMixTestSupport
import Testing

/// The clocked pipeline's output meter reads what each pull delivered: its peak exactly and its
/// RMS to rounding, whether the block went through the limiter or passed it at rest (where the
/// meter works the output's measures out from the mix's and two delay-line-sized scans).
@Suite struct ClockedOutputMeterTests {
  @Test(arguments: [MixPolicy.limit, .average])
  func theOutputMeterReadsWhatEachPullDelivered(_ policy: MixPolicy) throws {
    var c = ClockedCapturePipeline.Configuration()
    (c.policy, c.driftCorrection, c.latency) = (policy, .off, .fixed(seconds: 0.05))
    let f = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .f32))
    var pipeline = try ClockedCapturePipeline(c, app: f, mic: f)
    var rng = SplitMix64(seed: 5)
    var out = [Float](repeating: 0, count: 960)
    var checked = 0
    for block in 0..<300 {
      // Quiet stretches (the limiter at rest), loud ones (it acts), and a short peak near the
      // end of some quiet blocks (the tail that becomes the delay line holds the block's peak).
      let level: Float = block % 50 < 30 ? 0.2 : 1.3
      let time = MediaTime(value: Int64(block) * 480, timescale: 48_000)
      for side in [DualBufferMixer.Side.app, .mic] {
        var x = (0..<960).map { _ in Float.random(in: -level...level, using: &rng) }
        if block % 7 == 3 && side == .app { x[950] = 0.45 }
        try x.withUnsafeBytes { try pipeline.append(side, $0, description: f, time: time) }
      }
      let status = out.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
      guard status.phase == .running else { continue }
      // The meter's rule: squares in Float, levels in dBFS floored at -160.
      let peakSquare = Double(out.map { $0 * $0 }.max()!)
      let meanSquare = out.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(out.count)
      func dBFS(_ power: Double) -> Float { power > 0 ? max(-160, Float(10 * log10(power))) : -160 }
      let reading = pipeline.meters.output
      #expect(reading.peakDBFS == dBFS(peakSquare), "block \(block)")
      #expect(abs(reading.rmsDBFS - dBFS(meanSquare)) < 1e-3, "block \(block)")
      checked += 1
    }
    #expect(checked > 250)
  }
}
