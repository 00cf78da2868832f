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

  /// Creates `value / timescale` seconds. A timescale of 0 or less makes an invalid time (see
  /// ``isValid``), as `CMTime` has `.invalid`.
  public init(value: Int64, timescale: Int32) {
    self.value = value
    self.timescale = timescale
  }

  /// The time nearest `seconds` in units of `1 / timescale` (default nanoseconds), or
  /// ``invalid`` when `seconds` is not finite (NaN, as `CMTimeGetSeconds` gives for an invalid
  /// `CMTime`, or infinite), the timescale is not positive, or the time does not fit in 64 bits
  /// of that timescale (beyond about 292 years in nanoseconds).
  public init(seconds: Double, timescale: Int32 = 1_000_000_000) {
    let units = (seconds * Double(timescale)).rounded()
    // Every Double in −2⁶³ ..< 2⁶³ converts; NaN fails both comparisons.
    guard timescale > 0, units >= -0x1p63, units < 0x1p63 else {
      self = .invalid
      return
    }
    self.init(value: Int64(units), timescale: timescale)
  }

  /// The invalid time: no time at all (a buffer stamped with it is placed by arrival).
  public static let invalid = MediaTime(value: 0, timescale: 0)

  /// The time in seconds (exact to well under a nanosecond for any time a host clock reports);
  /// NaN for an invalid time.
  public var seconds: Double {
    guard timescale > 0 else { return .nan }
    let ts = Int64(timescale)
    let whole = value / ts
    let rest = value - whole * ts
    return Double(whole) + Double(rest) / Double(ts)
  }

  /// Whether the time can be used: a positive timescale.
  public var isValid: Bool { timescale > 0 }

  /// Seconds from `origin` to this time, from the exact difference of the two fractions (their
  /// cross products in 128 bits), so a host time of months in nanoseconds keeps its
  /// nanoseconds; NaN when either time is invalid.
  func seconds(since origin: MediaTime) -> Double {
    guard isValid && origin.isValid else { return .nan }
    let a = value.multipliedFullWidth(by: Int64(origin.timescale))
    let b = origin.value.multipliedFullWidth(by: Int64(timescale))
    // a − b in 128 bits: each product is below 2⁹⁴ in magnitude, so the high words cannot
    // overflow.
    let low = a.low &- b.low
    let high = a.high - b.high - (a.low < b.low ? 1 : 0)
    let difference = Double(high) * 0x1p64 + Double(low)
    return difference / (Double(timescale) * Double(origin.timescale))
  }
}

extension MediaTime: Comparable {
  /// Whether two times are the same instant, whatever their timescales (1/2 s equals 2/4 s).
  /// Invalid times are all equal to each other.
  public static func == (a: MediaTime, b: MediaTime) -> Bool { compare(a, b) == 0 }

  /// Orders times exactly, whatever their timescales; invalid times come before every valid one.
  public static func < (a: MediaTime, b: MediaTime) -> Bool { compare(a, b) < 0 }

  /// Hashes the instant: the fraction in lowest terms (one value for every invalid time).
  public func hash(into hasher: inout Hasher) {
    guard isValid else {
      hasher.combine(Int64(0))
      hasher.combine(Int64(0))
      return
    }
    var (x, y) = (value.magnitude, UInt64(timescale))
    while y != 0 { (x, y) = (y, x % y) }
    // The divisor divides the timescale, so it is at most 2³¹ − 1.
    let g = Int64(max(x, 1))
    hasher.combine(value / g)
    hasher.combine(Int64(timescale) / g)
  }

  /// −1, 0 or 1 as `a` is before, at or after `b`: the cross products in 128 bits.
  private static func compare(_ a: MediaTime, _ b: MediaTime) -> Int {
    guard a.isValid && b.isValid else { return (a.isValid ? 1 : 0) - (b.isValid ? 1 : 0) }
    let l = a.value.multipliedFullWidth(by: Int64(b.timescale))
    let r = b.value.multipliedFullWidth(by: Int64(a.timescale))
    return l.high != r.high
      ? (l.high < r.high ? -1 : 1) : (l.low == r.low ? 0 : (l.low < r.low ? -1 : 1))
  }
}

extension MediaTime: CustomStringConvertible {
  /// For example `12.345678 s (12345678/1000000)`, or `invalid (5/0)`.
  public var description: String {
    isValid ? "\(seconds) s (\(value)/\(timescale))" : "invalid (\(value)/\(timescale))"
  }
}
