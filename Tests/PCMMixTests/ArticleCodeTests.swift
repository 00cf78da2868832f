import Dispatch
import Foundation
import PCMMix
import Testing

/// The article's code, compiled in Swift 6 mode and run: `ArticleCode.swift` holds its
/// consumer (`PullLoop` and `report`) as the article prints them.
@Suite struct ArticleCodeTests {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// Every line of `ArticleCode.swift` after its header comment appears, in order and
  /// unchanged, in one of the article's Swift blocks: the article and the compiled copy cannot
  /// drift apart.
  @Test func theArticleShowsTheCompiledCode() throws {
    let article = try String(
      contentsOf: Self.root.appendingPathComponent(
        "Sources/PCMMix/PCMMix.docc/GettingStartedInABroadcastExtension.md"),
      encoding: .utf8)
    let code = try String(
      contentsOf: Self.root.appendingPathComponent("Tests/PCMMixTests/ArticleCode.swift"),
      encoding: .utf8)
    let body = code.components(separatedBy: "\n").drop { !$0.hasPrefix("/// The consumer") }
    #expect(body.count > 30)
    let pieces = body.joined(separator: "\n").components(separatedBy: "\n\n")
    for piece in pieces where !piece.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
      #expect(article.contains(piece), "not in the article:\n\(piece)")
    }
  }

  /// The article's pull loop against a pipeline fed half a second of each source: every tick
  /// hands over 480 stereo frames, and the loop catches up with the host clock.
  @Test func thePullLoopRuns() async throws {
    let app = StreamDescription(
      PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big))
    let mic = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s16))
    let pipeline = try RealtimeCapturePipeline(.init(), app: app, mic: mic)
    let appBytes = [UInt8](repeating: 0x10, count: 1_024 * 4)
    let micBytes = [UInt8](repeating: 0x20, count: 1_024 * 2)
    for k in 0..<22 {
      try appBytes.withUnsafeBytes {
        try pipeline.append(
          .app, $0, description: app, time: MediaTime(seconds: 5 + Double(k * 1_024) / 44_100))
      }
    }
    for k in 0..<24 {
      try micBytes.withUnsafeBytes {
        try pipeline.append(
          .mic, $0, description: mic, time: MediaTime(seconds: 5 + Double(k * 1_024) / 48_000))
      }
    }
    let counter = SampleCounter()
    let loop = PullLoop(pipeline) { samples, _ in counter.add(samples.count) }
    try await Task.sleep(nanoseconds: 35_000_000)
    loop.tick()
    // At least the pulls due after 35 ms of host time (4), each 960 samples.
    #expect(loop.pulls >= 4)
    #expect(counter.total == Int(loop.pulls) * 960)
  }
}

/// Counts samples handed to the loop's `send` (called on the test's thread only).
private final class SampleCounter: @unchecked Sendable {
  var total = 0
  func add(_ n: Int) { total += n }
}
