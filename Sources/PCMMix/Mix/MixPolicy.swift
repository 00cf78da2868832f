/// How two sources are combined into one sample.
public enum MixPolicy: String, CaseIterable, Hashable, Sendable {
  /// `(a + b) / 2`: never clips; on int16 output it equals C's truncating `(a + b) / 2` exactly.
  case average
  /// `a + b` clamped to the sample range: full level, clips when both are loud.
  case saturate
  /// `a + b` through a limiter that keeps every sample at or below a ceiling (default −1 dBFS):
  /// full level and, below the ceiling, the plain sum to the last bit (on int16 output the same
  /// as `saturate`'s there); above it, the gain comes down smoothly and recovers within half a
  /// second. The recommended policy. (A mixer of other than two channels clamps instead; see
  /// ``DualBufferMixer/Configuration/channelCount``.)
  case limit
}
