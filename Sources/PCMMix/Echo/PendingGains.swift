/// The suppressor's blocks waiting for the voice decisions of the blocks after them: its
/// look-ahead (``ResidualEchoSuppressor/lookahead``). Each block leaves here what its gains
/// need (the error's spectrum, the powers and residual estimates, the path's prediction, the
/// onset marks, the comfort noise's level, and the block's own decisions), and the gains are
/// worked out ``depth`` − 1 blocks later, when the decisions after it are known. With no
/// look-ahead a block's gains are worked out in the block itself, as before the ring.
///
/// Everything is allocated at creation: `depth` × (7 × bins floats and bins bytes).
struct PendingGains {
  /// A block's own decisions, as the gains read them.
  struct Decisions {
    var coherence: Float = 1
    var voiceRate: Float = 0
    /// The app's first seconds (``ResidualEchoSuppressor/startBlocks``).
    var starting = true
    /// The block reads as a talker's onset (``ResidualEchoSuppressor/voiceOnset``).
    var onset = false
    /// The block comes within ``talkerHold`` blocks after one that read as an onset (set by
    /// ``oldest()``).
    var talking = false
    /// The app's echo may be arriving.
    var echoDue = false
    /// No echo found: the block passes as it came.
    var bypass = true
  }

  /// The arrays a block keeps, each `bins` long, in this order in its slot.
  enum Field: Int, CaseIterable {
    case errorRe, errorIm, errorPower, echoPower, residual, path, comfort
    static let count = allCases.count
  }

  /// Blocks held: the look-ahead and the block being worked out.
  let depth: Int
  var values: [Float]
  var holds: [UInt8]
  var decisions: [Decisions]
  /// Blocks pushed so far.
  var pushed = 0
  /// Blocks marked `talking` after the block an onset was read in
  /// (``ResidualEchoSuppressor/talkerHoldSeconds``), and those still to come.
  let talkerHold: Int
  var talkerHoldLeft = 0

  init(bins: Int, lookahead: Int, talkerHold: Int = 0) {
    depth = lookahead + 1
    self.talkerHold = max(0, talkerHold)
    values = [Float](repeating: 0, count: depth * Field.count * bins)
    holds = [UInt8](repeating: 0, count: depth * bins)
    decisions = [Decisions](repeating: Decisions(), count: depth)
  }

  var retainedBytes: Int {
    4 * values.count + holds.count + MemoryLayout<Decisions>.stride * decisions.count
  }

  /// The slot of the block pushed `age` blocks ago (0: the newest).
  func slot(age: Int) -> Int { (pushed - 1 - age + depth) % depth }

  /// Offset of `field` of `slot` in ``values``, for `bins` bins.
  static func offset(_ slot: Int, _ field: Field, bins: Int) -> Int {
    (slot * Field.count + field.rawValue) * bins
  }

  /// Starts the next block: its slot (the oldest's, whose gains were worked out last block).
  mutating func push(_ decisions: Decisions) -> Int {
    pushed += 1
    let s = slot(age: 0)
    self.decisions[s] = decisions
    return s
  }

  /// The oldest block's slot, and its decisions with those of the blocks around it: a
  /// talker's onset read within the look-ahead counts from this block on, and the
  /// ``talkerHold`` blocks after one read in this block are marked as `talking` (neither in
  /// the app's first seconds, where every block is taken as the echo alone).
  mutating func oldest() -> (slot: Int, decisions: Decisions) {
    let s = slot(age: depth - 1)
    var d = decisions[s]
    guard !d.starting else { return (s, d) }
    if d.onset {
      talkerHoldLeft = talkerHold
    } else if talkerHoldLeft > 0 {
      talkerHoldLeft -= 1
      d.talking = true
    }
    for age in 0..<(depth - 1) {
      let later = decisions[slot(age: age)]
      d.onset = d.onset || later.onset
    }
    return (s, d)
  }
}
