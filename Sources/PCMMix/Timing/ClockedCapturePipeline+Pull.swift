// One pull, step by step: how far the output clock may read, then each source's frames placed,
// faded and mixed (or silence), then the limiter.
extension ClockedCapturePipeline {
  /// One pull of `frames` frames, handed to `emit` in blocks of mixed interleaved Float32.
  mutating func pull(
    frames: Int, _ emit: (_ offset: Int, _ block: UnsafePointer<Float>, _ frames: Int) -> Void
  ) -> PullStatus {
    clock.statistics.pulls += 1
    guard frames > 0 else {
      // An empty buffer: nothing moves.
      return PullStatus(
        phase: clock.isRunning ? .running : .starting,
        position: clock.isRunning ? clock.position : nil, appSilentFrames: 0, micSilentFrames: 0,
        time: clock.isRunning ? outputTime(clock.outputPosition) : nil,
        captureTime: clock.isRunning && clock.hold == 0 ? captureTime(clock.position) : nil)
    }
    clock.statistics.framesPulled += frames
    if !clock.isRunning && clock.tryStart(app.state, mic.state, frames: frames) {
      // What lies before the start is not late, only older than the output.
      app.dropBefore(clock.position)
      mic.dropBefore(clock.position)
      primeLimiter()
    }
    guard clock.isRunning else {
      clock.statistics.startingFrames += frames
      emitSilence(frames, emit)
      return PullStatus(
        phase: .starting, position: nil, appSilentFrames: frames, micSilentFrames: frames)
    }
    if clock.hold == 0 && frames > 0
      && clock.shouldHoldForStall(app.state, mic.state, frames: frames)
    {
      clock.holdForStall(frames: frames)
    }
    let time = outputTime(clock.outputPosition)
    guard clock.hold == 0 else {
      clock.hold = max(0, clock.hold - frames)
      clock.statistics.holdingFrames += frames
      clock.outputFrames += frames
      emitSilence(frames, emit)
      return PullStatus(
        phase: .holding, position: nil, appSilentFrames: frames, micSilentFrames: frames,
        time: time)
    }
    let start = clock.position
    let captured = captureTime(start)
    // The mix runs the limiter's look-ahead ahead of the output (the timeline holds that audio
    // already), so the limiter adds no delay.
    let ahead = start + output.latencyFrames
    app.flushIfOverdue(before: ahead + frames)
    mic.flushIfOverdue(before: ahead + frames)
    cleanEcho(from: ahead, frames: frames)
    let (silent, lateness) = mixBlocks(from: ahead, frames: frames, emit)
    advanceClock(from: start, frames: frames, lateness: lateness)
    return PullStatus(
      phase: .running, position: start, appSilentFrames: silent.app, micSilentFrames: silent.mic,
      time: time, captureTime: captured)
  }

  /// Takes the app's echo out of the mic over timeline frames `ahead ..< ahead + frames` (and,
  /// with ducking, up to its look-ahead further, as far as both sources have delivered).
  mutating func cleanEcho(from ahead: Int, frames: Int) {
    guard var stage = echo else { return }
    // Moved out while it works (no copy), and back.
    echo = nil
    var end = ahead + frames
    if let look = stage.ducker?.lookaheadFrames, look > 0 {
      var held = mic.fifo.nextPosition
      if OutputClock.isLive(app.state) { held = min(held, app.fifo.nextPosition) }
      let late = stage.canceller.latency
      var target = min(end + look, held - late - stage.canceller.hop)
      // No more than `cleanAhead` past what this pull needs or what is already clean (from the
      // read position on at the first pull): neither the audio held at the start nor a buffer
      // of half a second is cleaned in one pull (``EchoStage/cleanAheadSeconds``).
      let clean = max(end, (stage.next ?? ahead) - late)
      target = min(target, clean + stage.cleanAhead)
      end = max(end, target)
    }
    stage.clean(from: ahead, to: end, app: &app.fifo, mic: &mic.fifo)
    echo = stage
  }

