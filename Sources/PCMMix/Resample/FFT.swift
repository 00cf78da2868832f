import CPCMMixCore

/// An in-place radix-2 complex FFT over separate real and imaginary arrays, for filter design.
/// The loops are C (`pcmmix_core_fft_double`): a design's four transforms of 2^18 points took
/// 0.6 s as Swift loops in a Debug build, about 30 ms as C compiled `-O0`.
struct FFT {
  let count: Int
  private var cosines: [Double]
  private var sines: [Double]

  /// `count` a power of two.
  init(count: Int) {
    precondition(count > 1 && count & (count - 1) == 0)
    self.count = count
    cosines = [Double](repeating: 0, count: count / 2)
    sines = [Double](repeating: 0, count: count / 2)
    cosines.withUnsafeMutableBufferPointer { c in
      sines.withUnsafeMutableBufferPointer { s in
        pcmmix_core_fft_twiddles(c.baseAddress!, s.baseAddress!, count)
      }
    }
  }

  /// The forward transform (e^{-iωn}), or the inverse one including its 1/count.
  func transform(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
    precondition(re.count == count && im.count == count)
    re.withUnsafeMutableBufferPointer { re in
      im.withUnsafeMutableBufferPointer { im in
        cosines.withUnsafeBufferPointer { c in
          sines.withUnsafeBufferPointer { s in
            pcmmix_core_fft_double(
              re.baseAddress!, im.baseAddress!, c.baseAddress!, s.baseAddress!, count,
              inverse ? 1 : 0)
          }
        }
      }
    }
  }
}
