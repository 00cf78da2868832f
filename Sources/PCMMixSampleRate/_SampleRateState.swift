import CSampleRate

/// Owns one libsamplerate `SRC_STATE`: made by `src_new` or `src_clone`, freed by `src_delete`
/// when the last reference goes.
///
/// ``SampleRateResampler`` holds one and copies it on write, so the struct keeps value
/// semantics over a C object that is not a value.
final class SampleRateState {
  let state: OpaquePointer

  /// A new converter; stops the program with libsamplerate's message if it cannot be made.
  init(converterType: Int32, channels: Int) {
    var error: Int32 = 0
    let made = src_new(converterType, Int32(channels), &error)
    guard let made else {
      preconditionFailure("libsamplerate src_new: \(Self.message(error))")
    }
    state = made
  }

  /// An independent copy with the same history (`src_clone`).
  init(cloning other: SampleRateState) {
    var error: Int32 = 0
    let made = src_clone(other.state, &error)
    guard let made else {
      preconditionFailure("libsamplerate src_clone: \(Self.message(error))")
    }
    state = made
  }

  deinit { src_delete(state) }

  /// libsamplerate's text for an error number.
  static func message(_ error: Int32) -> String {
    guard let text = src_strerror(error) else { return "error \(error)" }
    return String(cString: text)
  }
}
