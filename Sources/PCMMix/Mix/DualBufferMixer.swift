/// Mixes app and mic audio, both already at the output rate and channel count.
///
/// Each ``mix(into:)-(UnsafeMutableBufferPointer<Float>)`` emits every frame both sources have
/// (`min(app, mic)`) and keeps the rest of the longer side for the next call. Memory is bounded:
/// - when one source stalls, the other's frames beyond the lag bound are emitted against silence
///   (mixed by the same policy with a zero), so audio keeps flowing with at most that much delay.
///   The bound (the lag bound) is ``Configuration/maxLagFrames`` beyond the largest burst
///   either source has delivered between two mix calls, less than capacity by a burst: a source
///   that delivers 512 ms at once is not taken for stalled between its bursts, which would shift
///   it against the other for good;
/// - past ``Configuration/capacityFrames`` the oldest frames of a side are dropped and counted;
/// - a disabled source takes no part and the other passes through alone, at its own gain.
///
/// Storage is allocated once, at creation; mixing allocates nothing.
public struct DualBufferMixer {
  /// Bounds, policy and gains.
  public struct Configuration: Hashable, Sendable {
    /// Samples per frame (2 for the capture pipeline). The limiter, its ceiling and ``meters``
    /// work on stereo only: with any other count, `limit` and `saturate` clamp to ±1 and nothing
    /// is metered.
    public var channelCount: Int
    /// The most frames each side buffers (default 1 s at 48 kHz).
    public var capacityFrames: Int
    /// How far one side may run ahead of a stalled other, beyond the largest burst either side
    /// delivers between mix calls, before its frames are emitted against silence (default
    /// 100 ms at 48 kHz).
    public var maxLagFrames: Int
    /// How samples are combined.
    public var policy: MixPolicy
    /// App gain in dB.
    public var appGainDB: Double
    /// Mic gain in dB.
    public var micGainDB: Double
    /// The `limit` policy's ceiling in dBFS (default −1), for a stereo mixer (see
    /// ``channelCount``).
    public var ceilingDB: Double

    /// Creates a configuration; the defaults suit 48 kHz stereo. The mixer takes values outside
    /// their ranges as the nearest inside (``normalized``), so no configuration traps.
    public init(
      channelCount: Int = 2, capacityFrames: Int = 48_000, maxLagFrames: Int = 4_800,
      policy: MixPolicy = .average, appGainDB: Double = 0, micGainDB: Double = 0,
      ceilingDB: Double = -1
    ) {
      self.channelCount = channelCount
      self.capacityFrames = capacityFrames
      self.maxLagFrames = maxLagFrames
      self.policy = policy
      self.appGainDB = appGainDB
      self.micGainDB = micGainDB
      self.ceilingDB = ceilingDB
    }

    /// The configuration the mixer runs: channels in 1 … ``PCMFormat/maxChannels``, a capacity
    /// of at least 1 frame, `0 ≤ maxLagFrames ≤ capacityFrames`, gains and ceiling that are not
    /// NaN (NaN becomes 0 dB, and −1 dBFS for the ceiling). Every other value is kept.
    public var clamped: Configuration {
      var c = self
      c.channelCount = min(max(channelCount, 1), PCMFormat.maxChannels)
      c.capacityFrames = max(capacityFrames, 1)
      c.maxLagFrames = min(max(maxLagFrames, 0), c.capacityFrames)
      c.appGainDB = appGainDB.isNaN ? 0 : appGainDB
      c.micGainDB = micGainDB.isNaN ? 0 : micGainDB
      c.ceilingDB = ceilingDB.isNaN ? -1 : ceilingDB
      return c
    }
  }

  /// The two sides.
  public enum Side: Sendable { case app, mic }

  /// App audio: what is buffered, its gain and its counters. Frames go in through
  /// ``append(_:_:)`` (or a ``SourceChain``).
  public internal(set) var app: MixerInput
  /// Mic audio: what is buffered, its gain and its counters. Frames go in through
  /// ``append(_:_:)`` (or a ``SourceChain``).
  public internal(set) var mic: MixerInput
  /// The bounds and policy it was made with, and the gains as last set
  /// (``setGain(_:dB:)``).
  public private(set) var configuration: Configuration
  /// Mixing works through this many frames at a time.
  static let block = 512
  var scratchA: [Float]
  var scratchB: [Float]
  /// Clamping or limiting, and the meters. The limiter here has no look-ahead: what a mix call
  /// emits leaves at once, so it acts on each sample as it comes (see ``Limiter``).
  var output: MixOutput

