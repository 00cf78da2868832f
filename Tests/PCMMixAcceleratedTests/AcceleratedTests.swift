import Foundation
import PCMMix
import PCMMixTestSupport
import Testing

@testable import PCMMixAccelerated

/// The AVX2 + FMA kernels give the Swift path's output to within Float32 rounding, and the
/// presets keep their quality with them.
@Suite struct AcceleratedTests {
  static let rates = [8000, 32000, 44100, 96000, 44056]

  /// The machine this runs on must have the kernels for these tests to mean anything; CI and
  /// the development machines do (x86-64 with AVX2 and FMA), as does every arm64 CPU (NEON).
  /// Elsewhere the fallback is checked.
  @Test func kernelsAreAvailableOnX86WithAVX2AndOnArm64() {
    #if arch(x86_64)
      let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
      let flags = cpu.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
      let has = flags.contains(" avx2") && flags.contains(" fma")
      #expect((AcceleratedKernels.kernel != nil) == has)
      // The kernel's AVX-512F group functions run exactly where the CPU lists the extension (the
      // Linux kernel lists it only when it saves the 512-bit registers).
      #expect(AcceleratedKernels.usesAVX512 == (has && flags.contains(" avx512f")))
      // What an adopter logs: which code path the capture pipeline's resampler takes.
      let path = AcceleratedKernels.usesAVX512 ? "avx-512f" : AcceleratedKernels.name ?? "swift"
      #expect(path == (has ? (flags.contains(" avx512f") ? "avx-512f" : "avx2+fma") : "swift"))
    #elseif arch(arm64)
      #expect(AcceleratedKernels.name == "neon")
      #expect(AcceleratedKernels.kernel?.upsampleRun != nil)
      #expect(!AcceleratedKernels.usesAVX512)
    #else
      #expect(AcceleratedKernels.kernel == nil)
      #expect(!AcceleratedKernels.usesAVX512)
    #endif
  }

  @Test(arguments: rates, [1, 2])
  func matchesTheSwiftPathWithinRounding(rate: Int, channels: Int) {
    let n = rate / 10
    var g = SplitMix64(seed: UInt64(rate * 4 + channels))
    let x = g.noise(n * channels)
    var plain = PolyphaseResampler(inputRate: rate, outputRate: 48000, channelCount: channels)
    var fast = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: channels, kernel: AcceleratedKernels.kernel)
    let a = Self.run(&plain, x)
    let b = Self.run(&fast, x)
    #expect(a.count == b.count)
    let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
    #expect(worst < 1e-5, "largest difference \(worst)")
  }

  @Test(arguments: [(ResamplerQuality.fast, 100.0), (.balanced, 130.0)])
  func presetsKeepTheirToneSNR(quality: ResamplerQuality, floor: Double) {
    for f in [100.0, 5000, 19_845] {
      let n = 44_100 / 4
      let x = (0..<n).map { Float(0.5 * cos(2 * .pi * f * Double($0) / 44_100)) }
      var r = PolyphaseResampler(
        inputRate: 44_100, outputRate: 48000, channelCount: 1, quality: quality,
        kernel: AcceleratedKernels.kernel)
      let y = Self.run(&r, x)
      let aligned = Array(y[r.latency...])
      let snr = ToneFit(aligned, frequency: f / 48000, range: 1200..<(aligned.count - 1200)).snrDB
      #expect(snr >= floor, "\(f) Hz: \(snr) dB")
    }
  }

  static func run(_ r: inout PolyphaseResampler, _ x: [Float]) -> [Float] {
    let ch = r.channelCount
    var out = [Float](
      repeating: 0, count: (r.maxOutputFrames(forInputFrames: x.count / ch) + r.latency + 8) * ch)
    var produced = 0
    x.withUnsafeBufferPointer { i in
      out.withUnsafeMutableBufferPointer { o in
        produced = r.process(i, into: o).produced
        while true {
          let k = r.flush(into: UnsafeMutableBufferPointer(rebasing: o[(produced * ch)...]))
          if k == 0 { break }
          produced += k
        }
      }
    }
    return Array(out[..<(produced * ch)])
  }
}

