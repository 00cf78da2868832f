import Foundation
import PCMMix

// A capture simulator: what ReplayKit-like app and mic sources deliver, buffer by buffer, with
// their clocks, timestamps, delivery delays and glitches, plus the truth about every buffer.
//
// Model: a source captures samples on its own clock, `rate × (1 + clockPPM·1e-6)` frames per host
// second, from `start` to `end`, except inside pauses. Pauses and rate switches cut its capture
// into segments; in each segment sample n is captured at host time `segmentStart + n / trueRate`
// and carries the value of a signal defined on host time (markers, tone, noise). Buffers never
// cross a segment boundary (the last buffer of a segment may be short).

/// Which of the two capture streams an event belongs to: the app audio (ReplayKit `.audioApp`)
/// or the microphone (`.audioMic`), the pipeline's own sides.
public typealias CaptureSide = ClockedCapturePipeline.Side

/// One simulated capture source: its format, clock, buffering, timestamps, glitches and content.
///
/// Every field has a default, so a test sets only what it is about:
/// ```swift
/// var mic = SimulatedSource(rate: 48_000, channels: 1)
/// mic.clockPPM = 300
/// mic.markers = [1, 2, 3]
/// ```
public struct SimulatedSource: Sendable {
  /// The byte layout of delivered buffers (always interleaved).
  public enum Encoding: Sendable, Hashable {
    /// Signed 16-bit little-endian.
    case s16le
    /// Signed 16-bit big-endian (ReplayKit's app audio).
    case s16be
    /// IEEE 754 binary32 little-endian.
    case f32le
  }

  /// How captured frames are grouped into delivered buffers.
  public enum Buffering: Sendable, Hashable {
    /// Every buffer holds `frames` frames, delivered as soon as its last sample is captured.
    case fixed(frames: Int)
    /// Every buffer holds `frames` frames, delivered at the first tick of a `period`-second grid
    /// (anchored at the source's start) on or after its last sample is captured, as iOS 12
    /// delivered app audio (22,596 frames about every 0.512 s).
    case bursts(frames: Int, period: Double)

    /// Frames in one full buffer.
    public var frames: Int {
      switch self {
      case .fixed(let frames), .bursts(let frames, _): frames
      }
    }
  }

  /// Nominal sample rate, the one the stream descriptions state (until a rate switch).
  public var rate: Int
  /// Channels per frame; every channel carries the same signal.
  public var channels: Int
  /// Byte layout of the delivered buffers.
  public var encoding: Encoding
  /// Sample clock error against the host clock, in parts per million: the source really
  /// captures `rate × (1 + clockPPM·1e-6)` frames per host second.
  public var clockPPM: Double
  /// How frames are grouped into buffers.
  public var buffering: Buffering
  /// Host time (s) at which the first sample is captured.
  public var start: Double
  /// Host time (s) at which capture stops; `nil` for the end of the scene.
  public var end: Double?
  /// Host-time intervals in which nothing is captured; the samples after one are captured at
  /// their host times again, so timestamps jump forward by the pause.
  public var pauses: [(at: Double, duration: Double)]
  /// From host time `at` on, the source captures at nominal rate `rate` (its true rate keeps
  /// the same ppm error); the buffer in progress ends at the switch.
  public var rateSwitches: [(at: Double, rate: Int)]
  /// Seconds from the end of a buffer's capture until it is delivered.
  public var deliveryDelay: Double
  /// Extra delivery delay, uniform in 0…`deliveryJitter` seconds (delivery order stays capture
  /// order: a buffer is never delivered before the previous one).
  public var deliveryJitter: Double
  /// The first `buffers` buffers are delivered `seconds` later still (a capture unit that
  /// takes its time to start); the buffers after them wait their turn.
  public var startupDelay: (buffers: Int, seconds: Double)?
  /// Whether buffers carry a presentation time.
  public var timestamps: Bool
  /// Standard deviation (s) of the Gaussian error added to each stamped time.
  public var timestampJitter: Double
  /// The timescale of the stamped times; the stamp is rounded to the nearest unit.
  public var timescale: Int32
  /// Indices of buffers whose stamp is 1.0 s early (each one alone; the next is right again).
  public var backwardsStamp: [Int]
  /// A run of `count` consecutive buffers, starting with buffer `from`, that all carry buffer
  /// `from`'s stamp.
  public var stuckStamps: (from: Int, count: Int)?
  /// Indices of buffers delivered twice: the copy (same bytes, same stamp, same delivery time)
  /// right after the original.
  public var duplicateBuffers: [Int]
  /// Host times (s) at which a marker begins.
  public var markers: [Double]
  /// Frequency (Hz) of the marker's sine; make it at least a few cycles per marker.
  public var markerFrequency: Double
  /// Length (s) of one marker.
  public var markerDuration: Double
  /// Peak of the marker's sine before the window (full scale 1.0).
  public var markerAmplitude: Double
  /// A steady tone, `amplitude · sin(2π · frequency · hostTime)`, under the markers.
  public var tone: (frequency: Double, amplitude: Double)?
  /// Peak of uniform white noise added to every sample (0 for none).
  public var noiseAmplitude: Double
  /// Seed of the source's randomness (delivery jitter, stamp jitter, noise).
  public var seed: UInt64
  /// A recorded signal on host time, added to the tone and markers (``Waveform``); a source
  /// captures it band-limited under its own Nyquist frequency.
  public var waveform: Waveform?

