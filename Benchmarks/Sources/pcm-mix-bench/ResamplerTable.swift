import PCMMix
import PCMMixTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Section 3: every backend on the same workloads in the same run, in 10 ms blocks.
///
/// Speed: white noise, one timed `process` call per 10 ms input block, in ns per output sample
/// per channel. Quality: a 0.5-amplitude tone at each of `toneCount` frequencies from 100 Hz to
/// 0.9 × the lower Nyquist, streamed in 10 ms blocks; the ideal sine is fitted to the steady part
/// of the raw output (no delay dropped), giving the worst SNR, the gain at the top tone, and the
/// delay from the fitted phase (100 Hz and 110 Hz fits; see `ToneFit.delay` in PCMMixTestSupport).
///
/// Delay alone misses what a converter holds back: soxr shifts its output so that it has no
/// phase delay, and withholds output until its filter has what it needs instead. So the table
/// also shows the streaming latency: after each block, how far the newest output sample's
/// content lags the newest input (input time fed − output frames out / rate + delay), averaged
/// over the steady blocks. For converters that emit all they can, it is the delay.
enum ResamplerTable {
  static let section = "resamplers"
  static let workloads = [
    (44_100, 48_000, 2), (32_000, 48_000, 1), (16_000, 48_000, 1), (96_000, 48_000, 2),
  ]
  static let toneCount = 8
  static let amplitude = 0.5
  /// Output skipped before the fit: covers every backend's delay and start-up transient.
  static let settle = 0.1

  static func rowName(_ backend: String, _ w: (Int, Int, Int)) -> String {
    "\(backend) \(w.0)->\(w.1) \(w.2)ch"
  }

