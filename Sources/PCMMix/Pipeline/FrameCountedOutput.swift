// The output calls again, counted in frames: an SDK's render or playback callback hands over a
// pointer and a number of frames, and a buffer pointer built from them counts samples (twice
// the frames, for stereo), where a mistake halves what is delivered without a word. These take
// the frames as the callback states them; each is the buffer call on `2 × frames` samples
// (`channelCount × frames` for a mixer), so the bits are the same.

extension CapturePipeline {
  /// Mixes what is ready, up to `frames` frames, into interleaved stereo int16 at `output`
  /// (room for `2 × frames` samples), returning the frames written.
  public mutating func mix(upTo frames: Int, into output: UnsafeMutablePointer<Int16>) -> Int {
    mix(into: UnsafeMutableBufferPointer(start: output, count: 2 * max(frames, 0)))
  }

  /// Mixes what is ready, up to `frames` frames, into interleaved stereo Float32 at `output`
  /// (room for `2 × frames` samples), returning the frames written.
  public mutating func mix(upTo frames: Int, into output: UnsafeMutablePointer<Float>) -> Int {
    mix(into: UnsafeMutableBufferPointer(start: output, count: 2 * max(frames, 0)))
  }
}

@available(*, deprecated, message: "use RealtimeCapturePipeline")
extension SharedCapturePipeline {
  /// Mixes what is ready, up to `frames` frames, into interleaved stereo int16 at `output`
  /// (room for `2 × frames` samples), returning the frames written.
  public func mix(upTo frames: Int, into output: UnsafeMutablePointer<Int16>) -> Int {
    mix(into: UnsafeMutableBufferPointer(start: output, count: 2 * max(frames, 0)))
  }

  /// Mixes what is ready, up to `frames` frames, into interleaved stereo Float32 at `output`
  /// (room for `2 × frames` samples), returning the frames written.
  public func mix(upTo frames: Int, into output: UnsafeMutablePointer<Float>) -> Int {
    mix(into: UnsafeMutableBufferPointer(start: output, count: 2 * max(frames, 0)))
  }
}

extension DualBufferMixer {
  /// Mixes what is ready, up to `frames` frames, into interleaved int16 at `output` (room for
  /// `channelCount × frames` samples), returning the frames written.
  public mutating func mix(upTo frames: Int, into output: UnsafeMutablePointer<Int16>) -> Int {
    let samples = configuration.channelCount * max(frames, 0)
    return mix(into: UnsafeMutableBufferPointer(start: output, count: samples))
  }

  /// Mixes what is ready, up to `frames` frames, into interleaved Float32 at `output` (room
  /// for `channelCount × frames` samples), returning the frames written.
  public mutating func mix(upTo frames: Int, into output: UnsafeMutablePointer<Float>) -> Int {
    let samples = configuration.channelCount * max(frames, 0)
    return mix(into: UnsafeMutableBufferPointer(start: output, count: samples))
  }
}
