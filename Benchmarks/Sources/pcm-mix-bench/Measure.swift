#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Keeps `value` alive and opaque to the optimizer, so the work that made it is not removed.
@inline(never) @_optimize(none)
func blackHole<T>(_ value: T) {}

/// CLOCK_MONOTONIC in nanoseconds.
@inline(__always)
func nowNS() -> UInt64 {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
}

/// Order statistics of a set of measurements.
struct Summary {
  var count: Int
  var min: Double
  var median: Double
  var p99: Double
  var p999: Double
  var max: Double
  var mean: Double

  /// Summarizes `values` (nearest-rank percentiles); all NaN when empty.
  init<C: Collection>(_ values: C) where C.Element: BinaryInteger {
    self.init(values.map { Double($0) })
  }

  /// Summarizes `values` (nearest-rank percentiles); all NaN when empty.
  init(_ values: [Double]) {
    let sorted = values.sorted()
    count = sorted.count
    guard !sorted.isEmpty else {
      (min, median, p99, p999, max, mean) = (.nan, .nan, .nan, .nan, .nan, .nan)
      return
    }
    func rank(_ p: Double) -> Double {
      let r = Int((p * Double(sorted.count)).rounded(.up)) - 1
      return sorted[Swift.min(Swift.max(r, 0), sorted.count - 1)]
    }
    min = sorted[0]
    median = rank(0.5)
    p99 = rank(0.99)
    p999 = rank(0.999)
    max = sorted[sorted.count - 1]
    mean = sorted.reduce(0, +) / Double(sorted.count)
  }

  /// Every statistic multiplied by `factor` (for unit changes).
  func scaled(_ factor: Double) -> Summary {
    var s = self
    s.min *= factor
    s.median *= factor
    s.p99 *= factor
    s.p999 *= factor
    s.max *= factor
    s.mean *= factor
    return s
  }
}

/// Times `batches` batches of `batchSize` calls of `body` after `warmup` untimed calls, returning
/// nanoseconds per call for each batch.
@inline(__always)
func timeBatches(
  batches: Int, batchSize: Int, warmup: Int, _ body: () -> Void
) -> [Double] {
  for _ in 0..<warmup { body() }
  var perCall = [Double](repeating: 0, count: batches)
  for b in 0..<batches {
    let t0 = nowNS()
    for _ in 0..<batchSize { body() }
    perCall[b] = Double(nowNS() - t0) / Double(batchSize)
  }
  return perCall
}

/// A small deterministic generator (SplitMix64) for test signals.
struct SplitMix64 {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform in [-1, 1).
  mutating func nextSigned() -> Double {
    Double(Int64(bitPattern: next()) >> 11) * 0x1p-52
  }
}
