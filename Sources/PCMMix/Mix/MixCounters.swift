/// What happened to one source's frames in the mixer. For each source, always
/// `framesIn == framesEmitted + framesDropped + framesBuffered`.
public struct MixCounters: Hashable, Sendable {
  /// Frames appended.
  public var framesIn = 0
  /// Frames emitted mixed with the other source's frames.
  public var framesMixed = 0
  /// Frames emitted with no frames of the other source: against silence while the other
  /// stalled past the lag bound, or alone while the other was disabled.
  public var framesAlone = 0
  /// Frames of silence that stood in for this source while the other was emitted alone.
  public var framesPadded = 0
  /// Frames discarded: the oldest past capacity, or any appended while disabled.
  public var framesDropped = 0
  /// Frames waiting to be mixed.
  public var framesBuffered = 0

  /// Frames of this source that left the mixer in its output.
  public var framesEmitted: Int { framesMixed + framesAlone }

  /// Counters at zero.
  public init() {}
}
