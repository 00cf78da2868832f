/// One side of the ``DualBufferMixer``: a bounded FIFO, its gain, its counters.
public struct MixerInput: FrameSink {
  /// Frames waiting, at most ``capacity``.
  var fifo: FrameFIFO
  /// What happened to this source's frames so far.
  public internal(set) var counters = MixCounters()
  /// Whether the source takes part; set through ``DualBufferMixer/setEnabled(_:_:)``.
  public internal(set) var isEnabled = true
  /// Linear gain applied to every sample.
  public private(set) var gain: Float = 1
  /// Frames appended since the last mix call: the size of the buffer being delivered.
  var framesSinceMix = 0
  /// The most frames appended between two mix calls over the last one to two windows of
  /// ``burstWindow`` mix calls: the largest buffer this source delivers at once, which sets how
  /// far behind it may fall before it counts as stalled. It forgets an old outlier (one 1 s
  /// delivery) after two windows, so the bound comes back down.
  var largestBurst: Int { max(burstThisWindow, burstLastWindow) }
  var burstThisWindow = 0
  var burstLastWindow = 0
  var mixesThisWindow = 0
  /// Mix calls per window of ``largestBurst``: several seconds at capture callback rates.
  static let burstWindow = 512

  init(capacity: Int, channelCount: Int, gainDB: Double) {
    fifo = FrameFIFO(capacity: capacity, channelCount: channelCount)
    setGain(dB: gainDB)
  }

  /// The most frames buffered before the oldest are dropped.
  public var capacity: Int { fifo.capacity }

  /// Frames waiting to be mixed.
  public var buffered: Int { fifo.count }

  /// Sets the gain in dB (0 dB is exactly 1, so 0 dB mixes stay bit-exact); the mixer's
  /// ``DualBufferMixer/setGain(_:dB:)`` is how callers reach it.
  mutating func setGain(dB: Double) {
    gain = dB == 0 ? 1 : Float(Math.pow(10, dB / 20))
  }

  /// Appends frames; past capacity the oldest frames (buffered first, then the head of these)
  /// are dropped and counted. While disabled, every frame is dropped and counted.
  ///
  /// - Complexity: O(frames); no allocation.
  public mutating func append(_ frames: UnsafeBufferPointer<Float>) {
    let n = frames.count / fifo.channelCount
    counters.framesIn += n
    guard isEnabled else {
      counters.framesDropped += n
      return
    }
    framesSinceMix += n
    let overflow = fifo.count + n - fifo.capacity
    var skip = 0
    if overflow > 0 {
      let old = min(overflow, fifo.count)
      fifo.discard(old)
      skip = overflow - old
      counters.framesDropped += overflow
    }
    fifo.append(UnsafeBufferPointer(rebasing: frames[(skip * fifo.channelCount)...]))
    counters.framesBuffered = fifo.count
  }

  mutating func dropAll() {
    counters.framesDropped += fifo.count
    fifo.removeAll()
    counters.framesBuffered = 0
  }
}

extension MixerInput {
  /// Closes the current burst at a mix call.
  mutating func endBurst() {
    burstThisWindow = max(burstThisWindow, min(framesSinceMix, fifo.capacity))
    framesSinceMix = 0
    mixesThisWindow += 1
    if mixesThisWindow == Self.burstWindow {
      (burstLastWindow, burstThisWindow, mixesThisWindow) = (burstThisWindow, 0, 0)
    }
  }
}
