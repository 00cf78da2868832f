/// A configuration value the library cannot work with, thrown where the value is given (a
/// resampler specification, a mixer's bounds) instead of trapping later inside a callback.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The parameter at fault, as it is spelled in code (`stopbandEdge`, `capacityFrames`).
  public let parameter: String
  /// What the parameter must be, with the value given.
  public let message: String

  /// An error about `parameter`.
  public init(_ parameter: String, _ message: String) {
    self.parameter = parameter
    self.message = message
  }

  /// For example `stopbandEdge: 0.8 is not above passbandEdge 0.9`.
  public var description: String { "\(parameter): \(message)" }
}
