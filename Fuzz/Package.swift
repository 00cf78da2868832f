// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets over the PCMMix library. Build with
//   swift build -c release --sanitize=fuzzer --sanitize=address
// (see run.sh). Each target is a plain executable whose entry point libFuzzer provides; the
// drivers themselves live in the root package (Tests/PCMMixFuzzDrivers), which `swift test`
// also runs over Regressions/ and Corpus/.
let package = Package(
  name: "PCMMixFuzz",
  dependencies: [.package(name: "PCMMix", path: "..")],
  targets: [
    .executableTarget(
      name: "FuzzWAV", dependencies: [.product(name: "PCMMixFuzzDrivers", package: "PCMMix")],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    .executableTarget(
      name: "FuzzContainers",
      dependencies: [.product(name: "PCMMixFuzzDrivers", package: "PCMMix")],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    .executableTarget(
      name: "FuzzProbeDecode",
      dependencies: [.product(name: "PCMMixFuzzDrivers", package: "PCMMix")],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    .executableTarget(
      name: "FuzzPipeline", dependencies: [.product(name: "PCMMixFuzzDrivers", package: "PCMMix")],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
  ],
  swiftLanguageModes: [.v6]
)
