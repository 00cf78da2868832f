import Foundation
import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The echo canceller's two sets of kernels, C (`CPCMMixCore`) and Swift (``EchoKernels/swift``),
/// do the same operations in the same order and so must give the same bits: checked on the FFT
/// alone and on the whole canceller over the start of two echo scenes (where the delay search,
/// both filters and the suppressor all work).
@Suite struct EchoKernelTests {
  @Test(arguments: [4, 8, 16, 64, 512, 4096])
  func theFFTsKernelsGiveTheSameBits(_ n: Int) throws {
    let c = try #require(RealFFT(count: n, kernels: .c))
    let swift = try #require(RealFFT(count: n, kernels: .swift))
    var state: UInt64 = 0x5EED
    let input = (0..<n).map { _ -> Float in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
    }
    var spectra: [[Float]] = []
    var signals: [[Float]] = []
    for fft in [c, swift] {
      var re = [Float](repeating: 0, count: n / 2 + 1)
      var im = [Float](repeating: 0, count: n / 2 + 1)
      fft.forward(input, re: &re, im: &im)
      spectra.append(re + im)
      var back = [Float](repeating: 0, count: n)
      fft.inverse(re: &re, im: &im, output: &back)
      signals.append(back)
    }
    #expect(spectra[0].map(\.bitPattern) == spectra[1].map(\.bitPattern))
    #expect(signals[0].map(\.bitPattern) == signals[1].map(\.bitPattern))
    // Not a trivial agreement: the round trip gives the input back.
    #expect(zip(signals[0], input).allSatisfy { abs($0 - $1) <= 1e-5 })
  }

  /// The canceller's input bound (``EchoCanceller/inputBound``), both kernels, on the values a
  /// float source can hold: the same bits, and each value where the rule puts it.
  @Test func theInputBoundsKernelsGiveTheSameBits() {
    let input: [Float] = [
      0, -0.0, 0.5, -1, 7.99, 8, 8.01, -8.01, 1e4, -1e30, .greatestFiniteMagnitude,
      -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, -.nan, .signalingNaN,
      .leastNonzeroMagnitude, -.leastNormalMagnitude,
    ]
    let expected: [Float] = [
      0, -0.0, 0.5, -1, 7.99, 8, 8, -8, 8, -8, 8, -8, 0, 0, 0, 0, 0, .leastNonzeroMagnitude,
      -.leastNormalMagnitude,
    ]
    // Three times over from each of the first eight places: every value in the C kernel's
    // vector body (eight lanes) and in its scalar tail.
    for offset in 0..<8 {
      let values = Array((input + input + input).dropFirst(offset))
      let wanted = Array((expected + expected + expected).dropFirst(offset))
      var outputs: [[Float]] = []
      for kernels in [EchoKernels.c, .swift] {
        var out = [Float](repeating: 1, count: values.count)
        kernels.bound(values, values.count, limit: 8, &out)
        outputs.append(out)
      }
      #expect(outputs[0].map(\.bitPattern) == outputs[1].map(\.bitPattern))
      #expect(outputs[0].map(\.bitPattern) == wanted.map(\.bitPattern))
    }
  }

  @Test(arguments: [EchoScene.Content.speech, .music])
  func theCancellersKernelsGiveTheSameBits(_ content: EchoScene.Content) throws {
    let scene = try EchoScene(
      content: content, outputLatency: 0.03, room: "rt02", nonlinear: true, headphones: false,
      assets: EchoCancellationTests.assets)
    // The first 2.5 s: the delay search finds the echo (at about 0.5 s) and the filters and
    // the suppressor work on it from there.
    let blocks = 2_500 * EchoScene.rate / 1_000 / 256
    var outputs: [[Float]] = []
    var delays: [Double?] = []
    for kernels in [EchoKernels.c, .swift] {
      var canceller = EchoCanceller(
        rate: EchoScene.rate, settings: EchoCancellation(), kernels: kernels)
      var out = [Float](repeating: 0, count: blocks * 256)
      scene.mic.withUnsafeBufferPointer { mic in
        scene.app.withUnsafeBufferPointer { app in
          out.withUnsafeMutableBufferPointer { o in
            for b in 0..<blocks {
              canceller.process(
                mic: mic.baseAddress! + 256 * b, reference: app.baseAddress! + 256 * b,
                output: o.baseAddress! + 256 * b)
            }
          }
        }
      }
      outputs.append(out)
      delays.append(canceller.statistics.delay)
    }
    #expect(outputs[0].map(\.bitPattern) == outputs[1].map(\.bitPattern))
    // The canceller did work: it found the echo and took some of it out.
    #expect(delays[0] != nil && delays[0] == delays[1])
    let tail = (blocks * 256 / 2)..<(blocks * 256)
    let micEnergy = tail.reduce(0) { $0 + Double(scene.mic[$1] * scene.mic[$1]) }
    let outEnergy = tail.reduce(0) { $0 + Double(outputs[0][$1] * outputs[0][$1]) }
    #expect(outEnergy < 0.1 * micEnergy)
  }
}

