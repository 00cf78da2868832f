import CPCMMixCore
import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The portable C kernels (`CPCMMixCore`) compute the chains PCMMix's resampler and mix were
/// first written as in Swift's SIMD8<Float>: the same operations in the same order, multiplies
/// and adds separate. Those Swift loops are kept here as the reference, and every kernel must
/// give their bits on random shapes (lengths, widths, channel counts, lanes kept).
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
            #expect(_dot(h, a, n).bitPattern == SwiftReference.dot(h, a, n).bitPattern)
            let p = _dot2(h, a, b, n)
            let q = SwiftReference.dot2(h, a, b, n)
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
            row.withUnsafeBufferPointer { r in
              let want = SwiftReference.dot2(r.baseAddress!, a, b, n)
              var got: [Float] = [0, 0]
              pcmmix_core_lerp_dot2(h, h + n, t, a, b, n, &got, nil)
              #expect(got[0].bitPattern == want.0.bitPattern)
              #expect(got[1].bitPattern == want.1.bitPattern)
              let one = SwiftReference.dot(r.baseAddress!, a, n)
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
              SwiftReference.group16(
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
