import CPCMMixCore

// The resampler's kernels as the library runs them where `PCMMixAccelerated` installs none:
// portable C in `CPCMMixCore` (vector extensions: SSE2 on x86-64, NEON on arm64), which keeps
// real time in a Debug build too. On x86-64 (and any target but arm64) each is the chain the
// same loop in Swift's SIMD8<Float> computes, multiplies and adds separate, bit for bit. On arm64
// the dot products, blended-row dot products and group functions are instead the AVX2 kernels'
// chains of fused multiply-adds, so an arm64 build gives the AVX2 kernels' bits (and the NEON
// kernels', which equal them) with or without `PCMMixAccelerated`; `_dotDouble` and `_blend` are
// unfused everywhere. `PortableKernelTests` checks each against its chain written in Swift.

/// Dot product of `n` floats, `n` a multiple of 8, with products and sums in Double.
@inline(__always)
func _dotDouble(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Double {
  pcmmix_core_dot_double(a, b, n)
}

/// Dot product of `n` floats, `n` a multiple of 8, in eight lanes with two accumulators (four,
/// fused, on arm64).
@inline(__always)
func _dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
  pcmmix_core_dot(a, b, n)
}

/// Two dot products of `n` floats against the same coefficients, `n` a multiple of 8.
@inline(__always)
func _dot2(
  _ h: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int
) -> (Float, Float) {
  var out: (Float, Float) = (0, 0)
  withUnsafeMutablePointer(to: &out) {
    $0.withMemoryRebound(to: Float.self, capacity: 2) { pcmmix_core_dot2(h, a, b, n, $0) }
  }
  return out
}

/// `row = a + t·(b − a)` over `n` floats, `n` a multiple of 8.
@inline(__always)
func _blend(
  _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ t: Float,
  into row: UnsafeMutablePointer<Float>, _ n: Int
) {
  pcmmix_core_blend(a, b, t, row, n)
}

/// The portable form of ``PolyphaseResampler/DotKernel/group``: sixteen outputs, every channel,
/// summed in blocks of sixteen taps (on arm64: even and odd taps in two fused chains, as AVX2).
@inline(__always)
func _group16(
  _ table: UnsafePointer<Float>, _ width: Int, _ x: UnsafePointer<Float>, _ stride: Int,
  _ channels: Int, _ out: UnsafeMutablePointer<Float>, _ first: Int, _ count: Int
) {
  pcmmix_core_group16(table, width, x, stride, channels, out, first, count)
}

/// The portable form of ``PolyphaseResampler/DotKernel/groupPair``.
@inline(__always)
func _group16x2(
  _ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>,
  _ b: UnsafePointer<Float>, _ outA: UnsafeMutablePointer<Float>,
  _ outB: UnsafeMutablePointer<Float>
) {
  pcmmix_core_group16x2(table, width, a, b, outA, outB)
}
