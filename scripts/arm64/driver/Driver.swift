// The arm64 check's driver: PCMMix's DSP core (decode, channel mapping, every resampler path,
// the mixer, limiter, meters, encoder, echo canceller, ducker and loudness meter) on
// deterministic inputs, each case's output written bit for bit (`driver_record`). The same file
// is compiled as Embedded Swift with the core's sources for x86-64 and for arm64
// (`scripts/arm64/arm64-check.sh`); `compare.py` compares what the two builds wrote.
//
// The inputs use no math library (libm may differ between platforms): a seeded generator, and
// tones from a rotation with literal coefficients.
import DriverIO
import PCMMix
import PCMMixAccelerated

/// xorshift64*: the same numbers on every platform (the state must not be 0; seeds are mixed).
struct Generator {
  var state: UInt64
  init(state seed: UInt64) { state = (seed &+ 1) &* 0x2545_F491_4F6C_DD1D | 1 }
  mutating func next() -> UInt64 {
    state ^= state >> 12
    state ^= state << 25
    state ^= state >> 27
    return state &* 0x2545_F491_4F6C_DD1D
  }
  /// Uniform in [-1, 1), 24 bits.
  mutating func signal() -> Float {
    Float(Int32(truncatingIfNeeded: next() >> 40) - (1 << 23)) * 0x1p-23
  }
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// `frames` interleaved frames: a tone per channel (a rotation, so no `sin`) plus noise.
func testSignal(frames: Int, channels: Int, seed: UInt64, noise: Float = 0.05) -> [Float] {
  var g = Generator(state: seed)
  var out = [Float](repeating: 0, count: frames * channels)
  // cos and sin of 2π·997/48000 and of 2π·3001/48000, as literals.
  let (c1, s1): (Float, Float) = (0.991_486_1, 0.130_212_1)
  let (c2, s2): (Float, Float) = (0.924_045_9, 0.382_283_9)
  var (x1, y1): (Float, Float) = (0.4, 0)
  var (x2, y2): (Float, Float) = (0.2, 0)
  for i in 0..<frames {
    (x1, y1) = (x1 * c1 - y1 * s1, x1 * s1 + y1 * c1)
    (x2, y2) = (x2 * c2 - y2 * s2, x2 * s2 + y2 * c2)
    for c in 0..<channels {
      out[i * channels + c] = (c % 2 == 0 ? x1 : x2) + noise * g.signal()
    }
  }
  return out
}

func record(_ name: String, kind: Int32, _ bytes: UnsafeRawBufferPointer) {
  var n = name + "\0"
  n.withUTF8 { u in
    u.withMemoryRebound(to: CChar.self) {
      driver_record($0.baseAddress!, kind, bytes.baseAddress, bytes.count)
    }
  }
  cases += 1
}
func record(_ name: String, _ values: [Float]) {
  values.withUnsafeBytes { record(name, kind: 0, $0) }
}
func record(_ name: String, _ values: [Int16]) {
  values.withUnsafeBytes { record(name, kind: 1, $0) }
}
func record(_ name: String, _ values: [Double]) {
  values.withUnsafeBytes { record(name, kind: 2, $0) }
}

nonisolated(unsafe) var cases = 0

// MARK: - Kernels

/// The kernel set for `mode`, as `PCMMixAccelerated` gives it: none (0), the CPU's full set (1:
/// AVX2, with AVX-512F where the CPU has it, on x86-64; NEON on arm64), or on x86-64 the AVX2
/// chains without the run and upsampling functions (2), whose structure the portable kernels
/// have.
func kernels(_ mode: Int) -> PolyphaseResampler.DotKernel? {
  switch mode {
  case 1: return AcceleratedKernels.kernel
  case 2:
    guard var k = AcceleratedKernels.avx2Kernel else { return nil }
    (k.groupRun, k.upsampleRun, k.lerpRun) = (nil, nil, nil)
    return k
  default: return nil
  }
}

// MARK: - Resamplers

/// Block sizes: 10 ms of the input rate, or random ones (1 … 1,200 frames).
func blocks(total: Int, rate: Int, random: Bool, seed: UInt64) -> [Int] {
  var g = Generator(state: seed)
  var out: [Int] = []
  var left = total
  while left > 0 {
    let n = min(left, random ? 1 + g.below(1_200) : max(1, rate / 100))
    out.append(n)
    left -= n
  }
  return out
}

/// Streams `input` through `r` in `sizes` blocks (steering a steerable one each block when
/// `steer`), then flushes; returns every output frame.
func stream<R: Resampler>(
  _ r: inout R, _ input: [Float], channels: Int, sizes: [Int], steer: Bool
) -> [Float] {
  var out: [Float] = []
  var scratch = [Float](
    repeating: 0, count: (r.maxOutputFrames(forInputFrames: 1_200) + 64) * channels)
  var at = 0
  for (i, n) in sizes.enumerated() {
    if steer {
      // ±0.4 %, a different value every block, from a fixed pattern.
      _ = r.adjustRatio(by: Double((i * 37) % 9 - 4) * 0.001)
    }
    var done = 0
    while done < n {
      let (consumed, produced) = input.withUnsafeBufferPointer { src in
        scratch.withUnsafeMutableBufferPointer { dst in
          r.process(
            UnsafeBufferPointer(rebasing: src[(at + done) * channels..<(at + n) * channels]),
            into: dst)
        }
      }
      out.append(contentsOf: scratch[0..<produced * channels])
      done += consumed
      if consumed == 0 && produced == 0 { break }
    }
    at += n
  }
  while true {
    let produced = scratch.withUnsafeMutableBufferPointer { r.flush(into: $0) }
    if produced == 0 { break }
    out.append(contentsOf: scratch[0..<produced * channels])
  }
  return out
}

let inputRates = [8_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 96_000]

func resamplerCases(_ mode: Int) {
  let kernel = kernels(mode)
  let presets: [(String, ResamplerQuality)] = [
    ("fast", .fast), ("balanced", .balanced), ("high", .high),
  ]
  var pairs = inputRates.map { ($0, 48_000) }
  pairs.append((48_000, 44_100))
  for (name, quality) in presets {
    for (inRate, outRate) in pairs {
      for channels in 1...2 {
        let frames = inRate / 4
        let input = testSignal(frames: frames, channels: channels, seed: UInt64(inRate + channels))
        for random in [false, true] {
          let sizes = blocks(total: frames, rate: inRate, random: random, seed: UInt64(inRate))
          let tag = "\(name) \(inRate)->\(outRate) ch\(channels) \(random ? "random" : "10ms")"
          var fixed = PolyphaseResampler(
            inputRate: inRate, outputRate: outRate, channelCount: channels, quality: quality,
            kernel: kernel)
          if random { _ = fixed.skipLatency() }
          record(
            "fixed " + tag, stream(&fixed, input, channels: channels, sizes: sizes, steer: false))
          var steered = VariableRatioResampler(
            inputRate: inRate, outputRate: outRate, channelCount: channels, quality: quality,
            kernel: kernel)
          if random { _ = steered.skipLatency() }
          record(
            "variable " + tag,
            stream(&steered, input, channels: channels, sizes: sizes, steer: true))
        }
      }
    }
    remapCases(name, quality, kernel)
  }
}

/// Mono → stereo mid-stream (``PolyphaseResampler/remapped(to:)``), and a steerable run rung out
/// and started again overlapping (a rate switch's seam).
func remapCases(
  _ name: String, _ quality: ResamplerQuality, _ kernel: PolyphaseResampler.DotKernel?
) {
  let mono = testSignal(frames: 4_410, channels: 1, seed: 7)
  let stereo = testSignal(frames: 4_410, channels: 2, seed: 8)
  let sizes = blocks(total: 4_410, rate: 44_100, random: true, seed: 9)
  var fixed = PolyphaseResampler(
    inputRate: 44_100, outputRate: 48_000, channelCount: 1, quality: quality, kernel: kernel)
  var first = stream(&fixed, mono, channels: 1, sizes: sizes, steer: false)
  if var two = fixed.remapped(to: 2) {
    first += stream(&two, stereo, channels: 2, sizes: sizes, steer: false)
  }
  record("fixed remapped \(name)", first)
  var steered = VariableRatioResampler(
    inputRate: 32_000, outputRate: 48_000, channelCount: 2, quality: quality, kernel: kernel)
  var out = stream(&steered, stereo, channels: 2, sizes: sizes, steer: true)
  var tail = [Float](repeating: 0, count: 4_096)
  let rung = tail.withUnsafeMutableBufferPointer { steered.ringOut(into: $0) } ?? 0
  out += tail[0..<rung * 2]
  if let offset = steered.outputTimePastEnd,
    let lead = steered.resetToOverlap(firstOutputAt: offset)
  {
    out.append(Float(lead))
    out += stream(&steered, stereo, channels: 2, sizes: sizes, steer: true)
  }
  if var two = VariableRatioResampler(
    inputRate: 16_000, outputRate: 48_000, channelCount: 1, quality: quality, kernel: kernel
  ).remapped(to: 2) {
    out += stream(&two, stereo, channels: 2, sizes: sizes, steer: true)
  }
  record("variable ringOut/overlap/remapped \(name)", out)
}

// MARK: - Decode, channels, encode

func decoderCases() {
  var g = Generator(state: 11)
  let types: [SampleType] = [.u8, .s16, .s24, .s32, .f32, .f64]
  for type in types {
    for order in [ByteOrder.little, .big] {
      for channels in 1...3 {
        for interleaved in [true, false] {
          let format = PCMFormat(
            sampleRate: 48_000, channelCount: channels, sampleType: type, byteOrder: order,
            isInterleaved: interleaved)
          let frames = 1_000
          var bytes = [UInt8](repeating: 0, count: frames * format.bytesPerFrame)
          if type == .f32 || type == .f64 {
            // Finite values (a NaN's payload is not what is checked here), either byte order.
            let size = type.bytesPerSample
            for i in 0..<frames * channels {
              let x = 1.5 * g.signal()
              let bits: UInt64 = size == 4 ? UInt64(x.bitPattern) : Double(x).bitPattern
              for b in 0..<size {
                let shift = order == .little ? 8 * b : 8 * (size - 1 - b)
                bytes[i * size + b] = UInt8(truncatingIfNeeded: bits >> UInt64(shift))
              }
            }
          } else {
            for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: g.next()) }
          }
          for outputChannels in 1...channels {
            var out = [Float](repeating: 0, count: 700 * outputChannels)
            bytes.withUnsafeBytes { src in
              out.withUnsafeMutableBufferPointer { dst in
                PCMDecoder.decode(
                  src, format: format, totalFrames: frames, frames: 123..<823,
                  outputChannels: outputChannels, into: dst)
              }
            }
            record(
              "decode \(format.typeSpelling) ch\(channels)->\(outputChannels) "
                + (interleaved ? "interleaved" : "planar"), out)
          }
        }
      }
    }
  }
}

