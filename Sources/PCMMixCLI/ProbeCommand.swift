import PCMMix

/// `pcm-mix probe`: each file's container and format on a line, or a JSON object per line;
/// returns the exit code of the first failure, after probing every file.
func probe(_ paths: [String], json: Bool, loudness: Bool = false, console: Console) -> Int32 {
  var status: Int32 = 0
  for path in paths {
    do throws(CLIError) {
      var input = try InputFile.open(InputSpec(path: path))
      defer { input.close() }
      var frames = input.expectedFrames
      var meter: LoudnessMeter?
      if loudness {
        // Read through once, measuring (and counting, for a pipe).
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
      if frames == nil {
        // A pipe: count by reading through.
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { scratch.deallocate() }
        var total = 0
        while true {
          let n = try input.read(into: scratch)
          if n == 0 { break }
          total += n
        }
        frames = total
      }
      let f = input.format
      let count = frames ?? 0
      let seconds = Double(count) / Double(f.sampleRate)
      let truncated = input.isTruncated
      let container = input.container?.rawValue ?? "raw"
      if json {
        var line = "{\"path\":\(jsonString(path)),\"container\":\"\(container)\","
        line += "\"sampleRate\":\(f.sampleRate),\"channels\":\(f.channelCount),"
        line += "\"sampleType\":\"\(input.sampleTypeSpelling)\",\"validBits\":\(input.validBits),"
        line += "\"frames\":\(count),\"durationSeconds\":\(seconds),"
        line += "\"dataOffset\":\(input.dataOffset),\"truncated\":\(truncated)"
        if let claimed = input.claimedFrames { line += ",\"claimedFrames\":\(claimed)" }
        line += ",\"strayBytes\":\(input.strayBytes)"
        if let meter {
          func number(_ x: Double) -> String { x.isFinite ? "\(x)" : "null" }
          line += ",\"loudness\":{\"integratedLUFS\":\(number(meter.integrated)),"
          line += "\"rangeLU\":\(number(meter.range)),"
          line += "\"truePeakDBTP\":\(number(meter.truePeakDB)),"
          line += "\"momentaryMaxLUFS\":\(number(meter.momentaryMax))}"
        }
        console.out(line + "}\n")
      } else {
        var line = "\(path): \(container) \(input.sampleTypeSpelling)"
        if input.validBits < f.sampleType.bitsPerSample { line += " (\(input.validBits)-bit)" }
        line += " \(f.sampleRate) Hz \(f.channelCount) ch, \(count) frames (\(_seconds(seconds)) s)"
        if truncated, let claimed = input.claimedFrames {
          line += ", truncated: header claims \(claimed) frames"
        } else if truncated {
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
        console.out(line + "\n")
      }
    } catch {
      console.err(error.line + "\n")
      if status == 0 { status = error.code.rawValue }
    }
  }
  return status
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
