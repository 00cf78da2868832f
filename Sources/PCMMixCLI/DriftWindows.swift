import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `mix --mic-drift auto`'s fine reading of the drift between the two inputs, from the echo's
/// delay at up to ``most`` windows spread over the files.
///
/// In each window (``length`` frames of the app's and the mic's mids on the output's timeline)
/// the delay is where the generalized cross-correlation with the phase transform (GCC-PHAT)
/// peaks, placed by Newton's steps on the band-limited correlation (``peak(near:re:im:bins:)``)
/// and timed at the centre of the app's power in the window (``centre()``); a window whose peak
/// does not stand ``clearance`` times over the correlation's mean magnitude (no echo there: the
/// app silent, or a talker alone) gives none. The drift is the median of the slopes between
/// every pair of windows (Theil–Sen): a moved phone, or a peak on a reflection, steps some of
/// the delays, and the pairs far apart, whose slopes those steps hardly move, keep the median.
///
/// The canceller's own reading (its warp's ratio, ``EchoStatistics/micDriftPPM``) follows the
/// echo closely enough to cancel it but lies up to 2.7 ppm off the drift (1.6 ms in ten
/// minutes); this one read within 0.18 ppm on every scene measured (docs/GUIDE.md, the CLI). It
/// is taken where it agrees with the canceller's (`drift(agreeingWith:within:)`), so that it
/// can only sharpen a sound reading.
struct DriftWindows {
  /// Frames per window: 2¹⁶, 1.4 s at 48 kHz.
  static let length = 1 << 16
  /// The most windows read.
  static let most = 64
  /// The fewest slopes a fine reading needs.
  static let fewest = 8
  /// How far a window's correlation peak must stand over its mean magnitude.
  static let clearance: Float = 8
  /// How far the fine reading may lie from the canceller's where its warp runs (ppm).
  static let agreement = 6.0
  /// The first window's start, the frames from one window's start to the next's, and the count.
  let first: Int
  let spacing: Int
  let count: Int
  /// The lags searched (frames).
  let maximumDelay: Int
  /// The window being filled: its index, and its app and mic mids back to back.
  var current = 0
  var mids: [Float]
  /// Each window's delay (frames; NaN where it gave none), and the time it holds for: the
  /// window's start plus the centre of the app's power in it (frames on the timeline).
  var delays: [Double]
  var times: [Double]
  /// The transform and its buffers (twice the window: no wrap within the lags searched).
  let fft: RealFFT
  var time: [Float]
  var spectra: [Float]

  /// Windows over inputs that both run `frames` frames on the output's timeline, from half a
  /// second in; `nil` where fewer than ``fewest`` + 1 fit.
  init?(frames: Int, rate: Int, maximumDelay: Int) {
    let n = Self.length
    first = rate / 2
    let room = frames - first - n
    guard room >= Self.fewest * n, let fft = RealFFT(count: 2 * n) else { return nil }
    count = min(Self.most, room / n + 1)
    spacing = room / (count - 1)
    self.maximumDelay = max(2, min(maximumDelay, n - 2))
    self.fft = fft
    mids = [Float](repeating: 0, count: 2 * n)
    delays = [Double](repeating: .nan, count: count)
    times = delays
    time = [Float](repeating: 0, count: 2 * n)
    spectra = [Float](repeating: 0, count: 4 * (n + 1))
  }

  /// Notes the mids of `frames` frames from timeline position `position` on; reads a window's
  /// delay once it is full.
  mutating func note(
    position: Int, app: UnsafePointer<Float>, mic: UnsafePointer<Float>, frames: Int
  ) {
    let n = Self.length
    while current < count {
      let start = first + current * spacing
      let lo = max(position, start)
      let hi = min(position + frames, start + n)
      if lo < hi {
        for p in lo..<hi {
          mids[p - start] = app[p - position]
          mids[n + p - start] = mic[p - position]
        }
      }
      guard position + frames >= start + n else { return }
      delays[current] = delay() ?? .nan
      times[current] = Double(start) + centre()
      current += 1
    }
  }

  /// The drift (frames of delay gained per frame), if ``fewest`` slopes or more were read and
  /// their median lies within `tolerance` of `coarse` (both in ppm); `nil` otherwise.
  func drift(agreeingWith coarse: Double, within tolerance: Double) -> Double? {
    var slopes: [Double] = []
    var read = 0
    for j in 0..<count where delays[j].isFinite {
      read += 1
      for i in 0..<j where delays[i].isFinite {
        slopes.append((delays[j] - delays[i]) / (times[j] - times[i]))
      }
    }
    guard read > Self.fewest else { return nil }
    slopes.sort()
    let m = slopes.count / 2
    let median = slopes.count % 2 == 1 ? slopes[m] : 0.5 * (slopes[m - 1] + slopes[m])
    return abs(median * 1e6 - coarse) <= tolerance ? median : nil
  }

