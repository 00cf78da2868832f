import PCMMix

/// `mix --echo-cancel` and `--duck`: the echo canceller on the mic's staged frames, with the
/// app's staged frames at the same output positions as the reference (both inputs start at
/// frame 0). The canceller gives each block ``EchoCanceller/latency`` late (a block and its
/// suppressor's look-ahead), so the mic is clean up to that far behind what both sides have
/// staged; at an input's end the rest is worked through against silence. With `--duck` its
/// near-end voice decisions feed a ``Ducker`` (with cancellation off the canceller runs for the
/// detector alone, without the look-ahead, and leaves the mic as it is).
struct StagedEcho {
  var canceller: EchoCanceller
  /// Whether the cleaned frames replace the mic's (`false`: only the detector runs).
  let corrects: Bool
  /// The ducking, fed with the canceller's voice decisions.
  var ducker: Ducker?
  /// The output position of the next block the canceller takes.
  var next = 0
  var micMid: [Float]
  var appMid: [Float]
  var clean: [Float]
  /// `--mic-drift auto`'s windows of both mids, where it reads the drift (nil: none kept).
  var windows: DriftWindows?

  init(rate: Int, settings: EchoCancellation, corrects: Bool = true, ducking: Ducking? = nil) {
    // Only cleaning the mic needs the suppressor's look-ahead; the detector alone does not.
    canceller = EchoCanceller(rate: rate, settings: settings, lookahead: corrects ? nil : 0)
    self.corrects = corrects
    ducker = ducking.map { Ducker($0, rate: rate) }
    canceller.detectsVoice = ducking != nil
    let h = canceller.hop
    micMid = [Float](repeating: 0, count: h)
    appMid = micMid
    clean = micMid
  }

  /// Cleans `mic` as far as both sides allow. `first` is the output position of each staging's
  /// first frame, `end` where its staged frames end (`nil` once its input has ended, then
  /// `length` is where it ended). Returns how many of `mic`'s staged frames are clean.
  mutating func run(
    mic: inout Staging, micFirst: Int, micEnd: Int?, micLength: Int,
    app: Staging, appFirst: Int, appEnd: Int?, appLength: Int
  ) -> Int {
    let h = canceller.hop
    let late = canceller.latency
    while true {
      let p = next
      if micEnd == nil && p - late >= micLength { break }
      if let e = micEnd, e < p + h { break }
      if let e = appEnd, e < p + h { break }
      for i in 0..<h {
        micMid[i] = mic.mid(p + i - micFirst, below: micLength - micFirst)
        appMid[i] = app.mid(p + i - appFirst, below: appLength - appFirst)
      }
      windows?.note(position: p, app: appMid, mic: micMid, frames: h)
      micMid.withUnsafeBufferPointer { m in
        appMid.withUnsafeBufferPointer { a in
          clean.withUnsafeMutableBufferPointer {
            canceller.process(
              mic: m.baseAddress!, reference: a.baseAddress!, output: $0.baseAddress!)
          }
        }
      }
      if corrects && !canceller.outputBypassed {
        canceller.withOutputMic { previous in
          for i in 0..<h {
            let q = p - late + i - micFirst
            guard q >= 0 && q < micLength - micFirst else { continue }
            mic.add(clean[i] - previous[i], at: q)
          }
        }
      }
      ducker?.note(
        voice: canceller.nearEndVoice, uncertain: canceller.nearEndUncertain, start: p - h,
        frames: h)
      next = p + h
    }
    return max(0, min(micLength, next - late) - micFirst)
  }

  /// The output position up to which voice decisions are in (they lag the canceller's input
  /// by one block; its output lags it by its latency).
  var decided: Int { next - canceller.hop }
}

extension Staging {
  /// The mid (L+R)/2 of staged frame `i` (0 outside `0 ..< count`).
  func mid(_ i: Int, below count: Int) -> Float {
    guard i >= 0 && i < count && i < frames else { return 0 }
    return 0.5 * (samples[start + 2 * i] + samples[start + 2 * i + 1])
  }

  /// Adds `d` to both channels of staged frame `i`.
  mutating func add(_ d: Float, at i: Int) {
    samples[start + 2 * i] += d
    samples[start + 2 * i + 1] += d
  }
}
