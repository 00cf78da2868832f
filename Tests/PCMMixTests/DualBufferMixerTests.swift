import Foundation
import Testing

@testable import PCMMix

/// The mixer's contract on interleaved stereo Float32 at the output rate: what comes out, when,
/// at what level, and how every frame is accounted for.
@Suite struct DualBufferMixerTests {
  typealias Side = DualBufferMixer.Side

  // MARK: Frames that say where they came from

  /// Frames are numbered per side from 0 in append order; a frame's samples are a function of
  /// its number, side and channel, so any output sample shows which frames made it. App samples
  /// are multiples of 2⁻¹² below 0.5, mic samples multiples of 2⁻²⁴ below 2⁻¹³, so every sum,
  /// half and difference of them is exact in Float32 and no two frames of a 2048-frame run look
  /// alike. Left and right differ on both sides.
  static func sample(_ side: Side, frame: Int, channel: Int) -> Float {
    switch (side, channel) {
    case (.app, 0): Float(frame & 2047) * 0x1p-12
    case (.app, _): -Float((frame &* 7 &+ 3) & 2047) * 0x1p-12
    case (.mic, 0): Float(frame & 2047) * 0x1p-24
    case (.mic, _): -Float((frame &* 5 &+ 1) & 2047) * 0x1p-24
    }
  }

  /// Numbered frames of both sides, long enough to slice any append of up to 30,000 frames.
  static let numbered: [[Float]] = [Side.app, .mic].map { side in
    (0..<(2048 + 30_000)).flatMap { f in
      [sample(side, frame: f, channel: 0), sample(side, frame: f, channel: 1)]
    }
  }

  /// Appends `count` numbered frames, starting at frame `first`, to one side.
  static func push(_ mixer: inout DualBufferMixer, _ side: Side, first: Int, count: Int) {
    precondition(count <= 30_000)
    let table = numbered[side == .app ? 0 : 1]
    table.withUnsafeBufferPointer { t in
      let start = (first & 2047) * 2
      let frames = UnsafeBufferPointer(rebasing: t[start..<(start + count * 2)])
      switch side {
      case .app: mixer.app.append(frames)
      case .mic: mixer.mic.append(frames)
      }
    }
  }

  /// Appends literal interleaved samples to one side.
  static func push(_ mixer: inout DualBufferMixer, _ side: Side, _ samples: [Float]) {
    samples.withUnsafeBufferPointer { s in
      switch side {
      case .app: mixer.app.append(s)
      case .mic: mixer.mic.append(s)
      }
    }
  }

  /// Mixes into a Float32 buffer with room for `room` frames (by default more than both sides
  /// hold); returns the samples written.
  static func mixFloat(_ mixer: inout DualBufferMixer, room: Int? = nil) -> [Float] {
    let room = room ?? mixer.app.buffered + mixer.mic.buffered + 1
    var out = [Float](repeating: .nan, count: room * 2)
    var n = out.withUnsafeMutableBufferPointer { mixer.mix(into: $0) }
    #expect(n <= room, "mix claims more frames than fit")
    n = min(n, room)
    #expect(out[(n * 2)...].allSatisfy { $0.isNaN }, "mix wrote past the frames it returned")
    return Array(out[..<(n * 2)])
  }

  /// Mixes into an int16 buffer with room for `room` frames (by default more than both sides
  /// hold); returns the samples written.
  static func mixInt16(_ mixer: inout DualBufferMixer, room: Int? = nil) -> [Int16] {
    let room = room ?? mixer.app.buffered + mixer.mic.buffered + 1
    var out = [Int16](repeating: 0x5A5A, count: room * 2)
    var n = out.withUnsafeMutableBufferPointer { mixer.mix(into: $0) }
    #expect(n <= room, "mix claims more frames than fit")
    n = min(n, room)
    return Array(out[..<(n * 2)])
  }

