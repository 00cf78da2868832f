import CPCMMixCore

/// A minimum-phase version of the resampler's Kaiser-windowed sinc, for delay budgets a
/// linear-phase filter cannot meet (its delay is half its length: 11 ms at 8 kHz for `balanced`).
///
/// Same magnitude response, same length; the energy comes first instead of in the middle, so the
/// delay at low frequencies is a few input samples and rises towards the band edge (the phase is
/// no longer linear). Designed by the cepstral method (Oppenheim & Schafer §13.8): the linear
/// prototype is sampled ``oversampling`` times per input sample (16 for upsampling; fewer when
/// downsampling, where the band is narrower, so that it is always sampled about 32 times per
/// cycle of its cutoff), its zero-phase response floored 20 dB under the stopband, and the
/// causal part of the log spectrum's cepstrum is exponentiated back. The FFT is 64 times the
/// prototype's length in samples, so the cepstrum's aliasing stays under the stopband: 2^18
/// points for `balanced`, whatever the ratio. Any fractional position is then read from those
/// samples by a 12-tap Kaiser-windowed sinc (the prototype is band-limited far below the
/// sampling rate, so this adds no error that matters).
///
/// Designs are cached by specification (the upsampling ones do not depend on the rates), built
/// outside the cache's lock.
final class MinimumPhasePrototype: @unchecked Sendable {
  /// Half-width of the reading interpolator, in oversampled samples.
  static let readHalfWidth = 6
  /// Kaiser β of the reading interpolator (170 dB).
  static let readBeta = KaiserWindow.beta(attenuation: 170)
  /// The most samples a prototype may have (the FFT then has 2^20 points).
  static let maxSamples = 1 << 14

  /// Samples per input sample, for a prototype with this cutoff (cycles per input sample):
  /// 16 at a cutoff of about half an input sample's Nyquist, i.e. about 32 per cycle.
  static func oversampling(cutoff: Double) -> Int {
    max(1, Int((32 * cutoff).rounded(.up)))
  }

  /// Whether a design of this cutoff and length stays within ``maxSamples``.
  static func fits(cutoff: Double, length: Int) -> Bool {
    oversampling(cutoff: cutoff) * length <= maxSamples
  }

  /// Samples per input sample.
  let oversampling: Int
  /// `h(n / oversampling)`, n in 0 … oversampling·length, normalized to unit DC gain.
  let samples: [Double]
  /// The prototype's length in input samples.
  let length: Int
  /// Delay at low frequencies (the group delay at DC), in input samples.
  let delay: Double

  /// Designs the minimum-phase counterpart of the linear prototype with this cutoff (cycles per
  /// input sample), length (input samples), Kaiser β and stopband attenuation (dB).
  init(cutoff: Double, length: Int, beta: Double, attenuation: Double) {
    let p = Self.oversampling(cutoff: cutoff)
    oversampling = p
    let half = length * p / 2
    var n = 1
    while n < 64 * p * length { n *= 2 }
    let fft = FFT(count: n)
    // The linear prototype, zero-phase: t ≥ 0 from index 0, t < 0 wrapped to the end.
    var re = [Double](repeating: 0, count: n)
    var im = [Double](repeating: 0, count: n)
    var sum = 0.0
    for i in -half...half {
      let t = Double(i) / Double(p)
      let x = 2 * cutoff * t
      let sinc = x == 0 ? 1 : Math.sin(Double.pi * x) / (Double.pi * x)
      let v = 2 * cutoff * sinc * KaiserWindow.value(t / Double(length / 2), beta: beta)
      re[(i + n) % n] = v
      sum += v
    }
    // The steps over all n points are C (`design.c`), as the FFT is: as Swift loops they took
    // a quarter of a Debug build's set-up once the FFT was C.
    func step(_ body: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>) -> Void) {
      re.withUnsafeMutableBufferPointer { r in
        im.withUnsafeMutableBufferPointer { i in body(r.baseAddress!, i.baseAddress!) }
      }
    }
    step { re, _ in pcmmix_core_divide_double(re, n, sum) }
    fft.transform(&re, &im, inverse: false)
    // Log magnitude, floored 20 dB under the stopband (the response has zeros there).
    let floor = Math.pow(10, -(attenuation + 20) / 20)
    step { pcmmix_core_log_magnitude($0, $1, n, floor) }
    // Real cepstrum, folded onto positive quefrencies: the minimum-phase log spectrum.
    fft.transform(&re, &im, inverse: true)
    step { pcmmix_core_fold_cepstrum($0, $1, n) }
    // Back to a spectrum, exponentiated: the minimum-phase response.
    fft.transform(&re, &im, inverse: false)
    step { pcmmix_core_exp_complex($0, $1, n) }
    fft.transform(&re, &im, inverse: true)
    let count = length * p + 1
    var g = Array(re[0..<count])
    let total = g.reduce(0, +)
    var moment = 0.0
    for i in g.indices {
      g[i] *= Double(p) / total
      moment += Double(i) * g[i]
    }
    samples = g
    self.length = length
    delay = moment / Double(p) / g.reduce(0, +)
  }

  /// The prototype at `t0 − k` input samples for k in 0 ..< row.count (0 outside 0 … length).
  /// The points are whole input samples apart, so they share one set of interpolation weights.
  func read(into row: inout [Double], from t0: Double) {
    let p = oversampling
    let w = Self.readHalfWidth
    let u0 = t0 * Double(p)
    let base = Int(u0.rounded(.down))
    let fraction = u0 - Double(base)
    // Weights for the samples base − w + 1 … base + w around each point.
    let weights = (0..<(2 * w)).map { j -> Double in
      let d = fraction + Double(w - 1 - j)
      let x = Double.pi * d
      return (d == 0 ? 1 : Math.sin(x) / x) * KaiserWindow.value(d / Double(w), beta: Self.readBeta)
    }
    // Point k reads samples base − k·p − w + 1 … base − k·p + w (in C: 0.2 s of a Debug
    // build's set-up as a Swift loop).
    samples.withUnsafeBufferPointer { x in
      weights.withUnsafeBufferPointer { h in
        row.withUnsafeMutableBufferPointer { out in
          pcmmix_core_prototype_read(
            x.baseAddress!, x.count, h.baseAddress!, h.count, base - w + 1, p, out.baseAddress!,
            out.count)
        }
      }
    }
  }

  /// Designs, one per specification, kept for the life of the process.
  static func cached(cutoff: Double, length: Int, beta: Double, attenuation: Double)
    -> MinimumPhasePrototype
  {
    let key = [cutoff, Double(length), beta, attenuation]
    if let d = cache.withLock({ $0[key] }) { return d }
    // Designed without the lock, so other threads' lookups never wait for it; two threads that
    // race here design the same thing and the first stored is kept.
    let d = MinimumPhasePrototype(
      cutoff: cutoff, length: length, beta: beta, attenuation: attenuation)
    return cache.withLock { designs in
      if let first = designs[key] { return first }
      designs[key] = d
      return d
    }
  }

  private static let cache = Locked<[[Double]: MinimumPhasePrototype]>([:])
}