  /// Where in the current window the app's power is centred (frames from its start): a
  /// drifting delay moves through the window, and the correlation reads it where the power is
  /// (speech's words are not spread evenly over 1.4 s). Half the window if the app is silent.
  func centre() -> Double {
    var (weighted, total) = (0.0, 0.0)
    for i in 0..<Self.length {
      let p = Double(mids[i]) * Double(mids[i])
      weighted += Double(i) * p
      total += p
    }
    return total > 0 ? weighted / total : Double(Self.length) / 2
  }

  /// The current window's delay: the lag (frames, the mic after the app) at which its GCC-PHAT
  /// peaks, within 1 … ``maximumDelay``, to a fraction of a frame; `nil` where no peak stands
  /// out.
  mutating func delay() -> Double? {
    let n = Self.length
    let bins = n + 1
    let fft = self.fft
    let lags = maximumDelay
    return mids.withUnsafeBufferPointer { m in
      time.withUnsafeMutableBufferPointer { t in
        spectra.withUnsafeMutableBufferPointer { s in
          let (t, s) = (t.baseAddress!, s.baseAddress!)
          let (ar, ai, mr, mi) = (s, s + bins, s + 2 * bins, s + 3 * bins)
          // Each side zero-padded to twice the window.
          (t + n).update(repeating: 0, count: n)
          t.update(from: m.baseAddress!, count: n)
          fft.forward(t, re: ar, im: ai)
          t.update(from: m.baseAddress! + n, count: n)
          fft.forward(t, re: mr, im: mi)
          // The cross-spectrum M·conj(A), each bin brought to unit magnitude.
          for k in 0..<bins {
            let re = mr[k] * ar[k] + mi[k] * ai[k]
            let im = mi[k] * ar[k] - mr[k] * ai[k]
            let magnitude = (re * re + im * im).squareRoot()
            let scale: Float = magnitude > 0 && magnitude.isFinite ? 1 / magnitude : 0
            (mr[k], mi[k]) = (re * scale, im * scale)
            (ar[k], ai[k]) = (mr[k], mi[k])
          }
          fft.inverse(re: mr, im: mi, output: t)
          var best = 1
          var sum: Float = 0
          for lag in 1...lags {
            sum += abs(t[lag])
            if t[lag] > t[best] { best = lag }
          }
          guard sum > 0, t[best] > Self.clearance * sum / Float(lags), best < lags else {
            return nil
          }
          let (y0, y1, y2) = (Double(t[best - 1]), Double(t[best]), Double(t[best + 1]))
          let curvature = y0 - 2 * y1 + y2
          let rough = Double(best) + (curvature < 0 ? 0.5 * (y0 - y2) / curvature : 0)
          return Self.peak(near: rough, re: ar, im: ai, bins: bins)
        }
      }
    }
  }

  /// The lag near `tau` at which the band-limited correlation whose spectrum is `re`, `im`
  /// (`bins` bins of a transform of `2 (bins − 1)`) peaks: Newton's steps on its derivative,
  /// summed over the bins. A parabola through the three samples about the peak lies off the
  /// peak by a share of a frame that follows the delay's fraction, so as the delay drifts the
  /// slopes between windows read it off by up to 4 ppm at 100 ppm; the sums read the peak
  /// itself.
  static func peak(
    near tau: Double, re: UnsafePointer<Float>, im: UnsafePointer<Float>, bins: Int
  ) -> Double {
    let size = Double(2 * (bins - 1))
    var x = tau
    for _ in 0..<3 {
      // Σ w·Re(G_k e^{iθk x}) differentiated once and twice, θ = 2π / size, w = 2 but at the
      // ends (bin 0 and the Nyquist bin count once).
      let step = 2 * Double.pi * x / size
      let (dc, ds) = (cos(step), sin(step))
      var (c, sn) = (1.0, 0.0)
      var (first, second) = (0.0, 0.0)
      for k in 0..<bins {
        let w = k == 0 || k == bins - 1 ? 1.0 : 2.0
        let theta = 2 * Double.pi * Double(k) / size
        let (a, b) = (Double(re[k]), Double(im[k]))
        first += w * theta * (-a * sn - b * c)
        second += w * theta * theta * (-a * c + b * sn)
        (c, sn) = (c * dc - sn * ds, sn * dc + c * ds)
      }
      guard second < 0 else { return tau }
      let move = first / second
      guard abs(move) < 1 else { return tau }
      x -= move
    }
    return abs(x - tau) < 1 ? x : tau
  }
}
