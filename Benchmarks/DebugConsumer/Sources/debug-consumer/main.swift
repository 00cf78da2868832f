// The capture scene as a Debug-built adopter runs it: 44.1 kHz stereo s16be app audio and
// 32 kHz mono s16le mic audio in 1,024-frame buffers, stamped, appended as they are captured,
// and a 10 ms pull (480 frames, int16) every 10 ms of host time, through a
// `ClockedCapturePipeline` in its default configuration. Each pull is timed with the appends
// that came before it (the work the consumer's thread does in a `RealtimeCapturePipeline`).
// Writes one line of JSON, the pull times in microseconds, to OUT (default standard output),
// the milliseconds the pipeline took to create (its filter designs, the first in the process,
// included), and the heap allocations the appends and pulls made after the first second (malloc
// counted by interposition, as in the release benchmark), in all and in how many pulls.
//
// With CAPTURE, the buffers are read from that file instead (`pcm-mix-bench` writes an echo
// scene there, as a live capture delivers it), and the pipeline is configured as the README's
// broadcast extension configures it, with ducking and the loudness meter as well: policy
// `limit`, echo cancellation, ducking, loudness. The JSON then also gives the echo delay the
// canceller found (null if none) and whether it is bypassed at the end, so a run that timed a
// bypassed canceller shows it.
//
// With `DEBUG_CONSUMER_ACCELERATED=1` the pipeline's resampler is
// `.acceleratedVariableRatio(.balanced)` (`PCMMixAccelerated`: AVX2 + FMA or NEON kernels).
//
// Usage: debug-consumer [SECONDS [OUT [CAPTURE]]]   (default 20 s of simulated capture)
import CAllocCounter
import PCMMix
import PCMMixAccelerated

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

func nowNS() -> UInt64 {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
}

let seconds = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) ?? 20 : 20
let appFormat = PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big)
let micFormat = PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16)
/// Frames per tone buffer: 1,024, or `DEBUG_CONSUMER_FRAMES` (16,000: half a second of the mic).
let frames = Int(getenv("DEBUG_CONSUMER_FRAMES").map { String(cString: $0) } ?? "") ?? 1_024

/// One stamped source: a second of a tone (one per channel) at -10 dBFS as int16 in the
/// format's byte order, handed over in 1,024-frame buffers as they are captured.
struct Source {
  let side: ClockedCapturePipeline.Side
  let format: PCMFormat
  let description: StreamDescription
  var bytes: [UInt8]
  var next = 0

  init(_ side: ClockedCapturePipeline.Side, _ format: PCMFormat, tones: [Double]) {
    (self.side, self.format, description) = (side, format, StreamDescription(format))
    let ch = format.channelCount
    bytes = [UInt8](repeating: 0, count: format.sampleRate * ch * 2)
    for i in 0..<format.sampleRate {
      for c in 0..<ch {
        let t = Double(i) / Double(format.sampleRate)
        let x = 0.3 * 32_767 * sin(2 * Double.pi * tones[c % tones.count] * t)
        let v = UInt16(bitPattern: Int16(x))
        let stored = format.byteOrder == .big ? v.bigEndian : v.littleEndian
        bytes[2 * (i * ch + c)] = UInt8(truncatingIfNeeded: stored)
        bytes[2 * (i * ch + c) + 1] = UInt8(truncatingIfNeeded: stored >> 8)
      }
    }
  }

  /// Appends every buffer whose last frame was captured by `now` (seconds after the start).
  mutating func deliver(until now: Double, to pipeline: inout ClockedCapturePipeline) throws {
    let rate = format.sampleRate
    while Double((next + 1) * frames) / Double(rate) <= now {
      let start = (next * frames) % (rate - frames)
      let nanoseconds = host + Int64(next * frames) * 1_000_000_000 / Int64(rate)
      let time = MediaTime(value: nanoseconds, timescale: 1_000_000_000)
      let (bytesPerFrame, side, description) = (format.bytesPerFrame, side, description)
      try bytes.withUnsafeBytes { b in
        let buffer = b[(start * bytesPerFrame)..<((start + frames) * bytesPerFrame)]
        try pipeline.append(
          side, UnsafeRawBufferPointer(rebasing: buffer), description: description, time: time)
      }
      next += 1
    }
  }
}

/// One buffer of a capture file: its side, delivery time (s), stamp and bytes.
struct Delivery {
  let side: ClockedCapturePipeline.Side
  let at: Double
  let time: MediaTime
  let bytes: [UInt8]
}

