import CPCMMixCore

/// The last touch of a seamless switch of input rate (see ``SourceChain``): the two runs'
/// frames, summed around the seam, hold the audio below the lower rate's band exactly, but their
/// filters differ above it, and there the hard split leaves a short burst. Once the frames on
/// both sides of the seam are on the timeline, the stretch where the two filters' spans meet is
/// low-passed to that band (a linear-phase Kaiser FIR, applied centred), faded in and out over
/// 2 ms, so the seam carries nothing the lower rate could not.
///
/// The filters are designed when the source is made, one per prepared rate below the output
/// rate; the scratch is sized for the longest, so a switch allocates nothing.
struct RateSwitchSmoother {
  /// One low-pass per lower rate: its taps (odd, symmetric) and the span of the seam's stretch.
  struct Filter {
    var rate: Int
    var taps: [Float]
  }

  let outputRate: Int
  var filters: [Filter] = []
  /// Frames faded into and out of the filtered stretch.
  let fade: Int
  /// The seam waiting for its frames: where it is, the stretch's half-width, which filter.
  var pending: (seam: Int, half: Int, filter: Int)?
  /// Stereo scratch: the stretch with its margins, and the filtered stretch.
  var scratchIn: [Float] = []
  var scratchOut: [Float] = []
  /// Seams smoothed, and seams that came too late to be (the read position had passed them).
  var smoothed = 0
  var missed = 0

  /// Filters for switches among `rates` (and the output rate), each stretch as wide as
  /// `span(rate)` output frames on either side of the seam.
  init(outputRate: Int, rates: [Int], span: (Int) -> Int) {
    self.outputRate = outputRate
    fade = max(1, outputRate / 500)
    var longest = 0
    for rate in Set(rates).sorted() where rate > 0 && rate < outputRate {
      let taps = Self.lowPass(below: rate, outputRate: outputRate)
      filters.append(Filter(rate: rate, taps: taps))
      longest = max(longest, 2 * (span(rate) + fade) + taps.count)
    }
    scratchIn = [Float](repeating: 0, count: 2 * longest)
    scratchOut = [Float](repeating: 0, count: 2 * longest)
  }

  /// The low-pass for a seam with `rate` on one side, at `outputRate` (designed once per pair
  /// in the process, then shared): pass to 0.85 of the lower rate's Nyquist, stop by 0.98 (the
  /// resamplers are flat to 0.9), 70 dB, an odd number of taps, unit gain.
  static func lowPass(below rate: Int, outputRate: Int) -> [Float] {
    if let known = cache.withLock({ $0[[rate, outputRate]] }) { return known }
    let nyquist = Double(rate) / 2
    let (pass, stop) = (0.85 * nyquist, 0.98 * nyquist)
    var n = KaiserWindow.length(
      attenuation: 70, transitionWidth: (stop - pass) / Double(outputRate))
    n += 1 - n % 2
    let beta = KaiserWindow.beta(attenuation: 70)
    let fc = (pass + stop) / 2 / Double(outputRate)
    let m = Double(n - 1) / 2
    var h = [Double](repeating: 0, count: n)
    for k in 0..<n {
      let x = Double(k) - m
      let sinc = x == 0 ? 2 * fc : Math.sin(2 * Double.pi * fc * x) / (Double.pi * x)
      h[k] = sinc * KaiserWindow.value(x / (m + 1), beta: beta)
    }
    let sum = h.reduce(0, +)
    let taps = h.map { Float($0 / sum) }
    cache.withLock { $0[[rate, outputRate]] = taps }
    return taps
  }

  private static let cache = Locked<[[Int]: [Float]]>([:])

  /// Arms the smoothing of a seam at timeline frame `seam` between runs at `rateA` and
  /// `rateB` whose filters reach `half` output frames; nothing when neither is below the output
  /// rate or no filter was prepared for the lower.
  mutating func arm(seam: Int, rates rateA: Int, _ rateB: Int, half: Int) {
    let low = min(rateA, rateB)
    guard let i = filters.firstIndex(where: { $0.rate == low }) else {
      pending = nil
      return
    }
    let n = filters[i].taps.count
    guard 2 * (half + fade) + n <= scratchIn.count / 2 else {
      pending = nil
      return
    }
    pending = (seam, half, i)
  }

  /// Smooths the armed seam once the timeline holds its stretch and the filter's reach on both
  /// sides (frames up to `seam + half + fade + n/2`); forgets it when the stretch has started to
  /// be read.
  mutating func run(on fifo: inout TimelineFIFO) {
    guard let (seam, half, f) = pending else { return }
    let taps = filters[f].taps
    let m = taps.count / 2
    let zone = half + fade
    let first = seam - zone - m
    let count = 2 * zone + 2 * m
    guard fifo.nextPosition >= first + count else { return }
    pending = nil
    let got = scratchIn.withUnsafeMutableBufferPointer {
      fifo.access(first, count, $0.baseAddress!, write: false)
    }
    guard got else {
      missed += 1
      return
    }
    scratchIn.withUnsafeBufferPointer { input in
      scratchOut.withUnsafeMutableBufferPointer { output in
        taps.withUnsafeBufferPointer { h in
          let (x, y) = (input.baseAddress!, output.baseAddress!)
          // Output frame j is input frame j + m, filtered, then faded in against itself.
          pcmmix_core_fir2(h.baseAddress!, h.count, x, 2 * zone, y)
          for j in 0..<(2 * zone) {
            let d = min(j, 2 * zone - 1 - j)
            guard d < fade else { continue }
            let w = Float(0.5 - 0.5 * Math.cos(Double.pi * (Double(d) + 0.5) / Double(fade)))
            let (xl, xr) = (x[2 * (j + m)], x[2 * (j + m) + 1])
            y[2 * j] = xl + w * (y[2 * j] - xl)
            y[2 * j + 1] = xr + w * (y[2 * j + 1] - xr)
          }
        }
      }
    }
    _ = scratchOut.withUnsafeMutableBufferPointer {
      fifo.access(first + m, 2 * zone, $0.baseAddress!, write: true)
    }
    smoothed += 1
  }

  /// Bytes held.
  var retainedBytes: Int {
    (scratchIn.capacity + scratchOut.capacity + filters.reduce(0) { $0 + $1.taps.capacity }) * 4
  }
}