  /// Levels and what the output stage did, as of the last mix call.
  public var meters: MixMeters { output.meters }

  /// Creates a mixer for `configuration` as ``Configuration/normalized`` puts it in range;
  /// allocates both FIFOs and its scratch.
  public init(_ configuration: Configuration = Configuration()) {
    let configuration = configuration.clamped
    self.configuration = configuration
    let ch = configuration.channelCount
    app = MixerInput(
      capacity: configuration.capacityFrames, channelCount: ch, gainDB: configuration.appGainDB)
    mic = MixerInput(
      capacity: configuration.capacityFrames, channelCount: ch, gainDB: configuration.micGainDB)
    scratchA = [Float](repeating: 0, count: Self.block * ch)
    scratchB = [Float](repeating: 0, count: Self.block * ch)
    output = MixOutput(
      policy: configuration.policy, ceilingDB: configuration.ceilingDB, lookaheadFrames: 0,
      sampleRate: 48_000)
  }

  /// Appends interleaved `samples` (``Configuration/channelCount`` channels, so
  /// `samples.count / channelCount` frames) to `side`; past capacity the oldest frames are
  /// dropped and counted, and while the side is disabled every frame is.
  ///
  /// - Complexity: O(frames); no allocation.
  public mutating func append(_ side: Side, samples: UnsafeBufferPointer<Float>) {
    switch side {
    case .app: app.append(samples)
    case .mic: mic.append(samples)
    }
  }

  /// Sets `side`'s gain in dB (0 dB is exactly 1, so 0 dB mixes stay bit-exact) and records it
  /// in ``configuration``; NaN is taken as 0 dB.
  public mutating func setGain(_ side: Side, dB: Double) {
    let dB = dB.isNaN ? 0 : dB
    switch side {
    case .app:
      app.setGain(dB: dB)
      configuration.appGainDB = dB
    case .mic:
      mic.setGain(dB: dB)
      configuration.micGainDB = dB
    }
  }

  /// Enables or disables a source. Disabling drops (and counts) what it had buffered.
  public mutating func setEnabled(_ side: Side, _ enabled: Bool) {
    switch side {
    case .app:
      if !enabled { app.dropAll() }
      app.isEnabled = enabled
    case .mic:
      if !enabled { mic.dropAll() }
      mic.isEnabled = enabled
    }
  }

  /// Frames the next mix call would emit given room for all of them.
  public var availableFrames: Int {
    let plan = _plan()
    return plan.both + plan.appAlone + plan.micAlone
  }

  /// Bytes of sample storage the mixer holds.
  public var retainedBytes: Int {
    (2 * configuration.capacityFrames * configuration.channelCount + scratchA.count
      + scratchB.count) * MemoryLayout<Float>.size
  }

  /// Mixes as many frames as are ready and fit into `output` (interleaved Float32), returning
  /// the frames written.
  ///
  /// - Complexity: O(frames written); no allocation.
  public mutating func mix(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    let ch = configuration.channelCount
    let room = output.count / ch
    return _mix(room) { offset, block, frames in
      (output.baseAddress! + offset * ch).update(from: block, count: frames * ch)
    }
  }

  /// Mixes as many frames as are ready and fit into `output` (interleaved int16; see
  /// ``PCMEncoder`` for the rounding), returning the frames written.
  ///
  /// - Complexity: O(frames written); no allocation.
  public mutating func mix(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
    let ch = configuration.channelCount
    let room = output.count / ch
    return _mix(room) { offset, block, frames in
      PCMEncoder.int16(block, count: frames * ch, into: output.baseAddress! + offset * ch)
    }
  }

  /// How many frames go out mixed, and alone for each side.
  func _plan() -> (both: Int, appAlone: Int, micAlone: Int) {
    let a = app.isEnabled ? app.buffered : 0
    let b = mic.isEnabled ? mic.buffered : 0
    switch (app.isEnabled, mic.isEnabled) {
    case (true, true):
      let n = min(a, b)
      return (n, max(0, a - n - lagBound(for: .app)), max(0, b - n - lagBound(for: .mic)))
    case (true, false): return (0, a, 0)
    case (false, true): return (0, 0, b)
    case (false, false): return (0, 0, 0)
    }
  }