func channelAndEncoderCases() {
  for (a, b) in [(1, 2), (2, 1), (2, 2), (1, 1)] {
    let input = testSignal(frames: 999, channels: a, seed: 13)
    var out = [Float](repeating: 0, count: 999 * b)
    input.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        ChannelMapper.map(src, inputChannels: a, frames: 999, into: dst, outputChannels: b)
      }
    }
    record("channels \(a)->\(b)", out)
  }
  // Out of range, halfway between two codes (ties), tiny and signed zeros.
  var g = Generator(state: 17)
  var input = (0..<4_000).map { _ in 1.2 * g.signal() }
  for k in -40..<40 { input.append((Float(k) + 0.5) / 32_768) }
  input += [0, -0.0, 1, -1, 1e-30, -1e-30, 2, -2, .infinity, -.infinity]
  var s16 = [Int16](repeating: 0, count: input.count)
  input.withUnsafeBufferPointer { src in
    s16.withUnsafeMutableBufferPointer { PCMEncoder.encode(src, into: $0) }
  }
  record("encode s16", s16)
  for type in [SampleType.s16, .f32] {
    var bytes = [UInt8](repeating: 0, count: input.count * 4)
    let n = input.withUnsafeBufferPointer { src in
      bytes.withUnsafeMutableBytes { PCMEncoder.encodeLittleEndian(src, as: type, into: $0) }
    }
    record("encode little-endian \(type.rawValue)", bytes[0..<n].map { Int16($0) })
  }
}

