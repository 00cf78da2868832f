// The names this release retired, each forwarding to its replacement for one release (see
// CHANGELOG.md). They are removed in the next minor release; nothing in the package calls them
// except `DeprecatedNamesTests`, which checks that each still forwards.

extension CapturePipeline {
  /// The old spelling of `append(.app, …)`.
  @available(*, deprecated, message: "use append(.app, bytes, description:)")
  public mutating func appendApp(
    _ bytes: UnsafeRawBufferPointer, description: StreamDescription
  ) throws(ProbeError) {
    try append(.app, bytes, description: description)
  }

  /// The old spelling of `append(.mic, …)`.
  @available(*, deprecated, message: "use append(.mic, bytes, description:)")
  public mutating func appendMic(
    _ bytes: UnsafeRawBufferPointer, description: StreamDescription
  ) throws(ProbeError) {
    try append(.mic, bytes, description: description)
  }

  /// The old spelling of `append(.app, …)`.
  @available(*, deprecated, message: "use append(.app, planes:description:)")
  public mutating func appendApp(
    planes: UnsafeBufferPointer<UnsafeRawBufferPointer>, description: StreamDescription
  ) throws(ProbeError) {
    try append(.app, planes: planes, description: description)
  }

  /// The old spelling of `append(.mic, …)`.
  @available(*, deprecated, message: "use append(.mic, planes:description:)")
  public mutating func appendMic(
    planes: UnsafeBufferPointer<UnsafeRawBufferPointer>, description: StreamDescription
  ) throws(ProbeError) {
    try append(.mic, planes: planes, description: description)
  }

  /// The old spelling of `finish(.app)` followed by `finish(.mic)`.
  @available(*, deprecated, message: "use finish(.app) and finish(.mic)")
  public mutating func finish() {
    finish(.app)
    finish(.mic)
  }
}

@available(*, deprecated, message: "use RealtimeCapturePipeline")
extension SharedCapturePipeline {
  /// The old spelling of `append(.app, …)`.
  @available(*, deprecated, message: "use append(.app, bytes, description:)")
  public func appendApp(
    _ bytes: UnsafeRawBufferPointer, description: StreamDescription
  ) throws(ProbeError) {
    try append(.app, bytes, description: description)
  }

  /// The old spelling of `append(.mic, …)`.
  @available(*, deprecated, message: "use append(.mic, bytes, description:)")
  public func appendMic(
    _ bytes: UnsafeRawBufferPointer, description: StreamDescription
  ) throws(ProbeError) {
    try append(.mic, bytes, description: description)
  }
}

extension DualBufferMixer {
  /// The old spelling of ``DualBufferMixer/append(_:samples:)``.
  @available(*, deprecated, renamed: "append(_:samples:)")
  public mutating func append(_ side: Side, _ samples: UnsafeBufferPointer<Float>) {
    append(side, samples: samples)
  }
}

extension DualBufferMixer.Configuration {
  /// The old name of ``DualBufferMixer/Configuration/clamped``.
  @available(*, deprecated, renamed: "clamped")
  public var normalized: Self { clamped }
}

/// The old name of ``CaptureSideStatistics``.
@available(*, deprecated, renamed: "CaptureSideStatistics")
public typealias CaptureSourceStatistics = CaptureSideStatistics

extension LevelMeter.Configuration {
  /// A configuration from a `Double` rate (rounded; a non-finite or out-of-range one takes 48,000).
  @available(*, deprecated, message: "sample rates are Int frames per second")
  public init(sampleRate: Double, holdSeconds: Double = 1, decayDBPerSecond: Double = 20) {
    self.init(
      sampleRate: Int(exactly: sampleRate.rounded()) ?? 48_000, holdSeconds: holdSeconds,
      decayDBPerSecond: decayDBPerSecond)
  }
}

extension Limiter.Configuration {
  /// A configuration from a `Double` rate (rounded; a non-finite or out-of-range one takes 48,000).
  @available(*, deprecated, message: "sample rates are Int frames per second")
  public init(
    channelCount: Int = 2, ceilingDB: Double = -1, lookaheadFrames: Int = 48,
    releaseSeconds: Double = 0.1, holdSeconds: Double = 0.01, sampleRate: Double
  ) {
    self.init(
      channelCount: channelCount, ceilingDB: ceilingDB, lookaheadFrames: lookaheadFrames,
      releaseSeconds: releaseSeconds, holdSeconds: holdSeconds,
      sampleRate: Int(exactly: sampleRate.rounded()) ?? 48_000)
  }
}