  /// Creates a source; every parameter has a default.
  public init(
    rate: Int = 48_000, channels: Int = 2, encoding: Encoding = .s16le, clockPPM: Double = 0,
    buffering: Buffering = .fixed(frames: 1024), start: Double = 0, end: Double? = nil,
    pauses: [(at: Double, duration: Double)] = [], rateSwitches: [(at: Double, rate: Int)] = [],
    deliveryDelay: Double = 0.002, deliveryJitter: Double = 0.003, timestamps: Bool = true,
    timestampJitter: Double = 20e-6, timescale: Int32 = 1_000_000_000,
    backwardsStamp: [Int] = [], stuckStamps: (from: Int, count: Int)? = nil,
    duplicateBuffers: [Int] = [], markers: [Double] = [], markerFrequency: Double = 1000,
    markerDuration: Double = 0.010, markerAmplitude: Double = 0.5,
    tone: (frequency: Double, amplitude: Double)? = nil, noiseAmplitude: Double = 0,
    seed: UInt64 = 1
  ) {
    self.rate = rate
    self.channels = channels
    self.encoding = encoding
    self.clockPPM = clockPPM
    self.buffering = buffering
    self.start = start
    self.end = end
    self.pauses = pauses
    self.rateSwitches = rateSwitches
    self.deliveryDelay = deliveryDelay
    self.deliveryJitter = deliveryJitter
    self.startupDelay = nil
    self.timestamps = timestamps
    self.timestampJitter = timestampJitter
    self.timescale = timescale
    self.backwardsStamp = backwardsStamp
    self.stuckStamps = stuckStamps
    self.duplicateBuffers = duplicateBuffers
    self.markers = markers
    self.markerFrequency = markerFrequency
    self.markerDuration = markerDuration
    self.markerAmplitude = markerAmplitude
    self.tone = tone
    self.noiseAmplitude = noiseAmplitude
    self.seed = seed
    self.waveform = nil
  }

  /// The frames per host second the source really captures at nominal rate `nominal`.
  public func trueRate(nominal: Int) -> Double {
    Double(nominal) * (1 + clockPPM * 1e-6)
  }

  /// The format of the delivered buffers at nominal rate `nominal`.
  public func format(rate nominal: Int) -> PCMFormat {
    switch encoding {
    case .s16le:
      PCMFormat(sampleRate: nominal, channelCount: channels, sampleType: .s16, byteOrder: .little)
    case .s16be:
      PCMFormat(sampleRate: nominal, channelCount: channels, sampleType: .s16, byteOrder: .big)
    case .f32le:
      PCMFormat(sampleRate: nominal, channelCount: channels, sampleType: .f32, byteOrder: .little)
    }
  }

  /// The stream description delivered with buffers at nominal rate `nominal`.
  public func streamDescription(rate nominal: Int) -> StreamDescription {
    StreamDescription(format(rate: nominal))
  }

