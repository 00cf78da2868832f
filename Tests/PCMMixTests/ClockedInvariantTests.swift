import PCMMixTestSupport
import Testing

@testable import PCMMix

/// Random schedules through the clocked pipeline: stamps that jitter, jump ahead and back,
/// repeat or go missing, buffers of any size in any prepared format, pulls of any size, sources
/// switched off and on. After every step the counters add up, every pull fills its whole
/// buffer with finite samples, and memory never grows past what creation allocated.
@Suite struct ClockedInvariantTests {
  static let formats: [PCMFormat] = [
    PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big),
    PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s16),
    PCMFormat(sampleRate: 16_000, channelCount: 1, sampleType: .f32),
    PCMFormat(sampleRate: 32_000, channelCount: 2, sampleType: .s24),
  ]

  @Test(arguments: 0..<6)
  func randomSchedulesKeepTheInvariants(seed: UInt64) throws {
    var rng = SplitMix64(seed: 0xC10C + seed)
    var c = ClockedCapturePipeline.Configuration(
      resampler: ResamplerFactory.variableRatio(.shortForTests))
    c.preparedRates = [16_000, 32_000, 44_100, 48_000]
    if seed % 3 == 1 { c.latency = .fixed(seconds: 0.05) }
    if seed % 3 == 2 { c.driftCorrection = .timestampsAndFillLevel }
    var p = try ClockedCapturePipeline(
      c, app: StreamDescription(Self.formats[0]), mic: StreamDescription(Self.formats[1]))
    let baseline = p.retainedBytes
    var clock: [Double] = [100, 100]  // each source's own idea of time, seconds
    var format = [Self.formats[0], Self.formats[1]]
    var output = [Float](repeating: 0, count: 2 * 9_000)
    var growth = 0
    for _ in 0..<400 {
      let side: ClockedCapturePipeline.Side = Bool.random(using: &rng) ? .app : .mic
      let i = side == .app ? 0 : 1
      switch Int.random(in: 0..<100, using: &rng) {
      case 0..<55:
        // A buffer: mostly on time, sometimes with a stamp that is off, missing or repeated.
        if Int.random(in: 0..<20, using: &rng) == 0 {
          format[i] = Self.formats.randomElement(using: &rng)!
        }
        let f = format[i]
        let frames = Int.random(in: 1...3_000, using: &rng)
        var bytes = [UInt8](repeating: 0, count: frames * f.bytesPerFrame)
        for k in stride(from: 0, to: bytes.count, by: 7) {
          bytes[k] = UInt8.random(in: 0...255, using: &rng)
        }
        var stamp: MediaTime? = MediaTime(seconds: clock[i])
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: stamp = nil
        case 1: stamp = MediaTime(seconds: clock[i] - Double.random(in: 0...2, using: &rng))
        case 2: stamp = MediaTime(seconds: clock[i] + Double.random(in: 0...3, using: &rng))
        case 3: stamp = MediaTime(value: Int64(clock[i] * 600), timescale: 600)
        default: break
        }
        clock[i] +=
          Double(frames) / Double(f.sampleRate) * (1 + Double.random(in: -1e-3...1e-3, using: &rng))
        try bytes.withUnsafeBytes {
          try p.append(side, $0, description: StreamDescription(f), time: stamp)
        }
      case 55..<85:
        let frames = Int.random(in: 1...9_000, using: &rng)
        let status = output.withUnsafeMutableBufferPointer {
          p.pull(into: UnsafeMutableBufferPointer(rebasing: $0[..<(2 * frames)]))
        }
        #expect(status.appSilentFrames <= frames && status.micSilentFrames <= frames)
        #expect(output[..<(2 * frames)].allSatisfy { $0.isFinite })
      case 85..<90:
        p.setEnabled(side, Bool.random(using: &rng))
      case 90..<95:
        p.setGain(side, dB: Double.random(in: -20...6, using: &rng))
      default:
        p.finish(side)
      }
      for s in [p.statistics(.app), p.statistics(.mic)] {
        #expect(s.framesIn == s.framesEmitted + s.framesDropped + s.framesBuffered)
        #expect(s.framesLate <= s.framesDropped)
      }
      // Memory is what creation made, whatever the schedule, but for one thing: a source
      // prepared mono that turns stereo gets its resampler remapped to two channels, once per
      // prepared rate (about 7 KB of history each; measured at most 13.9 KB over the seeds).
      growth = max(growth, p.retainedBytes - baseline)
      #expect(p.retainedBytes <= baseline + 2 * 16_384)
    }
    print("seed \(seed): retained grew by at most \(growth) bytes over \(baseline)")
  }
}
