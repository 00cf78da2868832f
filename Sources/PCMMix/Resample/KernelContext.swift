/// What one output frame needs, gathered once per call so the per-frame work touches no
/// reference counts: the table's pointer and shape, and the kernels' function pointers.
struct KernelContext {
  let coefficients: UnsafePointer<Float>
  let taps: Int
  let steps: Int
  let up: Int
  let inDouble: Bool
  let dot: PolyphaseResampler.DotKernel.Dot?
  let dot2: PolyphaseResampler.DotKernel.Dot2?
  let group: PolyphaseResampler.DotKernel.Group?
  let groupPair: PolyphaseResampler.DotKernel.GroupPair?
  let groupRun: PolyphaseResampler.DotKernel.GroupRun?
  let upsampleRun: PolyphaseResampler.DotKernel.UpsampleRun?
  init(_ bank: PolyphaseBank, _ kernel: PolyphaseResampler.DotKernel?, up: Int) {
    coefficients = UnsafePointer(bank.coefficients)
    taps = bank.taps
    steps = bank.interpolationSteps
    self.up = up
    inDouble = bank.accumulatesInDouble
    dot = bank.accumulatesInDouble ? nil : kernel?.dot
    dot2 = bank.accumulatesInDouble ? nil : kernel?.dot2
    group = bank.accumulatesInDouble ? nil : kernel?.group
    groupPair = bank.accumulatesInDouble ? nil : kernel?.groupPair
    groupRun = bank.accumulatesInDouble || kernel?.group == nil ? nil : kernel?.groupRun
    upsampleRun = bank.accumulatesInDouble ? nil : kernel?.upsampleRun
  }

  /// Sixteen outputs of a group (see ``PolyphaseResampler/DotKernel/group``): the kernel's
  /// function when it has one, the Swift one otherwise.
  @inline(__always)
  func group16(
    _ table: UnsafePointer<Float>, _ width: Int, _ x: UnsafePointer<Float>, _ stride: Int,
    _ channels: Int, _ out: UnsafeMutablePointer<Float>, _ first: Int, _ count: Int
  ) {
    if let group {
      group(table, width, x, stride, channels, out, first, count)
    } else {
      _group16(table, width, x, stride, channels, out, first, count)
    }
  }

  /// Two whole groups of a mono plane sharing `table` (see
  /// ``PolyphaseResampler/DotKernel/groupPair``), by the kernel or in Swift.
  @inline(__always)
  func group16x2(
    _ table: UnsafePointer<Float>, _ width: Int, _ a: UnsafePointer<Float>,
    _ b: UnsafePointer<Float>, _ outA: UnsafeMutablePointer<Float>,
    _ outB: UnsafeMutablePointer<Float>
  ) {
    if let groupPair {
      groupPair(table, width, a, b, outA, outB)
    } else {
      _group16x2(table, width, a, b, outA, outB)
    }
  }

  /// `count` whole groups sharing `table`, a table cycle (`advance` samples) apart, every
  /// channel, into `out + k·outAdvance` except group 0 into `first` and the last into `last`
  /// where given (see ``PolyphaseResampler/DotKernel/groupRun``): by the kernel's run function;
  /// else two at a time, for mono by the paired function (``group16x2(_:_:_:_:_:_:)``) where that
  /// adds as single calls would, and one at a time otherwise.
  @inline(__always)
  func groups16(
    _ table: UnsafePointer<Float>, _ width: Int, _ x: UnsafePointer<Float>, _ advance: Int,
    _ stride: Int, _ channels: Int, _ out: UnsafeMutablePointer<Float>, _ outAdvance: Int,
    count: Int, first: UnsafeMutablePointer<Float>?, last: UnsafeMutablePointer<Float>?
  ) {
    if let groupRun {
      groupRun(table, width, x, advance, stride, channels, out, outAdvance, count, first, last)
      return
    }
    func output(_ k: Int) -> UnsafeMutablePointer<Float> {
      if k == 0, let first { return first }
      if k == count - 1, let last { return last }
      return out + k * outAdvance
    }
    var k = 0
    if channels == 1 && pairsMatchSingles {
      while k + 1 < count {
        group16x2(table, width, x + k * advance, x + (k + 1) * advance, output(k), output(k + 1))
        k += 2
      }
    }
    while k < count {
      group16(table, width, x + k * advance, stride, channels, output(k), 0, GroupTables.lanes)
      k += 1
    }
  }

  /// Whether ``group16x2(_:_:_:_:_:_:)`` adds exactly as two ``group16(_:_:_:_:_:_:_:_:)`` calls
  /// would: both Swift, or both the kernel's.
  var pairsMatchSingles: Bool { group == nil || groupPair != nil }

  /// The coefficient rows for a phase: the exact row (and `t` 0), or the two rows of the
  /// interpolated table around it and the fraction between them.
  @inline(__always)
  func rows(_ phase: Int) -> (UnsafePointer<Float>, UnsafePointer<Float>, Double) {
    guard steps > 0 else {
      let h = coefficients + phase * taps
      return (h, h, 0)
    }
    let scaled = phase * steps
    let row = scaled / up
    let h0 = coefficients + row * taps
    return (h0, h0 + taps, Double(scaled - row * up) / Double(up))
  }
}

/// One output frame: every channel's window dotted with the phase's coefficients.
@inline(__always)
func _kernel(
  _ k: KernelContext, phase: Int, _ window: UnsafeMutablePointer<Float>, _ planeStride: Int,
  _ channels: Int, _ out: UnsafeMutablePointer<Float>
) {
  let taps = k.taps
  let (h0, h1, t) = k.rows(phase)
  if k.inDouble {
    for c in 0..<channels {
      let x = window + c * planeStride
      let a = _dotDouble(h0, x, taps)
      out[c] = Float(t == 0 ? a : a + t * (_dotDouble(h1, x, taps) - a))
    }
  } else if t == 0 {
    var c = 0
    // Channels in pairs share each coefficient load.
    while c + 2 <= channels {
      let x = UnsafePointer(window + c * planeStride)
      if let dot2 = k.dot2 {
        dot2(h0, x, x + planeStride, taps, out + c)
      } else {
        (out[c], out[c + 1]) = _dot2(h0, x, x + planeStride, taps)
      }
      c += 2
    }
    if c < channels {
      let x = UnsafePointer(window + c * planeStride)
      out[c] = k.dot.map { $0(h0, x, taps) } ?? _dot(h0, x, taps)
    }
  } else {
    // Interpolated table: the phase falls between two rows.
    for c in 0..<channels {
      let x = UnsafePointer(window + c * planeStride)
      let a = k.dot.map { $0(h0, x, taps) } ?? _dot(h0, x, taps)
      let b = k.dot.map { $0(h1, x, taps) } ?? _dot(h1, x, taps)
      out[c] = a + Float(t) * (b - a)
    }
  }
}
