import Foundation

/// Finds where Hann-windowed sine bursts (the markers ``SimulatedSource`` renders) start in a
/// stream, to a small fraction of a sample.
///
/// The stream (the mean of its channels) is correlated with the analytic template
/// `w(j)·e^{iωj}` (`w` the Hann window over the marker's length, `ω` its frequency). The
/// magnitude of that correlation does not depend on the burst's phase and peaks where the burst
/// starts; a parabola through the peak and its two neighbours gives the fractional position.
public enum MarkerDetector {
  /// The start, in (fractional) frames, of the marker of `frequency` Hz and `duration` s found
  /// within `searchRadius` frames of `expectedFrame` in `output` (`channels` interleaved channels
  /// at `rate` frames per second); `nil` when no peak stands out (below 30 % of what a marker of
  /// amplitude 0.05 gives) or the peak lies on the edge of the searched window.
  public static func locate(
    in output: UnsafeBufferPointer<Float>, channels: Int, rate: Double, frequency: Double,
    duration: Double, near expectedFrame: Double, searchRadius: Int
  ) -> Double? {
    precondition(channels >= 1 && rate > 0 && duration > 0 && searchRadius >= 1)
    let length = duration * rate
    let taps = Int(length.rounded(.down)) + 1
    let frames = output.count / channels
    guard expectedFrame.isFinite, frames >= taps else { return nil }
    let center = Int(expectedFrame.rounded())
    let lo = max(0, center - searchRadius)
    let hi = min(frames - taps, center + searchRadius)
    guard hi - lo >= 2 else { return nil }

    // The template, conjugated: w(j)·cos(ωj) and w(j)·sin(ωj).
    let omega = 2 * Double.pi * frequency / rate
    var re = [Double](repeating: 0, count: taps)
    var im = [Double](repeating: 0, count: taps)
    var energy = 0.0
    for j in 0..<taps {
      let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(j) / length)
      re[j] = w * cos(omega * Double(j))
      im[j] = w * sin(omega * Double(j))
      energy += w * w
    }
    // The mean of the channels over the frames the window can touch.
    var x = [Double](repeating: 0, count: hi - lo + taps)
    let scale = 1 / Double(channels)
    for i in x.indices {
      var sum: Float = 0
      for c in 0..<channels { sum += output[(lo + i) * channels + c] }
      x[i] = Double(sum) * scale
    }

    return x.withUnsafeBufferPointer { xp in
      re.withUnsafeBufferPointer { rp in
        im.withUnsafeBufferPointer { ip in
          // |correlation| with the template starting at frame lo + k.
          func magnitude(_ k: Int) -> Double {
            var a = 0.0
            var b = 0.0
            for j in 0..<taps {
              let v = xp[k + j]
              a += v * rp[j]
              b += v * ip[j]
            }
            return (a * a + b * b).squareRoot()
          }
          // The magnitude of one marker is as wide as the marker: a coarse pass with a step of
          // a sixteenth of it, then every lag around the best coarse one, then a climb in case
          // the peak lies further.
          let last = hi - lo
          let step = max(1, taps / 16)
          var peak = 0
          var best = -1.0
          var k = 0
          while true {
            let m = magnitude(k)
            if m > best { (peak, best) = (k, m) }
            if k == last { break }
            k = min(k + step, last)
          }
          for k in max(0, peak - step)...min(last, peak + step) {
            let m = magnitude(k)
            if m > best { (peak, best) = (k, m) }
          }
          var y0 = peak > 0 ? magnitude(peak - 1) : 0
          var y2 = peak < last ? magnitude(peak + 1) : 0
          while peak > 0 && peak < last && max(y0, y2) > best {
            if y0 > y2 {
              (peak, y2, best) = (peak - 1, best, y0)
              y0 = peak > 0 ? magnitude(peak - 1) : 0
            } else {
              (peak, y0, best) = (peak + 1, best, y2)
              y2 = peak < last ? magnitude(peak + 1) : 0
            }
          }
          guard peak > 0, peak < last else { return nil }
          guard best >= 0.3 * (0.05 / 2) * energy else { return nil }
          let curvature = y0 - 2 * best + y2
          let delta = curvature < 0 ? 0.5 * (y0 - y2) / curvature : 0
          return Double(lo + peak) + delta
        }
      }
    }
  }

  /// ``locate(in:channels:rate:frequency:duration:near:searchRadius:)`` on an array.
  public static func locate(
    in output: [Float], channels: Int, rate: Double, frequency: Double, duration: Double,
    near expectedFrame: Double, searchRadius: Int
  ) -> Double? {
    output.withUnsafeBufferPointer {
      locate(
        in: $0, channels: channels, rate: rate, frequency: frequency, duration: duration,
        near: expectedFrame, searchRadius: searchRadius)
    }
  }

  /// Locates every marker of `markers` (host times, s) in `output`, whose frame 0 is at host
  /// time `origin`: marker m is expected at frame `(m − origin) × rate`.
  public static func measure(
    output: [Float], channels: Int, rate: Double, origin: Double, markers: [Double],
    frequency: Double, duration: Double, searchRadius: Int
  ) -> MarkerReport {
    let errors = output.withUnsafeBufferPointer { out in
      markers.map { m -> Double? in
        let expected = (m - origin) * rate
        let found = locate(
          in: out, channels: channels, rate: rate, frequency: frequency, duration: duration,
          near: expected, searchRadius: searchRadius)
        return found.map { ($0 - expected) / rate * 1000 }
      }
    }
    return MarkerReport(errors: errors)
  }
}

/// How far markers landed from where they were expected.
public struct MarkerReport: Sendable, CustomStringConvertible {
  /// Per marker, in the order given: found − expected, in milliseconds; `nil` when not found.
  public var errors: [Double?]
  /// Markers not found.
  public var missing: Int
  /// The largest |error| (ms) of the markers found; infinity when none was found.
  public var maxAbsError: Double
  /// The median |error| (ms) of the markers found; infinity when none was found.
  public var p50AbsError: Double

  /// The summary of `errors` (ms, `nil` for a marker not found).
  public init(errors: [Double?]) {
    self.errors = errors
    let found = errors.compactMap { $0.map(abs) }.sorted()
    missing = errors.count - found.count
    maxAbsError = found.last ?? .infinity
    p50AbsError = found.isEmpty ? .infinity : found[(found.count - 1) / 2]
  }

  /// For example `12 markers, 0 missing, |error| p50 0.0012 ms, max 0.0050 ms`.
  public var description: String {
    "\(errors.count) markers, \(missing) missing, |error| p50 "
      + String(format: "%.4f ms, max %.4f ms", p50AbsError, maxAbsError)
  }
}
