import PCMMix

// The kernels as the pipelines take them (``AcceleratedKernels`` is the kernels alone, which the
// arm64 check also compiles as Embedded Swift, where the pipeline's factories do not exist).
extension ResamplerFactory {
  /// The built-in ``PolyphaseResampler`` at `quality` with the AVX2 + FMA kernels where this CPU
  /// runs them, the NEON ones on arm64 (the Swift path elsewhere). Like
  /// ``ResamplerFactory/builtin(_:)``, it makes the shared minimum-phase design up front.
  public static func accelerated(_ quality: ResamplerQuality = .balanced) -> ResamplerFactory {
    builtin(quality, kernel: AcceleratedKernels.kernel)
  }

  /// The steerable ``VariableRatioResampler`` at `quality` with the AVX2 + FMA kernels where
  /// this CPU runs them, the NEON ones on arm64, for a ``ClockedCapturePipeline``.
  public static func acceleratedVariableRatio(_ quality: ResamplerQuality = .balanced)
    -> ResamplerFactory
  {
    variableRatio(quality, kernel: AcceleratedKernels.kernel)
  }
}
