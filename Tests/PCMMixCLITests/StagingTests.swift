import PCMMix
import Testing

@testable import PCMMixCLI

/// `mix`'s staging of each side's converted frames before the mixer.
@Suite struct StagingTests {
  /// With `--echo-cancel` the mic is mixed only as far as it is clean, and with `--duck` the app
  /// only as far as the voice decisions reach: that side's staging always keeps frames back, so
  /// it is never moved out whole. Its array kept every frame of the input: `mix --echo-cancel`
  /// peaked at 652 MB of memory after 10 minutes (13.6 MB now). Here a minute of 100 ms
  /// reads (4,800 frames each), each moved out but for the last 2,000: the array stays bounded
  /// and the frames come out in order.
  @Test func aStagingThatNeverEmptiesHoldsWhatWaitsNotTheInput() {
    var staging = Staging()
    var mixer = DualBufferMixer(.init(capacityFrames: 8_192, maxLagFrames: 8_192))
    var out = [Float](repeating: 0, count: 2 * 8_192)
    let read = 4_800
    var block = [Float](repeating: 0, count: 2 * read)
    var appended = 0
    var moved = 0
    var largest = 0
    var inOrder = true
    for _ in 0..<600 {
      for i in 0..<read {
        let v = Float((appended + i) % 1_000_000)
        (block[2 * i], block[2 * i + 1]) = (v, v)
      }
      block.withUnsafeBufferPointer { staging.append($0) }
      appended += read
      let n = staging.frames - 2_000
      staging.move(n, into: &mixer, .app)
      moved += n
      block.withUnsafeBufferPointer {
        mixer.append(.mic, samples: UnsafeBufferPointer(rebasing: $0[..<(2 * n)]))
      }
      out.withUnsafeMutableBufferPointer { _ = mixer.mix(into: $0) }
      largest = max(largest, staging.samples.count)
      inOrder = inOrder && staging.mid(0, below: .max) == Float(moved % 1_000_000)
    }
    #expect(inOrder)
    #expect(staging.frames == 2_000)
    #expect(largest <= 2 * Staging.compactionSamples + 2 * block.count, "\(largest) samples")
  }
}