// MARK: - Mix, limiter, meters

func mixerCases() {
  for policy in [MixPolicy.average, .saturate, .limit] {
    var mixer = DualBufferMixer(.init(policy: policy, appGainDB: 4, micGainDB: 3))
    var g = Generator(state: 19)
    var out: [Float] = []
    var ints: [Int16] = []
    var meters: [Double] = []
    var buffer = [Float](repeating: 0, count: 2 * 2_048)
    var buffer16 = [Int16](repeating: 0, count: 2 * 2_048)
    for i in 0..<120 {
      let app = testSignal(frames: 1 + g.below(900), channels: 2, seed: UInt64(i), noise: 0.3)
      let mic = testSignal(frames: 1 + g.below(900), channels: 2, seed: UInt64(1_000 + i))
      app.withUnsafeBufferPointer { mixer.append(.app, samples: $0) }
      if i % 17 != 5 { mic.withUnsafeBufferPointer { mixer.append(.mic, samples: $0) } }
      if i == 60 { mixer.setGain(.app, dB: -6) }
      if i % 2 == 0 {
        let n = buffer.withUnsafeMutableBufferPointer { mixer.mix(into: $0) }
        out += buffer[0..<n * 2]
      } else {
        let n = buffer16.withUnsafeMutableBufferPointer { mixer.mix(into: $0) }
        ints += buffer16[0..<n * 2]
      }
      let m = mixer.meters
      meters += [
        Double(m.output.peakDBFS), Double(m.output.rmsDBFS), Double(m.app.rmsDBFS),
        Double(m.mic.heldPeakDBFS), Double(m.limitedSamples), Double(m.clippedSamples),
      ]
    }
    record("mixer \(policy) float", out)
    record("mixer \(policy) int16", ints)
    record("mixer \(policy) meters", meters)
  }
}