/// The sixteen-output kernels (the AVX2 one and the Swift one): used where they should be, and
/// every split of the input and every size of output buffer gives exactly the one-shot output.
@Suite struct GroupKernelTests {
  @Test(.enabled(if: AcceleratedKernels.kernel != nil, "this CPU has no AVX2 + FMA"))
  func isUsedForTheCaptureRates() {
    for rate in [8000, 16000, 32000, 44100, 96000] {
      let r = PolyphaseResampler(
        inputRate: rate, outputRate: 48000, channelCount: 2, kernel: AcceleratedKernels.kernel)
      #expect(r.usesGroupKernel, "\(rate) Hz")
    }
    // Double accumulation (high) and interpolated tables (44,056 Hz) keep the per-output path.
    let high = PolyphaseResampler(
      inputRate: 44100, outputRate: 48000, channelCount: 2, quality: .high,
      kernel: AcceleratedKernels.kernel)
    let odd = PolyphaseResampler(
      inputRate: 44056, outputRate: 48000, channelCount: 2, kernel: AcceleratedKernels.kernel)
    #expect(!high.usesGroupKernel && !odd.usesGroupKernel)
    // The Swift path groups too.
    #expect(
      PolyphaseResampler(inputRate: 32000, outputRate: 48000, channelCount: 1).usesGroupKernel)
  }

  @Test(
    arguments: [8000, 9600, 11025, 16000, 32000, 44100, 48000 + 1, 96000, 192_000], [1, 2, 3])
  func streamedEqualsOneShot(rate: Int, channels: Int) {
    Self.streamedEqualsOneShot(rate: rate, channels: channels, kernel: AcceleratedKernels.kernel)
  }

  /// The AVX-512F group functions (one to seven groups per pass) add exactly what the AVX2 ones
  /// add: one call over the whole input, where most groups go five to seven at a time, against
  /// the AVX2 functions alone. (`streamedEqualsOneShot` covers the other pass sizes and the
  /// part-written groups at the ends of a call.) At 8, 9.6, 16 and 32 kHz the same holds for the
  /// direct-form upsampling functions, which those rates use instead.
  @Test(
    .enabled(if: AcceleratedKernels.usesAVX512, "this CPU has no AVX-512F"),
    arguments: [8000, 9600, 16000, 32000, 44100, 96000, 192_000], [1, 2, 3])
  func avx512GroupsGiveTheAVX2Bits(rate: Int, channels: Int) {
    let n = rate / 5
    var g = SplitMix64(seed: UInt64(rate * 4 + channels))
    let x = g.noise(n * channels)
    var wide = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: channels,
      kernel: AcceleratedKernels.kernel)
    var narrow = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: channels,
      kernel: AcceleratedKernels.avx2Kernel)
    #expect(wide.usesGroupKernel && narrow.usesGroupKernel)
    let a = AcceleratedTests.run(&wide, x)
    let b = AcceleratedTests.run(&narrow, x)
    #expect(a.count == b.count)
    let firstDifference = zip(a, b).enumerated().first {
      $0.element.0.bitPattern != $0.element.1.bitPattern
    }
    #expect(firstDifference == nil, "first difference at sample \(firstDifference?.offset ?? -1)")
  }

  @Test(arguments: [8000, 32000, 44100, 96000], [1, 2])
  func swiftStreamedEqualsOneShot(rate: Int, channels: Int) {
    Self.streamedEqualsOneShot(rate: rate, channels: channels, kernel: nil)
  }

  static func streamedEqualsOneShot(
    rate: Int, channels: Int, kernel: PolyphaseResampler.DotKernel?
  ) {
    let n = rate / 5
    var g = SplitMix64(seed: UInt64(rate * 8 + channels))
    let x = g.noise(n * channels)
    var whole = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: channels, kernel: kernel)
    let expected = AcceleratedTests.run(&whole, x)
    // Random input pieces (1 … 700 frames) into random output room (1 … 400 frames).
    var r = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: channels, kernel: kernel)
    let got = resampleInPieces(
      &r, x, roomLimit: 400, piece: { 1 + Int(g.next() % 700) }, room: { 1 + Int(g.next() % 400) })
    #expect(got.count == expected.count)
    let firstDifference = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }
    #expect(firstDifference == nil, "first difference at sample \(firstDifference?.offset ?? -1)")
  }
}

