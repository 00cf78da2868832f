import CPCMMixKernels
import PCMMixAccelerated
import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The direct-form upsampling kernels (`upsampleRun`: 16, 9.6, 8 and 32 kHz into 48 kHz)
/// compute each output as one fused multiply-add chain over its steps in order, written where
/// it belongs; the resampler uses them for exactly those rates and gives the Swift path's
/// output to within Float32 rounding.
@Suite struct UpsampleKernelTests {
  /// The kernel sets of this CPU: the default one, and on x86-64 the AVX2 one too (the default
  /// is AVX-512F where the CPU has it); on arm64 NEON alone.
  static let kernels: [(String, PolyphaseResampler.DotKernel?)] =
    [("default", AcceleratedKernels.kernel)]
    + (AcceleratedKernels.avx2Kernel == nil ? [] : [("avx2", AcceleratedKernels.avx2Kernel)])

  /// Bit for bit against the chain written out in Swift (`addingProduct` is fused), for every
  /// start phase, for counts that end inside and at the end of a block and span several passes,
  /// one to three channels, with both kernel sets (the default one is AVX-512F where the CPU has
  /// it). The input before the first window counts as zero: it holds NaN here, so reading it
  /// would show.
  @Test(
    .enabled(if: AcceleratedKernels.kernel?.upsampleRun != nil, "no kernels here"),
    arguments: [[3, 1], [5, 1], [6, 1], [3, 2]], [1, 2, 3])
  func eachOutputIsItsChainOfFusedMultiplyAdds(ratio: [Int], channels: Int) throws {
    let (up, down) = (ratio[0], ratio[1])
    var g = SplitMix64(seed: UInt64(up * 8 + down * 64 + channels))
    let steps = 40
    let h = (0..<(steps * up)).map { _ in Float.random(in: -1...1, using: &g) }
    // Each plane: 4 NaN, then the input from the first window on.
    let (front, stride) = (4, 700)
    var x = (0..<(stride * channels)).map { _ in Float.random(in: -1...1, using: &g) }
    for c in 0..<channels { for i in 0..<front { x[c * stride + i] = .nan } }
    func input(_ c: Int, _ i: Int) -> Float { i < 0 ? 0 : x[c * stride + front + i] }
    for (name, kernel) in Self.kernels {
      let run = try #require(kernel?.upsampleRun, "\(name)")
      for phase in 0..<up {
        let lead = phase * down / up
        // Up to 300 runs of `up` outputs: the last window ends 60 floats before the plane's end.
        for count in [1, 7, 16 * up - phase, 17 * up + 2, 300 * up - phase] {
          var out = [Float](repeating: .nan, count: count * channels)
          h.withUnsafeBufferPointer { hp in
            x.withUnsafeBufferPointer { xp in
              out.withUnsafeMutableBufferPointer { o in
                run(
                  hp.baseAddress!, steps, up, down, xp.baseAddress! + front, stride, channels,
                  phase, count, o.baseAddress!)
              }
            }
          }
          var wrong = 0
          for j in 0..<count {
            let (m, p) = ((phase + j) / up, (phase + j) % up)
            for c in 0..<channels {
              var sum: Float = 0
              for s in 0..<steps {
                sum = sum.addingProduct(h[s * up + p], input(c, m * down + s - lead))
              }
              if out[j * channels + c].bitPattern != sum.bitPattern { wrong += 1 }
            }
          }
          #expect(wrong == 0, "\(name) \(up):\(down) phase \(phase) count \(count): \(wrong) wrong")
        }
      }
    }
  }

  /// The resampler's limit on the steps of a 3 : 2 table is the one the C kernels size their
  /// even and odd copies of the input by: a larger table would overrun them.
  @Test func splitStepLimitMatchesTheKernels() {
    #expect(UpsampleTable.mostStepsSplit == Int(PCMMIX_UPSAMPLE_MOST_SPLIT_STEPS))
  }

