import CPCMMixCore

extension PCMDecoder {
  /// Decodes `count` consecutive samples of `type` at `src` (any alignment) into `dst`, with
  /// ``PCMDecoder``'s scaling; each sample's bytes reversed first when `byteSwapped` (the data's
  /// byte order is not the machine's). Portable C (`CPCMMixCore`): eight s16 samples at a time in
  /// vector registers, the others one by one, as fast in a Debug build as in release.
  ///
  /// One call serves a whole block of interleaved frames when every channel is kept, and one
  /// mono plane. Integers are converted to Float rounding to nearest, as `Float(Int32)` does,
  /// then scaled by a power of two: the same values as the scalar rules.
  ///
  /// - Complexity: O(`count`).
  @usableFromInline
  internal static func _decodeContiguous(
    _ src: UnsafeRawPointer, count: Int, type: SampleType, byteSwapped: Bool,
    into dst: UnsafeMutablePointer<Float>
  ) {
    let (kind, swap) = _kernelType(type, byteSwapped: byteSwapped)
    pcmmix_core_decode(src, count, kind, swap, dst)
  }

  /// Decodes one channel: `count` samples `stride` bytes apart from `src` into `dst`,
  /// `outputStride` floats apart, in the data's byte order (`bigEndian` or little).
  ///
  /// - Complexity: O(`count`).
  @usableFromInline
  internal static func _decodeStrided(
    _ src: UnsafeRawPointer, stride: Int, count: Int, type: SampleType, bigEndian: Bool,
    into dst: UnsafeMutablePointer<Float>, outputStride: Int
  ) {
    let (kind, swap) = _kernelType(type, byteSwapped: bigEndian != _hostIsBigEndian)
    pcmmix_core_decode_strided(src, stride, count, kind, swap, dst, outputStride)
  }

  /// The C kernels' type number, and their swap flag (for s24: whether the data is big-endian,
  /// which they read byte by byte on any machine).
  static func _kernelType(_ type: SampleType, byteSwapped: Bool) -> (Int32, Int32) {
    let swap: Int32 = byteSwapped ? 1 : 0
    switch type {
    case .u8: return (0, 0)
    case .s16: return (1, swap)
    case .s24: return (2, byteSwapped != _hostIsBigEndian ? 1 : 0)
    case .s32: return (3, swap)
    case .f32: return (4, swap)
    case .f64: return (5, swap)
    }
  }
}
