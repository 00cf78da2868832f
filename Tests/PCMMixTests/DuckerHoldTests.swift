import Foundation
import Testing

@testable import PCMMix

/// The ducker's hold through blocks the detector cannot tell: a talker under a loud echo reads
/// as neither voice nor silence, and the duck must not let go there (the app came back above
/// −6 dB between two words on every loudspeaker music scene), but it must not hold forever
/// either (the app's own echo would then keep it down).
@Suite struct DuckerHoldTests {
  /// The first frame at which the gain rises from the depth, with a voice read in the first
  /// 40 blocks (256 frames each) and the detector unsure in blocks `unsure`.
  static func releaseStart(unsure: Range<Int>) -> Int? {
    var ducker = Ducker(Ducking(), rate: 48_000)
    for b in 0..<400 {
      ducker.note(voice: b < 40, uncertain: unsure.contains(b), start: 256 * b, frames: 256)
    }
    var block = [Float](repeating: 1, count: 2 * 256)
    let depth = Float(pow(10, -10.0 / 20))
    var down = false
    for b in 0..<400 {
      for i in block.indices { block[i] = 1 }
      block.withUnsafeMutableBufferPointer {
        ducker.apply($0.baseAddress!, at: 256 * b, frames: 256)
      }
      for i in 0..<256 {
        if block[2 * i] <= depth * 1.0001 { down = true }
        if down && block[2 * i] > depth * 1.001 { return 256 * b + i }
      }
    }
    return nil
  }

  @Test func withoutDoubtTheDuckLetsGoOneHoldAfterTheVoice() throws {
    // The voice's last block ends at 10,240; the hold is 0.3 s (14,400 frames).
    let start = try #require(Self.releaseStart(unsure: 0..<0))
    #expect(abs(start - (10_240 + 14_400)) <= 64)
  }

  @Test func blocksTheDetectorCannotTellCarryTheDuckOn() throws {
    // Unsure up to block 60 (frame 15,360): the hold counts from there.
    let start = try #require(Self.releaseStart(unsure: 40..<60))
    #expect(abs(start - (15_360 + 14_400)) <= 64)
  }

  @Test func butForAtMostOneMoreHold() throws {
    // Unsure for ever: carried to one hold past the voice (the last block ending by 24,640 is
    // at 24,576), then held and let go.
    let start = try #require(Self.releaseStart(unsure: 40..<400))
    #expect(abs(start - (24_576 + 14_400)) <= 64)
  }

  @Test func doubtAloneStartsNoDuck() {
    var ducker = Ducker(Ducking(), rate: 48_000)
    var block = [Float](repeating: 1, count: 2 * 256)
    for b in 0..<100 {
      ducker.note(voice: false, uncertain: true, start: 256 * b, frames: 256)
      block.withUnsafeMutableBufferPointer {
        ducker.apply($0.baseAddress!, at: 256 * b, frames: 256)
      }
      #expect(block.allSatisfy { $0 == 1 })
    }
  }
}
