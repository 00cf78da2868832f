// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets over the PCMMix library. Build with
//   swift build -c release --sanitize=fuzzer --sanitize=address
// (see run.sh). Each target is a plain executable whose entry point libFuzzer provides; the
// drivers live in Drivers/, compiled here and by the root package (as a test-only target, not a
// product), whose `swift test` also runs them over Regressions/ and Corpus/.
let package = Package(
  name: "PCMMixFuzz",
  dependencies: [.package(name: "PCMMix", path: "..")],
  targets: [
    .target(
      name: "PCMMixFuzzDrivers", dependencies: [.product(name: "PCMMix", package: "PCMMix")],
      path: "Drivers"),
    .executableTarget(
      name: "FuzzWAV", dependencies: ["PCMMixFuzzDrivers"],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    .executableTarget(
      name: "FuzzContainers",
      dependencies: ["PCMMixFuzzDrivers"],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    .executableTarget(
      name: "FuzzProbeDecode",
      dependencies: ["PCMMixFuzzDrivers"],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    .executableTarget(
      name: "FuzzPipeline", dependencies: ["PCMMixFuzzDrivers"],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    .executableTarget(
      name: "FuzzCapture", dependencies: ["PCMMixFuzzDrivers"],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
  ],
  swiftLanguageModes: [.v6]
)
