/// How a pipeline picks its resampler: makes one for a rate pair and channel count whenever a
/// source starts or changes format.
///
/// Every backend is spelled the same way, as a static member:
///
/// ```swift
/// SourceChain(resampler: .builtin(.balanced))        // PolyphaseResampler, fixed ratio
/// ClockedCapturePipeline.Configuration(resampler: .variableRatio(.balanced))  // steerable
/// // import PCMMixAccelerated:  .accelerated(.balanced), .acceleratedVariableRatio(.balanced)
/// // import PCMMixSampleRate:   .libsamplerate(.sincMedium)
/// ```
///
/// A backend of your own is a closure: `ResamplerFactory { input, output, channels in ... }`.
/// The factory is called on the thread that feeds the source, so it should not block; the
/// built-in ones make their shared tables when the factory is made, not when it is called.
public struct ResamplerFactory: Sendable {
  private let make:
    @Sendable (_ inputRate: Int, _ outputRate: Int, _ channels: Int) -> any Resampler

  /// A factory that calls `make` with the input rate, the output rate and the channel count.
  public init(
    _ make:
      @escaping @Sendable (_ inputRate: Int, _ outputRate: Int, _ channels: Int) ->
      any Resampler
  ) {
    self.make = make
  }

  /// A resampler from `inputRate` to `outputRate` for `channels` interleaved channels.
  public func callAsFunction(_ inputRate: Int, _ outputRate: Int, _ channels: Int)
    -> any Resampler
  {
    make(inputRate, outputRate, channels)
  }
}

extension ResamplerFactory {
  /// The built-in ``PolyphaseResampler`` at `quality`, at a fixed ratio; makes the shared
  /// minimum-phase design up front (`PolyphaseResampler.prepareDesign(for:)`, package).
  public static func builtin(_ quality: ResamplerQuality = .balanced) -> ResamplerFactory {
    builtin(quality, kernel: nil)
  }

  /// The built-in ``VariableRatioResampler`` at `quality`, whose ratio a
  /// ``ClockedCapturePipeline`` steers to follow a drifting clock; makes its shared tables up
  /// front.
  public static func variableRatio(_ quality: ResamplerQuality = .balanced) -> ResamplerFactory {
    variableRatio(quality, kernel: nil)
  }

  /// ``builtin(_:)`` with `kernel`'s dot products (`nil`: the Swift ones).
  package static func builtin(_ quality: ResamplerQuality, kernel: PolyphaseResampler.DotKernel?)
    -> ResamplerFactory
  {
    PolyphaseResampler.prepareDesign(for: quality)
    return ResamplerFactory {
      PolyphaseResampler(
        inputRate: $0, outputRate: $1, channelCount: $2, quality: quality, kernel: kernel)
    }
  }

  /// ``variableRatio(_:)`` with `kernel`'s dot products (`nil`: the Swift ones).
  package static func variableRatio(
    _ quality: ResamplerQuality, kernel: PolyphaseResampler.DotKernel?
  ) -> ResamplerFactory {
    // The tables every upsampling rate into 48 kHz uses: linear and minimum phase (for the
    // presets, minimum phase for both, one table).
    _ = PolyphaseBank.interpolated(inputRate: 8_000, outputRate: 48_000, quality: quality)
    _ = PolyphaseBank.interpolated(inputRate: 48_000, outputRate: 48_000, quality: quality)
    return ResamplerFactory {
      VariableRatioResampler(
        inputRate: $0, outputRate: $1, channelCount: $2, quality: quality, kernel: kernel)
    }
  }
}
