import Foundation
import PCMMix

/// The band-edge measurement of a sample-rate converter, as audio people compare them: a
/// −0.1 dBFS log sweep and tones near the lower Nyquist frequency go through the converter, and
/// the output's spectrum is searched, everywhere from DC to the output's Nyquist frequency, for
/// anything that is not the signal (aliases when downsampling, images when upsampling). Levels
/// are in dB against the input's level: a spur at −130 dB is 130 dB below the −0.1 dBFS signal
/// that made it.
///
/// The sweep runs from 20 Hz to just under the input's Nyquist frequency over ``sweepSeconds``.
/// It is not converted whole: each analysis window is converted from its own excerpt of the
/// sweep (with enough input before it for the filter to settle, and starting on a whole period
/// of the conversion's phase cycle for exact-ratio converters), which gives the same output as
/// converting the whole sweep, at a fraction of the cost.
///
/// The spectrum is a Kaiser-windowed FFT (β = 22: its leakage is under −180 dB beyond eight bins
/// of a tone), scaled so a sinusoid of amplitude `a` peaks at `a`; a peak's level is refined by a
/// parabola through the log levels of its bin and its neighbours. The signal's own bins (its
/// frequencies in the window, and ``guardBins`` either side) are left out of the search, so a
/// sweep window cannot see an image or alias that close to the signal (upsampling, the image of
/// content within about 1 % of the input's Nyquist frequency): the tones find those, each over
/// a window long enough to resolve its nearest neighbour.
public enum BandEdge {
  /// The input's level: −0.1 dBFS.
  public static let amplitude = pow(10, -0.1 / 20)
  /// Kaiser β of the analysis window.
  public static let beta = 22.0
  /// Bins either side of the signal left out of the search: the window's main lobe down to
  /// −180 dB.
  public static let guardBins = 9
  /// Duration of the log sweep.
  public static let sweepSeconds = 30.0
  /// Lowest frequency of the sweep.
  public static let sweepStart = 20.0
  /// The near-Nyquist tones, as fractions of the lower Nyquist frequency; when downsampling,
  /// also ``aboveNyquist`` (content the output cannot carry, which must vanish).
  public static let nearNyquist = [0.95, 0.98, 0.99]
  /// The tone just above the output's Nyquist frequency, when downsampling.
  public static let aboveNyquist = 1.01
  /// Where ``Coverage/windows(_:from:)`` also looks, as fractions of the lower Nyquist frequency:
  /// around it, where a stopband that starts late lets the sweep fold into the band (log-spaced
  /// windows alone would step over it), and on to a quarter past it when downsampling.
  public static let edgeWindows = [0.9, 0.97, 0.99, 1.005, 1.03, 1.1, 1.25]

  /// The largest thing in the output that is not the signal.
  public struct Spur: Sendable, CustomStringConvertible {
    /// Its level in dB against the input's level (−∞ when the output held nothing but signal).
    public var levelDB: Double
    /// Its frequency in Hz.
    public var frequency: Double
    /// What was playing: the sweep at some frequency, or a tone.
    public var probe: String

    /// No spur found: −∞ dB.
    public static let none = Spur(levelDB: -.infinity, frequency: 0, probe: "none")

    /// For example `-134.2 dB at 15988 Hz (tone 0.99)`.
    public var description: String {
      String(format: "%.1f dB at %.0f Hz (%@)", levelDB, frequency, probe)
    }
  }

  /// What one conversion measured.
  public struct Report: Sendable {
    /// The worst spur over the sweep and the tones.
    public var worst: Spur
    /// The worst spur in the sweep's windows.
    public var sweep: Spur
    /// Each tone's frequency (fraction of the lower Nyquist), worst spur, and gain in dB (the
    /// tone's amplitude at the output against the input's; `nil` above the output's Nyquist).
    public var tones: [(fraction: Double, spur: Spur, gainDB: Double?)]

    /// The gain of the tone at `fraction` of the lower Nyquist.
    public func gainDB(at fraction: Double) -> Double? {
      tones.first { $0.fraction == fraction }?.gainDB ?? nil
    }
  }

