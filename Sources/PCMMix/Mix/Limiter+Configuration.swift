extension Limiter {
  /// The ceiling, look-ahead and timing of a ``Limiter``.
  ///
  /// Out-of-range values are not errors: ``clamped`` (which the limiter applies) brings each
  /// field into its range and replaces a non-finite one with its default.
  public struct Configuration: Hashable, Sendable {
    /// Samples per frame, 1…8 (default 2).
    public var channelCount: Int
    /// The ceiling in dBFS, −60…0 (default −1). The linear ceiling is 10^(dB/20) (see
    /// ``Limiter/ceiling``).
    public var ceilingDB: Double
    /// Frames of look-ahead, and so of delay: 0 (instant attack, no delay) up to 100 ms of
    /// frames (default 48, 1 ms at 48 kHz). The gain ramps down across this many frames before
    /// a peak.
    public var lookaheadFrames: Int
    /// Time constant of the release, 1 ms…10 s (default 0.1 s): after a peak, the gain's
    /// distance from unity shrinks by a factor e per `releaseSeconds`, so from any depth the
    /// gain is within 0.1 dB of unity after at most ln(1 / 0.0114) ≈ 4.47 time constants past
    /// the hold and look-ahead (458 ms in all by default), and exactly 1 a few time constants
    /// later (the last 2⁻²⁰ of the distance is skipped).
    public var releaseSeconds: Double
    /// How long the gain stays at a peak's level before releasing, 0…1 s (default 10 ms,
    /// beyond the look-ahead's own hold). While peaks come closer together than this — the
    /// half-period of a tone above 50 Hz at the default — the gain holds steady between them
    /// instead of rippling, so it adds no distortion; it delays recovery by as much.
    public var holdSeconds: Double
    /// Frames per second, 8,000…768,000 (default 48,000).
    public var sampleRate: Int

    /// Creates a configuration; the defaults suit 48 kHz stereo with 1 ms of look-ahead.
    public init(
      channelCount: Int = 2, ceilingDB: Double = -1, lookaheadFrames: Int = 48,
      releaseSeconds: Double = 0.1, holdSeconds: Double = 0.01, sampleRate: Int = 48_000
    ) {
      self.channelCount = channelCount
      self.ceilingDB = ceilingDB
      self.lookaheadFrames = lookaheadFrames
      self.releaseSeconds = releaseSeconds
      self.holdSeconds = holdSeconds
      self.sampleRate = sampleRate
    }

    /// This configuration with every field brought into its documented range (a non-finite
    /// value takes the default).
    public var clamped: Configuration {
      func clamp(_ x: Double, _ lo: Double, _ hi: Double, _ fallback: Double) -> Double {
        x.isFinite ? min(max(x, lo), hi) : fallback
      }
      var c = self
      c.channelCount = min(max(channelCount, 1), 8)
      c.sampleRate = min(max(sampleRate, 8_000), 768_000)
      c.ceilingDB = clamp(ceilingDB, -60, 0, -1)
      c.lookaheadFrames = min(max(lookaheadFrames, 0), c.sampleRate / 10)
      c.releaseSeconds = clamp(releaseSeconds, 0.001, 10, 0.1)
      c.holdSeconds = clamp(holdSeconds, 0, 1, 0.01)
      return c
    }
  }
}
