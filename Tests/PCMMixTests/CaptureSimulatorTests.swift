import Foundation
import PCMMix
import PCMMixTestSupport
import Testing

/// The capture simulator (framing, clocks, timestamps, glitches, pauses, rate switches, content)
/// and the marker detector (precision, cross-talk, misses).
@Suite struct CaptureSimulatorTests {
  /// Every event of a scene.
  static func events(app: SimulatedSource?, mic: SimulatedSource?, duration: Double)
    -> [CaptureEvent]
  {
    Array(CaptureSimulator(app: app, mic: mic, duration: duration))
  }

  /// Channel `channel` of an event's samples as floats, decoded here by hand (not by the
  /// library's decoder) from its description's flags.
  static func samples(_ e: CaptureEvent, channel: Int = 0) -> [Float] {
    let d = e.description
    let ch = Int(d.channelsPerFrame)
    let bps = Int(d.bitsPerChannel) / 8
    let big = d.flags.contains(.isBigEndian)
    return (0..<e.frames).map { n in
      let i = (n * ch + channel) * bps
      let b = e.bytes
      if d.flags.contains(.isFloat) {
        let u =
          UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
        return Float(bitPattern: u)
      }
      let u = big ? UInt16(b[i]) << 8 | UInt16(b[i + 1]) : UInt16(b[i]) | UInt16(b[i + 1]) << 8
      return Float(Int16(bitPattern: u)) / 32_767
    }
  }

  /// A Hann-windowed sine burst of `frequency` Hz and `duration` s starting at fractional frame
  /// `start`, added to `x` (mono at `rate`), written independently of the simulator.
  static func addBurst(
    _ x: inout [Float], rate: Double, start: Double, frequency: Double, duration: Double = 0.010,
    amplitude: Double = 0.5
  ) {
    let first = max(0, Int(start.rounded(.up)))
    let last = min(x.count - 1, Int((start + duration * rate).rounded(.down)))
    guard first <= last else { return }
    for n in first...last {
      let tau = (Double(n) - start) / rate
      let w = 0.5 * (1 - cos(2 * Double.pi * tau / duration))
      x[n] += Float(amplitude * w * sin(2 * Double.pi * frequency * tau))
    }
  }

  /// A recorded waveform is captured at each sample's host time, through the source's clock:
  /// a 1 kHz sine recorded at 48 kHz and captured by a 44.1 kHz source 300 ppm fast is the
  /// sine at those times (within 1e-4 of full scale, measured 2.4e-5: the window's ripple and
  /// the phase table), and a 20 kHz sine captured at 32 kHz is cut (over 50 dB down, measured
  /// 84.8), not folded to 12 kHz.
  @Test func aWaveformIsCapturedAtTheSourcesOwnSampleTimes() {
    func capture(_ frequency: Double, rate: Int, ppm: Double) -> (got: [Double], want: [Double]) {
      let recording = (0..<48_000).map {
        Float(0.5 * sin(2 * Double.pi * frequency * Double($0) / 48_000))
      }
      var source = SimulatedSource(rate: rate, channels: 1, encoding: .f32le, clockPPM: ppm)
      source.waveform = Waveform(recording, rate: 48_000)
      source.timestampJitter = 0
      let clockRate = source.trueRate(nominal: rate)
      var got: [Double] = []
      var want: [Double] = []
      for e in Self.events(app: source, mic: nil, duration: 1) {
        e.bytes.withUnsafeBytes { raw in
          for n in 0..<e.frames {
            let t = e.trueStart + Double(n) / clockRate
            // Away from the recording's ends, where the interpolator reads past it.
            guard t > 0.01 && t < 0.99 else { continue }
            got.append(Double(raw.loadUnaligned(fromByteOffset: 4 * n, as: Float.self)))
            want.append(0.5 * sin(2 * Double.pi * frequency * t))
          }
        }
      }
      return (got, want)
    }
    let (got, want) = capture(1_000, rate: 44_100, ppm: 300)
    #expect(got.count > 40_000)
    #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 1e-4 })
    let (high, _) = capture(20_000, rate: 32_000, ppm: 0)
    let rms = (high.reduce(0) { $0 + $1 * $1 } / Double(high.count)).squareRoot()
    #expect(20 * log10(rms / (0.5 / 2.0.squareRoot())) < -50)
  }

