import CBenchPeers
import Foundation
import PCMMix
import PCMMixTestSupport

/// `loudness`: PCMMix's `LoudnessMeter` (ITU-R BS.1770-4 / EBU R128) beside libebur128 1.2 on
/// the same samples: integrated loudness, loudness range, true peak and the largest momentary
/// loudness, and the CPU each takes per minute of audio (the least of three runs). Signals: the
/// echo scenes' speech and music (20 s, 48 kHz; a mic with its echo and a talker), the two as a
/// stereo pair, and an EBU Tech 3341-style 1 kHz tone at −23 dBFS per channel.
enum LoudnessBench {
  static let section = "loudness"

  static func run(_ options: Options, report: Report) {
    guard report.wants(section: section, rows: ["ours", "libebur128"]) else { return }
    let url = URL(fileURLWithPath: EchoBench.assets)
    guard
      let speech = try? EchoScene(
        content: .speech, outputLatency: 0.03, room: "rt02", nonlinear: false, headphones: false,
        assets: url),
      let music = try? EchoScene(
        content: .music, outputLatency: 0.03, room: "rt02", nonlinear: false, headphones: false,
        assets: url)
    else {
      warn("loudness: cannot read the scenes' assets in \(EchoBench.assets); section skipped")
      return
    }
    let rate = EchoScene.rate
    let seconds = options.scale < 1 ? 5 : 20
    let n = rate * seconds
    // Tech 3341 case 1: a 1 kHz sine at −23 dBFS in both channels reads −23.0 LUFS.
    let amplitude = Foundation.pow(10, -23.0 / 20)
    let tone = (0..<(2 * n)).map { i in
      Float(amplitude * Foundation.sin(2 * Double.pi * 1000 * Double(i / 2) / 48_000))
    }
    let signals: [(String, [Float], Int)] = [
      ("speech mic, mono", Array(speech.mic.prefix(n)), 1),
      ("music mic, mono", Array(music.mic.prefix(n)), 1),
      ("music + speech, stereo", interleave(music.app, speech.talker, n), 2),
      ("1 kHz sine, stereo", tone, 2),
    ]
    let table = Table(columns: [
      ("signal", 24), ("integrated LUFS", 15), ("range LU", 11), ("true peak dBTP", 14),
      ("momentary max", 13), ("ms CPU per min", 14),
    ])
    table.start(
      "Loudness (ITU-R BS.1770-4 / EBU R128): ours / libebur128 on the same samples, \(seconds) s at"
        + " 48 kHz each; CPU per minute of audio, the least of three runs, fed in 10 ms blocks"
        + " (libebur128 in 100 ms blocks, its momentary loudness read after each)")
    for (name, x, channels) in signals {
      let frames = x.count / channels
      var ours = bench_loudness()
      var oursCPU = Double.infinity
      for _ in 0..<3 {
        let t0 = CaptureScene.threadCPU()
        var meter = LoudnessMeter(rate: rate, channelCount: channels)
        x.withUnsafeBufferPointer { p in
          var at = 0
          while at < frames {
            let k = min(480, frames - at)
            meter.process(p.baseAddress! + at * channels, frames: k)
            at += k
          }
        }
        ours = bench_loudness(
          integrated: meter.integrated, range: meter.range, true_peak_db: meter.truePeakDB,
          momentary_max: meter.momentaryMax)
        oursCPU = min(oursCPU, Double(CaptureScene.threadCPU() - t0) * 1e-9)
      }
      var peer = bench_loudness()
      var peerCPU = Double.infinity
      var status: Int32 = 0
      for _ in 0..<3 {
        let t0 = CaptureScene.threadCPU()
        status = x.withUnsafeBufferPointer {
          bench_ebur128_measure($0.baseAddress, frames, Int32(channels), Int32(rate), &peer)
        }
        peerCPU = min(peerCPU, Double(CaptureScene.threadCPU() - t0) * 1e-9)
      }
      guard status == 0 else {
        table.row([name, "libebur128 failed"])
        continue
      }
      let perMinute = 60 / (Double(frames) / Double(rate)) * 1e3
      let pairs: [(String, Double, Double, Int)] = [
        ("integrated", ours.integrated, peer.integrated, 2),
        ("range", ours.range, peer.range, 2),
        ("true_peak", ours.true_peak_db, peer.true_peak_db, 2),
        ("momentary_max", ours.momentary_max, peer.momentary_max, 2),
        ("cpu_per_minute", oursCPU * perMinute, peerCPU * perMinute, 1),
      ]
      table.row(
        [name] + pairs.map { fixed($0.1, $0.3) + " / " + fixed($0.2, $0.3) })
      for (metric, a, b, _) in pairs {
        let unit = metric == "cpu_per_minute" ? "ms" : metric == "range" ? "LU" : "dB"
        report.record(section, "\(name)/ours", metric, a, unit)
        report.record(section, "\(name)/libebur128", metric, b, unit)
      }
    }
  }

  static func interleave(_ a: [Float], _ b: [Float], _ n: Int) -> [Float] {
    var out = [Float](repeating: 0, count: 2 * n)
    for i in 0..<min(n, a.count, b.count) {
      out[2 * i] = a[i]
      out[2 * i + 1] = b[i]
    }
    return out
  }
}
