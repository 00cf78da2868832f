import CPCMMixCore

/// The history both built-in resamplers keep: one plane of samples per channel, `stride` floats
/// apart, of which the first `count` frames are valid. Input arrives interleaved and is spread
/// into the planes; what the next window no longer needs slides out at the front.

/// Slides every plane left by `keep` of its `count` frames and zeroes what falls free at the end
/// (so that lanes computed and dropped past the valid frames read finite values).
@inline(__always)
func _slidePlanes(
  _ base: UnsafeMutablePointer<Float>, stride: Int, channels: Int, count: Int, by keep: Int
) {
  for c in 0..<channels {
    let plane = base + c * stride
    plane.update(from: plane + keep, count: count - keep)
    (plane + count - keep).update(repeating: 0, count: keep)
  }
}

/// Spreads `frames` interleaved frames of `input` into the planes from frame `count` on, or
/// zeros when `input` is nil (the silence after the end). A non-finite sample is taken as
/// silence: inside a sixteen-output group it would meet the zero coefficients of outputs whose
/// windows do not reach it, and 0 × ∞ is NaN.
@inline(__always)
func _fillPlanes(
  _ base: UnsafeMutablePointer<Float>, stride: Int, channels: Int, at count: Int,
  from input: UnsafePointer<Float>?, frames: Int
) {
  guard let input else {
    for c in 0..<channels { (base + c * stride + count).update(repeating: 0, count: frames) }
    return
  }
  pcmmix_core_fill_planes(base, stride, channels, count, input, frames)
}
