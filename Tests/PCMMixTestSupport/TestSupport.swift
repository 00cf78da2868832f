import Foundation
import PCMMix

// Helpers the test targets share: a seeded generator, a tone fit, a one-shot conversion.

/// A seeded generator (SplitMix64) so random tests are repeatable.
public struct SplitMix64: RandomNumberGenerator {
  /// The generator's state, advanced by a constant on every draw.
  public var state: UInt64
  /// A generator whose sequence is fixed by `seed`.
  public init(seed: UInt64) { state = seed }
  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

extension SplitMix64 {
  /// `count` samples of uniform noise in ±0.9 (below full scale, so no test input clips), drawn
  /// in order from this generator.
  public mutating func noise(_ count: Int) -> [Float] {
    (0..<count).map { _ in Float.random(in: -0.9...0.9, using: &self) }
  }
}

/// Least-squares fit of several tones at once, each with its own amplitude and phase (and an
/// offset): the phase-free measure of a multi-tone signal after a filter whose delay depends on
/// frequency (a minimum-phase one).
public struct MultiToneFit {
  /// Fitted amplitude of each tone, in the order given.
  public var amplitudes: [Double]
  /// Phase of each fitted cosine at n = 0, radians (as ``ToneFit/phase``): tone k is
  /// `amplitudes[k] · cos(2π f_k n + phases[k])`.
  public var phases: [Double]
  /// Power of the fitted tones over the power of what is left, in dB.
  public var snrDB: Double

