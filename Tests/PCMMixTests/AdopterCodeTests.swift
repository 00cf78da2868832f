import Dispatch
import Foundation
import PCMMix
import Testing

// What an adopter writes against the real-time pipeline, compiled here in Swift 6 mode (this
// target's language mode) exactly as the README shows it, minus the Core Media calls that only
// exist on Apple platforms: a broadcast extension's mixer fed by two capture queues and pulled
// by an RTC SDK's 10 ms tick on a third.

/// The adopter's object: built once, then used from any thread.
final class BroadcastAudio: Sendable {
  let pipeline: RealtimeCapturePipeline

  init(app: StreamDescription, mic: StreamDescription) throws {
    var configuration = RealtimeCapturePipeline.Configuration()
    configuration.policy = .limit
    pipeline = try RealtimeCapturePipeline(configuration, app: app, mic: mic)
  }

  /// A UI timer's read of the mic's level (the held peak).
  var micLevel: Float? { pipeline.statistics.meters?.mic.heldPeakDBFS }

  /// ReplayKit's `processSampleBuffer`, with the buffer's bytes, description and stamp.
  func received(
    _ bytes: UnsafeRawBufferPointer, description: StreamDescription, time: MediaTime?,
    fromMic: Bool
  ) {
    do {
      try pipeline.append(fromMic ? .mic : .app, bytes, description: description, time: time)
    } catch {
      // A malformed buffer is skipped; the stream goes on.
    }
  }

  /// The SDK's pull: exactly 480 frames of 48 kHz stereo int16, every 10 ms.
  func pull(_ frames: UnsafeMutablePointer<Int16>, count: Int) -> (full: Bool, micSilent: Int) {
    let status = pipeline.pull(into: UnsafeMutableBufferPointer(start: frames, count: count * 2))
    return (status.isFull, status.micSilentFrames)
  }
}

@Suite struct AdopterCodeTests {
  @Test func aBroadcastExtensionsMixerOnThreeQueues() async throws {
    let app = StreamDescription(
      PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big))
    let mic = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s16))
    let audio = try BroadcastAudio(app: app, mic: mic)
    let appQueue = DispatchQueue(label: "app")
    let micQueue = DispatchQueue(label: "mic")
    let start = 1_000.0
    // Half a second of each source, stamped, handed over from the capture queues.
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      let group = DispatchGroup()
      group.enter()
      appQueue.async {
        let bytes = [UInt8](repeating: 0x10, count: 1_024 * 4)
        for k in 0..<22 {
          let time = MediaTime(seconds: start + Double(k * 1_024) / 44_100)
          bytes.withUnsafeBytes {
            audio.received($0, description: app, time: time, fromMic: false)
          }
        }
        group.leave()
      }
      group.enter()
      micQueue.async {
        let bytes = [UInt8](repeating: 0x20, count: 1_024 * 2)
        for k in 0..<24 {
          let time = MediaTime(seconds: start + Double(k * 1_024) / 48_000)
          bytes.withUnsafeBytes { audio.received($0, description: mic, time: time, fromMic: true) }
        }
        group.leave()
      }
      group.notify(queue: .global()) { done.resume() }
    }
    // The consumer's ticks, from a task of its own.
    let pulls = await Task.detached {
      var out = [Int16](repeating: 0, count: 960)
      var pulls: [(full: Bool, micSilent: Int)] = []
      for _ in 0..<40 {
        pulls.append(out.withUnsafeMutableBufferPointer { audio.pull($0.baseAddress!, count: 480) })
      }
      return pulls
    }.value
    // The clock starts a latency (100 ms) behind the newest audio: about ten full pulls, then
    // the sources have nothing more and say so.
    let full = pulls.filter { $0.full }.count
    #expect((8...11).contains(full))
    #expect(pulls.prefix(full).allSatisfy { $0.full })
    #expect(pulls.last!.micSilent == 480)
    #expect(audio.pipeline.statistics.concurrentCalls == 0)
    // The mic delivered a constant 0x2020 (8,224 / 32,768): about −12 dBFS, as the meter says.
    let level = try #require(audio.micLevel)
    #expect(level < -11 && level > -13, "mic level \(level) dBFS")
  }
}