  /// The noise-free signal at host time `t` (s): the tone plus every marker active at `t`,
  /// before quantization. A sample captured at `t` carries this value (plus noise).
  public func signal(atHostTime t: Double) -> Double {
    var v = 0.0
    if let tone {
      let cycles = tone.frequency * t
      v += tone.amplitude * sin(2 * Double.pi * (cycles - cycles.rounded(.down)))
    }
    for m in markers where t >= m && t <= m + markerDuration {
      v += markerValue(t - m)
    }
    return v
  }

  /// The marker `tau` seconds after its start (0 ≤ `tau` ≤ ``markerDuration``).
  func markerValue(_ tau: Double) -> Double {
    let window = 0.5 - 0.5 * cos(2 * Double.pi * tau / markerDuration)
    return markerAmplitude * window * sin(2 * Double.pi * markerFrequency * tau)
  }
}

/// One buffer as a capture callback receives it, with the truth about it.
public struct CaptureEvent: Sendable {
  /// Host time (s) at which the buffer is delivered.
  public var deliveryTime: Double
  /// The stream the buffer belongs to.
  public var side: CaptureSide
  /// The interleaved sample bytes, `frames × description.bytesPerFrame` of them.
  public var bytes: [UInt8]
  /// The buffer's stream description (its nominal rate, not the true one).
  public var description: StreamDescription
  /// The stamped presentation time of the first sample; `nil` when the source has no stamps.
  public var time: MediaTime?
  /// Frames in the buffer.
  public var frames: Int
  /// Truth: the host time (s) at which the first sample was captured.
  public var trueStart: Double
  /// Truth: the nominal rate the description states.
  public var nominalRate: Int
  /// Truth: the frames per host second the source really captured this buffer at.
  public var trueRate: Double
  /// The buffer's index in its source's capture order (a duplicate repeats its original's).
  public var index: Int
  /// Whether this is the second delivery of a duplicated buffer.
  public var isDuplicate: Bool
}

/// The buffers of an app source and a mic source merged in delivery-time order (app first on a
/// tie), generated lazily: memory holds a few buffers whatever the scene's length.
public struct CaptureSimulator: Sequence, IteratorProtocol, Sendable {
  /// The scene's length (s): sources stop capturing at this host time.
  public let duration: Double
  private var app: SourceStream?
  private var mic: SourceStream?
  private var nextApp: CaptureEvent?
  private var nextMic: CaptureEvent?

  /// A scene of `duration` seconds with either source or both.
  public init(app: SimulatedSource?, mic: SimulatedSource?, duration: Double) {
    self.duration = duration
    self.app = app.map { SourceStream(side: .app, source: $0, sceneEnd: duration) }
    self.mic = mic.map { SourceStream(side: .mic, source: $0, sceneEnd: duration) }
  }

  /// The next buffer to be delivered, or `nil` after the last one.
  public mutating func next() -> CaptureEvent? {
    if nextApp == nil { nextApp = app?.next() }
    if nextMic == nil { nextMic = mic?.next() }
    switch (nextApp, nextMic) {
    case (nil, nil):
      return nil
    case (let a?, let m?) where m.deliveryTime < a.deliveryTime:
      nextMic = nil
      return m
    case (let a?, _):
      nextApp = nil
      return a
    case (nil, let m?):
      nextMic = nil
      return m
    }
  }
}

/// A stretch of uninterrupted capture at one rate.
private struct Segment: Sendable {
  var begin: Double
  var end: Double
  var rate: Int
  var trueRate: Double
  var frames: Int
}

/// One source's buffers in capture order.
private struct SourceStream: Sendable {
  let side: CaptureSide
  let source: SimulatedSource
  let segments: [Segment]
  let markers: [Double]
  let backwards: Set<Int>
  let duplicates: Set<Int>
  var segment = 0
  var frame = 0
  var index = 0
  var lastDelivery = -Double.infinity
  var stuckTime: MediaTime?
  var markerCursor = 0
  var scratch: [Double]
  let waveform: (signal: Waveform, interpolator: BandLimitedInterpolator)?
  var duplicate: CaptureEvent?
  var deliveryRNG: Random
  var stampRNG: Random
  var noiseRNG: Random

