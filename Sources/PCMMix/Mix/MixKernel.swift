import CPCMMixAtomics
import CPCMMixCore

/// A mixing kernel from outside the library: one pass that mixes two blocks and measures both
/// sources and the result for the meters, giving the same mix bits as ``MixKernel/portable``.
/// `PCMMixAccelerated` installs an AVX2 one where the CPU has it.
package enum MixKernel {
  /// `(out, a, b, count, ga, gb, scale, magnitudeBits, sums)`: sets `out[i] = (a[i]·ga +
  /// b[i]·gb)·scale` over `count` floats (multiplies and adds separate, never fused), and
  /// measures in the same pass the largest magnitude and the sum of squares of `a`, of `b` and
  /// of the result: the largest |x| as float bits as the maximum with `magnitudeBits[0...2]`,
  /// the sums added onto `sums[0...2]`. A non-finite sample must make its sum non-finite (the
  /// magnitudes may then miss a NaN: the callers look at the sums first).
  package typealias MixMeasure =
    @convention(c) (
      UnsafeMutablePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, Int, Float, Float,
      Float, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Double>
    ) -> Void

  /// Makes the mixers use `mixMeasure` (or ``portable`` again, with `nil`). Set it once, before
  /// audio runs.
  package static func install(mixMeasure: MixMeasure?) {
    let bits = mixMeasure.map {
      Int(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self))
    }
    pcmmix_store_release(word, bits ?? 0)
  }

  /// The installed kernel, or ``portable`` (one relaxed load).
  static var current: MixMeasure {
    let m = pcmmix_load_relaxed(word)
    guard m != 0 else { return portable }
    return unsafeBitCast(UnsafeRawPointer(bitPattern: m)!, to: MixMeasure.self)
  }

  nonisolated(unsafe) private static let word: UnsafeMutablePointer<Int> = {
    let word = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    word.initialize(to: 0)
    return word
  }()

  /// The kernel that runs where nothing is installed, and the bits an installed kernel must
  /// give: portable C (`CPCMMixCore`), eight lanes at a time, the largest magnitudes kept as
  /// float maxima of |x| lane by lane (which may miss a NaN, but then the sum is NaN), squares
  /// summed in Float lanes for 4,096 samples at a time, then in Double.
  package static let portable: MixMeasure = { out, a, b, count, ga, gb, scale, bits, sums in
    pcmmix_core_mix_measure(out, a, b, count, ga, gb, scale, bits, sums)
  }
}

/// What the mix kernel measured over one block, which it may see in several runs (where either
/// FIFO wraps): both sources before their gains, and the mix.
struct KernelMix {
  /// The largest |x| as float bits of the app, the mic and the mix.
  var magnitudeBits: (Int32, Int32, Int32) = (0, 0, 0)
  /// Sums of squares of the app, the mic and the mix.
  var sums: (Double, Double, Double) = (0, 0, 0)

  /// The largest square of the app, the mic and the mix (NaN after a NaN).
  var peakSquares: (Float, Float, Float) {
    func square(_ bits: Int32) -> Float {
      let x = Float(bitPattern: UInt32(bitPattern: bits))
      return x * x
    }
    return (square(magnitudeBits.0), square(magnitudeBits.1), square(magnitudeBits.2))
  }

  /// Mixes the oldest `frames` frames of two stereo FIFOs into `out` through `kernel`, reading
  /// them where they lie: a run ends where either ring wraps.
  ///
  /// - Precondition: both hold `frames` frames.
  mutating func mix(
    _ kernel: MixKernel.MixMeasure, into out: UnsafeMutablePointer<Float>, _ a: FrameFIFO,
    _ b: FrameFIFO, frames: Int, _ ga: Float, _ gb: Float, _ scale: Float
  ) {
    a.storage.withUnsafeBufferPointer { sa in
      b.storage.withUnsafeBufferPointer { sb in
        var done = 0
        while done < frames {
          let (ia, ka) = a.run(from: done)
          let (ib, kb) = b.run(from: done)
          let k = min(frames - done, ka, kb)
          mix(
            kernel, into: out + 2 * done, sa.baseAddress! + ia, sb.baseAddress! + ib,
            count: 2 * k, ga, gb, scale)
          done += k
        }
      }
    }
  }

  /// Mixes `count` floats of `a` and `b` into `out` through `kernel`, adding to the measures.
  mutating func mix(
    _ kernel: MixKernel.MixMeasure, into out: UnsafeMutablePointer<Float>,
    _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int, _ ga: Float, _ gb: Float,
    _ scale: Float
  ) {
    var (m, s) = (magnitudeBits, sums)
    withUnsafeMutableBytes(of: &m) { m in
      withUnsafeMutableBytes(of: &s) { s in
        kernel(
          out, a, b, count, ga, gb, scale, m.baseAddress!.assumingMemoryBound(to: Int32.self),
          s.baseAddress!.assumingMemoryBound(to: Double.self))
      }
    }
    (magnitudeBits, sums) = (m, s)
  }
}
