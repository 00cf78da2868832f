import CPCMMixCore

/// An in-place radix-2 complex FFT over separate real and imaginary arrays, for filter design.
/// The loops are C (`pcmmix_core_fft_double`): a `balanced` design's four transforms of 2^18
/// points ran 4.3 G instructions as Swift loops in a Debug build, 0.7 G as C compiled `-O0`.
struct FFT {
  let count: Int
  private let cosines: [Double]
  private let sines: [Double]

  /// `count` a power of two.
  init(count: Int) {
    precondition(count > 1 && count & (count - 1) == 0)
    self.count = count
    var c = [Double](repeating: 0, count: count / 2)
    var s = [Double](repeating: 0, count: count / 2)
    pcmmix_core_fft_twiddles(&c, &s, count)
    (cosines, sines) = (c, s)
  }

  /// The forward transform (e^{-iωn}), or the inverse one including its 1/count, of `count`
  /// points. Arrays of another length are left as they are (the one caller,
  /// ``MinimumPhasePrototype``, allocates both at `count`).
  func transform(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
    guard re.count == count && im.count == count else { return }
    re.withUnsafeMutableBufferPointer { re in
      im.withUnsafeMutableBufferPointer { im in
        pcmmix_core_fft_double(
          re.baseAddress!, im.baseAddress!, cosines, sines, count, inverse ? 1 : 0)
      }
    }
  }
}
