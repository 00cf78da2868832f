// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "PCMMix",
  products: [
    // The capture-pipeline library: no C dependency, importable alone by an app or extension.
    .library(name: "PCMMix", targets: ["PCMMix"]),
    // libsamplerate as a second resampler backend (needs libsamplerate through pkg-config).
    .library(name: "PCMMixSampleRate", targets: ["PCMMixSampleRate"]),
    .executable(name: "pcm-mix", targets: ["pcm-mix"]),
    .executable(name: "pcm-mix-bench", targets: ["pcm-mix-bench"]),
  ],
  targets: [
    .target(name: "PCMMix"),
    .systemLibrary(
      name: "CSampleRate", pkgConfig: "samplerate",
      providers: [.apt(["libsamplerate0-dev"]), .brew(["libsamplerate"])]),
    .target(name: "PCMMixSampleRate", dependencies: ["PCMMix", "CSampleRate"]),
    .target(name: "PCMMixCLI", dependencies: ["PCMMix", "PCMMixSampleRate"]),
    .executableTarget(name: "pcm-mix", dependencies: ["PCMMixCLI"]),

    // Benchmarks: peers (soxr, speexdsp) are linked by the benchmark alone.
    .target(
      name: "CBenchPeers", path: "Benchmarks/Sources/CBenchPeers",
      linkerSettings: [.linkedLibrary("soxr"), .linkedLibrary("speexdsp"), .linkedLibrary("m")]),
    .target(name: "CAllocCounter", path: "Benchmarks/Sources/CAllocCounter"),
    .executableTarget(
      name: "pcm-mix-bench",
      dependencies: ["PCMMix", "PCMMixSampleRate", "PCMMixCLI", "CBenchPeers", "CAllocCounter"],
      path: "Benchmarks/Sources/pcm-mix-bench"),

    .testTarget(name: "PCMMixTests", dependencies: ["PCMMix"]),
    .testTarget(name: "PCMMixSampleRateTests", dependencies: ["PCMMixSampleRate", "PCMMix"]),
    .testTarget(name: "PCMMixCLITests", dependencies: ["PCMMixCLI", "PCMMix"]),
  ],
  swiftLanguageModes: [.v6]
)