  @Test func eventsComeInDeliveryOrderAndSourcesInCaptureOrder() throws {
    let app = SimulatedSource(
      rate: 44_100, channels: 2, encoding: .s16be, clockPPM: -50, tone: (440, 0.2))
    let mic = SimulatedSource(
      rate: 48_000, channels: 1, encoding: .s16le, buffering: .fixed(frames: 960), start: 3,
      end: 18.5, seed: 2)
    let events = Self.events(app: app, mic: mic, duration: 20)
    #expect(zip(events, events.dropFirst()).allSatisfy { $0.deliveryTime <= $1.deliveryTime })
    for (side, source) in [(CaptureSide.app, app), (.mic, mic)] {
      let list = events.filter { $0.side == side }
      let size = source.buffering.frames
      #expect(list.map(\.index) == Array(0..<list.count))
      #expect(zip(list, list.dropFirst()).allSatisfy { $0.trueStart < $1.trueStart })
      #expect(list.dropLast().allSatisfy { $0.frames == size })
      #expect(list.last!.frames >= 1 && list.last!.frames <= size)
      for e in list {
        #expect(e.description == source.streamDescription(rate: source.rate))
        #expect(e.bytes.count == e.frames * Int(e.description.bytesPerFrame))
        let captured = e.trueStart + Double(e.frames) / e.trueRate
        #expect(e.deliveryTime >= captured + source.deliveryDelay - 1e-12)
      }
      let first = try #require(list.first)
      #expect(first.trueStart == source.start)
      let last = try #require(list.last)
      let stop = source.end ?? 20
      let lastSample = last.trueStart + Double(last.frames - 1) / last.trueRate
      #expect(lastSample < stop && lastSample + 1 / last.trueRate >= stop - 1e-9)
    }
    #expect(events.first { $0.side == .mic }!.description.sampleRate == 48_000)
  }

  @Test func deliveryJitterNeverReordersASource() {
    let src = SimulatedSource(
      rate: 48_000, channels: 1, buffering: .fixed(frames: 64), deliveryDelay: 0,
      deliveryJitter: 0.010)
    let list = Self.events(app: src, mic: nil, duration: 2)
    #expect(zip(list, list.dropFirst()).allSatisfy { $0.deliveryTime <= $1.deliveryTime })
    // With 1.3 ms buffers and up to 10 ms jitter, some deliveries must have been clamped.
    let late = list.map { $0.deliveryTime - ($0.trueStart + Double($0.frames) / $0.trueRate) }
    #expect(late.max()! > 0.008 && late.min()! >= 0)
  }

  @Test func burstsAreOneBufferPerTick() {
    let period = 0.512
    let src = SimulatedSource(
      rate: 44_100, channels: 2, encoding: .s16be,
      buffering: .bursts(frames: 22_596, period: period),
      start: 0.25, deliveryJitter: 0.001)
    let list = Self.events(app: src, mic: nil, duration: 12)
    #expect(list.count == Int(((12 - 0.25) * 44_100 / 22_596).rounded(.up)))
    #expect(list.dropLast().allSatisfy { $0.frames == 22_596 })
    for e in list {
      let captured = e.trueStart + Double(e.frames) / e.trueRate
      let tick = (e.deliveryTime - src.deliveryDelay - src.start) / period
      let onGrid = tick - tick.rounded(.down)
      #expect(onGrid <= 0.001 / period + 1e-9)
      #expect(e.deliveryTime - src.deliveryDelay >= captured - 1e-9)
      #expect(e.deliveryTime - src.deliveryDelay - 0.001 < captured + period)
    }
  }

  @Test(arguments: [SimulatedSource.Encoding.s16le, .s16be, .f32le])
  func bytesDecodeBackToTheSignal(encoding: SimulatedSource.Encoding) {
    let src = SimulatedSource(
      rate: 32_000, channels: 2, encoding: encoding, clockPPM: 80, start: 0.1,
      tone: (frequency: 440, amplitude: 0.6))
    let list = Self.events(app: nil, mic: src, duration: 0.5)
    let e = list[3]
    let flags = e.description.flags
    #expect(flags.contains(.isBigEndian) == (encoding == .s16be))
    #expect(flags.contains(.isFloat) == (encoding == .f32le))
    #expect(flags.contains(.isSignedInteger) == (encoding != .f32le))
    #expect(e.description.bitsPerChannel == (encoding == .f32le ? 32 : 16))
    let tolerance = encoding == .f32le ? 1e-6 : 0.6 / 32_767
    for channel in 0..<2 {
      let x = Self.samples(e, channel: channel)
      for n in [0, 1, 100, 517, e.frames - 1] {
        let expected = src.signal(atHostTime: e.trueStart + Double(n) / e.trueRate)
        #expect(abs(Double(x[n]) - expected) <= tolerance, "sample \(n) channel \(channel)")
      }
    }
  }

