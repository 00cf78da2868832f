import CBenchPeers
import PCMMixAccelerated

/// The peak multiply-add rates of this machine, against which the resampler table puts each
/// built-in row's compute floor: `taps ÷ rate`, the time per output sample and channel of a loop
/// that did nothing but its multiply-adds at the peak rate.
///
/// Two rates, one per code path of ``PolyphaseResampler``: AVX2 + FMA (the C kernels of
/// `PCMMixAccelerated`; 8 multiply-adds per FMA) and the pure-Swift path, which multiplies and
/// then adds `SIMD8<Float>` values (no FMA; on a baseline x86-64 build that is two SSE multiplies
/// and two SSE adds per eight lanes). Both probes run independent chains in registers only, so
/// they measure the arithmetic ports, not the loads a dot product also needs.
struct ComputeFloor {
  /// AVX2 + FMA multiply-adds per ns, or nil when the CPU lacks them.
  let fma: Double?
  /// AVX-512F multiply-adds per ns, when the kernels' group functions use it (else nil).
  let fma512: Double?
  /// Swift `SIMD8<Float>` multiply + add pairs, as multiply-adds per ns.
  let swift: Double

  /// Runs each probe `runs` times (about 5 ms each, after one untimed run) and keeps the best.
  static func measure(runs: Int = 7) -> ComputeFloor {
    var sink: Float = 0
    var fma: Double? = nil
    func probe(_ peak: (Int, UnsafeMutablePointer<Float>) -> Int) -> Double {
      var best = 0.0
      for run in 0...runs {
        var s: Float = 0
        let t0 = nowNS()
        let done = peak(4_000_000, &s)
        let ns = Double(nowNS() - t0)
        sink += s
        if run > 0 { best = max(best, Double(done) / ns) }
      }
      return best
    }
    if bench_fma_available() != 0 {
      fma = probe { bench_fma_peak($0, $1) }
    }
    let fma512 = AcceleratedKernels.usesAVX512 ? probe { bench_fma_peak512($0, $1) } : nil
    // The chains live in memory the clock call could touch (it escapes through blackHole), so
    // the optimizer can neither hoist the probe out of the loop nor move it past the clock.
    let state = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: 6)
    defer { state.deallocate() }
    state.initialize(repeating: SIMD8(repeating: 1), count: 6)
    blackHole(state)
    var best = 0.0
    for run in 0...runs {
      let rounds = 3_000_000
      let t0 = nowNS()
      swiftMulAdd(rounds: rounds, factor: 0.999_999_9, state: state)
      let ns = Double(nowNS() - t0)
      if run > 0 { best = max(best, Double(rounds * swiftMulAddsPerRound) / ns) }
    }
    blackHole(sink + state[0].sum())
    return ComputeFloor(fma: fma, fma512: fma512, swift: best)
  }

  /// The rate a row's path reaches: for `builtin-…-avx2+fma` rows the AVX-512F rate where the
  /// group functions use it (the sixteen-output groups, which every row with exact tables runs),
  /// else the AVX2 FMA rate; the Swift rate for the other built-in rows.
  func rate(forBackend name: String) -> Double? {
    name.hasSuffix("-avx2+fma") ? (fma512 ?? fma) : name.hasSuffix("-avx2-only") ? fma : swift
  }

  /// Multiply-adds per round of ``swiftMulAdd(rounds:factor:state:)``: three `SIMD8<Float>`
  /// chains.
  static let swiftMulAddsPerRound = 3 * 8

  /// Three independent `SIMD8<Float>` chains of `sum += p; p *= factor`: one multiply and one
  /// add per lane and chain each round, with both kinds of operation in flight on every port.
  /// Three chains (six SSE registers of each kind) keep the ports busy without spilling. The
  /// chains start from and end in `state` (`p0, p1, p2, s0, s1, s2`).
  @inline(never)
  static func swiftMulAdd(rounds: Int, factor: Float, state: UnsafeMutablePointer<SIMD8<Float>>) {
    let m = SIMD8<Float>(repeating: factor)
    var p0 = state[0]
    var p1 = state[1]
    var p2 = state[2]
    var s0 = state[3]
    var s1 = state[4]
    var s2 = state[5]
    for _ in 0..<rounds {
      s0 += p0
      p0 *= m
      s1 += p1
      p1 *= m
      s2 += p2
      p2 *= m
    }
    (state[0], state[1], state[2], state[3], state[4], state[5]) = (p0, p1, p2, s0, s1, s2)
  }
}