func limiterAndMeterCases() {
  for (lookahead, release) in [(48, 0.1), (0, 0.01), (480, 1.0)] {
    var limiter = Limiter(.init(ceilingDB: -1, lookaheadFrames: lookahead, releaseSeconds: release))
    var g = Generator(state: 23)
    var out: [Float] = []
    var gains: [Double] = []
    for i in 0..<80 {
      var block = testSignal(frames: 1 + g.below(1_000), channels: 2, seed: UInt64(i), noise: 0.8)
      for j in block.indices { block[j] *= 2.5 }
      block.withUnsafeMutableBufferPointer { limiter.process($0) }
      out += block
      gains.append(limiter.takeMinimumGainDB())
    }
    var tail = [Float](repeating: 0, count: 2 * 1_024)
    let n = tail.withUnsafeMutableBufferPointer { limiter.flush(into: $0) }
    out += tail[0..<n * 2]
    record("limiter lookahead \(lookahead)", out)
    record("limiter gains lookahead \(lookahead)", gains)
  }
  var meter = LevelMeter()
  var loudness = LoudnessMeter(rate: 48_000, channelCount: 2)
  var readings: [Double] = []
  for i in 0..<50 {
    let block = testSignal(
      frames: 4_800, channels: 2, seed: UInt64(100 + i), noise: Float(i % 7) * 0.1)
    block.withUnsafeBufferPointer {
      meter.measure($0.baseAddress!, frames: 4_800, channels: 2)
      loudness.process($0.baseAddress!, frames: 4_800)
    }
    let r = meter.reading
    readings += [
      Double(r.peakDBFS), Double(r.rmsDBFS), Double(r.heldPeakDBFS), Double(r.clippedSamples),
    ]
    readings += [
      loudness.momentary, loudness.shortTerm, loudness.integratedSoFar, loudness.truePeak,
    ]
  }
  readings += [loudness.integrated, loudness.range, loudness.momentaryMax, loudness.truePeakDB]
  record("level and loudness meters", readings)
}

// MARK: - Echo and ducking

