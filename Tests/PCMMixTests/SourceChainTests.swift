import Foundation
import Testing

@testable import PCMMix

/// One source's path: bytes in any split, byte order, rate and channel count in; time-aligned
/// stereo at 48 kHz out.
@Suite struct SourceChainTests {
  /// Collects what the chain hands on.
  struct Collector: FrameSink {
    var samples: [Float] = []
    mutating func append(_ frames: UnsafeBufferPointer<Float>) {
      samples.append(contentsOf: frames)
    }
  }

  // MARK: Making input

  /// `amplitude · cos(2π f n / rate + phase)` for `frames` frames.
  static func tone(
    _ frequency: Double, rate: Int, frames: Int, amplitude: Double = 0.5, phase: Double = 0
  ) -> [Double] {
    (0..<frames).map { n in
      amplitude * cos(2 * Double.pi * frequency * Double(n) / Double(rate) + phase)
    }
  }

  /// Interleaves equal-length channels.
  static func interleave(_ channels: [[Double]]) -> [Double] {
    let frames = channels[0].count
    var out = [Double](repeating: 0, count: frames * channels.count)
    for (c, samples) in channels.enumerated() {
      for n in 0..<frames { out[n * channels.count + c] = samples[n] }
    }
    return out
  }

  /// Rounds to int16 full scale.
  static func quantize(_ x: [Double]) -> [Int16] {
    x.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
  }

  /// int16 samples as bytes in either order.
  static func s16Bytes(_ samples: [Int16], bigEndian: Bool) -> [UInt8] {
    samples.flatMap { s -> [UInt8] in
      let u = UInt16(bitPattern: s)
      let (hi, lo) = (UInt8(u >> 8), UInt8(u & 0xFF))
      return bigEndian ? [hi, lo] : [lo, hi]
    }
  }

  /// Float32 samples as little-endian bytes.
  static func f32Bytes(_ samples: [Double]) -> [UInt8] {
    samples.flatMap { s -> [UInt8] in
      let u = Float(s).bitPattern
      return [UInt8(u & 0xFF), UInt8((u >> 8) & 0xFF), UInt8((u >> 16) & 0xFF), UInt8(u >> 24)]
    }
  }

  /// The description Core Audio would give.
  static func describe(
    _ rate: Int, _ channels: Int, _ type: SampleType = .s16, bigEndian: Bool = false
  ) -> StreamDescription {
    StreamDescription(
      PCMFormat(
        sampleRate: rate, channelCount: channels, sampleType: type,
        byteOrder: bigEndian ? .big : .little))
  }

  /// A stream cut into buffers of whole frames, sizes from `size` (called with the buffer index).
  static func split(_ bytes: [UInt8], frameBytes: Int, size: (Int) -> Int) -> [[UInt8]] {
    var pieces: [[UInt8]] = []
    var start = 0
    while start < bytes.count {
      let n = min(max(1, size(pieces.count)) * frameBytes, bytes.count - start)
      pieces.append(Array(bytes[start..<(start + n)]))
      start += n
    }
    return pieces
  }

  /// Runs buffers through `chain`; finishes when asked. Returns the output and the output
  /// before finishing.
  static func run(
    _ chain: inout SourceChain, _ buffers: [([UInt8], StreamDescription)], finish: Bool = true
  ) throws -> (output: [Float], beforeFinish: [Float]) {
    var sink = Collector()
    for (bytes, description) in buffers {
      try bytes.withUnsafeBytes { try chain.process($0, description: description, into: &sink) }
    }
    let before = sink.samples
    if finish { chain.flush(into: &sink) }
    return (sink.samples, before)
  }

  static func run(_ buffers: [([UInt8], StreamDescription)], finish: Bool = true) throws
    -> [Float]
  {
    var chain = SourceChain()
    return try run(&chain, buffers, finish: finish).output
  }

