import PCMMix

/// A JSON value, rendered with two-space indentation; an object or array of scalars only goes on
/// one line.
enum JSON {
  case null
  case bool(Bool)
  case int(Int)
  case number(Double)
  case string(String)
  case array([JSON])
  case object([(String, JSON)])

  /// A number, or `null` when it is not finite (JSON has no infinity or NaN).
  static func double(_ x: Double) -> JSON { x.isFinite ? .number(x) : .null }

  var isScalar: Bool {
    switch self {
    case .array, .object: false
    default: true
    }
  }

  /// The text, its nested lines indented by `indent` more spaces.
  func rendered(indent: String = "") -> String {
    switch self {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .int(let i): return String(i)
    case .number(let x):
      // Swift prints a Double as the shortest text that reads back the same: valid JSON.
      return x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) + ".0" : String(x)
    case .string(let s): return jsonString(s)
    case .array(let items):
      if items.isEmpty { return "[]" }
      if items.allSatisfy(\.isScalar) {
        return "[" + items.map { $0.rendered() }.joined(separator: ", ") + "]"
      }
      let inner = indent + "  "
      return "[\n" + items.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n")
        + "\n\(indent)]"
    case .object(let fields):
      if fields.isEmpty { return "{}" }
      if fields.allSatisfy(\.1.isScalar) {
        return "{"
          + fields.map { jsonString($0.0) + ": " + $0.1.rendered() }.joined(separator: ", ") + "}"
      }
      let inner = indent + "  "
      return "{\n"
        + fields.map { inner + jsonString($0.0) + ": " + $0.1.rendered(indent: inner) }
        .joined(separator: ",\n") + "\n\(indent)}"
    }
  }
}

extension CaptureSideStatistics {
  /// Every counter, by its Swift name.
  var json: JSON {
    .object([
      ("buffers", .int(buffers)),
      ("inputFrames", .int(inputFrames)),
      ("inputFramesTrimmed", .int(inputFramesTrimmed)),
      ("duplicateBuffers", .int(duplicateBuffers)),
      ("gaps", .int(gaps)),
      ("gapFrames", .int(gapFrames)),
      ("arrivalPlacedBuffers", .int(arrivalPlacedBuffers)),
      ("resyncs", .int(resyncs)),
      ("restarts", .int(restarts)),
      ("framesIn", .int(framesIn)),
      ("framesEmitted", .int(framesEmitted)),
      ("framesDropped", .int(framesDropped)),
      ("framesLate", .int(framesLate)),
      ("framesBuffered", .int(framesBuffered)),
      ("framesSilent", .int(framesSilent)),
      ("isStamped", .bool(isStamped)),
      ("driftPPM", .double(driftPPM)),
      ("ratioAdjustment", .double(ratioAdjustment)),
      ("lastPositionError", .double(lastPositionError)),
      ("inputRate", inputRate.map { .int($0) } ?? .null),
    ])
  }
}

extension CaptureClockStatistics {
  /// Every counter, by its Swift name.
  var json: JSON {
    .object([
      ("pulls", .int(pulls)),
      ("framesPulled", .int(framesPulled)),
      ("position", .int(position)),
      ("isRunning", .bool(isRunning)),
      ("latencyFrames", .int(latencyFrames)),
      ("latencyRaises", .int(latencyRaises)),
      ("startingFrames", .int(startingFrames)),
      ("holdingFrames", .int(holdingFrames)),
      ("skippedFrames", .int(skippedFrames)),
      ("lateEvents", .int(lateEvents)),
    ])
  }
}

/// What `pcm-mix replay` records as it goes, for its JSON report.
struct ReplayRecord {
  /// One drift sample of a source.
  struct DriftSample {
    var time: Double
    var driftPPM: Double
    var positionErrorMs: Double
    var ratioAdjustment: Double
  }

  /// `(seconds since t0, latency in ms)`: at the clock's start and at every change.
  var latency: [(time: Double, ms: Double)] = []
  /// Per source (app, mic), a sample every second of log time.
  var drift: [[DriftSample]] = [[], []]
  /// Output frames written as silence because no pulled block covered them.
  var filledFrames = 0
  /// Output frames written as silence after the pipeline stopped giving any (a safety net).
  var paddedFrames = 0

  /// Notes the latency after a pull at `time`, if the clock runs and it changed.
  mutating func noteLatency(_ clock: CaptureClockStatistics, time: Double, rate: Int) {
    guard clock.isRunning else { return }
    let ms = Double(clock.latencyFrames) * 1000 / Double(rate)
    if latency.last?.ms != ms { latency.append((time, ms)) }
  }

  /// Samples a source's drift loop at `time`.
  mutating func sampleDrift(_ index: Int, _ s: CaptureSideStatistics, time: Double) {
    drift[index].append(
      DriftSample(
        time: time, driftPPM: s.driftPPM, positionErrorMs: s.lastPositionError * 1000,
        ratioAdjustment: s.ratioAdjustment))
  }
}

extension LevelMeter.Reading {
  /// The levels in dBFS and the clip count.
  var json: JSON {
    .object([
      ("peakDBFS", .double(Double(peakDBFS))), ("rmsDBFS", .double(Double(rmsDBFS))),
      ("heldPeakDBFS", .double(Double(heldPeakDBFS))), ("clippedSamples", .int(clippedSamples)),
    ])
  }
}

extension MixMeters {
  /// Each source's and the output's levels at the end, and what the output stage did.
  var json: JSON {
    .object([
      ("app", app.json), ("mic", mic.json), ("output", output.json),
      ("limitedSamples", .int(limitedSamples)), ("clippedSamples", .int(clippedSamples)),
    ])
  }
}

extension OutputFile {
  /// Writes `text` (a JSON report) to the file; 74 when it cannot.
  func write(_ text: String) throws(CLIError) {
    var text = text
    let ok = text.withUTF8 { bytes in
      var sink = FileDescriptorSink(fileDescriptor: fd)
      do {
        try sink.write(UnsafeRawBufferPointer(bytes))
        return true
      } catch {
        return false
      }
    }
    if !ok { throw CLIError(.io, path, "cannot write the report") }
  }
}

extension MixCounters {
  /// Every counter, by its Swift name.
  var json: JSON {
    .object([
      ("framesIn", .int(framesIn)), ("framesMixed", .int(framesMixed)),
      ("framesAlone", .int(framesAlone)), ("framesPadded", .int(framesPadded)),
      ("framesDropped", .int(framesDropped)), ("framesBuffered", .int(framesBuffered)),
    ])
  }
}

extension EchoStatistics {
  /// The canceller's state, by its Swift names (the delay in seconds, `null` until found).
  var json: JSON {
    .object([
      ("delay", delay.map { .double($0) } ?? .null),
      ("erleDB", .double(erleDB)),
      ("doubleTalkFraction", .double(doubleTalkFraction)),
      ("isBypassed", .bool(isBypassed)),
      ("pathChanges", .int(pathChanges)),
      ("micDriftPPM", micDriftPPM.map { .double($0) } ?? .null),
      ("blocks", .int(blocks)),
    ])
  }
}
