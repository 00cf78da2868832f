// The Swift forms of the resampler's kernels (SIMD8 on every target: SSE on x86-64, NEON on
// arm64). `PCMMixAccelerated` supplies AVX2 + FMA ones through ``PolyphaseResampler/DotKernel``.

/// Dot product of `n` floats, `n` a multiple of 8, with products and sums in Double.
@inline(__always)
func _dotDouble(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Double {
  let ra = UnsafeRawPointer(a)
  let rb = UnsafeRawPointer(b)
  var s0 = SIMD4<Double>()
  var s1 = SIMD4<Double>()
  var offset = 0
  let end = n * 4
  while offset < end {
    let h = ra.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    let x = rb.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    s0 += SIMD4<Double>(h.lowHalf) * SIMD4<Double>(x.lowHalf)
    s1 += SIMD4<Double>(h.highHalf) * SIMD4<Double>(x.highHalf)
    offset += 32
  }
  return (s0 + s1).sum()
}

/// Dot product of `n` floats, `n` a multiple of 8, in SIMD lanes with two accumulators.
@inline(__always)
func _dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
  let ra = UnsafeRawPointer(a)
  let rb = UnsafeRawPointer(b)
  var s0 = SIMD8<Float>()
  var s1 = SIMD8<Float>()
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

/// Two dot products of `n` floats against the same coefficients, `n` a multiple of 8. Two
/// accumulators per product keep the adds from waiting on each other.
@inline(__always)
func _dot2(
  _ h: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int
) -> (Float, Float) {
  let rh = UnsafeRawPointer(h)
  let ra = UnsafeRawPointer(a)
  let rb = UnsafeRawPointer(b)
  var a0 = SIMD8<Float>()
  var a1 = SIMD8<Float>()
  var b0 = SIMD8<Float>()
  var b1 = SIMD8<Float>()
  var offset = 0
  let end = n * 4
  while offset + 64 <= end {
    let c0 = rh.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    let c1 = rh.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
    a0 += c0 * ra.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    b0 += c0 * rb.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    a1 += c1 * ra.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
    b1 += c1 * rb.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
    offset += 64
  }
  if offset < end {
    let c0 = rh.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    a0 += c0 * ra.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
    b0 += c0 * rb.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
  }
  return ((a0 + a1).sum(), (b0 + b1).sum())
}

/// The Swift form of ``PolyphaseResampler/DotKernel/group``: sixteen outputs, every channel.
func _group16(
  _ table: UnsafePointer<Float>, _ width: Int, _ x: UnsafePointer<Float>, _ stride: Int,
  _ channels: Int, _ out: UnsafeMutablePointer<Float>, _ first: Int, _ count: Int
) {
  var c = 0
  while c + 2 <= channels {
    let (a, b) = _groupLanes(table, width, x + c * stride, x + (c + 1) * stride)
    for i in 0..<count {
      out[i * channels + c] = a[first + i]
      out[i * channels + c + 1] = b[first + i]
    }
    c += 2
  }
  if c < channels {
    let a = _groupLanes(table, width, x + c * stride)
    for i in 0..<count { out[i * channels + c] = a[first + i] }
  }
}

/// The Swift form of ``PolyphaseResampler/DotKernel/groupPair``.
func _group16x2(
  _ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>,
  _ b: UnsafePointer<Float>, _ outA: UnsafeMutablePointer<Float>,
  _ outB: UnsafeMutablePointer<Float>
) {
  let (la, lb) = _groupLanes(table, width, a, b)
  UnsafeMutableRawPointer(outA).storeBytes(of: la, as: SIMD16<Float>.self)
  UnsafeMutableRawPointer(outB).storeBytes(of: lb, as: SIMD16<Float>.self)
}

/// Sixteen lanes of two planes against one group table: each tap's input sample, broadcast,
/// times the tap's sixteen coefficients, one row load for both planes. Sums run over blocks of
/// ``_groupBlock`` taps, each block's added to the total: a separate multiply and add rounds
/// twice per tap, and shorter running sums keep that error near the per-output path's.
@inline(__always)
func _groupLanes(
  _ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>,
  _ b: UnsafePointer<Float>
) -> (SIMD16<Float>, SIMD16<Float>) {
  let t = UnsafeRawPointer(table)
  var a0 = SIMD8<Float>()
  var a1 = SIMD8<Float>()
  var b0 = SIMD8<Float>()
  var b1 = SIMD8<Float>()
  var m = 0
  while m < width {
    let end = min(width, m + _groupBlock)
    var sa0 = SIMD8<Float>()
    var sa1 = SIMD8<Float>()
    var sb0 = SIMD8<Float>()
    var sb1 = SIMD8<Float>()
    while m < end {
      let c0 = t.loadUnaligned(fromByteOffset: m * 64, as: SIMD8<Float>.self)
      let c1 = t.loadUnaligned(fromByteOffset: m * 64 + 32, as: SIMD8<Float>.self)
      let xa = SIMD8<Float>(repeating: a[m])
      let xb = SIMD8<Float>(repeating: b[m])
      sa0 += c0 * xa
      sa1 += c1 * xa
      sb0 += c0 * xb
      sb1 += c1 * xb
      m += 1
    }
    a0 += sa0
    a1 += sa1
    b0 += sb0
    b1 += sb1
  }
  return (SIMD16(lowHalf: a0, highHalf: a1), SIMD16(lowHalf: b0, highHalf: b1))
}

/// Sixteen lanes of one plane: the same sums, in the same order, as
/// ``_groupLanes(_:_:_:_:)`` gives for either of its planes.
@inline(__always)
func _groupLanes(_ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>)
  -> SIMD16<Float>
{
  let t = UnsafeRawPointer(table)
  var a0 = SIMD8<Float>()
  var a1 = SIMD8<Float>()
  var m = 0
  while m < width {
    let end = min(width, m + _groupBlock)
    var sa0 = SIMD8<Float>()
    var sa1 = SIMD8<Float>()
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

/// Taps per partial sum in the Swift group kernel.
let _groupBlock = 16
