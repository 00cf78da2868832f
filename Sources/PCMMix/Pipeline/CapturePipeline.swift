/// The whole capture path: app and mic buffers in, one mixed stereo stream out.
///
/// ```swift
/// var pipeline = CapturePipeline()
/// try pipeline.prepare(app: appASBD, mic: micASBD)         // optional: build filters up front
/// try pipeline.append(.app, appBytes, description: appASBD)   // e.g. 44.1 kHz stereo s16be
/// try pipeline.append(.mic, micBytes, description: micASBD)   // e.g. 32 kHz mono s16le
/// let frames = pipeline.mix(into: output)                  // 48 kHz stereo int16
/// ```
/// Each source runs its own ``SourceChain`` (probe, decode, upmix, resample) into its side of a
/// ``DualBufferMixer``. Storage is allocated at creation and when a source's input rate changes;
/// appending and mixing allocate nothing, and memory is bounded by the configuration.
public struct CapturePipeline {
  /// App or mic: the word every capture pipeline uses for the two inputs.
  public typealias Side = DualBufferMixer.Side

  /// Output rate, mixer bounds and policy, resampler backend.
  public struct Configuration: Sendable {
    /// Frames per second out (default 48,000).
    public var outputRate: Int
    /// Mixer bounds, policy and gains (the default bounds are for 48 kHz).
    public var mixer: DualBufferMixer.Configuration
    /// The resampler backend for both sources.
    public var resampler: ResamplerFactory
    /// Input rates a capture source may declare (default 1 kHz … 768 kHz). A description below
    /// the range is refused with ``ProbeError/invalidSampleRate(_:)``: at 1 Hz one frame is a
    /// second of output, so a bogus rate would mean seconds of work inside a callback.
    public var inputRates: ClosedRange<Int>

    /// Creates a configuration.
    public init(
      outputRate: Int = 48_000, mixer: DualBufferMixer.Configuration = .init(),
      resampler: ResamplerFactory = .builtin(.balanced),
      inputRates: ClosedRange<Int> = 1_000...PCMFormat.maxSampleRate
    ) {
      self.outputRate = outputRate
      self.mixer = mixer
      self.resampler = resampler
      self.inputRates = inputRates
    }
  }

  /// The app source's chain.
  public private(set) var app: SourceChain
  /// The mic source's chain.
  public private(set) var mic: SourceChain
  /// The mixer, with its counters, meters and per-source gains; change it through
  /// ``setGain(_:dB:)`` and ``setEnabled(_:_:)``, and feed it through
  /// ``append(_:_:description:)``, which probes, decodes and resamples first.
  public private(set) var mixer: DualBufferMixer
  /// Input rates a source may declare.
  public let inputRates: ClosedRange<Int>

  /// Creates a pipeline. It mixes stereo, so its mixer runs with two channels whatever
  /// `configuration.mixer.channelCount` says.
  public init(_ configuration: Configuration = Configuration()) {
    var configuration = configuration
    configuration.mixer.channelCount = 2
    app = SourceChain(
      outputRate: configuration.outputRate, outputChannels: 2,
      resampler: configuration.resampler)
    mic = SourceChain(
      outputRate: configuration.outputRate, outputChannels: 2,
      resampler: configuration.resampler)
    mixer = DualBufferMixer(configuration.mixer)
    inputRates = configuration.inputRates
  }

  /// Refuses a description whose rate lies outside ``inputRates``.
  func check(_ description: StreamDescription) throws(ProbeError) {
    let rate = description.sampleRate
    guard rate >= Double(inputRates.lowerBound), rate <= Double(inputRates.upperBound) else {
      throw .invalidSampleRate(rate)
    }
  }

