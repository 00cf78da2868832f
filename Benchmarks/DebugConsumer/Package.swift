// swift-tools-version: 6.0
// An adopter's package in miniature: it depends on PCMMix by path, links the `PCMMix` and
// `PCMMixAccelerated` products (and the benchmark's allocation counter), and is built with
// `swift build -c debug`, so PCMMix is compiled `-Onone` (its C targets -O0) as Xcode compiles
// a package dependency under a Debug scheme. `pcm-mix-bench` builds and runs it for its
// Debug row (section `debug`).
import PackageDescription

let package = Package(
  name: "DebugConsumer",
  dependencies: [.package(name: "PCMMix", path: "../..")],
  targets: [
    // The benchmark's allocation counter (a link to its folder), so the Debug build's pulls
    // are counted as the release build's are.
    .target(name: "CAllocCounter"),
    .executableTarget(
      name: "debug-consumer",
      dependencies: [
        .product(name: "PCMMix", package: "PCMMix"),
        .product(name: "PCMMixAccelerated", package: "PCMMix"), "CAllocCounter",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
