/// Decodes raw PCM bytes into interleaved Float32 frames, the library's working samples.
///
/// Scaling: integers map onto [-1, 1] by their full scale (`s16`: x / 32768, `u8`: (x − 128) / 128,
/// `s24`: x / 2²³, `s32`: Float(x) / 2³¹), so every 8-, 16- and 24-bit value is exact in Float32
/// and lies in [-1, 1). A 32-bit value keeps Float32's 24 bits: `Float(x)` rounds to nearest, so
/// the largest values (from 2³¹ − 64 up) come out as exactly 1.0.
/// Floats pass through (`f64` rounded to nearest). Byte order is swapped per the format, whole
/// samples at a time (4 or 8 bytes for floats). Planar input is read plane by plane and written
/// interleaved.
public enum PCMDecoder {
  /// Decodes `frames` of `source` (which holds `totalFrames` frames in `format`), keeping
  /// channels `0 ..< outputChannels`, into `output` interleaved with `outputChannels` samples a
  /// frame.
  ///
  /// - Precondition: `source` holds `totalFrames` whole frames, `frames` lies inside them,
  ///   `outputChannels ≤ format.channelCount`, and `output` has room for
  ///   `frames.count × outputChannels` samples.
  /// - Complexity: O(`frames.count × outputChannels`).
  @inlinable
  public static func decode(
    _ source: UnsafeRawBufferPointer, format: PCMFormat, totalFrames: Int, frames: Range<Int>,
    outputChannels: Int, into output: UnsafeMutableBufferPointer<Float>
  ) {
    precondition(source.count >= totalFrames * format.bytesPerFrame)
    precondition(frames.lowerBound >= 0 && frames.upperBound <= totalFrames)
    precondition(outputChannels >= 1 && outputChannels <= format.channelCount)
    precondition(output.count >= frames.count * outputChannels)
    guard !frames.isEmpty, let base = source.baseAddress else { return }
    _decode(
      PCMPlanes(contiguous: base, frames: totalFrames, format: format), format: format,
      frames: frames, outputChannels: outputChannels, into: output)
  }

  /// ``decode(_:format:totalFrames:frames:outputChannels:into:)`` from `planes`, which hold
  /// `frames` (and `outputChannels` channels) of `format`, back to back or apart.
  @inlinable
  internal static func _decode(
    _ planes: PCMPlanes, format: PCMFormat, frames: Range<Int>, outputChannels: Int,
    into output: UnsafeMutableBufferPointer<Float>
  ) {
    guard !frames.isEmpty, let out = output.baseAddress else { return }
    let bps = format.sampleType.bytesPerSample
    let stride = planes.frameStride
    let big = format.byteOrder == .big
    // Every channel of interleaved frames, or one plane: the samples wanted lie back to back.
    if format.isInterleaved ? outputChannels == format.channelCount : outputChannels == 1 {
      _decodeContiguous(
        planes.base(0) + frames.lowerBound * stride, count: frames.count * outputChannels,
        type: format.sampleType, byteSwapped: big != _hostIsBigEndian, into: out)
      return
    }
    // Otherwise one channel at a time, strided (more than two channels, planar stereo).
    for c in 0..<outputChannels {
      let plane = format.isInterleaved ? planes.base(0) + c * bps : planes.base(c)
      _decodeStrided(
        plane + frames.lowerBound * stride, stride: stride, count: frames.count,
        type: format.sampleType, bigEndian: big, into: out + c, outputStride: outputChannels)
    }
  }

  @inlinable @inline(__always)
  internal static func _s24(_ p: UnsafeRawPointer, hi: Int, mid: Int, lo: Int) -> Float {
    let b = p.assumingMemoryBound(to: UInt8.self)
    let h = Int32(b[hi]) << 24
    let m = Int32(b[mid]) << 16
    let l = Int32(b[lo]) << 8
    return Float((h | m | l) >> 8) * 0x1p-23
  }

  /// The inner loop: one channel, `count` samples `stride` bytes apart, written `outStride` apart.
  @inlinable @inline(__always)
  internal static func _run(
    _ first: UnsafeRawPointer, _ stride: Int, _ count: Int,
    _ dst: UnsafeMutablePointer<Float>, _ outStride: Int,
    _ load: (UnsafeRawPointer) -> Float
  ) {
    var p = first
    var q = dst
    for _ in 0..<count {
      q.pointee = load(p)
      p += stride
      q += outStride
    }
  }
}
