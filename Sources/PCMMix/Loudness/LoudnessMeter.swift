import CPCMMixCore

/// Loudness as ITU-R BS.1770-4 and EBU R128 define it, measured as audio streams through:
/// momentary (400 ms) and short-term (3 s) loudness, integrated loudness (gated at −70 LUFS and
/// 10 LU below the ungated mean), the loudness range (EBU Tech 3342) and the true peak (4×
/// oversampled below 96 kHz, 2× below 192 kHz).
///
/// Each channel is K-weighted (a high shelf of +4 dB above about 1.5 kHz, then a high-pass
/// near 38 Hz: the two biquads of BS.1770, designed for the rate), squared and summed over
/// 100 ms steps; the gated measures keep 400 ms block energies and 3 s short-term values in
/// histograms of 0.01 LU bins (energy sums and counts), so memory does not grow with the
/// length of what is measured. Channels weigh 1 (BS.1770's left, right, centre; the
/// surrounds' 1.41 is not applied: PCMMix handles one and two channels).
///
/// Allocates at creation only; ``process(_:frames:)`` does not.
package struct LoudnessMeter {
  package let rate: Int
  package let channelCount: Int
  /// The K-weighting: two biquads per channel (b0, b1, b2, a1, a2 each) and their states.
  let shelf: [Double]
  let highPass: [Double]
  var state: [Double]
  /// Frames per 100 ms step, frames into the current step, and its energy so far per channel.
  let step: Int
  var inStep = 0
  var stepEnergy = 0.0
  /// The last 30 steps' mean squares (a ring), and how many are filled.
  var steps: [Double]
  var stepCount = 0
  /// Histograms of 400 ms block loudness and 3 s short-term loudness, 0.01 LU bins from
  /// −70 to +5 LUFS: energy sums and counts.
  var blockEnergy: [Double]
  var blockCount: [Int]
  var shortCount: [Int]
  var shortEnergy: [Double]
  /// The true peak: the oversampling factor, the interpolator's phases, each channel's history.
  let oversampling: Int
  let taps: Int
  let interpolator: [Double]
  var history: [Double]
  var historyAt = 0
  /// At 4×, the C kernel's: coefficients as [tap][phase] in Float, a Float history per channel
  /// (2 × taps) and its position.
  let coefficients4: [Float]
  var history4: [Float]
  var at4: [Int]
  package private(set) var truePeak = 0.0
  package private(set) var momentaryMax = -Double.infinity
  /// The integrated loudness as of the last 100 ms step (see ``integrated``), for live readings.
  package private(set) var integratedSoFar = -Double.infinity

  static let lowest = -70.0
  static let highest = 5.0
  static let binsPerLU = 100
  static var binCount: Int { Int((highest - lowest) * Double(binsPerLU)) + 1 }

  package init(rate: Int, channelCount: Int) {
    self.rate = rate
    self.channelCount = channelCount
    let fs = Double(rate)
    // The pre-filter (a high shelf) and the RLB high-pass, from BS.1770's analog prototypes
    // (the 48 kHz coefficients of the recommendation come out to within 1e-8). Under 3,364 Hz
    // (a pipeline's output rate may be as low as 1 kHz) the shelf's frequency lies past half
    // the rate, where the bilinear design is unstable: at 1 kHz its state reached ∞ within a
    // second, and the loudness histogram's bin of +∞ trapped (`FuzzCapture`). Under 3,738 Hz
    // the shelf sits at 0.45 × the rate instead.
    do {
      let f0 = min(1_681.974_450_955_533, 0.45 * fs)
      let g = 3.999_843_853_973_347
      let q = 0.707_175_236_955_419_6
      let k = Math.tan(Double.pi * f0 / fs)
      let vh = Math.pow(10, g / 20)
      let vb = Math.pow(vh, 0.499_666_774_154_541_6)
      let a0 = 1 + k / q + k * k
      shelf = [
        (vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0,
        2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0,
      ]
    }
    do {
      let f0 = 38.135_470_876_024_44
      let q = 0.500_327_037_323_877_3
      let k = Math.tan(Double.pi * f0 / fs)
      let a0 = 1 + k / q + k * k
      highPass = [1, -2, 1, 2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0]
    }
    state = [Double](repeating: 0, count: 4 * channelCount)
    step = max(1, rate / 10)
    steps = [Double](repeating: 0, count: 30)
    blockEnergy = [Double](repeating: 0, count: Self.binCount)
    blockCount = [Int](repeating: 0, count: Self.binCount)
    shortEnergy = [Double](repeating: 0, count: Self.binCount)
    shortCount = [Int](repeating: 0, count: Self.binCount)
    oversampling = rate < 96_000 ? 4 : rate < 192_000 ? 2 : 1
    // A windowed-sinc interpolator, 12 taps per phase (48 at 4×): Kaiser β 7, centred on a
    // tap, so the phases fall at 0, 1/4, 1/2 and 3/4 of a sample: phase 0 is the sample itself
    // (6 samples late) and a crest half-way between samples (a quarter-rate sine at 45°) is
    // read where it is, not an eighth of a sample off (−0.17 dB at 12 kHz). The window spans
    // 2·6·L + 1 taps; the last (sinc(6) = 0) is left out.
    taps = 12
    var h = [Double](repeating: 0, count: taps * oversampling)
    let centre = Double(h.count / 2)
    for i in 0..<h.count {
      let t = (Double(i) - centre) / Double(oversampling)
      // (At the other whole samples exactly 0, so that phase 0 gives the sample's bits.)
      let sinc = t == 0 ? 1 : t == t.rounded() ? 0 : Math.sin(Double.pi * t) / (Double.pi * t)
      h[i] = sinc * KaiserWindow.value((Double(i) - centre) / centre, beta: 7)
    }
    // Phase p uses taps p, p + L, p + 2L, …
    var phases = [Double](repeating: 0, count: h.count)
    for p in 0..<oversampling {
      for j in 0..<taps { phases[p * taps + j] = h[p + j * oversampling] }
    }
    interpolator = phases
    history = [Double](repeating: 0, count: 2 * taps * channelCount)
    var c4 = [Float](repeating: 0, count: oversampling == 4 ? 4 * taps : 0)
    if oversampling == 4 {
      for j in 0..<taps { for p in 0..<4 { c4[4 * j + p] = Float(phases[p * taps + j]) } }
    }
    coefficients4 = c4
    history4 = [Float](repeating: 0, count: 2 * taps * channelCount)
    at4 = [Int](repeating: 0, count: channelCount)
  }

  /// Measures `frames` frames of interleaved samples (``channelCount`` per frame).
  package mutating func process(_ samples: UnsafePointer<Float>, frames: Int) {
    let ch = channelCount
    var f = 0
    while f < frames {
      let n = min(frames - f, step - inStep)
      weigh(samples + f * ch, frames: n)
      peaks(samples + f * ch, frames: n)
      inStep += n
      f += n
      if inStep == step { endStep() }
    }
  }

  /// K-weights `frames` frames and adds their squares to the step's energy.
  mutating func weigh(_ x: UnsafePointer<Float>, frames: Int) {
    let ch = channelCount
    let (s, h) = (shelf, highPass)
    var energy = 0.0
    state.withUnsafeMutableBufferPointer { st in
      for c in 0..<ch {
        var (s1, s2, h1, h2) = (st[4 * c], st[4 * c + 1], st[4 * c + 2], st[4 * c + 3])
        for i in 0..<frames {
          // Transposed direct form II, twice.
          let v = Double(x[i * ch + c])
          let y = s[0] * v + s1
          s1 = s[1] * v - s[3] * y + s2
          s2 = s[2] * v - s[4] * y
          let z = h[0] * y + h1
          h1 = h[1] * y - h[3] * z + h2
          h2 = h[2] * y - h[4] * z
          energy += z * z
        }
        // A state that has decayed below 1e-30 (digital silence for a while) is let go to 0: left
        // alone it would sink into subnormal numbers, which cost 4× as much CPU on x86-64
        // (measured on the benchmark's stereo signal with seconds of silence in one channel).
        // Its share of the energy is under −600 dB.
        func flushed(_ v: Double) -> Double { abs(v) < 1e-30 ? 0 : v }
        (st[4 * c], st[4 * c + 1], st[4 * c + 2], st[4 * c + 3]) = (
          flushed(s1), flushed(s2), flushed(h1), flushed(h2)
        )
      }
    }
    stepEnergy += energy
  }

  /// Oversamples `frames` frames and keeps the largest magnitude.
  mutating func peaks(_ x: UnsafePointer<Float>, frames: Int) {
    let ch = channelCount
    if oversampling == 4 {
      // The usual case (below 96 kHz): the C kernel, channel by channel.
      let t = taps
      var peak = Float(truePeak)
      coefficients4.withUnsafeBufferPointer { c in
        history4.withUnsafeMutableBufferPointer { h in
          at4.withUnsafeMutableBufferPointer { a in
            for channel in 0..<ch {
              peak = pcmmix_core_true_peak4(
                x + channel, frames, ch, c.baseAddress!, t, h.baseAddress! + channel * 2 * t,
                a.baseAddress! + channel, peak)
            }
          }
        }
      }
      truePeak = Double(peak)
      return
    }
    let (t, l) = (taps, oversampling)
    var peak = truePeak
    history.withUnsafeMutableBufferPointer { hist in
      interpolator.withUnsafeBufferPointer { phase in
        var at = historyAt
        for i in 0..<frames {
          for c in 0..<ch {
            // A doubled ring: the last `t` samples are contiguous from `at`.
            let base = c * 2 * t
            let v = Double(x[i * ch + c])
            hist[base + at] = v
            hist[base + at + t] = v
            if l == 1 {
              peak = max(peak, abs(v))
              continue
            }
            for p in 0..<l {
              var y = 0.0
              for j in 0..<t { y += phase[p * t + j] * hist[base + at + t - j] }
              peak = max(peak, abs(y))
            }
          }
          at = (at + 1) % t
        }
        historyAt = at
      }
    }
    truePeak = peak
  }

  /// Closes a 100 ms step: momentary and short-term values, the histograms.
  mutating func endStep() {
    steps[stepCount % 30] = stepEnergy / Double(step)
    stepCount += 1
    stepEnergy = 0
    inStep = 0
    if stepCount >= 4 {
      let e = mean(last: 4)
      let l = Self.loudness(e)
      momentaryMax = max(momentaryMax, l)
      if let b = Self.bin(l) {
        blockEnergy[b] += e
        blockCount[b] += 1
        integratedSoFar = integrated
      }
    }
    // Short-term values for the range every second (3 s windows overlapping by 2 s, as
    // libebur128 takes them).
    if stepCount >= 30 && (stepCount - 30) % 10 == 0,
      let b = Self.bin(Self.loudness(mean(last: 30)))
    {
      shortEnergy[b] += mean(last: 30)
      shortCount[b] += 1
    }
  }

  func mean(last n: Int) -> Double {
    var sum = 0.0
    for k in 0..<n { sum += steps[(stepCount - 1 - k) % 30] }
    return sum / Double(n)
  }

  static func loudness(_ meanSquare: Double) -> Double {
    meanSquare > 0 ? -0.691 + 10 * Math.log10(meanSquare) : -.infinity
  }

  /// The histogram bin of `l` (nil below the absolute gate).
  static func bin(_ l: Double) -> Int? {
    guard l >= lowest else { return nil }
    // Held to the top bin before it becomes an Int: +∞ (a mean square that overflowed) would
    // trap.
    return Int(min(Double(binCount - 1), ((l - lowest) * Double(binsPerLU)).rounded(.down)))
  }

  /// Momentary loudness (LUFS) of the last 400 ms; −∞ before 400 ms.
  package var momentary: Double { stepCount >= 4 ? Self.loudness(mean(last: 4)) : -.infinity }
  /// Short-term loudness (LUFS) of the last 3 s; −∞ before 3 s.
  package var shortTerm: Double { stepCount >= 30 ? Self.loudness(mean(last: 30)) : -.infinity }

  /// Integrated loudness (LUFS) so far: blocks above −70 LUFS, then those within 10 LU of
  /// their mean; −∞ with none.
  package var integrated: Double {
    var (sum, count) = (0.0, 0)
    for b in 0..<Self.binCount {
      sum += blockEnergy[b]
      count += blockCount[b]
    }
    guard count > 0 else { return -.infinity }
    let gate = Self.loudness(sum / Double(count)) - 10
    let first = Self.bin(gate) ?? 0
    (sum, count) = (0, 0)
    for b in first..<Self.binCount {
      sum += blockEnergy[b]
      count += blockCount[b]
    }
    return count > 0 ? Self.loudness(sum / Double(count)) : -.infinity
  }

  /// Loudness range (LU, EBU Tech 3342): short-term values (one a second) above −70 LUFS and
  /// within 20 LU of their mean, from the 10th to the 95th percentile; 0 with none.
  package var range: Double {
    var (sum, count) = (0.0, 0)
    for b in 0..<Self.binCount {
      sum += shortEnergy[b]
      count += shortCount[b]
    }
    guard count > 0 else { return 0 }
    let first = Self.bin(Self.loudness(sum / Double(count)) - 20) ?? 0
    var total = 0
    for b in first..<Self.binCount { total += shortCount[b] }
    guard total > 0 else { return 0 }
    func percentile(_ q: Double) -> Double {
      let target = Int((q * Double(total - 1)).rounded()) + 1
      var seen = 0
      for b in first..<Self.binCount {
        seen += shortCount[b]
        if seen >= target { return Self.lowest + (Double(b) + 0.5) / Double(Self.binsPerLU) }
      }
      return Self.highest
    }
    return percentile(0.95) - percentile(0.10)
  }

  /// Bytes held.
  package var retainedBytes: Int {
    8
      * (state.count + steps.count + blockEnergy.count + shortEnergy.count + interpolator.count
        + history.count + 10) + 8 * (blockCount.count + shortCount.count + at4.count)
      + 4 * (coefficients4.count + history4.count)
  }

  /// The true peak in dBTP (−∞ for silence).
  package var truePeakDB: Double { truePeak > 0 ? 20 * Math.log10(truePeak) : -.infinity }
}

/// Loudness of a stream as it plays (ITU-R BS.1770-4, EBU R128), for a meter in an app's UI:
/// what a ``ClockedCapturePipeline`` with ``ClockedCapturePipeline/Configuration/meterLoudness``
/// measures of its output. Values are −∞ until there is audio enough (400 ms, 3 s) above the
/// −70 LUFS gate.
public struct LoudnessReading: Equatable, Sendable {
  /// Loudness of the last 400 ms (LUFS).
  public var momentaryLUFS: Double
  /// Loudness of the last 3 s (LUFS).
  public var shortTermLUFS: Double
  /// Integrated loudness since the start (LUFS, gated), as of the last 100 ms.
  public var integratedLUFS: Double
  /// The largest true peak since the start (dBTP, 4× oversampled).
  public var truePeakDBTP: Double
}

extension LoudnessMeter {
  /// The live reading.
  package var reading: LoudnessReading {
    LoudnessReading(
      momentaryLUFS: momentary, shortTermLUFS: shortTerm, integratedLUFS: integratedSoFar,
      truePeakDBTP: truePeakDB)
  }
}