func echoCases() {
  for detects in [false, true] {
    var canceller = EchoCanceller(rate: 48_000, settings: EchoCancellation())
    canceller.detectsVoice = detects
    var ducker = Ducker(Ducking(), rate: 48_000)
    let h = canceller.hop
    let frames = 96_000
    let reference = testSignal(frames: frames, channels: 1, seed: 29, noise: 0.3)
    let talker = testSignal(frames: frames, channels: 1, seed: 31, noise: 0.2)
    // The mic: the reference 30 ms late through a short decaying path, and a talker in the
    // second half.
    var mic = [Float](repeating: 0, count: frames)
    for i in 0..<frames {
      var e: Float = 0
      for k in 0..<8 where i - 1_440 - 37 * k >= 0 {
        e += reference[i - 1_440 - 37 * k] * 0.3 / Float(k + 1)
      }
      mic[i] = e + (i > frames / 2 ? 0.5 * talker[i] : 0)
    }
    var out = [Float](repeating: 0, count: frames)
    var app = testSignal(frames: frames, channels: 2, seed: 37)
    var stats: [Double] = []
    var p = 0
    while p + h <= frames {
      mic.withUnsafeBufferPointer { m in
        reference.withUnsafeBufferPointer { r in
          out.withUnsafeMutableBufferPointer { o in
            canceller.process(
              mic: m.baseAddress! + p, reference: r.baseAddress! + p, output: o.baseAddress! + p)
          }
        }
      }
      if detects {
        ducker.note(voice: canceller.nearEndVoice, start: p, frames: h)
        app.withUnsafeMutableBufferPointer {
          ducker.apply($0.baseAddress! + 2 * p, at: p, frames: h)
        }
      }
      let s = canceller.statistics
      stats += [s.erleDB, s.doubleTalkFraction, s.delay ?? -1, s.isBypassed ? 1 : 0]
      p += h
    }
    record("echo canceller detects \(detects)", out)
    record("echo statistics detects \(detects)", stats)
    if detects { record("ducked app", app) }
  }
}

/// The echo canceller's reference warp (the two clocks' case, which the scene above never
/// starts), by both kernels, at a fast and a slow ratio.
func warpCases() {
  let h = 256
  let reference = testSignal(frames: 48 * h, channels: 1, seed: 41, noise: 0.3)
  for kernels in [EchoKernels.c, .swift] {
    for ratio in [1.0 + 2e-5, 1.0 - 5e-4] {
      var warp = ReferenceWarp(hop: h)
      var out: [Float] = []
      var block = [Float](repeating: 0, count: h)
      for b in 0..<48 {
        reference.withUnsafeBufferPointer { warp.push($0.baseAddress! + b * h) }
        if b == 3 {
          let recent = Array(reference[(2 * h)..<(4 * h)])
          recent.withUnsafeBufferPointer { warp.start(ratio: ratio, recent: $0) }
        }
        var given = 0
        while b > 3 && given < 2 && warp.canProduce {
          block.withUnsafeMutableBufferPointer {
            warp.produce(into: $0.baseAddress!, kernels: kernels)
          }
          out += block
          given += 1
        }
      }
      record("reference warp \(kernels == .c ? "C" : "Swift") at \(ratio)", out)
    }
  }
}

/// The canceller's input bound (``EchoCanceller/inputBound``) by both kernels, on samples a
/// float source can hold past it: NaN, ±∞, huge, just past ±8, −0; in the C kernel's vector
/// body and its tail (61 samples).
func boundCases() {
  var input = testSignal(frames: 61, channels: 1, seed: 43, noise: 1).map { $0 * 16 }
  let specials: [Float] = [.nan, .infinity, -.infinity, 1e30, -3e38, 8, -8, 8.000_001, -0.0, 1e4]
  for (i, v) in specials.enumerated() { input[i * 6 + i % 5] = v }
  for kernels in [EchoKernels.c, .swift] {
    var out = [Float](repeating: 1, count: input.count)
    kernels.bound(input, input.count, limit: 8, &out)
    record("echo input bound \(kernels == .c ? "C" : "Swift")", out)
  }
}

// MARK: - Entry

@_cdecl("pcmmix_driver_run")
func run(_ mode: Int) -> Int {
  resamplerCases(mode)
  if mode == 0 {
    decoderCases()
    channelAndEncoderCases()
    mixerCases()
    limiterAndMeterCases()
    echoCases()
    warpCases()
    boundCases()
  }
  return cases
}
