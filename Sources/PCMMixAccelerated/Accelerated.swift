import CPCMMixKernels
import PCMMix

/// Dot-product kernels for the built-in resampler: AVX2 + FMA on x86-64 (chosen at run time),
/// NEON on arm64.
///
/// The core `PCMMix` product stays pure Swift; this product adds a small C target, because Swift
/// cannot use AVX2 or FMA without `unsafeFlags`, which would stop the package from being a
/// dependency. On an x86-64 CPU with AVX2 and FMA the kernels compute the same filter (fused
/// multiply-adds, so the last bits differ from x86's portable path) in 35–38 % of the Swift
/// path's time, sixteen outputs per call where the rates allow (see `pcmmix_group16`, and
/// `pcmmix_upsample_run` for 32, 16, 9.6 and 8 kHz into 48 kHz); with AVX-512F too, in 18–21 %
/// (same bits as with AVX2 alone; see ``usesAVX512``). Those shares are `balanced`'s on the
/// README's four benchmark workloads. On arm64 (every iPhone, Apple silicon Macs) the kernels are
/// NEON (`pcmmix_neon_*`), which every arm64 CPU runs: they give the AVX2 kernels' bits
/// (`scripts/arm64/kernels-check.sh` compares them under qemu), as do arm64's portable kernels,
/// so there the output is the same with or without them. Elsewhere ``kernel`` is `nil` and
/// everything falls back to the Swift path.
///
/// ```swift
/// var pipeline = CapturePipeline(.init(resampler: .accelerated(.balanced)))
/// ```
public enum AcceleratedKernels {
  /// Whether this CPU runs the kernels (x86-64 with AVX2 and FMA, or any arm64).
  public static var isAvailable: Bool { kernel != nil }

  /// The name of the kernels (`avx2+fma` or `neon`), or `nil` when this CPU cannot run them.
  public static var name: String? { kernel?.name }

  /// The resampler's kernels, or `nil` when this CPU cannot run them.
  /// Where the CPU has AVX-512F (and the OS saves its registers), the sixteen-output group
  /// functions use 512-bit registers and compute up to seven groups of one table in one pass,
  /// and the integer-upsampling function takes sixteen window starts per vector; they give the
  /// AVX2 functions' bits (`AcceleratedTests` checks), so only the speed differs. On arm64 they
  /// are ``neonKernel``.
  package static let kernel: PolyphaseResampler.DotKernel? = {
    #if arch(arm64)
      return neonKernel
    #elseif arch(x86_64) || arch(i386)
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

  /// Whether ``kernel``'s group functions use AVX-512F (never on arm64, whose NEON kernel has a
  /// run function of its own).
  public static var usesAVX512: Bool {
    #if arch(x86_64) || arch(i386)
      kernel?.groupRun != nil
    #else
      false
    #endif
  }

  /// The NEON kernels on arm64 (`nil` elsewhere), with the AVX2 kernels' contracts and bits: the
  /// same fused multiply-add chains lane for lane. Their run function computes two groups of a
  /// mono plane (or a stereo group's two channels) per pass, so one row load serves both.
  package static let neonKernel: PolyphaseResampler.DotKernel? = {
    #if arch(arm64)
      guard pcmmix_neon_available() != 0 else { return nil }
      return PolyphaseResampler.DotKernel(
        name: "neon",
        dot: { h, x, n in pcmmix_neon_dot(h, x, n) },
        dot2: { h, a, b, n, out in pcmmix_neon_dot2(h, a, b, n, out) },
        group: { t, w, x, s, c, out, first, n in
          pcmmix_neon_group16(t, w, x, s, c, out, first, n)
        },
        groupPair: { t, w, a, b, outa, outb in pcmmix_neon_group16x2(t, w, a, b, outa, outb) },
        groupRun: { t, w, x, a, s, c, out, oa, n, first, last in
          pcmmix_neon_group16_run(t, w, x, a, s, c, out, oa, n, first, last)
        },
        upsampleRun: { h, steps, up, down, x, s, c, phase, n, out in
          pcmmix_neon_upsample_run(h, steps, up, down, x, s, c, phase, n, out)
        },
        lerpDot: { h0, h1, t, x, n, next in pcmmix_neon_lerp_dot(h0, h1, t, x, n, next) },
        lerpDot2: { h0, h1, t, a, b, n, out, next in
          pcmmix_neon_lerp_dot2(h0, h1, t, a, b, n, out, next)
        },
        lerpRun: { h, taps, steps, step, x, s, c, count, room, out, p, f, hasEnd, at, end, stop in
          pcmmix_neon_lerp_run(
            h, taps, steps, step, x, s, c, count, room, out, p, f, hasEnd, at, end, stop)
        })
    #else
      return nil
    #endif
  }()

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
  /// Both give the same bits as the Swift code they replace. Returns whether it did. x86-64
  /// only: there are no NEON forms of these two, so on arm64 it installs nothing and returns
  /// `false` (the resampler's NEON kernels need no installing: ``kernel`` has them).
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
