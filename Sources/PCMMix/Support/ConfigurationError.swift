/// A configuration value the library cannot work with, thrown where the value is given (a
/// resampler specification: ``ResamplerQuality``'s initializer) instead of trapping later
/// inside a callback. (The mixer and the pipelines take values out of
/// range as the nearest in range instead.)
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The parameter at fault, as it is spelled in code (`stopbandEdge`, `attenuation`).
  public let parameter: String
  /// What the parameter must be, with the value given.
  public let message: String

  /// An error about `parameter`.
  public init(_ parameter: String, _ message: String) {
    self.parameter = parameter
    self.message = message
  }

  /// For example `attenuation: 10.0 dB is not in 20 … 200 dB`.
  public var description: String { "\(parameter): \(message)" }
}
