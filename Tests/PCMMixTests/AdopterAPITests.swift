import PCMMix
import Testing

// What an adopter writes against this session's API, with `import PCMMix` only (no @testable):
// a backend chosen by name, a custom spec that can fail, gains set through the pipeline, and a
// file-less mix of two buffers. Compiled in Swift 6 mode by this target.

/// The adopter's setup: a custom filter spec (throws if it is not one) and the pipeline.
func makeAdopterPipeline(highQuality: Bool) throws -> CapturePipeline {
  let quality =
    highQuality
    ? ResamplerQuality.high
    : try ResamplerQuality(passbandEdge: 0.85, stopbandEdge: 1, attenuation: 100)
  var configuration = CapturePipeline.Configuration(resampler: .builtin(quality))
  configuration.mixer.policy = .limit
  return CapturePipeline(configuration)
}

@Suite struct AdopterAPITests {
  @Test func anAdopterMixesTwoSourcesThroughThePublicAPI() throws {
    var pipeline = try makeAdopterPipeline(highQuality: false)
    pipeline.setGain(.mic, dB: -6)
    let app = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .s16))
    let mic = StreamDescription(PCMFormat(sampleRate: 16_000, channelCount: 1, sampleType: .s16))
    let appBytes = [UInt8](repeating: 0x08, count: 4_800 * 4)  // 100 ms
    let micBytes = [UInt8](repeating: 0x08, count: 1_600 * 2)  // 100 ms
    try appBytes.withUnsafeBytes { try pipeline.append(.app, $0, description: app) }
    try micBytes.withUnsafeBytes { try pipeline.append(.mic, $0, description: mic) }
    var out = [Int16](repeating: 0, count: 960)
    let frames = out.withUnsafeMutableBufferPointer { pipeline.mix(into: $0) }
    #expect(frames == 480)
    #expect(pipeline.mixer.configuration.micGainDB == -6)
    #expect(pipeline.mixer.configuration.policy == .limit)
    // A spec that is not one is refused where it is written, naming the parameter.
    #expect(throws: ConfigurationError.self) {
      _ = try ResamplerQuality(passbandEdge: 0.9, stopbandEdge: 0.5, attenuation: 100)
    }
  }

  @Test func aBackendOfYourOwnIsAClosure() {
    let factory = ResamplerFactory { input, output, channels in
      PolyphaseResampler(inputRate: input, outputRate: output, channelCount: channels)
    }
    let resampler = factory(44_100, 48_000, 2)
    #expect(resampler.inputRate == 44_100 && resampler.channelCount == 2)
    var chain = SourceChain(resampler: .variableRatio(.fast))
    chain.adjustRatio(by: 0)
    #expect(chain.outputRate == 48_000)
  }

  @Test func anAdopterAppendsTwoSeparatePlanes() throws {
    // Non-interleaved stereo as an AudioBufferList holds it: each channel in its own buffer.
    let format = StreamDescription(
      PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .s16, isInterleaved: false))
    let left = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 480)
    let right = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 480)
    defer {
      left.deallocate()
      right.deallocate()
    }
    left.initialize(repeating: 4_096)
    right.initialize(repeating: 8_192)
    var pipeline = CapturePipeline()
    let planes = [UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)]
    try planes.withUnsafeBufferPointer {
      try pipeline.append(.app, planes: $0, description: format)
    }
    let mic = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s16))
    let silence = [Int16](repeating: 0, count: 480)
    try silence.withUnsafeBytes { try pipeline.append(.mic, $0, description: mic) }
    var out = [Int16](repeating: 0, count: 960)
    #expect(out.withUnsafeMutableBufferPointer { pipeline.mix(into: $0) } == 480)
    // Left from the first plane, right from the second, in every frame.
    let lefts = stride(from: 0, to: 960, by: 2).map { out[$0] }
    let rights = stride(from: 1, to: 960, by: 2).map { out[$0] }
    #expect(lefts.allSatisfy { $0 > 0 && $0 == lefts[0] })
    #expect(rights.allSatisfy { $0 == 2 * lefts[0] })
    // One plane for two channels is refused, naming the counts.
    #expect(throws: ProbeError.planeCountMismatch(1, expected: 2)) {
      try planes.prefix(1).withUnsafeBufferPointer {
        try pipeline.append(.app, planes: $0, description: format)
      }
    }
  }
}

/// What a playback SDK hands a render callback: a raw pointer and a number of frames.
typealias RenderCallback = (_ buffer: UnsafeMutableRawPointer, _ frames: Int) -> Void

/// An adopter's render callback pulls the frames it is asked for, in frames, and delivers a
/// full 10 ms; the same pull through a buffer pointer of `2 × frames` samples gives the same
/// bits, and one built from the frame count by mistake delivers half.
@Suite struct FrameCountedOutputTests {
  static func pipelineWithAudio() throws -> ClockedCapturePipeline {
    var c = ClockedCapturePipeline.Configuration()
    c.latency = .fixed(seconds: 0.02)
    let f = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .s16))
    var p = try ClockedCapturePipeline(c, app: f, mic: f)
    // 200 ms of a ramp on both sides, stamped, so that pulls after the latency carry audio.
    let samples = (0..<(9_600 * 2)).map { Int16(truncatingIfNeeded: $0 &* 7) }
    for side in [DualBufferMixer.Side.app, .mic] {
      try samples.withUnsafeBytes {
        try p.append(side, $0, description: f, time: MediaTime(value: 0, timescale: 48_000))
      }
    }
    return p
  }

  @Test func aRenderCallbackPullsTheFramesItIsAskedFor() throws {
    var byFrames = try Self.pipelineWithAudio()
    var bySamples = try Self.pipelineWithAudio()
    var delivered: [Int16] = []
    var positions: [Int] = []
    let render: RenderCallback = { buffer, frames in
      let status = byFrames.pull(frames: frames, into: buffer.assumingMemoryBound(to: Int16.self))
      if let p = status.position { positions.append(p) }
    }
    var expected: [Int16] = []
    for _ in 0..<10 {
      var block = [Int16](repeating: 0, count: 960)
      block.withUnsafeMutableBytes { render($0.baseAddress!, 480) }
      delivered += block
      var same = [Int16](repeating: 0, count: 960)
      _ = same.withUnsafeMutableBufferPointer { bySamples.pull(into: $0) }
      expected += same
    }
    #expect(delivered == expected)
    #expect(delivered.contains { $0 != 0 })
    // Each running callback moved the output on by the 480 frames it asked for.
    #expect(positions.count >= 5)
    #expect(zip(positions, positions.dropFirst()).allSatisfy { $1 - $0 == 480 })
    var mixer = DualBufferMixer()
    let frames = (0..<960).map { _ in Float(0.25) }
    frames.withUnsafeBufferPointer {
      mixer.append(.app, samples: $0)
      mixer.append(.mic, samples: $0)
    }
    var out = [Float](repeating: 0, count: 960)
    #expect(
      out.withUnsafeMutableBufferPointer { mixer.mix(upTo: 480, into: $0.baseAddress!) } == 480)
  }
}