  /// Mixes timeline frames `ahead ..< ahead + frames` block by block through the output stage
  /// (limiter, meters) to `emit`; returns each source's silent frames and worst lateness.
  mutating func mixBlocks(
    from ahead: Int, frames: Int,
    _ emit: (_ offset: Int, _ block: UnsafePointer<Float>, _ frames: Int) -> Void
  ) -> (silent: (app: Int, mic: Int), lateness: (app: Int, mic: Int)) {
    var silent = (app: 0, mic: 0)
    var lateness = (app: 0, mic: 0)
    // The scratch moves out of `self` while `self` mixes into it, and back after.
    var (a, b) = (scratchA, scratchB)
    (scratchA, scratchB) = ([], [])
    var c = scratchC
    scratchC = []
    _withBlocks(&a, &b, &c) { x, y, z, room in
      var done = 0
      while done < frames {
        let n = min(frames - done, room)
        let r = mix(ahead + done, n, x, y, z)
        silent.app += r.appSilent
        silent.mic += r.micSilent
        lateness = (max(lateness.app, r.appLateness), max(lateness.mic, r.micLateness))
        if let m = r.measured {
          output.finish(r.block, frames: n, measured: m)
        } else {
          output.finish(r.block, frames: n)
        }
        loudnessMeter?.process(r.block, frames: n)
        emit(done, r.block, n)
        done += n
      }
    }
    (scratchA, scratchB, scratchC) = (a, b, c)
    return (silent, lateness)
  }

  /// After a running pull of `frames` from `start`: the clock moves on, skips ahead or lowers
  /// the latency where it may, and each source's compression and fill follow.
  mutating func advanceClock(from start: Int, frames: Int, lateness: (app: Int, mic: Int)) {
    clock.position += frames
    clock.outputFrames += frames
    clock.afterPull(lateness: lateness, frames: frames)
    // A consumer that fell behind every stamped source further than the timeline holds skips
    // ahead; an unstamped source that got ahead of the latency is brought back to it (or
    // steered, by its fill level).
    let skip = clock.skipAhead(app.state, mic.state, frames: frames)
    if skip > 0 {
      app.dropBefore(clock.position)
      mic.dropBefore(clock.position)
      primeLimiter()
    }
    let lowered = clock.latency
    clock.lower(app.state, mic.state, frames: frames, emptyAhead: emptyAhead())
    if clock.latency != lowered && clock.position != start + frames + skip {
      // Silence was skipped: nothing of either source lay there.
      primeLimiter()
    }
    app.compression = clock.compression
    mic.compression = clock.compression
    app.keepFill(clock: clock, frames: frames, configuration: configuration)
    mic.keepFill(clock: clock, frames: frames, configuration: configuration)
  }

  /// Frames from the read position on where neither source has audio, nor will have: up to a
  /// source's first frame held, or for a live source with none held, up to where its next
  /// buffer goes; unlimited for a source that is off, finished or not started.
  func emptyAhead() -> Int {
    func free(_ s: TimedSource) -> Int {
      if let (h, _) = s.fifo.head { return h - clock.position }
      let st = s.state
      guard st.isEnabled && st.hasStarted && !st.isFinished else { return .max }
      return st.nextPosition - clock.position
    }
    return min(free(app), free(mic))
  }

  /// The output clock's host time of output frame `k` (`nil` before the origin is known), in
  /// the output rate's timescale, so that block after block adds exactly.
  func outputTime(_ k: Int) -> MediaTime? {
    guard let origin = originTime, configuration.outputRate <= Int(Int32.max) else { return nil }
    return MediaTime(
      value: originFrames(origin) + Int64(k), timescale: Int32(configuration.outputRate))
  }

  /// The host time at which the audio at timeline frame `p` was captured: the stamps' time,
  /// ahead of the timeline by the frames compressed away.
  func captureTime(_ p: Int) -> MediaTime? {
    guard let origin = originTime else { return nil }
    let frames = Int64((Double(p) + clock.shift).rounded())
    return MediaTime(
      value: originFrames(origin) + frames, timescale: Int32(configuration.outputRate))
  }

  /// The origin in output frames (rounded to the nearest).
  func originFrames(_ origin: MediaTime) -> Int64 {
    let r = Int64(configuration.outputRate)
    let t = Int64(origin.timescale)
    // value × rate / timescale, exactly: the quotient and the remainder's share.
    let (q, rem) = origin.value.quotientAndRemainder(dividingBy: t)
    return q * r + (rem * r + t / 2) / t
  }

  /// One block of the mix, before the output stage: where it is, and what the kernel measured
  /// of it (`nil` where a ramp ran and the meters measured it pass by pass).
  struct MixedBlock {
    var block: UnsafeMutablePointer<Float>
    var measured: KernelMix?
    var appSilent: Int
    var micSilent: Int
    var appLateness: Int
    var micLateness: Int
  }

