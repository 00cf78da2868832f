import Foundation
import Synchronization
import Testing

@testable import PCMMix

/// Three threads on one ``SharedCapturePipeline``: the app and mic capture callbacks and the
/// output pull, as a broadcast extension runs them. Meant to run under ThreadSanitizer too:
/// `swift test --sanitize=thread --filter SharedCapturePipeline`.
@Suite struct SharedCapturePipelineTests {
  /// ~2 s of a ReplayKit-shaped capture (44.1 kHz stereo s16be app in 1,024-frame buffers,
  /// 32 kHz mono s16le mic in uneven buffers) fed from two threads while a third mixes.
  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
  @available(*, deprecated, message: "SharedCapturePipeline is deprecated; tested while it remains")
  @Test func concurrentAppMicAndMix() throws {
    let appFrames = 88_200  // 2 s at 44.1 kHz
    let micFrames = 64_000  // 2 s at 32 kHz
    let app = sineBytes(frames: appFrames, rate: 44_100, channels: 2, hz: 1_000, bigEndian: true)
    let mic = sineBytes(frames: micFrames, rate: 32_000, channels: 1, hz: 440, bigEndian: false)
    var micSizes: [Int] = []
    var rng = SplitMix64(seed: 0x5EED)
    var left = micFrames
    while left > 0 {
      let n = min(left, Int.random(in: 1...2_000, using: &rng))
      micSizes.append(n)
      left -= n
    }
    let appDescription = StreamDescription(
      PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big))
    let micDescription = StreamDescription(
      PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16, byteOrder: .little))

    // Room for everything on each side, so no schedule of the threads can drop a frame.
    let mixer = DualBufferMixer.Configuration(capacityFrames: 4 * 48_000)
    let shared = SharedCapturePipeline(.init(mixer: mixer))
    let producersDone = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let result = Mutex((frames: 0, bad: 0, calls: 0))

    let group = DispatchGroup()
    func spawn(_ body: @escaping @Sendable () -> Void) {
      group.enter()
      let thread = Thread {
        body()
        group.leave()
      }
      thread.start()
    }
    spawn {
      app.withUnsafeBytes { raw in
        for start in stride(from: 0, to: appFrames, by: 1_024) {
          let n = min(1_024, appFrames - start)
          let part = UnsafeRawBufferPointer(rebasing: raw[(start * 4)..<((start + n) * 4)])
          do { try shared.append(.app, part, description: appDescription) } catch {
            failures.add(1, ordering: .relaxed)
          }
        }
      }
      producersDone.add(1, ordering: .releasing)
    }
    spawn { [micSizes] in
      mic.withUnsafeBytes { raw in
        var start = 0
        for n in micSizes {
          let part = UnsafeRawBufferPointer(rebasing: raw[(start * 2)..<((start + n) * 2)])
          do { try shared.append(.mic, part, description: micDescription) } catch {
            failures.add(1, ordering: .relaxed)
          }
          start += n
        }
      }
      producersDone.add(1, ordering: .releasing)
    }
    spawn {
      var floats = [Float](repeating: 0, count: 2 * 3_000)
      var ints = [Int16](repeating: 0, count: 2 * 3_000)
      var frames = 0
      var bad = 0
      var calls = 0
      var finished = false
      while true {
        let done = producersDone.load(ordering: .acquiring) == 2
        if done && !finished {
          // Both streams ended: flush the resampler tails, then drain.
          shared.withPipeline {
            $0.finish(.app)
            $0.finish(.mic)
          }
          finished = true
        }
        let room = 1 + calls * 7_919 % 3_000
        let n: Int
        if calls % 3 == 2 {
          n = ints.withUnsafeMutableBufferPointer {
            shared.mix(into: UnsafeMutableBufferPointer(rebasing: $0[..<(room * 2)]))
          }
        } else {
          n = floats.withUnsafeMutableBufferPointer {
            shared.mix(into: UnsafeMutableBufferPointer(rebasing: $0[..<(room * 2)]))
          }
          for x in floats[..<(n * 2)] where !x.isFinite || abs(x) > 1 { bad += 1 }
        }
        frames += n
        calls += 1
        if finished && n == 0 { break }
        if n == 0 { Thread.sleep(forTimeInterval: 0.000_5) }
      }
      result.withLock { $0 = (frames, bad, calls) }
    }
    group.wait()

    #expect(failures.load(ordering: .relaxed) == 0)
    let (outFrames, bad, calls) = result.withLock { $0 }
    #expect(bad == 0)
    #expect(calls > 1)
    let (a, m, appOut, micOut) = shared.withPipeline {
      ($0.mixer.app.counters, $0.mixer.mic.counters, $0.app.framesOut, $0.mic.framesOut)
    }
    for c in [a, m] {
      #expect(c.framesIn == c.framesEmitted + c.framesDropped + c.framesBuffered)
      #expect(c.framesDropped == 0)
    }
    // Every frame the chains produced reached the mixer; 2 s of each source is 96,000 frames.
    #expect(a.framesIn == appOut && m.framesIn == micOut)
    #expect(a.framesIn == 96_000 && m.framesIn == 96_000)
    // What came out is what the mixer counts as emitted: mixed frames once, alone frames each.
    #expect(a.framesMixed == m.framesMixed)
    #expect(outFrames == a.framesMixed + a.framesAlone + m.framesAlone)
    // Each side's frames all went out or still wait (alone frames when one side ran ahead).
    #expect(outFrames >= max(a.framesEmitted, m.framesEmitted))
  }
}

/// A sine of amplitude 0.5 as int16 bytes, every channel the same.
private func sineBytes(
  frames: Int, rate: Int, channels: Int, hz: Double, bigEndian: Bool
) -> [UInt8] {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(frames * channels * 2)
  for i in 0..<frames {
    let x = Int16(16_384 * sin(2 * Double.pi * hz * Double(i) / Double(rate)))
    let u = UInt16(bitPattern: x)
    for _ in 0..<channels {
      if bigEndian {
        bytes += [UInt8(u >> 8), UInt8(u & 0xFF)]
      } else {
        bytes += [UInt8(u & 0xFF), UInt8(u >> 8)]
      }
    }
  }
  return bytes
}
