import Foundation
import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The limiter's contract: nothing past the ceiling (in Float32 and in int16), the input delayed
/// bit for bit below it, a clean gain on a sustained tone, recovery within 500 ms, the same bits
/// for any block split, no poisoning by non-finite samples.
@Suite struct LimiterTests {
  static let rate = 48_000

  /// Uniform noise in [−amplitude, amplitude], interleaved.
  static func noise(_ seed: UInt64, frames: Int, channels: Int = 2, amplitude: Float) -> [Float] {
    var rng = SplitMix64(seed: seed)
    return (0..<(frames * channels)).map { _ in
      Float.random(in: -amplitude...amplitude, using: &rng)
    }
  }

  /// A sine of `frequency` Hz, the same on every channel.
  static func sine(
    _ frequency: Double, amplitude: Double, frames: Int, channels: Int = 2, from start: Int = 0
  ) -> [Float] {
    (0..<frames).flatMap { n in
      let v = Float(amplitude * sin(2 * Double.pi * frequency * Double(start + n) / 48_000))
      return [Float](repeating: v, count: channels)
    }
  }

  /// Sample-wise sum of two sources, as the mixer's `limit` policy feeds the limiter.
  static func sum(_ a: [Float], _ b: [Float]) -> [Float] { zip(a, b).map { $0 + $1 } }

  /// `input` through `limiter` in one call, or in blocks of 0…`maxBlock` random frames.
  static func run(
    _ limiter: inout Limiter, _ input: [Float], blocks seed: UInt64? = nil, maxBlock: Int = 2_000
  ) -> [Float] {
    var out = input
    let ch = limiter.configuration.channelCount
    let frames = input.count / ch
    out.withUnsafeMutableBufferPointer { buf in
      guard let seed else {
        limiter.process(buf)
        return
      }
      var rng = SplitMix64(seed: seed)
      var done = 0
      while done < frames {
        let n = min(Int.random(in: 0...maxBlock, using: &rng), frames - done)
        limiter.process(buf.baseAddress! + done * ch, frames: n)
        done += n
      }
    }
    return out
  }

  /// `input` delayed by `frames` frames: zeros first, the last `frames` frames cut.
  static func delayed(_ input: [Float], frames: Int, channels: Int = 2) -> [Float] {
    Array(([Float](repeating: 0, count: frames * channels) + input).prefix(input.count))
  }

