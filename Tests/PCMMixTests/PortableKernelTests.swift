import CPCMMixCore
import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The portable C kernels (`CPCMMixCore`) compute the chains PCMMix's resampler and mix were
/// first written as in Swift's SIMD8<Float>: the same operations in the same order, multiplies
/// and adds separate. Those Swift loops are kept here as the reference, and every kernel must
/// give their bits on random shapes (lengths, widths, channel counts, lanes kept). On arm64 the
/// dot products, blended-row dot products and groups compute the AVX2 kernels' chains of fused
/// multiply-adds instead, and are held to those chains written in Swift (``AVX2Reference``).
@Suite struct PortableKernelTests {
  /// Random floats in −1…1 and a little past, as 32-bit values a resampler meets.
  static func floats(_ n: Int, _ g: inout SplitMix64) -> [Float] {
    (0..<n).map { _ in Float(g.nextSigned()) * 1.1 }
  }

  @Test func dotProductsGiveTheSwiftBits() {
    var g = SplitMix64(seed: 11)
    for trial in 0..<300 {
      let n = 8 * (1 + trial % 40)
      let h = Self.floats(2 * n, &g)
      let a = Self.floats(n, &g)
      let b = Self.floats(n, &g)
      h.withUnsafeBufferPointer { hp in
        a.withUnsafeBufferPointer { ap in
          b.withUnsafeBufferPointer { bp in
            let (h, a, b) = (hp.baseAddress!, ap.baseAddress!, bp.baseAddress!)
            #expect(_dot(h, a, n).bitPattern == KernelReference.dot(h, a, n).bitPattern)
            let p = _dot2(h, a, b, n)
            let q = KernelReference.dot2(h, a, b, n)
            #expect(p.0.bitPattern == q.0.bitPattern && p.1.bitPattern == q.1.bitPattern)
            #expect(
              _dotDouble(h, a, n).bitPattern == SwiftReference.dotDouble(h, a, n).bitPattern)
            // The blended row, stored and dotted, or blended in registers by the lerp kernels.
            let t = Float(trial % 97) / 97
            var row = [Float](repeating: 0, count: n)
            row.withUnsafeMutableBufferPointer {
              SwiftReference.blend(h, h + n, t, $0.baseAddress!, n)
            }
            var mine = [Float](repeating: 0, count: n)
            mine.withUnsafeMutableBufferPointer { _blend(h, h + n, t, into: $0.baseAddress!, n) }
            #expect(row.map(\.bitPattern) == mine.map(\.bitPattern))
            // On arm64 the lerp kernels blend as the AVX2 ones do, fused, and dot with two
            // accumulators (not `dot`'s four).
            #if arch(arm64)
              var lerpRow = row
              lerpRow.withUnsafeMutableBufferPointer {
                AVX2Reference.lerpRow(h, h + n, t, $0.baseAddress!, n)
              }
            #else
              let lerpRow = row
            #endif
            lerpRow.withUnsafeBufferPointer { r in
              let want = KernelReference.dot2(r.baseAddress!, a, b, n)
              var got: [Float] = [0, 0]
              pcmmix_core_lerp_dot2(h, h + n, t, a, b, n, &got, nil)
              #expect(got[0].bitPattern == want.0.bitPattern)
              #expect(got[1].bitPattern == want.1.bitPattern)
              #if arch(arm64)
                let one = AVX2Reference.lerpDot(r.baseAddress!, a, n)
              #else
                let one = SwiftReference.dot(r.baseAddress!, a, n)
              #endif
              #expect(pcmmix_core_lerp_dot(h, h + n, t, a, n, nil).bitPattern == one.bitPattern)
            }
          }
        }
      }
    }
  }

  @Test func groupKernelsGiveTheSwiftBits() {
    var g = SplitMix64(seed: 12)
    for trial in 0..<120 {
      let width = 8 + trial % 57
      let table = Self.floats(width * 16, &g)
      for channels in 1...3 {
        let stride = width + 5
        let x = Self.floats(channels * stride, &g)
        let first = trial % 16
        let count = 16 - first - (trial / 16) % (16 - first)
        var want = [Float](repeating: 0, count: 16 * channels)
        var got = want
        table.withUnsafeBufferPointer { t in
          x.withUnsafeBufferPointer { xp in
            want.withUnsafeMutableBufferPointer {
              KernelReference.group16(
                t.baseAddress!, width, xp.baseAddress!, stride, channels, $0.baseAddress!, first,
                count)
            }
            got.withUnsafeMutableBufferPointer {
              _group16(
                t.baseAddress!, width, xp.baseAddress!, stride, channels, $0.baseAddress!, first,
                count)
            }
          }
        }
        #expect(want.map(\.bitPattern) == got.map(\.bitPattern), "width \(width) × \(channels)")
      }
    }
  }

  @Test func mixGivesTheSwiftBits() {
    var g = SplitMix64(seed: 13)
    for n in [0, 1, 7, 8, 9, 63, 480, 960, 4_095, 4_096, 4_097, 9_001] {
      let a = Self.floats(n, &g).map { $0 * 1.5 }
      let b = Self.floats(n, &g).map { $0 * 1.5 }
      var want = [Float](repeating: 0, count: n)
      var got = want
      var wantBits: [Int32] = [3, 0, 0]
      var gotBits = wantBits
      var wantSums: [Double] = [0, 1, 2]
      var gotSums = wantSums
      SwiftReference.mix(&want, a, b, n, 0.7, 0.9, 0.5, &wantBits, &wantSums)
      MixKernel.portable(&got, a, b, n, 0.7, 0.9, 0.5, &gotBits, &gotSums)
      #expect(want.map(\.bitPattern) == got.map(\.bitPattern), "\(n) samples")
      #expect(wantBits == gotBits)
      #expect(wantSums.map(\.bitPattern) == gotSums.map(\.bitPattern))
    }
  }
}

