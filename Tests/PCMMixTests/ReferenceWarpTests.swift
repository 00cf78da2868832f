import Foundation
import Testing

@testable import PCMMix

/// `ReferenceWarp`, the echo canceller's reference read on the echo's clock, against the
/// signal it reads evaluated where it reads it.
@Suite struct ReferenceWarpTests {
  /// Tones read 100 ppm fast, 300 ppm slow, and 1 % either way (the canceller keeps within
  /// 500 ppm; 1 % makes the warp hold a block back, or take two, four times in the 400): each
  /// output sample is the tone at the warp's own read position (`position + i·ratio`), so the
  /// stream holds no cut where it does (87.7–95.9 dB SNR over both tones, at every ratio,
  /// the first block read from the history the start was given); the C kernel and the Swift
  /// loop give the same bits; and the blocks it gives keep pace with the raw reference read at
  /// its ratio.
  @Test(arguments: [1.0 + 1e-4, 1.0 - 3e-4, 1.01, 0.99])
  func readsTheToneWhereItSaysItReads(ratio: Double) {
    for hertz in [1_000.0, 8_000.0] {
      let omega = 2 * Double.pi * hertz / 48_000
      var warp = ReferenceWarp(hop: 256)
      var block = [Float](repeating: 0, count: 256)
      var out = [Float](repeating: 0, count: 256)
      var swiftOut = out
      var mismatches = 0
      var recent: [Float] = []
      func push(_ b: Int) {
        for i in 0..<256 { block[i] = Float(0.5 * sin(omega * Double(b * 256 + i))) }
        block.withUnsafeBufferPointer { warp.push($0.baseAddress!) }
        recent = Array((recent + block).suffix(512))
      }
      // Stopped, the warp only counts the blocks; it starts from the last two (the first
      // output block reaches back into them).
      for b in 0..<4 { push(b) }
      recent.withUnsafeBufferPointer { warp.start(ratio: ratio, recent: $0) }
      var (signal, error) = (0.0, 0.0)
      var counts = [0, 0, 0]
      for b in 4..<404 {
        push(b)
        var produced = 0
        while produced < 2 && warp.canProduce {
          let start = warp.position
          // The Swift loop from the same state, then the C kernel: the same bits.
          var twin = warp
          twin.produce(into: &swiftOut, kernels: .swift)
          warp.produce(into: &out, kernels: .c)
          if out.map(\.bitPattern) != swiftOut.map(\.bitPattern) { mismatches += 1 }
          for i in 0..<256 {
            let truth = 0.5 * sin(omega * (start + Double(i) * ratio))
            signal += truth * truth
            error += (Double(out[i]) - truth) * (Double(out[i]) - truth)
          }
          produced += 1
        }
        counts[produced] += 1
      }
      let snr = 10 * log10(signal / error)
      #expect(snr >= 80, "\(hertz) Hz at \(ratio): \(snr) dB")
      #expect(mismatches == 0, "\(mismatches) blocks differ between the C and Swift kernels")
      // 400 blocks pushed after the start, the first read from 256 frames back: the blocks
      // given read 399·256 raw frames at `ratio`, within the two blocks the warp may lag.
      let given = Double(counts[1] + 2 * counts[2])
      #expect(abs(given - 399 / ratio) <= 2, "\(given) blocks at \(ratio)")
      #expect(ratio > 1 ? counts[2] == 0 : counts[0] <= 1)
    }
  }
}

extension ReferenceWarpTests {
  /// Blocks pushed while none is taken leave the read position behind the history the warp
  /// holds: it then gives nothing rather than read outside it.
  @Test func aWarpLeftBehindItsHistoryGivesNothing() {
    var warp = ReferenceWarp(hop: 256)
    let block = [Float](repeating: 0.25, count: 256)
    let recent = block + block
    recent.withUnsafeBufferPointer { warp.start(ratio: 1.0002, recent: $0) }
    var ready: [Bool] = []
    for _ in 0..<8 {
      block.withUnsafeBufferPointer { warp.push($0.baseAddress!) }
      ready.append(warp.canProduce)
    }
    // Ready from the second block (the first output reaches 16 samples past the first), while
    // its first taps are held (1,056 samples: 4 blocks and 32 taps), then no more.
    #expect(ready == [false, true, true, true, false, false, false, false])
  }
}

/// The canceller's side of the warp.
@Suite struct EchoCancellerWarpTests {
  /// A canceller four blocks in (a tone for reference, a silent mic), its filters' delay set
  /// to `delay` and the warp just started, then one block more: the warp holds that block
  /// back (its read position is where the block began). Returns the canceller, and the ring's
  /// count before that block.
  static func heldBack(delay: Int) -> (EchoCanceller, ring: Int) {
    var canceller = EchoCanceller(rate: 48_000, settings: EchoCancellation())
    let mic = [Float](repeating: 0, count: 256)
    let reference = (0..<256).map { Float(0.1 * sin(Double($0) * 0.3)) }
    var out = [Float](repeating: 0, count: 256)
    for _ in 0..<4 { canceller.process(mic: mic, reference: reference, output: &out) }
    canceller.delay = delay
    let recent = canceller.refBlock
    recent.withUnsafeBufferPointer { canceller.warp.start(ratio: 1.0001, recent: $0) }
    let ring = canceller.ringCount
    canceller.process(mic: mic, reference: reference, output: &out)
    return (canceller, ring)
  }

  /// The warp holds a block back while the filters already read the newest block (delay 0):
  /// the echo has come sooner than they can reach behind the warp. The warp stops, and the
  /// ring takes the raw block instead, so the filters read on where the reference is.
  @Test func aWarpWithNoDelayLeftStopsAndTheRawReferenceGoesOn() {
    let (canceller, ring) = Self.heldBack(delay: 0)
    #expect(!canceller.warp.active)
    #expect(canceller.ringCount == ring + 1)
    #expect(canceller.delay == 0)
    #expect(canceller.warp.offset == 0)
  }

  /// With room behind it, the same held-back block moves the filters' delay by one instead.
  @Test func aHeldBackBlockMovesTheDelay() {
    let (canceller, ring) = Self.heldBack(delay: 5)
    #expect(canceller.warp.active)
    #expect(canceller.ringCount == ring)
    #expect(canceller.delay == 4)
    #expect(canceller.warp.offset == -256)
  }
}
