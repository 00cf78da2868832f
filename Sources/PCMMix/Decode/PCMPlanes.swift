/// A buffer as a caller hands it over, before it is checked against its format: one contiguous
/// run of bytes (a planar format's planes back to back), or one raw buffer per plane.
enum PCMInput {
  /// One run of bytes.
  case bytes(UnsafeRawBufferPointer)
  /// One buffer per plane: exactly one for an interleaved format, one per channel for a planar one.
  case planes(UnsafeBufferPointer<UnsafeRawBufferPointer>)
}

/// One checked buffer seen as its planes, with no copy and no allocation: one plane of whole
/// frames for interleaved data, one plane per channel for planar data, either back to back in
/// one run of bytes or in separate buffers. Every plane holds ``frames`` frames, ``frameStride``
/// bytes apart; ``droppingFrames(_:)`` narrows all planes at once.
@usableFromInline
struct PCMPlanes {
  /// Back-to-back storage: plane `p` begins at `contiguous + p × planeStride`. Unused (nil)
  /// when the planes are separate.
  @usableFromInline let contiguous: UnsafeRawPointer?
  /// Separate planes, or empty when the planes are back to back.
  @usableFromInline let separate: UnsafeBufferPointer<UnsafeRawBufferPointer>
  /// Bytes from one back-to-back plane to the next.
  @usableFromInline let planeStride: Int
  /// Planes: 1 for interleaved data, the channel count for planar data.
  @usableFromInline let count: Int
  /// Bytes from one frame to the next within a plane.
  @usableFromInline let frameStride: Int
  /// The first frame of each plane in view.
  @usableFromInline let firstFrame: Int
  /// Frames in view in every plane.
  @usableFromInline let frames: Int

  /// Planes back to back from `base`, each holding `frames` frames of `format` (unchecked).
  @inlinable
  init(contiguous base: UnsafeRawPointer?, frames: Int, format: PCMFormat) {
    let bps = format.sampleType.bytesPerSample
    contiguous = base
    separate = UnsafeBufferPointer(start: nil, count: 0)
    count = format.isInterleaved ? 1 : format.channelCount
    frameStride = format.isInterleaved ? format.bytesPerFrame : bps
    planeStride = frames * frameStride
    firstFrame = 0
    self.frames = frames
  }

  @usableFromInline
  init(
    contiguous: UnsafeRawPointer?, separate: UnsafeBufferPointer<UnsafeRawBufferPointer>,
    planeStride: Int, count: Int, frameStride: Int, firstFrame: Int, frames: Int
  ) {
    self.contiguous = contiguous
    self.separate = separate
    self.planeStride = planeStride
    self.count = count
    self.frameStride = frameStride
    self.firstFrame = firstFrame
    self.frames = frames
  }

  /// Checks `input` against `format` and views it as planes.
  ///
  /// - Throws: ``ProbeError/partialFrame(byteCount:bytesPerFrame:)`` for a run of bytes (or the
  ///   one plane of interleaved data) that is not whole frames;
  ///   ``ProbeError/planeCountMismatch(_:expected:)`` when the planes are not one per channel
  ///   (one for interleaved data); ``ProbeError/unequalPlanes(index:byteCount:expected:)`` when a
  ///   plane's size differs from the first's; ``ProbeError/partialPlane(byteCount:bytesPerSample:)``
  ///   when a planar plane is not whole samples.
  init(_ input: PCMInput, format: PCMFormat) throws(ProbeError) {
    let frameBytes = format.bytesPerFrame
    switch input {
    case .bytes(let bytes):
      guard bytes.count % frameBytes == 0 else {
        throw .partialFrame(byteCount: bytes.count, bytesPerFrame: frameBytes)
      }
      self.init(contiguous: bytes.baseAddress, frames: bytes.count / frameBytes, format: format)
    case .planes(let planes):
      let expected = format.isInterleaved ? 1 : format.channelCount
      guard planes.count == expected else {
        throw .planeCountMismatch(planes.count, expected: expected)
      }
      let size = planes[0].count
      for (i, plane) in planes.enumerated() where plane.count != size {
        throw .unequalPlanes(index: i, byteCount: plane.count, expected: size)
      }
      let stride = format.isInterleaved ? frameBytes : format.sampleType.bytesPerSample
      guard size % stride == 0 else {
        throw format.isInterleaved
          ? .partialFrame(byteCount: size, bytesPerFrame: stride)
          : .partialPlane(byteCount: size, bytesPerSample: stride)
      }
      self.init(
        contiguous: nil, separate: planes, planeStride: 0, count: expected, frameStride: stride,
        firstFrame: 0, frames: size / stride)
    }
  }

  /// No bytes at all.
  static var empty: PCMPlanes {
    PCMPlanes(
      contiguous: nil, separate: UnsafeBufferPointer(start: nil, count: 0), planeStride: 0,
      count: 1, frameStride: 1, firstFrame: 0, frames: 0)
  }

  /// The first byte in view of plane `p`; only valid when ``frames`` > 0.
  @inlinable
  func base(_ p: Int) -> UnsafeRawPointer {
    let start = separate.isEmpty ? contiguous! + p * planeStride : separate[p].baseAddress!
    return start + firstFrame * frameStride
  }

  /// Bytes in view in each plane.
  var planeBytes: Int { frames * frameStride }

  /// Bytes in view in all planes.
  var byteCount: Int { planeBytes * count }

  /// The bytes in view of plane `p`.
  func segment(_ p: Int) -> UnsafeRawBufferPointer {
    frames == 0
      ? UnsafeRawBufferPointer(start: nil, count: 0) : .init(start: base(p), count: planeBytes)
  }

  /// The same planes without their first `k` frames (`k` ≤ ``frames``).
  func droppingFrames(_ k: Int) -> PCMPlanes {
    precondition(k >= 0 && k <= frames)
    return PCMPlanes(
      contiguous: contiguous, separate: separate, planeStride: planeStride, count: count,
      frameStride: frameStride, firstFrame: firstFrame + k, frames: frames - k)
  }

  /// Whether the planes in view lie back to back in one run of bytes from `base(0)`.
  var isOneRun: Bool { count == 1 || (separate.isEmpty && firstFrame == 0) }

  /// The 8 bytes at `offset` of the planes in view taken back to back (as if copied into one
  /// run), loaded unaligned; `offset + 8` ≤ ``byteCount``. (A reader of one run of bytes,
  /// ``isOneRun``, loads from `base(0)` directly.)
  func loadWord(at offset: Int) -> UInt64 {
    let (p, within) = offset.quotientAndRemainder(dividingBy: planeBytes)
    if within + 8 <= planeBytes {
      return base(p).loadUnaligned(fromByteOffset: within, as: UInt64.self)
    }
    var word: UInt64 = 0
    for j in 0..<8 { word |= UInt64(byte(at: offset + j)) << (8 * j) }
    return UInt64(littleEndian: word)
  }

  /// The byte at `offset` of the planes in view taken back to back.
  func byte(at offset: Int) -> UInt8 {
    let (p, within) = offset.quotientAndRemainder(dividingBy: planeBytes)
    return base(p).load(fromByteOffset: within, as: UInt8.self)
  }
}
