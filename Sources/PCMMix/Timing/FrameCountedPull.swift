// The timed pipelines' pull counted in frames, as a render callback states them (see
// Pipeline/FrameCountedOutput.swift for why): each is the buffer call on `2 × frames` samples.

extension ClockedCapturePipeline {
  /// Fills `frames` frames of interleaved stereo int16 at `output` (room for `2 × frames`
  /// samples) with the next interval of the timeline.
  public mutating func pull(frames: Int, into output: UnsafeMutablePointer<Int16>) -> PullStatus {
    pull(into: UnsafeMutableBufferPointer(start: output, count: 2 * max(frames, 0)))
  }

  /// Fills `frames` frames of interleaved stereo Float32 at `output` (room for `2 × frames`
  /// samples) with the next interval of the timeline.
  public mutating func pull(frames: Int, into output: UnsafeMutablePointer<Float>) -> PullStatus {
    pull(into: UnsafeMutableBufferPointer(start: output, count: 2 * max(frames, 0)))
  }
}

extension RealtimeCapturePipeline {
  /// Fills `frames` frames of interleaved stereo int16 at `output` (room for `2 × frames`
  /// samples) with the next interval of the timeline, from the consumer's thread.
  public func pull(frames: Int, into output: UnsafeMutablePointer<Int16>) -> PullStatus {
    pull(into: UnsafeMutableBufferPointer(start: output, count: 2 * max(frames, 0)))
  }

  /// Fills `frames` frames of interleaved stereo Float32 at `output` (room for `2 × frames`
  /// samples) with the next interval of the timeline, from the consumer's thread.
  public func pull(frames: Int, into output: UnsafeMutablePointer<Float>) -> PullStatus {
    pull(into: UnsafeMutableBufferPointer(start: output, count: 2 * max(frames, 0)))
  }
}
