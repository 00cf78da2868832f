/// A streaming sample-rate converter over interleaved Float32 frames.
///
/// Contract, for every backend:
/// - `process` takes any number of input frames and writes whatever output is ready; history
///   carries from one call to the next, so any split of the input gives the same output.
/// - The first ``latency`` output frames are the converter's delay: output frame `j` belongs to
///   input time `(j − latency) / outputRate` seconds. A caller that wants time alignment drops them
///   (``SourceChain`` does).
/// - After the last input, `flush` is called until it returns 0; in all, `latency +
///   round(inputFrames × outputRate / inputRate)` frames come out.
public protocol Resampler {
  /// Input frames per second.
  var inputRate: Int { get }
  /// Output frames per second.
  var outputRate: Int { get }
  /// Samples per frame, in and out.
  var channelCount: Int { get }
  /// Leading output frames that are delay, not signal.
  var latency: Int { get }

  /// Converts frames from `input` into `output` (both interleaved), returning the frames
  /// consumed and produced. Input is consumed whole when `output` has room for
  /// ``maxOutputFrames(forInputFrames:)`` frames.
  mutating func process(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
  ) -> (consumed: Int, produced: Int)

  /// Writes the tail after the last input; call until it returns 0.
  mutating func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int

  /// Forgets all history, as if newly made.
  mutating func reset()

  /// The most output frames one `process` call can produce from `frames` input frames.
  func maxOutputFrames(forInputFrames frames: Int) -> Int

  /// Moves past the leading ``latency`` frames without computing them, when the backend can
  /// (the built-in one can: they are pre-roll against silence), and returns how many it
  /// skipped; a caller that wants time alignment drops the rest. Call only on a fresh or reset
  /// converter. At very low input rates the delay is seconds of output, so this matters.
  mutating func skipLatency() -> Int

  /// The same converter carried over to `channels` channels (mono → stereo: duplicated
  /// history), so a stream can change its channel count without a seam; `nil` when the backend
  /// cannot, and the caller starts a new one. May allocate.
  func remappingChannels(to channels: Int) -> (any Resampler)?

  /// Steers the conversion to `outputRate / inputRate × (1 + adjustment)` output frames per
  /// input frame from the next output on, so that a source whose clock drifts stays on time.
  /// Returns whether the backend can (``VariableRatioResampler`` and libsamplerate can; the exact
  /// rational ``PolyphaseResampler`` cannot, except for an adjustment of 0).
  mutating func adjustRatio(by adjustment: Double) -> Bool

  /// For a seamless switch of input rate: after ``flush(into:)``, writes the outputs past the
  /// end of the input that its last samples still reach (reading silence after them), so that
  /// another run's first outputs can be summed onto them; returns the frames written, or `nil`
  /// when the backend cannot. Its first output lies ``outputTimePastEnd`` output frames past
  /// the end of the input.
  mutating func ringOut(into output: UnsafeMutableBufferPointer<Float>) -> Int?

  /// After ``flush(into:)``: how far past the end of the input (in output frames, 0 ..< 1) the
  /// next output lies; `nil` when the backend cannot say.
  var outputTimePastEnd: Double? { get }

  /// For a seamless switch of input rate: forgets all history, as ``reset()`` does, and starts
  /// the output early enough that its first frames, summed onto the previous run's
  /// ``ringOut(into:)``, continue it without a seam, on its grid: one output lies `offset`
  /// output frames after input time 0 (the previous run's ``outputTimePastEnd``). Returns how
  /// many outputs come before that one (the frames to sum onto those already given), or `nil`
  /// when the backend cannot (then use ``reset()`` and ``skipLatency()``).
  mutating func resetToOverlap(firstOutputAt offset: Double) -> Int?

  /// Whether ``ringOut(into:)`` and ``resetToOverlap(firstOutputAt:)`` work.
  var overlapsRuns: Bool { get }

  /// Output frames one input sample reaches (the filter's whole span), where the backend knows.
  var filterSpan: Int? { get }

  /// Bytes of storage this converter holds that it can see: history, scratch, and coefficient
  /// tables it does not share with other converters. What a C library keeps privately is not
  /// included (each backend's documentation says what it counts).
  var retainedBytes: Int { get }
}

extension Resampler {
  /// Not supported unless the backend says otherwise.
  public mutating func ringOut(into output: UnsafeMutableBufferPointer<Float>) -> Int? { nil }

  /// Not supported unless the backend says otherwise.
  public var outputTimePastEnd: Double? { nil }

  /// Not supported unless the backend says otherwise.
  public mutating func resetToOverlap(firstOutputAt offset: Double) -> Int? { nil }

  /// Not supported unless the backend says otherwise.
  public var overlapsRuns: Bool { false }

  /// Not known unless the backend says.
  public var filterSpan: Int? { nil }

  /// By default nothing is skipped: the caller drops all ``latency`` frames.
  public mutating func skipLatency() -> Int { 0 }

  /// By default a backend cannot carry its state to another channel count.
  public func remappingChannels(to channels: Int) -> (any Resampler)? { nil }

  /// By default a backend reports no storage of its own.
  public var retainedBytes: Int { 0 }

  /// By default the ratio is fixed: only an adjustment of 0 is taken.
  public mutating func adjustRatio(by adjustment: Double) -> Bool { adjustment == 0 }
}

/// Integer helpers for exact rational rate arithmetic.
package enum RateRatio {
  /// Greatest common divisor of two positive integers.
  package static func gcd(_ a: Int, _ b: Int) -> Int {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
  }

  /// `round(frames × outputRate / inputRate)`, halves rounded up, exactly.
  package static func outputFrames(forInputFrames frames: Int, inputRate: Int, outputRate: Int)
    -> Int
  {
    let g = gcd(inputRate, outputRate)
    let (l, m) = (outputRate / g, inputRate / g)
    return (2 * frames * l + m) / (2 * m)
  }
}
