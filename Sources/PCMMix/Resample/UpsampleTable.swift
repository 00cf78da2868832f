/// The exact table of an upsampling ratio `up : down` laid out step by step, for the direct-form
/// kernel (``PolyphaseResampler/DotKernel/upsampleRun``).
///
/// Output `a` of a run of `up` consecutive outputs (`p = a mod up`) starts its window
/// `off(p) = p·down / up` input samples after the run's first input sample and uses the row of
/// phase `p·down mod up`. Entry `s·up + p` is that row's tap `s − off(p)` (zero outside the
/// row), so output `p` is the sum over the ``steps`` `s` of entry `s·up + p` times input
/// `m·down + s`, and the kernel reads the `up` coefficients of one step from one place.
///
/// Immutable after creation, shared like the bank.
final class UpsampleTable: @unchecked Sendable {
  /// The most ``steps`` the kernel takes when `down` is 2 (it sizes its even and odd copies of
  /// the input by it: `PCMMIX_UPSAMPLE_MOST_SPLIT_STEPS` in `pcmmix_kernels.h`, which
  /// `UpsampleKernelTests` holds equal to this).
  static let mostStepsSplit = 1040

  /// `steps × up` floats, step-major.
  let coefficients: UnsafeMutablePointer<Float>
  /// Floats in ``coefficients``.
  let count: Int
  /// Steps per output: the taps and the furthest window offset.
  let steps: Int

  /// Steps per output for rows of `taps` taps at `up : down`: the taps and the furthest window
  /// offset, `(up − 1)·down / up`.
  static func steps(taps: Int, up: Int, down: Int) -> Int { taps + (up - 1) * down / up }

  /// The rows of `bank` (an exact one with `up` phases) for `up : down`, step-major.
  init(bank: PolyphaseBank, up: Int, down: Int) {
    precondition(bank.interpolationSteps == 0)
    let taps = bank.taps
    steps = Self.steps(taps: taps, up: up, down: down)
    count = steps * up
    coefficients = .allocate(capacity: count)
    coefficients.initialize(repeating: 0, count: count)
    for p in 0..<up {
      let row = bank.coefficients + (p * down % up) * taps
      let offset = p * down / up
      for k in 0..<taps { coefficients[(k + offset) * up + p] = row[k] }
    }
  }

  deinit { coefficients.deallocate() }
}
