import CSampleRate
import PCMMix

/// A ``Resampler`` backed by libsamplerate (Secret Rabbit Code), any of its five converters.
///
/// Output is exactly what libsamplerate's `src_process` gives for the same input: `process`
/// hands the input to it with `end_of_input` 0 (presenting again, in the same call, any frames
/// it left unconsumed), and nothing is computed here.
///
/// ```swift
/// var r = SampleRateResampler(
///   converter: .sincBest, inputRate: 44_100, outputRate: 48_000, channelCount: 2)
/// let (consumed, produced) = r.process(input, into: output)
/// var chain = SourceChain(resampler: .libsamplerate(.sincMedium))
/// ```
///
/// **Latency.** libsamplerate centres its sinc filters on the ideal output instant, so the sinc
/// converters are time-aligned and ``latency`` is 0: a tone's fitted phase is within 2e-6 rad
/// of the ideal for tones up to 0.9 of the lower Nyquist at 8 … 192 kHz in. They do hold back
/// about half their filter, 156 / 50 / 21 frames at 44.1 → 48 kHz for best / medium / fastest,
/// until more input or ``flush(into:)`` releases it: a wait in real time, not an offset.
/// The zero-order hold and linear converters begin by treating a copy of the first sample as
/// the sample before it, so they run one input sample (`r` = outputRate / inputRate output
/// frames) late; ``latency`` drops the nearest whole number of frames:
/// - linear: the lag is exactly `r`; ``latency`` is `r` rounded (halves up), leaving `r − latency`
///   (0 for whole ratios, otherwise within ½ frame) in the output.
/// - zero-order hold: holding each sample adds half an input sample, `1.5 r` frames in all;
///   where output instants fall exactly on input samples (whole or simple ratios), rounding in
///   libsamplerate's position arithmetic moves that by up to ½ frame either way. ``latency`` is
///   `1.5 r` rounded (halves down); what remains measures −0.5 … +0.5 frames for r ≥ ½.
///
/// Both are at least 1: while streaming these two already give ⌈n·r⌉ (linear) or ⌊n·r⌋ + 1
/// (hold) frames for n frames in, one more than `round(n·r)` at times, so with latency 0 the
/// total could overshoot. Below r = ½ this leaves up to ¾ frame early (−0.75 at 192 → 48 kHz).
///
/// **Length.** After the last input, ``flush(into:)`` brings the total to exactly
/// `latency + round(inputFrames × r)` frames. libsamplerate's own end-of-input total can fall a
/// frame short of that, and the hold and linear converters ignore end of input altogether, so
/// flush feeds `⌈inputRate / outputRate⌉ + 1` frames of silence with `end_of_input` 1 on every
/// call (the sinc converters take the silence once and then drain; the others take it each time)
/// and stops at the target. Every frame is what libsamplerate gives for the input followed by
/// silence; for the sinc converters the frames before its own end are bit-identical to a plain
/// end-of-input drain, which pads with zeros too.
///
/// **Cost.** `init` allocates libsamplerate's state: about 431 KiB per channel for best,
/// 138 KiB for medium, 59 KiB for fastest, under 1 KiB for the others, plus the silence block.
/// `process` and `flush` allocate nothing unless the value was copied (see below). Each output
/// frame costs about twice the converter's taps in multiply-adds per channel.
///
/// **Copies.** A copy shares the C state until one of the two is changed; the one changed first
/// then clones it (`src_clone`, an allocation the size of the state) so copies stay independent
/// as any Swift value does. ``SourceChain`` mutates its resampler in place and never copies it.
///
/// - Precondition: rates in 1 … 768,000 Hz with outputRate / inputRate in libsamplerate's range
///   1/256 … 256 (a rate outside it is the caller's mistake; the message is libsamplerate's),
///   1 … 64 channels. libsamplerate reports no other errors once made, except for overlapping
///   input and output buffers, which also stop the program.
public struct SampleRateResampler: Resampler {
  /// The libsamplerate converter in use.
  public let converter: Converter
  /// Input frames per second.
  public let inputRate: Int
  /// Output frames per second.
  public let outputRate: Int
  /// Interleaved channels in each frame.
  public let channelCount: Int
  /// Output frames of delay the caller drops (see the type's discussion).
  public let latency: Int

  /// The flush's block of silence. libsamplerate's own state (its history buffer, allocated by
  /// `src_new`) is private to it and not counted.
  public var retainedBytes: Int { silence.capacity * 4 }

