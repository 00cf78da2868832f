// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "PCMMix",
  products: [
    // The capture-pipeline library: no C dependency, importable alone by an app or extension.
    .library(name: "PCMMix", targets: ["PCMMix"]),
    .executable(name: "pcm-mix", targets: ["pcm-mix"]),
  ],
  targets: [
    .target(name: "PCMMix"),
    .target(name: "PCMMixCLI", dependencies: ["PCMMix"]),
    .executableTarget(name: "pcm-mix", dependencies: ["PCMMixCLI"]),
    .testTarget(name: "PCMMixTests", dependencies: ["PCMMix"]),
    .testTarget(name: "PCMMixCLITests", dependencies: ["PCMMixCLI", "PCMMix"]),
  ],
  swiftLanguageModes: [.v6]
)
