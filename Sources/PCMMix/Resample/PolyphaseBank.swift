import CPCMMixCore

/// The coefficient table of a polyphase resampler: one row of `taps` coefficients per phase.
///
/// Tap `k` of the row for fraction `φ` weighs the input sample `d = k − (lead − 1) − φ` input
/// samples after the output's time (`d > 0`: ahead of it). Linear phase: a Kaiser-windowed sinc
/// centred on `d = 0` (`lead = taps / 2`). Minimum phase: the ``MinimumPhasePrototype`` at
/// `t = delay − d`, so low frequencies come out with no delay beyond ``lookahead``, like the
/// linear filter's. Each row is normalized to unit DC gain.
/// In exact mode there is one row per phase `r / L`; when `L` is too large for that (rates with a
/// small common divisor, e.g. 44,056 → 48,000 Hz), ``interpolationSteps`` + 1 rows at fractions
/// `r / steps`, between which the resampler interpolates linearly.
/// Immutable after creation, so resamplers and their copies share it.
final class PolyphaseBank: @unchecked Sendable {
  /// Coefficients per row, a multiple of 8 (SIMD width).
  let taps: Int
  /// Rows in the table.
  let rows: Int
  /// 0 in exact mode; otherwise the rows per input sample of the interpolated table.
  let interpolationSteps: Int
  /// Whether dot products accumulate in Double: for rejection past 140 dB, where Float32
  /// accumulation (about 140 dB) would be the floor.
  let accumulatesInDouble: Bool
  /// `rows × taps` coefficients, row-major.
  let coefficients: UnsafeMutablePointer<Float>
  /// Taps at or before the output's time (see the type's description).
  let lead: Int
  /// Input samples the filter reaches ahead of the output's time at low frequencies: half the
  /// length for linear phase, the minimum-phase prototype's DC group delay otherwise.
  let lookahead: Double
  /// Whether the filter is the minimum-phase one.
  let isMinimumPhase: Bool

  /// Most coefficients an exact table may hold before the interpolated one is used instead.
  static let exactLimit = 1 << 18
  /// The most taps a row may have.
  static let maxTaps = 8192
  /// Rows per input sample in the interpolated table, at most.
  static let steps = 2048

  /// Designs the table for `l : m` (output : input, in lowest terms) at `quality`; `interpolated`
  /// asks for the interpolated table whatever the ratio, as a resampler whose ratio moves needs.
  init(
    up l: Int, down m: Int, quality: ResamplerQuality, outputRate: Int, interpolated: Bool = false
  ) {
    let design = FilterDesign(up: l, down: m, quality: quality, outputRate: outputRate)
    let (cutoff, length, beta, minimum) = (
      design.cutoff, design.length, design.beta, design.minimumPhase
    )
    let prototype =
      minimum && MinimumPhasePrototype.fits(cutoff: cutoff, length: length)
      ? MinimumPhasePrototype.cached(
        cutoff: cutoff, length: length, beta: beta, attenuation: quality.attenuation)
      : nil
    if let prototype {
      // Cover t = delay − d over the whole prototype, 0 … length, for every φ in [0, 1): ahead
      // of the output as far as the delay, behind it the rest; the padding to 8 goes behind.
      let ahead = Int(prototype.delay.rounded(.up))
      let behind = Int((Double(length) - prototype.delay).rounded(.down)) + 1
      taps = (ahead + behind + 7) / 8 * 8
      lead = taps - ahead
      lookahead = prototype.delay
    } else {
      taps = length
      lead = length / 2
      lookahead = Double(length / 2)
    }
    isMinimumPhase = prototype != nil
    accumulatesInDouble = quality.attenuation > 140
    // One row per phase when it fits, or when there are few phases anyway (extreme downsampling
    // to a rate like 1 Hz has a single phase and very long rows).
    if !interpolated && (l * taps <= Self.exactLimit || l <= 64) {
      rows = l
      interpolationSteps = 0
    } else {
      // At most about 2^20 coefficients (4 MiB) in the interpolated table.
      let steps = max(64, min(Self.steps, (1 << 20) / taps))
      rows = steps + 1
      interpolationSteps = steps
    }
    // Cache-line aligned, as the group tables are (taps is a multiple of 8). Left to malloc, the
    // start fell wherever the heap had room (16-byte aligned), and the steerable resampler's row
    // loads took 15 % longer in some processes than in others.
    coefficients = allocateCacheAligned(floats: rows * taps)
    let half = Double(taps / 2)
    let divisor = Double(interpolationSteps == 0 ? l : interpolationSteps)
    var row = [Double](repeating: 0, count: taps)
    for r in 0..<rows {
      let fraction = Double(r) / divisor
      if let prototype {
        prototype.read(into: &row, from: prototype.delay + Double(lead - 1) + fraction)
      } else {
        for k in 0..<taps {
          let d = Double(k) - half + 1 - fraction
          let x = 2 * cutoff * d
          let sinc = x == 0 ? 1 : Math.sin(Double.pi * x) / (Double.pi * x)
          row[k] = 2 * cutoff * sinc * KaiserWindow.value(d / half, beta: beta)
        }
      }
      // Normalized to unit DC gain, in C (as a Swift loop, a tenth of a Debug build's set-up).
      row.withUnsafeBufferPointer {
        pcmmix_core_normalize_row($0.baseAddress!, taps, coefficients + r * taps)
      }
    }
  }

