import PCMMix
import PCMMixAccelerated
import PCMMixTestSupport
import Testing

/// The steerable resampler's blended-row kernels (`lerpDot`, `lerpDot2`, and `lerpRun`, the loop
/// around them: what `ResamplerFactory.acceleratedVariableRatio` and the clocked pipeline's
/// C-kernel path run) give the Swift path's output to within Float32 rounding, for one, two and
/// three channels (a pair and a single), at a steady ratio and while it is steered.
@Suite struct VariableRatioKernelTests {
  @Test(
    .enabled(if: AcceleratedKernels.kernel?.lerpDot2 != nil, "this CPU has no AVX2 + FMA"),
    arguments: [16000, 44100, 48000, 96000], [1, 2, 3])
  func matchesTheSwiftPathWithinRounding(rate: Int, channels: Int) {
    var g = SplitMix64(seed: UInt64(rate + channels))
    let x = g.noise(rate / 5 * channels)
    var plain = VariableRatioResampler(
      inputRate: rate, outputRate: 48000, channelCount: channels, kernel: nil)
    var fast = VariableRatioResampler(
      inputRate: rate, outputRate: 48000, channelCount: channels,
      kernel: AcceleratedKernels.kernel)
    let a = Self.run(&plain, x)
    let b = Self.run(&fast, x)
    #expect(a.count == b.count)
    #expect(a.contains { abs($0) > 0.1 })
    let worst = zip(a, b).map { abs($0 - $1) }.max() ?? .infinity
    #expect(worst < 1e-5, "largest difference \(worst)")
  }

  /// The kernel's output loop (`lerpRun`) gives exactly what the Swift loop around the same
  /// kernels gives, frame for frame and bit for bit, through steering and the flush (whose end
  /// time stops it).
  @Test(
    .enabled(if: AcceleratedKernels.kernel?.lerpRun != nil, "this CPU has no AVX2 + FMA"),
    arguments: [16000, 44100, 96000], [1, 2, 3])
  func theKernelsLoopGivesTheSwiftLoopsBits(rate: Int, channels: Int) {
    var g = SplitMix64(seed: UInt64(rate * 3 + channels))
    let x = g.noise(rate / 5 * channels)
    var noLoop = AcceleratedKernels.kernel!
    noLoop.lerpRun = nil
    var looped = VariableRatioResampler(
      inputRate: rate, outputRate: 48000, channelCount: channels,
      kernel: AcceleratedKernels.kernel)
    var framed = VariableRatioResampler(
      inputRate: rate, outputRate: 48000, channelCount: channels, kernel: noLoop)
    let a = Self.run(&looped, x)
    let b = Self.run(&framed, x)
    #expect(a.count == b.count && a.count > rate / 10)
    let first = zip(a, b).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }
    #expect(first == nil, "first difference at sample \(first?.offset ?? -1)")
    #expect(looped.nextOutputTime == framed.nextOutputTime)
  }

  /// 10 ms pieces, the ratio steered by +250 ppm after the first quarter and by −400 ppm after
  /// the half, then flushed.
  static func run(_ r: inout VariableRatioResampler, _ x: [Float]) -> [Float] {
    let piece = r.inputRate / 100
    let frames = x.count / r.channelCount
    func steer(_ r: inout VariableRatioResampler, _ at: Int) {
      if at >= frames / 4 && at - piece < frames / 4 { _ = r.adjustRatio(by: 250e-6) }
      if at >= frames / 2 && at - piece < frames / 2 { _ = r.adjustRatio(by: -400e-6) }
    }
    return resampleInPieces(
      &r, x, roomLimit: r.maxOutputFrames(forInputFrames: piece) + 8, piece: { piece },
      before: steer)
  }
}
