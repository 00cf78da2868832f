import Dispatch
import PCMMix

// The consumer side of "Getting started in a broadcast extension" (the DocC article), verbatim:
// `ArticleCodeTests` checks that the article still holds exactly this text, and runs it.

/// The consumer: touched only on the pull queue.
final class PullLoop: @unchecked Sendable {
  let pipeline: RealtimeCapturePipeline
  let send: (UnsafeBufferPointer<Int16>, PullStatus) -> Void
  let start = DispatchTime.now().uptimeNanoseconds
  var pulls: UInt64 = 0
  var samples = [Int16](repeating: 0, count: 960)  // 480 stereo frames, allocated once

  init(
    _ pipeline: RealtimeCapturePipeline,
    send: @escaping (UnsafeBufferPointer<Int16>, PullStatus) -> Void
  ) {
    self.pipeline = pipeline
    self.send = send
  }

  func tick() {
    let due = (DispatchTime.now().uptimeNanoseconds - start) / 10_000_000 + 1
    while pulls < due {
      samples.withUnsafeMutableBufferPointer { buffer in
        let status = pipeline.pull(into: buffer)
        send(UnsafeBufferPointer(buffer), status)
      }
      pulls += 1
      if pulls % 500 == 0 { report(pipeline.statistics) }  // every 5 s
    }
  }
}

func report(_ s: RealtimeCapturePipeline.Statistics) {
  let latencyMs = Double(s.clock.latencyFrames) / 48
  print(
    "latency \(latencyMs) ms, late app \(s.app.framesLate) mic \(s.mic.framesLate),",
    "mic drift \(s.mic.driftPPM) ppm, hand-off drops \(s.appHandoffDrops) + \(s.micHandoffDrops),",
    "mic peak \(s.meters?.mic.heldPeakDBFS ?? LevelMeter.floorDBFS) dBFS,",
    "limited \(s.meters?.limitedSamples ?? 0)")
}
