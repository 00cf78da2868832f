/// The echo canceller on the timeline: the mic's frames are cleaned where they lie, just ahead
/// of the read position, with the app's frames at the same positions as the reference (both
/// placed and drift-corrected already), so the output timeline gains no delay.
///
/// ```
/// timeline:  ... | mixed | [ read … read+n ) | latency | held, not yet cleaned ...
///                          └─ cleaned ────────┘└ looked at ┘
/// ```
/// The canceller works in blocks of ``EchoCanceller/hop`` frames and gives each block's output
/// ``EchoCanceller/latency`` later (a block, and its suppressor's look-ahead), so cleaning up
/// to a position looks that far past it. It takes the mid
/// (L+R)/2 of each source and adds the same correction (clean − mid) to both mic channels;
/// while it is bypassed (no echo found) the mic's frames are not touched.
struct EchoStage {
  var canceller: EchoCanceller
  /// Whether the cleaned frames replace the mic's (`false`: the canceller runs only for the
  /// ducking's voice detector).
  let corrects: Bool
  /// The ducking, fed with the canceller's near-end voice decisions.
  var ducker: Ducker?
  /// The timeline position of the next block the canceller takes (`nil` before the first).
  var next: Int?
  /// One block of stereo frames, and the mids of the mic, the app and the output.
  var stereo: [Float]
  var micMid: [Float]
  var appMid: [Float]
  var clean: [Float]

  init(rate: Int, settings: EchoCancellation, corrects: Bool = true, ducking: Ducking? = nil) {
    // Only cleaning the mic needs the suppressor's look-ahead; the detector alone does not.
    canceller = EchoCanceller(rate: rate, settings: settings, lookahead: corrects ? nil : 0)
    self.corrects = corrects
    ducker = ducking.map { Ducker($0, rate: rate) }
    canceller.detectsVoice = ducking != nil
    let h = canceller.hop
    stereo = [Float](repeating: 0, count: 2 * h)
    micMid = [Float](repeating: 0, count: h)
    appMid = [Float](repeating: 0, count: h)
    clean = [Float](repeating: 0, count: h)
  }

  var retainedBytes: Int {
    canceller.retainedBytes + 4 * (stereo.count + micMid.count + appMid.count + clean.count)
  }

  /// Cleans the mic's frames up to timeline position `end` (from `start` on, where the mix
  /// reads next).
  mutating func clean(
    from start: Int, to end: Int, app: inout TimelineFIFO, mic: inout TimelineFIFO
  ) {
    let h = canceller.hop
    let late = canceller.latency
    // The first time, and after the read position jumped past (a skip, a lowered latency):
    // from the read position on.
    if next == nil || next! < start { next = start }
    while let p = next, p - late < end {
      stereo.withUnsafeMutableBufferPointer { s in
        appMid.withUnsafeMutableBufferPointer { Self.mid(of: &app, at: p, s.baseAddress!, $0) }
        micMid.withUnsafeMutableBufferPointer { Self.mid(of: &mic, at: p, s.baseAddress!, $0) }
      }
      micMid.withUnsafeBufferPointer { m in
        appMid.withUnsafeBufferPointer { a in
          clean.withUnsafeMutableBufferPointer { c in
            canceller.process(
              mic: m.baseAddress!, reference: a.baseAddress!, output: c.baseAddress!)
          }
        }
      }
      // Bypassed, the output is the mic's mid as it came: nothing to add.
      if corrects && !canceller.outputBypassed { correct(&mic, at: p - late) }
      // The voice decisions are the block before's (the suppressor's frame ends in this one).
      ducker?.note(
        voice: canceller.nearEndVoice, uncertain: canceller.nearEndUncertain, start: p - h,
        frames: h)
      next = p + h
    }
  }

  /// The mid of `fifo`'s frames at positions `p ..< p + mid.count` into `mid` (0 where none
  /// are held), through `stereo` (room for as many stereo frames).
  static func mid(
    of fifo: inout TimelineFIFO, at p: Int, _ stereo: UnsafeMutablePointer<Float>,
    _ mid: UnsafeMutableBufferPointer<Float>
  ) {
    mid.update(repeating: 0)
    fifo.withHeld(p, mid.count, stereo, write: false) { at, run in
      for i in 0..<run { mid[at + i] = 0.5 * (stereo[2 * i] + stereo[2 * i + 1]) }
    }
  }

  /// Adds the canceller's correction (its output minus the mic's mid it holds) to both
  /// channels of the mic's frames at positions `p ..< p + hop`.
  mutating func correct(_ fifo: inout TimelineFIFO, at p: Int) {
    let h = canceller.hop
    stereo.withUnsafeMutableBufferPointer { s in
      clean.withUnsafeBufferPointer { c in
        canceller.withOutputMic { m in
          let sp = s.baseAddress!
          fifo.withHeld(p, h, sp, write: true) { at, run in
            for i in 0..<run {
              let d = c[at + i] - m[at + i]
              sp[2 * i] += d
              sp[2 * i + 1] += d
            }
          }
        }
      }
    }
  }
}
