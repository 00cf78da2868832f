import PCMMix

/// `pcm-mix probe`: each file's container and format on a line, or a JSON object per line;
/// returns the exit code of the first failure, after probing every file.
func probe(_ paths: [String], json: Bool, loudness: Bool = false, console: Console) -> Int32 {
  var status: Int32 = 0
  for path in paths {
    do throws(CLIError) {
      var input = try InputFile.open(InputSpec(path: path))
      defer { input.close() }
      let (frames, meter) = try ProbeLine.measure(&input, loudness: loudness)
      let line = ProbeLine(path: path, input: input, frames: frames, meter: meter)
      console.out((json ? line.json : line.text) + "\n")
    } catch {
      console.err(error.line + "\n")
      if status == 0 { status = error.code.rawValue }
    }
  }
  return status
}

/// What `probe` says about one file, as text or as a JSON object.
struct ProbeLine {
  let path: String
  let input: InputFile
  let frames: Int
  let meter: LoudnessMeter?

  /// The input's frame count (read through when the header cannot say, as for a pipe) and, with
  /// `loudness`, its meter after one pass over the audio.
  static func measure(_ input: inout InputFile, loudness: Bool) throws(CLIError)
    -> (frames: Int, meter: LoudnessMeter?)
  {
    var frames = input.expectedFrames
    var meter: LoudnessMeter?
    if loudness {
      let f = input.format
      var m = LoudnessMeter(rate: f.sampleRate, channelCount: f.channelCount)
      var total = 0
      try LoudnessPass.forEachBlock(&input) { block, n in
        m.process(block, frames: n)
        total += n
      }
      frames = frames ?? total
      meter = m
    }
    if let frames { return (frames, meter) }
    // A pipe: count by reading through.
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    defer { scratch.deallocate() }
    var total = 0
    while true {
      let n = try input.read(into: scratch)
      if n == 0 { break }
      total += n
    }
    return (total, meter)
  }

  var seconds: Double { Double(frames) / Double(input.format.sampleRate) }
  var container: String { input.container?.rawValue ?? "raw" }

  /// One JSON object (no newline).
  var json: String {
    let f = input.format
    var line = "{\"path\":\(jsonString(path)),\"container\":\"\(container)\","
    line += "\"sampleRate\":\(f.sampleRate),\"channels\":\(f.channelCount),"
    line += "\"sampleType\":\"\(input.sampleTypeSpelling)\",\"validBits\":\(input.validBits),"
    line += "\"frames\":\(frames),\"durationSeconds\":\(seconds),"
    line += "\"dataOffset\":\(input.dataOffset),\"truncated\":\(input.isTruncated)"
    if let claimed = input.claimedFrames { line += ",\"claimedFrames\":\(claimed)" }
    line += ",\"strayBytes\":\(input.strayBytes)"
    if let meter {
      func number(_ x: Double) -> String { x.isFinite ? "\(x)" : "null" }
      line += ",\"loudness\":{\"integratedLUFS\":\(number(meter.integrated)),"
      line += "\"rangeLU\":\(number(meter.range)),"
      line += "\"truePeakDBTP\":\(number(meter.truePeakDB)),"
      line += "\"momentaryMaxLUFS\":\(number(meter.momentaryMax))}"
    }
    return line + "}"
  }

  /// One line of text (no newline).
  var text: String {
    let f = input.format
    var line = "\(path): \(container) \(input.sampleTypeSpelling)"
    if input.validBits < f.sampleType.bitsPerSample { line += " (\(input.validBits)-bit)" }
    line += " \(f.sampleRate) Hz \(f.channelCount) ch, \(frames) frames (\(_seconds(seconds)) s)"
    if input.isTruncated, let claimed = input.claimedFrames {
      line += ", truncated: header claims \(claimed) frames"
    } else if input.isTruncated {
      line += ", truncated: the input ends inside a frame"
    }
    if input.strayBytes > 0 {
      line += ", \(input.strayBytes) stray byte(s) after the last frame"
    }
    if let meter {
      func lu(_ x: Double) -> String { x.isFinite ? _tenths(x) : "-inf" }
      line += "; \(lu(meter.integrated)) LUFS integrated, LRA \(lu(meter.range)) LU, true peak"
      line += " \(lu(meter.truePeakDB)) dBTP, momentary max \(lu(meter.momentaryMax)) LUFS"
    }
    return line
  }
}

/// `s` with three decimals.
func _seconds(_ s: Double) -> String {
  let ms = Int((s * 1000).rounded())
  let frac = String(ms % 1000)
  return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
}

/// A JSON string literal (also used by the benchmark's JSON report).
package func jsonString(_ s: String) -> String {
  var r = "\""
  for u in s.unicodeScalars {
    switch u {
    case "\"": r += "\\\""
    case "\\": r += "\\\\"
    case "\n": r += "\\n"
    case "\r": r += "\\r"
    case "\t": r += "\\t"
    default:
      if u.value < 0x20 {
        let hex = String(u.value, radix: 16)
        r += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      } else {
        r.unicodeScalars.append(u)
      }
    }
  }
  return r + "\""
}

/// `x` with one decimal: -23.06 → "-23.1".
func _tenths(_ x: Double) -> String {
  let t = Int((x * 10).rounded())
  return (t < 0 ? "-" : "") + "\(abs(t) / 10).\(abs(t) % 10)"
}
