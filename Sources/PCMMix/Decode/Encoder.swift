/// Encodes Float32 working samples for output.
///
/// Int16: `x × 32768` rounded to nearest with ties toward zero, then clamped to
/// [-32768, 32767]. Ties toward zero make an `average` of two int16 values come out exactly as C's
/// truncating `(a + b) / 2`, while any other value rounds to nearest.
public enum Encoder {
  /// One sample to int16 by the rule above.
  ///
  /// Works from the truncating conversion (one instruction on every target, where `rounded`
  /// is a library call without SSE4.1) and steps away from zero past a half.
  @inlinable @inline(__always)
  public static func int16(_ x: Float) -> Int16 {
    let v = x * 32768
    // NaN compares false and encodes as silence.
    guard v == v else { return 0 }
    let c = min(max(v, -32768), 32767)
    let t = Int32(c)
    let f = c - Float(t)
    let r = f > 0.5 ? t + 1 : (f < -0.5 ? t - 1 : t)
    return Int16(truncatingIfNeeded: r)
  }

  /// Encodes `input` into `output` as int16.
  ///
  /// - Precondition: `output.count >= input.count`.
  /// - Complexity: O(`input.count`).
  @inlinable
  public static func encode(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>
  ) {
    precondition(output.count >= input.count)
    for i in 0..<input.count { output[i] = int16(input[i]) }
  }

  /// Writes `input` as little-endian bytes of `type` (`s16` or `f32`) into `output`, returning
  /// the bytes written.
  ///
  /// - Precondition: `type` is `.s16` or `.f32`; `output` has room for every sample.
  @inlinable
  public static func encodeLittleEndian(
    _ input: UnsafeBufferPointer<Float>, as type: SampleType,
    into output: UnsafeMutableRawBufferPointer
  ) -> Int {
    switch type {
    case .s16:
      precondition(output.count >= input.count * 2)
      for i in 0..<input.count {
        output.storeBytes(
          of: int16(input[i]).littleEndian, toByteOffset: i * 2, as: Int16.self)
      }
      return input.count * 2
    case .f32:
      precondition(output.count >= input.count * 4)
      for i in 0..<input.count {
        output.storeBytes(
          of: input[i].bitPattern.littleEndian, toByteOffset: i * 4, as: UInt32.self)
      }
      return input.count * 4
    default:
      preconditionFailure("Encoder writes s16 or f32, not \(type)")
    }
  }
}
