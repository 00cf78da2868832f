import Testing

@testable import PCMMix

/// `FrameFIFO` against a plain array model: every append, peek and discard across the wrap.
@Suite struct FrameFIFOTests {
  /// Appends `frames` frames whose samples count up from `next`, returning the samples appended.
  private static func append(
    _ fifo: inout FrameFIFO, frames: Int, next: inout Float
  ) -> [Float] {
    var samples = [Float](repeating: 0, count: frames * fifo.channelCount)
    for i in samples.indices {
      samples[i] = next
      next += 1
    }
    samples.withUnsafeBufferPointer { fifo.append($0) }
    return samples
  }

  private static func peek(_ fifo: FrameFIFO, _ frames: Int) -> [Float] {
    // One guard sample past the end shows peek writes no more than asked.
    var out = [Float](repeating: -1, count: frames * fifo.channelCount + 1)
    out.withUnsafeMutableBufferPointer { fifo.peek(frames, into: $0.baseAddress!) }
    #expect(out.last == -1, "peek wrote past the frames asked for")
    return Array(out.dropLast())
  }

  @Test(arguments: [(1, 1), (1, 2), (3, 2), (7, 1), (64, 2), (1000, 2), (257, 3)])
  func randomOperationsMatchArrayModel(capacity: Int, channelCount: Int) {
    var rng = SplitMix64(seed: UInt64(capacity * 31 + channelCount))
    var fifo = FrameFIFO(capacity: capacity, channelCount: channelCount)
    var model: [Float] = []
    var next: Float = 0
    var wrapped = false
    for step in 0..<5000 {
      let free = capacity - model.count / channelCount
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<4:
        let n = Int.random(in: 0...free, using: &rng)
        let head = fifo.head
        model += Self.append(&fifo, frames: n, next: &next)
        if head + fifo.count > capacity { wrapped = true }
      case 4..<6:
        let n = Int.random(in: 0...(model.count / channelCount), using: &rng)
        #expect(Self.peek(fifo, n) == Array(model[..<(n * channelCount)]), "step \(step)")
      case 6..<9:
        let n = Int.random(in: 0...(model.count / channelCount), using: &rng)
        fifo.discard(n)
        model.removeFirst(n * channelCount)
      default:
        if Int.random(in: 0..<20, using: &rng) == 0 {
          fifo.removeAll()
          model.removeAll()
        }
      }
      #expect(fifo.count == model.count / channelCount, "step \(step)")
      #expect(fifo.count <= fifo.capacity)
      #expect(fifo.freeFrames == capacity - fifo.count)
      #expect(fifo.storage.count == capacity * channelCount, "storage must never be reallocated")
      if fifo.count > 0 {
        #expect(Self.peek(fifo, fifo.count) == model, "step \(step)")
      }
    }
    if capacity > 1 { #expect(wrapped, "the schedule never wrapped around the ring") }
  }

  @Test func fillsToExactCapacityAcrossTheWrap() {
    var fifo = FrameFIFO(capacity: 5, channelCount: 2)
    var next: Float = 0
    _ = Self.append(&fifo, frames: 3, next: &next)
    fifo.discard(2)
    // Head at frame 2; four more frames wrap past the end of storage and fill the ring.
    _ = Self.append(&fifo, frames: 4, next: &next)
    #expect(fifo.count == 5)
    #expect(fifo.freeFrames == 0)
    #expect(Self.peek(fifo, 5) == (4..<14).map(Float.init))
    fifo.discard(5)
    #expect(fifo.count == 0)
    _ = Self.append(&fifo, frames: 5, next: &next)
    #expect(Self.peek(fifo, 5) == (14..<24).map(Float.init))
  }

  @Test func emptyAppendAndPeekChangeNothing() {
    var fifo = FrameFIFO(capacity: 4, channelCount: 2)
    var next: Float = 0
    _ = Self.append(&fifo, frames: 0, next: &next)
    #expect(fifo.count == 0)
    #expect(Self.peek(fifo, 0).isEmpty)
    fifo.discard(0)
    #expect(fifo.count == 0)
    #expect(fifo.freeFrames == 4)
  }
}