  /// Fits tones at `frequencies` (cycles per sample) to `x[range]` (sample n at
  /// `x[n * stride + offset]`).
  public init(
    _ x: [Float], stride: Int = 1, offset: Int = 0, frequencies: [Double], range: Range<Int>
  ) {
    let k = 2 * frequencies.count + 1
    func basis(_ n: Int) -> [Double] {
      frequencies.flatMap { f -> [Double] in
        let a = 2 * Double.pi * f * Double(n)
        return [cos(a), sin(a)]
      } + [1]
    }
    var m = [[Double]](repeating: [Double](repeating: 0, count: k), count: k)
    var v = [Double](repeating: 0, count: k)
    for n in range {
      let y = Double(x[n * stride + offset])
      let b = basis(n)
      for i in 0..<k {
        v[i] += b[i] * y
        for j in 0..<k { m[i][j] += b[i] * b[j] }
      }
    }
    let s = ToneFit.solve(m, v)
    var fitPower = 0.0
    var residual = 0.0
    for n in range {
      let b = basis(n)
      let fitted = (0..<k).reduce(0.0) { $0 + s[$1] * b[$1] }
      let y = Double(x[n * stride + offset])
      fitPower += fitted * fitted
      residual += (y - fitted) * (y - fitted)
    }
    amplitudes = frequencies.indices.map {
      (s[2 * $0] * s[2 * $0] + s[2 * $0 + 1] * s[2 * $0 + 1]).squareRoot()
    }
    phases = frequencies.indices.map { atan2(-s[2 * $0 + 1], s[2 * $0]) }
    snrDB = 10 * log10(fitPower / max(residual, 1e-300))
  }
}

/// Converts `input` (interleaved) in one call plus flush, dropping the leading latency:
/// the time-aligned one-shot output.
public func resampleAligned(_ r: inout some Resampler, _ input: [Float]) -> [Float] {
  let ch = r.channelCount
  var out = [Float](
    repeating: 0,
    count: (r.maxOutputFrames(forInputFrames: input.count / ch)
      + r.latency + 64) * ch)
  var produced = 0
  input.withUnsafeBufferPointer { inp in
    out.withUnsafeMutableBufferPointer { o in
      let res = r.process(inp, into: o)
      precondition(res.consumed == input.count / ch)
      produced = res.produced
      while true {
        let n = r.flush(into: UnsafeMutableBufferPointer(rebasing: o[(produced * ch)...]))
        if n == 0 { break }
        produced += n
      }
    }
  }
  return Array(out[(r.latency * ch)..<(produced * ch)])
}

/// Converts `input` (interleaved) a piece at a time, then flushes: each piece is `piece()`
/// frames (at most what is left), handed over into output room of `room()` frames (default and
/// at most `roomLimit`) until it is taken, and `before(&r, at)` runs ahead of the piece that
/// starts at frame `at`. Returns every frame written: what a streaming caller gets.
public func resampleInPieces<R: Resampler>(
  _ r: inout R, _ input: [Float], roomLimit: Int, piece: () -> Int, room: (() -> Int)? = nil,
  before: (inout R, Int) -> Void = { _, _ in }
) -> [Float] {
  let ch = r.channelCount
  let frames = input.count / ch
  var got: [Float] = []
  var buffer = [Float](repeating: 0, count: roomLimit * ch)
  var at = 0
  input.withUnsafeBufferPointer { all in
    buffer.withUnsafeMutableBufferPointer { o in
      while at < frames {
        before(&r, at)
        let n = min(frames - at, piece())
        var rest = UnsafeBufferPointer(rebasing: all[(at * ch)..<((at + n) * ch)])
        while !rest.isEmpty {
          let space = room?() ?? roomLimit
          let (used, made) = r.process(
            rest, into: UnsafeMutableBufferPointer(rebasing: o[..<(space * ch)]))
          got += o[..<(made * ch)]
          rest = UnsafeBufferPointer(rebasing: rest[(used * ch)...])
        }
        at += n
      }
      while true {
        let made = r.flush(into: o)
        if made == 0 { break }
        got += o[..<(made * ch)]
      }
    }
  }
  return got
}

/// 10·log10(Σ ref² / Σ (out − ref)²) over the frames in `range` of one channel of interleaved
/// stereo: how far `out` is from a reference signal.
public func referenceSNR(_ out: [Float], _ ref: [Float], channel: Int, range: Range<Int>)
  -> Double
{
  var signal = 0.0
  var noise = 0.0
  for j in range {
    let r = Double(ref[2 * j + channel])
    let e = Double(out[2 * j + channel]) - r
    signal += r * r
    noise += e * e
  }
  return 10 * log10(signal / max(noise, 1e-300))
}

/// Little-endian s16 bytes with `channels` channels to float, through the ``PCMDecoder``.
public func decodeS16(_ bytes: [UInt8], channels: Int) -> [Float] {
  let format = PCMFormat(sampleRate: 48_000, channelCount: channels, sampleType: .s16)
  let frames = bytes.count / format.bytesPerFrame
  var out = [Float](repeating: .nan, count: frames * channels)
  bytes.withUnsafeBytes { src in
    out.withUnsafeMutableBufferPointer {
      PCMDecoder.decode(
        src, format: format, totalFrames: frames, frames: 0..<frames, outputChannels: channels,
        into: $0)
    }
  }
  return out
}

/// The built-in resampler presets by name, for tests that run each of them.
public let builtinPresets: [(name: String, quality: ResamplerQuality)] = [
  ("fast", .fast), ("balanced", .balanced), ("high", .high),
]

/// The sample type and byte order a spelling such as `s16le` or `u8` stands for, found through
/// ``PCMFormat/typeSpelling`` (the command line's parser lives in `PCMMixCLI`).
public func sampleTypeAndOrder(spelled name: String) -> (SampleType, ByteOrder)? {
  for type in SampleType.allCases {
    for order in [ByteOrder.little, .big] {
      let format = PCMFormat(sampleRate: 1, channelCount: 1, sampleType: type, byteOrder: order)
      if format.typeSpelling == name { return (type, order) }
    }
  }
  return nil
}

/// Every spelling ``PCMFormat/typeSpelling`` gives (`u8`, `s16le`, `s16be`, …).
public var allTypeSpellings: Set<String> {
  Set(
    SampleType.allCases.flatMap { type in
      [ByteOrder.little, .big].map {
        PCMFormat(sampleRate: 1, channelCount: 1, sampleType: type, byteOrder: $0).typeSpelling
      }
    })
}