  init(side: CaptureSide, source: SimulatedSource, sceneEnd: Double) {
    precondition(source.rate > 0 && source.channels >= 1 && source.buffering.frames > 0)
    precondition(source.timescale > 0 && source.markerDuration > 0)
    if case .bursts(_, let period) = source.buffering { precondition(period > 0) }
    self.side = side
    self.source = source
    segments = Self.segments(source, sceneEnd: sceneEnd)
    markers = source.markers.sorted()
    backwards = Set(source.backwardsStamp)
    duplicates = Set(source.duplicateBuffers)
    scratch = [Double](repeating: 0, count: source.buffering.frames)
    waveform = source.waveform.map { w in
      // Under the lowest rate the source captures at, and under the recording's own.
      let lowest = ([source.rate] + source.rateSwitches.map(\.rate)).min() ?? source.rate
      return (
        w, BandLimitedInterpolator(cutoff: 0.45 * Double(min(lowest, w.rate)) / Double(w.rate))
      )
    }
    deliveryRNG = Random(state: source.seed ^ 0x6465_6C69_7665_7279)
    stampRNG = Random(state: source.seed ^ 0x7374_616D_7073_0000)
    noiseRNG = Random(state: source.seed ^ 0x6E6F_6973_6500_0000)
  }

  /// Capture cut by pauses and rate switches into stretches at one rate each.
  static func segments(_ s: SimulatedSource, sceneEnd: Double) -> [Segment] {
    let stop = min(s.end ?? sceneEnd, sceneEnd)
    guard stop > s.start else { return [] }
    var cuts = [s.start, stop]
    for p in s.pauses { cuts += [p.at, p.at + p.duration] }
    for r in s.rateSwitches { cuts.append(r.at) }
    cuts = Array(Set(cuts.filter { $0 >= s.start && $0 <= stop })).sorted()
    let switches = s.rateSwitches.sorted { $0.at < $1.at }
    var result: [Segment] = []
    for (a, b) in zip(cuts, cuts.dropFirst()) {
      let mid = 0.5 * (a + b)
      if s.pauses.contains(where: { mid >= $0.at && mid < $0.at + $0.duration }) { continue }
      let rate = switches.last(where: { $0.at <= a })?.rate ?? s.rate
      if let last = result.last, last.end == a, last.rate == rate {
        result[result.count - 1].end = b
      } else {
        result.append(
          Segment(begin: a, end: b, rate: rate, trueRate: s.trueRate(nominal: rate), frames: 0))
      }
    }
    for i in result.indices {
      // Samples n with begin + n / trueRate < end (a hair of tolerance for rounding).
      let span = (result[i].end - result[i].begin) * result[i].trueRate
      result[i].frames = Int((span - 1e-6).rounded(.up))
    }
    return result.filter { $0.frames > 0 }
  }

  /// A sendable holder of a ``SplitMix64`` state.
  struct Random: Sendable {
    var state: UInt64

    /// A uniform number in [0, 1).
    mutating func uniform() -> Double {
      var g = SplitMix64(seed: state)
      let bits = g.next()
      state = g.state
      return Double(bits >> 11) * 0x1p-53
    }

    /// A standard normal number (Box–Muller).
    mutating func gaussian() -> Double {
      let u = 1 - uniform()
      let v = uniform()
      return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
  }

  mutating func next() -> CaptureEvent? {
    if let copy = duplicate {
      duplicate = nil
      return copy
    }
    while segment < segments.count && frame >= segments[segment].frames {
      segment += 1
      frame = 0
    }
    guard segment < segments.count else { return nil }
    let seg = segments[segment]
    let frames = min(source.buffering.frames, seg.frames - frame)
    let trueStart = seg.begin + Double(frame) / seg.trueRate
    let captureEnd = seg.begin + Double(frame + frames) / seg.trueRate

    var ready = captureEnd
    if case .bursts(_, let period) = source.buffering {
      let ticks = ((captureEnd - source.start) / period - 1e-9).rounded(.up)
      ready = source.start + ticks * period
    }
    var extra = 0.0
    if let startup = source.startupDelay, index < startup.buffers { extra = startup.seconds }
    let delivery = max(
      lastDelivery,
      ready + source.deliveryDelay + source.deliveryJitter * deliveryRNG.uniform() + extra)
    lastDelivery = delivery

    var time: MediaTime?
    if source.timestamps {
      var stamped = trueStart + source.timestampJitter * stampRNG.gaussian()
      if backwards.contains(index) { stamped -= 1.0 }
      var t = MediaTime(seconds: stamped, timescale: source.timescale)
      if let stuck = source.stuckStamps, index >= stuck.from, index < stuck.from + stuck.count {
        if index == stuck.from { stuckTime = t } else if let held = stuckTime { t = held }
      }
      time = t
    }

    let bytes = render(seg, frames: frames)
    let event = CaptureEvent(
      deliveryTime: delivery, side: side, bytes: bytes,
      description: source.streamDescription(rate: seg.rate), time: time, frames: frames,
      trueStart: trueStart, nominalRate: seg.rate, trueRate: seg.trueRate, index: index,
      isDuplicate: false)
    if duplicates.contains(index) {
      var copy = event
      copy.isDuplicate = true
      duplicate = copy
    }
    index += 1
    frame += frames
    return event
  }