  static func run(_ options: Options, report: Report, allocCounterWorks: Bool) {
    let backends = Backend.all
    // The AVX2-only row gives the default AVX2 row's bits: timed, not measured for the band edge.
    let edgeBackends = backends.filter { $0.name != BuiltinPresets.avx2Only } + SoxRate.backends
    let names =
      workloads.flatMap { w in backends.map { rowName($0.name, w) } }
      + edgeBackends.map { BandEdgeTable.rowName($0.name) }
    guard report.wants(section: section, rows: names) else { return }
    let speedSeconds = max(0.5, 10 * options.scale)
    let toneSeconds = min(1.0, max(0.3, options.scale))
    let table = Table(columns: [
      ("backend", 25), ("mean ns", 7), ("p50 ns", 7), ("p99 ns", 7), ("floor ns", 8),
      ("x floor", 7), ("x realtime", 10),
      ("worst SNR dB", 12), ("gain@.9Nyq dB", 13), ("delay ms", 8), ("delay smp", 9),
      ("latency ms", 10), ("allocs/blk", 10),
    ])
    emit("")
    emit(
      "Resamplers: \(fixed(speedSeconds, 1)) s of noise per row for speed (ns per output sample "
        + "per channel, per 10 ms block; mean: the best of \(repetitions) repetitions, x realtime "
        + "from it); \(toneCount) tones of \(fixed(toneSeconds, 2)) s each "
        + "for quality, fitted after \(fixed(settle * 1000, 0)) ms; delay from the fitted phase "
        + "(smp: output samples); latency adds the output a converter withholds")
    let peak = ComputeFloor.measure()
    emit(
      "Compute floor of built-in rows: taps / peak multiply-add rate (best of 7 runs, "
        + "register-only chains): avx2+fma \(peak.fma.map { fixed($0, 1) } ?? "n/a") "
        + "multiply-adds/ns (8 per FMA"
        + (peak.fma512.map {
          "; -avx2-only row), avx-512f \(fixed($0, 1))/ns (16 per FMA; -avx2+fma rows, whose "
            + "kernels use it on this CPU), "
        } ?? "; -avx2+fma rows), ")
        + "Swift SIMD8<Float> multiply + add "
        + "\(fixed(peak.swift, 1))/ns (other built-in rows; builtin-high accumulates in Double, "
        + "so its floor against this Float rate is optimistic); x floor = mean ns / floor ns")
    if let fma = peak.fma {
      report.record(section, "peak_multiply_add", "avx2_fma", fma, "multiply-adds per ns")
    }
    if let fma512 = peak.fma512 {
      report.record(section, "peak_multiply_add", "avx512f", fma512, "multiply-adds per ns")
    }
    report.record(section, "peak_multiply_add", "swift_simd8", peak.swift, "multiply-adds per ns")
    var ratioLines: [String] = []
    var webrtcLines: [String] = []
    for w in workloads {
      let (inRate, outRate, channels) = w
      let rows = backends.filter { report.wants(section: section, row: rowName($0.name, w)) }
      guard !rows.isEmpty else { continue }
      table.start("\(inRate) -> \(outRate) Hz, \(channels) ch")
      let tones = toneFrequencies(inRate: inRate, outRate: outRate)
      let toneFrames = Int(toneSeconds * Double(inRate))
      let fitEnd = Int(toneSeconds * Double(outRate)) - outRate / 100
      let start = Int(settle * Double(outRate))
      let bases = (tones + [110]).map {
        ToneFit.Basis(frequency: $0 / Double(outRate), range: start..<fitEnd)
      }
      var times: [String: (p50: Double, mean: Double)] = [:]
      for backend in rows {
        let name = rowName(backend.name, w)
        guard var r = backend.make(inRate, outRate, channels) else {
          table.row([backend.name, "refused"])
          continue
        }
        // The floor: taps per output sample and channel at this path's peak rate.
        let taps = backend.family == .builtin ? (r as? PolyphaseResampler)?.taps ?? 0 : 0
        let floor = taps > 0 ? peak.rate(forBackend: backend.name).map { Double(taps) / $0 } : nil
        let speed = measureSpeed(&r, seconds: speedSeconds)
        var fits: [ToneFit] = []
        var worst = Double.infinity
        var lag: [Double] = []
        for (i, (hz, basis)) in zip(tones + [110], bases).enumerated() {
          guard var fresh = backend.make(inRate, outRate, channels) else { continue }
          let (out, progress) = streamTone(&fresh, frequency: hz, frames: toneFrames)
          if lag.isEmpty {
            lag = progress.filter { Double($0.in) >= settle * Double(inRate) }.map {
              Double($0.in) / Double(inRate) - Double($0.out) / Double(outRate)
            }
          }
          let perChannel = out.withUnsafeBufferPointer { buf in
            (0..<channels).map { ToneFit(buf, stride: channels, offset: $0, basis: basis) }
          }
          fits.append(perChannel[0])
          if i < tones.count {  // not the 110 Hz fit, there for the delay
            worst = min(worst, perChannel.map(\.snrDB).min()!)
            report.record(
              section, name, "snr_\(Int(hz.rounded()))Hz",
              perChannel.map(\.snrDB).min()!, "dB")
          }
        }
        let gain = 20 * log10(fits[tones.count - 1].amplitude / amplitude)
        let delay =
          ToneFit.delay(
            fits[0], at: tones[0] / Double(outRate), fits[tones.count], at: 110 / Double(outRate),
            input: .sine) / Double(outRate)
        let latency = Summary(lag.map { $0 + delay })
        let perSample = Double(outRate / 100 * channels)
        let p50 = speed.ns.median / perSample
        let p99 = speed.ns.p99 / perSample
        let mean = speed.bestMean / perSample
        let realtime = 1e7 / speed.bestMean
        times[backend.name] = (p50, mean)
        table.row([
          backend.name, short(mean), short(p50), short(p99), floor.map { short($0) } ?? "",
          floor.map { fixed(mean / $0, 2) } ?? "", fixed(realtime, 0),
          fixed(worst, 1), fixed(gain, 3), fixed(delay * 1000, 3),
          fixed(delay * Double(outRate), 1), fixed(latency.mean * 1000, 2),
          allocCounterWorks ? fixed(speed.allocationsPerBlock, 2) : "n/a",
        ])
        let rec = { report.record(section, name, $0, $1, $2) }
        rec("ns_per_sample_p50", p50, "ns")
        rec("ns_per_sample_p99", p99, "ns")
        rec("ns_per_sample_min", speed.ns.min / perSample, "ns")
        rec("ns_per_sample_mean", mean, "ns")
        rec("ns_per_sample_mean_median_repetition", speed.medianMean / perSample, "ns")
        rec("ns_per_sample_mean_all_blocks", speed.ns.mean / perSample, "ns")
        rec("block_p50", speed.ns.median / 1000, "us")
        rec("block_p99", speed.ns.p99 / 1000, "us")
        rec("block_max", speed.ns.max / 1000, "us")
        rec("throughput", realtime, "x realtime")
        rec("worst_snr", worst, "dB")
        rec("gain_at_0.9_nyquist", gain, "dB")
        rec("delay", delay * 1000, "ms")
        rec("delay_output_frames", delay * Double(outRate), "frames")
        rec("stream_latency_mean", latency.mean * 1000, "ms")
        rec("stream_latency_max", latency.max * 1000, "ms")
        rec("reported_latency", Double(r.latency), "frames")
        if allocCounterWorks { rec("allocations_per_block", speed.allocationsPerBlock, "count") }
        if let floor {
          rec("taps", Double(taps), "taps")
          rec("compute_floor_ns_per_sample", floor, "ns")
          rec("mean_over_compute_floor", mean / floor, "ratio")
        }
      }
      if let ours = times[BuiltinPresets.defaultName], let soxr = times["soxr-hq"] {
        let label = "\(inRate)->\(outRate) \(channels)ch"
        var line =
          "  \(padRight(label, 18)) \(fixed(ours.mean / soxr.mean, 2))x (mean)   "
          + "\(fixed(ours.p50 / soxr.p50, 2))x (p50)"
        if let fast = times[BuiltinPresets.defaultName + "-avx2+fma"] {
          line += "   with avx2+fma \(fixed(fast.mean / soxr.mean, 2))x (mean)"
          report.record(
            section, label, "builtin_balanced_avx2_over_soxr_hq_mean", fast.mean / soxr.mean,
            "ratio")
        }
        if let alone = times[BuiltinPresets.avx2Only] {
          line += "   avx2 alone \(fixed(alone.mean / soxr.mean, 2))x"
          report.record(
            section, label, "builtin_balanced_avx2_only_over_soxr_hq_mean",
            alone.mean / soxr.mean, "ratio")
        }
        ratioLines.append(line)
        report.record(
          section, label, "builtin_balanced_over_soxr_hq_p50", ours.p50 / soxr.p50, "ratio")
        report.record(
          section, label, "builtin_balanced_over_soxr_hq_mean", ours.mean / soxr.mean, "ratio")
      }
      if let peer = times[Backend.webrtcSinc32] {
        let label = "\(inRate)->\(outRate) \(channels)ch"
        var line = "  \(padRight(label, 18))"
        var any = false
        for suffix in ["", "-avx2+fma"] {
          guard let fast = times["builtin-fast" + suffix] else { continue }
          any = true
          line +=
            (suffix.isEmpty ? " " : "   with avx2+fma ")
            + "\(fixed(fast.mean / peer.mean, 2))x (mean) \(fixed(fast.p50 / peer.p50, 2))x (p50)"
          let metric = "builtin_fast\(suffix.isEmpty ? "" : "_avx2")_over_webrtc_sinc32"
          report.record(section, label, metric + "_mean", fast.mean / peer.mean, "ratio")
          report.record(section, label, metric + "_p50", fast.p50 / peer.p50, "ratio")
        }
        if any { webrtcLines.append(line) }
      }
    }
    BandEdgeTable.run(edgeBackends, report: report, section: section)
    if SoxRate.backends.isEmpty && report.wants(section: section, row: "sox-rate band edge") {
      emit("  (sox is not on the PATH: no sox-rate rows)")
    }
    if !ratioLines.isEmpty {
      emit("")
      emit(
        "Time of \(BuiltinPresets.defaultName) / soxr-hq per 10 ms block, same run (below 1: ours "
          + "is faster; soxr works in larger internal blocks, so its p50 block can be nearly "
          + "empty and the mean is the fair comparison):")
      for line in ratioLines { emit(line) }
    }
    if !webrtcLines.isEmpty {
      emit("")
      emit(
        "Time of builtin-fast (and builtin-fast-avx2+fma) / \(Backend.webrtcSinc32) per 10 ms "
          + "block, same run (below 1: ours is faster):")
      for line in webrtcLines { emit(line) }
    }
  }

