import PCMMix
import PCMMixAccelerated

/// Section 2: each stage of the pipeline on one 10 ms block, timed alone.
enum StageBench {
  static let section = "stages"
  static let batch = 16
  /// The decoder's rows: row name, sample type, byte order. "decode" is s16be, ReplayKit's app
  /// audio (the name it has always had).
  static let decodeRows: [(row: String, type: SampleType, order: ByteOrder)] = [
    ("decode", .s16, .big), ("decode s16le", .s16, .little), ("decode s24le", .s24, .little),
    ("decode s24be", .s24, .big), ("decode s32le", .s32, .little), ("decode s32be", .s32, .big),
    ("decode f32be", .f32, .big),
  ]

  static func run(_ options: Options, report: Report) {
    let names =
      decodeRows.map { $0.row } + ["upmix"]
      + BuiltinPresets.all.map { "resample builtin-\($0.name)" } + [
        "encode", "mix", "encode avx2", "mix avx2", "mix limit avx2", "clocked mix avx2",
        "clocked mix limit+fades avx2", "clocked pull limit+fades avx2",
      ]
    guard report.wants(section: section, rows: names) else { return }
    let batches = max(20, Int(2_000 * options.scale))
    let table = Table(columns: [
      ("stage (one 10 ms block)", 52), ("min ns", 8), ("p50 ns", 8), ("p99 ns", 8),
      ("ns/frame", 8), ("ns/sample", 9),
    ])
    table.start(
      "Stages: \(batches) batches of \(batch) blocks each, ns per block (batch time / \(batch))")
    var rng = SplitMix64(seed: 3)

    // `samples`: for the codec rows, the samples converted (frames × channels), shown per sample.
    func show(_ name: String, _ label: String, frames: Int, samples: Int? = nil, _ ns: [Double]) {
      let s = Summary(ns)
      table.row([
        label, fixed(s.min, 0), fixed(s.median, 0), fixed(s.p99, 0),
        fixed(s.median / Double(frames), 2), samples.map { fixed(s.median / Double($0), 3) } ?? "",
      ])
      if let samples {
        report.record(section, name, "sample_p50", s.median / Double(samples), "ns")
      }
      report.record(section, name, "block_min", s.min, "ns")
      report.record(section, name, "block_p50", s.median, "ns")
      report.record(section, name, "block_p99", s.p99, "ns")
      report.record(section, name, "frame_p50", s.median / Double(frames), "ns")
    }

    // Decoding one 10 ms block of 44.1 kHz stereo in each integer type and byte order (the
    // Swift SIMD code on every machine: there is no AVX2 decoder).
    for (row, type, order) in decodeRows where report.wants(section: section, row: row) {
      let format = PCMFormat(
        sampleRate: 44_100, channelCount: 2, sampleType: type, byteOrder: order)
      let bytes = UnsafeMutableRawBufferPointer.allocate(
        byteCount: 441 * format.bytesPerFrame, alignment: 16)
      for i in 0..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
      let out = UnsafeMutableBufferPointer<Float>.allocate(capacity: 441 * 2)
      out.initialize(repeating: 0)
      let ns = timeBatches(batches: batches, batchSize: batch, warmup: 1_000) {
        PCMDecoder.decode(
          UnsafeRawBufferPointer(bytes), format: format, totalFrames: 441, frames: 0..<441,
          outputChannels: 2, into: out)
        blackHole(out[440])
      }
      show(row, "decode \(format.typeSpelling) stereo, 441 frames", frames: 441, samples: 882, ns)
      bytes.deallocate()
      out.deallocate()
    }

    if report.wants(section: section, row: "upmix") {
      let input = UnsafeMutableBufferPointer<Float>.allocate(capacity: 320)
      for i in 0..<320 { input[i] = Float(rng.nextSigned()) }
      let out = UnsafeMutableBufferPointer<Float>.allocate(capacity: 640)
      out.initialize(repeating: 0)
      let ns = timeBatches(batches: batches, batchSize: batch, warmup: 1_000) {
        ChannelMapper.map(
          UnsafeBufferPointer(input), inputChannels: 1, frames: 320, into: out,
          outputChannels: 2)
        blackHole(out[639])
      }
      show("upmix", "upmix mono -> stereo, 320 frames", frames: 320, ns)
      input.deallocate()
      out.deallocate()
    }

    for (name, quality) in BuiltinPresets.all
    where report.wants(section: section, row: "resample builtin-\(name)") {
      var r = PolyphaseResampler(
        inputRate: 44_100, outputRate: 48_000, channelCount: 2, quality: quality)
      let input = UnsafeMutableBufferPointer<Float>.allocate(capacity: 441 * 2)
      for i in 0..<(441 * 2) { input[i] = Float(rng.nextSigned()) * 0.5 }
      let out = UnsafeMutableBufferPointer<Float>.allocate(
        capacity: r.maxOutputFrames(forInputFrames: 441) * 2)
      out.initialize(repeating: 0)
      let ns = timeBatches(batches: batches, batchSize: batch, warmup: 1_000) {
        let n = r.process(UnsafeBufferPointer(input), into: out).produced
        blackHole(out[max(0, 2 * n - 1)])
      }
      show(
        "resample builtin-\(name)", "resample 44.1 -> 48 kHz stereo, 441 frames, \(name)",
        frames: 480, ns)
      input.deallocate()
      out.deallocate()
    }

    // The int16 encoding both ways: Swift's loop (what arm64 runs) and the AVX2 kernel.
    for kernel in [false, true] {
      if kernel && !AcceleratedKernels.install() { break }
      defer { AcceleratedKernels.uninstall() }
      let suffix = kernel ? " avx2" : ""
      if report.wants(section: section, row: "encode" + suffix) {
        // The mixer's last step: 480 stereo frames of Float32 to int16.
        let input = UnsafeMutableBufferPointer<Float>.allocate(capacity: 960)
        for i in 0..<960 { input[i] = Float(rng.nextSigned()) * 0.9 }
        let out = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 960)
        out.initialize(repeating: 0)
        let ns = timeBatches(batches: batches, batchSize: batch, warmup: 1_000) {
          PCMEncoder.encode(UnsafeBufferPointer(input), into: out)
          blackHole(out[959])
        }
        show(
          "encode" + suffix, "encode 480 frames stereo Float32 -> int16" + suffix, frames: 480,
          samples: 960, ns)
        input.deallocate()
        out.deallocate()
      }

      if report.wants(section: section, row: "mix" + suffix) {
        let ns = timeMix(policy: .average, amplitude: 0.5, rng: &rng, batches: batches)
        show(
          "mix" + suffix, "mix 480 frames stereo to int16 (2 appends + mix)" + suffix, frames: 480,
          ns)
      }
    }

