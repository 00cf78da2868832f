import PCMMixTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A resampler's magnitude response, measured with stepped sines as one measures any converter
/// whose filter is not exposed (at a non-integer ratio it is time-varying, so there is no one
/// impulse response to transform).
///
/// Each tone, `amplitude` at frequency `f` of the input, is streamed through a fresh converter
/// in 10 ms blocks; after ``settle`` seconds (past every backend's delay and start-up) the next
/// ``analysisSize`` output samples are analysed:
/// - gain: where `f` is below the output's Nyquist frequency, a least-squares sine fit at `f`
///   (``ToneFit``) over those samples: fitted amplitude over input amplitude;
/// - rejection: the strongest component of their Kaiser-windowed spectrum apart from the tone
///   itself, its power summed over its lobe, over the input amplitude. Downsampling, a tone
///   above the output's Nyquist frequency has only aliases in the output: the strongest is the
///   response at `f`. Upsampling, every tone at `f` leaves images at `k·inRate ± f`: the
///   strongest is taken as the response at the first, `inRate − f`.
/// Together they trace the filter from DC to where it matters: up to the input rate when
/// upsampling (images beyond the output's Nyquist frequency fold back into the band), up to the
/// input's Nyquist frequency when downsampling.
struct MeasuredResponse {
  /// Tone gain in dB at input frequencies (Hz) below the lower Nyquist frequency.
  var gain: [(x: Double, y: Double)] = []
  /// The strongest alias or image in dB, at the frequency (Hz) whose response it is, beyond the
  /// lower Nyquist frequency.
  var rejection: [(x: Double, y: Double)] = []
  /// Where in the output each rejection point's component lies (Hz), in the same order.
  var landsAt: [Double] = []

  static let amplitude = ResamplerTable.amplitude
  static let settle = 0.1
  static let analysisSize = 16_384

  /// The tones for one conversion: 240 spread evenly over the input band, and 240 more around
  /// the lower Nyquist frequency (0.86 to 1.16 of it) where the filter turns from pass to stop.
  static func tones(inRate: Int, outRate: Int) -> [Double] {
    let inNyquist = Double(inRate) / 2
    let edge = Double(min(inRate, outRate)) / 2
    // Upsampling, a tone within 50 Hz of the input's Nyquist frequency cannot be told from its
    // own image; downsampling, stop 50 Hz short of it too.
    let top = inNyquist - 50
    let even = (1...240).map { top * Double($0) / 240 }
    let dense = (0..<240).map { edge * (0.86 + 0.30 * Double($0) / 239) }.filter { $0 < top }
    return (even + dense).sorted()
  }

  /// Measures `backend` converting `inRate` to `outRate` (mono); nil when it refuses them.
  init?(_ backend: Backend, inRate: Int, outRate: Int, analyzer: SpectrumAnalyzer) {
    let outNyquist = Double(outRate) / 2
    let edge = Double(min(inRate, outRate)) / 2
    let start = Int(Self.settle * Double(outRate))
    let outFrames = start + analyzer.size
    let inFrames = Int(Double(outFrames) * Double(inRate) / Double(outRate)) + inRate / 20
    for f in Self.tones(inRate: inRate, outRate: outRate) {
      guard var r = backend.make(inRate, outRate, 1) else { return nil }
      let out = ResamplerTable.streamTone(&r, frequency: f, frames: inFrames).output
      precondition(out.count >= outFrames, "\(backend.name) withheld too much output")
      let tone: Double? = f < outNyquist ? f : nil
      if let tone {
        let basis = ToneFit.Basis(frequency: tone / Double(outRate), range: start..<outFrames)
        let fit = out.withUnsafeBufferPointer { ToneFit($0, basis: basis) }
        if f < edge { gain.append((f, 20 * log10(fit.amplitude / Self.amplitude))) }
      }
      let x = inRate < outRate ? Double(inRate) - f : f
      guard x > edge else { continue }
      let spur = out.withUnsafeBufferPointer {
        Self.strongestOther(in: $0, start: start, rate: outRate, tone: tone, analyzer: analyzer)
      }
      rejection.append((x, 20 * log10(spur.amplitude / Self.amplitude)))
      landsAt.append(spur.frequency)
    }
    let order = rejection.indices.sorted { rejection[$0].x < rejection[$1].x }
    rejection = order.map { rejection[$0] }
    landsAt = order.map { landsAt[$0] }
  }

  /// The strongest component of `samples[start ..< start + analyzer.size]` outside the lobe of
  /// `tone` (Hz; nil: no tone to skip): its amplitude and frequency.
  static func strongestOther(
    in samples: UnsafeBufferPointer<Float>, start: Int, rate: Int, tone: Double?,
    analyzer: SpectrumAnalyzer
  ) -> (amplitude: Double, frequency: Double) {
    let power = analyzer.power(samples, start: start)
    let binHz = Double(rate) / Double(analyzer.size)
    let bin = tone.map { Int(($0 / binHz).rounded()) } ?? -1_000
    let skip = (bin - SpectrumAnalyzer.lobe - 2)...(bin + SpectrumAnalyzer.lobe + 2)
    var peak = 0
    var best = -1.0
    for k in power.indices where !skip.contains(k) && power[k] > best {
      (peak, best) = (k, power[k])
    }
    // The lobe of the strongest component, less any bins of the tone's lobe it reaches.
    var lobe = power
    for k in skip where lobe.indices.contains(k) { lobe[k] = 0 }
    return (analyzer.amplitude(lobe, around: peak), Double(peak) * binHz)
  }

  /// The analysis's own floor: the strongest component it finds beside a Float32 sine of
  /// `amplitude` computed directly at `rate` (the quantization of the samples alone), in dB,
  /// the worst of 24 frequencies across the band.
  static func floor(rate: Int, analyzer: SpectrumAnalyzer) -> Double {
    let start = Int(settle * Double(rate))
    var worst = -Double.infinity
    for k in 1...24 {
      let f = Double(rate) / 2 * (Double(k) - 0.37) / 24.5
      let w = 2 * Double.pi * f / Double(rate)
      let x = (0..<(start + analyzer.size)).map { Float(amplitude * sin(w * Double($0))) }
      let spur = x.withUnsafeBufferPointer {
        strongestOther(in: $0, start: start, rate: rate, tone: f, analyzer: analyzer)
      }
      worst = max(worst, 20 * log10(spur.amplitude / amplitude))
    }
    return worst
  }
}
