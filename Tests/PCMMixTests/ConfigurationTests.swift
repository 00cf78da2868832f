import PCMMix
import Testing

/// Configuration mistakes throw or are put in range where they are given; none traps.
@Suite struct ConfigurationTests {
  @Test(arguments: [
    (0.0, 1.0, 100.0, "passbandEdge"), (1.0, 1.1, 100.0, "passbandEdge"),
    (0.9, 0.8, 100.0, "stopbandEdge"), (0.9, 1.2, 100.0, "stopbandEdge"),
    (0.9, 1.0, 10.0, "attenuation"), (0.9, 1.0, 300.0, "attenuation"),
    (.nan, 1.0, 100.0, "passbandEdge"), (0.9, 1.0, .nan, "attenuation"),
  ])
  func resamplerQualityRefuses(_ pass: Double, _ stop: Double, _ att: Double, _ name: String) {
    #expect {
      _ = try ResamplerQuality(passbandEdge: pass, stopbandEdge: stop, attenuation: att)
    } throws: { error in
      (error as? ConfigurationError)?.parameter == name
    }
  }

  @Test func resamplerQualityAcceptsTheEdges() throws {
    let q = try ResamplerQuality(passbandEdge: 0.5, stopbandEdge: 1.5, attenuation: 20)
    #expect(q.stopbandEdge == 1.5 && q.with(phase: .minimum).phase == .minimum)
  }

  @Test(arguments: [
    (0, 2, "invalidSampleRate"), (768_001, 2, "invalidSampleRate"),
    (48_000, 0, "zeroChannels"), (48_000, 65, "tooManyChannels"),
  ])
  func sourceChainRefusesAFormatOutOfRange(_ rate: Int, _ channels: Int, _ name: String) {
    var chain = SourceChain()
    var sink = CollectingSink()
    let format = PCMFormat(sampleRate: rate, channelCount: channels, sampleType: .s16)
    let bytes = [UInt8](repeating: 0, count: 2 * 65 * 4)
    #expect {
      try bytes.withUnsafeBytes { try chain.process($0, format: format, into: &sink) }
    } throws: { error in
      (error as? ProbeError).map(Self.caseName) == name
    }
    #expect(sink.frames.isEmpty)
  }

  static func caseName(_ error: ProbeError) -> String {
    switch error {
    case .invalidSampleRate: "invalidSampleRate"
    case .zeroChannels: "zeroChannels"
    case .tooManyChannels: "tooManyChannels"
    default: "other"
    }
  }

  @Test func mixerPutsItsBoundsInRange() {
    let c = DualBufferMixer.Configuration(
      channelCount: 0, capacityFrames: 0, maxLagFrames: 10, appGainDB: .nan)
    let mixer = DualBufferMixer(c)
    #expect(mixer.configuration.channelCount == 1)
    #expect(mixer.configuration.capacityFrames == 1)
    #expect(mixer.configuration.maxLagFrames == 1)
    #expect(mixer.configuration.appGainDB == 0)
    #expect(mixer.app.gain == 1)
  }

  @Test func setGainKeepsTheConfigurationCurrent() {
    var mixer = DualBufferMixer()
    mixer.setGain(.mic, dB: -6)
    #expect(mixer.configuration.micGainDB == -6)
    #expect(abs(Double(mixer.mic.gain) - 0.501_187) < 1e-6)
    mixer.setGain(.app, dB: .nan)
    #expect(mixer.configuration.appGainDB == 0 && mixer.app.gain == 1)
  }

  @Test func capturePipelineMixesStereoWhateverItIsGiven() {
    var c = CapturePipeline.Configuration()
    c.mixer.channelCount = 1
    let pipeline = CapturePipeline(c)
    #expect(pipeline.mixer.configuration.channelCount == 2)
  }
}

/// Collects what a stage emits.
private struct CollectingSink: FrameSink {
  var frames: [Float] = []
  mutating func append(_ frames: UnsafeBufferPointer<Float>) { self.frames += frames }
}
