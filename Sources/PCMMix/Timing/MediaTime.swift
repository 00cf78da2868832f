/// A presentation time on the host clock, as Core Media's `CMTime` holds it: `value / timescale`
/// seconds.
///
/// ReplayKit and AVFoundation stamp each audio buffer with the host time of its first sample,
/// often in a timescale that is not the buffer's sample rate (nanoseconds, or 1/600 s), so the
/// adapter is one line:
/// ```swift
/// let pts = CMSampleBufferGetPresentationTimeStamp(sampleBuffer)
/// let time = pts.isValid ? MediaTime(value: pts.value, timescale: pts.timescale) : nil
/// ```
/// Both capture sources must be stamped on the same clock (the host clock, as ReplayKit does).
public struct MediaTime: Hashable, Sendable {
  /// The time in units of `1 / timescale` seconds.
  public var value: Int64
  /// Units per second; positive.
  public var timescale: Int32

  /// Creates `value / timescale` seconds.
  public init(value: Int64, timescale: Int32) {
    self.value = value
    self.timescale = timescale
  }

  /// The time nearest `seconds` in units of `1 / timescale` (default nanoseconds).
  public init(seconds: Double, timescale: Int32 = 1_000_000_000) {
    self.init(value: Int64((seconds * Double(timescale)).rounded()), timescale: timescale)
  }

  /// The time in seconds (exact to well under a nanosecond for any time a host clock reports).
  public var seconds: Double {
    let ts = Int64(timescale)
    let whole = value / ts
    let rest = value - whole * ts
    return Double(whole) + Double(rest) / Double(ts)
  }

  /// Whether the time can be used: a positive timescale.
  public var isValid: Bool { timescale > 0 }
}

extension MediaTime: Comparable {
  /// Whether two times are the same instant, whatever their timescales (1/2 s equals 2/4 s).
  public static func == (a: MediaTime, b: MediaTime) -> Bool { compare(a, b) == 0 }

  /// Orders times exactly, whatever their timescales.
  public static func < (a: MediaTime, b: MediaTime) -> Bool { compare(a, b) < 0 }

  /// Hashes the instant: the fraction in lowest terms.
  public func hash(into hasher: inout Hasher) {
    var (x, y) = (value.magnitude, UInt64(timescale.magnitude))
    while y != 0 { (x, y) = (y, x % y) }
    let g = Int64(max(x, 1))
    hasher.combine(value / g)
    hasher.combine(Int64(timescale) / g)
  }

  /// −1, 0 or 1 as `a` is before, at or after `b`: the cross products in 128 bits.
  private static func compare(_ a: MediaTime, _ b: MediaTime) -> Int {
    let l = a.value.multipliedFullWidth(by: Int64(b.timescale))
    let r = b.value.multipliedFullWidth(by: Int64(a.timescale))
    return l.high != r.high
      ? (l.high < r.high ? -1 : 1) : (l.low == r.low ? 0 : (l.low < r.low ? -1 : 1))
  }
}

extension MediaTime: CustomStringConvertible {
  /// For example `12.345678 s (12345678/1000000)`.
  public var description: String { "\(seconds) s (\(value)/\(timescale))" }
}
