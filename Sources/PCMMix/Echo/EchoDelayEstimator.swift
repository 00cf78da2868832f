/// Finds how late the reference comes back in the mic: the peak of their generalized
/// cross-correlation (SCOT weighting: the cross-spectrum divided by the geometric mean of the
/// two auto-spectra, so each frequency counts by how coherent it is, whatever its level).
///
/// Both signals are taken down to about 8 kHz by averaging (the same for both, so what aliases
/// aliases alike and stays correlated). Every ``interval`` blocks the last ``window`` decimated
/// mic samples are correlated with the reference over all lags up to the maximum, by FFTs of
/// ``fftSize``; the spectra are smoothed over about half a second of such windows (only windows
/// in which the reference plays count). A lag is reported when its peak stands well above every
/// other lag's (a ratio to the next best outside ±1 ms, and to the mean) in two analyses running,
/// three while the reference's history is shorter than ``window`` plus the longest lag.
///
/// The first analysis runs once the mic's window is full (192 ms), not once the reference's
/// whole history is (0.49 s at 300 ms): before the start the reference was silent, and its
/// history holds that silence. On the echo bench's scenes the echo was found at 0.32–0.64 s
/// instead of 0.58–1.22 s. Until the history is whole, three analyses running must agree (with
/// two, the bench's scenes missed 37 of their ERLE, convergence and double-talk targets,
/// against 29), and the analyses keep their first pace.
///
/// The mic's window is tapered (``taper``): a quarter of it at each end rises and falls as half
/// a Hann window. Cut square, its ends are steps, and the whitening gives a step the weight of
/// any sound: where the app starts with the capture, the reference's own step (silence, then
/// the piece) lines up with the window's first sample at a lag of 0 in the first analysis. On
/// music 120 ms RT60 0.5 s with the app's piece started 5.4 s in, that analysis peaked at 0
/// (0.59, against 0.06 at the true lag), and the smoothing kept the peak there for four more.
/// On the echo bench's music scenes from 1.1, 5.4 and 6.45 s the search settled on a lag of 0
/// at 0.32 s (the true one is 31 or 121 ms) and held it until 0.83–1.98 s; the filter's direct
/// path and the suppressor's path profile were then out of place, and music 120 ms from 5.4 s
/// reached 20 dB only at 2.1–2.3 s, each early hi-hat's echo left 12–13 dB down. Tapered, no scene's first lag is wrong (`pcm-mix-bench --filter echo`'s 144
/// loudspeaker scenes: it is the last one, or 18 frames from it on 8), and the 72 music scenes
/// reach the true lag at 0.32 s on 48 and at 0.64–0.90 s on the others, where none did at 0.32
/// s before (0.38–1.98 s; 12 first settled on 0). The speech scenes' lags and times are
/// unchanged, and no lag is found with headphones. A taper of an eighth or a half of the window
/// at each end found the last music scene at 1.22 s; a sixteenth found 41 at 0.32 s.
struct EchoDelayEstimator {
  /// Samples averaged into one.
  let factor: Int
  /// The decimated rate (Hz).
  let decimatedRate: Float
  let fftSize = 4_096
  /// Decimated mic samples per analysis, and the longest lag (decimated samples).
  let window = 1_536
  let maxLag: Int
  /// Blocks between analyses.
  let interval: Int
  let fft: RealFFT
  /// Decimated history, rings: the reference's `window + maxLag`, the mic's `window`.
  var reference: [Float]
  var mic: [Float]
  var written = 0
  /// The decimator's running sums and how many samples are in them.
  var sums = (reference: Float(0), mic: Float(0))
  var summed = 0
  /// Smoothed spectra: cross (re, im), the reference's and the mic's powers.
  var crossRe: [Float]
  var crossIm: [Float]
  var refPower: [Float]
  var micPower: [Float]
  /// Blocks since the last analysis, and of them with the reference playing.
  var blocks = 0
  var activeBlocks = 0
  /// Analyses with the reference playing, smoothed in so far (the smoothing starts fast).
  var analyses = 0
  /// The last confident lag (decimated samples), and how many analyses running have agreed
  /// with the one before them on it.
  var last: Int?
  var agreed = 0
  /// Scratch: 6 × (fftSize + 8) floats.
  var scratch: [Float]
  /// The mic window's taper: a quarter of ``window`` at each end as half a Hann window, 1
  /// between.
  let taper: [Float]
  /// How far a lag's peak must stand over the correlation's mean over all lags (its
  /// prominence) to count. Tapered, the search's estimates vary more, and with headphones on
  /// speech with the app's piece started 6.45 s in (`pcm-mix-bench --filter ducking`), two
  /// analyses running agreed on a lag of 17 ms at 0.83 s with a prominence of 9.7 (the bar was
  /// 8): the canceller then left its bypass, and the ducker never read the talker (the app's
  /// median gain while the talker spoke 0 dB instead of −10). Where there is an echo the first
  /// lag found stood at 16.4 or more over the echo bench's 144 loudspeaker scenes (16.4–16.9 in
  /// the room 15 dB noisier, 19.6 or more in the quiet one) and 26.4 or more over the ducking
  /// bench's 320 loudspeaker runs; at 12 no lag or time of those 144 scenes moved.
  static let prominenceBar: Float = 12
  /// Whether the reference's history is whole (``window`` plus the longest lag).
  var historyFull: Bool { written >= reference.count }
  /// The most recent confident lag, in samples at the full rate; and the latest analysis's
  /// peak-to-mean ratio (the echo's prominence, 0 until one ran).
  var found: Int?
  /// Whether the last analysis stood out at ``found`` (within a decimated sample): the echo is
  /// still there. ``found`` holds once reported, through double talk and after the echo is
  /// gone; this says whether the newest analysis agrees.
  var confirmed = false
  var prominence: Float = 0
  /// The latest confident analysis's peak in frames at the full rate, between decimated lags
  /// (``peak(re:im:bins:size:near:sign:)``): what ``LagTrend`` follows. It leaves ``found`` as
  /// it is.
  var fractionalLag = 0.0

