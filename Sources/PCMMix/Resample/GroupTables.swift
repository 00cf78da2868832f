/// Coefficients laid out to compute sixteen consecutive outputs at once, for kernels that take
/// them (``PolyphaseResampler/DotKernel/group``).
///
/// Outputs are grouped by their index since the start: outputs `16k ..< 16k + 16` form a group.
/// A group that starts at phase `q` and input position `P` has output `i` at phase
/// `(q + i·M) mod L` and window start `P + d[i]`, `d[i] = (q + i·M) / L`. Its table spreads each
/// output's row along the taps: entry `(m, i)` is the row's tap `m − d[i]`, zero outside the
/// row, so a kernel computes every lane as the dot product of one column with the input from `P`
/// on, broadcasting each input sample to all sixteen lanes (no horizontal sums; one coefficient
/// load serves both channels of a pair).
///
/// Only the start phases that occur are built: they repeat every `L / gcd(L, 16·M)` groups.
/// Immutable after creation, shared like the bank.
final class GroupTables: @unchecked Sendable {
  /// Outputs per group.
  static let lanes = 16
  /// Bytes of bookkeeping per table beside its coefficients: 17 offsets, the next table's index
  /// and the start phase, 32 bits each.
  static let bookkeepingBytes = (lanes + 3) * 4
  /// The most floats all tables may hold (1 MiB); past it the per-output kernels are used.
  static let limit = 1 << 18

  /// Taps per lane column: the longest window end in any group.
  let width: Int
  /// Tables, `width × 16` floats each, tap-major.
  let tables: UnsafeMutablePointer<Float>
  /// Per table, `d[0 ... 16]` (the last is where the next group starts).
  let offsets: UnsafeMutablePointer<Int32>
  /// Per table, the index of the table of the group after it.
  let next: UnsafeMutablePointer<Int32>
  /// Per table, its start phase.
  let startPhase: UnsafeMutablePointer<Int32>
  /// Per phase, the index of the table of the group starting there, or −1.
  let tableOfPhase: UnsafeMutablePointer<Int32>
  /// Number of tables: after this many groups the start phase repeats.
  let count: Int
  /// Input samples from a group's start to the start of the group ``count`` groups later.
  let cycleAdvance: Int

  /// Builds the tables for `bank` (an exact one), when the group starting at output 0 has phase
  /// `phase0`; `nil` when they would take more than ``limit`` floats.
  init?(bank: PolyphaseBank, up l: Int, down m: Int, phase0: Int) {
    let g = Self.lanes
    let taps = bank.taps
    precondition(bank.interpolationSteps == 0)
    // The start phases, in order of occurrence.
    var starts: [Int] = []
    var seen = [Bool](repeating: false, count: l)
    var q = phase0
    let advance = (g * m) % l
    while !seen[q] {
      seen[q] = true
      starts.append(q)
      q = (q + advance) % l
    }
    let span = starts.map { ($0 + (g - 1) * m) / l }.max()!
    width = span + taps
    guard starts.count * width * g <= Self.limit else { return nil }
    count = starts.count
    cycleAdvance = count * g * m / l
    // Cache-line aligned: a row is 64 bytes, so no coefficient load straddles two lines.
    tables = allocateCacheAligned(floats: count * width * g)
    tables.initialize(repeating: 0, count: count * width * g)
    offsets = .allocate(capacity: count * (g + 1))
    next = .allocate(capacity: count)
    startPhase = .allocate(capacity: count)
    tableOfPhase = .allocate(capacity: l)
    tableOfPhase.initialize(repeating: -1, count: l)
    for (t, q) in starts.enumerated() {
      tableOfPhase[q] = Int32(t)
      startPhase[t] = Int32(q)
      next[t] = Int32((t + 1) % count)
      let table = tables + t * width * g
      for i in 0...g {
        let d = (q + i * m) / l
        offsets[t * (g + 1) + i] = Int32(d)
        guard i < g else { break }
        let row = bank.coefficients + ((q + i * m) % l) * taps
        for k in 0..<taps { table[(d + k) * g + i] = row[k] }
      }
    }
  }

  deinit {
    tables.deallocate()
    offsets.deallocate()
    next.deallocate()
    startPhase.deallocate()
    tableOfPhase.deallocate()
  }
}

/// What the streaming loop reads of ``GroupTables``: its pointers and shape, copied once per call,
/// so that the loop holds no class reference (which it would retain and release on every turn).
/// Valid while the tables are alive: the resampler that owns them is borrowed for the call.
struct GroupView {
  /// ``GroupTables/width``.
  let width: Int
  /// ``GroupTables/tables``.
  let tables: UnsafeMutablePointer<Float>
  /// ``GroupTables/offsets``.
  let offsets: UnsafeMutablePointer<Int32>
  /// ``GroupTables/next``.
  let next: UnsafeMutablePointer<Int32>
  /// ``GroupTables/count``.
  let count: Int
  /// ``GroupTables/cycleAdvance``.
  let cycleAdvance: Int

  init(_ groups: GroupTables) {
    (width, tables, offsets, next) = (groups.width, groups.tables, groups.offsets, groups.next)
    (count, cycleAdvance) = (groups.count, groups.cycleAdvance)
  }
}
