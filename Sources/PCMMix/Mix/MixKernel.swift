import CPCMMixAtomics

/// A mixing kernel from outside the library: one pass that mixes two blocks and measures them
/// for the meters, giving the same mix bits as the Swift loop. `PCMMixAccelerated` installs an
/// AVX2 one where the CPU has it; without one, the mixers mix and measure in separate Swift
/// passes.
@_spi(Backends)
public enum MixKernel {
  /// `(a, b, count, peaks, sums)`: the largest square and the sum of squares of `count` floats
  /// of `a` (into `peaks[0]`, `sums[0]`) and of `b` (`[1]`). A non-finite sample must make the
  /// sum non-finite.
  public typealias Measure2 =
    @convention(c) (
      UnsafePointer<Float>, UnsafePointer<Float>, Int, UnsafeMutablePointer<Float>,
      UnsafeMutablePointer<Double>
    ) -> Void

  /// `(a, b, count, ga, gb, scale, peak, sum, magnitudeBits)`: sets `a[i] = (a[i]·ga +
  /// b[i]·gb)·scale` (multiplies and adds separate, never fused: the Swift loop's bits) and
  /// writes the result's largest square, sum of squares and largest |x| as float bits (a NaN
  /// counting larger than any number).
  public typealias MixMeasure =
    @convention(c) (
      UnsafeMutablePointer<Float>, UnsafePointer<Float>, Int, Float, Float, Float,
      UnsafeMutablePointer<Float>, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Int32>
    ) -> Void

  /// Makes both mixers use `measure2` and `mixMeasure` (or their Swift passes again, with
  /// `nil`). Set them once, before audio runs.
  public static func install(measure2: Measure2?, mixMeasure: MixMeasure?) {
    func bits<F>(_ f: F?) -> Int {
      f.map { Int(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
    }
    let both = measure2 != nil && mixMeasure != nil
    pcmmix_store_release(words, both ? bits(measure2) : 0)
    pcmmix_store_release(words + 1, both ? bits(mixMeasure) : 0)
  }

  /// The installed kernels, if any (two relaxed loads).
  static var installed: (Measure2, MixMeasure)? {
    let (m, x) = (pcmmix_load_relaxed(words), pcmmix_load_relaxed(words + 1))
    guard m != 0 && x != 0 else { return nil }
    return (
      unsafeBitCast(UnsafeRawPointer(bitPattern: m)!, to: Measure2.self),
      unsafeBitCast(UnsafeRawPointer(bitPattern: x)!, to: MixMeasure.self)
    )
  }

  nonisolated(unsafe) private static let words: UnsafeMutablePointer<Int> = {
    let words = UnsafeMutablePointer<Int>.allocate(capacity: 2)
    words.initialize(repeating: 0, count: 2)
    return words
  }()
}

/// One block through the installed kernels: both sources metered while their samples are still
/// there, then mixed into `a` and the result measured.
struct KernelMix {
  var sources: (peaks: (Float, Float), sums: (Double, Double)) = ((0, 0), (0, 0))
  var peak: Float = 0
  var sum = 0.0
  var magnitudeBits: Int32 = 0

  /// Measures `a` and `b` (`count` floats each); the meters of the two sources get them.
  init(
    _ kernels: (MixKernel.Measure2, MixKernel.MixMeasure), _ a: UnsafePointer<Float>,
    _ b: UnsafePointer<Float>, count: Int
  ) {
    withUnsafeMutableBytes(of: &sources.peaks) { p in
      withUnsafeMutableBytes(of: &sources.sums) { s in
        kernels.0(
          a, b, count, p.baseAddress!.assumingMemoryBound(to: Float.self),
          s.baseAddress!.assumingMemoryBound(to: Double.self))
      }
    }
  }

  /// Mixes `b` into `a` and measures the result.
  mutating func mix(
    _ kernels: (MixKernel.Measure2, MixKernel.MixMeasure), _ a: UnsafeMutablePointer<Float>,
    _ b: UnsafePointer<Float>, count: Int, _ ga: Float, _ gb: Float, _ scale: Float
  ) {
    kernels.1(a, b, count, ga, gb, scale, &peak, &sum, &magnitudeBits)
  }
}
