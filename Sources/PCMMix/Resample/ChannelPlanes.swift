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
  // Mono and stereo (every stream the pipeline resamples) four frames at a time; the
  // finiteness test as a mask on the bits (exponent all ones: infinity or NaN). Four lanes, not
  // eight: the compiler takes an eight-lane integer compare apart lane by lane here.
  var done = 0
  if channels == 1 {
    let plane = base + count
    while done &+ 4 <= frames {
      let v = UnsafeRawPointer(input + done).loadUnaligned(as: SIMD4<Float>.self)
      UnsafeMutableRawPointer(plane + done).storeBytes(of: _finiteOrZero(v), as: SIMD4<Float>.self)
      done &+= 4
    }
  } else if channels == 2 {
    let left = base + count
    let right = left + stride
    while done &+ 4 <= frames {
      let v = UnsafeRawPointer(input + 2 &* done).loadUnaligned(as: SIMD8<Float>.self)
      let l = _finiteOrZero(SIMD4(v[0], v[2], v[4], v[6]))
      let r = _finiteOrZero(SIMD4(v[1], v[3], v[5], v[7]))
      UnsafeMutableRawPointer(left + done).storeBytes(of: l, as: SIMD4<Float>.self)
      UnsafeMutableRawPointer(right + done).storeBytes(of: r, as: SIMD4<Float>.self)
      done &+= 4
    }
  }
  for c in 0..<channels {
    let plane = base + c * stride + count
    for i in done..<frames {
      let x = input[i * channels + c]
      plane[i] = x.isFinite ? x : 0
    }
  }
}

/// Each lane as it is when finite, else +0 (as `x.isFinite ? x : 0`).
@inline(__always)
func _finiteOrZero(_ x: SIMD4<Float>) -> SIMD4<Float> {
  let bits = unsafeBitCast(x, to: SIMD4<Int32>.self)
  let finite = (bits & SIMD4(repeating: 0x7FFF_FFFF)) .< SIMD4(repeating: 0x7F80_0000)
  return unsafeBitCast(bits & unsafeBitCast(finite, to: SIMD4<Int32>.self), to: SIMD4<Float>.self)
}