  /// Where two sample runs first differ (as frame and channel of stereo), or nil when they are
  /// equal; keeps a failure's message short.
  static func firstDifference(_ a: [Float], _ b: [Float]) -> String? {
    if let i = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) {
      let lengths = "\(a.count / 2) vs \(b.count / 2) frames"
      return "frame \(i / 2) channel \(i % 2): \(a[i]) vs \(b[i]) (\(lengths))"
    }
    return a.count == b.count ? nil : "lengths \(a.count / 2) vs \(b.count / 2) frames"
  }

  /// Every second sample from `offset`: one channel of interleaved stereo.
  static func channel(_ x: [Float], _ offset: Int) -> [Float] {
    stride(from: offset, to: x.count, by: 2).map { x[$0] }
  }

  // MARK: Equal rates

  @Test(arguments: [false, true])
  func equalRatePassesThroughBitExact(bigEndian: Bool) throws {
    var rng = SplitMix64(seed: 48)
    var input = (0..<(4800 * 2)).map { _ in Int16.random(in: .min ... .max, using: &rng) }
    input[0] = .min
    input[1] = .max
    input[2] = -1
    input[3] = 1
    let d = Self.describe(48_000, 2, bigEndian: bigEndian)
    let pieces = Self.split(Self.s16Bytes(input, bigEndian: bigEndian), frameBytes: 4) { i in
      [1, 17, 1024, 333][i % 4]
    }
    var chain = SourceChain()
    let out = try Self.run(&chain, pieces.map { ($0, d) })
    #expect(Self.firstDifference(out.output, out.beforeFinish) == nil, "nothing to flush")
    #expect(Self.firstDifference(out.output, input.map { Float($0) / 32768 }) == nil)
    var encoded = [Int16](repeating: 0, count: out.output.count)
    out.output.withUnsafeBufferPointer { src in
      encoded.withUnsafeMutableBufferPointer { PCMEncoder.encode(src, into: $0) }
    }
    #expect(encoded == input, "s16 → float → s16 round trip")
    #expect(chain.framesIn == 4800 && chain.framesOut == 4800)
  }

  @Test func monoBecomesStereoWithLeftEqualRight() throws {
    var rng = SplitMix64(seed: 1)
    let input = (0..<4801).map { _ in Int16.random(in: .min ... .max, using: &rng) }
    let out = try Self.run([(Self.s16Bytes(input, bigEndian: false), Self.describe(48_000, 1))])
    #expect(out.count == input.count * 2)
    #expect(Self.channel(out, 0) == input.map { Float($0) / 32768 })
    #expect(Self.channel(out, 1) == Self.channel(out, 0))
  }

  // MARK: Any split, same output

  /// 44.1 kHz stereo s16be, two tones: the ReplayKit app stream.
  static let appStream: [UInt8] = {
    let frames = 30_000
    let left = tone(1000, rate: 44_100, frames: frames)
    let right = tone(3000, rate: 44_100, frames: frames, amplitude: 0.3, phase: 1)
    return s16Bytes(quantize(interleave([left, right])), bigEndian: true)
  }()

  static let appOneShot: (output: [Float], beforeFinish: [Float]) = {
    var chain = SourceChain()
    return try! run(&chain, [(appStream, describe(44_100, 2, bigEndian: true))])
  }()

  /// Buffer lengths in frames: 0 means random lengths 1 … 3000.
  @Test(arguments: [1, 17, 1024, 22_596, 0])
  func anySplitGivesTheSameOutput(frames: Int) throws {
    var rng = SplitMix64(seed: 99)
    let pieces = Self.split(Self.appStream, frameBytes: 4) { _ in
      frames > 0 ? frames : Int.random(in: 1...3000, using: &rng)
    }
    let d = Self.describe(44_100, 2, bigEndian: true)
    var chain = SourceChain()
    let out = try Self.run(&chain, pieces.map { ($0, d) })
    let reference = Self.appOneShot
    #expect(out.beforeFinish.count == reference.beforeFinish.count)
    #expect(Self.firstDifference(out.beforeFinish, reference.beforeFinish) == nil, "before finish")
    #expect(out.output.count == reference.output.count)
    #expect(Self.firstDifference(out.output, reference.output) == nil, "after finish")
    #expect(
      out.output.count / 2
        == RateRatio.outputFrames(forInputFrames: 30_000, inputRate: 44_100, outputRate: 48_000))
  }

  // MARK: Length and quality

  static let rates = [
    8000, 11_025, 16_000, 22_050, 24_000, 32_000, 44_056, 44_100, 48_000, 88_200, 96_000,
    176_400, 192_000,
  ]

  @Test(arguments: rates)
  func finishGivesTheRoundedLength(rate: Int) throws {
    var rng = SplitMix64(seed: UInt64(rate))
    for frames in [rate / 20 + 1, rate / 40 + 37, 5] {
      let x = Self.tone(440, rate: rate, frames: frames)
      let pieces = Self.split(Self.f32Bytes(x), frameBytes: 4) { _ in
        Int.random(in: 1...2000, using: &rng)
      }
      var chain = SourceChain()
      let out = try Self.run(&chain, pieces.map { ($0, Self.describe(rate, 1, .f32)) }).output
      let expected = RateRatio.outputFrames(
        forInputFrames: frames, inputRate: rate, outputRate: 48_000)
      #expect(out.count == expected * 2, "\(frames) frames at \(rate) Hz")
      #expect(chain.framesOut == expected)
      #expect(out.allSatisfy { $0.isFinite && abs($0) <= 1 })
    }
  }

  /// 44,056 Hz shares only 8 with 48,000 Hz (6000 : 5507): too many phases for an exact table.
  /// Its linear-phase form puts both tones at their input time. The default preset itself is
  /// minimum phase there, as at every rate into 48 kHz: each tone lags by the filter's own phase
  /// (measured from DC to the band edge on an interpolated table, 11,111 Hz, by
  /// `ResamplerPresetTests.phaseDelayAcrossTheBandMeetsTheTarget`).
  @Test(arguments: [false, true])
  func awkwardRateStillGivesACleanTone(linearPhase: Bool) throws {
    let rate = 44_056
    let frames = 11_014
    let x = Self.tone(1000, rate: rate, frames: frames)
    let right = Self.tone(5000, rate: rate, frames: frames, amplitude: 0.25, phase: 0.5)
    let quality = linearPhase ? ResamplerQuality.balanced.with(phase: .linear) : .balanced
    var chain = SourceChain(resampler: .builtin(quality))
    let out = try Self.run(
      &chain, [(Self.f32Bytes(Self.interleave([x, right])), Self.describe(rate, 2, .f32))]
    ).output
    let expected = RateRatio.outputFrames(
      forInputFrames: frames, inputRate: rate, outputRate: 48_000)
    #expect(out.count == expected * 2)
    let fitL = ToneFit(
      out, stride: 2, offset: 0, frequency: 1000 / 48_000, range: 1000..<(expected - 1000))
    let fitR = ToneFit(
      out, stride: 2, offset: 1, frequency: 5000 / 48_000, range: 1000..<(expected - 1000))
    #expect(fitL.snrDB > 100, "SNR \(fitL.snrDB) dB")
    #expect(fitR.snrDB > 100, "SNR \(fitR.snrDB) dB")
    #expect(abs(20 * log10(fitL.amplitude / 0.5)) < 0.01)
    #expect(abs(20 * log10(fitR.amplitude / 0.25)) < 0.01)
    let minimumPhase =
      PolyphaseResampler(inputRate: rate, outputRate: 48_000, channelCount: 1, quality: quality)
      .isMinimumPhase
    #expect(minimumPhase == !linearPhase)
    if linearPhase {
      #expect(abs(fitL.phase) < 1e-3, "not time-aligned: \(fitL.phase)")
      #expect(abs(fitR.phase - 0.5) < 1e-3, "not time-aligned: \(fitR.phase - 0.5)")
    }
  }

  // MARK: Time alignment

  @Test func appAndMicRatesComeOutInPhase() throws {
    let seconds = 0.5
    let app = Self.interleave([
      Self.tone(1000, rate: 44_100, frames: Int(44_100 * seconds)),
      Self.tone(1000, rate: 44_100, frames: Int(44_100 * seconds), amplitude: 0.3),
    ])
    let mic = Self.tone(1000, rate: 32_000, frames: Int(32_000 * seconds))
    let appPieces = Self.split(
      Self.s16Bytes(Self.quantize(app), bigEndian: true), frameBytes: 4
    ) { _ in 1024 }
    var rng = SplitMix64(seed: 3)
    let micPieces = Self.split(
      Self.s16Bytes(Self.quantize(mic), bigEndian: false), frameBytes: 2
    ) { _ in Int.random(in: 200...1500, using: &rng) }
    let a = try Self.run(appPieces.map { ($0, Self.describe(44_100, 2, bigEndian: true)) })
    let m = try Self.run(micPieces.map { ($0, Self.describe(32_000, 1)) })
    let frames = Int(48_000 * seconds)
    #expect(a.count == frames * 2 && m.count == frames * 2)
    let range = 2000..<(frames - 2000)
    let fits = [
      ToneFit(a, stride: 2, offset: 0, frequency: 1000 / 48_000, range: range),
      ToneFit(a, stride: 2, offset: 1, frequency: 1000 / 48_000, range: range),
      ToneFit(m, stride: 2, offset: 0, frequency: 1000 / 48_000, range: range),
      ToneFit(m, stride: 2, offset: 1, frequency: 1000 / 48_000, range: range),
    ]
    for fit in fits {
      #expect(abs(fit.phase) < 1e-3, "phase \(fit.phase) rad")
      #expect(fit.snrDB > 85)
    }
    #expect(abs(fits[0].phase - fits[2].phase) < 1e-3, "app and mic drift apart")
  }

  // MARK: Format changes mid-stream

  @Test func byteOrderChangeNeedsNoReset() throws {
    let samples = Self.quantize(
      Self.interleave([
        Self.tone(1000, rate: 44_100, frames: 10_000),
        Self.tone(2500, rate: 44_100, frames: 10_000, amplitude: 0.2),
      ]))
    let cut = 4411 * 2
    let be = Self.describe(44_100, 2, bigEndian: true)
    let le = Self.describe(44_100, 2)
    let changed = try Self.run([
      (Self.s16Bytes(Array(samples[..<cut]), bigEndian: true), be),
      (Self.s16Bytes(Array(samples[cut...]), bigEndian: false), le),
    ])
    let steady = try Self.run([(Self.s16Bytes(samples, bigEndian: true), be)])
    #expect(changed.count == steady.count)
    #expect(Self.firstDifference(changed, steady) == nil, "the byte-order change is not seamless")
  }

  @Test func channelCountChangeNeedsNoReset() throws {
    let rate = 44_100
    let n = [6000, 5000, 6000]
    // Stereo (distinct tones), then mono, then stereo again.
    let first = Self.interleave([
      Self.tone(1000, rate: rate, frames: n[0]),
      Self.tone(1500, rate: rate, frames: n[0], amplitude: 0.3),
    ])
    let mono = Self.tone(700, rate: rate, frames: n[1], amplitude: 0.4)
    let last = Self.interleave([
      Self.tone(2000, rate: rate, frames: n[2], amplitude: 0.45),
      Self.tone(500, rate: rate, frames: n[2], amplitude: 0.35),
    ])
    var chain = SourceChain()
    let out = try Self.run(
      &chain,
      [
        (Self.f32Bytes(first), Self.describe(rate, 2, .f32)),
        (Self.f32Bytes(mono), Self.describe(rate, 1, .f32)),
        (Self.f32Bytes(last), Self.describe(rate, 2, .f32)),
      ]
    ).output
    #expect(out.allSatisfy { $0.isFinite && abs($0) <= 1 })
    let total = n.reduce(0, +)
    #expect(
      out.count / 2
        == RateRatio.outputFrames(forInputFrames: total, inputRate: rate, outputRate: 48_000))
    // The same as the stream sent as stereo throughout, with the mono part duplicated.
    let stereo = first + Self.interleave([mono, mono]) + last
    let steady = try Self.run([(Self.f32Bytes(stereo), Self.describe(rate, 2, .f32))])
    #expect(Self.firstDifference(out, steady) == nil)
    // The mono part, clear of the switches by a filter length, is one clean tone on both sides.
    let start = n[0] * 48_000 / rate + 400
    let end = (n[0] + n[1]) * 48_000 / rate - 400
    let fitL = ToneFit(out, stride: 2, offset: 0, frequency: 700 / 48_000, range: start..<end)
    let fitR = ToneFit(out, stride: 2, offset: 1, frequency: 700 / 48_000, range: start..<end)
    // 100 dB checks the bookkeeping, not the filter: a leak of the stereo parts' tones or a
    // seam at a switch would show at −40 dB or worse, while the filter itself reaches 133 dB
    // (balanced's specification, which ResamplerPresetTests holds it to).
    #expect(fitL.snrDB > 100 && fitR.snrDB > 100)
    #expect(abs(fitL.amplitude - 0.4) < 1e-4)
    let unequal = (start..<end).first { out[2 * $0] != out[2 * $0 + 1] }
    #expect(unequal == nil, "L ≠ R in the mono part")
  }

  /// A mono source is resampled as mono and duplicated; when it turns stereo the resampler's
  /// history is carried over, so the output equals the stream sent as stereo throughout.
  @Test func monoThenStereoContinuesWithoutASeam() throws {
    let rate = 32_000
    let mono = Self.tone(700, rate: rate, frames: 5000, amplitude: 0.4)
    let stereo = Self.interleave([
      Self.tone(2000, rate: rate, frames: 6000, amplitude: 0.45),
      Self.tone(500, rate: rate, frames: 6000, amplitude: 0.35),
    ])
    var chain = SourceChain()
    let out = try Self.run(
      &chain,
      [
        (Self.f32Bytes(mono), Self.describe(rate, 1, .f32)),
        (Self.f32Bytes(stereo), Self.describe(rate, 2, .f32)),
      ]
    ).output
    let steady = try Self.run([
      (Self.f32Bytes(Self.interleave([mono, mono]) + stereo), Self.describe(rate, 2, .f32))
    ])
    #expect(out.count == steady.count)
    #expect(Self.firstDifference(out, steady) == nil)
  }

  /// Each segment of a stream whose rate changes comes out exactly as that segment would alone:
  /// the old resampler's flushed tail first, then the new format from silence, with nothing of
  /// the old tone carried into the new and no frame of the new one lost.
  @Test(arguments: [
    [44_100, 32_000, 48_000], [48_000, 44_100, 32_000], [32_000, 48_000, 44_100],
  ])
  func rateChangeFlushesThenStartsClean(rates: [Int]) throws {
    let tones: [Double] = [1000, 1500, 700]
    let seconds = [0.15, 0.12, 0.1]
    var buffers: [([UInt8], StreamDescription)] = []
    var segments: [[Float]] = []
    for (i, rate) in rates.enumerated() {
      let frames = Int(Double(rate) * seconds[i]) + 7
      let x = Self.tone(tones[i], rate: rate, frames: frames, amplitude: 0.5)
      let bytes = Self.f32Bytes(x)
      let d = Self.describe(rate, 1, .f32)
      // Uneven buffers within each segment.
      buffers += Self.split(bytes, frameBytes: 4) { [1024, 333, 4000][$0 % 3] }.map { ($0, d) }
      segments.append(try Self.run([(bytes, d)]))
    }
    var chain = SourceChain()
    let out = try Self.run(&chain, buffers).output
    #expect(out.allSatisfy { $0.isFinite && abs($0) <= 1 })
    #expect(out.count == segments.map(\.count).reduce(0, +), "frames lost or added")
    var start = 0
    for (i, segment) in segments.enumerated() {
      let end = min(out.count, start + segment.count)
      let got = Array(out[start..<end])
      #expect(
        Self.firstDifference(got, segment) == nil,
        "segment \(i) at \(rates[i]) Hz differs from the segment alone")
      // And it is one clean tone: nothing of the previous one in it.
      let frames = (end - start) / 2
      if frames > 1200 {
        let fit = ToneFit(
          got, stride: 2, offset: 0, frequency: tones[i] / 48_000, range: 500..<(frames - 500))
        #expect(fit.snrDB > 100, "segment \(i): SNR \(fit.snrDB) dB")
        let minimumPhase =
          PolyphaseResampler(inputRate: rates[i], outputRate: 48_000, channelCount: 1)
          .isMinimumPhase
        expectAligned(fit, hz: tones[i], minimumPhase: minimumPhase, "segment \(i)")
      }
      start = end
    }
    // A 48 kHz segment is passed through untouched, in full.
    if let k = rates.firstIndex(of: 48_000) {
      let x = Self.tone(tones[k], rate: 48_000, frames: Int(48_000 * seconds[k]) + 7)
      #expect(Self.channel(segments[k], 0) == x.map { Float($0) })
    }
  }

  /// A switch from a resampled rate to the output rate itself must pass the new stream through
  /// whole, from its first frame.
  @Test func switchToTheOutputRateKeepsItsFirstFrames() throws {
    let d32 = Self.describe(32_000, 1, .f32)
    let d48 = Self.describe(48_000, 1, .f32)
    let before = Self.tone(1000, rate: 32_000, frames: 3200)
    let after = (0..<4800).map { Double($0) / 8192 - 0.25 }
    var chain = SourceChain()
    let out = try Self.run(&chain, [(Self.f32Bytes(before), d32), (Self.f32Bytes(after), d48)])
      .output
    #expect(out.count / 2 == 4800 + 4800, "frames of the 48 kHz stream were lost")
    #expect(chain.framesOut == 4800 + 4800)
    let tail = Array(out.suffix(4800 * 2))
    #expect(
      Self.firstDifference(tail, Self.interleave([after, after]).map { Float($0) }) == nil,
      "the 48 kHz stream does not come out whole")
  }

  // MARK: Bad buffers

  @Test func partialFrameThrowsAndConsumesNothing() throws {
    let samples = Self.quantize(
      Self.interleave([
        Self.tone(1000, rate: 44_100, frames: 3000),
        Self.tone(2000, rate: 44_100, frames: 3000, amplitude: 0.25),
      ]))
    let bytes = Self.s16Bytes(samples, bigEndian: true)
    let d = Self.describe(44_100, 2, bigEndian: true)
    let a = Array(bytes[..<(1500 * 4)])
    let b = Array(bytes[(1500 * 4)...])
    var chain = SourceChain()
    var sink = Collector()
    try a.withUnsafeBytes { try chain.process($0, description: d, into: &sink) }
    let framesIn = chain.framesIn
    // 3 bytes of s16 stereo; also with a new rate or channel count, which must not take hold.
    let bad = [
      (3, d, 4), (5, d, 4), (3, Self.describe(32_000, 2), 4), (1, Self.describe(48_000, 1), 2),
    ]
    for (count, description, frameBytes) in bad {
      #expect(throws: ProbeError.partialFrame(byteCount: count, bytesPerFrame: frameBytes)) {
        try [UInt8](repeating: 0x7F, count: count).withUnsafeBytes {
          try chain.process($0, description: description, into: &sink)
        }
      }
      #expect(chain.framesIn == framesIn)
      #expect(chain.format?.sampleRate == 44_100 && chain.format?.channelCount == 2)
    }
    try b.withUnsafeBytes { try chain.process($0, description: d, into: &sink) }
    chain.flush(into: &sink)
    #expect(
      Self.firstDifference(sink.samples, try Self.run([(a, d), (b, d)])) == nil,
      "the bad buffers left a trace")
  }

  @Test func badDescriptionThrowsAndTheStreamContinues() throws {
    let samples = Self.quantize(Self.tone(1000, rate: 32_000, frames: 3200))
    let bytes = Self.s16Bytes(samples, bigEndian: false)
    let d = Self.describe(32_000, 1)
    let a = Array(bytes[..<2000])
    let b = Array(bytes[2000...])
    var aac = d
    aac.formatID = 0x6161_6320  // 'aac '
    var noChannels = d
    noChannels.channelsPerFrame = 0
    var chain = SourceChain()
    var sink = Collector()
    try a.withUnsafeBytes { try chain.process($0, description: d, into: &sink) }
    #expect(throws: ProbeError.unsupportedFormatID(0x6161_6320)) {
      try b.withUnsafeBytes { try chain.process($0, description: aac, into: &sink) }
    }
    #expect(throws: ProbeError.zeroChannels) {
      try b.withUnsafeBytes { try chain.process($0, description: noChannels, into: &sink) }
    }
    #expect(chain.format?.sampleRate == 32_000)
    try b.withUnsafeBytes { try chain.process($0, description: d, into: &sink) }
    chain.flush(into: &sink)
    #expect(Self.firstDifference(sink.samples, try Self.run([(a, d), (b, d)])) == nil)
  }
}
