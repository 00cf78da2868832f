import CBenchPeers
import PCMMix

/// A soxr, speexdsp or WebRTC-class sinc converter from `CBenchPeers`, behind the library's
/// ``Resampler`` protocol so the benchmark drives every backend through the same code.
struct PeerResampler: Resampler {
  /// Owns the C converter.
  final class Handle {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { bench_peer_destroy(pointer) }
  }

  let kind: bench_peer_kind
  let quality: Int32
  let inputRate: Int
  let outputRate: Int
  let channelCount: Int
  /// The delay the library reports; not dropped by the benchmark, only shown.
  let latency: Int
  private var handle: Handle

  /// A converter, or nil when the library refuses the parameters.
  init?(kind: bench_peer_kind, quality: Int32, inputRate: Int, outputRate: Int, channels: Int) {
    guard
      let p = bench_peer_create(
        kind, quality, Int32(inputRate), Int32(outputRate), Int32(channels))
    else { return nil }
    self.kind = kind
    self.quality = quality
    self.inputRate = inputRate
    self.outputRate = outputRate
    channelCount = channels
    handle = Handle(p)
    latency = Int(bench_peer_reported_delay(p).rounded())
  }

  mutating func process(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
  ) -> (consumed: Int, produced: Int) {
    let frames = input.count / channelCount
    let n = bench_peer_process(
      handle.pointer, input.baseAddress, frames, output.baseAddress, output.count / channelCount)
    precondition(n >= 0, "peer resampler failed")
    return (frames, n)
  }

  mutating func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    let n = bench_peer_flush(handle.pointer, output.baseAddress, output.count / channelCount)
    precondition(n >= 0, "peer resampler failed")
    return n
  }

  mutating func reset() {
    guard
      let p = bench_peer_create(
        kind, quality, Int32(inputRate), Int32(outputRate), Int32(channelCount))
    else { preconditionFailure("peer resampler cannot be recreated") }
    handle = Handle(p)
  }

  func maxOutputFrames(forInputFrames frames: Int) -> Int {
    bench_peer_max_output(handle.pointer, frames)
  }
}