/// A non-finite input sample is taken as silence: it cannot spread NaN to the outputs around it
/// (inside a group, 0 × ∞ would), and the output is exactly that of a 0 in its place.
@Suite struct NonFiniteInputTests {
  @Test(arguments: [8000, 44100, 96000], [false, true])
  func nonFiniteSamplesAreSilence(rate: Int, accelerated: Bool) {
    let kernel = accelerated ? AcceleratedKernels.kernel : nil
    var g = SplitMix64(seed: UInt64(rate))
    var x = (0..<4000).map { _ in Float.random(in: -0.5...0.5, using: &g) }
    var zeroed = x
    for (i, v) in [(1000, Float.infinity), (2000, -Float.infinity), (3000, Float.nan)] {
      x[i] = v
      zeroed[i] = 0
    }
    var a = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: 1, kernel: kernel)
    var b = PolyphaseResampler(
      inputRate: rate, outputRate: 48000, channelCount: 1, kernel: kernel)
    let y = AcceleratedTests.run(&a, x)
    #expect(y.allSatisfy { $0.isFinite })
    #expect(y == AcceleratedTests.run(&b, zeroed))
  }
}

/// The AVX2 int16 encoder gives the Swift rule's bits on every kind of input.
@Suite(.serialized) struct AcceleratedEncoderTests {
  @Test(.enabled(if: AcceleratedKernels.kernel != nil, "this CPU has no AVX2 + FMA"))
  func sameBitsAsTheSwiftRule() {
    var values: [Float] = [
      .nan, -.nan, .infinity, -.infinity, 0, -0, .greatestFiniteMagnitude, 1e9, -1e9, 1, -1,
    ]
    for n in -32_769...32_768 {
      for frac: Float in [0, 0.25, 0.5, 0.75] {
        let x = (Float(n) + frac) / 32768
        values += [x, x.nextUp, x.nextDown]
      }
    }
    var rng = SplitMix64(seed: 18)
    for _ in 0..<200_000 { values.append(Float.random(in: -1.3...1.3, using: &rng)) }
    for _ in 0..<50_000 { values.append(Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))) }
    #expect(AcceleratedKernels.install())
    defer { AcceleratedKernels.uninstall() }
    var out = [Int16](repeating: 0, count: values.count)
    // Odd offsets and lengths, so the sixteen-at-a-time loop and its tail both run.
    for (start, count) in [(0, values.count), (3, values.count - 20), (7, 13)] {
      values.withUnsafeBufferPointer { v in
        out.withUnsafeMutableBufferPointer {
          PCMEncoder.encode(UnsafeBufferPointer(rebasing: v[start..<(start + count)]), into: $0)
        }
      }
      var bad = 0
      for i in 0..<count where out[i] != PCMEncoder.int16(values[start + i]) { bad += 1 }
      #expect(bad == 0, "\(bad) samples differ from the Swift rule")
    }
  }
}

/// The one-pass AVX2 mix and measure gives the Swift passes' mix, bit for bit, and their meter
/// readings, whatever the input (loud, past full scale, infinite, NaN) and the policy.
@Suite(.serialized) struct AcceleratedMixTests {
  static func run(_ policy: MixPolicy, kernel: Bool, seed: UInt64) -> ([Float], MixMeters) {
    if kernel { AcceleratedKernels.install() } else { AcceleratedKernels.uninstall() }
    defer { AcceleratedKernels.uninstall() }
    var mixer = DualBufferMixer(.init(policy: policy, appGainDB: 3, micGainDB: -2))
    var rng = SplitMix64(seed: seed)
    var all: [Float] = []
    var out = [Float](repeating: 0, count: 2 * 700)
    for block in 0..<300 {
      // Quiet, loud and wild stretches, so the limiter rests, acts and recovers.
      let level: Float = block % 60 < 20 ? 0.2 : (block % 60 < 40 ? 1.4 : 0.05)
      var a = (0..<(2 * 613)).map { _ in Float.random(in: -level...level, using: &rng) }
      let b = (0..<(2 * 613)).map { _ in Float.random(in: -level...level, using: &rng) }
      if block == 100 { (a[5], a[6], a[7]) = (.nan, .infinity, -3) }
      a.withUnsafeBufferPointer { mixer.append(.app, samples: $0) }
      b.withUnsafeBufferPointer { mixer.append(.mic, samples: $0) }
      while true {
        let n = out.withUnsafeMutableBufferPointer { mixer.mix(into: $0) }
        if n == 0 { break }
        all += out[..<(2 * n)]
      }
    }
    return (all, mixer.meters)
  }

