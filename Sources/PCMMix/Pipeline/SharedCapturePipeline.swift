import Synchronization

#if os(Linux)
  import Glibc
#endif

/// A ``CapturePipeline`` that several threads may use at once: the app and mic capture
/// callbacks append from their own threads while a third pulls mixes.
///
/// ```swift
/// let shared = SharedCapturePipeline()
/// // app capture thread
/// try shared.appendApp(appBytes, description: appASBD)
/// // mic capture thread
/// try shared.appendMic(micBytes, description: micASBD)
/// // output thread
/// let frames = shared.mix(into: output)
/// // anywhere: counters and configuration
/// let appCounters = shared.withPipeline { $0.mixer.app.counters }
/// ```
///
/// Every call holds one lock (a `Synchronization.Mutex`) for its whole duration, so each append
/// and each mix sees the pipeline in a consistent state; the counters invariant
/// `framesIn == framesEmitted + framesDropped + framesBuffered` holds whenever the lock is free.
/// The lock is held for work proportional to the buffer or the output room only, and nothing
/// inside it allocates once the pipeline runs (see ``CapturePipeline``).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
public final class SharedCapturePipeline: Sendable {
  private let pipeline: Mutex<CapturePipeline>

  /// Creates a shared pipeline with `configuration`.
  public init(_ configuration: CapturePipeline.Configuration = .init()) {
    pipeline = Mutex(CapturePipeline(configuration))
  }

  /// Takes one app audio buffer. See ``CapturePipeline/appendApp(_:description:)``.
  ///
  /// - Throws: ``ProbeError`` when the buffer is not readable PCM; it is then skipped.
  /// - Complexity: O(frames in the buffer), under the lock.
  public func appendApp(
    _ bytes: UnsafeRawBufferPointer, description: StreamDescription
  ) throws(ProbeError) {
    let bytes = _Borrowed(bytes)
    try locked { (p) throws(ProbeError) in
      try p.appendApp(bytes.value, description: description)
    }
  }

  /// Takes one mic audio buffer. See ``CapturePipeline/appendMic(_:description:)``.
  ///
  /// - Throws: ``ProbeError`` when the buffer is not readable PCM; it is then skipped.
  /// - Complexity: O(frames in the buffer), under the lock.
  public func appendMic(
    _ bytes: UnsafeRawBufferPointer, description: StreamDescription
  ) throws(ProbeError) {
    let bytes = _Borrowed(bytes)
    try locked { (p) throws(ProbeError) in
      try p.appendMic(bytes.value, description: description)
    }
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
  /// disable a source, or call ``CapturePipeline/finish()``.
  ///
  /// ```swift
  /// shared.withPipeline { $0.mixer.setEnabled(.mic, false) }
  /// ```
  /// Keep `body` short: both capture callbacks wait while it runs.
  public func withPipeline<Result: ~Copyable, E: Error>(
    _ body: (inout sending CapturePipeline) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try locked(body)
  }

  /// Runs `body` under the lock. On Linux, `Mutex` locks with a futex that ThreadSanitizer cannot
  /// see, so when the program runs under TSan the critical section is also announced to it
  /// (`__tsan_acquire` / `__tsan_release` on this object's address); otherwise that costs one
  /// test of a null function pointer.
  private func locked<Result: ~Copyable, E: Error>(
    _ body: (inout sending CapturePipeline) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    #if os(Linux)
      let key = Unmanaged.passUnretained(self).toOpaque()
      return try pipeline.withLock { (p) throws(E) -> sending Result in
        _TSan.acquire?(key)
        defer { _TSan.release?(key) }
        return try body(&p)
      }
    #else
      return try pipeline.withLock { (p) throws(E) -> sending Result in try body(&p) }
    #endif
  }
}

#if os(Linux)
  /// ThreadSanitizer's annotation entry points, found at run time: present only when the
  /// program is built with `-sanitize=thread`.
  private enum _TSan {
    typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void
    static let acquire = hook("__tsan_acquire")
    static let release = hook("__tsan_release")

    private static func hook(_ name: String) -> Hook? {
      dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Hook.self) }
    }
  }
#endif

/// A caller's buffer lent to the locked pipeline for one call. The pipeline reads or writes it
/// only during that call and keeps no reference, so the buffer never becomes shared state; this
/// wrapper says so to the region checker, which cannot see it through the raw pointer.
private struct _Borrowed<Pointer>: @unchecked Sendable {
  let value: Pointer
  init(_ value: Pointer) { self.value = value }
}