  /// `toneCount` frequencies, evenly spaced in log frequency from 100 Hz to 0.9 × the lower
  /// Nyquist.
  static func toneFrequencies(inRate: Int, outRate: Int) -> [Double] {
    let top = 0.9 * Double(min(inRate, outRate)) / 2
    return (0..<toneCount).map {
      100 * pow(top / 100, Double($0) / Double(toneCount - 1))
    }
  }

  /// Times one `process` call per 10 ms block of white noise.
  /// Repetitions the speed run is split into; the mean block time is the best repetition's, so
  /// a stretch preempted by another process does not count against a backend.
  static let repetitions = 5

  /// Times one `process` call per 10 ms block of white noise, after 50 untimed blocks.
  ///
  /// Returns the distribution over every block, the mean block time of the best of
  /// ``repetitions`` equal runs and the median of those means, and allocations per block.
  static func measureSpeed(_ r: inout some Resampler, seconds: Double) -> (
    ns: Summary, bestMean: Double, medianMean: Double, allocationsPerBlock: Double
  ) {
    let ch = r.channelCount
    let block = r.inputRate / 100
    let pool = 100
    var rng = SplitMix64(seed: 4)
    let input = (0..<(block * ch * pool)).map { _ in Float(rng.nextSigned() * 0.5) }
    var output = [Float](repeating: 0, count: r.maxOutputFrames(forInputFrames: block) * ch)
    let perRepetition = max(4, Int(seconds * 100) / repetitions)
    let blocks = perRepetition * repetitions
    var ns = [UInt64](repeating: 0, count: blocks)
    var check: Float = 0
    var allocations: UInt64 = 0
    input.withUnsafeBufferPointer { inBuf in
      output.withUnsafeMutableBufferPointer { outBuf in
        for b in 0..<50 {
          let slice = UnsafeBufferPointer(
            rebasing: inBuf[(b % pool * block * ch)...].prefix(block * ch))
          _ = r.process(slice, into: outBuf)
        }
        AllocCounting.setEnabled(true)
        let a0 = AllocCounting.events
        for b in 0..<blocks {
          let offset = b % pool * block * ch
          let slice = UnsafeBufferPointer(rebasing: inBuf[offset..<(offset + block * ch)])
          let t0 = nowNS()
          let n = r.process(slice, into: outBuf).produced
          ns[b] = nowNS() - t0
          if n > 0 { check += outBuf[n * ch - 1] }
        }
        allocations = AllocCounting.events - a0
        AllocCounting.setEnabled(false)
      }
    }
    blackHole(check)
    let means = (0..<repetitions).map { k in
      ns[(k * perRepetition)..<((k + 1) * perRepetition)].reduce(0) { $0 + Double($1) }
        / Double(perRepetition)
    }
    return (
      Summary(ns), means.min()!, Summary(means).median,
      Double(allocations) / Double(blocks)
    )
  }

