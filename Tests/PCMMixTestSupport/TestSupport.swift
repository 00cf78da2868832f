import Foundation
import PCMMix

// Helpers the test targets share: a seeded generator, a tone fit, a one-shot conversion.

/// A seeded generator (SplitMix64) so random tests are repeatable.
public struct SplitMix64: RandomNumberGenerator {
  public var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Least-squares fit of `a·cos(ωn) + b·sin(ωn) + c` to a signal, for tone SNR and gain.
public struct ToneFit {
  public var amplitude: Double
  /// Phase of the fitted cosine at n = 0, radians.
  public var phase: Double
  public var snrDB: Double

  /// Fits the tone at `frequency` (cycles per sample) to `x[range]`, sample n at index n.
  public init(_ x: [Float], stride: Int = 1, offset: Int = 0, frequency: Double, range: Range<Int>)
  {
    let w = 2 * Double.pi * frequency
    // Normal equations for the basis (cos, sin, 1).
    var m = [[Double]](repeating: [0, 0, 0], count: 3)
    var v = [0.0, 0.0, 0.0]
    for n in range {
      let y = Double(x[n * stride + offset])
      let basis = [cos(w * Double(n)), sin(w * Double(n)), 1]
      for i in 0..<3 {
        v[i] += basis[i] * y
        for j in 0..<3 { m[i][j] += basis[i] * basis[j] }
      }
    }
    let s = ToneFit.solve3(m, v)
    var fitPower = 0.0
    var residual = 0.0
    for n in range {
      let fitted = s[0] * cos(w * Double(n)) + s[1] * sin(w * Double(n)) + s[2]
      let y = Double(x[n * stride + offset])
      fitPower += fitted * fitted
      residual += (y - fitted) * (y - fitted)
    }
    amplitude = (s[0] * s[0] + s[1] * s[1]).squareRoot()
    phase = atan2(-s[1], s[0])
    snrDB = 10 * log10(fitPower / max(residual, 1e-300))
  }

  /// Solves `a·x = b` (square, nonsingular) by Gauss–Jordan elimination with partial pivoting.
  public static func solve3(_ a: [[Double]], _ b: [Double]) -> [Double] {
    var m = a
    var v = b
    let n = b.count
    for col in 0..<n {
      let p = (col..<n).max { abs(m[$0][col]) < abs(m[$1][col]) }!
      m.swapAt(col, p)
      v.swapAt(col, p)
      for r in 0..<n where r != col {
        let f = m[r][col] / m[col][col]
        for c in 0..<n { m[r][c] -= f * m[col][c] }
        v[r] -= f * v[col]
      }
    }
    return (0..<n).map { v[$0] / m[$0][$0] }
  }
}

/// Least-squares fit of several tones at once, each with its own amplitude and phase (and an
/// offset): the phase-free measure of a multi-tone signal after a filter whose delay depends on
/// frequency (a minimum-phase one).
public struct MultiToneFit {
  /// Fitted amplitude of each tone, in the order given.
  public var amplitudes: [Double]
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
    let s = ToneFit.solve3(m, v)
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

/// Appends `bytes` to the app (side 0) or the mic (side 1) of `pipeline`; returns the error, if
/// any, instead of throwing (so callers can assert on it inside closures).
public func appendBuffer(
  _ pipeline: inout CapturePipeline, side: Int, _ bytes: [UInt8],
  _ description: StreamDescription
) -> ProbeError? {
  bytes.withUnsafeBytes { raw -> ProbeError? in
    do throws(ProbeError) {
      if side == 0 {
        try pipeline.appendApp(raw, description: description)
      } else {
        try pipeline.appendMic(raw, description: description)
      }
      return nil
    } catch {
      return error
    }
  }
}