  /// Configures both chains for the formats the capture will deliver, before the first buffer,
  /// so that no callback allocates (the filter tables are built here rather than in the first
  /// callback). Either may be `nil` to leave that source to configure itself. `rates` lists
  /// the other input rates a source may switch to mid-stream (a mic that AirPods move to
  /// 16 kHz): their resamplers are made now too, so such a switch allocates nothing (see
  /// ``SourceChain/prepare(for:rates:into:)``).
  public mutating func prepare(
    app appDescription: StreamDescription?, mic micDescription: StreamDescription?,
    rates: [Int] = []
  ) throws(ProbeError) {
    if let appDescription {
      try check(appDescription)
      try app.prepare(for: appDescription, rates: rates, into: &mixer.app)
    }
    if let micDescription {
      try check(micDescription)
      try mic.prepare(for: micDescription, rates: rates, into: &mixer.mic)
    }
  }

  /// Takes one audio buffer for `side`.
  ///
  /// - Throws: ``ProbeError`` when the description is not readable PCM, declares a rate outside
  ///   ``inputRates``, or the bytes are not a whole number of frames; the buffer is then not used
  ///   and the stream continues.
  /// - Complexity: O(frames in the buffer).
  public mutating func append(
    _ side: Side, _ bytes: UnsafeRawBufferPointer, description: StreamDescription
  ) throws(ProbeError) {
    try append(side, .bytes(bytes), description: description)
  }

  /// Takes one audio buffer for `side` given as planes: one raw buffer per channel for a
  /// non-interleaved description (as an `AudioBufferList` holds them, each anywhere in memory,
  /// all the same size), exactly one for an interleaved description or mono. The planes are read
  /// where they lie: nothing is gathered, copied or allocated.
  ///
  /// - Throws: ``ProbeError`` as ``append(_:_:description:)`` does, and
  ///   ``ProbeError/planeCountMismatch(_:expected:)``,
  ///   ``ProbeError/unequalPlanes(index:byteCount:expected:)`` or
  ///   ``ProbeError/partialPlane(byteCount:bytesPerSample:)`` when the planes are not one per
  ///   channel, not the same size, or not whole samples; the buffer is then not used and the
  ///   stream continues.
  /// - Complexity: O(frames in the buffer).
  public mutating func append(
    _ side: Side, planes: UnsafeBufferPointer<UnsafeRawBufferPointer>,
    description: StreamDescription
  ) throws(ProbeError) {
    try append(side, .planes(planes), description: description)
  }

  /// Takes one buffer of either shape for `side`.
  mutating func append(
    _ side: Side, _ input: PCMInput, description: StreamDescription
  ) throws(ProbeError) {
    try check(description)
    if side == .app {
      try app.process(input, description: description, into: &mixer.app)
    } else {
      try mic.process(input, description: description, into: &mixer.mic)
    }
  }

  /// Mixes what is ready into `output` (interleaved stereo int16), returning the frames written.
  public mutating func mix(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
    mixer.mix(into: output)
  }

  /// Mixes what is ready into `output` (interleaved stereo Float32), returning the frames
  /// written.
  public mutating func mix(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    mixer.mix(into: output)
  }

  /// Sets a source's gain in dB (0 dB is exactly 1, so 0 dB mixes stay bit-exact).
  public mutating func setGain(_ side: Side, dB: Double) {
    mixer.setGain(side, dB: dB)
  }

  /// Enables or disables a source. Disabling drops (and counts) what it had buffered; while
  /// disabled, what it is given is dropped and counted.
  public mutating func setEnabled(_ side: Side, _ enabled: Bool) {
    mixer.setEnabled(side, enabled)
  }

  /// At the end of `side`'s stream: flushes its resampler's tail into the mixer.
  public mutating func finish(_ side: Side) {
    if side == .app {
      app.flush(into: &mixer.app)
    } else {
      mic.flush(into: &mixer.mic)
    }
  }

  /// Bytes of storage held by the chains and the mixer.
  public var retainedBytes: Int {
    app.retainedBytes + mic.retainedBytes + mixer.retainedBytes
  }
}
