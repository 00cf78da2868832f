/// An in-place radix-2 complex FFT over separate real and imaginary arrays, for filter design.
struct FFT {
  let count: Int
  private let cosines: [Double]
  private let sines: [Double]

  /// `count` a power of two.
  init(count: Int) {
    precondition(count > 1 && count & (count - 1) == 0)
    self.count = count
    cosines = (0..<(count / 2)).map { Math.cos(2 * Double.pi * Double($0) / Double(count)) }
    sines = (0..<(count / 2)).map { Math.sin(2 * Double.pi * Double($0) / Double(count)) }
  }

  /// The forward transform (e^{-iωn}), or the inverse one including its 1/count.
  func transform(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
    let n = count
    // Bit-reversed order.
    var j = 0
    for i in 1..<n {
      var bit = n >> 1
      while j & bit != 0 {
        j ^= bit
        bit >>= 1
      }
      j |= bit
      if i < j {
        re.swapAt(i, j)
        im.swapAt(i, j)
      }
    }
    let sign = inverse ? 1.0 : -1.0
    re.withUnsafeMutableBufferPointer { re in
      im.withUnsafeMutableBufferPointer { im in
        cosines.withUnsafeBufferPointer { cs in
          sines.withUnsafeBufferPointer { sn in
            var size = 2
            while size <= n {
              let halfSize = size / 2
              let step = n / size
              var start = 0
              while start < n {
                var k = 0
                for i in start..<(start + halfSize) {
                  let wr = cs[k]
                  let wi = sign * sn[k]
                  let a = i + halfSize
                  let tr = re[a] * wr - im[a] * wi
                  let ti = re[a] * wi + im[a] * wr
                  re[a] = re[i] - tr
                  im[a] = im[i] - ti
                  re[i] += tr
                  im[i] += ti
                  k += step
                }
                start += size
              }
              size *= 2
            }
          }
        }
      }
    }
    if inverse {
      let scale = 1 / Double(n)
      for i in 0..<n {
        re[i] *= scale
        im[i] *= scale
      }
    }
  }
}