  @Test(arguments: [SimulatedSource.Encoding.s16le, .s16be, .f32le])
  func oneKnownSampleByteForByte(encoding: SimulatedSource.Encoding) throws {
    // A 10 Hz marker of 0.25 s at 400 Hz: sample 50 is the window's peak and a sine peak
    // (1.25 cycles in), so it holds the amplitude, 0.25: s16 8192 = 0x2000, f32 0x3E80_0000.
    let src = SimulatedSource(
      rate: 400, channels: 1, encoding: encoding, buffering: .fixed(frames: 400), markers: [0],
      markerFrequency: 10, markerDuration: 0.25, markerAmplitude: 0.25)
    let e = try #require(Self.events(app: src, mic: nil, duration: 1).first)
    switch encoding {
    case .s16le: #expect(Array(e.bytes[100..<102]) == [0x00, 0x20])
    case .s16be: #expect(Array(e.bytes[100..<102]) == [0x20, 0x00])
    case .f32le: #expect(Array(e.bytes[200..<204]) == [0x00, 0x00, 0x80, 0x3E])
    }
  }

  @Test(arguments: [300.0, -300.0])
  func clockErrorSetsTheTrueRate(ppm: Double) throws {
    let src = SimulatedSource(rate: 48_000, channels: 2, clockPPM: ppm)
    let list = Self.events(app: src, mic: nil, duration: 60)
    let total = list.reduce(0) { $0 + $1.frames }
    let rate = 48_000 * (1 + ppm * 1e-6)
    // Every sample captured before 60 s, in 60 × 48,000 × (1 ± 0.0003) = 2,880,000 ± 864.
    #expect(total == Int((60 * rate).rounded(.up)))
    #expect(abs(total - 2_880_000) == 864)
    for (a, b) in zip(list, list.dropFirst()) {
      #expect(abs(b.trueStart - a.trueStart - Double(a.frames) / rate) < 1e-9)
      #expect(a.description.sampleRate == 48_000 && a.trueRate == rate)
    }
  }

