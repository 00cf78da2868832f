// swift-tools-version: 6.0
// An adopter's package in miniature: it depends on PCMMix by path, links only the `PCMMix`
// product, and is built with `swift build -c debug`, so PCMMix is compiled `-Onone` as Xcode
// compiles a package dependency under a Debug scheme. `pcm-mix-bench` builds and runs it for its
// Debug row (section `debug`).
import PackageDescription

let package = Package(
  name: "DebugConsumer",
  dependencies: [.package(name: "PCMMix", path: "../..")],
  targets: [
    .executableTarget(
      name: "debug-consumer", dependencies: [.product(name: "PCMMix", package: "PCMMix")])
  ],
  swiftLanguageModes: [.v6]
)
