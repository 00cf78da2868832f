import Foundation
import Testing

@testable import PCMMix

/// Cases a code review found; each failed (or trapped) before its fix.
@Suite struct ReviewRegressionTests {
  /// A mono source whose resampler tail is longer than one block's output: flushing it must fit
  /// the scratch once upmixed (it trapped in `duplicateInPlace`).
  @Test(arguments: [(8000, "high"), (4000, "balanced"), (11025, "high")])
  func monoTailLongerThanABlockFlushes(rate: Int, preset: String) {
    let quality = builtinPresets.first { $0.name == preset }!.quality
    var chain = SourceChain(resampler: ResamplerFactory.builtin(quality))
    let frames = rate / 5
    let samples = (0..<frames).map { Int16(truncatingIfNeeded: $0 &* 37) }
    var fifo = FrameFIFO(capacity: 48_000, channelCount: 2)
    let format = PCMFormat(sampleRate: rate, channelCount: 1, sampleType: .s16)
    samples.withUnsafeBytes { try! chain.process($0, format: format, into: &fifo) }
    chain.flush(into: &fifo)
    #expect(
      fifo.count
        == RateRatio.outputFrames(forInputFrames: frames, inputRate: rate, outputRate: 48_000))
  }

  /// A description, then a format given directly, then the first description again: the last
  /// buffer must be decoded by the first description, not the cached format.
  @Test func probeCacheIsClearedByADirectFormat() throws {
    let big = StreamDescription(
      PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s16, byteOrder: .big))
    let little = PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s16)
    var chain = SourceChain()
    var fifo = FrameFIFO(capacity: 16, channelCount: 2)
    let bytes: [UInt8] = [0x01, 0x00]  // 256 big-endian, 1 little-endian
    try bytes.withUnsafeBytes { try chain.process($0, description: big, into: &fifo) }
    try bytes.withUnsafeBytes { try chain.process($0, format: little, into: &fifo) }
    try bytes.withUnsafeBytes { try chain.process($0, description: big, into: &fifo) }
    var out = [Float](repeating: 0, count: 6)
    out.withUnsafeMutableBufferPointer { fifo.peek(3, into: $0.baseAddress!) }
    #expect(out == [256, 256, 1, 1, 256, 256].map { Float($0) / 32768 })
  }

  /// Extreme downsampling has one phase: one row of coefficients, not an interpolated table.
  @Test func extremeDownsamplingKeepsOneRow() {
    let bank = PolyphaseBank(up: 1, down: 192_000, quality: .fast, outputRate: 1)
    #expect(bank.rows == 1)
    #expect(bank.interpolationSteps == 0)
  }
}