  /// The bytes of the `frames` frames of `seg` from `frame` on: the signal at each sample's
  /// host time. Silence costs nothing; the tone is a rotating phasor started exactly at each
  /// buffer; markers are computed only over the samples they cover.
  mutating func render(_ seg: Segment, frames: Int) -> [UInt8] {
    let format = source.format(rate: seg.rate)
    var bytes = [UInt8](repeating: 0, count: frames * format.bytesPerFrame)
    let r = seg.trueRate
    // Buffer sample n is captured at seg.begin + (firstFrame + n) / r: computed from the frame
    // count each time, never accumulated.
    let firstFrame = frame
    let t0 = seg.begin + Double(firstFrame) / r
    let t1 = seg.begin + Double(firstFrame + frames) / r
    let d = source.markerDuration
    while markerCursor < markers.count && markers[markerCursor] + d < t0 { markerCursor += 1 }
    var active: [Double] = []
    var i = markerCursor
    while i < markers.count && markers[i] < t1 {
      active.append(markers[i])
      i += 1
    }
    let noise = source.noiseAmplitude
    if source.tone == nil && noise == 0 && active.isEmpty && waveform == nil { return bytes }

    let channels = source.channels
    let encoding = source.encoding
    scratch.withUnsafeMutableBufferPointer { buf in
      let x = buf.baseAddress!
      x.update(repeating: 0, count: frames)
      if let tone = source.tone {
        let cycles = tone.frequency * t0
        let phase = 2 * Double.pi * (cycles - cycles.rounded(.down))
        let step = 2 * Double.pi * tone.frequency / r
        let (cs, sn) = (cos(step), sin(step))
        var (c, s) = (tone.amplitude * cos(phase), tone.amplitude * sin(phase))
        for n in 0..<frames {
          x[n] = s
          (c, s) = (c * cs - s * sn, s * cs + c * sn)
        }
      }
      if noise != 0 {
        for n in 0..<frames { x[n] += noise * (2 * noiseRNG.uniform() - 1) }
      }
      if let (signal, interpolator) = waveform {
        let fs = Double(signal.rate)
        for n in 0..<frames {
          x[n] += interpolator.value(
            of: signal.samples, at: (seg.begin + Double(firstFrame + n) / r) * fs)
        }
      }
      for m in active {
        // Samples with 0 ≤ t − m ≤ d: n from ceil((m − t0)·r) to floor((m + d − t0)·r).
        let lo = max(0, Int(((m - seg.begin) * r - Double(firstFrame)).rounded(.up)))
        let hi = min(frames - 1, Int(((m + d - seg.begin) * r - Double(firstFrame)).rounded(.down)))
        if lo > hi { continue }
        let offset = seg.begin - m
        for n in lo...hi {
          let tau = offset + Double(firstFrame + n) / r
          if tau < 0 || tau > d { continue }
          x[n] += source.markerValue(tau)
        }
      }
      bytes.withUnsafeMutableBytes { out in
        Self.encode(x, frames: frames, channels: channels, encoding: encoding, into: out)
      }
    }
    return bytes
  }

