extension PCMDecoder {
  /// Decodes `count` consecutive samples of `type` at `src` (any alignment) into `dst`, eight
  /// at a time in SIMD registers (SSE2, NEON), with ``PCMDecoder``'s scaling; each sample's bytes
  /// reversed first when `byteSwapped` (the data's byte order is not the machine's).
  ///
  /// One call serves a whole block of interleaved frames when every channel is kept, and one
  /// mono plane. Integers are widened to Int32 and converted (rounding to nearest, as
  /// `Float(Int32)` does), then scaled by a power of two: the same values as the scalar rules.
  ///
  /// - Complexity: O(`count`).
  @usableFromInline
  internal static func _decodeContiguous(
    _ src: UnsafeRawPointer, count: Int, type: SampleType, byteSwapped: Bool,
    into dst: UnsafeMutablePointer<Float>
  ) {
    switch type {
    case .u8:
      _u8(src, count, dst)
    case .s16:
      let i = byteSwapped ? _s16(src, count, dst) { $0._byteSwapped } : _s16(src, count, dst) { $0 }
      _rest(src, from: i, count, dst) { (v: UInt16) in
        Float(Int16(bitPattern: byteSwapped ? v.byteSwapped : v)) * 0x1p-15
      }
    case .s24:
      _s24(src, count, dst, bigEndian: byteSwapped != _hostIsBigEndian)
    case .s32:
      let i = byteSwapped ? _s32(src, count, dst) { $0._byteSwapped } : _s32(src, count, dst) { $0 }
      _rest(src, from: i, count, dst) { (v: UInt32) in
        Float(Int32(bitPattern: byteSwapped ? v.byteSwapped : v)) * 0x1p-31
      }
    case .f32:
      guard byteSwapped else {
        UnsafeMutableRawPointer(dst).copyMemory(from: src, byteCount: count * 4)
        return
      }
      let i = _s32(src, count, dst, convert: false) { $0._byteSwapped }
      _rest(src, from: i, count, dst) { (v: UInt32) in Float(bitPattern: v.byteSwapped) }
    case .f64:
      for j in 0..<count {
        let v = (src + 8 &* j).loadUnaligned(as: UInt64.self)
        dst[j] = Float(Double(bitPattern: byteSwapped ? v.byteSwapped : v))
      }
    }
  }

  /// The samples from `first` on, one at a time: each loaded as `T` and converted.
  @inline(__always)
  internal static func _rest<T: FixedWidthInteger>(
    _ src: UnsafeRawPointer, from first: Int, _ count: Int, _ dst: UnsafeMutablePointer<Float>,
    _ convert: (T) -> Float
  ) {
    for j in first..<count {
      dst[j] = convert((src + MemoryLayout<T>.size &* j).loadUnaligned(as: T.self))
    }
  }

  /// u8: `(x − 128) / 128`, as `x / 128 − 1` (both exact).
  @inline(__always)
  internal static func _u8(
    _ src: UnsafeRawPointer, _ count: Int, _ dst: UnsafeMutablePointer<Float>
  ) {
    var i = 0
    while i &+ 8 <= count {
      let x = SIMD8<Int32>(truncatingIfNeeded: (src + i).loadUnaligned(as: SIMD8<UInt8>.self))
      let y = SIMD8<Float>(x) * 0x1p-7 - 1
      UnsafeMutableRawPointer(dst + i).storeBytes(of: y, as: SIMD8<Float>.self)
      i &+= 8
    }
    while i < count {
      dst[i] = Float(src.load(fromByteOffset: i, as: UInt8.self)) * 0x1p-7 - 1
      i &+= 1
    }
  }

  /// s16 in two loads of four, so that both halves are widened from registers that were
  /// loaded (widening the top half of one 8-lane load reads a register the compiler leaves
  /// stale, a dependency on the previous iteration). Returns the samples done.
  @inline(__always)
  internal static func _s16(
    _ src: UnsafeRawPointer, _ count: Int, _ dst: UnsafeMutablePointer<Float>,
    _ order: (SIMD4<UInt16>) -> SIMD4<UInt16>
  ) -> Int {
    var i = 0
    while i &+ 8 <= count {
      let a = order((src + 2 &* i).loadUnaligned(as: SIMD4<UInt16>.self))
      let b = order((src + (2 &* i &+ 8)).loadUnaligned(as: SIMD4<UInt16>.self))
      let x = SIMD4<Int32>(truncatingIfNeeded: SIMD4<Int16>(truncatingIfNeeded: a))
      let y = SIMD4<Int32>(truncatingIfNeeded: SIMD4<Int16>(truncatingIfNeeded: b))
      let out = UnsafeMutableRawPointer(dst + i)
      out.storeBytes(of: SIMD4<Float>(x) * 0x1p-15, as: SIMD4<Float>.self)
      out.storeBytes(of: SIMD4<Float>(y) * 0x1p-15, toByteOffset: 16, as: SIMD4<Float>.self)
      i &+= 8
    }
    return i
  }

