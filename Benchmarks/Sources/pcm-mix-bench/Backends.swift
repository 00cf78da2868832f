import CBenchPeers
import PCMMix
import PCMMixAccelerated
import PCMMixCLI

/// A resampler the benchmark compares: a name, where it comes from, and how to make one.
struct Backend {
  enum Family: String {
    case builtin
    case libsamplerate
    case soxr
    case speexdsp
    /// A WebRTC-class 32-tap sinc resampler (`BENCH_PEER_SINC32`, written for the benchmark).
    case webrtc
    /// The `sox` command's `rate` effect (``SoxRate``; the band-edge table only).
    case sox
  }

  /// Row name, e.g. `builtin-balanced`, `src-best`, `soxr-hq`, `speex-5`, `webrtc-sinc32`.
  let name: String
  let family: Family
  /// Makes a converter for (input rate, output rate, channels), or nil when refused.
  let make: (Int, Int, Int) -> (any Resampler)?

  /// The backends the capture pipeline can run: the built-in presets, then libsamplerate's
  /// converters.
  static var pipelineBackends: [(name: String, factory: ResamplerFactory)] {
    BuiltinPresets.all.map { ("builtin-" + $0.name, ResamplerFactory.builtin($0.quality)) }
      + BuiltinPresets.accelerated
      + SampleRateBackends.all
  }

  /// The row of the WebRTC-class peer, which the `fast` preset is held against.
  static let webrtcSinc32 = "webrtc-sinc32"

  /// Every backend of the resampler table, in its row order.
  static var all: [Backend] {
    var list = pipelineBackends.map { pair in
      Backend(
        name: pair.name, family: pair.name.hasPrefix("builtin") ? .builtin : .libsamplerate,
        make: { pair.factory($0, $1, $2) })
    }
    // Where the default kernels use AVX-512F, balanced again with the AVX2 + FMA kernels alone:
    // what a CPU without AVX-512F (most AMD and client Intel parts) runs, measured here.
    if AcceleratedKernels.usesAVX512, let avx2 = AcceleratedKernels.avx2Kernel {
      let factory = ResamplerFactory.builtin(.balanced, kernel: avx2)
      list.append(Backend(name: BuiltinPresets.avx2Only, family: .builtin) { factory($0, $1, $2) })
    }
    let soxr: [(String, bench_soxr_quality)] = [
      ("lq", BENCH_SOXR_LQ), ("mq", BENCH_SOXR_MQ), ("hq", BENCH_SOXR_HQ),
      ("vhq", BENCH_SOXR_VHQ),
    ]
    for (label, q) in soxr {
      list.append(
        Backend(name: "soxr-" + label, family: .soxr) {
          PeerResampler(
            kind: BENCH_PEER_SOXR, quality: Int32(q.rawValue), inputRate: $0, outputRate: $1,
            channels: $2)
        })
    }
    for q: Int32 in [3, 5, 10] {
      list.append(
        Backend(name: "speex-\(q)", family: .speexdsp) {
          PeerResampler(
            kind: BENCH_PEER_SPEEX, quality: q, inputRate: $0, outputRate: $1, channels: $2)
        })
    }
    list.append(
      Backend(name: webrtcSinc32, family: .webrtc) {
        PeerResampler(
          kind: BENCH_PEER_SINC32, quality: 0, inputRate: $0, outputRate: $1, channels: $2)
      })
    return list
  }
}

/// The built-in ``ResamplerQuality`` presets, as the library lists them.
enum BuiltinPresets {
  static var all: [(name: String, quality: ResamplerQuality)] { ResamplerChoice.presets }

  /// The preset `CapturePipeline.Configuration()` uses.
  static let defaultName = "builtin-balanced"

  /// The resampler table's row of that preset with the AVX2 + FMA kernels alone (on a CPU whose
  /// default kernels use AVX-512F; speed only, its bits are the default row's).
  static let avx2Only = defaultName + "-avx2-only"

  /// The presets again with `PCMMixAccelerated`'s AVX2 + FMA kernels, when this CPU runs them
  /// (`high` accumulates in Double and does not use them).
  static var accelerated: [(name: String, factory: ResamplerFactory)] {
    guard let kernel = AcceleratedKernels.kernel else { return [] }
    return all.filter { $0.name != "high" }.map {
      ("builtin-\($0.name)-\(kernel.name)", ResamplerFactory.accelerated($0.quality))
    }
  }
}