#if arch(arm64)
  /// The reference of the portable dot products and groups: on arm64 the AVX2 kernels' chains.
  typealias KernelReference = AVX2Reference
#else
  /// The reference of the portable dot products and groups: the Swift SIMD loops.
  typealias KernelReference = SwiftReference
#endif

/// PCMMix's kernels as they were written in Swift's SIMD types (release 2026-12-01), the
/// reference the portable C kernels are held to.
enum SwiftReference {
  static func dotDouble(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Double {
    let (ra, rb) = (UnsafeRawPointer(a), UnsafeRawPointer(b))
    var (s0, s1) = (SIMD4<Double>(), SIMD4<Double>())
    var offset = 0
    while offset < n * 4 {
      let h = ra.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      let x = rb.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      s0 += SIMD4<Double>(h.lowHalf) * SIMD4<Double>(x.lowHalf)
      s1 += SIMD4<Double>(h.highHalf) * SIMD4<Double>(x.highHalf)
      offset += 32
    }
    return (s0 + s1).sum()
  }

  static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
    let (ra, rb) = (UnsafeRawPointer(a), UnsafeRawPointer(b))
    var (s0, s1) = (SIMD8<Float>(), SIMD8<Float>())
    var i = 0
    while i + 16 <= n {
      s0 +=
        ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
        * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
      s1 +=
        ra.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Float>.self)
        * rb.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Float>.self)
      i += 16
    }
    if i < n {
      s0 +=
        ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
        * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
    }
    return (s0 + s1).sum()
  }

  static func dot2(
    _ h: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int
  ) -> (Float, Float) {
    let (rh, ra, rb) = (UnsafeRawPointer(h), UnsafeRawPointer(a), UnsafeRawPointer(b))
    var (a0, a1, b0, b1) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
    var offset = 0
    while offset + 64 <= n * 4 {
      let c0 = rh.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      let c1 = rh.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
      a0 += c0 * ra.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      b0 += c0 * rb.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      a1 += c1 * ra.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
      b1 += c1 * rb.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
      offset += 64
    }
    if offset < n * 4 {
      let c0 = rh.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      a0 += c0 * ra.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      b0 += c0 * rb.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    }
    return ((a0 + a1).sum(), (b0 + b1).sum())
  }

  static func blend(
    _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ t: Float,
    _ row: UnsafeMutablePointer<Float>, _ n: Int
  ) {
    let tv = SIMD8<Float>(repeating: t)
    var offset = 0
    while offset < n * 4 {
      let x = UnsafeRawPointer(a).loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      let y = UnsafeRawPointer(b).loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      UnsafeMutableRawPointer(row).storeBytes(
        of: x + tv * (y - x), toByteOffset: offset, as: SIMD8<Float>.self)
      offset += 32
    }
  }

  static func group16(
    _ table: UnsafePointer<Float>, _ width: Int, _ x: UnsafePointer<Float>, _ stride: Int,
    _ channels: Int, _ out: UnsafeMutablePointer<Float>, _ first: Int, _ count: Int
  ) {
    var c = 0
    while c + 2 <= channels {
      let a = lanes(table, width, x + c * stride)
      let b = lanes(table, width, x + (c + 1) * stride)
      for i in 0..<count {
        out[i * channels + c] = a[first + i]
        out[i * channels + c + 1] = b[first + i]
      }
      c += 2
    }
    if c < channels {
      let a = lanes(table, width, x + c * stride)
      for i in 0..<count { out[i * channels + c] = a[first + i] }
    }
  }

  /// Sixteen lanes of one plane, summed over blocks of sixteen taps.
  static func lanes(_ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>)
    -> SIMD16<Float>
  {
    let t = UnsafeRawPointer(table)
    var (a0, a1) = (SIMD8<Float>(), SIMD8<Float>())
    var m = 0
    while m < width {
      let end = min(width, m + 16)
      var (sa0, sa1) = (SIMD8<Float>(), SIMD8<Float>())
      while m < end {
        let xa = SIMD8<Float>(repeating: a[m])
        sa0 += t.loadUnaligned(fromByteOffset: m * 64, as: SIMD8<Float>.self) * xa
        sa1 += t.loadUnaligned(fromByteOffset: m * 64 + 32, as: SIMD8<Float>.self) * xa
        m += 1
      }
      a0 += sa0
      a1 += sa1
    }
    return SIMD16(lowHalf: a0, highHalf: a1)
  }

  static func mix(
    _ out: UnsafeMutablePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
    _ count: Int, _ ga: Float, _ gb: Float, _ scale: Float, _ bits: UnsafeMutablePointer<Int32>,
    _ sums: UnsafeMutablePointer<Double>
  ) {
    typealias F = SIMD8<Float>
    typealias I = SIMD8<Int32>
    let (ra, rb, ro) = (UnsafeRawPointer(a), UnsafeRawPointer(b), UnsafeMutableRawPointer(out))
    let (vga, vgb, vs) = (F(repeating: ga), F(repeating: gb), F(repeating: scale))
    let mask = I(repeating: 0x7FFF_FFFF)
    func magnitude(_ x: F) -> F { unsafeBitCast(unsafeBitCast(x, to: I.self) & mask, to: F.self) }
    var (ma, mb, my) = (F(), F(), F())
    var (sa, sb, sy) = (0.0, 0.0, 0.0)
    var i = 0
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

/// The chains of `PCMMixAccelerated`'s AVX2 kernels (`avx2_resample.c`) in Swift, the reference
/// the portable dot products and groups are held to on arm64, where they compute these chains:
/// fused multiply-adds (`addingProduct`) into the same accumulators, the same final adds and the
/// AVX2 horizontal sum. (Compiled everywhere, used on arm64.)
enum AVX2Reference {
  typealias F = SIMD8<Float>

  static func load(_ p: UnsafePointer<Float>, _ i: Int) -> F {
    UnsafeRawPointer(p + i).loadUnaligned(as: F.self)
  }

  /// The AVX2 `hsum`: lanes i and i + 4 added, then (0 + 2) and (1 + 3), then those two.
  static func hsum(_ v: F) -> Float {
    let s = v.lowHalf + v.highHalf
    return (s[0] + s[2]) + (s[1] + s[3])
  }

  /// `pcmmix_dot`: four accumulators over 32 floats a step, the rest eight at a time into the
  /// first.
  static func dot(_ h: UnsafePointer<Float>, _ x: UnsafePointer<Float>, _ n: Int) -> Float {
    var (s0, s1, s2, s3) = (F(), F(), F(), F())
    var i = 0
    while i + 32 <= n {
      s0 = s0.addingProduct(load(h, i), load(x, i))
      s1 = s1.addingProduct(load(h, i + 8), load(x, i + 8))
      s2 = s2.addingProduct(load(h, i + 16), load(x, i + 16))
      s3 = s3.addingProduct(load(h, i + 24), load(x, i + 24))
      i += 32
    }
    while i < n {
      s0 = s0.addingProduct(load(h, i), load(x, i))
      i += 8
    }
    return hsum((s0 + s1) + (s2 + s3))
  }

  /// `pcmmix_dot2`: two accumulators per plane over 16 floats a step.
  static func dot2(
    _ h: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int
  ) -> (Float, Float) {
    var (a0, a1, b0, b1) = (F(), F(), F(), F())
    var i = 0
    while i + 16 <= n {
      let (c0, c1) = (load(h, i), load(h, i + 8))
      a0 = a0.addingProduct(c0, load(a, i))
      b0 = b0.addingProduct(c0, load(b, i))
      a1 = a1.addingProduct(c1, load(a, i + 8))
      b1 = b1.addingProduct(c1, load(b, i + 8))
      i += 16
    }
    if i < n {
      let c0 = load(h, i)
      a0 = a0.addingProduct(c0, load(a, i))
      b0 = b0.addingProduct(c0, load(b, i))
    }
    return (hsum(a0 + a1), hsum(b0 + b1))
  }

  /// The row the lerp kernels blend in registers: `t · (b − a) + a`, fused.
  static func lerpRow(
    _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ t: Float,
    _ row: UnsafeMutablePointer<Float>, _ n: Int
  ) {
    let tv = F(repeating: t)
    var i = 0
    while i < n {
      let x = load(a, i)
      let blended = x.addingProduct(tv, load(b, i) - x)
      for k in 0..<8 { row[i + k] = blended[k] }
      i += 8
    }
  }

  /// `pcmmix_lerp_dot`'s sum over the blended row: `dot2`'s chain for one plane.
  static func lerpDot(_ h: UnsafePointer<Float>, _ x: UnsafePointer<Float>, _ n: Int) -> Float {
    dot2(h, x, x, n).0
  }

  static func group16(
    _ table: UnsafePointer<Float>, _ width: Int, _ x: UnsafePointer<Float>, _ stride: Int,
    _ channels: Int, _ out: UnsafeMutablePointer<Float>, _ first: Int, _ count: Int
  ) {
    for c in 0..<channels {
      let a = lanes(table, width, x + c * stride)
      for i in 0..<count { out[i * channels + c] = a[first + i] }
    }
  }

  /// `pair_sums` for one plane: the even taps and the odd taps in two chains, then added.
  static func lanes(_ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>)
    -> SIMD16<Float>
  {
    var (e0, e1, o0, o1) = (F(), F(), F(), F())
    var m = 0
    while m + 2 <= width {
      let (xa, ya) = (F(repeating: a[m]), F(repeating: a[m + 1]))
      e0 = e0.addingProduct(load(table, m * 16), xa)
      e1 = e1.addingProduct(load(table, m * 16 + 8), xa)
      o0 = o0.addingProduct(load(table, m * 16 + 16), ya)
      o1 = o1.addingProduct(load(table, m * 16 + 24), ya)
      m += 2
    }
    if m < width {
      let xa = F(repeating: a[m])
      e0 = e0.addingProduct(load(table, m * 16), xa)
      e1 = e1.addingProduct(load(table, m * 16 + 8), xa)
    }
    return SIMD16(lowHalf: e0 + o0, highHalf: e1 + o1)
  }
}
