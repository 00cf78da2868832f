/// Taking the app's own audio out of the mic: when the device plays the app on its loudspeaker,
/// the mic records it again, late and roomy, under the voice. With the app's audio as the
/// reference, both on one drift-corrected timeline, the canceller estimates the echo and
/// subtracts it, then suppresses what a linear filter cannot model.
///
/// ```swift
/// var configuration = ClockedCapturePipeline.Configuration()
/// configuration.echoCancellation = EchoCancellation()   // defaults: 0 … 300 ms, 200 ms filter
/// ```
/// What it does, block by block (256 frames at 48 kHz, 128 at 16 and 24 kHz):
/// - **Delay search**, 0 … ``maximumDelay``: the reference and the mic cross-correlated at
///   every lag, each frequency weighted by how coherent the two are there, smoothed over about
///   half a second, from the first 192 ms of audio on; a lag is taken once its peak stands out
///   in two analyses running (three in the first half second), and the filter then starts just
///   before it.
/// - **A partitioned frequency-domain Kalman filter** (``filterLength`` long) models the echo
///   path; its step in each bin follows the near-end level, so a voice over the app slows it
///   instead of corrupting it. A faster shadow filter beside it takes over when the echo path
///   changes (the phone is moved), and is reset to the main one when double talk throws it off.
/// - **A residual-echo suppressor** turns down the bins where the echo the filter could not model
///   (loudspeaker distortion, the tail beyond the filter) outweighs the near end; where the mic is
///   the echo alone it also counts the app's own power through the echo path's learnt gain, so
///   what the filter has not learnt yet (a note of music it has not heard) is taken out too.
///   It waits 43 ms (8 blocks at 48 kHz) for the voice decisions after each block, so that a
///   talker's first syllable, which it reads only once the syllable has spread over several
///   bands, is kept from its start. For the app's first 1.5 s it takes every block as the echo
///   alone, before the filter has
///   heard enough of the app to tell its echo from a voice: a talker who speaks over the app
///   that early loses some words there (about 5 dB SI-SDR instead of 11 over the first second).
///   **Comfort noise** fills what it takes out back to the room's noise floor.
/// - **Bypass** when there is no echo (headphones, the app silent for long): the mic passes
///   through unchanged, bit for bit. Headphones plugged in mid-capture bring the bypass back
///   6–8.5 s after the plug, with the app playing.
public struct EchoCancellation: Equatable, Sendable {
  /// The longest delay (seconds) between the app's audio on the timeline and its echo in the mic
  /// that is searched for: the device's output latency and the acoustic path (default 0.3).
  public var maximumDelay = 0.3
  /// The echo path (seconds after its delay) the adaptive filter models (default 0.2). The
  /// residual suppressor takes care of the tail beyond it.
  public var filterLength = 0.2
  /// How hard the residual-echo suppressor works: 0 turns it off (the linear filter alone), 1
  /// the default, up to 4.
  public var suppression = 1.0
  /// Whether suppressed bins are filled back to the room's noise floor (default `true`).
  public var comfortNoise = true

  /// The defaults.
  public init() {}

  /// Checks the values (finite, in range).
  ///
  /// - Throws: ``ConfigurationError`` naming the first value at fault.
  public func validate() throws(ConfigurationError) {
    guard (0...1).contains(maximumDelay) else {
      throw ConfigurationError("maximumDelay", "\(maximumDelay) s is not in 0 … 1 s")
    }
    guard (0.02...0.5).contains(filterLength) else {
      throw ConfigurationError("filterLength", "\(filterLength) s is not in 0.02 … 0.5 s")
    }
    guard (0...4).contains(suppression) else {
      throw ConfigurationError("suppression", "\(suppression) is not in 0 … 4")
    }
  }
}

/// What the echo canceller is doing, as of the last block it processed.
public struct EchoStatistics: Equatable, Sendable {
  /// Blocks processed.
  public var blocks = 0
  /// The echo delay found (seconds), once the search has settled on one.
  public var delay: Double?
  /// The echo return loss enhancement, estimated from the signals (dB): how far the output is
  /// below the mic where the app plays and the near end is quiet, smoothed over about a second.
  public var erleDB = 0.0
  /// The share of the blocks with the app playing in which the near end spoke too (double talk).
  public var doubleTalkFraction = 0.0
  /// Whether the mic passes through unchanged because no echo was found.
  public var isBypassed = true
  /// Times the canceller found that the echo path changed (the phone was moved): the shadow
  /// filter took over from the main one, or the path-change detector set the filter's
  /// uncertainty back to its prior. A reset the detector held back and dropped (a talker's
  /// first syllable) does not count.
  public var pathChanges = 0
  /// How many parts per million the mic's clock runs fast against the loudspeaker's (negative:
  /// slow), as the canceller follows the echo sliding against the app's audio
  /// (``EchoCanceller/trackDrift()``); `nil` while it reads no drift. Where the app's audio was
  /// recorded on the clock that played it (two recorders' files), it is the drift between the
  /// two inputs, which `pcm-mix mix --mic-drift` takes out.
  package var micDriftPPM: Double?

  /// Creates empty statistics.
  public init() {}
}
