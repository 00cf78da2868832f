/// How two sources are combined into one sample.
public enum MixPolicy: String, CaseIterable, Hashable, Sendable {
  /// `(a + b) / 2`: never clips; on int16 output it equals C's truncating `(a + b) / 2` exactly.
  case average
  /// `a + b` clamped to the sample range: full level, clips when both are loud.
  case saturate
}
