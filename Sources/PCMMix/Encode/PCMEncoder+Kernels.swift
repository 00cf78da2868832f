import CPCMMixCore

extension PCMEncoder {
  /// `count` samples from `src` to int16 at `dst` (any alignment), by ``int16(_:)``'s rule
  /// (`x × 32768` rounded to nearest, ties toward zero, clamped; NaN to 0); each sample's two
  /// bytes swapped when `byteSwapped`.
  ///
  /// Portable C (`CPCMMixCore`), eight at a time with no multiply, no float-to-int conversion
  /// and no branch: with `a = |x|`, the result is `sign(x) × ceil(a × 32768 − 0.5)`. Adding
  /// `K = 256 − 2⁻¹⁶` to `a ≥ 2⁻¹⁶` lands in [256, 512), where floats are 2⁻¹⁵ apart: the sum is
  /// rounded to `256 + k / 32768` with `k` the nearest integer to `a × 32768 − 0.5`, and `k` is
  /// the sum's low mantissa bits. Rounding went down where `m − K` (exact) is below `a`; then
  /// the ceiling is `k + 1`. `a` is raised to 2⁻¹⁶ first (what lies below rounds to 0 anyway),
  /// which also turns NaN into 0. Past full scale a larger `a` gives a larger bit pattern, so
  /// `k` only grows, and a clamp to int16's range saturates it. The sign comes back as
  /// `~(k − 1)` for negative `x`, which keeps −32768 reachable.
  ///
  /// - Complexity: O(`count`).
  @usableFromInline
  internal static func _encodeInt16(
    _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutableRawPointer, byteSwapped: Bool
  ) {
    pcmmix_core_encode_s16(src, count, dst, byteSwapped ? 1 : 0)
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
    pcmmix_core_swap32(src, count, dst)
  }
}