    // With the AVX2 encoder: the untimed mixer under `limit`, and the clocked pipeline's whole
    // mix step (two 10 ms appends of 48 kHz float audio, placed and faded, then a pull of 480
    // frames: gains, sum, limiter or scale, meters, int16) without and with `limit` + fades.
    if AcceleratedKernels.install() {
      defer { AcceleratedKernels.uninstall() }
      if report.wants(section: section, row: "mix limit avx2") {
        let ns = timeMix(policy: .limit, amplitude: 0.4, rng: &rng, batches: batches)
        show("mix limit avx2", "mix 480 frames, limit (below the ceiling) avx2", frames: 480, ns)
      }
      let rows: [(String, String, MixPolicy, Double, Bool)] = [
        ("clocked mix avx2", "clocked: 2 appends + pull 480, average avx2", .average, 0, false),
        (
          "clocked mix limit+fades avx2", "clocked: 2 appends + pull 480, limit+fades avx2", .limit,
          0.01, false
        ),
        (
          "clocked pull limit+fades avx2", "clocked: pull 480 alone, limit+fades avx2", .limit,
          0.01,
          true
        ),
      ]
      for (row, label, policy, fade, pullAlone) in rows
      where report.wants(section: section, row: row) {
        let ns = timeClocked(
          policy: policy, fade: fade, pullAlone: pullAlone, rng: &rng, batches: batches)
        show(row, label, frames: 480, ns)
      }
    }
  }

  /// Per-block times of the clocked pipeline's mix step: two 10 ms appends of 48 kHz stereo
  /// float noise, stamped, then a pull of 480 frames (`pullAlone`: the appends of a batch go in
  /// untimed first, and only the pulls are timed: the mix stage itself, placing, fading,
  /// gains, sum, limiter, meters, int16).
  static func timeClocked(
    policy: MixPolicy, fade: Double, pullAlone: Bool, rng: inout SplitMix64, batches: Int
  ) -> [Double] {
    var c = ClockedCapturePipeline.Configuration()
    (c.policy, c.fadeSeconds, c.driftCorrection) = (policy, fade, .off)
    c.latency = .fixed(seconds: 0.05)
    let f = StreamDescription(PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .f32))
    var pipeline = try! ClockedCapturePipeline(c, app: f, mic: f)
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 480 * 8, alignment: 16)
    defer { bytes.deallocate() }
    for i in 0..<960 {
      bytes.storeBytes(of: Float(rng.nextSigned()) * 0.4, toByteOffset: 4 * i, as: Float.self)
    }
    let out = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 960)
    defer { out.deallocate() }
    out.initialize(repeating: 0)
    var k: Int64 = 0
    func append() {
      let time = MediaTime(value: k * 480, timescale: 48_000)
      try! pipeline.append(.app, UnsafeRawBufferPointer(bytes), description: f, time: time)
      try! pipeline.append(.mic, UnsafeRawBufferPointer(bytes), description: f, time: time)
      k += 1
    }
    guard pullAlone else {
      return timeBatches(batches: batches, batchSize: batch, warmup: 1_000) {
        append()
        blackHole(pipeline.pull(into: out))
      }
    }
    // Four blocks (40 ms) appended ahead, within the 50 ms latency, then four pulls timed.
    let ahead = 4
    var perPull: [Double] = []
    perPull.reserveCapacity(batches * batch / ahead)
    for b in 0..<(1_000 / ahead + batches * batch / ahead) {
      for _ in 0..<ahead { append() }
      var full = true
      let t0 = nowNS()
      for _ in 0..<ahead { full = pipeline.pull(into: out).isFull && full }
      let t1 = nowNS()
      guard b >= 1_000 / ahead else { continue }
      // Past the warm-up every pull mixes both sources (none is silence, start or hold).
      precondition(full, "a timed pull was not a full mix")
      perPull.append(Double(t1 - t0) / Double(ahead))
    }
    return perPull
  }

  /// Per-block times of two appends of 480 stereo frames of noise at `amplitude` and a mix to
  /// int16 in a `DualBufferMixer` with `policy`.
  static func timeMix(
    policy: MixPolicy, amplitude: Double, rng: inout SplitMix64, batches: Int
  ) -> [Double] {
    var mixer = DualBufferMixer(.init(policy: policy))
    let a = UnsafeMutableBufferPointer<Float>.allocate(capacity: 960)
    let b = UnsafeMutableBufferPointer<Float>.allocate(capacity: 960)
    defer {
      a.deallocate()
      b.deallocate()
    }
    for i in 0..<960 {
      a[i] = Float(rng.nextSigned() * amplitude)
      b[i] = Float(rng.nextSigned() * amplitude)
    }
    let out = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 960)
    defer { out.deallocate() }
    out.initialize(repeating: 0)
    return timeBatches(batches: batches, batchSize: batch, warmup: 1_000) {
      mixer.append(.app, samples: UnsafeBufferPointer(a))
      mixer.append(.mic, samples: UnsafeBufferPointer(b))
      blackHole(mixer.mix(into: out))
    }
  }
}
