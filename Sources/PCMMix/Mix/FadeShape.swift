/// The shape of a fade: a raised cosine over ``frames`` frames, as the pipelines fade sources in
/// and out. `value(d)` is the gain of the d-th frame of a fade-in (read backwards from the end
/// for a fade-out): it rises from near 0 to near 1 and is exactly 1 from `frames` on.
///
/// ```swift
/// let fade = FadeShape(frames: 480)        // 10 ms at 48 kHz
/// let g = fade.value(0)                   // 0.00000268…, the first frame of a fade-in
/// ```
public struct FadeShape: Sendable {
  /// Frames a fade lasts (0: no fade; every value is 1).
  public let frames: Int
  let table: [Float]

  /// A fade of `frames` frames (negative counts as 0). Allocates its table.
  public init(frames: Int) {
    self.frames = max(0, frames)
    table = (0..<self.frames).map { d in
      Float((1 - Math.cos(Double.pi * (Double(d) + 0.5) / Double(frames))) / 2)
    }
  }

  /// The gain `d` frames into a fade-in: 0 before it, 1 after it.
  ///
  /// - Complexity: O(1), a table read.
  @inline(__always)
  public func value(_ d: Int) -> Float { d < 0 ? 0 : (d >= frames ? 1 : table[d]) }
}
