import CPCMMixCore

/// Which loops do the echo canceller's per-bin work and its FFTs: the C kernels of
/// `CPCMMixCore` (the default: vector registers, and an AVX2 build on x86-64 Linux) or the
/// same loops in Swift. Both do the same operations in the same order, never fused, so they
/// give the same bits; the Swift ones are there for the benchmark's pure-Swift figure and as
/// the C kernels' check.
package enum EchoKernels: Sendable {
  case c
  case swift

  /// One partition of two filters' echo estimates from one reference spectrum X, per bin:
  /// Y += W·X, Z += V·X, power += p·|X|² (see `pcmmix_core_echo_predict2`).
  func predict2(
    _ wr: UnsafePointer<Float>, _ wi: UnsafePointer<Float>, _ vr: UnsafePointer<Float>,
    _ vi: UnsafePointer<Float>, _ xr: UnsafePointer<Float>, _ xi: UnsafePointer<Float>,
    _ p: UnsafePointer<Float>, _ bins: Int, _ yr: UnsafeMutablePointer<Float>,
    _ yi: UnsafeMutablePointer<Float>, _ zr: UnsafeMutablePointer<Float>,
    _ zi: UnsafeMutablePointer<Float>, _ power: UnsafeMutablePointer<Float>
  ) {
    guard self == .swift else {
      return pcmmix_core_echo_predict2(wr, wi, vr, vi, xr, xi, p, bins, yr, yi, zr, zi, power)
    }
    for k in 0..<bins {
      let (a, b) = (xr[k], xi[k])
      yr[k] += wr[k] * a - wi[k] * b
      yi[k] += wr[k] * b + wi[k] * a
      zr[k] += vr[k] * a - vi[k] * b
      zi[k] += vr[k] * b + vi[k] * a
      power[k] += p[k] * (a * a + b * b)
    }
  }

  /// One partition's Kalman update, per bin (see `pcmmix_core_echo_kalman`).
  func kalman(
    _ wr: UnsafeMutablePointer<Float>, _ wi: UnsafeMutablePointer<Float>,
    _ p: UnsafeMutablePointer<Float>, _ xr: UnsafePointer<Float>, _ xi: UnsafePointer<Float>,
    _ er: UnsafePointer<Float>, _ ei: UnsafePointer<Float>,
    _ inverseDenominator: UnsafePointer<Float>, _ bins: Int, _ a2: Float, _ fraction: Float
  ) {
    guard self == .swift else {
      return pcmmix_core_echo_kalman(
        wr, wi, p, xr, xi, er, ei, inverseDenominator, bins, a2, fraction)
    }
    for k in 0..<bins {
      let x2 = xr[k] * xr[k] + xi[k] * xi[k]
      let gain = p[k] * inverseDenominator[k]
      let gr = xr[k] * er[k] + xi[k] * ei[k]
      let gi = xr[k] * ei[k] - xi[k] * er[k]
      let (nr, ni) = (wr[k] + gain * gr, wi[k] + gain * gi)
      (wr[k], wi[k]) = (nr, ni)
      let left = p[k] - fraction * gain * p[k] * x2
      p[k] = a2 * (left > 0 ? left : 0) + (1 - a2) * (nr * nr + ni * ni)
    }
  }

  /// One partition's normalized LMS update, per bin: W += step·conj(X)·E.
  func nlms(
    _ wr: UnsafeMutablePointer<Float>, _ wi: UnsafeMutablePointer<Float>,
    _ xr: UnsafePointer<Float>, _ xi: UnsafePointer<Float>, _ er: UnsafePointer<Float>,
    _ ei: UnsafePointer<Float>, _ step: UnsafePointer<Float>, _ bins: Int
  ) {
    guard self == .swift else { return pcmmix_core_echo_nlms(wr, wi, xr, xi, er, ei, step, bins) }
    for k in 0..<bins {
      let gr = xr[k] * er[k] + xi[k] * ei[k]
      let gi = xr[k] * ei[k] - xi[k] * er[k]
      wr[k] += step[k] * gr
      wi[k] += step[k] * gi
    }
  }

  /// One partition's reference power, weighted, added per bin: out += weight·|X|².
  func powerAdd(
    _ xr: UnsafePointer<Float>, _ xi: UnsafePointer<Float>, _ bins: Int, _ weight: Float,
    _ out: UnsafeMutablePointer<Float>
  ) {
    guard self == .swift else { return pcmmix_core_echo_power_add(xr, xi, bins, weight, out) }
    for k in 0..<bins { out[k] += weight * (xr[k] * xr[k] + xi[k] * xi[k]) }
  }
}