  /// outputRate / inputRate, as libsamplerate takes it.
  let nominalRatio: Double
  /// The ratio in force: the nominal one, steered by ``adjustRatio(by:)``.
  var ratio: Double
  /// The ratio adjustment in force (see ``adjustRatio(by:)``).
  public private(set) var ratioAdjustment = 0.0
  /// The C state, copied on write.
  var box: SampleRateState
  /// Frames of silence per flush call.
  let silenceFrames: Int
  /// `silenceFrames × channelCount` zeros, shared by copies (never written).
  let silence: [Float]
  /// Input frames taken since creation or reset.
  var framesIn = 0
  /// Output frames written since creation or reset.
  var framesOut = 0

  /// Creates a converter; the one place that allocates (`src_new`).
  ///
  /// - Precondition: see ``SampleRateResampler``; a failure stops with libsamplerate's message.
  public init(converter: Converter, inputRate: Int, outputRate: Int, channelCount: Int) {
    precondition(
      (1...PCMFormat.maxSampleRate).contains(inputRate), "input rate \(inputRate) Hz out of range")
    precondition(
      (1...PCMFormat.maxSampleRate).contains(outputRate),
      "output rate \(outputRate) Hz out of range")
    precondition(
      (1...PCMFormat.maxChannels).contains(channelCount), "\(channelCount) channels out of range")
    self.converter = converter
    self.inputRate = inputRate
    self.outputRate = outputRate
    self.channelCount = channelCount
    nominalRatio = Double(outputRate) / Double(inputRate)
    ratio = nominalRatio
    box = SampleRateState(converterType: converter.converterType, channels: channelCount)
    let error = src_set_ratio(box.state, ratio)
    precondition(
      error == 0,
      "libsamplerate: \(SampleRateState.message(error)) "
        + "(\(inputRate) → \(outputRate) Hz; the ratio must be in 1/256 … 256)")
    latency = Self.latency(for: converter, inputRate: inputRate, outputRate: outputRate)
    silenceFrames = (inputRate + outputRate - 1) / outputRate + 1
    silence = [Float](repeating: 0, count: silenceFrames * channelCount)
  }

  /// Whether libsamplerate converts between these rates: output / input within 1/256 … 256.
  public static func supports(inputRate: Int, outputRate: Int) -> Bool {
    inputRate > 0 && outputRate > 0 && outputRate <= 256 * inputRate
      && inputRate <= 256 * outputRate
  }

  /// The linked libsamplerate's version string (`src_get_version`).
  public static var libraryVersion: String { String(cString: src_get_version()) }

  /// The whole output frames a converter lags at a rate pair: 0 for sinc; at least 1 otherwise.
  static func latency(for converter: Converter, inputRate: Int, outputRate: Int) -> Int {
    switch converter {
    case .sincBest, .sincMedium, .sincFastest:
      return 0
    case .linear:
      // r = outputRate / inputRate, halves up.
      let r = RateRatio.outputFrames(
        forInputFrames: 1, inputRate: inputRate, outputRate: outputRate)
      return max(1, r)
    case .zeroOrderHold:
      // 1.5 r with halves down: ⌈(3·out − in) / (2·in)⌉.
      return max(1, (3 * outputRate + inputRate - 1) / (2 * inputRate))
    }
  }

  /// The most frames ``process(_:into:)`` can write for `frames` input frames.
  public func maxOutputFrames(forInputFrames frames: Int) -> Int {
    let exact = (frames * outputRate + inputRate - 1) / inputRate + 2
    guard ratioAdjustment > 0 else { return exact }
    return Int((Double(frames) * ratio).rounded(.up)) + 2
  }

  /// Steers the ratio to `outputRate / inputRate × (1 + adjustment)` from the next output on
  /// (clamped to ±1 % and to libsamplerate's range).
  ///
  /// libsamplerate's own variable ratio glides from one call's ratio to the next over the
  /// *output buffer's capacity*, so how fast it follows would depend on the caller's buffer
  /// size; the new ratio is set outright instead (`src_set_ratio`). Drift correction moves it by
  /// a few parts per million at a time, far below anything audible as a step.
  public mutating func adjustRatio(by adjustment: Double) -> Bool {
    let a = min(max(adjustment, -0.01), 0.01)
    let steered = min(max(nominalRatio * (1 + a), 1.0 / 256), 256)
    guard steered != ratio else { return true }
    makeUnique()
    ratio = steered
    ratioAdjustment = ratio / nominalRatio - 1
    let error = src_set_ratio(box.state, ratio)
    precondition(error == 0, "libsamplerate src_set_ratio: \(SampleRateState.message(error))")
    return true
  }

