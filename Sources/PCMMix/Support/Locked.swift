#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value behind a pthread mutex: the package's one lock. Available on every platform it builds
/// for (unlike `Synchronization.Mutex`, iOS 18 / macOS 15), and visible to ThreadSanitizer, which
/// intercepts pthread calls (it cannot see the futex inside `Mutex` on Linux).
///
/// Used where waiting is acceptable: the shared filter-design cache, ``SharedCapturePipeline``,
/// and, without waiting (``withLockIfAvailable(_:)``), the real-time pipeline's statistics.
final class Locked<Value: ~Copyable>: @unchecked Sendable {
  private var value: Value
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init(_ value: consuming Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  /// Runs `body` with the value while holding the lock.
  func withLock<R: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending R
  ) throws(E) -> sending R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }

  /// Runs `body` under the lock if no other thread holds it, without waiting; `nil` otherwise.
  func withLockIfAvailable<R>(_ body: (inout Value) -> R) -> R? {
    guard pthread_mutex_trylock(mutex) == 0 else { return nil }
    defer { pthread_mutex_unlock(mutex) }
    return body(&value)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }
}