  /// s32 (or, with `convert` false, f32's bits), eight at a time. Returns the samples done.
  @inline(__always)
  internal static func _s32(
    _ src: UnsafeRawPointer, _ count: Int, _ dst: UnsafeMutablePointer<Float>,
    convert: Bool = true, _ order: (SIMD4<UInt32>) -> SIMD4<UInt32>
  ) -> Int {
    var i = 0
    while i &+ 8 <= count {
      let a = order((src + 4 &* i).loadUnaligned(as: SIMD4<UInt32>.self))
      let b = order((src + (4 &* i &+ 16)).loadUnaligned(as: SIMD4<UInt32>.self))
      let out = UnsafeMutableRawPointer(dst + i)
      if convert {
        let x = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: a)) * 0x1p-31
        let y = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: b)) * 0x1p-31
        out.storeBytes(of: x, as: SIMD4<Float>.self)
        out.storeBytes(of: y, toByteOffset: 16, as: SIMD4<Float>.self)
      } else {
        out.storeBytes(of: a, as: SIMD4<UInt32>.self)
        out.storeBytes(of: b, toByteOffset: 16, as: SIMD4<UInt32>.self)
      }
      i &+= 8
    }
    return i
  }

  /// Packed s24. A 4-byte load that ends at a sample's last byte holds the sample in its top
  /// three bytes once read in the sample's byte order: for little-endian samples the load starts
  /// at the byte before the sample (so the first sample is done alone), and an arithmetic shift
  /// by 8 sign-extends it. Big-endian samples are loaded little-endian from the sample's first
  /// byte (so the load runs one byte past the sample and the loop stops a sample early), and
  /// shifts and masks on four lanes put the bytes in place: an SSE2 byte swap would cost seven
  /// shuffles per four samples, all on one port.
  @inline(__always)
  internal static func _s24(
    _ src: UnsafeRawPointer, _ count: Int, _ dst: UnsafeMutablePointer<Float>, bigEndian: Bool
  ) {
    var i = 0
    if bigEndian {
      // Lanes hold bytes (hi, mid, lo, next) from the low end: hi sign-extended into the top
      // sixteen bits, mid kept where it is, lo brought down. (Spelled so that the optimizer
      // does not see a byte swap in it.)
      i = _s24(src, count - 1, dst, back: 0) {
        let hi = SIMD4<Int32>(truncatingIfNeeded: $0 &<< 24) &>> 8
        let low = $0 & SIMD4(repeating: 0xFF00) | ($0 &>> 16) & SIMD4(repeating: 0xFF)
        return hi | SIMD4<Int32>(truncatingIfNeeded: low)
      }
    } else if count > 0 {
      dst[0] = _s24(src, hi: 2, mid: 1, lo: 0)
      i = _s24(src, count, dst, first: 1, back: 1) {
        SIMD4<Int32>(truncatingIfNeeded: $0) &>> 8
      }
    }
    while i < count {
      let p = src + 3 &* i
      dst[i] = bigEndian ? _s24(p, hi: 0, mid: 1, lo: 2) : _s24(p, hi: 2, mid: 1, lo: 0)
      i &+= 1
    }
  }

  /// The s24 loop: samples from `first` while eight more fit below `end`, each from a
  /// little-endian 4-byte load at `back` bytes before the sample, made the sample's value by
  /// `value`. Returns the first sample not done.
  @inline(__always)
  internal static func _s24(
    _ src: UnsafeRawPointer, _ end: Int, _ dst: UnsafeMutablePointer<Float>, first: Int = 0,
    back: Int, _ value: (SIMD4<UInt32>) -> SIMD4<Int32>
  ) -> Int {
    @inline(__always) func load(_ p: UnsafeRawPointer) -> UInt32 {
      UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))
    }
    @inline(__always) func four(_ p: UnsafeRawPointer) -> SIMD4<Float> {
      SIMD4<Float>(value(SIMD4(load(p), load(p + 3), load(p + 6), load(p + 9)))) * 0x1p-23
    }
    var i = first
    while i &+ 8 <= end {
      let p = src + (3 &* i &- back)
      let out = UnsafeMutableRawPointer(dst + i)
      out.storeBytes(of: four(p), as: SIMD4<Float>.self)
      out.storeBytes(of: four(p + 12), toByteOffset: 16, as: SIMD4<Float>.self)
      i &+= 8
    }
    return i
  }
}
