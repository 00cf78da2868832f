import CPCMMixKernels
import PCMMix

/// AVX2 + FMA dot-product kernels for the built-in resampler, chosen at run time.
///
/// The core `PCMMix` product stays pure Swift; this product adds a small C target, because Swift
/// cannot use AVX2 or FMA without `unsafeFlags`, which would stop the package from being a
/// dependency. On an x86-64 CPU with AVX2 and FMA the kernels compute the same filter (fused
/// multiply-adds, so the last bits differ) in 35–38 % of the Swift path's time, sixteen outputs
/// per call where the rates allow (see `pcmmix_group16`, and `pcmmix_upsample_run` for 32, 16, 9.6
/// and 8 kHz into 48 kHz); with AVX-512F too, in 18–21 % (same bits as with AVX2 alone; see
/// ``usesAVX512``). Those shares are `balanced`'s on the README's four benchmark workloads.
/// Elsewhere ``kernel`` is `nil` and everything falls back to the Swift path.
///
/// ```swift
/// var pipeline = CapturePipeline(.init(resampler: .accelerated(.balanced)))
/// ```
public enum AcceleratedKernels {
  /// Whether this CPU runs the kernels (x86-64 with AVX2 and FMA).
  public static var isAvailable: Bool { kernel != nil }

  /// The name of the kernels (`avx2+fma`), or `nil` when this CPU cannot run them.
  public static var name: String? { kernel?.name }

  /// The resampler's kernels, or `nil` when this CPU cannot run them.
  /// Where the CPU has AVX-512F (and the OS saves its registers), the sixteen-output group
  /// functions use 512-bit registers and compute up to seven groups of one table in one pass,
  /// and the integer-upsampling function takes sixteen window starts per vector; they give the
  /// AVX2 functions' bits (`AcceleratedTests` checks), so only the speed differs.
  package static let kernel: PolyphaseResampler.DotKernel? = {
    #if arch(x86_64) || arch(i386)
      guard var k = avx2Kernel else { return nil }
      guard pcmmix_avx512_available() != 0 else { return k }
      k.group = { t, w, x, s, c, out, first, n in pcmmix_group16_512(t, w, x, s, c, out, first, n) }
      k.groupRun = { t, w, x, a, s, c, out, oa, n, first, last in
        pcmmix_group16_run_512(t, w, x, a, s, c, out, oa, n, first, last)
      }
      k.upsampleRun = { h, steps, up, down, x, s, c, phase, n, out in
        pcmmix_upsample_run_512(h, steps, up, down, x, s, c, phase, n, out)
      }
      return k
    #else
      return nil
    #endif
  }()

  /// Whether ``kernel``'s group functions use AVX-512F.
  public static var usesAVX512: Bool { kernel?.groupRun != nil }

  /// The kernels with AVX2 group functions only, whatever the CPU (for comparing the two).
  package static let avx2Kernel: PolyphaseResampler.DotKernel? = {
    #if arch(x86_64) || arch(i386)
      guard pcmmix_kernels_available() != 0 else { return nil }
      return PolyphaseResampler.DotKernel(
        name: "avx2+fma",
        dot: { h, x, n in pcmmix_dot(h, x, n) },
        dot2: { h, a, b, n, out in pcmmix_dot2(h, a, b, n, out) },
        group: { t, w, x, s, c, out, first, n in pcmmix_group16(t, w, x, s, c, out, first, n) },
        groupPair: { t, w, a, b, outa, outb in pcmmix_group16x2(t, w, a, b, outa, outb) },
        upsampleRun: { h, steps, up, down, x, s, c, phase, n, out in
          pcmmix_upsample_run(h, steps, up, down, x, s, c, phase, n, out)
        },
        lerpDot: { h0, h1, t, x, n, next in pcmmix_lerp_dot(h0, h1, t, x, n, next) },
        lerpDot2: { h0, h1, t, a, b, n, out, next in
          pcmmix_lerp_dot2(h0, h1, t, a, b, n, out, next)
        },
        lerpRun: { h, taps, steps, step, x, s, c, count, room, out, p, f, hasEnd, at, end, stop in
          pcmmix_lerp_run(
            h, taps, steps, step, x, s, c, count, room, out, p, f, hasEnd, at, end, stop)
        })
    #else
      return nil
    #endif
  }()

  /// Installs the process-wide AVX2 kernels when this CPU runs them: the int16 encoder
  /// (`PCMEncoder.install(_:)`) and the mixers' mix-and-measure pass
  /// (`MixKernel.install(mixMeasure:)`).
  /// Both give the same bits as the Swift code they replace. Returns whether it did.
  @discardableResult
  public static func install() -> Bool {
    #if arch(x86_64) || arch(i386)
      guard kernel != nil else { return false }
      PCMEncoder.install { x, n, out in pcmmix_encode_s16(x, n, out) }
      MixKernel.install { out, a, b, n, ga, gb, s, bits, sums in
        pcmmix_mix_measure(out, a, b, n, ga, gb, s, bits, sums)
      }
      return true
    #else
      return false
    #endif
  }

  /// Takes back what ``install()`` installed: the Swift code runs again.
  public static func uninstall() {
    PCMEncoder.install(nil)
    MixKernel.install(mixMeasure: nil)
  }
}

extension ResamplerFactory {
  /// The built-in ``PolyphaseResampler`` at `quality` with the AVX2 + FMA kernels where this CPU
  /// runs them (the Swift path elsewhere). Like ``ResamplerFactory/builtin(_:)``, it makes the
  /// shared minimum-phase design up front.
  public static func accelerated(_ quality: ResamplerQuality = .balanced) -> ResamplerFactory {
    builtin(quality, kernel: AcceleratedKernels.kernel)
  }

  /// The steerable ``VariableRatioResampler`` at `quality` with the AVX2 + FMA kernels where
  /// this CPU runs them, for a ``ClockedCapturePipeline``.
  public static func acceleratedVariableRatio(_ quality: ResamplerQuality = .balanced)
    -> ResamplerFactory
  {
    variableRatio(quality, kernel: AcceleratedKernels.kernel)
  }
}
