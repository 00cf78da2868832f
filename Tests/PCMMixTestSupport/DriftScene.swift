import PCMMix

/// The long capture scenes of the timing checks, shared by `pcm-mix-bench` (section `timing`)
/// and `LongCaptureSceneTests`: ReplayKit's shapes (44.1 kHz stereo s16be app, 32 kHz mono s16le
/// mic, 1,024-frame buffers), markers every 20 s per source (app at 5, 25, 45 … s, mic at 15,
/// 35, …).
public enum DriftScene {
  /// The capture with the mic clock `micPPM` fast and the app on the host clock.
  public static func sources(seconds: Double, micPPM: Double) -> (SimulatedSource, SimulatedSource)
  {
    var app = SimulatedSource(rate: 44_100, channels: 2, encoding: .s16be)
    app.markers = Array(stride(from: 5.0, to: seconds - 2, by: 20))
    app.markerFrequency = 1_000
    app.seed = 11
    var mic = SimulatedSource(rate: 32_000, channels: 1, encoding: .s16le)
    mic.clockPPM = micPPM
    mic.markers = Array(stride(from: 15.0, to: seconds - 2, by: 20))
    mic.markerFrequency = 2_500
    mic.seed = 12
    return (app, mic)
  }

  /// The hour's capture: the mic 300 ppm fast, the app's clock 20 ppm slow.
  public static func hourSources(seconds: Double) -> (SimulatedSource, SimulatedSource) {
    var (app, mic) = sources(seconds: seconds, micPPM: 300)
    app.clockPPM = -20
    return (app, mic)
  }

  /// Runs `app` and `mic` for `seconds` through a `SceneRunner` around `configuration`, with
  /// every buffer stamped, or (`stampedOnce`) only each source's first, the rest placed by
  /// count as shipped mixers place audio. Markers are searched ±`radius` output frames.
  public static func run(
    _ configuration: ClockedCapturePipeline.Configuration, app: SimulatedSource,
    mic: SimulatedSource, seconds: Double, radius: Int, stampedOnce: Bool = false
  ) throws -> SceneRunner.Result {
    var runner = try SceneRunner(
      configuration, app: app.streamDescription(rate: app.rate),
      mic: mic.streamDescription(rate: mic.rate))
    var stamped: Set<CaptureSide> = []
    return runner.run(app: app, mic: mic, duration: seconds, searchRadius: radius) { e, t in
      guard stampedOnce else { return t }
      return stamped.insert(e.side).inserted ? t : nil
    }
  }
}
