// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "PCMMix",
  // Nothing in the library uses Synchronization (Mutex and Atomic need iOS 18 / macOS 15): the
  // lock is a pthread mutex and the real-time hand-off uses C atomics, so it runs from iOS 15.
  platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
  products: [
    // The capture-pipeline library: no C dependency, importable alone by an app or extension.
    .library(name: "PCMMix", targets: ["PCMMix"]),
    // AVX2 + FMA kernels for the built-in resampler (a small C target, chosen at run time).
    .library(name: "PCMMixAccelerated", targets: ["PCMMixAccelerated"]),
    // libsamplerate (BSD-2-Clause) as a second resampler backend, through pkg-config.
    .library(name: "PCMMixSampleRate", targets: ["PCMMixSampleRate"]),
    .executable(name: "pcm-mix", targets: ["pcm-mix"]),
  ],
  targets: [
    // Atomic loads and stores for the lock-free capture hand-off (one header; Swift's own
    // Synchronization.Atomic needs iOS 18 / macOS 15).
    .target(name: "CPCMMixAtomics"),
    // The per-sample loops (resampler, decoders, encoder, mix) in portable C, compiled with the
    // package: as fast in a Debug build (-Onone/-O0) as Swift's SIMD types are in release.
    .target(name: "CPCMMixCore"),
    .target(name: "PCMMix", dependencies: ["CPCMMixAtomics", "CPCMMixCore"]),
    .target(name: "CPCMMixKernels"),
    .target(name: "PCMMixAccelerated", dependencies: ["PCMMix", "CPCMMixKernels"]),
    .systemLibrary(
      name: "CSampleRate", pkgConfig: "samplerate",
      providers: [.apt(["libsamplerate0-dev"]), .brew(["libsamplerate"])]),
    .target(name: "PCMMixSampleRate", dependencies: ["PCMMix", "CSampleRate"]),
    .target(
      name: "PCMMixCLI", dependencies: ["PCMMix", "PCMMixSampleRate", "PCMMixAccelerated"]),
    .executableTarget(name: "pcm-mix", dependencies: ["PCMMixCLI"]),

    // Benchmarks: peers soxr (LGPL-2.1+), speexdsp (BSD-3-Clause) and libebur128 (MIT) are
    // linked by the benchmark alone, which no product exports.
    .target(
      name: "CBenchPeers", path: "Benchmarks/Sources/CBenchPeers",
      linkerSettings: [
        .linkedLibrary("soxr"), .linkedLibrary("speexdsp"), .linkedLibrary("ebur128"),
        .linkedLibrary("m"),
      ]),
    .target(name: "CAllocCounter", path: "Benchmarks/Sources/CAllocCounter"),
    // Echo canceller peers: speexdsp's and WebRTC's classic AEC (webrtc-audio-processing 0.3,
    // BSD-3-Clause), behind a C API in C and C++. The system library only carries pkg-config's
    // include path and link flags to the C++ source (Swift never imports it). SwiftPM drops the
    // defines from pkg-config (with a "prohibited flag(s)" warning), so the target repeats them.
    .systemLibrary(
      name: "CWebRTCAudioProcessing", path: "Benchmarks/Sources/CWebRTCAudioProcessing",
      pkgConfig: "webrtc-audio-processing",
      providers: [.apt(["libwebrtc-audio-processing-dev"])]),
    .target(
      name: "CEchoPeers", dependencies: ["CWebRTCAudioProcessing"],
      path: "Benchmarks/Sources/CEchoPeers",
      cxxSettings: [.define("WEBRTC_POSIX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD")],
      linkerSettings: [.linkedLibrary("speexdsp")]),
    .executableTarget(
      name: "pcm-mix-bench",
      dependencies: [
        "PCMMix", "PCMMixSampleRate", "PCMMixAccelerated", "PCMMixCLI", "CBenchPeers",
        "CAllocCounter", "PCMMixTestSupport", "CEchoPeers",
      ],
      path: "Benchmarks/Sources/pcm-mix-bench"),

    // Helpers the test targets share (a seeded generator, a tone fit).
    .target(name: "PCMMixTestSupport", dependencies: ["PCMMix"], path: "Tests/PCMMixTestSupport"),
    // The fuzz drivers, which `swift test` replays the fuzz corpora and regressions through; the
    // libFuzzer package in Fuzz/ compiles the same folder as its own target (no product here).
    .target(name: "PCMMixFuzzDrivers", dependencies: ["PCMMix"], path: "Fuzz/Drivers"),
    .testTarget(
      name: "PCMMixTests",
      dependencies: ["PCMMix", "CPCMMixCore", "PCMMixTestSupport", "PCMMixFuzzDrivers"]),
    .testTarget(
      name: "PCMMixSampleRateTests",
      dependencies: ["PCMMixSampleRate", "PCMMix", "PCMMixTestSupport"]),
    .testTarget(
      name: "PCMMixAcceleratedTests",
      dependencies: ["PCMMixAccelerated", "PCMMix", "PCMMixTestSupport"]),
    .testTarget(
      name: "PCMMixCLITests", dependencies: ["PCMMixCLI", "PCMMix", "PCMMixTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