  /// Mixes timeline frames `k ..< k + n` of both sources (into `x` and `y`, then into `z` or
  /// `x`): each source's audio with its fades, metered, at its gain, summed, at the mix's
  /// scale; as the `DualBufferMixer` computes `(a·ga + b·gb)·scale`, with each factor ramped.
  /// While no gain ramps, one kernel pass does the metering and the mix into `z`.
  mutating func mix(
    _ k: Int, _ n: Int, _ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>,
    _ z: UnsafeMutablePointer<Float>
  ) -> MixedBlock {
    // Both sources play at half level under `average`, one alone at full level; the change
    // ramps like a fade.
    let both = app.isEnabled && app.fadeOutTo == nil && mic.isEnabled && mic.fadeOutTo == nil
    let scale: Float = configuration.policy == .average && both ? 0.5 : 1
    if scale != mixScale.to { mixScale.set(scale, app.fade) }
    let gains = (app.gain.settled(app.fade), mic.gain.settled(mic.fade), mixScale.settled(app.fade))
    guard let ga = gains.0, let gb = gains.1, let s = gains.2, stems == nil, echo?.ducker == nil
    else {
      let r = extract(k, n, x, y)
      output.appMeter.measure(x, frames: n, channels: 2)
      output.micMeter.measure(y, frames: n, channels: 2)
      app.gain.apply(x, frames: n, app.fade)
      mic.gain.apply(y, frames: n, mic.fade)
      echo?.ducker?.apply(x, at: k, frames: n)
      stems?.append(at: k, x, y, frames: n)
      for i in 0..<(n * 2) { x[i] += y[i] }
      mixScale.apply(x, frames: n, app.fade)
      return r
    }
    // No gain ramps: one kernel pass meters both sources and mixes into `z` (the same products
    // and sum as the passes above; a factor of 1 changes no bit). Usually both sources' frames
    // are read where they lie on their timelines; otherwise they are extracted first.
    let plain = app.isPlain(k, n) && mic.isPlain(k, n)
    var r = MixedBlock(
      block: z, measured: nil, appSilent: 0, micSilent: 0, appLateness: 0, micLateness: 0)
    var m = KernelMix()
    if plain {
      m.mix(MixKernel.current, into: z, app.fifo.frames, mic.fifo.frames, frames: n, ga, gb, s)
    } else {
      r = extract(k, n, x, y)
      r.block = z
      m.mix(MixKernel.current, into: z, x, y, count: 2 * n, ga, gb, s)
    }
    output.meterSources(frames: n, m) { side in
      // Rare: a source past full scale or not finite, measured from its own samples (copied
      // out first when they were read in place).
      let at = side == .app ? x : y
      if plain { (side == .app ? app : mic).fifo.peek(n, into: at) }
      return UnsafePointer(at)
    }
    if plain {
      app.consumePlain(n)
      mic.consumePlain(n)
    }
    r.measured = m
    return r
  }

  /// Both sources' frames `k ..< k + n`, faded, into `x` and `y` (silence where there are
  /// none), as a block at `x` with nothing measured yet.
  mutating func extract(
    _ k: Int, _ n: Int, _ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>
  ) -> MixedBlock {
    let ra = app.extract(k, n, into: x)
    let rb = mic.extract(k, n, into: y)
    return MixedBlock(
      block: x, measured: nil, appSilent: ra.silent, micSilent: rb.silent,
      appLateness: ra.lateness, micLateness: rb.lateness)
  }

  /// Fills the limiter's look-ahead with the timeline's first frames (its output, the delay
  /// line's silence, is not used), at the start and after a skip.
  mutating func primeLimiter() {
    let w = output.latencyFrames
    guard w > 0 else { return }
    output.limiter!.reset()
    var (a, b, c) = (scratchA, scratchB, scratchC)
    (scratchA, scratchB, scratchC) = ([], [], [])
    _withBlocks(&a, &b, &c) { x, y, z, room in
      var done = 0
      while done < w {
        let n = min(w - done, room)
        let r = mix(clock.position + done, n, x, y, z)
        output.limiter!.process(r.block, frames: n)
        done += n
      }
    }
    (scratchA, scratchB, scratchC) = (a, b, c)
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

/// Runs `body` over three stereo scratch arrays' storage (`room` frames each).
func _withBlocks(
  _ a: inout [Float], _ b: inout [Float], _ c: inout [Float],
  _ body: (
    UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, Int
  )
    -> Void
) {
  a.withUnsafeMutableBufferPointer { pa in
    b.withUnsafeMutableBufferPointer { pb in
      c.withUnsafeMutableBufferPointer { pc in
        body(pa.baseAddress!, pb.baseAddress!, pc.baseAddress!, pa.count / 2)
      }
    }
  }
}
