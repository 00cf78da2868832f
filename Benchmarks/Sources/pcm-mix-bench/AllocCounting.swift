import CAllocCounter

/// The allocation counter of the `CAllocCounter` target, and proof that it sees Swift's
/// allocations.
enum AllocCounting {
  /// Allocation events (allocations and reallocations) counted so far.
  @inline(__always)
  static var events: UInt64 { alloc_counter_events() }

  /// Turns counting on or off.
  static func setEnabled(_ on: Bool) { alloc_counter_set_enabled(on ? 1 : 0) }

  /// Counts the allocations of `body`.
  static func count(_ body: () -> Void) -> UInt64 {
    setEnabled(true)
    let before = events
    body()
    let after = events
    setEnabled(false)
    return after - before
  }

  /// Allocates 100 Swift arrays in a loop and returns how many allocations were counted (at
  /// least 100 when the counter works), and whether its malloc is the process's.
  static func selfCheck() -> (counted: UInt64, interposed: Bool) {
    let counted = count {
      for i in 0..<100 {
        let a = [Int](repeating: i, count: 64 + i)
        blackHole(a)
      }
    }
    return (counted, alloc_counter_is_interposed() != 0)
  }
}