  /// Frames `side` may hold beyond the other before its frames go out against silence:
  /// ``Configuration/maxLagFrames`` plus the largest burst either source delivers between mix
  /// calls (so a source that delivers 512 ms at once is not taken for stalled), but never so much
  /// that this side's own next burst would overflow its capacity.
  func lagBound(for side: Side) -> Int {
    let (x, other) = side == .app ? (app, mic) : (mic, app)
    let own = max(x.largestBurst, x.framesSinceMix)
    let theirs = max(other.largestBurst, other.framesSinceMix)
    let tolerant = configuration.maxLagFrames + max(own, theirs)
    return max(0, min(tolerant, configuration.capacityFrames - own))
  }

  /// Runs the plan in blocks, handing each finished block of floats to `emit`.
  mutating func _mix(
    _ room: Int, _ emit: (_ offset: Int, _ block: UnsafePointer<Float>, _ frames: Int) -> Void
  ) -> Int {
    app.endBurst()
    mic.endBurst()
    let plan = _plan()
    let both = min(plan.both, room)
    let appAlone = min(plan.appAlone, room - both)
    let micAlone = min(plan.micAlone, room - both - appAlone)
    let solo = !(app.isEnabled && mic.isEnabled)
    var written = 0
    var a = scratchA
    var b = scratchB
    scratchA = []
    scratchB = []
    a.withUnsafeMutableBufferPointer { bufA in
      b.withUnsafeMutableBufferPointer { bufB in
        let pa = bufA.baseAddress!
        let pb = bufB.baseAddress!
        func run(_ total: Int, _ sources: _Sources) {
          var left = total
          while left > 0 {
            let n = min(left, Self.block)
            _block(sources, n, pa, pb, solo: solo)
            emit(written, pa, n)
            written += n
            left -= n
          }
        }
        run(both, .both)
        run(appAlone, .appAlone)
        run(micAlone, .micAlone)
      }
    }
    scratchA = a
    scratchB = b
    app.counters.framesMixed += both
    mic.counters.framesMixed += both
    app.counters.framesAlone += appAlone
    mic.counters.framesAlone += micAlone
    if !solo {
      mic.counters.framesPadded += appAlone
      app.counters.framesPadded += micAlone
    }
    app.counters.framesBuffered = app.buffered
    mic.counters.framesBuffered = mic.buffered
    return written
  }

  /// Which sources one stretch of the plan takes frames from.
  enum _Sources { case both, appAlone, micAlone }

  /// Mixes `n` frames of `sources` into `pa` (`pb` is the second source's scratch).
  mutating func _block(
    _ sources: _Sources, _ n: Int, _ pa: UnsafeMutablePointer<Float>,
    _ pb: UnsafeMutablePointer<Float>,
    solo: Bool
  ) {
    let count = n * configuration.channelCount
    let stereo = configuration.channelCount == 2
    // A source alone while the other is disabled passes at its own gain; one alone because the
    // other stalled is mixed with silence by the policy.
    let half: Float = configuration.policy != .average || solo ? 1 : 0.5
    switch sources {
    case .both:
      let (ga, gb) = (app.gain, mic.gain)
      if stereo {
        // One pass, read straight from both FIFOs: both sources metered, mixed, the mix
        // measured; a run ends where either FIFO wraps.
        var m = KernelMix()
        m.mix(MixKernel.current, into: pa, app.fifo, mic.fifo, frames: n, ga, gb, half)
        output.meterSources(frames: n, m) { side in
          // Rare: a source past full scale or not finite. `pb` is free for it.
          (side == .app ? app : mic).fifo.peek(n, into: pb)
          return UnsafePointer(pb)
        }
        app.fifo.discard(n)
        mic.fifo.discard(n)
        output.finish(pa, frames: n, measured: m)
        return
      }
      app.fifo.peek(n, into: pa)
      mic.fifo.peek(n, into: pb)
      app.fifo.discard(n)
      mic.fifo.discard(n)
      for i in 0..<count { pa[i] = (pa[i] * ga + pb[i] * gb) * half }
    case .appAlone, .micAlone:
      let g: Float
      if sources == .appAlone {
        app.fifo.peek(n, into: pa)
        app.fifo.discard(n)
        g = app.gain
        if stereo { output.appMeter.measure(pa, frames: n, channels: 2) }
      } else {
        mic.fifo.peek(n, into: pa)
        mic.fifo.discard(n)
        g = mic.gain
        if stereo { output.micMeter.measure(pa, frames: n, channels: 2) }
      }
      for i in 0..<count { pa[i] = pa[i] * g * half }
    }
    if stereo {
      output.finish(pa, frames: n)
    } else if configuration.policy != .average {
      // Other channel counts (not the capture pipeline's): clamped, unmetered.
      for i in 0..<count { pa[i] = min(max(pa[i], -1), 1) }
    }
  }
}