  /// For signals at `rate`, lags up to `maximumDelay` seconds; analyses every `interval` blocks.
  init(rate: Int, maximumDelay: Double, interval: Int, kernels: EchoKernels = .c) {
    factor = max(1, rate / 8_000)
    let decimated = Double(rate) / Double(factor)
    decimatedRate = Float(decimated)
    maxLag = min(4_096 - 1_536 - 1, Int((maximumDelay * decimated).rounded(.up)) + 8)
    self.interval = interval
    fft = RealFFT(count: 4_096, kernels: kernels)!
    reference = [Float](repeating: 0, count: 1_536 + maxLag)
    mic = [Float](repeating: 0, count: 1_536)
    let bins = 2_049
    crossRe = [Float](repeating: 0, count: bins)
    crossIm = [Float](repeating: 0, count: bins)
    refPower = [Float](repeating: 0, count: bins)
    micPower = [Float](repeating: 0, count: bins)
    scratch = [Float](repeating: 0, count: 6 * (4_096 + 8))
    let (count, edge) = (window, window / 4)
    taper = (0..<count).map { i in
      let d = min(i, count - 1 - i)
      guard d < edge else { return 1 }
      return Float(0.5 - 0.5 * Math.cos(Double.pi * (Double(d) + 0.5) / Double(edge)))
    }
  }

  var retainedBytes: Int {
    4 * (reference.count + mic.count + 4 * crossRe.count + scratch.count + taper.count)
      + fft.retainedBytes
  }

  /// Takes one block of each signal (`count` samples); returns `true` when an analysis ran.
  mutating func push(
    reference r: UnsafePointer<Float>, mic m: UnsafePointer<Float>, count: Int, active: Bool
  ) -> Bool {
    let refCount = reference.count
    let micCount = mic.count
    for i in 0..<count {
      sums.reference += r[i]
      sums.mic += m[i]
      summed += 1
      if summed == factor {
        reference[written % refCount] = sums.reference
        mic[written % micCount] = sums.mic
        written += 1
        sums = (0, 0)
        summed = 0
      }
    }
    blocks += 1
    if active { activeBlocks += 1 }
    // Once a delay is found on a whole history, it is checked a third as often (a route change
    // moves it rarely).
    guard blocks >= (found == nil || !historyFull ? interval : 3 * interval) else { return false }
    // Half the blocks with the reference playing, and the mic's window full.
    let run = 2 * activeBlocks >= blocks && written >= micCount
    blocks = 0
    activeBlocks = 0
    guard run else { return false }
    analyze()
    return true
  }