  deinit { coefficients.deallocate() }

  /// The interpolated table for converting `inputRate` into `outputRate` at `quality`, shared by
  /// every rate pair that designs the same filter: the filter depends on the rates only through
  /// the lower Nyquist frequency in cycles per input sample (½ for every upsampling ratio) and on
  /// whether the delay budget asks for minimum phase, so one table serves every upsampling rate
  /// into 48 kHz whose budget asks for minimum phase (for the presets: all of them, and 48 kHz
  /// itself), and another the rates where linear phase fits. Built outside the cache's lock.
  static func interpolated(inputRate: Int, outputRate: Int, quality: ResamplerQuality)
    -> PolyphaseBank
  {
    let g = RateRatio.gcd(inputRate, outputRate)
    let (l, m) = (outputRate / g, inputRate / g)
    let design = FilterDesign(up: l, down: m, quality: quality, outputRate: outputRate)
    let key = InterpolatedKey(
      quality: quality, scale: design.scale, minimum: design.minimumPhase)
    if let bank = interpolatedCache.withLock({ $0[key] }) { return bank }
    let bank = PolyphaseBank(
      up: l, down: m, quality: quality, outputRate: outputRate, interpolated: true)
    return interpolatedCache.withLock { banks in
      if let first = banks[key] { return first }
      banks[key] = bank
      return bank
    }
  }

  private static let interpolatedCache = Locked<[InterpolatedKey: PolyphaseBank]>([:])
}

/// The filter a rate pair and a quality ask for, before any table is built: shared by the exact
/// and the interpolated tables, so both make the same decisions.
struct FilterDesign {
  /// The lower Nyquist frequency in cycles per input sample (½ for every upsampling ratio).
  let scale: Double
  /// The cutoff, mid-transition, in cycles per input sample.
  let cutoff: Double
  /// The linear prototype's length in input samples, a multiple of 8.
  let length: Int
  /// The Kaiser window's β.
  let beta: Double
  /// Whether the delay budget asks for minimum phase (a design may still fall back to linear
  /// when the minimum-phase one would be too large).
  let minimumPhase: Bool

  /// The design for `l : m` (output : input, in lowest terms) at `quality`.
  init(up l: Int, down m: Int, quality: ResamplerQuality, outputRate: Int) {
    // Frequencies in cycles per input sample.
    let lower = min(l, m)  // min(inRate, outRate) up to the common factor
    scale = Double(lower) / Double(m) / 2  // lower Nyquist / input rate
    let stop = quality.stopbandEdge
    cutoff = (quality.passbandEdge + stop) / 2 * scale
    let width = (stop - quality.passbandEdge) * scale
    let raw = KaiserWindow.length(attenuation: quality.attenuation, transitionWidth: width)
    // Extreme ratios (48 kHz → 10 Hz) would ask for millions of taps: past the cap the
    // transition widens instead, and rejection falls, but memory and time stay bounded. The cap
    // never falls below two output periods, so the filter always reaches past the next output
    // and the streamed length stays exact.
    let cap = max(PolyphaseBank.maxTaps, 2 * (m / l + 1))
    length = max(8, (min(raw, cap) + 7) / 8 * 8)
    beta = KaiserWindow.beta(attenuation: quality.attenuation)
    // Linear phase unless its delay is over the budget.
    let linearDelay = Double((length / 2 * l + m - 1) / m) / Double(outputRate)
    switch quality.phase {
    case .linear: minimumPhase = false
    case .minimum: minimumPhase = true
    case .linearWithin(let seconds): minimumPhase = linearDelay > seconds
    }
  }
}

/// What an interpolated table depends on (see ``PolyphaseBank/interpolated(inputRate:outputRate:quality:)``).
struct InterpolatedKey: Hashable {
  var quality: ResamplerQuality
  var scale: Double
  var minimum: Bool
}
