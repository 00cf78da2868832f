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
  /// With ducking, how far past what the output needs one pull may clean ahead for the
  /// ducker's look-ahead (``cleanAheadSeconds`` at the canceller's rate).
  let cleanAhead: Int

  /// How much the look-ahead cleaning may take on in one pull, past the frames the pull reads or
  /// what is clean already (seconds of the timeline). With ducking on, the stage cleans the mic
  /// as far as it has arrived, so the ducker sees its look-ahead; unbounded, that was all the
  /// audio held at the first pull and a whole buffer's worth in the pull after one arrives. With
  /// ReplayKit's 1,024-frame buffers (32 ms of the mic) a pull ran 0 to 5 blocks of 256 frames
  /// where the output needs 1.9; with buffers of half a second (22,050 frames of the app at
  /// 44.1 kHz, 16,000 of the mic at 32 kHz) the first pull ran 105 and later ones up to 93, and
  /// a Debug build's pull took 57 ms at the 99th percentile and 80 ms at most (`pcm-mix-bench
  /// --filter debug`, its echo row fed such buffers; a fuzzer on the other core), where the
  /// output has 10. With 0.048 s (9 blocks at 48 kHz, about 6 ms in Debug): 20 in the first
  /// pull, which also primes the canceller's ``EchoCanceller/latency``, and at most 9 after
  /// (`EchoLiveCaptureTests.halfSecondBuffersAreCleanedAFewBlocksAPull`); that Debug row 28 ms
  /// and 36 ms, most of it decoding and resampling half a second of audio in one pull (the
  /// default row alone, with 16,000-frame buffers: 7.0 and 20.3 ms). What 1,024-frame and
  /// 10 ms buffers bring comes within the bound: a live capture and the ducking bench's scenes
  /// come out the same to the bit. After a longer buffer the ducker's look-ahead is short for a
  /// while (0.13 s after half a second) as the cleaning catches up, 1,824 frames a pull.
  static let cleanAheadSeconds = 0.048
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
    cleanAhead = Int((Self.cleanAheadSeconds * Double(rate)).rounded())
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
