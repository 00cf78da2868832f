/// Maps interleaved frames from one channel count to another.
///
/// - Mono → stereo duplicates exactly: L = R = x.
/// - Stereo → stereo copies; left stays left.
/// - Stereo → mono averages: (L + R) / 2.
/// - More than two channels: only the first two are kept (the ``PCMDecoder`` is asked for them
///   alone), then mapped as stereo. Surround downmixing is not attempted.
public enum ChannelMapper {
  /// Maps `frames` frames of `input` (with `inputChannels` samples a frame, 1 or 2) into
  /// `output` (with `outputChannels` samples a frame, 1 or 2). `input` and `output` may be the
  /// same memory only when the channel counts are equal.
  ///
  /// - Complexity: O(`frames`).
  @inlinable
  public static func map(
    _ input: UnsafeBufferPointer<Float>, inputChannels: Int, frames: Int,
    into output: UnsafeMutableBufferPointer<Float>, outputChannels: Int
  ) {
    precondition((1...2).contains(inputChannels) && (1...2).contains(outputChannels))
    precondition(input.count >= frames * inputChannels)
    precondition(output.count >= frames * outputChannels)
    guard frames > 0, let src = input.baseAddress, let dst = output.baseAddress else { return }
    switch (inputChannels, outputChannels) {
    case (1, 2):
      for i in 0..<frames {
        let x = src[i]
        dst[2 * i] = x
        dst[2 * i + 1] = x
      }
    case (2, 1):
      for i in 0..<frames { dst[i] = (src[2 * i] + src[2 * i + 1]) * 0.5 }
    default:
      if UnsafePointer(dst) != src {
        dst.update(from: src, count: frames * inputChannels)
      }
    }
  }

  /// Turns the first `frames` mono samples of `buffer` into `frames` stereo frames in place
  /// (L = R = x), working from the end so no sample is overwritten before it is read.
  ///
  /// - Precondition: `buffer.count >= 2 × frames`.
  /// - Complexity: O(`frames`).
  @inlinable
  public static func duplicateInPlace(_ buffer: UnsafeMutableBufferPointer<Float>, frames: Int) {
    precondition(buffer.count >= 2 * frames)
    guard let p = buffer.baseAddress else { return }
    var i = frames - 1
    while i >= 0 {
      let x = p[i]
      p[2 * i + 1] = x
      p[2 * i] = x
      i -= 1
    }
  }
}
