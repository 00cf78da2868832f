/// The levels of a mix, for a level meter in an app's UI: each source as it arrives (before its
/// gain) and the output, over the last mix or pull, with a decaying peak hold; and what the
/// output stage did to keep the output in range. A plain value: reading it allocates nothing.
public struct MixMeters: Equatable, Sendable {
  /// The app's level as delivered (before its gain).
  public var app: LevelMeter.Reading
  /// The mic's level as delivered (before its gain).
  public var mic: LevelMeter.Reading
  /// The output's level.
  public var output: LevelMeter.Reading
  /// Samples the `limit` policy's limiter turned down, since creation.
  public var limitedSamples: Int
  /// Samples the `saturate` policy clipped to full scale, since creation.
  public var clippedSamples: Int
}

/// The last step of both mixers, after the sources are summed at their gains: `saturate` clamps
/// (counting what it clips), `limit` runs the limiter; then the output is metered. Also holds the
/// sources' meters.
struct MixOutput {
  var limiter: Limiter?
  var appMeter: LevelMeter
  var micMeter: LevelMeter
  var outputMeter: LevelMeter
  var clipped = 0
  let saturates: Bool

  /// For `policy` at `sampleRate`; `lookaheadFrames` for the limiter (0: it acts at once).
  init(policy: MixPolicy, ceilingDB: Double, lookaheadFrames: Int, sampleRate: Int) {
    let meter = LevelMeter(.init(sampleRate: sampleRate))
    (appMeter, micMeter, outputMeter) = (meter, meter, meter)
    saturates = policy == .saturate
    limiter =
      policy == .limit
      ? Limiter(
        .init(
          channelCount: 2, ceilingDB: ceilingDB, lookaheadFrames: lookaheadFrames,
          sampleRate: sampleRate))
      : nil
  }

  /// Frames of delay the output stage adds (the limiter's look-ahead).
  var latencyFrames: Int { limiter?.latencyFrames ?? 0 }

  /// Meters the two sources from what the kernel measured, or the careful way when a sample
  /// was past full scale or not finite: then `careful` copies that source's `frames` stereo
  /// frames to somewhere they can be measured.
  mutating func meterSources(
    frames: Int, _ m: KernelMix,
    careful: (DualBufferMixer.Side) -> UnsafePointer<Float>
  ) {
    let count = frames * 2
    let (pa, pb, _) = m.peakSquares
    if pa <= 1 && m.sums.0.isFinite {
      appMeter.record(peakSquare: pa, squares: m.sums.0, over: 0, count: count, frames: frames)
    } else {
      appMeter.measure(careful(.app), frames: frames, channels: 2)
    }
    if pb <= 1 && m.sums.1.isFinite {
      micMeter.record(peakSquare: pb, squares: m.sums.1, over: 0, count: count, frames: frames)
    } else {
      micMeter.measure(careful(.mic), frames: frames, channels: 2)
    }
  }

  /// Finishes a mix the kernel measured: when nothing needs clamping or limiting (the usual
  /// case) the block is not scanned again, and not read at all without a look-ahead.
  mutating func finish(_ x: UnsafeMutablePointer<Float>, frames: Int, measured m: KernelMix) {
    // 0x3F80_0000 is 1.0: under it `saturate` clamps nothing; the limiter has its ceiling.
    let quiet = m.magnitudeBits.2 <= (limiter?.ceilingBits ?? 0x3F80_0000) && m.sums.2.isFinite
    guard quiet && (limiter == nil || limiter!.passQuiet(x, frames: frames)) else {
      return finish(x, frames: frames)
    }
    if let w = limiter?.lookahead, w > 0 {
      // Out came the line's W frames, then the block's first frames; its last W are the line
      // now. Unless the block's peak lies in those (then the careful way), the output's
      // measures are the block's with the line's swapped for them: two W-frame scans.
      let count = 2 * min(w, frames)
      let (linePeak, lineSum) = _peakSquareAndSquares(x, count)
      let (tailPeak, tailSum) =
        frames >= w ? limiter!.withLine { _peakSquareAndSquares($0, count) } : (.infinity, 0)
      let blockPeak = m.peakSquares.2
      guard tailPeak < blockPeak else {
        return outputMeter.measure(x, frames: frames, channels: 2)
      }
      outputMeter.record(
        peakSquare: max(blockPeak, linePeak), squares: lineSum + max(0, m.sums.2 - tailSum),
        over: 0, count: frames * 2, frames: frames)
    } else {
      outputMeter.record(
        peakSquare: m.peakSquares.2, squares: m.sums.2, over: 0, count: frames * 2, frames: frames)
    }
  }

  /// Clamps or limits `frames` stereo frames in place, then meters them.
  mutating func finish(_ x: UnsafeMutablePointer<Float>, frames: Int) {
    let count = frames * 2
    if saturates {
      var over = 0
      for i in 0..<count {
        let v = x[i]
        over += v > 1 || v < -1 ? 1 : 0
        x[i] = min(max(v, -1), 1)
      }
      clipped += over
    } else if limiter != nil {
      limiter!.process(x, frames: frames)
    }
    outputMeter.measure(x, frames: frames, channels: 2)
  }

  var meters: MixMeters {
    MixMeters(
      app: appMeter.reading, mic: micMeter.reading, output: outputMeter.reading,
      limitedSamples: limiter?.reducedSamples ?? 0, clippedSamples: clipped)
  }
}
