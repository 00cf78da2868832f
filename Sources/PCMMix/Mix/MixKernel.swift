import CPCMMixAtomics

/// A mixing kernel from outside the library: one pass that mixes two blocks and measures both
/// sources and the result for the meters, giving the same mix bits as ``MixKernel/swift``.
/// `PCMMixAccelerated` installs an AVX2 one where the CPU has it.
@_spi(Backends)
public enum MixKernel {
  /// `(out, a, b, count, ga, gb, scale, magnitudeBits, sums)`: sets `out[i] = (a[i]·ga +
  /// b[i]·gb)·scale` over `count` floats (multiplies and adds separate, never fused), and
  /// measures in the same pass the largest magnitude and the sum of squares of `a`, of `b` and
  /// of the result: the largest |x| as float bits as the maximum with `magnitudeBits[0...2]`,
  /// the sums added onto `sums[0...2]`. A non-finite sample must make its sum non-finite (the
  /// magnitudes may then miss a NaN: the callers look at the sums first).
  public typealias MixMeasure =
    @convention(c) (
      UnsafeMutablePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, Int, Float, Float,
      Float, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Double>
    ) -> Void

  /// Makes the mixers use `mixMeasure` (or ``swift`` again, with `nil`). Set it once, before
  /// audio runs.
  public static func install(mixMeasure: MixMeasure?) {
    let bits = mixMeasure.map {
      Int(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self))
    }
    pcmmix_store_release(word, bits ?? 0)
  }

  /// The installed kernel, or ``swift`` (one relaxed load).
  static var current: MixMeasure {
    let m = pcmmix_load_relaxed(word)
    guard m != 0 else { return swift }
    return unsafeBitCast(UnsafeRawPointer(bitPattern: m)!, to: MixMeasure.self)
  }

  nonisolated(unsafe) private static let word: UnsafeMutablePointer<Int> = {
    let word = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    word.initialize(to: 0)
    return word
  }()

  /// The kernel in Swift's SIMD types: what runs where nothing is installed, and the bits an
  /// installed kernel must give. The largest magnitudes are float maxima of |x| here (a
  /// `replace(with:where:)` on a comparison is one `maxps` or `fmax`; SSE2 has no integer
  /// maximum), which may miss a NaN but then the sum is NaN.
  public static let swift: MixMeasure = { out, a, b, count, ga, gb, scale, bits, sums in
    typealias F = SIMD8<Float>
    typealias I = SIMD8<Int32>
    let (ra, rb, ro) = (UnsafeRawPointer(a), UnsafeRawPointer(b), UnsafeMutableRawPointer(out))
    let (vga, vgb, vs) = (F(repeating: ga), F(repeating: gb), F(repeating: scale))
    let mask = I(repeating: 0x7FFF_FFFF)
    @inline(__always) func magnitude(_ x: F) -> F {
      unsafeBitCast(unsafeBitCast(x, to: I.self) & mask, to: F.self)
    }
    var (ma, mb, my) = (F(), F(), F())
    var (sa, sb, sy) = (0.0, 0.0, 0.0)
    var i = 0
    // Squares add up in Float lanes for at most 4,096 samples at a time, then in Double.
    while i + 8 <= count {
      let end = min(count, i + 4_096) - 7
      var (ta, tb, ty) = (F(), F(), F())
      while i < end {
        let x = ra.loadUnaligned(fromByteOffset: i * 4, as: F.self)
        let y = rb.loadUnaligned(fromByteOffset: i * 4, as: F.self)
        let (ax, ay) = (magnitude(x), magnitude(y))
        ma.replace(with: ax, where: ax .> ma)
        mb.replace(with: ay, where: ay .> mb)
        ta += x * x
        tb += y * y
        let z = (x * vga + y * vgb) * vs
        ro.storeBytes(of: z, toByteOffset: i * 4, as: F.self)
        let az = magnitude(z)
        my.replace(with: az, where: az .> my)
        ty += z * z
        i += 8
      }
      (sa, sb, sy) = (sa + Double(ta.sum()), sb + Double(tb.sum()), sy + Double(ty.sum()))
    }
    var (qa, qb, qy) = (ma.max(), mb.max(), my.max())
    while i < count {
      let (x, y) = (a[i], b[i])
      let z = (x * ga + y * gb) * scale
      out[i] = z
      (qa, qb, qy) = (max(qa, abs(x)), max(qb, abs(y)), max(qy, abs(z)))
      (sa, sb, sy) = (sa + Double(x * x), sb + Double(y * y), sy + Double(z * z))
      i += 1
    }
    func most(_ bits: Int32, _ x: Float) -> Int32 { max(bits, Int32(bitPattern: x.bitPattern)) }
    (bits[0], bits[1], bits[2]) = (most(bits[0], qa), most(bits[1], qb), most(bits[2], qy))
    (sums[0], sums[1], sums[2]) = (sums[0] + sa, sums[1] + sb, sums[2] + sy)
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
