/// The exact table of an integer upsampling ratio laid out tap by tap, for the direct-form
/// kernel (``PolyphaseResampler/DotKernel/upsampleRun``): entry `k·up + p` is tap `k` of phase
/// `p`'s row, so the kernel reads the `up` coefficients of one tap from one place.
///
/// Immutable after creation, shared like the bank.
final class UpsampleTable: @unchecked Sendable {
  /// `taps × up` floats, tap-major.
  let coefficients: UnsafeMutablePointer<Float>
  /// Floats in ``coefficients``.
  let count: Int

  /// The rows of `bank` (an exact one with `up` phases), tap-major.
  init(bank: PolyphaseBank, up: Int) {
    precondition(bank.interpolationSteps == 0)
    let taps = bank.taps
    count = taps * up
    coefficients = .allocate(capacity: count)
    for p in 0..<up {
      let row = bank.coefficients + p * taps
      for k in 0..<taps { coefficients[k * up + p] = row[k] }
    }
  }

  deinit { coefficients.deallocate() }
}
