// One pull, step by step: how far the output clock may read, then each source's frames placed,
// faded and mixed (or silence), then the limiter.
extension ClockedCapturePipeline {
  /// One pull of `frames` frames, handed to `emit` in blocks of mixed interleaved Float32.
  mutating func pull(
    frames: Int, _ emit: (_ offset: Int, _ block: UnsafePointer<Float>, _ frames: Int) -> Void
  ) -> PullStatus {
    clock.statistics.pulls += 1
    clock.statistics.framesPulled += frames
    if !clock.isRunning && clock.tryStart(app.state, mic.state, frames: frames) {
      // What lies before the start is not late, only older than the output.
      app.dropBefore(clock.position)
      mic.dropBefore(clock.position)
      primeLimiter()
    }
    guard clock.isRunning, clock.hold == 0 else {
      let phase: PullStatus.Phase = clock.isRunning ? .holding : .starting
      if clock.isRunning {
        clock.hold = max(0, clock.hold - frames)
        clock.statistics.holdingFrames += frames
      } else {
        clock.statistics.startingFrames += frames
      }
      emitSilence(frames, emit)
      return PullStatus(
        phase: phase, position: nil, appSilentFrames: frames, micSilentFrames: frames)
    }
    let start = clock.position
    // The mix runs the limiter's look-ahead ahead of the output (the timeline holds that audio
    // already), so the limiter adds no delay.
    let ahead = start + output.latencyFrames
    app.flushIfOverdue(before: ahead + frames)
    mic.flushIfOverdue(before: ahead + frames)
    var silent = (app: 0, mic: 0)
    var lateness = 0
    // The scratch moves out of `self` while `self` mixes into it, and back after.
    var (a, b) = (scratchA, scratchB)
    (scratchA, scratchB) = ([], [])
    _withBlocks(&a, &b) { x, y, room in
      var done = 0
      while done < frames {
        let n = min(frames - done, room)
        let r = mix(ahead + done, n, x, y)
        silent.app += r.appSilent
        silent.mic += r.micSilent
        lateness = max(lateness, r.lateness)
        output.finish(x, frames: n)
        emit(done, x, n)
        done += n
      }
    }
    (scratchA, scratchB) = (a, b)
    clock.position += frames
    clock.afterPull(lateness: lateness, frames: frames)
    // A consumer that fell behind every stamped source skips ahead; an unstamped source that
    // got ahead of the latency is brought back to it (or steered, by its fill level).
    let skip = clock.skipAhead(app.state, mic.state, frames: frames)
    if skip > 0 {
      app.dropBefore(clock.position)
      mic.dropBefore(clock.position)
      primeLimiter()
    }
    app.keepFill(clock: clock, frames: frames, configuration: configuration)
    mic.keepFill(clock: clock, frames: frames, configuration: configuration)
    return PullStatus(
      phase: .running, position: start, appSilentFrames: silent.app, micSilentFrames: silent.mic)
  }

  /// Mixes timeline frames `k ..< k + n` into `x` (`y` is scratch): each source's audio with its
  /// fades, metered, at its gain, summed, at the mix's scale; as the `DualBufferMixer` computes
  /// `(a·ga + b·gb)·scale`, with each factor ramped. Before the output stage.
  mutating func mix(
    _ k: Int, _ n: Int, _ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>
  )
    -> (appSilent: Int, micSilent: Int, lateness: Int)
  {
    // Both sources play at half level under `average`, one alone at full level; the change
    // ramps like a fade.
    let both = app.isEnabled && app.fadeOutTo == nil && mic.isEnabled && mic.fadeOutTo == nil
    let scale: Float = configuration.policy == .average && both ? 0.5 : 1
    if scale != mixScale.to { mixScale.set(scale, app.fade) }
    let ra = app.extract(k, n, into: x)
    let rb = mic.extract(k, n, into: y)
    output.appMeter.measure(x, frames: n, channels: 2)
    output.micMeter.measure(y, frames: n, channels: 2)
    app.gain.apply(x, frames: n, app.fade)
    mic.gain.apply(y, frames: n, mic.fade)
    for i in 0..<(n * 2) { x[i] += y[i] }
    mixScale.apply(x, frames: n, app.fade)
    return (ra.silent, rb.silent, max(ra.lateness, rb.lateness))
  }

  /// Fills the limiter's look-ahead with the timeline's first frames (its output, the delay
  /// line's silence, is not used), at the start and after a skip.
  mutating func primeLimiter() {
    let w = output.latencyFrames
    guard w > 0 else { return }
    output.limiter!.reset()
    var (a, b) = (scratchA, scratchB)
    (scratchA, scratchB) = ([], [])
    _withBlocks(&a, &b) { x, y, room in
      var done = 0
      while done < w {
        let n = min(w - done, room)
        _ = mix(clock.position + done, n, x, y)
        output.limiter!.process(x, frames: n)
        done += n
      }
    }
    (scratchA, scratchB) = (a, b)
  }

  /// Gives `frames` frames of silence in blocks.
  mutating func emitSilence(
    _ frames: Int, _ emit: (_ offset: Int, _ block: UnsafePointer<Float>, _ frames: Int) -> Void
  ) {
    var a = scratchA
    scratchA = []
    a.withUnsafeMutableBufferPointer { pa in
      var done = 0
      while done < frames {
        let n = min(frames - done, pa.count / 2)
        pa.baseAddress!.update(repeating: 0, count: n * 2)
        emit(done, pa.baseAddress!, n)
        done += n
      }
    }
    scratchA = a
  }
}

/// Runs `body` over two stereo scratch arrays' storage (`room` frames each).
func _withBlocks(
  _ a: inout [Float], _ b: inout [Float],
  _ body: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void
) {
  a.withUnsafeMutableBufferPointer { pa in
    b.withUnsafeMutableBufferPointer { pb in body(pa.baseAddress!, pb.baseAddress!, pa.count / 2) }
  }
}
