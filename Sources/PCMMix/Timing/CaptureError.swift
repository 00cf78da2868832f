/// Why a capture pipeline refused a configuration, a buffer or its stamp. Thrown with typed
/// throws, so a `do throws(CaptureError) { … } catch { switch error { … } }` sees these cases
/// even inside a closure.
public enum CaptureError: Error, Equatable, Sendable {
  /// The buffer's description is not readable PCM, declares a rate outside the configured
  /// input rates, or its bytes are not whole frames; or, at creation, a format given for a
  /// source is so.
  case format(ProbeError)
  /// Another thread was inside `append` for the same source (each source's buffers must come
  /// from one thread at a time); the buffer was not taken.
  case concurrentCall
  /// A configuration value the pipeline cannot work with (see
  /// ``ClockedCapturePipeline/Configuration``), named with the value given.
  case configuration(ConfigurationError)
  /// The buffer's stamp lies further from the pipeline's origin than its timeline reaches
  /// (``ClockedCapturePipeline/Configuration/maximumTimeFromOrigin``): a stamp like
  /// `Int64.max` nanoseconds cannot be a host time. The buffer was not taken.
  case timeOutOfRange(MediaTime)
}

extension CaptureError: CustomStringConvertible {
  /// What went wrong, in words.
  public var description: String {
    switch self {
    case .format(let e): e.description
    case .concurrentCall: "another thread was appending to the same source at the same time"
    case .configuration(let e): "configuration: \(e)"
    case .timeOutOfRange(let t):
      "stamp \(t) is more than "
        + "\(Int(ClockedCapturePipeline.Configuration.maximumTimeFromOrigin)) s from the origin"
    }
  }
}