  /// Streams `frames` frames of `amplitude·sin(2πft)` (every channel alike) in 10 ms blocks and
  /// returns the raw output, delay included, not flushed, and the input frames fed and output
  /// frames produced so far after each block.
  static func streamTone(_ r: inout some Resampler, frequency: Double, frames: Int) -> (
    output: [Float], progress: [(in: Int, out: Int)]
  ) {
    let w = 2 * Double.pi * frequency / Double(r.inputRate)
    return stream(&r, frames: frames) { amplitude * sin(w * Double($0)) }
  }

  /// Streams `frames` frames of `signal(n)` (every channel alike) in 10 ms blocks and returns
  /// the raw output, delay included, not flushed, and the input frames fed and output frames
  /// produced so far after each block.
  static func stream(_ r: inout some Resampler, frames: Int, signal: (Int) -> Double) -> (
    output: [Float], progress: [(in: Int, out: Int)]
  ) {
    let ch = r.channelCount
    let block = r.inputRate / 100
    var input = [Float](repeating: 0, count: block * ch)
    var output = [Float](repeating: 0, count: r.maxOutputFrames(forInputFrames: block) * ch)
    var all: [Float] = []
    var progress: [(in: Int, out: Int)] = []
    all.reserveCapacity((frames * r.outputRate / r.inputRate + 4_096) * ch)
    var n = 0
    while n < frames {
      let count = min(block, frames - n)
      for i in 0..<count {
        let x = Float(signal(n + i))
        for c in 0..<ch { input[i * ch + c] = x }
      }
      let produced = input.withUnsafeBufferPointer { inBuf in
        output.withUnsafeMutableBufferPointer { outBuf in
          r.process(UnsafeBufferPointer(rebasing: inBuf[..<(count * ch)]), into: outBuf).produced
        }
      }
      all += output[..<(produced * ch)]
      n += count
      progress.append((n, all.count / ch))
    }
    return (all, progress)
  }
}
