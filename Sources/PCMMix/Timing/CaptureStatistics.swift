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
  /// Timeline frame of the first frame given, while running: where the sources were read
  /// from (frame `k` holds the audio stamped `origin + (k + compressed) / outputRate`, see
  /// ``CaptureClockStatistics/compressedFrames``).
  public var position: Int?
  /// Frames of the pull in which the app had nothing to give (not started, paused, gap).
  public var appSilentFrames: Int
  /// Frames of the pull in which the mic had nothing to give.
  public var micSilentFrames: Int
  /// The output clock's host time of the first frame given, in the output rate's timescale;
  /// `nil` before the clock starts (and for a ``Phase/busy`` pull). From the first running
  /// pull on it never jumps: each pull starts exactly where the one before ended, holding
  /// pulls included, so blocks written back to back carry these times. Stamp the encoded audio
  /// with it. It equals ``captureTime`` until the latency changes, and then stays behind it by
  /// the change (``CaptureClockStatistics/latencyFrames`` minus
  /// ``CaptureClockStatistics/initialLatencyFrames``).
  public var time: MediaTime?
  /// The host time at which the first frame's audio was captured (its sources' stamps), in
  /// the output rate's timescale: ``time`` less what the latency rose since the start, or plus
  /// what it fell. `nil` while starting, holding or busy.
  public var captureTime: MediaTime?

  /// Creates a status.
  public init(
    phase: Phase, position: Int?, appSilentFrames: Int, micSilentFrames: Int,
    time: MediaTime? = nil, captureTime: MediaTime? = nil
  ) {
    self.phase = phase
    self.position = position
    self.appSilentFrames = appSilentFrames
    self.micSilentFrames = micSilentFrames
    self.time = time
    self.captureTime = captureTime
  }

  /// Whether both sources filled the whole pull.
  public var isFull: Bool { phase == .running && appSilentFrames == 0 && micSilentFrames == 0 }
}

/// What happened to one source's audio in a ``ClockedCapturePipeline``.
///
/// Input counters are in the source's own frames; timeline counters in output frames. On the
/// timeline, `framesIn == framesEmitted + framesDropped + framesBuffered` always holds, and
/// ``framesLate`` is the part of ``framesDropped`` that arrived after its place was pulled.
public struct CaptureSideStatistics: Equatable, Sendable {
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
  /// Times the source's stamps jumped (further back than any overlap, or further ahead than
  /// any audio could be yet) and three in a row agreed: the source was moved onto them where
  /// they fit the timeline, or its stamps were re-anchored where they were placed by arrival
  /// (a device clock reset), so it is heard at once either way.
  public var resyncs = 0
  /// Times an unstamped source that had run dry was placed anew by arrival.
  public var restarts = 0
  /// Buffers whose stamp was invalid (a timescale of 0 or less, as ``MediaTime/invalid``),
  /// placed as if they had none.
  public var invalidStamps = 0

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
  /// The latency the clock started with, in output frames (what the first deliveries needed).
  public var initialLatencyFrames = 0
  /// Times the latency was raised because a source was late again and again (for half a second
  /// or more); one late delivery only costs that source its late audio.
  public var latencyRaises = 0
  /// Pulls that held because every source ran dry at once (a stall of the whole process): each
  /// raises the latency by a pull, so the audio that arrives after it still plays.
  public var stallHolds = 0
  /// Times the latency started to come down after delivery had been steady (each is carried
  /// out by ``silenceSkippedFrames`` and ``compressedFrames``).
  public var latencyLowerings = 0
  /// Frames of silence (neither source had audio there) skipped to lower the latency.
  public var silenceSkippedFrames = 0
  /// Frames of audio the sources' resamplers have compressed away to lower the latency (a
  /// pitch change of at most 10 cents while it lasts): the output clock runs this far behind
  /// the stamps, less the frames held.
  public var compressedFrames = 0.0
  /// Frames of silence given before the clock started.
  public var startingFrames = 0
  /// Frames of silence given while the clock held to raise the latency (on the output clock,
  /// off the timeline).
  public var holdingFrames = 0
  /// Output frames skipped because the consumer fell behind the sources further than the
  /// longest latency: an emergency cut, counted here.
  public var skippedFrames = 0
  /// Pulls in which audio of a source turned out to have arrived too late to be played.
  public var lateEvents = 0
}