  /// Measures the conversion `inputRate` → `outputRate` of the converters `make` returns (a
  /// fresh one per call, mono): the near-Nyquist tones, and the sweep where `coverage` says.
  /// `delay` is the converter's delay in seconds at the output, beyond what
  /// ``Resampler/skipLatency()`` skips (when `skipsLatency`); `delaySpread` how much more the
  /// top of the band may lag (a minimum-phase filter's), so the sweep's window leaves it out too.
  /// `settle` is input frames fed before a window may start (at least the filter's length).
  public static func measure(
    inputRate: Int, outputRate: Int, coverage: Coverage = .windows(8, from: 0.05),
    delay: Double = 0, delaySpread: Double = 0.003, settle: Int, skipsLatency: Bool = true,
    make: () -> any Resampler
  ) -> Report {
    let lower = Double(min(inputRate, outputRate)) / 2
    let downsampling = outputRate < inputRate
    var fractions = nearNyquist
    if downsampling { fractions.append(aboveNyquist) }
    var tones: [(fraction: Double, spur: Spur, gainDB: Double?)] = []
    var worst = Spur.none
    for fraction in fractions {
      let (spur, gain) = tone(
        fraction * lower, inputRate: inputRate, outputRate: outputRate, settle: settle,
        skipsLatency: skipsLatency, make: make)
      tones.append((fraction, spur, gain))
      if spur.levelDB > worst.levelDB { worst = spur }
    }
    let sweep = self.sweep(
      inputRate: inputRate, outputRate: outputRate, coverage: coverage, delay: delay,
      delaySpread: delaySpread, settle: settle, skipsLatency: skipsLatency, make: make)
    if sweep.levelDB > worst.levelDB { worst = sweep }
    return Report(worst: worst, sweep: sweep, tones: tones)
  }

  /// A −0.1 dBFS tone at `frequency` Hz: the worst spur in the output band and the tone's gain,
  /// from a window of at least `window` output frames (more where the tone's neighbours need
  /// the resolution).
  public static func tone(
    _ frequency: Double, inputRate: Int, outputRate: Int, settle: Int, window: Int = 512,
    skipsLatency: Bool = true, make: () -> any Resampler
  ) -> (spur: Spur, gainDB: Double?) {
    let inNyquist = Double(inputRate) / 2
    let outNyquist = Double(outputRate) / 2
    let passes = frequency < outNyquist
    // Resolve the nearest thing that may sit beside the tone: its image across the input's
    // Nyquist (upsampling), or a spur a whole rate-cycle step away (the rates' common divisor).
    var separation = Double(RateRatio.gcd(inputRate, outputRate))
    if outputRate > inputRate { separation = min(separation, 2 * (inNyquist - frequency)) }
    let n = windowLength(
      atLeast: max(Double(window), Double(guardBins + 2) * Double(outputRate) / separation))
    let w = 2 * Double.pi * frequency / Double(inputRate)
    let y = convert(
      make, inputRate: inputRate, outputRate: outputRate, from: 0, settle: settle, window: n,
      skipsLatency: skipsLatency
    ) { amplitude * sin(w * Double($0)) }
    let spectrum = Spectrum(y)
    let bin = Double(outputRate) / Double(n)
    let guardHz = Double(guardBins) * bin
    let excluded = passes ? [(frequency - guardHz)...(frequency + guardHz)] : []
    var spur = spectrum.worst(rate: outputRate, excluding: excluded)
    spur.probe = String(format: "tone %.0f Hz", frequency)
    let gain =
      passes
      ? 20
        * log10(
          ToneFit(y, frequency: frequency / Double(outputRate), range: 0..<n).amplitude
            / amplitude) : nil
    return (spur, gain)
  }

  /// Where along the sweep to look, from where it passes `from` × the lower Nyquist frequency to
  /// its end.
  public enum Coverage: Sendable {
    /// `count` windows at log-spaced frequencies, and one at each of ``edgeWindows`` that the
    /// sweep reaches, each converted from its own excerpt.
    case windows(Int, from: Double)
    /// Every window, back to back, converted in one run.
    case contiguous(from: Double)
  }