  /// Whether two sample arrays are equal bit for bit.
  static func bitEqual(_ a: [Float], _ b: [Float]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern }
  }

  // MARK: The ceiling

  @Test(arguments: [0, 48], [-0.1, -1.0, -6.0])
  func nothingPassesTheCeiling(lookahead: Int, ceilingDB: Double) {
    let frames = Self.rate / 2
    let decimal = Float(pow(10, ceilingDB / 20))
    let ceilingInt16 = PCMEncoder.int16(decimal)
    let noises = Self.sum(
      Self.noise(1, frames: frames, amplitude: 1), Self.noise(2, frames: frames, amplitude: 1))
    let sines = Self.sum(
      Self.sine(997, amplitude: 1, frames: frames), Self.sine(997, amplitude: 1, frames: frames))
    for (name, input) in [("noise", noises), ("sine", sines)] {
      var limiter = Limiter(.init(ceilingDB: ceilingDB, lookaheadFrames: lookahead))
      #expect(limiter.ceiling <= decimal && limiter.ceiling >= decimal.nextDown)
      let out = Self.run(&limiter, input, blocks: 7)
      let peak = out.reduce(0) { max($0, abs($1)) }
      #expect(peak <= limiter.ceiling, "\(name): peak \(peak)")
      #expect(peak >= limiter.ceiling * 0.99, "\(name): the limiter should use its headroom")
      let over = out.filter { abs(Int(PCMEncoder.int16($0))) > Int(ceilingInt16) }
      #expect(over.isEmpty, "\(name): \(over.count) int16 samples past \(ceilingInt16)")
      #expect(limiter.reducedSamples > 0)
      #expect(limiter.takeMinimumGainDB() < ceilingDB - 6.0 + 0.5)
      #expect(limiter.takeMinimumGainDB() == 0, "the minimum starts over after a read")
    }
  }

  /// One channel, three and eight: the ceiling holds whatever the frame width.
  @Test(arguments: [1, 3, 8])
  func otherChannelCounts(channels: Int) {
    var limiter = Limiter(.init(channelCount: channels, lookaheadFrames: 48))
    let input = Self.noise(UInt64(channels), frames: 10_000, channels: channels, amplitude: 3)
    let out = Self.run(&limiter, input, blocks: 3)
    #expect(out.allSatisfy { abs($0) <= limiter.ceiling })
    #expect(out.count == input.count)
  }

  /// A single huge sample among quiet ones, with no look-ahead: the attack is instant.
  @Test func instantAttackWithoutLookahead() {
    var limiter = Limiter(.init(lookaheadFrames: 0))
    var input = Self.noise(9, frames: 1_000, amplitude: 0.1)
    input[1_000] = 1e30
    input[1_001] = -Float.greatestFiniteMagnitude
    let out = Self.run(&limiter, input)
    #expect(out.allSatisfy { abs($0) <= limiter.ceiling })
    #expect(Self.bitEqual(Array(out[..<1_000]), Array(input[..<1_000])))
  }

  // MARK: Transparency

  /// Two sources peaking at −12 dBFS each: 10 s of their sum comes out delayed, bit for bit.
  @Test(arguments: [0, 48])
  func belowTheCeilingIsBitExact(lookahead: Int) {
    let frames = 10 * Self.rate
    let level = Float(pow(10, -12.0 / 20))
    let input = Self.sum(
      Self.noise(3, frames: frames, amplitude: level),
      Self.noise(4, frames: frames, amplitude: level))
    var limiter = Limiter(.init(lookaheadFrames: lookahead))
    let out = Self.run(&limiter, input, blocks: 5, maxBlock: 4_096)
    #expect(Self.bitEqual(out, Self.delayed(input, frames: lookahead)))
    #expect(limiter.reducedSamples == 0 && limiter.gain == 1 && limiter.isAtRest)
  }

  /// After 1 s of loud noise, quiet noise: the gain comes back to exactly 1, and from then on
  /// the output is the delayed input bit for bit.
  @Test(arguments: [0, 48])
  func exactAgainAfterALoudPassage(lookahead: Int) {
    let loud = Self.sum(
      Self.noise(5, frames: Self.rate, amplitude: 1),
      Self.noise(6, frames: Self.rate, amplitude: 1))
    let quiet = Self.noise(7, frames: 3 * Self.rate, amplitude: 0.5)
    let input = loud + quiet
    var limiter = Limiter(.init(lookaheadFrames: lookahead))
    let out = Self.run(&limiter, input, blocks: 11)
    let reference = Self.delayed(input, frames: lookahead)
    // The first output frame from which every frame is exact.
    var exactFrom = out.count / 2
    while exactFrom > 0
      && out[2 * exactFrom - 2].bitPattern == reference[2 * exactFrom - 2].bitPattern
      && out[2 * exactFrom - 1].bitPattern == reference[2 * exactFrom - 1].bitPattern
    {
      exactFrom -= 1
    }
    let afterLoud = Double(exactFrom - Self.rate - lookahead) / Double(Self.rate)
    print("W = \(lookahead): exact again \(Int(afterLoud * 1_000)) ms after the loud passage")
    #expect(afterLoud < 2.0)
    #expect(limiter.isAtRest && limiter.gain == 1)
  }

  // MARK: A sustained tone

  /// 1 kHz at −3 dBFS on each side (+3 dBFS summed) for 2 s: the settled second is the tone at
  /// a steady gain (THD+N ≤ −40 dB); when each side drops to −12 dBFS the gain is within 0.1 dB
  /// of unity within 500 ms.
  @Test(arguments: [0, 48])
  func toneDistortionAndRecovery(lookahead: Int) {
    let side = pow(10, -3.0 / 20)
    let frames = 2 * Self.rate
    let tone = Self.sum(
      Self.sine(1_000, amplitude: side, frames: frames),
      Self.sine(1_000, amplitude: side, frames: frames))
    var limiter = Limiter(.init(lookaheadFrames: lookahead))
    let out = Self.run(&limiter, tone, blocks: 13)
    #expect(out.allSatisfy { abs($0) <= limiter.ceiling })
    var worst = -Double.infinity
    for channel in 0..<2 {
      let fit = ToneFit(
        out, stride: 2, offset: channel, frequency: 1_000.0 / 48_000,
        range: Self.rate..<frames)
      worst = max(worst, -fit.snrDB)
      #expect(abs(fit.amplitude - Double(limiter.ceiling)) < 0.01 * Double(limiter.ceiling))
    }
    print("W = \(lookahead): THD+N of the limited +3 dBFS tone \(worst) dB")
    #expect(worst <= -40)

    // The tone drops to −12 dBFS per side; follow the gain frame by frame.
    let quietSide = pow(10, -12.0 / 20)
    let quiet = Self.sum(
      Self.sine(1_000, amplitude: quietSide, frames: 2 * Self.rate, from: frames),
      Self.sine(1_000, amplitude: quietSide, frames: 2 * Self.rate, from: frames))
    let target = Float(pow(10, -0.1 / 20))
    var within: Int?
    var exact: Int?
    var frame = quiet
    frame.withUnsafeMutableBufferPointer { buf in
      for n in 0..<(2 * Self.rate) where exact == nil {
        limiter.process(buf.baseAddress! + 2 * n, frames: 1)
        if within == nil && limiter.gain >= target { within = n }
        if limiter.gain == 1 && limiter.isAtRest { exact = n }
      }
    }
    // Output frames lag input frames by the look-ahead; count from the first quiet output.
    let ms = { (n: Int?) in n.map { Double($0 - lookahead) * 1_000 / 48_000 } ?? .infinity }
    print("W = \(lookahead): within 0.1 dB after \(ms(within)) ms, exactly 1 after \(ms(exact)) ms")
    #expect(ms(within) <= 500)
    #expect(ms(exact) <= 1_500)
  }

  /// From the deepest reduction (a +40 dBFS burst) the gain is within 0.1 dB of unity 500 ms
  /// after the burst leaves.
  @Test(arguments: [0, 48])
  func recoveryFromAnyDepth(lookahead: Int) {
    var limiter = Limiter(.init(lookaheadFrames: lookahead))
    var burst = Self.noise(8, frames: 4_800, amplitude: 100)
    burst.withUnsafeMutableBufferPointer { limiter.process($0) }
    #expect(limiter.takeMinimumGainDB() < -40)
    var silence = [Float](repeating: 0, count: 2)
    let target = Float(pow(10, -0.1 / 20))
    var n = 0
    while limiter.gain < target && n < Self.rate {
      silence.withUnsafeMutableBufferPointer { limiter.process($0) }
      n += 1
    }
    let ms = Double(n - lookahead) * 1_000 / 48_000
    print("W = \(lookahead): within 0.1 dB \(ms) ms after a +40 dBFS burst")
    #expect(ms <= 500)
  }

  // MARK: Streams

  /// Loud and quiet stretches (with a few non-finite samples) in random blocks of 0…2,000
  /// frames give the same bits as one call.
  @Test(arguments: [0, 48], [1, 2, 3])
  func anyBlockSplitGivesTheSameBits(lookahead: Int, channels: Int) {
    var input: [Float] = []
    for (i, amplitude) in [0.3, 2.5, 0.3, 0.95, 1.2, 0.1, 4.0, 0.5].enumerated() {
      input += Self.noise(
        UInt64(20 + i), frames: 12_000, channels: channels, amplitude: Float(amplitude))
    }
    input[5_000 * channels] = .nan
    input[40_000 * channels + channels - 1] = .infinity
    var whole = Limiter(.init(channelCount: channels, lookaheadFrames: lookahead))
    let reference = Self.run(&whole, input)
    for seed: UInt64 in 0..<4 {
      var split = Limiter(.init(channelCount: channels, lookaheadFrames: lookahead))
      let out = Self.run(&split, input, blocks: seed)
      #expect(Self.bitEqual(out, reference), "seed \(seed)")
      #expect(split.reducedSamples == whole.reducedSamples)
    }
  }

  /// NaN and infinities read as silence: they come out as zeros, leave no trace in the gain,
  /// and quiet audio after them passes bit for bit.
  @Test(arguments: [0, 48])
  func nonFiniteInputDoesNotPoison(lookahead: Int) {
    var limiter = Limiter(.init(lookaheadFrames: lookahead))
    var input = Self.noise(30, frames: 4_800, amplitude: 0.5)
    for i in stride(from: 100, to: 9_000, by: 97) {
      input[i] = [Float.nan, .infinity, -.infinity, .signalingNaN][i % 4]
    }
    let out = Self.run(&limiter, input, blocks: 1)
    #expect(out.allSatisfy { $0.isFinite && abs($0) <= limiter.ceiling })
    for i in stride(from: 100, to: 9_000, by: 97) where i + 2 * lookahead < out.count {
      #expect(out[i + 2 * lookahead] == 0)
    }
    #expect(limiter.reducedSamples == 0 && limiter.isAtRest)
    let quiet = Self.noise(31, frames: 4_800, amplitude: 0.5)
    let after = Self.run(&limiter, quiet)
    let tail = 2 * lookahead
    #expect(Self.bitEqual(Array(after[tail...]), Array(quiet[..<(quiet.count - tail)])))
  }

  /// Process then flush gives every input frame back, delayed by the look-ahead, and an empty
  /// call or a short buffer changes nothing.
  @Test(arguments: [0, 1, 48, 500])
  func flushDrainsTheDelayLine(lookahead: Int) {
    let input = Self.noise(40, frames: 1_000, amplitude: 0.8)
    var limiter = Limiter(.init(lookaheadFrames: lookahead))
    #expect(limiter.latencyFrames == lookahead)
    var out = Self.run(&limiter, input)
    var nothing: [Float] = []
    nothing.withUnsafeMutableBufferPointer {
      limiter.process($0)
      #expect(limiter.flush(into: $0) == 0)
    }
    var tail = [Float](repeating: .nan, count: 2 * lookahead + 1)
    let n = tail.withUnsafeMutableBufferPointer { limiter.flush(into: $0) }
    #expect(n == lookahead)
    #expect(tail.last!.isNaN, "flush writes only the frames it returns")
    out += tail.prefix(2 * n)
    #expect(Self.bitEqual(Array(out[(2 * lookahead)...]), input))
  }

  /// Reset returns to the state at creation.
  @Test func resetStartsOver() {
    let input = Self.sum(
      Self.noise(50, frames: 5_000, amplitude: 1), Self.noise(51, frames: 5_000, amplitude: 1))
    var fresh = Limiter()
    let first = Self.run(&fresh, input)
    var used = fresh
    _ = Self.run(&used, input)
    used.reset()
    #expect(used.reducedSamples == 0 && used.gain == 1 && used.isAtRest)
    #expect(Self.bitEqual(Self.run(&used, input), first))
  }

  /// Out-of-range settings are clamped, never trapped on.
  @Test func configurationIsClamped() {
    let c = Limiter.Configuration(
      channelCount: 0, ceilingDB: .nan, lookaheadFrames: -5, releaseSeconds: -1,
      holdSeconds: .infinity, sampleRate: 0
    ).clamped
    #expect(c.channelCount == 1 && c.ceilingDB == -1 && c.lookaheadFrames == 0)
    #expect(c.releaseSeconds == 0.001 && c.holdSeconds == 0.01 && c.sampleRate == 8_000)
    let big = Limiter(
      .init(channelCount: 99, ceilingDB: 12, lookaheadFrames: 1 << 40, sampleRate: 96_000))
    #expect(big.configuration.channelCount == 8 && big.ceiling == 1)
    #expect(big.latencyFrames == 9_600)
    #expect(Limiter.Configuration().clamped == Limiter.Configuration())
  }

  /// The fast path's test of a block against the ceiling: the largest magnitude's bits at every
  /// length from 0 to 40 and a few long ones, with a NaN or an infinity anywhere above all.
  @Test func largestMagnitudeBitsAtEveryLength() {
    var rng = SplitMix64(seed: 61)
    for count in Array(0...40) + [1_000, 4_097] {
      var x = (0..<count).map { _ in Float.random(in: -1.2...1.2, using: &rng) }
      let plain = x.map { Int32(bitPattern: $0.bitPattern) & 0x7FFF_FFFF }.max() ?? 0
      x.withUnsafeBufferPointer { b in
        guard let p = b.baseAddress else { return }
        #expect(_maxMagnitudeBits(p, count) == plain, "\(count)")
      }
      guard count > 0 else { continue }
      for special in [Float.nan, .infinity, -.infinity] {
        let at = Int.random(in: 0..<count, using: &rng)
        let kept = x[at]
        x[at] = special
        x.withUnsafeBufferPointer { b in
          let bits = _maxMagnitudeBits(b.baseAddress!, count)
          #expect(bits > Int32(bitPattern: Float(1.2).bitPattern), "\(count)")
        }
        x[at] = kept
      }
    }
  }
}