  /// Used for exactly the ratios it takes, and only with an exact Float32 table.
  @Test(.enabled(if: AcceleratedKernels.kernel?.upsampleRun != nil, "no kernels here"))
  func isUsedForItsFactorsOnly() {
    for rate in [16000, 9600, 8000, 32000, 24000, 12000, 44100, 96000] {
      let r = PolyphaseResampler(
        inputRate: rate, outputRate: 48000, channelCount: 2, kernel: AcceleratedKernels.kernel)
      #expect(r.usesUpsampleKernel == [16000, 9600, 8000, 32000].contains(rate), "\(rate) Hz")
      #expect(r.usesGroupKernel, "\(rate) Hz")
    }
    let high = PolyphaseResampler(
      inputRate: 16000, outputRate: 48000, channelCount: 1, quality: .high,
      kernel: AcceleratedKernels.kernel)
    #expect(!high.usesUpsampleKernel)
    #expect(
      !PolyphaseResampler(inputRate: 16000, outputRate: 48000, channelCount: 1).usesUpsampleKernel)
  }

  /// A mono source turning stereo mid-stream (`remappingChannels`, what `SourceChain` does)
  /// goes on exactly as the mono stream would, in both channels.
  @Test(
    .enabled(if: AcceleratedKernels.kernel?.upsampleRun != nil, "no kernels here"),
    arguments: [16000, 8000, 32000])
  func monoTurningStereoGoesOnWithoutASeam(rate: Int) throws {
    var g = SplitMix64(seed: UInt64(rate))
    let x = g.noise(rate / 5)
    var whole = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: 1, kernel: AcceleratedKernels.kernel)
    let expected = AcceleratedTests.run(&whole, x)
    var mono = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: 1, kernel: AcceleratedKernels.kernel)
    let split = 1234
    var first = [Float](repeating: 0, count: mono.maxOutputFrames(forInputFrames: split))
    let head = x.withUnsafeBufferPointer { i in
      first.withUnsafeMutableBufferPointer { o in
        mono.process(UnsafeBufferPointer(rebasing: i[..<split]), into: o)
      }
    }
    #expect(head.consumed == split)
    var stereo = try #require(mono.remappingChannels(to: 2) as? PolyphaseResampler)
    #expect(stereo.usesUpsampleKernel)
    let rest = x[split...].flatMap { [$0, $0] }
    let tail = AcceleratedTests.run(&stereo, rest)
    let got =
      Array(first[..<head.produced]) + stride(from: 0, to: tail.count, by: 2).map { tail[$0] }
    let right = stride(from: 1, to: tail.count, by: 2).map { tail[$0] }
    #expect(got.count == expected.count)
    #expect(got.elementsEqual(expected) { $0.bitPattern == $1.bitPattern })
    #expect(right.elementsEqual(expected[head.produced...]) { $0.bitPattern == $1.bitPattern })
  }

  @Test(
    .enabled(if: AcceleratedKernels.kernel?.upsampleRun != nil, "no kernels here"),
    arguments: [16000, 9600, 8000, 32000], [1, 2, 3])
  func matchesTheSwiftPathWithinRounding(rate: Int, channels: Int) {
    var g = SplitMix64(seed: UInt64(rate * 5 + channels))
    let x = g.noise(rate / 5 * channels)
    for quality in [ResamplerQuality.fast, .balanced] {
      var plain = PolyphaseResampler(
        inputRate: rate, outputRate: 48000, channelCount: channels, quality: quality)
      var fast = PolyphaseResampler(
        inputRate: rate, outputRate: 48000, channelCount: channels, quality: quality,
        kernel: AcceleratedKernels.kernel)
      #expect(fast.usesUpsampleKernel)
      let a = AcceleratedTests.run(&plain, x)
      let b = AcceleratedTests.run(&fast, x)
      #expect(a.count == b.count)
      #expect(a.contains { abs($0) > 0.1 })
      let worst = zip(a, b).map { abs($0 - $1) }.max() ?? .infinity
      #expect(worst < 1e-5, "\(quality) largest difference \(worst)")
    }
  }
}
