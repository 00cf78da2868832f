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
  /// Y += W·X, Z += V·X, power += p·|X|² (the Swift loops of
  /// ``predict(_:_:_:ring:ringBlocks:newest:partitions:bins:first:count:_:_:_:_:_:)``).
  func predict2(
    _ wr: UnsafePointer<Float>, _ wi: UnsafePointer<Float>, _ vr: UnsafePointer<Float>,
    _ vi: UnsafePointer<Float>, _ xr: UnsafePointer<Float>, _ xi: UnsafePointer<Float>,
    _ p: UnsafePointer<Float>, _ bins: Int, _ yr: UnsafeMutablePointer<Float>,
    _ yi: UnsafeMutablePointer<Float>, _ zr: UnsafeMutablePointer<Float>,
    _ zi: UnsafeMutablePointer<Float>, _ power: UnsafeMutablePointer<Float>
  ) {
    for k in 0..<bins {
      let (a, b) = (xr[k], xi[k])
      yr[k] += wr[k] * a - wi[k] * b
      yi[k] += wr[k] * b + wi[k] * a
      zr[k] += vr[k] * a - vi[k] * b
      zi[k] += vr[k] * b + vi[k] * a
      power[k] += p[k] * (a * a + b * b)
    }
  }

  /// Every partition of two filters' echo estimates: Y = Σ W·X, Z = Σ V·X, power = Σ p·|X|²
  /// over partitions 0 ..< `partitions` (filters of 2·bins floats a partition, re then im; `p`
  /// of bins floats a partition), partition j's X at ring slot `newest − j` (modulo
  /// `ringBlocks`, 2·bins floats a slot), in bins `first` ..< `count` (the outputs' other bins
  /// are left as they are). The C kernel keeps each bin's sums in
  /// registers; both add the partitions in order, so the bits are those of ``predict2``
  /// partition by partition.
  func predict(
    _ w: UnsafePointer<Float>, _ v: UnsafePointer<Float>, _ p: UnsafePointer<Float>,
    ring: UnsafePointer<Float>, ringBlocks: Int, newest: Int, partitions: Int, bins: Int,
    first: Int, count: Int, _ yr: UnsafeMutablePointer<Float>, _ yi: UnsafeMutablePointer<Float>,
    _ zr: UnsafeMutablePointer<Float>, _ zi: UnsafeMutablePointer<Float>,
    _ power: UnsafeMutablePointer<Float>
  ) {
    guard self == .swift else {
      return pcmmix_core_echo_predict(
        w, v, p, ring, ringBlocks, newest, partitions, bins, first, count, yr, yi, zr, zi, power)
    }
    let (f, m) = (first, count - first)
    (yr + f).update(repeating: 0, count: m)
    (yi + f).update(repeating: 0, count: m)
    (zr + f).update(repeating: 0, count: m)
    (zi + f).update(repeating: 0, count: m)
    (power + f).update(repeating: 0, count: m)
    var slot = newest
    for part in 0..<partitions {
      let x = ring + slot * 2 * bins + f
      let (wp, vp, pp) = (w + part * 2 * bins + f, v + part * 2 * bins + f, p + part * bins + f)
      predict2(
        wp, wp + bins, vp, vp + bins, x, x + bins, pp, m, yr + f, yi + f, zr + f, zi + f,
        power + f)
      slot = slot == 0 ? ringBlocks - 1 : slot - 1
    }
  }

  /// Both filters' steps per bin (see `pcmmix_core_echo_steps`): Ψ, the near end's power as
  /// the error E shows it, and the Kalman gain's inverse denominator from it; the reference's
  /// smoothed power and the NLMS step from it.
  func steps(
    _ er: UnsafePointer<Float>, _ ei: UnsafePointer<Float>, _ power: UnsafePointer<Float>,
    _ xr: UnsafePointer<Float>, _ xi: UnsafePointer<Float>, _ psi: UnsafeMutablePointer<Float>,
    _ rp: UnsafeMutablePointer<Float>, _ inverse: UnsafeMutablePointer<Float>,
    _ step: UnsafeMutablePointer<Float>, _ bins: Int, _ floor: Float, _ partitions: Float,
    _ nlmsFloor: Float
  ) {
    guard self == .swift else {
      return pcmmix_core_echo_steps(
        er, ei, power, xr, xi, psi, rp, inverse, step, bins, floor, partitions, nlmsFloor)
    }
    for k in 0..<bins {
      let e2 = er[k] * er[k] + ei[k] * ei[k]
      psi[k] = max(e2, 0.7 * psi[k] + 0.3 * e2)
      // The near end: what the error holds beyond what the filter's own uncertainty explains
      // (in the error's scale: half the frame).
      let near = max(psi[k] - 0.5 * power[k], 1e-6)
      inverse[k] = 1 / (power[k] + 2 * near + floor)
      let x2 = xr[k] * xr[k] + xi[k] * xi[k]
      rp[k] = 0.9 * rp[k] + 0.1 * x2
      step[k] = 0.4 / (partitions * rp[k] + nlmsFloor)
    }
  }

  /// Every partition of both filters updated (laid out as for
  /// ``predict(_:_:_:ring:ringBlocks:newest:partitions:bins:first:count:_:_:_:_:_:)``), in bins
  /// `first` ..< `count`: the main one by ``kalman`` with its error E, the shadow by ``nlms`` with
  /// its error S. The C kernel goes
  /// bin by bin through the partitions, reading each bin's errors and steps once; the
  /// operations per bin and partition are the same.
  func update(
    main w: UnsafeMutablePointer<Float>, shadow v: UnsafeMutablePointer<Float>,
    _ p: UnsafeMutablePointer<Float>, ring: UnsafePointer<Float>, ringBlocks: Int, newest: Int,
    partitions: Int, bins: Int, first: Int, count: Int, _ er: UnsafePointer<Float>,
    _ ei: UnsafePointer<Float>, _ inverseDenominator: UnsafePointer<Float>,
    _ sr: UnsafePointer<Float>,
    _ si: UnsafePointer<Float>, _ step: UnsafePointer<Float>, processNoise q: UnsafePointer<Float>,
    _ a2: Float, _ fraction: Float, revert: Float, decay: Float
  ) {
    guard self == .swift else {
      return pcmmix_core_echo_update(
        w, v, p, ring, ringBlocks, newest, partitions, bins, first, count, er, ei,
        inverseDenominator, sr, si, step, q, a2, fraction, revert, decay)
    }
    let (f, m) = (first, count - first)
    var slot = newest
    var level = revert
    for part in 0..<partitions {
      let x = ring + slot * 2 * bins + f
      let (wp, vp, pp) = (w + part * 2 * bins + f, v + part * 2 * bins + f, p + part * bins + f)
      kalman(
        wp, wp + bins, pp, x, x + bins, er + f, ei + f, inverseDenominator + f, q + f, m, a2,
        fraction, level)
      nlms(vp, vp + bins, x, x + bins, sr + f, si + f, step + f, m)
      slot = slot == 0 ? ringBlocks - 1 : slot - 1
      level = level * decay
    }
  }

  /// One partition's Kalman update, per bin: gain = p / denominator (its inverse given);
  /// W += gain·conj(X)·E; p = a2·max(0, p − fraction·gain·p·|X|²) + q·|W|² + r (q per bin: the
  /// process noise; r the partition's pull back towards its prior).
  func kalman(
    _ wr: UnsafeMutablePointer<Float>, _ wi: UnsafeMutablePointer<Float>,
    _ p: UnsafeMutablePointer<Float>, _ xr: UnsafePointer<Float>, _ xi: UnsafePointer<Float>,
    _ er: UnsafePointer<Float>, _ ei: UnsafePointer<Float>,
    _ inverseDenominator: UnsafePointer<Float>, _ q: UnsafePointer<Float>, _ bins: Int,
    _ a2: Float, _ fraction: Float, _ revert: Float
  ) {
    for k in 0..<bins {
      let x2 = xr[k] * xr[k] + xi[k] * xi[k]
      let gain = p[k] * inverseDenominator[k]
      let gr = xr[k] * er[k] + xi[k] * ei[k]
      let gi = xr[k] * ei[k] - xi[k] * er[k]
      let (nr, ni) = (wr[k] + gain * gr, wi[k] + gain * gi)
      (wr[k], wi[k]) = (nr, ni)
      let left = p[k] - fraction * gain * p[k] * x2
      p[k] = a2 * (left > 0 ? left : 0) + q[k] * (nr * nr + ni * ni) + revert
    }
  }

  /// One partition's normalized LMS update, per bin: W += step·conj(X)·E.
  func nlms(
    _ wr: UnsafeMutablePointer<Float>, _ wi: UnsafeMutablePointer<Float>,
    _ xr: UnsafePointer<Float>, _ xi: UnsafePointer<Float>, _ er: UnsafePointer<Float>,
    _ ei: UnsafePointer<Float>, _ step: UnsafePointer<Float>, _ bins: Int
  ) {
    for k in 0..<bins {
      let gr = xr[k] * er[k] + xi[k] * ei[k]
      let gi = xr[k] * ei[k] - xi[k] * er[k]
      wr[k] += step[k] * gr
      wi[k] += step[k] * gi
    }
  }

  /// The residual echo suppressor's gains (see `pcmmix_core_echo_gains` and
  /// ``ResidualEchoSuppressor/applyGains(to:errorPower:echoPower:residual:reference:farActive:bypass:scratch:)``),
  /// applied to the error spectrum in place.
  func gains(
    _ se: UnsafePointer<Float>, _ sy: UnsafePointer<Float>, _ residual: UnsafePointer<Float>,
    _ path: UnsafePointer<Float>, _ hold: UnsafePointer<UInt8>,
    _ gains: UnsafeMutablePointer<Float>, _ er: UnsafeMutablePointer<Float>,
    _ ei: UnsafeMutablePointer<Float>, _ bins: Int, overdrive: Float, echoOnly: Float,
    unlearnt: Float, misadjusted: Float, explained: Bool, on: Bool, floor: Float,
    rise: Float, fall: Float
  ) {
    guard self == .swift else {
      return pcmmix_core_echo_gains(
        se, sy, residual, path, hold, gains, er, ei, bins, overdrive, echoOnly, unlearnt,
        misadjusted, explained ? 1 : 0, on ? 1 : 0, floor, rise, fall)
    }
    for k in 0..<bins {
      let s = se[k]
      let onset: Float = explained && hold[k] > 0 ? s : 0
      let r = max(
        max(
          max(residual[k], 0.1 * echoOnly * path[k]),
          max(unlearnt * max(0, path[k] - sy[k]), misadjusted * min(s, sy[k]))), onset)
      var g = max(floor, 1 - overdrive * r / s)
      // The share `rise` of the way up, or `fall` of the way down.
      let share = g > gains[k] ? rise : fall
      g = share * g + (1 - share) * gains[k]
      g = on && s > 0 ? g : 1
      gains[k] = g
      er[k] *= g
      ei[k] *= g
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

  /// `count` samples of `input` held to ±`limit` into `out`: NaN and ±∞ as 0, what lies beyond
  /// as ±`limit` (``EchoCanceller/inputBound``).
  package func bound(
    _ input: UnsafePointer<Float>, _ count: Int, limit: Float, _ out: UnsafeMutablePointer<Float>
  ) {
    guard self == .swift else { return pcmmix_core_bound(input, count, limit, out) }
    for k in 0..<count {
      let x = input[k].isFinite ? input[k] : 0
      out[k] = x > limit ? limit : (x < -limit ? -limit : x)
    }
  }

  /// `count` samples of the reference read at fractional positions (``ReferenceWarp``): output
  /// i at p = `position` + i·`ratio` (p ≥ 0), from `history` (raw sample `first` at index 0),
  /// between rows `row` and `row + 1` of `table` (`taps` floats a row, `phases` + 1 rows): each
  /// row dotted with the `taps` samples about p in eight-lane chunks, the two blended by p's
  /// place between the rows (see `pcmmix_core_echo_warp`).
  func warp(
    _ history: UnsafePointer<Float>, first: Int, table: UnsafePointer<Float>, taps: Int,
    phases: Int, position: Double, ratio: Double, count: Int, _ out: UnsafeMutablePointer<Float>
  ) {
    guard self == .swift else {
      return pcmmix_core_echo_warp(
        history, first, table, taps, phases, position, ratio, count, out)
    }
    func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
      UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
    for i in 0..<count {
      let p = position + Double(i) * ratio
      let whole = Int(p)
      let phase = (p - Double(whole)) * Double(phases)
      let row = min(phases - 1, Int(phase))
      let t = Float(phase - Double(row))
      let x = history + (whole - taps / 2 + 1 - first)
      let a = table + row * taps
      let b = a + taps
      var (sa, sb) = (SIMD8<Float>(), SIMD8<Float>())
      for k in stride(from: 0, to: taps, by: 8) {
        let v = load(x + k)
        sa += load(a + k) * v
        sb += load(b + k) * v
      }
      let (ra, rb) = (sa.sum(), sb.sum())
      out[i] = ra + t * (rb - ra)
    }
  }
}