  /// The ring `ring` (`count` samples, the oldest at `written % count`) in order into `time`,
  /// zero-padded to `size`.
  func unroll(_ ring: [Float], count: Int, into time: UnsafeMutablePointer<Float>, size: Int) {
    let start = written % count
    ring.withUnsafeBufferPointer { r in
      time.update(from: r.baseAddress! + start, count: count - start)
      (time + count - start).update(from: r.baseAddress!, count: start)
    }
    (time + count).update(repeating: 0, count: size - count)
  }

  /// One analysis: the windows' spectra smoothed in, the correlation, its peak judged.
  mutating func analyze() {
    let f = fftSize
    let bins = f / 2 + 1
    let stride = f + 8
    var work = scratch
    scratch = []
    defer { scratch = work }
    work.withUnsafeMutableBufferPointer { s in
      let base = s.baseAddress!
      let time = base
      let (rr, ri, mr, mi) = (
        base + stride, base + 2 * stride, base + 3 * stride, base + 4 * stride
      )
      // The reference, oldest first, `window + maxLag` samples; the mic's `window`, zero-padded.
      let refCount = reference.count
      let micCount = mic.count
      unroll(reference, count: refCount, into: time, size: f)
      fft.forward(time, re: rr, im: ri)
      unroll(mic, count: micCount, into: time, size: f)
      taper.withUnsafeBufferPointer { w in
        for i in 0..<micCount { time[i] *= w[i] }
      }
      fft.forward(time, re: mr, im: mi)
      // Smoothing: a plain mean over the first analyses, then 0.8 / 0.2 (about half a second
      // at an analysis every 64 ms, a second at one every 192 ms). It was `max` here, not
      // `min`: 0.8 for five analyses, then a mean over every analysis since the start, which
      // after a minute no longer moved. With the output latency changed from 30 to 120 ms at
      // 11 s (`theSearchFollowsAChangeOfOutputLatency`), speech was never found again and the
      // canceller took 0 dB out from then on; with the mean forgotten the new lag is found at
      // 12.5 s. On the echo bench's matrix no figure moved; on its shifts double talk moved
      // −0.30 to +0.14 dB and no scene missed a target it had met.
      analyses += 1
      let keep = min(Float(0.8), 1 - 1 / Float(analyses))
      let take = 1 - keep
      crossRe.withUnsafeMutableBufferPointer { crossRe in
        crossIm.withUnsafeMutableBufferPointer { crossIm in
          refPower.withUnsafeMutableBufferPointer { refPower in
            micPower.withUnsafeMutableBufferPointer { micPower in
              for k in 0..<bins {
                // R · conj(M): its inverse at index L − l is the correlation at lag l.
                let cr = rr[k] * mr[k] + ri[k] * mi[k]
                let ci = ri[k] * mr[k] - rr[k] * mi[k]
                crossRe[k] = keep * crossRe[k] + take * cr
                crossIm[k] = keep * crossIm[k] + take * ci
                refPower[k] = keep * refPower[k] + take * (rr[k] * rr[k] + ri[k] * ri[k])
                micPower[k] = keep * micPower[k] + take * (mr[k] * mr[k] + mi[k] * mi[k])
                let w = 1 / ((refPower[k] * micPower[k]).squareRoot() + 1e-20)
                rr[k] = crossRe[k] * w
                ri[k] = crossIm[k] * w
              }
            }
          }
        }
      }
      // Below 150 Hz and above 3.6 kHz (decimated: the averaging's droop) count for nothing.
      let binHz = decimatedRate / Float(f)
      for k in 0..<bins where Float(k) * binHz < 150 || Float(k) * binHz > 3_600 {
        rr[k] = 0
        ri[k] = 0
      }
      // The inverse works in place: the weighted spectrum is kept (in the mic's slots) for
      // the peak's place between lags.
      mr.update(from: rr, count: bins)
      mi.update(from: ri, count: bins)
      fft.inverse(re: rr, im: ri, output: time)
      // The correlation at lag l is at index maxLag − l.
      var best = 0
      var peak: Float = 0
      var sum: Float = 0
      for l in 0...maxLag {
        let v = abs(time[maxLag - l])
        sum += v
        if v > peak {
          peak = v
          best = l
        }
      }
      let guardLags = Int(decimatedRate / 1_000)
      var second: Float = 0
      for l in 0...maxLag where abs(l - best) > guardLags {
        second = max(second, abs(time[maxLag - l]))
      }
      let mean = sum / Float(maxLag + 1)
      prominence = peak / max(mean, 1e-20)
      // A peak within 1 ms of the longest lag searched is not one: the correlation may still
      // rise beyond it. (Music 120 ms late, in the pipeline, peaked there for its first 1.5 s:
      // the filter, placed 300 ms late, left the echo out of its reach and the ducker read
      // that echo as a voice.)
      let confident =
        peak > 1.6 * second && prominence > Self.prominenceBar && best < maxLag - guardLags
      if confident {
        // The peak between lags, on the correlation the spectrum describes between its
        // samples (only a confident peak's is used).
        let index = maxLag - best
        let between = Self.peak(
          re: mr, im: mi, bins: bins, size: f, near: index, sign: time[index] < 0 ? -1 : 1)
        fractionalLag = Double(factor) * (Double(maxLag) - between)
        if let previous = last, abs(previous - best) <= 1 { agreed += 1 } else { agreed = 0 }
        if agreed >= (historyFull ? 1 : 2) { found = best * factor }
        confirmed = found.map { abs($0 - best * factor) <= factor } ?? false
        last = best
      } else {
        confirmed = false
        last = nil
        agreed = 0
      }
    }
  }

