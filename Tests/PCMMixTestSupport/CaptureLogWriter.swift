import Foundation
import PCMMix

/// Writes one side of a simulated capture as the capture log `pcm-mix replay` reads: a raw file
/// of the buffers' bytes back to back, and a CSV with the header `time,frames,format` and a row
/// per buffer.
///
/// ```swift
/// let app = try CaptureLogWriter.write(
///   CaptureSimulator(app: source, mic: nil, duration: 10), side: .app,
///   raw: "\(dir)/app.raw", csv: "\(dir)/app.csv", hostOffset: 1_000)
/// ```
public enum CaptureLogWriter {
  /// How the `time` column is written.
  public enum TimeStyle: Sendable {
    /// `VALUE/TIMESCALE` of the event's time, in its own timescale.
    case rational
    /// Decimal seconds with nine decimals.
    case decimal
    /// Empty: no row has a time.
    case none
  }

  /// What a written log holds.
  public struct Summary: Sendable {
    /// Rows written.
    public var rows = 0
    /// The earliest time written, with the offset (`nil` when no row has one).
    public var earliest: MediaTime?
    /// The latest end of a stamped buffer written, in host seconds: time + frames / rate.
    public var latestEnd: Double?
    /// Per row, its frames and nominal rate (to work out unstamped deliveries).
    public var spans: [(frames: Int, rate: Int)] = []
  }

  /// Writes the events of `side` in `events` (in order; the other side's are skipped) to `raw`
  /// and `csv`, every time moved `hostOffset` seconds later.
  @discardableResult
  public static func write<Events: Sequence<CaptureEvent>>(
    _ events: Events, side: CaptureSide, raw: String, csv: String, hostOffset: Double = 0,
    times: TimeStyle = .rational
  ) throws -> Summary {
    guard FileManager.default.createFile(atPath: raw, contents: nil),
      FileManager.default.createFile(atPath: csv, contents: nil),
      let rawFile = FileHandle(forWritingAtPath: raw),
      let csvFile = FileHandle(forWritingAtPath: csv)
    else { throw CocoaError(.fileWriteUnknown) }
    defer {
      try? rawFile.close()
      try? csvFile.close()
    }
    var summary = Summary()
    var text = "time,frames,format\n"
    for e in events where e.side == side {
      let format = try FormatProbe.probe(e.description)
      var time = ""
      if let t = e.time, times != .none {
        let shifted = MediaTime(
          value: t.value + Int64((hostOffset * Double(t.timescale)).rounded()),
          timescale: t.timescale)
        if times == .rational {
          time = "\(shifted.value)/\(shifted.timescale)"
          summary.note(shifted, frames: e.frames, rate: format.sampleRate)
        } else {
          let seconds = t.seconds + hostOffset
          time = String(format: "%.9f", seconds)
          summary.note(
            MediaTime(seconds: seconds), frames: e.frames, rate: format.sampleRate)
        }
      }
      text +=
        "\(time),\(e.frames),\(format.typeSpelling):\(format.sampleRate):\(format.channelCount)\n"
      summary.rows += 1
      summary.spans.append((e.frames, format.sampleRate))
      try rawFile.write(contentsOf: e.bytes)
      if text.utf8.count > 60_000 {
        try csvFile.write(contentsOf: Data(text.utf8))
        text = ""
      }
    }
    try csvFile.write(contentsOf: Data(text.utf8))
    return summary
  }
}

extension CaptureLogWriter.Summary {
  /// Takes a stamped row into the earliest time and latest end.
  mutating func note(_ time: MediaTime, frames: Int, rate: Int) {
    if earliest.map({ time < $0 }) ?? true { earliest = time }
    let end = time.seconds + Double(frames) / Double(rate)
    latestEnd = max(latestEnd ?? end, end)
  }
}