  /// The worst spur over the log sweep's analysis windows.
  public static func sweep(
    inputRate: Int, outputRate: Int, coverage: Coverage, delay: Double, delaySpread: Double,
    settle: Int, skipsLatency: Bool = true, make: () -> any Resampler
  ) -> Spur {
    let fin = Double(inputRate)
    let fout = Double(outputRate)
    let end = 0.995 * fin / 2
    let k = log(end / sweepStart) / sweepSeconds
    // x(t) = A·sin(2π·f0·(e^{kt} − 1)/k): instantaneous frequency f0·e^{kt}.
    func phase(_ t: Double) -> Double { 2 * Double.pi * sweepStart * (exp(k * t) - 1) / k }
    func frequency(_ t: Double) -> Double { sweepStart * exp(k * t) }
    func time(_ f: Double) -> Double { log(f / sweepStart) / k }
    let n = windowLength(atLeast: fout / 48)
    let guardHz = Double(guardBins) * fout / Double(n)
    // Excerpts start on a whole cycle of the ratio's phases, as the whole sweep's output does.
    let cycle = inputRate / RateRatio.gcd(inputRate, outputRate)
    let windowSeconds = Double(n) / fout
    // The last window ends with the sweep, less the delay and the filter's reach.
    let last = sweepSeconds - windowSeconds - delay - delaySpread - 1 / fin
    let lower = min(fin, fout) / 2
    var worst = Spur.none
    // Converts the sweep from time `start` (at least `settle` frames before it) and checks
    // `count` windows from there on.
    func look(from start: Double, windows count: Int) {
      let first = max(0, (Int(start * fin) - settle) / cycle * cycle)
      let y = convert(
        make, inputRate: inputRate, outputRate: outputRate, from: first, settle: settle,
        window: n * count, skipsLatency: skipsLatency
      ) { amplitude * sin(phase(Double($0) / fin)) }
      let firstOut =
        Double(first) / fin + Double(startIndex(settle, inputRate, outputRate)) / fout - delay
      for w in 0..<count {
        // The input times this window shows, and the signal's frequencies there.
        let t0 = firstOut + Double(w) * windowSeconds
        let t1 = t0 + windowSeconds
        let low = frequency(max(0, t0 - delaySpread)) - guardHz
        let high = min(frequency(t1) + guardHz, fout / 2)
        let excluded = low < fout / 2 ? [low...max(low, high)] : []
        var spur = Spectrum(Array(y[(w * n)..<((w + 1) * n)]))
          .worst(rate: outputRate, excluding: excluded)
        spur.probe = String(format: "sweep %.0f–%.0f Hz", frequency(max(0, t0)), frequency(t1))
        if spur.levelDB > worst.levelDB { worst = spur }
      }
    }
    switch coverage {
    case .windows(let count, let from):
      let spread = (0..<count).map {
        from * lower * pow(end / (from * lower), Double($0) / Double(max(1, count - 1)))
      }
      for f in spread + edgeWindows.map({ $0 * lower }).filter({ $0 < end }) {
        look(from: min(time(f) - windowSeconds / 2, last), windows: 1)
      }
    case .contiguous(let from):
      let start = time(from * lower)
      look(from: start, windows: max(1, Int((last - start) / windowSeconds)))
    }
    return worst
  }

  /// The smallest power of two, at least 512, not below `x`.
  static func windowLength(atLeast x: Double) -> Int {
    var n = 512
    while Double(n) < x { n *= 2 }
    return n
  }

  /// The output frame a window starts at: past the outputs whose filter reaches before the
  /// excerpt's first `settle` input frames.
  static func startIndex(_ settle: Int, _ inputRate: Int, _ outputRate: Int) -> Int {
    Int((Double(settle) * Double(outputRate) / Double(inputRate)).rounded(.up)) + 1
  }

  /// Converts input frames `from ..< …` of `signal` (a function of the input frame index) with
  /// a fresh mono converter (its latency skipped, if `skipsLatency` and it can), and returns
  /// `window` output frames starting at ``startIndex(_:_:_:)``.
  static func convert(
    _ make: () -> any Resampler, inputRate: Int, outputRate: Int, from: Int, settle: Int,
    window: Int, skipsLatency: Bool = true, _ signal: (Int) -> Double
  ) -> [Float] {
    var r = make()
    if skipsLatency { _ = r.skipLatency() }
    let start = startIndex(settle, inputRate, outputRate)
    let wanted = start + window
    // Enough input for the window, the converter's remaining delay and the filter's reach.
    let frames =
      Int((Double(wanted + r.latency) * Double(inputRate) / Double(outputRate)).rounded(.up))
      + settle + 64
    let x = (0..<frames).map { Float(signal(from + $0)) }
    var y = [Float](repeating: 0, count: r.maxOutputFrames(forInputFrames: frames) + 16)
    var produced = 0
    var consumed = 0
    x.withUnsafeBufferPointer { input in
      y.withUnsafeMutableBufferPointer { output in
        while consumed < frames && produced < wanted + r.latency {
          let block = min(frames - consumed, max(1, inputRate / 100))
          let result = r.process(
            UnsafeBufferPointer(rebasing: input[consumed..<(consumed + block)]),
            into: UnsafeMutableBufferPointer(rebasing: output[produced...]))
          consumed += result.consumed
          produced += result.produced
        }
        // A converter that holds its output back until the end (a whole-file tool behind the
        // protocol) gives it at the flush.
        if produced < wanted {
          produced += r.flush(into: UnsafeMutableBufferPointer(rebasing: output[produced...]))
        }
      }
    }
    precondition(produced >= wanted, "converter produced \(produced) of \(wanted) frames")
    return Array(y[start..<wanted])
  }

