extension PCMEncoder {
  /// Eight samples to int16 by ``int16(_:)``'s rule (`x × 32768` rounded to nearest, ties
  /// toward zero, clamped; NaN to 0), with no multiply, no float-to-int conversion and no branch.
  ///
  /// With `a = |x|`, the result is `sign(x) × ceil(a × 32768 − 0.5)`. Adding
  /// `K = 256 − 2⁻¹⁶` to `a ≥ 2⁻¹⁶` lands in [256, 512), where floats are 2⁻¹⁵ apart: the sum is
  /// rounded to `256 + k / 32768` with `k` the nearest integer to `a × 32768 − 0.5`, and `k`
  /// is the sum's low mantissa bits. Rounding went down where `m − K` (exact) is below `a`; then
  /// the ceiling is `k + 1`. `a` is raised to 2⁻¹⁶ first (what lies below rounds to 0 anyway),
  /// which also turns NaN into 0. Past full scale nothing is clamped in floating point: a larger
  /// `a` gives a larger bit pattern (up to infinity's), so `k` only grows, and the saturating
  /// pack to int16 clamps it. The sign comes back as `~(k − 1)` for negative `x`, which keeps
  /// −32768 reachable: `q = k − 1` (negative) or `k`, packed with saturation, then `q ^ s`.
  @inline(__always)
  internal static func _int16x8(_ x: SIMD8<Float>) -> SIMD8<Int16> {
    let bits = x._bits
    var a = unsafeBitCast(bits & SIMD8(repeating: 0x7FFF_FFFF), to: SIMD8<Float>.self)
    let low = SIMD8<Float>(repeating: 0x1p-16)
    // Written so that NaN (which compares false) takes `low`.
    a.replace(with: low, where: .!(a .> low))
    let k = SIMD8<Float>(repeating: 256 - 0x1p-16)
    let m = a + k
    let sign = bits &>> SIMD8(repeating: 31)
    var q = m._bits &- SIMD8(repeating: 0x4380_0000) &- (m - k .< a)._allOnes &+ sign
    // Spelled as a clamp so that the narrowing is one saturating pack (SSE2's packssdw, NEON's
    // sqxtn); nothing is outside int16's range but k = 32768 and the saturating cases.
    let top = SIMD8<Int32>(repeating: 32767)
    let bottom = SIMD8<Int32>(repeating: -32768)
    q.replace(with: top, where: q .> top)
    q.replace(with: bottom, where: q .< bottom)
    return SIMD8<Int16>(truncatingIfNeeded: q) ^ SIMD8<Int16>(truncatingIfNeeded: sign)
  }

  /// `count` samples from `src` to int16 at `dst` (any alignment), by ``int16(_:)``'s rule,
  /// eight at a time; each sample's two bytes swapped when `byteSwapped`.
  ///
  /// - Complexity: O(`count`).
  @usableFromInline
  internal static func _encodeInt16(
    _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutableRawPointer, byteSwapped: Bool
  ) {
    var i = 0
    // One call site of `_int16x8` (with two, the optimizer outlines it) and the byte-order test
    // inside the loop, where it costs nothing.
    while i &+ 8 <= count {
      var y = unsafeBitCast(
        _int16x8(UnsafeRawPointer(src + i).loadUnaligned(as: SIMD8<Float>.self)),
        to: SIMD8<UInt16>.self)
      if byteSwapped { y = y._byteSwapped }
      (dst + 2 &* i).storeBytes(of: y, as: SIMD8<UInt16>.self)
      i &+= 8
    }
    while i < count {
      let y = int16(src[i])
      (dst + 2 &* i).storeBytes(of: byteSwapped ? y.byteSwapped : y, as: Int16.self)
      i &+= 1
    }
  }

  /// `count` Float32 samples copied bit for bit to `dst` (any alignment), each sample's four
  /// bytes reversed when `byteSwapped`.
  ///
  /// - Complexity: O(`count`).
  @usableFromInline
  internal static func _encodeFloat32(
    _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutableRawPointer, byteSwapped: Bool
  ) {
    guard byteSwapped else {
      dst.copyMemory(from: src, byteCount: count * 4)
      return
    }
    var i = 0
    while i &+ 4 <= count {
      let x = UnsafeRawPointer(src + i).loadUnaligned(as: SIMD4<UInt32>.self)
      (dst + 4 &* i).storeBytes(of: x._byteSwapped, as: SIMD4<UInt32>.self)
      i &+= 4
    }
    while i < count {
      (dst + 4 &* i).storeBytes(of: src[i].bitPattern.byteSwapped, as: UInt32.self)
      i &+= 1
    }
  }
}
