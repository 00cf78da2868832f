/// Something that takes interleaved Float32 frames as a stage produces them.
public protocol FrameSink {
  /// Takes the frames in `frames` (interleaved, the producer's channel count).
  mutating func append(_ frames: UnsafeBufferPointer<Float>)

  /// Whether ``add(_:endingFramesBeforeEnd:)`` works: the sink still holds the frames it took
  /// last and can sum more onto them (a timeline does; a file writer does not).
  var canAddToNewest: Bool { get }

  /// Adds `frames` onto frames already taken: the last of them onto the frame `before` frames
  /// before the end (0: the newest), the others onto those before it. Frames that reach
  /// further back than the sink holds are skipped.
  mutating func add(_ frames: UnsafeBufferPointer<Float>, endingFramesBeforeEnd before: Int)

  /// Notes that a seamless switch of input rate joins two runs after the frames taken so far
  /// (``SourceChain`` calls it between the old run's last frame and its ring-out).
  mutating func noteSeam()
}

extension FrameSink {
  /// Sinks take frames only once, by default.
  public var canAddToNewest: Bool { false }

  /// Does nothing (see ``canAddToNewest``).
  public mutating func add(_ frames: UnsafeBufferPointer<Float>, endingFramesBeforeEnd before: Int)
  {
  }

  /// Does nothing.
  public mutating func noteSeam() {}
}