  /// A Kaiser-windowed amplitude spectrum (bins 0 … n/2 of an n-point window).
  public struct Spectrum {
    /// Amplitude per bin, scaled so that a sinusoid of amplitude `a` on a bin reads `a`.
    public var amplitudes: [Double]
    /// Points in the window.
    public var count: Int

    /// The spectrum of `x` (a power-of-two count of samples).
    public init(_ x: [Float]) { self.init(x.map(Double.init)) }

    /// The spectrum of `x` (a power-of-two count of samples).
    public init(_ x: [Double]) {
      let n = x.count
      let window = (0..<n).map {
        KaiserWindow.value(2 * (Double($0) + 0.5) / Double(n) - 1, beta: BandEdge.beta)
      }
      let scale = 2 / window.reduce(0, +)
      var re = (0..<n).map { x[$0] * window[$0] }
      var im = [Double](repeating: 0, count: n)
      stockham(&re, &im)
      amplitudes = (0...(n / 2)).map { (re[$0] * re[$0] + im[$0] * im[$0]).squareRoot() * scale }
      count = n
    }

    /// The largest bin from DC to `rate / 2` outside `excluded` (Hz), its level refined by a
    /// parabola through its neighbours' log levels, against ``BandEdge/amplitude``.
    public func worst(rate: Int, excluding excluded: [ClosedRange<Double>]) -> Spur {
      let bin = Double(rate) / Double(count)
      var best = -1
      for k in 0...(count / 2) where !excluded.contains(where: { $0.contains(Double(k) * bin) }) {
        if best < 0 || amplitudes[k] > amplitudes[best] { best = k }
      }
      guard best >= 0 else { return .none }
      let floor = 1e-300
      var level = log(max(amplitudes[best], floor))
      var offset = 0.0
      // Only a peak is refined: a bin at the edge of an excluded range may be on a slope.
      if best > 0 && best < count / 2 && amplitudes[best - 1] <= amplitudes[best]
        && amplitudes[best + 1] <= amplitudes[best]
      {
        let a = log(max(amplitudes[best - 1], floor))
        let c = log(max(amplitudes[best + 1], floor))
        let curvature = a - 2 * level + c
        if curvature < 0 {
          offset = 0.5 * (a - c) / curvature
          level -= 0.25 * (a - c) * offset
        }
      }
      return Spur(
        levelDB: 20 * (level - log(BandEdge.amplitude)) / log(10.0),
        frequency: (Double(best) + offset) * bin, probe: "")
    }
  }

  /// An in-place complex DFT of a power-of-two length, natural order in and out, by the
  /// Stockham autosort algorithm (each pass reads one buffer and writes the other).
  static func stockham(_ re: inout [Double], _ im: inout [Double]) {
    let n = re.count
    var (xr, xi) = (re, im)
    var (yr, yi) = (re, im)
    let angles = (0..<max(1, n / 2)).map { -2 * Double.pi * Double($0) / Double(n) }
    let (cs, sn) = (angles.map(cos), angles.map(sin))
    var half = n / 2
    var span = 1
    while half >= 1 {
      for p in 0..<half {
        let (wr, wi) = (cs[p * span], sn[p * span])
        for q in 0..<span {
          let a = q + span * p
          let b = a + span * half
          let (ar, ai, br, bi) = (xr[a], xi[a], xr[b], xi[b])
          let out = q + span * 2 * p
          yr[out] = ar + br
          yi[out] = ai + bi
          let (dr, di) = (ar - br, ai - bi)
          yr[out + span] = dr * wr - di * wi
          yi[out + span] = dr * wi + di * wr
        }
      }
      swap(&xr, &yr)
      swap(&xi, &yi)
      half /= 2
      span *= 2
    }
    re = xr
    im = xi
  }
}