  @Test func timestampsAreTheTrueStartWithGaussianJitter() throws {
    let sigma = 20e-6
    let list = Self.events(
      app: SimulatedSource(rate: 48_000, buffering: .fixed(frames: 480)), mic: nil, duration: 30)
    let errors = try list.map { try #require($0.time).seconds - $0.trueStart }
    let mean = errors.reduce(0, +) / Double(errors.count)
    let sd = (errors.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(errors.count))
      .squareRoot()
    #expect(list.allSatisfy { $0.time?.timescale == 1_000_000_000 })
    #expect(abs(mean) < 1e-6)
    #expect(sd > 0.95 * sigma && sd < 1.05 * sigma)
    #expect(errors.allSatisfy { abs($0) < 6 * sigma })
  }

  @Test(arguments: [Int32(44_100), 600, 48_000, 1_000_000_000])
  func timestampsAreRoundedToTheTimescale(timescale: Int32) throws {
    var src = SimulatedSource(rate: 44_100, channels: 2, clockPPM: 40, start: 1.234_567)
    src.timescale = timescale
    src.timestampJitter = 0
    for e in Self.events(app: src, mic: nil, duration: 5) {
      let time = try #require(e.time)
      #expect(time.timescale == timescale)
      #expect(time.value == Int64((e.trueStart * Double(timescale)).rounded()))
      #expect(abs(time.seconds - e.trueStart) <= 0.5 / Double(timescale) + 1e-12)
    }
    src.timestampJitter = 20e-6
    for e in Self.events(app: src, mic: nil, duration: 5) {
      let time = try #require(e.time)
      #expect(abs(time.seconds - e.trueStart) <= 0.5 / Double(timescale) + 6 * 20e-6)
    }
    src.timestamps = false
    #expect(Self.events(app: src, mic: nil, duration: 1).allSatisfy { $0.time == nil })
  }

  @Test func glitchesAppearExactlyWhereAsked() throws {
    var src = SimulatedSource(rate: 48_000, channels: 1, tone: (frequency: 700, amplitude: 0.3))
    src.timestampJitter = 0
    src.backwardsStamp = [5, 9]
    src.stuckStamps = (from: 20, count: 4)
    src.duplicateBuffers = [3, 30]
    let list = Self.events(app: nil, mic: src, duration: 2)
    let originals = list.filter { !$0.isDuplicate }
    #expect(list.count == originals.count + 2)
    #expect(originals.map(\.index) == Array(0..<originals.count))
    for e in originals {
      let t = try #require(e.time).seconds
      let right = abs(t - e.trueStart) < 1e-9
      switch e.index {
      case 5, 9: #expect(abs(t - (e.trueStart - 1)) < 1e-9, "buffer \(e.index)")
      case 21..<24: #expect(t == originals[20].time!.seconds, "buffer \(e.index)")
      default: #expect(right, "buffer \(e.index)")
      }
    }
    for d in [3, 30] {
      let i = try #require(list.firstIndex { $0.isDuplicate && $0.index == d })
      let (original, copy) = (list[i - 1], list[i])
      #expect(original.index == d && !original.isDuplicate)
      #expect(copy.bytes == original.bytes && copy.time == original.time)
      #expect(copy.deliveryTime == original.deliveryTime && copy.trueStart == original.trueStart)
      #expect(copy.bytes.contains { $0 != 0 })
    }
  }

  @Test func pausesCaptureNothingAndStampsJump() throws {
    var src = SimulatedSource(rate: 48_000, channels: 1, clockPPM: 100)
    src.pauses = [(at: 2.0, duration: 1.5), (at: 5.01, duration: 0.25)]
    src.timestampJitter = 0
    let list = Self.events(app: src, mic: nil, duration: 7)
    for e in list {
      let first = e.trueStart
      let last = e.trueStart + Double(e.frames - 1) / e.trueRate
      for p in src.pauses {
        #expect(last < p.at || first >= p.at + p.duration, "buffer \(e.index)")
      }
    }
    for p in src.pauses {
      let after = try #require(list.firstIndex { $0.trueStart >= p.at })
      let (a, b) = (list[after - 1], list[after])
      #expect(b.trueStart == p.at + p.duration)
      let end = a.trueStart + Double(a.frames) / a.trueRate
      #expect(end >= p.at && end < p.at + 1 / a.trueRate + 1e-9)
      let jump = try #require(b.time).seconds - (try #require(a.time).seconds)
      #expect(abs(jump - (p.at + p.duration - a.trueStart)) < 1e-9)
    }
  }

  @Test func rateSwitchesChangeTheDescriptionAtTheSwitch() throws {
    var src = SimulatedSource(rate: 48_000, channels: 1, clockPPM: -20)
    src.rateSwitches = [(at: 2.0, rate: 16_000), (at: 3.5, rate: 44_100)]
    let list = Self.events(app: nil, mic: src, duration: 5)
    for e in list {
      let rate = e.trueStart < 2.0 ? 48_000 : (e.trueStart < 3.5 ? 16_000 : 44_100)
      #expect(e.description == src.streamDescription(rate: rate), "buffer \(e.index)")
      #expect(e.nominalRate == rate && e.trueRate == src.trueRate(nominal: rate))
      let last = e.trueStart + Double(e.frames - 1) / e.trueRate
      #expect(e.trueStart >= 2.0 || last < 2.0)
      #expect(e.trueStart >= 3.5 || last < 3.5)
    }
    for at in [2.0, 3.5] {
      let first = try #require(list.first { $0.trueStart >= at })
      #expect(first.trueStart == at && first.frames == 1024)
    }
  }

  /// The samples of one source from buffer `from` on while they are contiguous (no pause, no
  /// rate switch), channel 0, with the host time and true rate of the first.
  static func contiguousRun(_ list: [CaptureEvent], from: Int) -> (
    x: [Float], origin: Double, rate: Double, next: Int
  ) {
    var x: [Float] = []
    let first = list[from]
    var next = from
    for e in list[from...] {
      if e.isDuplicate {
        next += 1
        continue
      }
      let expected = first.trueStart + Double(x.count) / first.trueRate
      guard e.trueRate == first.trueRate, abs(e.trueStart - expected) < 1e-9 else { break }
      x += samples(e)
      next += 1
    }
    return (x, first.trueStart, first.trueRate, next)
  }

  @Test func markersLandAtTheirHostTimesInTheSourceItself() throws {
    // App: 44.1 kHz stereo s16be, 250 ppm fast, starting late, a tone and noise underneath.
    var app = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be, clockPPM: 250)
    app.start = 0.7
    app.markers = [1.0, 2.333_7, 4.512_34, 5.9]
    app.tone = (frequency: 150, amplitude: 0.05)
    app.noiseAmplitude = 0.002
    // Mic: 48 kHz mono f32 in bursts, 120 ppm slow, a pause and a switch to 16 kHz.
    var mic = SimulatedSource(rate: 48_000, channels: 1, encoding: .f32le, clockPPM: -120)
    mic.buffering = .bursts(frames: 4_800, period: 0.1)
    mic.markers = [0.512_345, 1.7, 3.100_01, 4.2, 5.555_555]
    mic.markerFrequency = 2_500
    mic.pauses = [(at: 2.5, duration: 0.3)]
    mic.rateSwitches = [(at: 4.0, rate: 16_000)]
    let list = Self.events(app: app, mic: mic, duration: 6.5)
    var report: [MarkerReport] = []
    for (side, source) in [(CaptureSide.app, app), (.mic, mic)] {
      let own = list.filter { $0.side == side }
      var from = 0
      var seen = 0
      while from < own.count {
        let run = Self.contiguousRun(own, from: from)
        let inside = source.markers.filter {
          $0 >= run.origin
            && $0 + source.markerDuration < run.origin + Double(run.x.count) / run.rate
        }
        let r = MarkerDetector.measure(
          output: run.x, channels: 1, rate: run.rate, origin: run.origin, markers: inside,
          frequency: source.markerFrequency, duration: source.markerDuration,
          searchRadius: Int(0.005 * run.rate))
        if !inside.isEmpty { report.append(r) }
        seen += inside.count
        from = run.next
      }
      #expect(seen == source.markers.count, "\(side)")
    }
    for r in report {
      print("markers in the source's own samples: \(r)")
      #expect(r.missing == 0, "\(r)")
      #expect(r.maxAbsError < 0.02, "\(r)")
    }
  }

