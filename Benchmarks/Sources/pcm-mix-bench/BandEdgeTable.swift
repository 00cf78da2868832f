import PCMMix
import PCMMixTestSupport

/// The resampler section's band-edge table (issue 13): every backend, and `sox rate` and
/// `sox rate -v` when sox is on the PATH (``SoxRate``), on the conversions where the top of the
/// band shows, 96 → 44.1 kHz (downsampling) and 16 → 48 kHz (upsampling), as
/// ``BandEdge`` measures them: the worst alias or image anywhere in the output band, in dB
/// against the −0.1 dBFS signal, over a log sweep (every window from 0.05 × the lower Nyquist
/// frequency to the sweep's end, converted in one run) and tones at 0.95, 0.98 and 0.99 × the
/// lower Nyquist (and 1.01 × when downsampling); the gain of the 0.99 × Nyquist tone; and, from
/// 96 kHz, the gain of a tone at 22,049 Hz, 1 Hz under the output's Nyquist frequency.
enum BandEdgeTable {
  static let conversions = [(96_000, 44_100), (16_000, 48_000)]
  /// Input fed before a window may start: 0.1 s covers every backend's filter and start-up.
  static let settle = 0.1
  /// Delay a backend may show at the top of the band, beyond the latency it does not skip: the
  /// sweep's windows leave out the signal's frequencies over this much of its past.
  static let delaySlack = 0.02

  static func rowName(_ backend: String) -> String { "\(backend) band edge" }

  static func run(_ backends: [Backend], report: Report, section: String) {
    let rows = backends.filter { report.wants(section: section, row: rowName($0.name)) }
    guard !rows.isEmpty else { return }
    var columns: [(String, Int)] = [("backend", 25)]
    for (i, o) in conversions {
      let label = "\(i / 1000)->\(o % 1000 == 0 ? "\(o / 1000)" : fixed(Double(o) / 1000, 1))"
      columns += [("\(label) spur dB", 15), ("at Hz", 6), ("gain@.99Nyq dB", 14)]
      if i > o { columns.append(("gain@\(o / 2 - 1)Hz dB", 17)) }
    }
    let table = Table(columns: columns)
    table.start(
      "Band edge: worst alias or image anywhere in the output band, dB against the −0.1 dBFS "
        + "signal (a log sweep, 20 Hz to the input's Nyquist in \(fixed(BandEdge.sweepSeconds, 0)) "
        + "s, every window from 0.05 × the lower Nyquist on; tones at 0.95/0.98/0.99 × it, and "
        + "1.01 × downsampling), the 0.99 tone's gain, and the gain 1 Hz under the output Nyquist")
    for backend in rows {
      var cells = [backend.name]
      for (inRate, outRate) in conversions {
        guard let probe = backend.make(inRate, outRate, 1) else {
          cells += ["refused", "", ""] + (inRate > outRate ? [""] : [])
          continue
        }
        let make = { backend.make(inRate, outRate, 1) ?? probe }
        let settleFrames = Int(settle * Double(inRate))
        let result = BandEdge.measure(
          inputRate: inRate, outputRate: outRate, coverage: .contiguous(from: 0.05),
          delaySpread: delaySlack, settle: settleFrames, skipsLatency: false, make: make)
        let gain = result.gainDB(at: 0.99) ?? .nan
        cells += [fixed(result.worst.levelDB, 1), fixed(result.worst.frequency, 0), fixed(gain, 1)]
        let name = "\(rowName(backend.name)) \(inRate)->\(outRate)"
        report.record(section, name, "worst_spur", result.worst.levelDB, "dB")
        report.record(section, name, "worst_spur_frequency", result.worst.frequency, "Hz")
        report.record(section, name, "worst_sweep_spur", result.sweep.levelDB, "dB")
        report.record(section, name, "gain_at_0.99_nyquist", gain, "dB")
        if inRate > outRate {
          let edge = Double(outRate / 2 - 1)
          let (_, edgeGain) = BandEdge.tone(
            edge, inputRate: inRate, outputRate: outRate, settle: settleFrames, window: 16_384,
            skipsLatency: false, make: make)
          cells.append(fixed(edgeGain ?? .nan, 1))
          report.record(section, name, "gain_1Hz_under_output_nyquist", edgeGain ?? .nan, "dB")
        }
      }
      table.row(cells)
    }
  }
}
