import CPCMMixAtomics

/// Encodes Float32 working samples for output.
///
/// Int16: `x × 32768` rounded to nearest with ties toward zero, then clamped to
/// [-32768, 32767]. Ties toward zero make an `average` of two int16 values come out exactly as C's
/// truncating `(a + b) / 2`, while any other value rounds to nearest.
public enum PCMEncoder {
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

  /// Encodes `input` into `output` as int16, eight samples at a time: the same bits as
  /// ``int16(_:)`` on each.
  ///
  /// - Precondition: `output.count >= input.count`.
  /// - Complexity: O(`input.count`).
  public static func encode(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>
  ) {
    precondition(output.count >= input.count)
    guard let src = input.baseAddress, let dst = output.baseAddress else { return }
    int16(src, count: input.count, into: dst)
  }

  /// `count` samples from `src` to int16 at `dst`: ``int16(_:)``'s bits, eight at a time in
  /// vector registers (portable C, see `_encodeInt16`), or by the kernel `install(_:)` installed.
  ///
  /// - Complexity: O(`count`).
  public static func int16(
    _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutablePointer<Int16>
  ) {
    if let kernel = _kernel {
      kernel(src, count, dst)
      return
    }
    _encodeInt16(src, count: count, into: UnsafeMutableRawPointer(dst), byteSwapped: false)
  }

  /// A bulk int16 encoder from outside the library, giving the same bits as ``int16(_:)``:
  /// `PCMMixAccelerated` installs an AVX2 one where the CPU has it (Swift cannot use AVX2
  /// without compiler flags, and its own loop runs at SSE2 width).
  package typealias Int16Kernel =
    @convention(c) (UnsafePointer<Float>, Int, UnsafeMutablePointer<Int16>) -> Void

  /// Makes every bulk int16 encode in the process (mixers, WAV writers) use `kernel`, or the
  /// Swift loop again with `nil`. Set it once, before audio runs: calls already under way may
  /// still use the previous one.
  package static func install(_ kernel: Int16Kernel?) {
    let bits = kernel.map { Int(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
    pcmmix_store_release(_kernelWord, bits)
  }

  /// The installed kernel, if any (one relaxed load).
  static var _kernel: Int16Kernel? {
    let bits = pcmmix_load_relaxed(_kernelWord)
    guard bits != 0 else { return nil }
    return unsafeBitCast(UnsafeRawPointer(bitPattern: bits)!, to: Int16Kernel.self)
  }

  /// Where the kernel's address is kept.
  nonisolated(unsafe) static let _kernelWord: UnsafeMutablePointer<Int> = {
    let word = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    word.initialize(to: 0)
    return word
  }()

  /// Writes `input` as little-endian bytes of `type` (`s16` or `f32`) into `output`, returning
  /// the bytes written.
  ///
  /// - Precondition: `type` is `.s16` or `.f32`; `output` has room for every sample.
  public static func encodeLittleEndian(
    _ input: UnsafeBufferPointer<Float>, as type: SampleType,
    into output: UnsafeMutableRawBufferPointer
  ) -> Int {
    switch type {
    case .s16:
      precondition(output.count >= input.count * 2)
      guard let src = input.baseAddress, let dst = output.baseAddress else { return 0 }
      if !_hostIsBigEndian && Int(bitPattern: dst) % 2 == 0 {
        // Aligned on a little-endian machine: the int16 samples are the bytes (and an installed
        // kernel may write them).
        int16(src, count: input.count, into: dst.bindMemory(to: Int16.self, capacity: input.count))
      } else {
        _encodeInt16(src, count: input.count, into: dst, byteSwapped: _hostIsBigEndian)
      }
      return input.count * 2
    case .f32:
      precondition(output.count >= input.count * 4)
      guard let src = input.baseAddress, let dst = output.baseAddress else { return 0 }
      _encodeFloat32(src, count: input.count, into: dst, byteSwapped: _hostIsBigEndian)
      return input.count * 4
    default:
      preconditionFailure("PCMEncoder writes s16 or f32, not \(type)")
    }
  }
}
