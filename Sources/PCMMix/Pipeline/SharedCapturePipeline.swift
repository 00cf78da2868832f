/// A ``CapturePipeline`` that several threads may use at once: the app and mic capture
/// callbacks append from their own threads while a third pulls mixes.
///
/// Deprecated: its lock is held through the DSP, so a capture callback can wait on the other
/// side's resampling. Use ``RealtimeCapturePipeline`` (lock-free hand-offs, timestamps, a steady
/// output clock); it will be removed in the next minor release.
///
/// ```swift
/// let shared = SharedCapturePipeline()
/// // app capture thread
/// try shared.append(.app, appBytes, description: appASBD)
/// // mic capture thread
/// try shared.append(.mic, micBytes, description: micASBD)
/// // output thread
/// let frames = shared.mix(into: output)
/// // anywhere: counters and configuration
/// let appCounters = shared.withPipeline { $0.mixer.app.counters }
/// ```
///
/// Every call holds one lock (a pthread mutex) for its whole duration, so each append
/// and each mix sees the pipeline in a consistent state; the counters invariant
/// `framesIn == framesEmitted + framesDropped + framesBuffered` holds whenever the lock is free.
/// The lock is held for work proportional to the buffer or the output room only, and nothing
/// inside it allocates once the pipeline runs (see ``CapturePipeline``).
@available(
  *, deprecated,
  message:
    "its lock is held through the DSP: use RealtimeCapturePipeline; removed in the next minor release"
)
public final class SharedCapturePipeline: Sendable {
  private let pipeline: Locked<CapturePipeline>

  /// Creates a shared pipeline with `configuration`.
  public init(_ configuration: CapturePipeline.Configuration = .init()) {
    pipeline = Locked(CapturePipeline(configuration))
  }

  /// Takes one audio buffer for `side`. See ``CapturePipeline/append(_:_:description:)``.
  ///
  /// - Throws: ``ProbeError`` when the buffer is not readable PCM; it is then skipped.
  /// - Complexity: O(frames in the buffer), under the lock.
  public func append(
    _ side: CapturePipeline.Side, _ bytes: UnsafeRawBufferPointer, description: StreamDescription
  ) throws(ProbeError) {
    try append(side, .bytes(bytes), description: description)
  }

  /// Takes one audio buffer for `side` given as planes (one per channel for a non-interleaved
  /// description, one for interleaved or mono), read where they lie. See
  /// ``CapturePipeline/append(_:planes:description:)``.
  ///
  /// - Throws: ``ProbeError`` when the buffer is not readable PCM or the planes do not match the
  ///   description; it is then skipped.
  /// - Complexity: O(frames in the buffer), under the lock.
  public func append(
    _ side: CapturePipeline.Side, planes: UnsafeBufferPointer<UnsafeRawBufferPointer>,
    description: StreamDescription
  ) throws(ProbeError) {
    try append(side, .planes(planes), description: description)
  }

  /// Mixes what is ready into `output` (interleaved stereo int16), returning the frames written.
  ///
  /// - Complexity: O(frames written), under the lock.
  public func mix(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
    let output = _Borrowed(output)
    return locked { $0.mix(into: output.value) }
  }

  /// Mixes what is ready into `output` (interleaved stereo Float32), returning the frames
  /// written.
  ///
  /// - Complexity: O(frames written), under the lock.
  public func mix(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    let output = _Borrowed(output)
    return locked { $0.mix(into: output.value) }
  }

  /// Runs `body` with exclusive access to the pipeline: read counters, set gains, enable or
  /// disable a source, or call ``CapturePipeline/finish(_:)``.
  ///
  /// ```swift
  /// shared.withPipeline { $0.setEnabled(.mic, false) }
  /// ```
  /// Keep `body` short: both capture callbacks wait while it runs.
  public func withPipeline<Result: ~Copyable, E: Error>(
    _ body: (inout sending CapturePipeline) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try locked(body)
  }

  /// Takes one buffer of either shape for `side`, under the lock.
  private func append(
    _ side: CapturePipeline.Side, _ input: PCMInput, description: StreamDescription
  ) throws(ProbeError) {
    let input = _Borrowed(input)
    try locked { (p) throws(ProbeError) in
      try p.append(side, input.value, description: description)
    }
  }

  /// Runs `body` under the lock.
  private func locked<Result: ~Copyable, E: Error>(
    _ body: (inout sending CapturePipeline) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try pipeline.withLock(body)
  }
}

/// A caller's buffer lent to the locked pipeline for one call. The pipeline reads or writes it
/// only during that call and keeps no reference, so the buffer never becomes shared state; this
/// wrapper says so to the region checker, which cannot see it through the raw pointer.
private struct _Borrowed<Pointer>: @unchecked Sendable {
  let value: Pointer
  init(_ value: Pointer) { self.value = value }
}
