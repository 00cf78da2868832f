import Foundation
import PCMMix
import Testing

@testable import PCMMixCLI

/// The reading thread of `convert` and `mix` hands over, read by read, what the same reads run
/// through the same chain on the caller's thread give, and holds no more than its queue's depth.
@Suite struct ChainThreadTests {
  static func chain() -> SourceChain {
    SourceChain(
      outputRate: 48_000, outputChannels: 2,
      resampler: ResamplerChoice.standard.factory(phase: .linear))
  }

  /// (With `threaded` false, on one processor, the same blocks are read in `next()`.)
  @Test(arguments: [(1, 1, true), (3, 2, true), (8, 2, true), (8, 2, false)])
  func blocksAreTheSameReadsAndTheQueueStaysBounded(
    _ batch: Int, _ depth: Int, _ threaded: Bool
  ) throws {
    try withTempDir { dir in
      let path = "\(dir)/in.wav"
      let frames = 44_100 * 3 + 123
      try writeFile(
        path, wavS16(stereoTone(frames: frames, rate: 44_100), channels: 2, rate: 44_100))
      let readFrames = 4_410

      // The same reads on this thread.
      var input = try InputFile.open(InputSpec(path: path))
      var chain = Self.chain()
      let buffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: readFrames * input.format.bytesPerFrame, alignment: 16)
      defer { buffer.deallocate() }
      var expected: [[Float]] = []
      while true {
        var block = _Collector()
        let n = try input.read(into: buffer)
        if n == 0 {
          chain.flush(into: &block)
          expected.append(block.samples)
          break
        }
        try chain.process(
          UnsafeRawBufferPointer(rebasing: buffer[..<(n * input.format.bytesPerFrame)]),
          format: input.format, into: &block)
        expected.append(block.samples)
      }
      input.close()

      let reader = ChainThread(
        input: try InputFile.open(InputSpec(path: path)), chain: Self.chain(),
        readFrames: readFrames, batch: batch, depth: depth, threaded: threaded)
      reader.start()
      var got: [[Float]] = []
      var ended = false
      while !ended {
        // A slow taker, so that the thread runs ahead until its queue is full.
        if got.count % 4 == 0 { usleep(2_000) }
        switch reader.next() {
        case .frames(var samples, let read):
          #expect(read == min(frames, (got.count + 1) * readFrames))
          got.append(samples)
          reader.recycle(&samples)
        case .end(let samples, let read):
          #expect(read == frames)
          got.append(samples)
          ended = true
        case .failure(let error):
          Issue.record("failed: \(error.line)")
          ended = true
        }
      }
      reader.join().close()
      #expect(got.count == expected.count)
      #expect(got == expected)
      if threaded {
        #expect(reader.mostQueued >= 1 && reader.mostQueued <= depth)
      } else {
        #expect(reader.mostQueued == 0)
      }
    }
  }

  /// Stopped before the end (as `mix` stops with the shorter input), the thread ends and hands
  /// the input back.
  @Test func joinStopsARunningThread() throws {
    try withTempDir { dir in
      let path = "\(dir)/in.wav"
      try writeFile(
        path, wavS16(stereoTone(frames: 44_100 * 5, rate: 44_100), channels: 2, rate: 44_100))
      let reader = ChainThread(
        input: try InputFile.open(InputSpec(path: path)), chain: Self.chain(), readFrames: 441,
        batch: 2, depth: 2)
      reader.start()
      guard case .frames = reader.next() else {
        Issue.record("no first block")
        return
      }
      let input = reader.join()
      #expect(input.framesRead < 44_100 * 5)
      input.close()
    }
  }
}
