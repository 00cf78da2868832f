/// Something that takes interleaved Float32 frames as a stage produces them.
public protocol FrameSink {
  /// Takes the frames in `frames` (interleaved, the producer's channel count).
  mutating func append(_ frames: UnsafeBufferPointer<Float>)
}