/// The residual-echo suppressor's bands.
@Suite struct SuppressorBandTests {
  /// The suppressor's per-band sums walk each band's bins as a range: the ranges must be the
  /// bins ``ResidualEchoSuppressor/band(_:)`` assigns (its table), every bin in exactly one
  /// band, at every output rate's block (``EchoCanceller/hop(rate:)``).
  @Test(arguments: [8_000, 11_025, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 96_000])
  func eachBandsRangeHoldsTheBinsOfThatBand(_ rate: Int) {
    let bins = EchoCanceller.hop(rate: rate) + 1
    let s = ResidualEchoSuppressor(
      bins: bins, rate: rate, settings: EchoCancellation(), startBlocks: 0)
    let edges = s.bandEdges
    #expect(edges.count == ResidualEchoSuppressor.bandCount + 1)
    #expect(edges.first == 0 && edges.last == bins)
    for b in 0..<ResidualEchoSuppressor.bandCount {
      let expected = (0..<bins).filter { s.band($0) == b }
      #expect(Array(edges[b]..<edges[b + 1]) == expected, "band \(b) of \(bins) bins at \(rate)")
    }
  }

  /// The layout itself: at 48 kHz (257 bins of 93.75 Hz) 0–3, 4–7, then octaves up to 255,
  /// and bin 256 (24 kHz) alone in the last band; at 16 kHz (129 bins of 62.5 Hz) the same
  /// frequencies, 375 Hz at bin 6, up to 8 kHz in band 5, the two above empty.
  @Test func theBandsAreOctavesFrom375Hz() {
    #expect(
      ResidualEchoSuppressor.edges(bins: 257, rate: 48_000)
        == [0, 4, 8, 16, 32, 64, 128, 256, 257])
    #expect(
      ResidualEchoSuppressor.edges(bins: 129, rate: 16_000)
        == [0, 6, 12, 24, 48, 96, 129, 129, 129])
    let s = ResidualEchoSuppressor(
      bins: 257, rate: 48_000, settings: EchoCancellation(), startBlocks: 0)
    let counts: [Int] = (0..<8).map { b in (0..<257).filter { s.band($0) == b }.count }
    #expect(counts == [4, 4, 8, 16, 32, 64, 128, 1])
  }
}

/// The main filter's process noise per bin (``EchoCanceller/updateProcessNoise()``): where the
/// reference holds a tone it rises to the tonal value; where it is noise it stays at the base
/// once the first two seconds (the filter acquiring the path) are over.
@Suite struct ProcessNoiseTests {
  /// 3 s of a reference holding a 1,031.25 Hz tone (the middle of bin 11) over white noise
  /// 30 dB down, and a mic that hears it through a short decaying path.
  static func run(tone: Bool) -> EchoCanceller {
    let rate = 48_000
    let blocks = 3 * rate / 256
    // Uniform noise in ±1.
    var rng = SplitMix64(seed: 0x0DD5)
    let noise = rng.noise(blocks * 256).map { $0 / 0.9 }
    var reference = [Float](repeating: 0, count: noise.count)
    for i in reference.indices {
      let sine = Float(sin(2 * Double.pi * 1_031.25 * Double(i) / Double(rate)))
      reference[i] = tone ? 0.3 * sine + 0.0095 * noise[i] : 0.3 * noise[i]
    }
    var mic = [Float](repeating: 0, count: reference.count)
    for i in 530..<mic.count {
      mic[i] = 0.5 * reference[i - 480] + 0.2 * reference[i - 500] - 0.1 * reference[i - 530]
    }
    var canceller = EchoCanceller(rate: rate, settings: EchoCancellation(), kernels: .c)
    var out = [Float](repeating: 0, count: 256)
    mic.withUnsafeBufferPointer { m in
      reference.withUnsafeBufferPointer { r in
        out.withUnsafeMutableBufferPointer { o in
          for b in 0..<blocks {
            canceller.process(
              mic: m.baseAddress! + 256 * b, reference: r.baseAddress! + 256 * b,
              output: o.baseAddress!)
          }
        }
      }
    }
    return canceller
  }

  @Test func aHeldToneRaisesItsBinsProcessNoise() {
    let canceller = Self.run(tone: true)
    let levels = EchoCanceller.processNoiseLevels
    let (base, tonal) = (levels.base, levels.tonal)
    #expect(canceller.steadiness[11] > 0.95)
    #expect(abs(canceller.processNoise[11] - tonal) < 1e-6)
    // Bins the tone's window does not reach hold the noise: the base, or the acquiring level
    // within two seconds of a reset of P. (On this held tone the path-change detector resets
    // P eight times in ten seconds: each time the rotating constraint reaches the partitions
    // that hold the path, every 76 blocks, the filter leaves about 20 dB more of the tone for
    // some 30 blocks.)
    let acquiring = canceller.blockIndex - canceller.lastReset < 2 * canceller.rate / canceller.hop
    #expect(canceller.processNoise[100] == (acquiring ? max(base, levels.acquiring) : base))
    #expect(canceller.processNoise[100] < tonal)
  }

  @Test func noiseKeepsTheBaseOnceTheFilterHasAcquired() {
    let canceller = Self.run(tone: false)
    let base = EchoCanceller.processNoiseLevels.base
    let high = canceller.processNoise.filter { $0 > base + 0.001 }.count
    #expect(high <= canceller.processNoise.count / 20, "\(high) bins over the base")
    #expect(canceller.processNoise.min()! == base)
  }
}
