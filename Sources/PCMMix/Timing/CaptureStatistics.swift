/// What one pull of a ``ClockedCapturePipeline`` or ``RealtimeCapturePipeline`` gave. The pull
/// always fills the whole output; this says what of it is audio.
///
/// ```swift
/// let status = pipeline.pull(into: tenMilliseconds)
/// if !status.isFull { log(status) }  // e.g. the mic had nothing for 480 frames
/// ```
public struct PullStatus: Equatable, Sendable {
  /// Where the output clock was.
  public enum Phase: Equatable, Sendable {
    /// Before the clock starts (no audio yet, or waiting up to the startup wait for the other
    /// source's first buffer): silence, off the timeline.
    case starting
    /// The clock holds while the latency is raised (audio arrived late): silence, off the
    /// timeline.
    case holding
    /// The output is the timeline from ``PullStatus/position`` on.
    case running
    /// Another thread was pulling at the same time (``RealtimeCapturePipeline``): silence.
    case busy
  }

  /// Where the output clock was: the output is the timeline only while `.running`.
  public var phase: Phase
  /// Timeline frame of the first frame given, while running (frame `k` is host time
  /// `origin + k / outputRate`).
  public var position: Int?
  /// Frames of the pull in which the app had nothing to give (not started, paused, gap).
  public var appSilentFrames: Int
  /// Frames of the pull in which the mic had nothing to give.
  public var micSilentFrames: Int

  /// Creates a status.
  public init(phase: Phase, position: Int?, appSilentFrames: Int, micSilentFrames: Int) {
    self.phase = phase
    self.position = position
    self.appSilentFrames = appSilentFrames
    self.micSilentFrames = micSilentFrames
  }

  /// Whether both sources filled the whole pull.
  public var isFull: Bool { phase == .running && appSilentFrames == 0 && micSilentFrames == 0 }
}

/// What happened to one source's audio in a ``ClockedCapturePipeline``.
///
/// Input counters are in the source's own frames; timeline counters in output frames. On the
/// timeline, `framesIn == framesEmitted + framesDropped + framesBuffered` always holds, and
/// ``framesLate`` is the part of ``framesDropped`` that arrived after its place was pulled.
public struct CaptureSourceStatistics: Equatable, Sendable {
  /// Buffers taken.
  public var buffers = 0
  /// Frames taken, at the source's rate.
  public var inputFrames = 0
  /// Frames cut from buffers that overlapped audio already placed (time going back a little, a
  /// resent buffer), at the source's rate.
  public var inputFramesTrimmed = 0
  /// Buffers dropped whole as resent copies (same stamp, same bytes).
  public var duplicateBuffers = 0
  /// Forward gaps in the stamps (pauses, lost buffers): the source restarted further on.
  public var gaps = 0
  /// Output frames the gaps spanned.
  public var gapFrames = 0
  /// Buffers placed by arrival because their stamp could not be right (far back in time, or one
  /// stamp on several buffers), or because they had none while the source had stamps before.
  public var arrivalPlacedBuffers = 0
  /// Times the source was moved onto its stamps after three of them agreed on a new place.
  public var resyncs = 0
  /// Times an unstamped source that had run dry was placed anew by arrival.
  public var restarts = 0

  /// Output frames that entered the timeline.
  public var framesIn = 0
  /// Output frames mixed into the output.
  public var framesEmitted = 0
  /// Output frames dropped: late, past capacity, while disabled, skipped.
  public var framesDropped = 0
  /// Of ``framesDropped``: frames that arrived after their place in the output was pulled.
  public var framesLate = 0
  /// Output frames waiting.
  public var framesBuffered = 0
  /// Output frames in which this source had nothing to give (not started, paused, late, gap).
  public var framesSilent = 0

  /// Whether the source has delivered stamps.
  public var isStamped = false
  /// The drift loop's estimate of the source clock's error against the host clock, in parts
  /// per million (positive: it runs fast). 0 for an unstamped source.
  public var driftPPM = 0.0
  /// The ratio correction in force: the resampler runs at nominal × (1 + this).
  public var ratioAdjustment = 0.0
  /// The last stamp's distance from where the audio went on, in seconds (stamp − expected).
  public var lastPositionError = 0.0
  /// The source's input rate, once it has delivered.
  public var inputRate: Int?
}

/// What happened to the output clock of a ``ClockedCapturePipeline``.
public struct CaptureClockStatistics: Equatable, Sendable {
  /// Pull calls.
  public var pulls = 0
  /// Frames pulled in all.
  public var framesPulled = 0
  /// Timeline position of the next frame the output will give (once running).
  public var position = 0
  /// Whether the output clock runs (it starts once the sources have shown their first audio).
  public var isRunning = false
  /// The latency in output frames: how far behind the newest audio the output plays.
  public var latencyFrames = 0
  /// Times the latency was raised because audio arrived late.
  public var latencyRaises = 0
  /// Frames of silence given before the clock started.
  public var startingFrames = 0
  /// Frames of silence given while the clock held to raise the latency.
  public var holdingFrames = 0
  /// Output frames skipped because the consumer fell behind the sources.
  public var skippedFrames = 0
  /// Pulls in which audio of a source turned out to have arrived too late to be played.
  public var lateEvents = 0
}