  @Test func detectorFindsAFractionalStartToAHundredthOfAMillisecond() throws {
    let rate = 48_000.0
    var worst = 0.0
    for (i, fraction) in stride(from: 0.0, to: 1, by: 0.125).enumerated() {
      for quantized in [false, true] {
        var x = [Float](repeating: 0, count: 4_800)
        let start = 2_000 + Double(i) * 3 + fraction
        Self.addBurst(&x, rate: rate, start: start, frequency: 1_000)
        if quantized { x = x.map { ($0 * 32_767).rounded() / 32_767 } }
        let found = try #require(
          MarkerDetector.locate(
            in: x, channels: 1, rate: rate, frequency: 1_000, duration: 0.010, near: 1_950,
            searchRadius: 480))
        worst = max(worst, abs(found - start) / rate * 1_000)
      }
    }
    print("marker start from a fractional offset: worst error \(worst) ms")
    #expect(worst < 0.001, "worst error \(worst) ms")
  }

  @Test func detectorReadsStereoAndOtherRates() throws {
    for (rate, frequency) in [(44_100.0, 1_000.0), (16_000, 2_500), (48_014.4, 1_000)] {
      var mono = [Float](repeating: 0, count: Int(rate * 0.2))
      let start = rate * 0.08 + 0.37
      Self.addBurst(&mono, rate: rate, start: start, frequency: frequency, amplitude: 0.3)
      let stereo = mono.flatMap { [$0, $0] }
      let found = try #require(
        MarkerDetector.locate(
          in: stereo, channels: 2, rate: rate, frequency: frequency, duration: 0.010,
          near: start + 40, searchRadius: Int(0.004 * rate)))
      #expect(abs(found - start) / rate * 1_000 < 0.002, "\(rate) Hz: \(found) vs \(start)")
    }
  }

  @Test func anOverlappingMarkerOfTheOtherFrequencyBarelyMovesTheEstimate() throws {
    let rate = 48_000.0
    var worst = 0.0
    for offset in stride(from: -0.009, through: 0.009, by: 0.0015) {
      for (mine, other) in [(1_000.0, 2_500.0), (2_500, 1_000)] {
        var x = [Float](repeating: 0, count: 4_800)
        let start = 2_000.3
        Self.addBurst(&x, rate: rate, start: start, frequency: mine)
        Self.addBurst(&x, rate: rate, start: start + offset * rate, frequency: other)
        let found = try #require(
          MarkerDetector.locate(
            in: x, channels: 1, rate: rate, frequency: mine, duration: 0.010, near: start - 100,
            searchRadius: 480))
        worst = max(worst, abs(found - start) / rate * 1_000)
      }
    }
    print("overlapping marker of the other frequency: worst shift \(worst) ms")
    #expect(worst < 0.05, "worst shift \(worst) ms")
  }

  @Test func detectorSaysNilWithoutAClearPeak() {
    let rate = 48_000.0
    var x = [Float](repeating: 0, count: 9_600)
    #expect(
      MarkerDetector.locate(
        in: x, channels: 1, rate: rate, frequency: 1_000, duration: 0.010, near: 4_000,
        searchRadius: 480) == nil)
    // Too faint: 0.005 is a tenth of the reference amplitude.
    Self.addBurst(&x, rate: rate, start: 4_000, frequency: 1_000, amplitude: 0.005)
    #expect(
      MarkerDetector.locate(
        in: x, channels: 1, rate: rate, frequency: 1_000, duration: 0.010, near: 4_000,
        searchRadius: 480) == nil)
    // Faint but clear: 0.05 is found.
    var y = [Float](repeating: 0, count: 9_600)
    Self.addBurst(&y, rate: rate, start: 4_000, frequency: 1_000, amplitude: 0.05)
    #expect(
      MarkerDetector.locate(
        in: y, channels: 1, rate: rate, frequency: 1_000, duration: 0.010, near: 4_000,
        searchRadius: 480) != nil)
    // Loud but outside the window: the peak is on its edge.
    #expect(
      MarkerDetector.locate(
        in: y, channels: 1, rate: rate, frequency: 1_000, duration: 0.010, near: 3_000,
        searchRadius: 480) == nil)
    // The wrong frequency is not a marker.
    #expect(
      MarkerDetector.locate(
        in: y, channels: 1, rate: rate, frequency: 2_500, duration: 0.010, near: 4_000,
        searchRadius: 480) == nil)
  }

  @Test func measureReportsErrorsInMilliseconds() {
    let rate = 48_000.0
    let origin = 10.0
    var mono = [Float](repeating: 0, count: 48_000)
    let markers = [10.1, 10.35, 10.6, 10.85]
    // Rendered 0.1 ms late, except the third, not rendered at all.
    for (i, m) in markers.enumerated() where i != 2 {
      Self.addBurst(&mono, rate: rate, start: (m - origin + 0.000_1) * rate, frequency: 1_000)
    }
    let stereo = mono.flatMap { [$0, $0] }
    let report = MarkerDetector.measure(
      output: stereo, channels: 2, rate: rate, origin: origin, markers: markers,
      frequency: 1_000, duration: 0.010, searchRadius: 240)
    #expect(report.missing == 1 && report.errors.count == 4 && report.errors[2] == nil)
    for e in report.errors.compactMap({ $0 }) { #expect(abs(e - 0.1) < 0.001) }
    #expect(abs(report.maxAbsError - 0.1) < 0.001 && abs(report.p50AbsError - 0.1) < 0.001)
  }

  @Test func aMinuteOfTwoSourcesGeneratesQuickly() {
    var app = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be, clockPPM: 50)
    app.markers = stride(from: 0.5, to: 60, by: 1).map { $0 }
    app.tone = (frequency: 200, amplitude: 0.05)
    app.noiseAmplitude = 0.001
    var mic = SimulatedSource(rate: 48_000, channels: 1, encoding: .s16le, clockPPM: -70)
    mic.markers = stride(from: 0.75, to: 60, by: 1).map { $0 }
    mic.markerFrequency = 2_500
    let clock = ContinuousClock()
    var frames = [0, 0]
    let elapsed = clock.measure {
      for e in CaptureSimulator(app: app, mic: mic, duration: 60) {
        frames[e.side == .app ? 0 : 1] += e.frames
      }
    }
    print("60 s app + mic scene generated in \(elapsed)")
    #expect(abs(Double(frames[0]) - 60 * app.trueRate(nominal: 44_100)) <= 1_024)
    #expect(abs(Double(frames[1]) - 60 * mic.trueRate(nominal: 48_000)) <= 1_024)
  }
}
