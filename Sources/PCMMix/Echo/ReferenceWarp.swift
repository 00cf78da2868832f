import CPCMMixCore

/// The echo canceller's reference brought onto the echo's clock.
///
/// When the loudspeaker and the mic run on different crystals (a USB mic beside a laptop's
/// speakers, two recorders' files), the echo slides against the app's audio by the clocks'
/// difference: at 20 ppm, a sample a second. The adaptive filter cannot follow a path that moves
/// like that: on speech 30 ms RT60 0.2 s, ERLE fell from 30.8 dB to 17 at 20 ppm and to 9–18
/// at 50 ppm, double talk from 20.2 to 15.5 and 10–13 dB SI-SDR.
///
/// The warp reads the reference at `ratio` raw samples per output sample (1 + the drift the
/// canceller measures on its filter, ``EchoCanceller/trackDrift()``), through a 32-tap windowed
/// sinc interpolated between 64 phases, so the filter sees a path that stands still. The output
/// is a continuous stream; how far its read position lags the newest raw sample moves with
/// the drift, and the canceller takes one block less (the read position came within the
/// interpolator's reach of the newest raw sample: the filter's delay falls a block) or two
/// (it fell more than two blocks behind: the delay grows a block) so that it stays between
/// them. Until the canceller starts it, the output is the raw reference bit for bit.
package struct ReferenceWarp {
  let hop: Int
  /// Taps on either side of the read position.
  static let half = 16
  /// Phases of the tap table (the taps between two are interpolated linearly).
  static let phases = 64
  /// The raw reference's newest ``capacity`` samples, oldest first.
  var history: [Float]
  let capacity: Int
  /// Raw samples pushed so far.
  var rawCount = 0
  /// The raw position (absolute) the next output sample is read at.
  var position = 0.0
  /// Raw samples read per output sample.
  var ratio = 1.0
  var active = false
  /// (phases + 1) rows of 2·half taps: row j for the read position's fraction j / phases.
  let table: [Float]

  package init(hop: Int) {
    self.hop = hop
    capacity = 4 * hop + 2 * Self.half
    history = [Float](repeating: 0, count: capacity)
    let n = 2 * Self.half
    var taps = [Float](repeating: 0, count: (Self.phases + 1) * n)
    for j in 0...Self.phases {
      let f = Double(j) / Double(Self.phases)
      var row = [Double](repeating: 0, count: n)
      var sum = 0.0
      for t in 0..<n {
        // Tap t weighs the raw sample at (integer part) + t - half + 1.
        let x = Double(t - Self.half + 1) - f
        let sinc = x == 0 ? 1 : Math.sin(Double.pi * x) / (Double.pi * x)
        // Blackman window over ±half.
        let u = Double.pi * (x / Double(Self.half))
        let w = abs(x) >= Double(Self.half) ? 0 : 0.42 + 0.5 * Math.cos(u) + 0.08 * Math.cos(2 * u)
        row[t] = sinc * w
        sum += row[t]
      }
      for t in 0..<n { taps[j * n + t] = Float(row[t] / sum) }
    }
    table = taps
  }

  /// How far (samples) the output reads behind the lockstep position: 0 until started.
  var offset: Double { position - Double(rawCount) }

  /// Appends one block of the raw reference; while the warp is stopped, only counts it (the
  /// output is then the raw block itself, and ``start(ratio:recent:)`` takes what history it
  /// needs).
  package mutating func push(_ raw: UnsafePointer<Float>) {
    let h = hop
    rawCount += h
    guard active else {
      position = Double(rawCount)
      return
    }
    history.withUnsafeMutableBufferPointer { x in
      let base = x.baseAddress!
      base.update(from: base + h, count: capacity - h)
      (base + capacity - h).update(from: raw, count: h)
    }
  }

  /// Starts warping at `ratio`, reading on from the block pushed last, which went out as it
  /// came (the output then waits a block: the next ``canProduce`` is false). `recent` holds
  /// the newest raw samples, oldest first (at least the ``half`` the first output reaches
  /// back; at most ``capacity``).
  package mutating func start(ratio: Double, recent: UnsafeBufferPointer<Float>) {
    active = true
    self.ratio = ratio
    position = Double(rawCount)
    let n = min(recent.count, capacity)
    history.withUnsafeMutableBufferPointer { x in
      let base = x.baseAddress!
      base.update(repeating: 0, count: capacity - n)
      (base + capacity - n).update(from: recent.baseAddress! + recent.count - n, count: n)
    }
  }

  /// Stops warping: from the next block the output is the raw reference again.
  package mutating func stop() {
    active = false
    position = Double(rawCount)
  }

  /// Whether the next output block's taps all lie among the raw samples pushed and still held:
  /// a read position left behind the history (blocks pushed and none taken) gives nothing,
  /// never a read outside it (the canceller then takes no block until its delay runs out and
  /// it stops the warp).
  package var canProduce: Bool {
    let last = position + Double(hop - 1) * ratio
    return Int(last.rounded(.down)) + Self.half <= rawCount - 1
      && Int(position.rounded(.down)) - Self.half + 1 >= rawCount - capacity
  }

  /// The next output block into `out` (``canProduce`` must hold), by `kernels`' loop.
  package mutating func produce(into out: UnsafeMutablePointer<Float>, kernels: EchoKernels) {
    let oldest = rawCount - capacity
    history.withUnsafeBufferPointer { x in
      table.withUnsafeBufferPointer { taps in
        kernels.warp(
          x.baseAddress!, first: oldest, table: taps.baseAddress!, taps: 2 * Self.half,
          phases: Self.phases, position: position, ratio: ratio, count: hop, out)
      }
    }
    position += Double(hop) * ratio
  }

  /// Bytes held.
  var retainedBytes: Int { 4 * (history.count + table.count) }
}
