import CPCMMixAtomics

/// A value behind a pthread mutex: the package's one lock. Available on every platform it builds
/// for (unlike `Synchronization.Mutex`, iOS 18 / macOS 15), and visible to ThreadSanitizer, which
/// intercepts pthread calls (it cannot see the futex inside `Mutex` on Linux).
///
/// Used where waiting is acceptable: the shared filter-design cache, ``SharedCapturePipeline``,
/// and, without waiting (``withLockIfAvailable(_:)``), the real-time pipeline's statistics.
final class Locked<Value: ~Copyable>: @unchecked Sendable {
  private var value: Value
  private let mutex: OpaquePointer

  init(_ value: consuming Value) {
    self.value = value
    // Swift allocates the storage (as it allocates every buffer); C makes it a mutex.
    mutex = OpaquePointer(
      UnsafeMutableRawPointer.allocate(byteCount: pcmmix_mutex_size(), alignment: 16))
    pcmmix_mutex_init(mutex)
  }

  /// Runs `body` with the value while holding the lock.
  func withLock<R: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending R
  ) throws(E) -> sending R {
    pcmmix_mutex_lock(mutex)
    defer { pcmmix_mutex_unlock(mutex) }
    return try body(&value)
  }

  /// Runs `body` under the lock if no other thread holds it, without waiting; `nil` otherwise.
  func withLockIfAvailable<R>(_ body: (inout Value) -> R) -> R? {
    guard pcmmix_mutex_trylock(mutex) != 0 else { return nil }
    defer { pcmmix_mutex_unlock(mutex) }
    return body(&value)
  }

  deinit {
    pcmmix_mutex_destroy(mutex)
    UnsafeMutableRawPointer(mutex).deallocate()
  }
}
