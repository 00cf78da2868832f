import PCMMix
import Testing

// What an adopter writes to turn on this release's voice features, compiled in Swift 6 mode as
// the README and the guide show them: echo cancellation, ducking and loudness meters on the
// real-time pipeline, their state read from a UI timer, a bad setting caught by name.

/// The adopter's settings screen: the three switches and the depth of the duck.
struct VoiceSettings {
  var cancelEcho = true
  var duckDepthDB: Double? = 12
  var meterLoudness = true

  func configuration() -> RealtimeCapturePipeline.Configuration {
    var c = RealtimeCapturePipeline.Configuration()
    c.policy = .limit
    c.echoCancellation = cancelEcho ? EchoCancellation() : nil
    if let depth = duckDepthDB {
      var ducking = Ducking()
      ducking.depthDB = depth
      c.ducking = ducking
    }
    c.meterLoudness = meterLoudness
    return c
  }
}

@Suite struct AdopterVoiceCodeTests {
  @Test func theVoiceSwitchesAndWhatAUITimerReads() throws {
    let format = StreamDescription(
      PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .s16))
    let pipeline = try RealtimeCapturePipeline(
      VoiceSettings().configuration(), app: format, mic: format)
    var block = [Int16](repeating: 0, count: 960)
    let silence = [Int16](repeating: 0, count: 480)
    for k in 0..<50 {
      let time = MediaTime(value: Int64(k * 480), timescale: 48_000)
      try silence.withUnsafeBytes { try pipeline.append(.app, $0, description: format, time: time) }
      try silence.withUnsafeBytes { try pipeline.append(.mic, $0, description: format, time: time) }
      _ = block.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
    }
    // A UI timer's reads.
    let statistics = pipeline.statistics
    let echo: EchoStatistics? = statistics.echo
    let loudness: LoudnessReading? = statistics.loudness
    #expect(echo?.isBypassed == true)  // nothing but silence: no echo to cancel
    #expect(loudness?.integratedLUFS == -.infinity)

    // A setting out of range is refused by name, not trapped.
    var bad = VoiceSettings().configuration()
    bad.ducking?.attack = -1
    #expect(throws: CaptureError.self) {
      _ = try RealtimeCapturePipeline(bad, app: format, mic: format)
    }
    do {
      try bad.validate()
    } catch {
      #expect(error.parameter == "ducking.attack")
    }
  }
}