/// The buffers of a capture file, in delivery order. Each record: side (1 byte: 0 app, 1 mic),
/// delivery time (Float64 s), the stamp's value (Int64) and timescale (Int32), the byte count
/// (Int32) and the bytes, all little-endian as `pcm-mix-bench` writes them on x86-64 and arm64.
func readCapture(_ path: String) -> [Delivery]? {
  guard let f = fopen(path, "rb") else { return nil }
  defer { fclose(f) }
  func read<T: FixedWidthInteger>(_: T.Type) -> T? {
    var v = T.zero
    return fread(&v, MemoryLayout<T>.size, 1, f) == 1 ? T(littleEndian: v) : nil
  }
  var out: [Delivery] = []
  while let side = read(UInt8.self) {
    guard let at = read(UInt64.self), let value = read(Int64.self),
      let scale = read(Int32.self), let count = read(Int32.self), count >= 0
    else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(count))
    guard fread(&bytes, 1, bytes.count, f) == bytes.count else { return nil }
    out.append(
      Delivery(
        side: side == 0 ? .app : .mic, at: Double(bitPattern: at),
        time: MediaTime(value: value, timescale: scale), bytes: bytes))
  }
  return out
}

/// 1,000 s on the host clock, in nanoseconds: the first buffers' stamp.
let host: Int64 = 1_000_000_000_000
var app = Source(.app, appFormat, tones: [440, 660])
var mic = Source(.mic, micFormat, tones: [220])
let capture = CommandLine.arguments.count > 3 ? readCapture(CommandLine.arguments[3]) : nil
/// A capture file that is missing or cut short.
struct UnreadableCapture: Error { let path: String }
if CommandLine.arguments.count > 3 && capture == nil {
  throw UnreadableCapture(path: CommandLine.arguments[3])
}
// Timed from here: a resampler factory designs its tables when it is made.
let setupStart = nowNS()
var configuration = ClockedCapturePipeline.Configuration()
if getenv("DEBUG_CONSUMER_ACCELERATED").map({ String(cString: $0) }) == "1" {
  configuration.resampler = .acceleratedVariableRatio(.balanced)
}
if capture != nil {
  configuration.policy = .limit
  configuration.echoCancellation = EchoCancellation()
  configuration.ducking = Ducking()
  configuration.meterLoudness = true
}
var pipeline = try ClockedCapturePipeline(
  configuration, app: app.description, mic: mic.description)
let setupMS = Double(nowNS() - setupStart) / 1e6
var output = [Int16](repeating: 0, count: 960)
let pulls = Int(seconds * 100)
var times: [Double] = []
times.reserveCapacity(pulls)
var delivered = 0
// Counted from the second second on: the first builds the runtime's caches (in a Debug build,
// generic code's metadata on first use).
var (allocations, allocatingPulls) = (UInt64(0), 0)
alloc_counter_reset()
alloc_counter_set_enabled(1)
for k in 0..<pulls {
  let now = Double(k + 1) / 100
  let before = alloc_counter_events()
  let t0 = nowNS()
  if let capture {
    while delivered < capture.count && capture[delivered].at <= now {
      let d = capture[delivered]
      try d.bytes.withUnsafeBytes {
        try pipeline.append(
          d.side, $0, description: d.side == .app ? app.description : mic.description,
          time: d.time)
      }
      delivered += 1
    }
  } else {
    try app.deliver(until: now, to: &pipeline)
    try mic.deliver(until: now, to: &pipeline)
  }
  _ = output.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
  let t1 = nowNS()
  let made = alloc_counter_events() - before
  if k >= 100 && made > 0 {
    allocations += made
    allocatingPulls += 1
  }
  times.append(Double(t1 - t0) / 1_000)
}
alloc_counter_set_enabled(0)
let list = times.map { "\(($0 * 10).rounded() / 10)" }.joined(separator: ",")
var json = "{\"pulls\":\(pulls),\"pull_us\":[\(list)]"
json += ",\"setup_ms\":\((setupMS * 10).rounded() / 10)"
json += ",\"allocations_after_1s\":\(allocations),\"allocating_pulls\":\(allocatingPulls)"
if capture != nil {
  let echo = pipeline.echoStatistics
  let delay = echo?.delay.map { "\($0)" } ?? "null"
  json += ",\"echo_delay\":\(delay),\"echo_bypassed\":\(echo?.isBypassed ?? true)"
}
json += "}\n"
if CommandLine.arguments.count > 2, let f = fopen(CommandLine.arguments[2], "w") {
  fputs(json, f)
  fclose(f)
} else {
  print(json, terminator: "")
}