  /// Converts what `src_process` takes of `input` into `output`; returns the input frames consumed
  /// and output frames written.
  public mutating func process(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
  ) -> (consumed: Int, produced: Int) {
    let channels = channelCount
    let frames = input.count / channels
    let room = output.count / channels
    guard frames > 0, room > 0, let source = input.baseAddress, let target = output.baseAddress
    else { return (0, 0) }
    makeUnique()
    var consumed = 0
    var produced = 0
    // libsamplerate may leave a frame when an output instant lands on the end of the input;
    // presenting it again takes it.
    while consumed < frames && produced < room {
      let step = call(
        source + consumed * channels, frames - consumed, target + produced * channels,
        room - produced, endOfInput: false)
      consumed += step.used
      produced += step.generated
      if step.used == 0 && step.generated == 0 { break }
    }
    framesIn += consumed
    framesOut += produced
    return (consumed, produced)
  }

  /// Hands libsamplerate the end of input and writes the frames it held back; returns the frames
  /// written.
  public mutating func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    let channels = channelCount
    // Steered, the count follows the ratio in force; otherwise it is exact.
    let target =
      latency
      + (ratioAdjustment == 0
        ? RateRatio.outputFrames(
          forInputFrames: framesIn, inputRate: inputRate, outputRate: outputRate)
        : Int((Double(framesIn) * ratio).rounded()))
    let room = min(output.count / channels, target - framesOut)
    guard room > 0, let out = output.baseAddress else { return 0 }
    makeUnique()
    var produced = 0
    let zeros = silence
    zeros.withUnsafeBufferPointer { zeros in
      while produced < room {
        let step = call(
          zeros.baseAddress!, silenceFrames, out + produced * channels, room - produced,
          endOfInput: true)
        if step.generated == 0 { break }
        produced += step.generated
      }
    }
    if produced < room {
      // libsamplerate ended before the target (not seen in testing): past its end is silence.
      (out + produced * channels).update(repeating: 0, count: (room - produced) * channels)
      produced = room
    }
    framesOut += produced
    return produced
  }

  /// Forgets all history (`src_reset`), as if newly made.
  public mutating func reset() {
    makeUnique()
    src_reset(box.state)
    framesIn = 0
    framesOut = 0
  }

  /// One `src_process` call exactly as given, with no bookkeeping: the raw path the tests
  /// compare with other bindings of libsamplerate. An empty `input` is passed as a non-null
  /// pointer with 0 frames, so that `endOfInput` takes effect.
  mutating func _rawProcess(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>,
    endOfInput: Bool
  ) -> (used: Int, generated: Int) {
    makeUnique()
    let zeros = silence
    return zeros.withUnsafeBufferPointer { zeros in
      call(
        input.baseAddress ?? zeros.baseAddress!, input.count / channelCount,
        output.baseAddress ?? UnsafeMutablePointer(mutating: zeros.baseAddress!),
        output.count / channelCount, endOfInput: endOfInput)
    }
  }

  /// One `src_process` call.
  private func call(
    _ input: UnsafePointer<Float>, _ inputFrames: Int, _ output: UnsafeMutablePointer<Float>,
    _ outputFrames: Int, endOfInput: Bool
  ) -> (used: Int, generated: Int) {
    var data = SRC_DATA(
      data_in: input, data_out: output, input_frames: inputFrames, output_frames: outputFrames,
      input_frames_used: 0, output_frames_gen: 0, end_of_input: endOfInput ? 1 : 0,
      src_ratio: ratio)
    let error = src_process(box.state, &data)
    precondition(error == 0, "libsamplerate src_process: \(SampleRateState.message(error))")
    return (data.input_frames_used, data.output_frames_gen)
  }

  /// Clones the C state if a copy of this value shares it.
  private mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&box) { box = SampleRateState(cloning: box) }
  }
}

extension ResamplerFactory {
  /// libsamplerate's `converter` (``SampleRateResampler``), for ``SourceChain``, a
  /// ``CapturePipeline`` or a ``ClockedCapturePipeline`` (it can be steered).
  ///
  /// For a rate pair libsamplerate cannot convert (``SampleRateResampler/supports(inputRate:outputRate:)``),
  /// which a capture stream's description may still name, the factory makes the built-in
  /// ``PolyphaseResampler`` instead of trapping inside a capture callback.
  public static func libsamplerate(_ converter: SampleRateResampler.Converter) -> ResamplerFactory {
    ResamplerFactory {
      guard SampleRateResampler.supports(inputRate: $0, outputRate: $1) else {
        return PolyphaseResampler(inputRate: $0, outputRate: $1, channelCount: $2)
      }
      return SampleRateResampler(
        converter: converter, inputRate: $0, outputRate: $1, channelCount: $2)
    }
  }
}