  @Test(
    .enabled(if: AcceleratedKernels.kernel != nil, "this CPU has no AVX2 + FMA"),
    arguments: [MixPolicy.average, .saturate, .limit])
  func sameMixAndMetersAsTheSwiftPasses(_ policy: MixPolicy) {
    let (swift, m1) = Self.run(policy, kernel: false, seed: 31)
    let (avx2, m2) = Self.run(policy, kernel: true, seed: 31)
    #expect(swift.count == avx2.count && swift.count > 300_000)
    #expect(zip(swift, avx2).allSatisfy { $0.bitPattern == $1.bitPattern })
    expectSameMeters(m1, m2)
  }
}

/// The clocked pipeline mixes through the same kernel while no gain ramps (and pass by pass
/// while one does): with the AVX2 kernel or the Swift one, the same output bits and meters,
/// through fades, gain ramps, a disabled stretch, loud blocks the limiter acts on and a NaN.
@Suite(.serialized) struct AcceleratedClockedMixTests {
  static func run(_ policy: MixPolicy, kernel: Bool) throws -> ([Float], MixMeters) {
    if kernel { AcceleratedKernels.install() } else { AcceleratedKernels.uninstall() }
    defer { AcceleratedKernels.uninstall() }
    var c = ClockedCapturePipeline.Configuration()
    (c.policy, c.driftCorrection, c.latency) = (policy, .off, .fixed(seconds: 0.05))
    // Gains other than 1 on both sides, or a fused multiply-add would give the same bits.
    (c.appGainDB, c.micGainDB) = (3, -2)
    let f = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .f32))
    var pipeline = try ClockedCapturePipeline(c, app: f, mic: f)
    var rng = SplitMix64(seed: 47)
    var all: [Float] = []
    var out = [Float](repeating: 0, count: 2 * 480)
    for block in 0..<400 {
      let level: Float = block % 80 < 30 ? 0.2 : (block % 80 < 50 ? 1.4 : 0.05)
      let time = MediaTime(value: Int64(block) * 480, timescale: 48_000)
      for side in [DualBufferMixer.Side.app, .mic] {
        var x = (0..<960).map { _ in Float.random(in: -level...level, using: &rng) }
        if block == 150 && side == .app { (x[5], x[6], x[7]) = (.nan, .infinity, -3) }
        try x.withUnsafeBytes { try pipeline.append(side, $0, description: f, time: time) }
      }
      if block == 100 { pipeline.setGain(.mic, dB: -9) }
      if block == 200 { pipeline.setEnabled(.app, false) }
      if block == 230 { pipeline.setEnabled(.app, true) }
      _ = out.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
      all += out
    }
    return (all, pipeline.meters)
  }

  @Test(
    .enabled(if: AcceleratedKernels.kernel != nil, "this CPU has no AVX2 + FMA"),
    arguments: [MixPolicy.average, .saturate, .limit])
  func sameOutputAndMetersAsTheSwiftKernel(_ policy: MixPolicy) throws {
    let (swift, m1) = try Self.run(policy, kernel: false)
    let (avx2, m2) = try Self.run(policy, kernel: true)
    #expect(swift.count == avx2.count)
    // Audio came out (the pipeline started), so the comparison means something.
    #expect(swift.contains { $0 != 0 })
    #expect(zip(swift, avx2).allSatisfy { $0.bitPattern == $1.bitPattern })
    expectSameMeters(m1, m2)
  }
}

/// The same counts and peaks (exact in either kernel) and RMS to within the sums' rounding.
func expectSameMeters(_ m1: MixMeters, _ m2: MixMeters) {
  #expect(m1.limitedSamples == m2.limitedSamples && m1.clippedSamples == m2.clippedSamples)
  for (x, y) in [(m1.app, m2.app), (m1.mic, m2.mic), (m1.output, m2.output)] {
    #expect(x.peakDBFS == y.peakDBFS && x.heldPeakDBFS == y.heldPeakDBFS)
    #expect(abs(x.rmsDBFS - y.rmsDBFS) < 1e-4)
    #expect(x.clippedSamples == y.clippedSamples)
  }
}
