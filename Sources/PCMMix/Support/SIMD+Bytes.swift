// Byte-order and bit-pattern helpers for the decoder's and encoder's SIMD loops.
//
// Written with shifts, ors and whole-lane shuffles only, so that the compiler keeps them in
// vector registers on every target: x86-64's baseline SSE2 has no byte shuffle (`pshufb` is
// SSSE3) and no vector rotate, and a 32-bit swap spelled as a rotate is taken apart into scalar
// code there. A 16-bit lane swap is two shifts and an or; a 32-bit one swaps the bytes of each
// 16-bit half, then the halves (`pshuflw` + `pshufhw` on SSE2, `rev32` on NEON).

/// `true` on a big-endian machine (of Swift's targets, s390x).
@inlinable @inline(__always)
internal var _hostIsBigEndian: Bool {
  #if _endian(big)
    true
  #else
    false
  #endif
}

extension SIMD8 where Scalar == UInt16 {
  /// Each lane's two bytes swapped.
  @inline(__always)
  internal var _byteSwapped: Self { (self &<< 8) | (self &>> 8) }
}

extension SIMD4 where Scalar == UInt16 {
  /// Each lane's two bytes swapped.
  @inline(__always)
  internal var _byteSwapped: Self { (self &<< 8) | (self &>> 8) }
}

extension SIMD4 where Scalar == UInt32 {
  /// Each lane's four bytes reversed.
  @inline(__always)
  internal var _byteSwapped: Self {
    let h = unsafeBitCast(self, to: SIMD8<UInt16>.self)._byteSwapped
    return unsafeBitCast(
      SIMD8(h[1], h[0], h[3], h[2], h[5], h[4], h[7], h[6]), to: SIMD4<UInt32>.self)
  }
}

extension SIMD8 where Scalar == Float {
  /// The lanes' bit patterns.
  @inline(__always)
  internal var _bits: SIMD8<Int32> { unsafeBitCast(self, to: SIMD8<Int32>.self) }
}

extension SIMDMask where Storage == SIMD8<Int32> {
  /// -1 in the lanes that are set, 0 elsewhere.
  @inline(__always)
  internal var _allOnes: SIMD8<Int32> { unsafeBitCast(self, to: SIMD8<Int32>.self) }
}
