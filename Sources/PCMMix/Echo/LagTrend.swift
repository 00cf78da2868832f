/// How fast the echo's delay moves, read off the delay search: a line fitted to the lags it
/// found over the last ``window`` blocks (``EchoDelayEstimator/fractionalLag``, on the raw
/// reference), whatever the filters do.
///
/// The canceller's own drift reading (``EchoCanceller/trackDrift(heard:)``) watches the main
/// filter's phase, which follows speech's drift to within a ppm but hardly moves on music between
/// the shadow's takeovers: at −50 ppm music 120 ms RT60 0.5 s kept only 11.8–13.2 dB SI-SDR in
/// double talk (17.2–18.0 with no drift): the warp never started (nor in a minute at +20 ppm, on
/// music 30 ms RT60 0.2 s either). The search reads the lag every 192 ms on any content, to about a
/// sample. Over the lags it found in `scripts/echo_long_capture.py`'s one-minute captures (speech
/// 30 ms RT60 0.2 s, speech 120 ms RT60 0.5 s clip, three music scenes), this fit, modelled in
/// Python, read 10–26 ppm at +20 and 36–60 at −50 (the sign aside), and within ±3.3 ppm with no
/// drift.
///
/// A lag more than ``tolerance`` frames off the line is left out (the search's peak moves to
/// a reflection during double talk, or for a moment after the path changes); ``restart`` in a
/// row start a new line from the last.
struct LagTrend {
  /// The blocks a line spans at most (10.7 s: 2,000 blocks at 48 kHz), and at least to be read
  /// (5.3 s).
  let window: Int
  let shortest: Int
  /// Lags farther than this (frames) from the line are left out.
  static let tolerance = 8.0
  /// Lags off the line in a row (an analysis every 192 ms: about 2 s) that start a new line.
  /// Through a double talk the search's peak can hold on a reflection: in the live capture of
  /// music 120 ms RT60 0.5 s with the loudspeaker 50 ppm slow, five lags in a row 22 frames
  /// late (7.7–8.5 s) restarted the line, which was read again only 5.3 s later, and over the
  /// minute the filter's phase (wrong on music) set the warp at 74–79 ppm
  /// (`aLoudspeakerOnItsOwnClockIsFollowedLive`).
  static let restart = 10
  /// Lags held at most (an analysis every 36 blocks fills ``window`` with 56).
  static let capacity = 128

  var blocks: [Int]
  var lags: [Double]
  /// The oldest lag held (ring index) and how many are held.
  var first = 0
  var count = 0
  /// Lags off the line in a row.
  var outliers = 0

  /// For blocks of 256 frames at `rate`.
  init(rate: Int) {
    window = EchoCanceller.blocks(lasting: 2_000, rate: rate)
    shortest = EchoCanceller.blocks(lasting: 1_000, rate: rate)
    blocks = [Int](repeating: 0, count: Self.capacity)
    lags = [Double](repeating: 0, count: Self.capacity)
  }

  /// Forgets every lag.
  mutating func reset() {
    first = 0
    count = 0
    outliers = 0
  }

  /// The newest lag held and the block it was found at; nil when none is.
  var newest: (block: Int, lag: Double)? {
    guard count > 0 else { return nil }
    let i = (first + count - 1) % Self.capacity
    return (blocks[i], lags[i])
  }

  /// The least-squares line through the lags held: (slope in frames per block, the lag it
  /// gives at `block`, the slope's standard error); nil with fewer than two blocks apart. The
  /// error is 0 with two lags (a line through them leaves nothing to read it from).
  func line(at block: Int) -> (slope: Double, lag: Double, error: Double)? {
    guard count >= 2 else { return nil }
    let origin = blocks[first]
    var (st, sy, stt, sty) = (0.0, 0.0, 0.0, 0.0)
    for j in 0..<count {
      let i = (first + j) % Self.capacity
      let t = Double(blocks[i] - origin)
      st += t
      sy += lags[i]
      stt += t * t
      sty += t * lags[i]
    }
    let n = Double(count)
    let spread = n * stt - st * st
    guard spread > 0 else { return nil }
    let slope = (n * sty - st * sy) / spread
    let intercept = (sy - slope * st) / n
    // What the line leaves, over n − 2 degrees of freedom, against the times' spread
    // (Σ(t − t̄)² = spread / n).
    var left = 0.0
    for j in 0..<count {
      let i = (first + j) % Self.capacity
      let r = lags[i] - intercept - slope * Double(blocks[i] - origin)
      left += r * r
    }
    let error = count > 2 ? (left / (n - 2) / (spread / n)).squareRoot() : 0
    return (slope, intercept + slope * Double(block - origin), error)
  }

  /// One lag (frames) found at `block`.
  mutating func add(block: Int, lag: Double) {
    let expected =
      count >= 8
      ? line(at: block)?.lag : newest?.lag
    if let expected, abs(lag - expected) > Self.tolerance {
      outliers += 1
      guard outliers >= Self.restart else { return }
      reset()
    }
    outliers = 0
    // Drop what lies beyond the window, or the oldest when full.
    while count > 0 && (blocks[first] <= block - window || count == Self.capacity) {
      first = (first + 1) % Self.capacity
      count -= 1
    }
    let i = (first + count) % Self.capacity
    blocks[i] = block
    lags[i] = lag
    count += 1
  }

  /// The delay's growth (frames per frame, blocks of `hop`) as of `block`, and its standard
  /// error, once the lags held span ``shortest`` blocks, 20 lags or more; nil before.
  func drift(at block: Int, hop: Int) -> (drift: Double, error: Double)? {
    guard count >= 20,
      let newest, newest.block - blocks[first] >= shortest,
      let line = line(at: block)
    else { return nil }
    return (line.slope / Double(hop), line.error / Double(hop))
  }

  /// Bytes held.
  var retainedBytes: Int { 8 * (blocks.count + lags.count) }
}