  /// Where two outputs first differ, or nil when equal; keeps a failure's message short.
  static func mismatch<T: Equatable>(_ a: [T], _ b: [T]) -> String? {
    if let i = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) {
      return "sample \(i): \(a[i]) vs \(b[i]) (\(a.count) vs \(b.count) samples)"
    }
    return a.count == b.count ? nil : "\(a.count) vs \(b.count) samples"
  }

  static func linear(_ dB: Double) -> Float { dB == 0 ? 1 : Float(pow(10, dB / 20)) }

  // MARK: A reference model

  /// What the contract says the mixer does, written without rings: each side's buffered frames
  /// are always a run of consecutive frame numbers, so a count and the next number describe it.
  ///
  /// The lag bound is the documented one: `maxLagFrames` beyond the largest burst either side
  /// has delivered between two mix calls (the current one included), capped at capacity.
  struct Model {
    struct SideState {
      var next = 0
      var count = 0
      var enabled = true
      var counters = MixCounters()
      /// Frames appended since the last mix call, and the most between two over the last one
      /// to two windows of `MixerInput.burstWindow` mix calls.
      var sinceMix = 0
      var burstThisWindow = 0
      var burstLastWindow = 0
      var mixes = 0
      var largestBurst: Int { max(burstThisWindow, burstLastWindow) }
      var first: Int { next - count }
    }

    let configuration: DualBufferMixer.Configuration
    var app = SideState()
    var mic = SideState()
    var written = 0

    init(_ configuration: DualBufferMixer.Configuration) { self.configuration = configuration }

    subscript(side: Side) -> SideState {
      get { side == .app ? app : mic }
      set {
        if side == .app { app = newValue } else { mic = newValue }
      }
    }

    /// Records an append of `n` frames numbered from `self[side].next`.
    mutating func append(_ side: Side, _ n: Int) {
      var s = self[side]
      s.next += n
      s.counters.framesIn += n
      if s.enabled {
        s.sinceMix += n
        s.count += n
        let over = max(0, s.count - configuration.capacityFrames)
        s.count -= over
        s.counters.framesDropped += over
      } else {
        s.counters.framesDropped += n
      }
      s.counters.framesBuffered = s.count
      self[side] = s
    }

    mutating func setEnabled(_ side: Side, _ enabled: Bool) {
      var s = self[side]
      if !enabled {
        s.counters.framesDropped += s.count
        s.count = 0
        s.counters.framesBuffered = 0
      }
      s.enabled = enabled
      self[side] = s
    }

    /// maxLag beyond the largest burst of either side, less than capacity by this side's burst.
    func lagBound(for side: Side) -> Int {
      let (x, other) = side == .app ? (app, mic) : (mic, app)
      let own = max(x.largestBurst, x.sinceMix)
      let theirs = max(other.largestBurst, other.sinceMix)
      let tolerant = configuration.maxLagFrames + max(own, theirs)
      return max(0, min(tolerant, configuration.capacityFrames - own))
    }

    /// Frames out mixed, app alone, mic alone, with unlimited room.
    var plan: (both: Int, app: Int, mic: Int) {
      switch (app.enabled, mic.enabled) {
      case (true, true):
        let n = min(app.count, mic.count)
        return (
          n, max(0, app.count - n - lagBound(for: .app)),
          max(0, mic.count - n - lagBound(for: .mic))
        )
      case (true, false): return (0, app.count, 0)
      case (false, true): return (0, 0, mic.count)
      case (false, false): return (0, 0, 0)
      }
    }

    /// The samples a mix with room for `room` frames must write, and the state after it.
    mutating func mix(room: Int) -> [Float] {
      for side in [Side.app, .mic] {
        var s = self[side]
        s.burstThisWindow = max(s.burstThisWindow, min(s.sinceMix, configuration.capacityFrames))
        s.sinceMix = 0
        s.mixes += 1
        if s.mixes == MixerInput.burstWindow {
          (s.burstLastWindow, s.burstThisWindow, s.mixes) = (s.burstThisWindow, 0, 0)
        }
        self[side] = s
      }
      let p = plan
      let both = min(p.both, room)
      let appAlone = min(p.app, room - both)
      let micAlone = min(p.mic, room - both - appAlone)
      let solo = !(app.enabled && mic.enabled)
      let saturate = configuration.policy == .saturate
      // `limit` is the plain sum below its ceiling, where these tests' signals stay.
      let half: Float = configuration.policy != .average || solo ? 1 : 0.5
      let ga = linear(configuration.appGainDB)
      let gm = linear(configuration.micGainDB)
      func finish(_ x: Float) -> Float { saturate ? min(max(x, -1), 1) : x }
      var out: [Float] = []
      out.reserveCapacity((both + appAlone + micAlone) * 2)
      for f in 0..<both {
        for c in 0..<2 {
          let a = sample(.app, frame: app.first + f, channel: c)
          let b = sample(.mic, frame: mic.first + f, channel: c)
          out.append(finish((a * ga + b * gm) * half))
        }
      }
      app.count -= both
      mic.count -= both
      for f in 0..<appAlone {
        for c in 0..<2 {
          out.append(finish(sample(.app, frame: app.first + f, channel: c) * ga * half))
        }
      }
      app.count -= appAlone
      for f in 0..<micAlone {
        for c in 0..<2 {
          out.append(finish(sample(.mic, frame: mic.first + f, channel: c) * gm * half))
        }
      }
      mic.count -= micAlone
      app.counters.framesMixed += both
      mic.counters.framesMixed += both
      app.counters.framesAlone += appAlone
      mic.counters.framesAlone += micAlone
      if !solo {
        mic.counters.framesPadded += appAlone
        app.counters.framesPadded += micAlone
      }
      app.counters.framesBuffered = app.count
      mic.counters.framesBuffered = mic.count
      written += both + appAlone + micAlone
      return out
    }
  }

  // MARK: Shorter side decides, the rest waits

  @Test(arguments: [UInt64(1), 2, 3])
  func emitsMinimumAndKeepsTheRestInOrder(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed)
    let config = DualBufferMixer.Configuration(capacityFrames: 48_000, maxLagFrames: 48_000)
    var mixer = DualBufferMixer(config)
    var model = Model(config)
    for round in 0..<300 {
      for side in [Side.app, .mic] {
        let n = Int.random(in: 0...1500, using: &rng)
        Self.push(&mixer, side, first: model[side].next, count: n)
        model.append(side, n)
      }
      let (a, b) = (mixer.app.buffered, mixer.mic.buffered)
      try #require(abs(a - b) <= config.maxLagFrames, "schedule left the lag bound")
      let out = Self.mixFloat(&mixer)
      #expect(out.count / 2 == min(a, b), "round \(round)")
      // The frames kept from last time come first, in order, each once, paired frame by frame.
      #expect(Self.mismatch(out, model.mix(room: .max)) == nil, "round \(round)")
      #expect(mixer.app.buffered == a - min(a, b))
      #expect(mixer.mic.buffered == b - min(a, b))
      #expect(mixer.app.counters.framesAlone == 0 && mixer.mic.counters.framesAlone == 0)
    }
  }

  @Test func keptFramesLeadTheNextMix() throws {
    var mixer = DualBufferMixer()
    Self.push(&mixer, .app, first: 0, count: 1024)
    Self.push(&mixer, .mic, first: 0, count: 700)
    #expect(Self.mixFloat(&mixer).count == 700 * 2)
    #expect(mixer.app.buffered == 324)
    Self.push(&mixer, .mic, first: 700, count: 1024)
    let out = Self.mixFloat(&mixer)
    try #require(out.count == 324 * 2)
    // App frames 700 … 1023 with mic frames 700 … 1023.
    for f in 0..<324 {
      let expectedL =
        (Self.sample(.app, frame: 700 + f, channel: 0)
          + Self.sample(.mic, frame: 700 + f, channel: 0)) * 0.5
      #expect(out[2 * f] == expectedL, "frame \(f)")
    }
    #expect(mixer.mic.buffered == 700)
  }

  // MARK: No 6 dB jump

  /// The reference pushed app frames past `n = min(app, mic)` out unmixed, at twice the level of
  /// the mixed frames before them. Here every app frame comes out at the same level, mixed or
  /// against silence past the lag.
  @Test(arguments: MixPolicy.allCases)
  func framesPastTheShorterSideAreNotEmittedUnmixed(policy: MixPolicy) {
    var mixer = DualBufferMixer(.init(policy: policy))
    let level: Float = policy == .average ? 0.5 : 1
    let app = [Float](repeating: 0.5, count: 1024 * 2)
    let silence = [Float](repeating: 0, count: 512 * 2)
    var total = 0
    for round in 0..<30 {
      Self.push(&mixer, .app, app)
      Self.push(&mixer, .mic, silence)
      let out = Self.mixFloat(&mixer)
      if round == 0 { #expect(out.count == 512 * 2, "only the frames both sides have") }
      #expect(out.allSatisfy { $0 == 0.5 * level }, "round \(round): a level jump")
      total += out.count / 2
    }
    // The app runs ahead by 512 frames a round; past the lag bound (100 ms beyond its
    // 1024-frame deliveries) it goes out against silence, at the same level.
    let bound = 4800 + 1024
    #expect(mixer.lagBound(for: .app) == bound)
    #expect(mixer.app.counters.framesMixed == 30 * 512)
    #expect(mixer.app.counters.framesAlone == 30 * 512 - bound)
    #expect(total == 30 * 1024 - bound)
  }

  /// One huge delivery raises the stall bound only for a while: after two windows of mix calls
  /// the bound is back to the lag beyond the ordinary bursts.
  @Test func largestBurstForgetsAnOutlier() {
    var mixer = DualBufferMixer()
    Self.push(&mixer, .app, [Float](repeating: 0.1, count: 40_000 * 2))
    Self.push(&mixer, .mic, [Float](repeating: 0.1, count: 40_000 * 2))
    _ = Self.mixFloat(&mixer)
    #expect(mixer.app.largestBurst == 40_000)
    for _ in 0..<(2 * MixerInput.burstWindow) {
      Self.push(&mixer, .app, [Float](repeating: 0.1, count: 64 * 2))
      Self.push(&mixer, .mic, [Float](repeating: 0.1, count: 64 * 2))
      _ = Self.mixFloat(&mixer)
    }
    #expect(mixer.app.largestBurst == 64)
    #expect(mixer.lagBound(for: .app) == mixer.configuration.maxLagFrames + 64)
  }

  // MARK: Stall

  @Test(arguments: MixPolicy.allCases)
  func micStallKeepsAppFlowingWithinTheLag(policy: MixPolicy) {
    let config = DualBufferMixer.Configuration(policy: policy)
    var mixer = DualBufferMixer(config)
    var model = Model(config)
    // Deliveries are 1024 frames, so the lag bound is 100 ms beyond that.
    let bound = config.maxLagFrames + 1024
    func round(app: Bool, mic: Bool) -> Int {
      if app {
        Self.push(&mixer, .app, first: model.app.next, count: 1024)
        model.append(.app, 1024)
      }
      if mic {
        Self.push(&mixer, .mic, first: model.mic.next, count: 1024)
        model.append(.mic, 1024)
      }
      let out = Self.mixFloat(&mixer)
      #expect(Self.mismatch(out, model.mix(room: .max)) == nil)
      #expect(mixer.app.counters == model.app.counters)
      #expect(mixer.mic.counters == model.mic.counters)
      #expect(mixer.lagBound(for: .app) == bound)
      #expect(mixer.app.buffered <= bound, "app holds more than the lag bound")
      return out.count / 2
    }
    for _ in 0..<10 { #expect(round(app: true, mic: true) == 1024) }
    // The mic stalls: app frames wait up to the lag bound, then flow against silence.
    var stalled = 0
    for i in 0..<50 {
      let n = round(app: true, mic: false)
      stalled += n
      if i * 1024 >= bound { #expect(n == 1024, "output stopped") }
    }
    #expect(stalled == 50 * 1024 - bound)
    #expect(mixer.app.buffered == bound)
    #expect(mixer.app.counters.framesAlone == stalled)
    #expect(mixer.mic.counters.framesPadded == stalled)
    #expect(mixer.mic.counters.framesAlone == 0)
    #expect(mixer.app.counters.framesPadded == 0)
    #expect(mixer.app.counters.framesDropped == 0)
    #expect(Self.mixFloat(&mixer).isEmpty, "the lag's worth of frames waits for the mic")
    // The mic returns: mixing resumes.
    let mixedBefore = mixer.app.counters.framesMixed
    for _ in 0..<10 { #expect(round(app: true, mic: true) == 1024) }
    #expect(mixer.app.counters.framesMixed == mixedBefore + 10 * 1024)
    #expect(mixer.app.counters.framesAlone == stalled)
  }

  /// One large delivery (here 0.94 s, as after the extension was held up) must not turn the
  /// stall bound off: when the mic then stalls, the app must still flow against silence, not
  /// pile up to capacity and lose its oldest frames with nothing emitted.
  @Test func stallAfterOneLargeDeliveryStillFlowsWithoutDrops() {
    var mixer = DualBufferMixer()
    let big = 45_000
    var (appNext, micNext) = (0, 0)
    for (side, count) in [(Side.app, big), (.mic, big)] {
      var left = count
      while left > 0 {
        let n = min(left, 30_000)
        let first = side == .app ? appNext : micNext
        Self.push(&mixer, side, first: first, count: n)
        if side == .app { appNext += n } else { micNext += n }
        left -= n
      }
    }
    #expect(Self.mixFloat(&mixer).count == big * 2)
    var flowing = 0
    for _ in 0..<100 {
      Self.push(&mixer, .app, first: appNext, count: 1024)
      appNext += 1024
      if !Self.mixFloat(&mixer).isEmpty { flowing += 1 }
    }
    #expect(mixer.app.counters.framesDropped == 0, "app frames dropped during a mic stall")
    #expect(flowing > 50, "app output stopped during a mic stall")
    #expect(mixer.app.buffered < mixer.configuration.capacityFrames)
  }

  /// ReplayKit delivers app audio in 512 ms bursts (22,596 frames at 44.1 kHz, 24,594 at
  /// 48 kHz). When the mic stalls meanwhile, each burst must still fit: the app side may not
  /// hold so much after a mix that the next burst overflows its capacity.
  @Test func micStallDuringReplayKitBurstsDropsNoAppFrames() {
    var mixer = DualBufferMixer()
    let burst = RateRatio.outputFrames(
      forInputFrames: 22_596, inputRate: 44_100, outputRate: 48_000)
    var (appNext, micNext) = (0, 0)
    func app() {
      Self.push(&mixer, .app, first: appNext, count: burst)
      appNext += burst
      _ = Self.mixFloat(&mixer)
    }
    // Both running: a burst every 512 ms, the mic in 1024-frame buffers meanwhile.
    for _ in 0..<4 {
      app()
      for _ in 0..<24 {
        Self.push(&mixer, .mic, first: micNext, count: 1024)
        micNext += 1024
        _ = Self.mixFloat(&mixer)
      }
    }
    #expect(mixer.app.counters.framesDropped == 0 && mixer.mic.counters.framesDropped == 0)
    // The mic stalls for three seconds.
    for _ in 0..<6 { app() }
    #expect(mixer.app.counters.framesDropped == 0, "app frames dropped during a mic stall")
    #expect(mixer.app.counters.framesAlone > 0, "app frames did not flow during the stall")
  }

  @Test(arguments: MixPolicy.allCases)
  func stalledFramesAreMixedWithSilenceByThePolicy(policy: MixPolicy) {
    // 50-frame deliveries, 100 frames of lag: the bound is 150 frames.
    var mixer = DualBufferMixer(.init(maxLagFrames: 100, policy: policy))
    let level: Float = policy == .average ? 0.25 : 0.5
    var out: [Float] = []
    for _ in 0..<10 {
      Self.push(&mixer, .app, [Float](repeating: 0.5, count: 50 * 2))
      out += Self.mixFloat(&mixer)
    }
    #expect(mixer.lagBound(for: .app) == 150)
    #expect(out.count == (500 - 150) * 2)
    #expect(out.allSatisfy { $0 == level }, "against silence: average x / 2, saturate x")
    #expect(mixer.app.counters.framesAlone == 350)
    #expect(mixer.mic.counters.framesPadded == 350)
    // The same from the mic side.
    var other = DualBufferMixer(.init(maxLagFrames: 100, policy: policy))
    var micOut: [Float] = []
    for _ in 0..<10 {
      Self.push(&other, .mic, [Float](repeating: -0.5, count: 50 * 2))
      micOut += Self.mixFloat(&other)
    }
    #expect(micOut.count == (500 - 150) * 2)
    #expect(micOut.allSatisfy { $0 == -level })
    #expect(other.mic.counters.framesAlone == 350)
    #expect(other.app.counters.framesPadded == 350)
  }

  // MARK: Capacity

  @Test(arguments: [[1500], [600, 600, 300], [999, 1, 500], [2500]])
  func overflowDropsTheOldestFrames(appends: [Int]) throws {
    let config = DualBufferMixer.Configuration(capacityFrames: 1000, maxLagFrames: 1000)
    var mixer = DualBufferMixer(config)
    var first = 0
    for n in appends {
      Self.push(&mixer, .app, first: first, count: n)
      first += n
    }
    let total = appends.reduce(0, +)
    #expect(mixer.app.buffered == 1000)
    #expect(mixer.app.counters.framesDropped == total - 1000)
    #expect(mixer.app.counters.framesIn == total)
    #expect(mixer.app.counters.framesBuffered == 1000)
    Self.push(&mixer, .mic, first: 0, count: 1000)
    let out = Self.mixFloat(&mixer)
    try #require(out.count == 1000 * 2)
    // The newest 1000 app frames survive, in order.
    for f in 0..<1000 {
      let a = Self.sample(.app, frame: total - 1000 + f, channel: 0)
      let b = Self.sample(.mic, frame: f, channel: 0)
      #expect(out[2 * f] == (a + b) * 0.5, "frame \(f)")
      if out[2 * f] != (a + b) * 0.5 { break }
    }
  }

  // MARK: Disabled sources

  @Test(arguments: [Side.app, .mic])
  func disabledSourceIsDroppedAndTheOtherPassesAtItsOwnGain(off: Side) throws {
    let on: Side = off == .app ? .mic : .app
    let config = DualBufferMixer.Configuration(appGainDB: -6, micGainDB: 3)
    var mixer = DualBufferMixer(config)
    var model = Model(config)
    func push(_ side: Side, _ n: Int) {
      Self.push(&mixer, side, first: model[side].next, count: n)
      model.append(side, n)
    }
    func check(_ label: String) {
      #expect(mixer.app.counters == model.app.counters, "\(label)")
      #expect(mixer.mic.counters == model.mic.counters, "\(label)")
    }
    push(off, 300)
    push(on, 100)
    #expect(Self.mismatch(Self.mixFloat(&mixer), model.mix(room: .max)) == nil)
    let side = { (m: DualBufferMixer) in off == .app ? m.app : m.mic }
    #expect(side(mixer).buffered == 200)
    mixer.setEnabled(off, false)
    model.setEnabled(off, false)
    #expect(side(mixer).buffered == 0)
    #expect(side(mixer).counters.framesDropped == 200, "buffered frames dropped and counted")
    push(off, 500)
    #expect(side(mixer).counters.framesDropped == 700, "frames appended while off counted")
    #expect(side(mixer).counters.framesIn == 800)
    push(on, 1000)
    let solo = Self.mixFloat(&mixer)
    try #require(solo.count == 1000 * 2)
    #expect(Self.mismatch(solo, model.mix(room: .max)) == nil)
    // Full level times its own gain, not halved.
    let g = Self.linear(on == .app ? -6 : 3)
    let first = model[on].next - 1000
    for f in [0, 1, 500, 999] {
      #expect(solo[2 * f] == Self.sample(on, frame: first + f, channel: 0) * g)
      #expect(solo[2 * f + 1] == Self.sample(on, frame: first + f, channel: 1) * g)
    }
    check("while off")
    // Back on: mixing resumes.
    mixer.setEnabled(off, true)
    model.setEnabled(off, true)
    push(off, 400)
    push(on, 400)
    let resumed = Self.mixFloat(&mixer)
    #expect(resumed.count == 400 * 2)
    #expect(Self.mismatch(resumed, model.mix(room: .max)) == nil)
    check("back on")
  }

  @Test func disabledSourceAloneStillStopsAtRoom() {
    var mixer = DualBufferMixer()
    mixer.setEnabled(.mic, false)
    Self.push(&mixer, .app, first: 0, count: 1000)
    #expect(mixer.availableFrames == 1000)
    #expect(Self.mixFloat(&mixer, room: 300).count == 300 * 2)
    #expect(mixer.app.buffered == 700)
    mixer.setEnabled(.app, false)
    #expect(mixer.availableFrames == 0)
    #expect(Self.mixFloat(&mixer).isEmpty)
    #expect(mixer.app.counters.framesDropped == 700)
  }

  // MARK: Gains

  @Test func gainsScaleAsDecibels() {
    var mixer = DualBufferMixer(.init(appGainDB: -6, micGainDB: 3))
    #expect(abs(Double(mixer.app.gain) - pow(10, -6.0 / 20)) < 1e-7)
    #expect(abs(Double(mixer.mic.gain) - pow(10, 3.0 / 20)) < 1e-7)
    Self.push(&mixer, .app, [Float](repeating: 0.5, count: 64 * 2))
    Self.push(&mixer, .mic, [Float](repeating: 0, count: 64 * 2))
    let a = Self.mixFloat(&mixer)
    for x in a { #expect(abs(Double(x) - 0.25 * pow(10, -6.0 / 20)) < 1e-7) }
    Self.push(&mixer, .app, [Float](repeating: 0, count: 64 * 2))
    Self.push(&mixer, .mic, [Float](repeating: 0.5, count: 64 * 2))
    let b = Self.mixFloat(&mixer)
    for x in b { #expect(abs(Double(x) - 0.25 * pow(10, 3.0 / 20)) < 1e-7) }
    #expect(a.count == 128 && b.count == 128)
    mixer.setGain(.app, dB: 0)
    #expect(mixer.app.gain == 1)
  }

  @Test func zeroDecibelAverageIsBitExact() {
    var rng = SplitMix64(seed: 7)
    var mixer = DualBufferMixer()
    let n = 4096
    let a = (0..<(n * 2)).map { _ in Int16.random(in: .min ... .max, using: &rng) }
    let b = (0..<(n * 2)).map { _ in Int16.random(in: .min ... .max, using: &rng) }
    // Corners: the extremes, and odd sums of both signs.
    let corners: [(Int16, Int16)] = [
      (.max, .max), (.min, .min), (.max, .min), (1, 0), (-1, 0), (1, 2), (-1, -2), (0, 0),
    ]
    var ai = a
    var bi = b
    for (i, (x, y)) in corners.enumerated() {
      ai[i] = x
      bi[i] = y
    }
    let af = ai.map { Float($0) / 32768 }
    let bf = bi.map { Float($0) / 32768 }
    Self.push(&mixer, .app, af)
    Self.push(&mixer, .mic, bf)
    let float = Self.mixFloat(&mixer)
    #expect(Self.mismatch(float, zip(ai, bi).map { Float(Int32($0) + Int32($1)) / 65536 }) == nil)
    Self.push(&mixer, .app, af)
    Self.push(&mixer, .mic, bf)
    let int = Self.mixInt16(&mixer)
    // C's (a + b) / 2 in int: truncation toward zero.
    #expect(Self.mismatch(int, zip(ai, bi).map { Int16((Int32($0) + Int32($1)) / 2) }) == nil)
  }

  // MARK: Saturation

  @Test func saturateClampsInFloatAndInt16() {
    let app: [Float] = [0.9, -0.9, 0.5, -0.5, 0.25, -0.25, 1, -1]
    let mic: [Float] = [0.8, -0.8, 0.5, -0.5, 0.25, -0.25, 1, -1]
    let sums: [Float] = [1, -1, 1, -1, 0.5, -0.5, 1, -1]
    var mixer = DualBufferMixer(.init(policy: .saturate))
    Self.push(&mixer, .app, app)
    Self.push(&mixer, .mic, mic)
    #expect(Self.mixFloat(&mixer) == sums)
    Self.push(&mixer, .app, app)
    Self.push(&mixer, .mic, mic)
    #expect(
      Self.mixInt16(&mixer) == [32767, -32768, 32767, -32768, 16384, -16384, 32767, -32768])
    // Alone, a loud gain clamps too.
    var loud = DualBufferMixer(.init(policy: .saturate, appGainDB: 12))
    loud.setEnabled(.mic, false)
    Self.push(&loud, .app, [0.5, -0.5, 0.1, -0.1])
    let out = Self.mixFloat(&loud)
    #expect(out[0] == 1 && out[1] == -1)
    #expect(abs(Double(out[2]) - 0.1 * pow(10, 12.0 / 20)) < 1e-6)
    #expect(out.allSatisfy { (-1...1).contains($0) })
  }

  @Test func int16OutputClampsWhateverThePolicy() {
    var mixer = DualBufferMixer(.init(appGainDB: 12, micGainDB: 12))
    Self.push(&mixer, .app, [0.9, -0.9])
    Self.push(&mixer, .mic, [0.9, -0.9])
    #expect(Self.mixInt16(&mixer) == [32767, -32768])
  }

  // MARK: Channels

  @Test(arguments: MixPolicy.allCases)
  func leftStaysLeft(policy: MixPolicy) {
    let app: [Float] = [0.5, 0.125]
    let mic: [Float] = [0.25, -0.5]
    let k: Float = policy == .average ? 0.5 : 1
    let config = DualBufferMixer.Configuration(maxLagFrames: 0, policy: policy)
    var mixer = DualBufferMixer(config)
    Self.push(&mixer, .app, app)
    Self.push(&mixer, .mic, mic)
    #expect(Self.mixFloat(&mixer) == [0.75 * k, -0.375 * k], "mixed")
    Self.push(&mixer, .app, app)
    Self.push(&mixer, .mic, mic)
    let int = Self.mixInt16(&mixer)
    #expect(int == [PCMEncoder.int16(0.75 * k), PCMEncoder.int16(-0.375 * k)], "mixed, int16")
    // One side against silence: one-frame deliveries make the lag bound one frame, so the
    // first frame goes out when the second arrives.
    for (side, frame) in [(Side.app, app), (.mic, mic)] {
      var lone = DualBufferMixer(config)
      Self.push(&lone, side, frame)
      #expect(Self.mixFloat(&lone).isEmpty)
      Self.push(&lone, side, frame)
      #expect(Self.mixFloat(&lone) == frame.map { $0 * k }, "\(side) against silence")
    }
    mixer.setEnabled(.mic, false)
    Self.push(&mixer, .app, app)
    #expect(Self.mixFloat(&mixer) == app, "app alone")
  }

  // MARK: Invariants over random schedules

  @Test(arguments: 0..<8)
  func countersBalanceOverRandomSchedules(batch: Int) {
    var rng = SplitMix64(seed: 0xC0FFEE &+ UInt64(batch))
    // What the schedules reached, so a quiet generator cannot pass for a thorough one.
    var seen = MixCounters()
    var roomLimited = 0
    for schedule in 0..<250 {
      var config = DualBufferMixer.Configuration()
      let capacities = [1, 2, 3, 7, 64, 480, 1024, 4800, 48_000]
      config.capacityFrames =
        Bool.random(using: &rng)
        ? capacities.randomElement(using: &rng)! : Int.random(in: 1...60_000, using: &rng)
      switch Int.random(in: 0..<4, using: &rng) {
      case 0: config.maxLagFrames = 0
      case 1: config.maxLagFrames = config.capacityFrames
      default: config.maxLagFrames = Int.random(in: 0...config.capacityFrames, using: &rng)
      }
      // The policies the model mirrors sample for sample (`limit`'s limiter has its own tests,
      // LimiterTests and LimitPolicyTests; its plans and counters are these ones').
      config.policy = [MixPolicy.average, .saturate].randomElement(using: &rng)!
      config.appGainDB = [0, 0, -6, 3, 12].randomElement(using: &rng)!
      config.micGainDB = [0, 0, -6, 3, 12].randomElement(using: &rng)!
      var mixer = DualBufferMixer(config)
      var model = Model(config)
      var written = 0
      let label = "batch \(batch) schedule \(schedule) \(config)"
      for op in 0..<Int.random(in: 1...24, using: &rng) {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<5:
          let side: Side = Bool.random(using: &rng) ? .app : .mic
          let n = Self.randomSize(&rng)
          Self.push(&mixer, side, first: model[side].next, count: n)
          model.append(side, n)
        case 5..<9:
          let room = Self.randomSize(&rng)
          #expect(mixer.availableFrames == model.plan.both + model.plan.app + model.plan.mic)
          #expect(mixer.lagBound(for: .app) == model.lagBound(for: .app), "\(label) op \(op)")
          if room < model.plan.both + model.plan.app + model.plan.mic { roomLimited += 1 }
          let expected = model.mix(room: room)
          if Bool.random(using: &rng) {
            let out = Self.mixFloat(&mixer, room: room)
            written += out.count / 2
            #expect(Self.mismatch(out, expected) == nil, "\(label) op \(op)")
          } else {
            let out = Self.mixInt16(&mixer, room: room)
            written += out.count / 2
            #expect(Self.mismatch(out, expected.map(PCMEncoder.int16)) == nil, "\(label) op \(op)")
          }
        default:
          let side: Side = Bool.random(using: &rng) ? .app : .mic
          let enabled = Int.random(in: 0..<3, using: &rng) != 0
          mixer.setEnabled(side, enabled)
          model.setEnabled(side, enabled)
        }
        for (name, input, state) in [
          ("app", mixer.app, model.app), ("mic", mixer.mic, model.mic),
        ] {
          let c = input.counters
          #expect(
            c.framesIn == c.framesEmitted + c.framesDropped + c.framesBuffered,
            "\(label) op \(op) \(name): \(c)")
          #expect(c.framesBuffered == input.buffered, "\(label) op \(op) \(name)")
          #expect(input.buffered <= config.capacityFrames, "\(label) op \(op) \(name)")
          #expect(c == state.counters, "\(label) op \(op) \(name)")
        }
        let (a, m) = (mixer.app.counters, mixer.mic.counters)
        #expect(a.framesMixed == m.framesMixed)
        // Every frame written is one mixed pair or one lone frame, counted once.
        #expect(written == a.framesMixed + a.framesAlone + m.framesAlone, "\(label)")
        #expect(written == model.written)
      }
      for c in [mixer.app.counters, mixer.mic.counters] {
        seen.framesMixed += c.framesMixed
        seen.framesAlone += c.framesAlone
        seen.framesPadded += c.framesPadded
        seen.framesDropped += c.framesDropped
      }
    }
    #expect(seen.framesMixed > 0 && seen.framesAlone > 0 && seen.framesPadded > 0)
    #expect(seen.framesDropped > 0 && roomLimited > 0)
  }

  /// Append sizes and output room from 0 to 30,000 frames, mostly small.
  static func randomSize(_ rng: inout SplitMix64) -> Int {
    switch Int.random(in: 0..<10, using: &rng) {
    case 0..<6: Int.random(in: 0...1100, using: &rng)
    case 6..<9: Int.random(in: 0...6000, using: &rng)
    default: Int.random(in: 0...30_000, using: &rng)
    }
  }
}
