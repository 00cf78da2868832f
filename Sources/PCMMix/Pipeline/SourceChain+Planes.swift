extension SourceChain {
  /// Probes `description` and runs the buffer given as `planes` through the chain into `sink`:
  /// one raw buffer per channel for a non-interleaved format (as Core Audio's `AudioBufferList`
  /// holds them, each anywhere in memory), exactly one for an interleaved format or mono.
  ///
  /// The planes are read where they lie; nothing is copied or allocated to gather them.
  /// - Throws: ``ProbeError`` for a description that is not readable PCM;
  ///   ``ProbeError/planeCountMismatch(_:expected:)``,
  ///   ``ProbeError/unequalPlanes(index:byteCount:expected:)``,
  ///   ``ProbeError/partialPlane(byteCount:bytesPerSample:)`` or
  ///   ``ProbeError/partialFrame(byteCount:bytesPerFrame:)`` for planes that do not hold whole,
  ///   equal runs of frames. Nothing is consumed then.
  public mutating func process<Sink: FrameSink>(
    planes: UnsafeBufferPointer<UnsafeRawBufferPointer>, description: StreamDescription,
    into sink: inout Sink
  ) throws(ProbeError) {
    try process(.planes(planes), description: description, into: &sink)
  }

  /// Runs a buffer already described by `format`, given as `planes` (see
  /// ``process(planes:description:into:)``), through the chain into `sink`.
  ///
  /// - Throws: as ``process(_:format:into:)`` does for the format, and as
  ///   ``process(planes:description:into:)`` does for the planes; nothing is consumed then.
  /// - Complexity: O(frames); no allocation unless the input rate changed.
  public mutating func process<Sink: FrameSink>(
    planes: UnsafeBufferPointer<UnsafeRawBufferPointer>, format: PCMFormat, into sink: inout Sink
  ) throws(ProbeError) {
    try process(.planes(planes), format: format, into: &sink)
  }
}
