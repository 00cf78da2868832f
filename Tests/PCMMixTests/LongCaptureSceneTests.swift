import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The long captures at full length (they were Python checks on the benchmark's JSON in
/// `Benchmarks/smoke.sh`): not timings, but where the audio lands after 20 minutes and after an
/// hour, which must not regress. Markers are 10 ms tone bursts every 20 s per source, found in
/// the output against their host time.
@Suite struct LongCaptureSceneTests {
  static let minutes = 20.0
  /// The `fast` preset: where audio lands does not depend on the filter (each preset's delay is
  /// taken off), and its shorter filters keep the hour within reach of a Debug test run.
  static var configuration: ClockedCapturePipeline.Configuration {
    .init(resampler: .variableRatio(.fast))
  }

  /// Stamped and steered (the defaults), a mic 300 ppm fast stays on its stamps for 20 minutes.
  @Test func aMic300PPMFastStaysWithin1MillisecondFor20Minutes() throws {
    let seconds = Self.minutes * 60
    let (app, mic) = DriftScene.sources(seconds: seconds, micPPM: 300)
    let r = try DriftScene.run(
      Self.configuration, app: app, mic: mic, seconds: seconds, radius: 48_000)
    #expect(r.app.errors.count == app.markers.count && r.mic.errors.count == mic.markers.count)
    #expect(r.app.missing == 0 && r.mic.missing == 0)
    #expect(r.app.maxAbsError <= 1, "app max \(r.app.maxAbsError) ms")
    #expect(r.mic.maxAbsError <= 1, "mic max \(r.mic.maxAbsError) ms")
    #expect(r.lateEvents == 0)
  }

  /// The control: stamped once and then placed by count, as shipped mixers place audio, the
  /// same mic drifts by 300 ppm × 20 min = 360 ms, so the scene really drifts.
  @Test func placedByCountTheSameMicDrifts360Milliseconds() throws {
    let seconds = Self.minutes * 60
    let (app, mic) = DriftScene.sources(seconds: seconds, micPPM: 300)
    let r = try DriftScene.run(
      Self.configuration, app: app, mic: mic, seconds: seconds, radius: 48_000,
      stampedOnce: true)
    #expect((340...380).contains(r.mic.maxAbsError), "mic max \(r.mic.maxAbsError) ms")
  }

  /// An hour with the defaults (mic +300 ppm, app −20 ppm, adaptive latency): every marker
  /// within 1 ms of its host time, no audio late.
  @Test func anHourWithTheDefaultsStaysWithin1Millisecond() throws {
    let seconds = 3 * Self.minutes * 60
    let (app, mic) = DriftScene.hourSources(seconds: seconds)
    var c = Self.configuration
    c.latency = .adaptive(minimum: 0.1, maximum: 1)
    let r = try DriftScene.run(c, app: app, mic: mic, seconds: seconds, radius: 4_800)
    let both = MarkerReport(errors: r.app.errors + r.mic.errors)
    #expect(both.errors.count >= 350 && both.missing == 0)
    #expect(both.maxAbsError <= 1, "max \(both.maxAbsError) ms")
    #expect(r.lateEvents == 0)
  }
}