  /// Writes `frames` mono samples to every one of `channels` interleaved channels.
  static func encode(
    _ x: UnsafeMutablePointer<Double>, frames: Int, channels: Int,
    encoding: SimulatedSource.Encoding,
    into out: UnsafeMutableRawBufferPointer
  ) {
    let base = out.baseAddress!
    switch encoding {
    case .s16le, .s16be:
      let big = encoding == .s16be
      for n in 0..<frames {
        let q = Int16(max(-32_768, min(32_767, (x[n] * 32_767).rounded())))
        let u = big ? UInt16(bitPattern: q).bigEndian : UInt16(bitPattern: q).littleEndian
        for c in 0..<channels {
          base.storeBytes(of: u, toByteOffset: 2 * (n * channels + c), as: UInt16.self)
        }
      }
    case .f32le:
      for n in 0..<frames {
        let u = Float(x[n]).bitPattern.littleEndian
        for c in 0..<channels {
          base.storeBytes(of: u, toByteOffset: 4 * (n * channels + c), as: UInt32.self)
        }
      }
    }
  }
}

extension SimulatedSource {
  /// ReplayKit's app audio as many devices deliver it: 44.1 kHz stereo big-endian int16 in
  /// 1,024-frame buffers, its markers 1 kHz bursts at `markers` (host seconds).
  public static func replayKitApp(markers: [Double]) -> SimulatedSource {
    var s = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be)
    s.markers = markers
    s.markerFrequency = 1_000
    s.seed = 1
    return s
  }

  /// ReplayKit's mic audio on a device that captures at 32 kHz: mono little-endian int16 in
  /// 1,024-frame buffers, its markers 2.5 kHz bursts at `markers`.
  public static func replayKitMic(markers: [Double]) -> SimulatedSource {
    var s = SimulatedSource(rate: 32_000, channels: 1, encoding: .s16le)
    s.markers = markers
    s.markerFrequency = 2_500
    s.seed = 2
    return s
  }
}

/// A signal recorded at `rate` frames per host second, sample k at host time k / `rate` (0
/// outside the recording): what a ``SimulatedSource`` captures at its own sample times, with
/// its own clock's error, when ``SimulatedSource/waveform`` is set.
public struct Waveform: Sendable {
  /// The samples, from host time 0.
  public let samples: [Float]
  /// Frames per host second.
  public let rate: Int

  /// A recording of `samples` at `rate`.
  public init(_ samples: [Float], rate: Int) {
    self.samples = samples
    self.rate = rate
  }
}

/// Reads a sampled signal between its samples: a Kaiser-windowed sinc (β 8, 16 zero crossings
/// a side, 4,096 phases a sample, nearest phase), low-passed at `cutoff` (cycles a sample) so
/// that a source slower than the recording does not alias.
struct BandLimitedInterpolator: Sendable {
  static let half = 16
  static let phases = 4_096
  /// Row p: the 2·``half`` weights for a read p / ``phases`` of a sample past sample i, for
  /// samples i − ``half`` + 1 … i + ``half``.
  let table: [Double]

  init(cutoff: Double) {
    let (half, phases) = (Self.half, Self.phases)
    let beta = 8.0
    func i0(_ x: Double) -> Double {
      var (sum, term, k) = (1.0, 1.0, 1.0)
      while term > 1e-12 * sum {
        term *= (x / (2 * k)) * (x / (2 * k))
        sum += term
        k += 1
      }
      return sum
    }
    var table = [Double](repeating: 0, count: (phases + 1) * 2 * half)
    for p in 0...phases {
      let frac = Double(p) / Double(phases)
      for j in 0..<(2 * half) {
        let d = Double(j - half + 1) - frac
        let u = d / Double(half)
        guard abs(u) < 1 else { continue }
        let arg = 2 * cutoff * d
        let sinc = arg == 0 ? 1 : sin(Double.pi * arg) / (Double.pi * arg)
        table[p * 2 * half + j] = 2 * cutoff * sinc * i0(beta * (1 - u * u).squareRoot()) / i0(beta)
      }
    }
    self.table = table
  }

  /// `samples` read at position `x` (in samples; 0 outside them).
  func value(of samples: [Float], at x: Double) -> Double {
    let i = Int(x.rounded(.down))
    let p = Int(((x - Double(i)) * Double(Self.phases)).rounded())
    let first = i - Self.half + 1
    guard first < samples.count && first + 2 * Self.half > 0 else { return 0 }
    var sum = 0.0
    table.withUnsafeBufferPointer { t in
      samples.withUnsafeBufferPointer { s in
        let row = p * 2 * Self.half
        for j in max(0, -first)..<min(2 * Self.half, s.count - first) {
          sum += t[row + j] * Double(s[first + j])
        }
      }
    }
    return sum
  }
}
