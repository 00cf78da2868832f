// The capture scene as a Debug-built adopter runs it: 44.1 kHz stereo s16be app audio and
// 32 kHz mono s16le mic audio in 1,024-frame buffers, stamped, appended as they are captured,
// and a 10 ms pull (480 frames, int16) every 10 ms of host time, through a
// `ClockedCapturePipeline` in its default configuration. Each pull is timed with the appends
// that came before it (the work the consumer's thread does in a `RealtimeCapturePipeline`).
// Writes one line of JSON, the pull times in microseconds, to OUT (default standard output).
//
// Usage: debug-consumer [SECONDS [OUT]]   (default 20 s of simulated capture)
import PCMMix

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
let frames = 1_024

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

/// 1,000 s on the host clock, in nanoseconds: the first buffers' stamp.
let host: Int64 = 1_000_000_000_000
var app = Source(.app, appFormat, tones: [440, 660])
var mic = Source(.mic, micFormat, tones: [220])
var pipeline = try ClockedCapturePipeline(
  app: app.description, mic: mic.description)
var output = [Int16](repeating: 0, count: 960)
var times: [Double] = []
let pulls = Int(seconds * 100)
for k in 0..<pulls {
  let now = Double(k + 1) / 100
  let t0 = nowNS()
  try app.deliver(until: now, to: &pipeline)
  try mic.deliver(until: now, to: &pipeline)
  _ = output.withUnsafeMutableBufferPointer { pipeline.pull(into: $0) }
  times.append(Double(nowNS() - t0) / 1_000)
}
let list = times.map { "\(($0 * 10).rounded() / 10)" }.joined(separator: ",")
let json = "{\"pulls\":\(pulls),\"pull_us\":[\(list)]}\n"
if CommandLine.arguments.count > 2, let f = fopen(CommandLine.arguments[2], "w") {
  fputs(json, f)
  fclose(f)
} else {
  print(json, terminator: "")
}