  /// Where the correlation whose spectrum is `re`, `im` (`bins` of a transform of `size`)
  /// peaks near the whole index `index` (times `sign`, for a peak below zero), between
  /// samples: a few Newton steps on the sum of its cosines, within a sample of `index`.
  ///
  /// It was the vertex of a parabola through the peak and its neighbours. A correlation
  /// band-limited to 3.6 kHz at the decimated 8 kHz is no parabola between its samples, and the
  /// vertex clung to the whole lags: on speech 30 ms RT60 0.2 s through a loudspeaker 20 ppm
  /// fast (live, the clocks 150 and −100 ppm off), the lags found at 48 kHz stood still for 3 s
  /// and then fell a decimated sample (6 frames) in 3, steps 6.25 s apart, so a line through 3
  /// s of them read −1 to −50 ppm, and through 5.3 s the drift only by chance of phase (at 44.1
  /// kHz −7.7 and −11.7 ppm at its first two readings, under the bar: the warp started at 8.6
  /// s instead of 7.5). Now those lags lie within 0.1–0.25 frames (rms) of a line over each 3
  /// s at 48, 44.1, 32 and 16 kHz; the first readings are −15 to −16 ppm at each (−17.7 over
  /// 15 s: the pipeline's drift loops add +2 to +3 ppm over the first seconds), and the warp
  /// starts at 7.4–7.5 s at each. On music the peak leans with what plays, and the lags wander
  /// by 0.3–1.2 frames (rms over 3 s) either way.
  static func peak(
    re: UnsafePointer<Float>, im: UnsafePointer<Float>, bins: Int, size: Int, near index: Int,
    sign: Float
  ) -> Double {
    var at = Double(index)
    let s = Double(sign)
    for _ in 0..<4 {
      // Sample `at` of Σ (a·cos ωk·t − b·sin ωk·t), ωk = 2πk/size: its first and second
      // derivatives, with cos and sin of ωk·at turned bin by bin.
      let turn = 2 * Double.pi * at / Double(size)
      let (rc, rs) = (Math.cos(turn), Math.sin(turn))
      var (c, sn) = (1.0, 0.0)
      var (slope, curve) = (0.0, 0.0)
      for k in 0..<bins {
        let omega = 2 * Double.pi * Double(k) / Double(size)
        let (a, b) = (Double(re[k]), Double(im[k]))
        slope -= omega * (a * sn + b * c)
        curve -= omega * omega * (a * c - b * sn)
        (c, sn) = (c * rc - sn * rs, sn * rc + c * rs)
      }
      guard s * curve < 0 else { break }
      let step = -slope / curve
      at = max(Double(index) - 1, min(Double(index) + 1, at + step))
      if abs(step) < 1e-3 { break }
    }
    return at
  }
}
