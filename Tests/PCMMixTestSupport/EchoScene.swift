import Foundation
import PCMMix

/// A capture in which the app's audio comes back into the mic through the device's loudspeaker
/// and a room: what the echo canceller is measured on (issue 24). Everything is mono at 48 kHz,
/// 20 s, built from the assets in `TestVectors/echo/` (room impulse responses from
/// pyroomacoustics, speech from espeak-ng) and a synthetic piece of music.
///
/// ```
/// seconds   0 ─────── 6 ──── 9 ── 11 ──── 14 ──── 17 ── 19 ─ 20
/// app       plays ─────────────────────────────────┤ quiet ├ plays
/// talker            ├ talks ┤          ├ talks ────────────┤
/// echo path a ─────────────────── ▲ b (the phone is moved) ──────
/// ```
/// The mic is the sum of three parts kept apart here: the echo (the app through the
/// loudspeaker's output latency, its high-pass and optionally its soft clipping, then the room),
/// the talker (close to the mic: dry), and the room's noise (white, −60 dBFS unless `noiseDB`
/// says otherwise).
public struct EchoScene: Sendable {
  /// What the app plays.
  public enum Content: String, Sendable, CaseIterable {
    /// espeak-ng speech, and a synthetic piece of notes with partials.
    case speech, music
    /// White noise at −20 dBFS: the easiest reference (not in the matrix; a sanity check).
    case noise
  }

  /// How the scene is named in tables: content, latency, room, clipping.
  public let name: String
  /// What the app plays.
  public let content: Content
  /// The device's output latency (seconds): how late the loudspeaker plays what the app sent.
  public let outputLatency: Double
  /// The room: "rt02" or "rt05" (RT60 0.2 or 0.5 s).
  public let room: String
  /// Whether the loudspeaker clips softly.
  public let nonlinear: Bool
  /// No echo at all: the user wears headphones.
  public let headphones: Bool

  /// The app's audio as it is on the timeline: the canceller's reference.
  public let app: [Float]
  /// What of the mic is the app's echo.
  public let echo: [Float]
  /// What of the mic is the talker.
  public let talker: [Float]
  /// What of the mic is the room's noise.
  public let noise: [Float]
  /// The mic: echo + talker + noise.
  public let mic: [Float]

  /// The scene's rate (Hz).
  public static let rate = 48_000
  /// The scene's length (seconds).
  public static let seconds = 20
  /// Where the echo path changes (seconds).
  public static let pathChange = 11.0
  /// Spans (seconds) of the script: the app alone.
  public static let appAlone: [ClosedRange<Double>] = [0...6, 9...11, 11...14, 19...20]
  /// The talker over the app.
  public static let doubleTalk: [ClosedRange<Double>] = [6...9, 14...17]
  /// The talker alone.
  public static let talkerAlone: ClosedRange<Double> = 17...19
  /// Where the talker speaks, double talk and alone, joined where they touch.
  public static let talkSpans: [ClosedRange<Double>] = [6...9, 14...19]

  /// Every scene of the matrix: speech and music, 30 and 120 ms output latency, RT60 0.2 and
  /// 0.5 s, with and without the loudspeaker's clipping; then headphones with each content.
  /// `appShift`, `talkerDB` and `noiseDB`: see
  /// ``init(content:outputLatency:room:nonlinear:headphones:appShift:talkerDB:noiseDB:assets:)``.
  public static func matrix(
    assets: URL, appShift: Double = 0, talkerDB: Double = 0, noiseDB: Double = -60
  ) throws -> [EchoScene] {
    var scenes: [EchoScene] = []
    for content in [Content.speech, .music] {
      for latency in [0.030, 0.120] {
        for room in ["rt02", "rt05"] {
          for nonlinear in [false, true] {
            scenes.append(
              try EchoScene(
                content: content, outputLatency: latency, room: room, nonlinear: nonlinear,
                appShift: appShift, talkerDB: talkerDB, noiseDB: noiseDB, assets: assets))
          }
        }
      }
    }
    for content in [Content.speech, .music] {
      scenes.append(
        try EchoScene(
          content: content, outputLatency: 0.03, room: "rt02", nonlinear: false,
          headphones: true, appShift: appShift, talkerDB: talkerDB, noiseDB: noiseDB,
          assets: assets))
    }
    return scenes
  }

  /// Builds a scene from the assets in `TestVectors/echo/`.
  ///
  /// `appShift` (seconds) starts the app's piece that far in, what is cut from its start put at
  /// its end (before its quiet 17–19 s), so that other words and notes meet the canceller's
  /// first seconds, the talker and the path change. The figures the canceller was tuned on are
  /// those of 0.
  ///
  /// `talkerDB` sets the talker's level against the echo's over the double-talk spans (with
  /// headphones, against the level the speech scenes give it): 0 is the matrix's, −6 a talker
  /// half as loud as the app's echo.
  ///
  /// `noiseDB` is the room noise's level (dBFS RMS, white): −60 in the matrix, −45 a room 15 dB
  /// noisier (a fan, a street).
  public init(
    content: Content, outputLatency: Double, room: String, nonlinear: Bool,
    headphones: Bool = false, appShift: Double = 0, talkerDB: Double = 0, noiseDB: Double = -60,
    assets: URL
  ) throws {
    self.content = content
    self.outputLatency = outputLatency
    self.room = room
    self.nonlinear = nonlinear
    self.headphones = headphones
    name =
      headphones
      ? "\(content.rawValue) headphones"
      : "\(content.rawValue) \(Int((outputLatency * 1000).rounded())) ms \(room)"
        + (nonlinear ? " clip" : "")
    let n = Self.rate * Self.seconds
    let r = Double(Self.rate)
    // The app: speech or music, quiet from 17 to 19 s.
    var app: [Float]
    switch content {
    case .speech:
      app = try Self.speech(assets.appendingPathComponent("speech/app_speech.wav"), frames: n)
    case .music: app = Self.music(frames: n)
    case .noise:
      var rng = SplitMix64(seed: 0x5EED)
      app = rng.noise(n).map { $0 * 0.1 * Float(3.0.squareRoot()) }
    }
    // A shift of any sign or size wraps around the piece.
    let cut = (Int((appShift * r).rounded()) % n + n) % n
    if cut > 0 { app = Array(app[cut...] + app[..<cut]) }
    Self.gate(&app, keep: [0...17, 19...20])
    self.app = app
    // The loudspeaker: the output latency, a 300 Hz high-pass (a phone's small driver), the
    // soft clip.
    var speaker = [Float](repeating: 0, count: n)
    let lag = Int((outputLatency * r).rounded())
    for i in lag..<n { speaker[i] = app[i - lag] }
    Biquad.highPass(frequency: 300, rate: r).run(&speaker)
    if nonlinear {
      // tanh(3x)/3: a tenth of full scale passes nearly linearly, the peaks are pressed down.
      for i in 0..<n { speaker[i] = Float(tanh(3 * Double(speaker[i])) / 3) }
    }
    // The room: path a, then b from 11 s on (a 20 ms cross-fade: the phone is moved).
    if headphones {
      echo = [Float](repeating: 0, count: n)
    } else {
      let a = Self.convolve(speaker, try Self.rir(assets, room + "a"))
      let b = Self.convolve(speaker, try Self.rir(assets, room + "b"))
      let change = Int(Self.pathChange * r)
      let fade = Self.rate / 50
      var e = [Float](repeating: 0, count: n)
      for i in 0..<n {
        let w = Float(min(1, max(0, Double(i - change) / Double(fade))))
        e[i] = a[i] * (1 - w) + b[i] * w
      }
      echo = e
    }
    // The talker: the second voice, dry, at the echo's level (0 dB signal-to-echo ratio over
    // the talk spans); with headphones at the level the speech scenes give it.
    var voice = try Self.speech(assets.appendingPathComponent("speech/talker.wav"), frames: n)
    Self.gate(&voice, keep: [6...9, 14...19])
    let talkLevel = Self.rms(voice, Self.doubleTalk)
    let echoLevel = headphones ? 0.05 : Self.rms(echo, Self.doubleTalk)
    let g = Float(echoLevel / max(talkLevel, 1e-9) * pow(10, talkerDB / 20))
    talker = voice.map { $0 * g }
    var rng = SplitMix64(seed: 0xEC40)
    let noiseRMS = Float(pow(10, noiseDB / 20))
    noise = rng.noise(n).map { $0 * noiseRMS * Float(3.0.squareRoot()) }
    var m = [Float](repeating: 0, count: n)
    for i in 0..<n { m[i] = echo[i] + talker[i] + noise[i] }
    mic = m
  }

  /// Seconds to a sample index.
  public static func index(_ t: Double) -> Int { Int((t * Double(rate)).rounded()) }

  /// The energy of each whole `frame`-long frame of `x`, in order.
  public static func frameEnergies(_ x: [Float], frame: Int) -> [Double] {
    (0..<(x.count / frame)).map { f in
      var e = 0.0
      for i in (f * frame)..<((f + 1) * frame) { e += Double(x[i]) * Double(x[i]) }
      return e
    }
  }

  /// Root mean square over `spans` (seconds).
  public static func rms(_ x: [Float], _ spans: [ClosedRange<Double>]) -> Double {
    var sum = 0.0
    var count = 0
    for s in spans {
      for i in index(s.lowerBound)..<min(x.count, index(s.upperBound)) {
        sum += Double(x[i]) * Double(x[i])
        count += 1
      }
    }
    return (sum / Double(max(count, 1))).squareRoot()
  }

  /// Zeroes `x` outside `keep` (seconds), with 10 ms ramps.
  static func gate(_ x: inout [Float], keep: [ClosedRange<Double>]) {
    let ramp = Double(rate) / 100
    for i in 0..<x.count {
      var g = 0.0
      for k in keep {
        let a = Double(i) - Double(k.lowerBound) * Double(rate)
        let b = Double(k.upperBound) * Double(rate) - Double(i)
        g = max(g, min(1, max(0, min(a, b) / ramp)))
      }
      x[i] *= Float(g)
    }
  }

  /// A room impulse response: raw float32 little-endian at 48 kHz.
  static func rir(_ assets: URL, _ name: String) throws -> [Float] {
    let data = try Data(contentsOf: assets.appendingPathComponent("rir/\(name).f32"))
    return data.withUnsafeBytes { raw in
      (0..<(data.count / 4)).map {
        Float(bitPattern: UInt32(littleEndian: raw.load(fromByteOffset: $0 * 4, as: UInt32.self)))
      }
    }
  }

  /// A 16-bit mono WAV (a plain 44-byte header), converted to 48 kHz, cut or padded to `frames`.
  static func speech(_ url: URL, frames: Int) throws -> [Float] {
    let bytes = [UInt8](try Data(contentsOf: url))
    let rate = Int(bytes[24]) | Int(bytes[25]) << 8 | Int(bytes[26]) << 16
    let samples = decodeS16(Array(bytes[44...]), channels: 1)
    var r = PolyphaseResampler(inputRate: rate, outputRate: Self.rate, channelCount: 1)
    var out = resampleAligned(&r, samples)
    if out.count < frames { out += [Float](repeating: 0, count: frames - out.count) }
    return Array(out[0..<frames])
  }

  /// Music: a progression of four chords at 112 bpm, piano-like notes with five partials that
  /// decay, a bass line, and a hi-hat of filtered noise bursts; at about −20 dBFS.
  static func music(frames: Int) -> [Float] {
    let r = Double(rate)
    var x = [Double](repeating: 0, count: frames)
    let beat = 60.0 / 112
    // MIDI notes of C, Am, F, G.
    let chords: [[Int]] = [[60, 64, 67], [57, 60, 64], [53, 57, 60], [55, 59, 62]]
    let bass = [36, 33, 29, 31]
    func note(_ midi: Int, at t0: Double, length: Double, level: Double, partials: Int) {
      let f = 440 * pow(2, Double(midi - 69) / 12)
      let start = Int(t0 * r)
      let end = min(frames, start + Int(length * r))
      guard start < end else { return }
      for i in start..<end {
        let t = Double(i - start) / r
        let env = exp(-3 * t) * min(1, t * 200)
        var v = 0.0
        for p in 1...partials where Double(p) * f < 20_000 {
          v += sin(2 * .pi * Double(p) * f * t) / Double(p * p) * exp(-Double(p) * t)
        }
        x[i] += level * env * v
      }
    }
    var t = 0.0
    var bar = 0
    while t < Double(frames) / r {
      let c = chords[bar % 4]
      for (k, m) in c.enumerated() {
        note(m, at: t + Double(k) * 0.01, length: 4 * beat, level: 0.12, partials: 5)
      }
      note(bass[bar % 4], at: t, length: 2 * beat, level: 0.25, partials: 3)
      note(bass[bar % 4] + 7, at: t + 2 * beat, length: 2 * beat, level: 0.2, partials: 3)
      // A melody note on each beat, stepping through the chord an octave up.
      for b in 0..<4 {
        note(
          c[(b + bar) % 3] + 12, at: t + Double(b) * beat, length: beat, level: 0.08, partials: 4)
      }
      t += 4 * beat
      bar += 1
    }
    // Hi-hat: 30 ms of high-passed noise on every off-beat.
    var rng = SplitMix64(seed: 0x4A7)
    let noise = rng.noise(frames)
    var hat = [Float](repeating: 0, count: frames)
    var beatTime = beat / 2
    while beatTime < Double(frames) / r {
      let s = Int(beatTime * r)
      for i in s..<min(frames, s + Int(0.03 * r)) {
        hat[i] = noise[i] * Float(0.1 * exp(-Double(i - s) / (0.008 * r)))
      }
      beatTime += beat
    }
    Biquad.highPass(frequency: 6000, rate: r).run(&hat)
    var out = [Float](repeating: 0, count: frames)
    var sum = 0.0
    for i in 0..<frames {
      let v = x[i] + Double(hat[i])
      sum += v * v
    }
    let scale = 0.1 / (sum / Double(frames)).squareRoot()
    for i in 0..<frames { out[i] = Float(x[i] + Double(hat[i])) * Float(scale) }
    return out
  }

  /// `x` convolved with `h`, the first `x.count` samples (overlap-add with FFTs of 2¹⁶).
  public static func convolve(_ x: [Float], _ h: [Float]) -> [Float] {
    let size = 1 << 16
    precondition(h.count < size / 2)
    let fft = RealFFT(count: size)!
    let block = size - h.count
    let bins = size / 2 + 1
    var hr = [Float](repeating: 0, count: bins)
    var hi = [Float](repeating: 0, count: bins)
    var time = [Float](repeating: 0, count: size)
    for i in 0..<h.count { time[i] = h[i] }
    fft.forward(time, re: &hr, im: &hi)
    var out = [Float](repeating: 0, count: x.count + size)
    var xr = [Float](repeating: 0, count: bins)
    var xi = [Float](repeating: 0, count: bins)
    var start = 0
    while start < x.count {
      let m = min(block, x.count - start)
      for i in 0..<size { time[i] = i < m ? x[start + i] : 0 }
      fft.forward(time, re: &xr, im: &xi)
      for k in 0..<bins {
        let (a, b) = (xr[k] * hr[k] - xi[k] * hi[k], xr[k] * hi[k] + xi[k] * hr[k])
        (xr[k], xi[k]) = (a, b)
      }
      fft.inverse(re: &xr, im: &xi, output: &time)
      for i in 0..<size { out[start + i] += time[i] }
      start += block
    }
    return Array(out[0..<x.count])
  }

  /// A second-order filter (RBJ's cookbook), run in Double.
  struct Biquad {
    var b0, b1, b2, a1, a2: Double

    static func highPass(frequency: Double, rate: Double) -> Biquad {
      let w = 2 * Double.pi * frequency / rate
      let alpha = sin(w) / (2 * 0.5.squareRoot())
      let a0 = 1 + alpha
      let c = cos(w)
      return Biquad(
        b0: (1 + c) / 2 / a0, b1: -(1 + c) / a0, b2: (1 + c) / 2 / a0, a1: -2 * c / a0,
        a2: (1 - alpha) / a0)
    }

    func run(_ x: inout [Float]) {
      var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
      for i in 0..<x.count {
        let v = Double(x[i])
        let y = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        (x2, x1, y2, y1) = (x1, v, y1, y)
        x[i] = Float(y)
      }
    }
  }
}

/// How well a canceller did on an ``EchoScene``: what its output `out` (aligned with the mic)
/// shows against the parts the scene kept apart.
public struct EchoSceneMetrics: Sendable {
  /// ERLE (dB) where the app plays alone, before and after the path change (from 3 s after each
  /// start on), and what a perfect canceller (mic minus the true echo) reaches there.
  public var erleBefore: Double
  /// (See ``erleBefore``.)
  public var erleAfter: Double
  /// (See ``erleBefore``.)
  public var perfectBefore: Double
  /// (See ``erleBefore``.)
  public var perfectAfter: Double
  /// Seconds from the start and from the path change until ERLE ≥ 20 dB holds (over 100 ms
  /// windows with echo in them, for a second); `nil`: never. Where the room's noise holds even
  /// a perfect canceller (mic minus the true echo) under 23 dB in a window, within 3 dB of it
  /// counts, as for ``erleBefore``.
  public var convergence: Double?
  /// (See ``convergence``.)
  public var reconvergence: Double?
  /// Double talk: the talker's SI-SDR (dB) and how far the echo is brought down (dB, counting
  /// everything in the output that is not the talker as echo).
  public var doubleTalkSISDR: Double
  /// (See ``doubleTalkSISDR``.)
  public var doubleTalkEchoReduction: Double
  /// The talker alone: the output against the raw mic, SI-SDR (dB).
  public var talkerAloneSISDR: Double
  /// The whole capture against the raw mic (the headphone check), SI-SDR (dB).
  public var wholeSISDR: Double
  /// The talker's level in the output over the double talk and talk-alone spans, against the
  /// mic's (dB).
  public var talkerLevel: Double

  /// The echo issue's targets this output misses, by name (empty: all met): ERLE ≥ 25 dB
  /// before and after the path change, or within 3 dB of the perfect canceller's; 20 dB
  /// within 1.5 s of the start and of the change; in double talk the talker at ≥ 15 dB
  /// SI-SDR and the echo ≥ 15 dB down. (PESQ-WB, the talker alone and the headphone scenes
  /// are measured apart.) The convergence times are sums of 0.1 s steps, so 1.5 is taken
  /// with a nanosecond to spare.
  public var missedTargets: [String] {
    var missed: [String] = []
    if erleBefore < 25 && erleBefore < perfectBefore - 3 { missed.append("ERLE before") }
    if erleAfter < 25 && erleAfter < perfectAfter - 3 { missed.append("ERLE after") }
    if (convergence ?? .infinity) > 1.5 + 1e-9 { missed.append("convergence") }
    if (reconvergence ?? .infinity) > 1.5 + 1e-9 { missed.append("reconvergence") }
    if doubleTalkSISDR < 15 { missed.append("double talk") }
    if doubleTalkEchoReduction < 15 { missed.append("double-talk echo") }
    return missed
  }

  /// Measures `out`, the canceller's output aligned with the scene's mic.
  public init(scene: EchoScene, output out: [Float]) {
    let s = scene
    func energy(_ x: [Float], _ a: Double, _ b: Double) -> Double {
      var e = 0.0
      for i in EchoScene.index(a)..<EchoScene.index(b) { e += Double(x[i]) * Double(x[i]) }
      return e
    }
    func erle(_ a: Double, _ b: Double, _ y: [Float]) -> Double {
      10 * log10(energy(s.mic, a, b) / max(energy(y, a, b), 1e-30))
    }
    let perfect = zip(s.talker, s.noise).map { $0 + $1 }
    erleBefore =
      10
      * log10(
        (energy(s.mic, 3, 6) + energy(s.mic, 9.5, 11))
          / max(energy(out, 3, 6) + energy(out, 9.5, 11), 1e-30))
    perfectBefore =
      10
      * log10(
        (energy(s.mic, 3, 6) + energy(s.mic, 9.5, 11))
          / (energy(perfect, 3, 6) + energy(perfect, 9.5, 11)))
    erleAfter = erle(12.5, 14, out)
    perfectAfter = erle(12.5, 14, perfect)
    func converged(from t0: Double, to t1: Double) -> Double? {
      // 100 ms windows with echo in them (above a tenth of the span's mean echo energy).
      let w = 0.1
      var windows: [(t: Double, ok: Bool)] = []
      let mean = energy(s.echo, t0, t1) / ((t1 - t0) / w)
      var t = t0
      while t + w <= t1 {
        let e = energy(s.echo, t, t + w)
        if e > 0.1 * mean {
          let goal = min(20, erle(t, t + w, perfect) - 3)
          windows.append((t, erle(t, t + w, out) >= goal))
        }
        t += w
      }
      for (k, win) in windows.enumerated() where win.ok {
        let rest = windows[k...].prefix { $0.t < win.t + 1 }
        if rest.allSatisfy(\.ok) { return win.t + w - t0 }
      }
      return nil
    }
    convergence = converged(from: 0, to: 6)
    reconvergence = converged(from: EchoScene.pathChange, to: 14)
    // Double talk.
    var dtOut: [Float] = []
    var dtTalker: [Float] = []
    var dtEcho: [Float] = []
    for span in EchoScene.doubleTalk {
      let r = EchoScene.index(span.lowerBound)..<EchoScene.index(span.upperBound)
      dtOut += out[r]
      dtTalker += s.talker[r]
      dtEcho += s.echo[r]
    }
    doubleTalkSISDR = Self.siSDR(dtOut, dtTalker)
    let scale = Self.projection(dtOut, dtTalker)
    var left = 0.0
    var echoE = 0.0
    for i in 0..<dtOut.count {
      let d = Double(dtOut[i]) - scale * Double(dtTalker[i])
      left += d * d
      echoE += Double(dtEcho[i]) * Double(dtEcho[i])
    }
    doubleTalkEchoReduction = 10 * log10(echoE / max(left, 1e-30))
    let alone = EchoScene.index(17.5)..<EchoScene.index(19)
    talkerAloneSISDR = Self.siSDR(Array(out[alone]), Array(s.mic[alone]))
    wholeSISDR = Self.siSDR(out, s.mic)
    var talkOut: [Float] = dtOut
    var talkRef: [Float] = dtTalker
    talkOut += out[alone]
    talkRef += s.talker[alone]
    talkerLevel = 20 * log10(Self.projection(talkOut, talkRef))
  }

  /// The scale that best fits `reference` to `x` (least squares): how loud the talker comes
  /// out (1: whole).
  public static func projection(_ x: [Float], _ reference: [Float]) -> Double {
    var xy = 0.0
    var yy = 0.0
    for i in 0..<x.count {
      xy += Double(x[i]) * Double(reference[i])
      yy += Double(reference[i]) * Double(reference[i])
    }
    return xy / max(yy, 1e-30)
  }

  /// Scale-invariant signal-to-distortion ratio (dB) of `x` against `reference`.
  public static func siSDR(_ x: [Float], _ reference: [Float]) -> Double {
    let a = projection(x, reference)
    var target = 0.0
    var rest = 0.0
    for i in 0..<x.count {
      let t = a * Double(reference[i])
      target += t * t
      rest += (Double(x[i]) - t) * (Double(x[i]) - t)
    }
    return 10 * log10(target / max(rest, 1e-30))
  }
}

extension EchoScene {
  /// The scene's mic through an ``EchoCanceller`` with the app as its reference, block by
  /// block, with the canceller's latency taken off: the output aligned with the mic.
  /// `lookahead` and `talkerHold`: the suppressor's, in blocks; `uncertaintyShare`: its
  /// share of the filter's uncertainty; `talkerWeight`: the talker's weight in the filter's
  /// step (`nil`: the canceller's defaults). `eachBlock`: given the canceller's statistics after
  /// each block (block k ends at frame 256·(k + 1)).
  package func cancelled(
    _ settings: EchoCancellation = EchoCancellation(), kernels: EchoKernels = .c,
    lookahead: Int? = nil, talkerHold: Int? = nil, uncertaintyShare: Float? = nil,
    talkerWeight: Float? = nil, eachBlock: ((EchoStatistics) -> Void)? = nil
  ) -> (output: [Float], statistics: EchoStatistics) {
    Self.cancel(
      mic: mic, app: app, settings, kernels: kernels, lookahead: lookahead,
      talkerHold: talkerHold, uncertaintyShare: uncertaintyShare, talkerWeight: talkerWeight,
      eachBlock: eachBlock)
  }

  /// `mic` through the canceller with `app` as its reference, block by block (see
  /// ``cancelled(_:kernels:lookahead:talkerHold:uncertaintyShare:talkerWeight:)``), both at
  /// `rate`: its output, aligned with the mic, and its statistics.
  package static func cancel(
    mic: [Float], app: [Float], _ settings: EchoCancellation = EchoCancellation(),
    kernels: EchoKernels = .c, lookahead: Int? = nil, talkerHold: Int? = nil,
    uncertaintyShare: Float? = nil, talkerWeight: Float? = nil, rate: Int = Self.rate,
    eachBlock: ((EchoStatistics) -> Void)? = nil
  ) -> (output: [Float], statistics: EchoStatistics) {
    var canceller = EchoCanceller(
      rate: rate, settings: settings, kernels: kernels, lookahead: lookahead,
      talkerHold: talkerHold, uncertaintyShare: uncertaintyShare, talkerWeight: talkerWeight)
    let h = canceller.hop
    let late = canceller.latency
    let n = mic.count
    var out = [Float](repeating: 0, count: n + late + h)
    let zeros = [Float](repeating: 0, count: h)
    var block = [Float](repeating: 0, count: h)
    var at = 0
    while at < n + late {
      let m = mic.count - at >= h ? Array(mic[at..<(at + h)]) : zeros
      let a = app.count - at >= h ? Array(app[at..<(at + h)]) : zeros
      canceller.process(mic: m, reference: a, output: &block)
      eachBlock?(canceller.statistics)
      if at >= late {
        for i in 0..<h where at - late + i < out.count { out[at - late + i] = block[i] }
      }
      at += h
    }
    return (Array(out[0..<n]), canceller.statistics)
  }
}

extension EchoScene {
  /// The scene's app and mic with samples no source should hold (an uninitialised float
  /// buffer, a codec's glitch): NaN, +∞, −∞, 10³⁰ and −3·10³⁸ in bursts of ten, the app's from
  /// 2 s and the mic's from 4.4 s, 0.2 s apart. The mic's come 0.4 s or more after the app's
  /// last, past the delay search's 300 ms, so that no pair of them reads as an echo.
  public func withHostileSamples() -> (app: [Float], mic: [Float]) {
    var (app, mic) = (self.app, self.mic)
    for (k, value) in [Float.nan, .infinity, -.infinity, 1e30, -3e38].enumerated() {
      let (a, m) = (Self.index(2 + 0.2 * Double(k)), Self.index(4.4 + 0.2 * Double(k)))
      for i in 0..<10 {
        app[a + i] = value
        mic[m + i] = value
      }
    }
    return (app, mic)
  }
}

extension EchoScene {
  /// The scene through a ``ClockedCapturePipeline`` as a capture delivers it: both sources as
  /// stamped 10 ms buffers of 48 kHz mono Float32 (frame 0 at host time 0), a 10 ms pull after
  /// each pair, `echoCancellation` as configured. Returns the mic as it entered the mix (its
  /// stem's mid channel, timeline frame k at index k), the pipeline's output (interleaved
  /// stereo, as pulled) and the canceller's statistics. With `ducking`, `duckingGain` is the
  /// pipeline's ``ClockedCapturePipeline/duckingGainDB`` after each pull, at the timeline frame
  /// after the last one that pull mixed (`end`): the ducker's gain as its telemetry tells it,
  /// which an app stem cannot show where the app is silent. `latency`: the pipeline's (`nil`:
  /// the default). `outputRate`: the pipeline's; at another than 48 kHz the stems are converted
  /// back to 48 kHz (`converted(_:from:to:)`, on the same timeline) and the trace's frames
  /// counted at 48 kHz, while the output stays as pulled, at `outputRate`.
  public func throughPipeline(
    _ echoCancellation: EchoCancellation?, ducking: Ducking? = nil,
    latency: ClockedCapturePipeline.Latency? = nil, outputRate: Int = Self.rate
  )
    throws -> (
      micStem: [Float], output: [Float], statistics: EchoStatistics?, appStem: [Float],
      duckingGain: [(end: Int, gainDB: Double)]
    )
  {
    var c = ClockedCapturePipeline.Configuration()
    c.echoCancellation = echoCancellation
    c.ducking = ducking
    if let latency { c.latency = latency }
    c.policy = .limit
    c.origin = MediaTime(value: 0, timescale: 48_000)
    c.outputRate = outputRate
    let format = PCMFormat(sampleRate: Self.rate, channelCount: 1, sampleType: .f32)
    let d = StreamDescription(format)
    var p = try ClockedCapturePipeline(c, app: d, mic: d)
    p.keepStems()
    let frames = mic.count * outputRate / Self.rate
    var stem = [Float](repeating: 0, count: frames)
    var appStem = [Float](repeating: 0, count: frames)
    var output: [Float] = []
    var block = [Float](repeating: 0, count: 2 * outputRate / 100)
    let buffer = 480
    var at = 0
    var trace: [(end: Int, gainDB: Double)] = []
    func take(_ p: inout ClockedCapturePipeline) {
      let end = Self.takeStems(&p, app: &appStem, mic: &stem)
      if let end, let gain = p.duckingGainDB { trace.append((end, gain)) }
    }
    while at < mic.count {
      let n = min(buffer, mic.count - at)
      let time = MediaTime(value: Int64(at), timescale: 48_000)
      try app[at..<(at + n)].withUnsafeBytes {
        try p.append(.app, $0, description: d, time: time)
      }
      try mic[at..<(at + n)].withUnsafeBytes {
        try p.append(.mic, $0, description: d, time: time)
      }
      _ = block.withUnsafeMutableBufferPointer { p.pull(into: $0) }
      output += block
      take(&p)
      at += n
    }
    p.finish(.app)
    p.finish(.mic)
    for _ in 0..<100 {
      _ = block.withUnsafeMutableBufferPointer { p.pull(into: $0) }
      output += block
      take(&p)
    }
    let back = { Self.converted($0, from: outputRate, to: Self.rate) }
    let trace48 = trace.map { (end: $0.end * Self.rate / outputRate, gainDB: $0.gainDB) }
    return (back(stem), output, p.echoStatistics, back(appStem), trace48)
  }
}

extension EchoScene {
  /// The scene as a live capture delivers it: the app and the mic each captured by a
  /// ``SimulatedSource`` (`app` and `mic` give the formats, clocks, buffering and stamps; their
  /// content is set here to the scene's app and mic, on host time from 0 to the scene's end),
  /// each buffer appended to a ``ClockedCapturePipeline`` when it is delivered and the output
  /// pulled every 10 ms (``SceneRunner``, with `disruptions`), with `ducking` if given. The
  /// stems come back on the scene's timeline, mono (frame 0 at host time 0), beside the
  /// runner's own report. `copies` plays the scene that many times over, back to back; `heard`
  /// is what the mic captures instead of the copies of the scene's mic, as long as they (e.g.
  /// an echo on another clock). `afterPull` sees the pipeline after every pull. `outputRate`:
  /// the pipeline's; at another than 48 kHz the stems are converted back to 48 kHz
  /// (`converted(_:from:to:)`, on the same timeline).
  public func throughLiveCapture(
    _ echoCancellation: EchoCancellation?, app: SimulatedSource, mic: SimulatedSource,
    ducking: Ducking? = nil, disruptions: [Disruption] = [], copies: Int = 1,
    heard: [Float]? = nil, outputRate: Int = Self.rate,
    afterPull: (inout ClockedCapturePipeline) -> Void = { _ in }
  ) throws -> (
    micStem: [Float], appStem: [Float], statistics: EchoStatistics?, run: SceneRunner.Result
  ) {
    var c = ClockedCapturePipeline.Configuration()
    c.echoCancellation = echoCancellation
    c.ducking = ducking
    c.policy = .limit
    c.outputRate = outputRate
    var (a, m) = (app, mic)
    let copies = max(1, copies)
    a.waveform = Waveform(
      Array([[Float]](repeating: self.app, count: copies).joined()), rate: Self.rate)
    m.waveform = Waveform(
      heard ?? Array([[Float]](repeating: self.mic, count: copies).joined()), rate: Self.rate)
    let end = Double(Self.seconds * copies)
    (a.end, m.end) = (end, end)
    var runner = try SceneRunner(
      c, app: a.streamDescription(rate: a.rate), mic: m.streamDescription(rate: m.rate),
      pullFrames: outputRate / 100)
    runner.pipeline.keepStems()
    var micStem = [Float](repeating: 0, count: self.mic.count * copies * outputRate / Self.rate)
    var appStem = micStem
    // Half a second more than the scene, for what the pipeline holds back (a second with
    // ducking's look-ahead).
    let run = runner.run(
      app: a, mic: m, duration: end + (ducking == nil ? 0.5 : 1), disruptions: disruptions,
      afterPull: {
        Self.takeStems(&$0, app: &appStem, mic: &micStem)
        afterPull(&$0)
      })
    let back = { Self.converted($0, from: outputRate, to: Self.rate) }
    return (back(micStem), back(appStem), runner.pipeline.echoStatistics, run)
  }

  /// The pipeline's stems since the last call, folded to mono into `app` and `mic` at their
  /// timeline positions (those outside the arrays dropped).
  /// Returns the timeline frame after the last one taken (nil if none was).
  @discardableResult
  static func takeStems(
    _ p: inout ClockedCapturePipeline, app: inout [Float], mic: inout [Float]
  ) -> Int? {
    var end: Int?
    p.takeStems { position, a, m in
      for i in 0..<(m.count / 2) where position + i >= 0 && position + i < mic.count {
        mic[position + i] = 0.5 * (m[2 * i] + m[2 * i + 1])
        app[position + i] = 0.5 * (a[2 * i] + a[2 * i + 1])
      }
      end = max(end ?? Int.min, position + m.count / 2)
    }
    return end
  }

  /// The mean power (dBFS) of `x` from `a` to `b` seconds.
  public static func level(_ x: [Float], from a: Double, to b: Double) -> Double {
    let slice = x[index(a)..<index(b)]
    return 10 * log10(slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count))
  }
}

/// How a ducker treated the app over a scene, per 20 ms frame: the app stem's level against the
/// raw app's (dB), where the app plays alone (the talker silent, in the script's app-alone
/// spans), where the talker speaks, and at each onset after 300 ms or more of silence.
public struct DuckingMetrics: Sendable {
  /// Gains (dB) of the frames with only the app playing, sorted.
  public var appOnly: [Double]
  /// The same, without the frames within `settle` seconds after the talker was last active
  /// (the ducker's own hold and release after a voice), sorted.
  public var appOnlyAwayFromTalk: [Double]
  /// Gains (dB) of the frames where the talker speaks, sorted.
  public var talking: [Double]
  /// For each onset after ≥ 300 ms of silence: milliseconds until the gain is −6 dB or lower
  /// (`nil`: not within 400 ms).
  public var onsets: [Double?]
  /// How often the app came back up while the talker was mid-sentence: within each talk span
  /// (the script's double-talk and talk-alone spans, joined where they touch), from the
  /// talker's first active frame to the last, the times the gain rose from −6 dB or lower to
  /// above it. A ducker that lets go in the gaps between words pumps.
  public var pumps: Int
  /// Every 20 ms frame in order: the app stem's gain (dB; `nil` where the app is silent) and
  /// whether the talker speaks in it.
  public var frames: [(gainDB: Double?, talking: Bool)]
  /// The onsets of ``onsets`` that the stem cannot time: the app falls silent after the talker
  /// begins, before the stem shows the duck (a frame without the app's sound from the onset to
  /// the one the stem reads −6 dB in, or to 400 ms), so ``onsets`` counts to the app's return,
  /// whatever the duck did meanwhile. For each, from `duckingGain`: milliseconds from the
  /// onset's frame to the end of the first pull that left the gain at −6 dB or lower (up to a
  /// pull late; `nil`: not within 400 ms). Empty without a trace.
  public var hiddenOnsets: [Double?]

  /// Measures `appStem` (the app as it entered the mix, aligned with the scene), and with
  /// `duckingGain` (``EchoScene/throughPipeline(_:ducking:)``'s) ``hiddenOnsets``.
  public init(
    scene: EchoScene, appStem: [Float], duckingGain: [(end: Int, gainDB: Double)] = [],
    settle: Double = 0.9
  ) {
    let frame = EchoScene.rate / 50
    let count = scene.app.count / frame
    let talk = EchoScene.frameEnergies(scene.talker, frame: frame)
    let app = EchoScene.frameEnergies(scene.app, frame: frame)
    let stem = EchoScene.frameEnergies(appStem, frame: frame)
    let mean = talk.reduce(0, +) / Double(max(1, talk.filter { $0 > 0 }.count))
    let active = talk.map { $0 > 0.05 * mean }
    let silent = talk.map { $0 < 1e-4 * mean }
    var gains = [Double?](repeating: nil, count: count)
    for f in 0..<count {
      if app[f] > 1e-7 * Double(frame) { gains[f] = 10 * log10(max(stem[f], 1e-30) / app[f]) }
    }
    func inAppAlone(_ f: Int) -> Bool {
      let t = Double(f * frame) / Double(EchoScene.rate)
      return EchoScene.appAlone.contains { $0.contains(t) }
    }
    appOnly = (0..<count).compactMap { f in silent[f] && inAppAlone(f) ? gains[f] : nil }.sorted()
    var lastActive = Int.min / 2
    var away: [Double] = []
    let settleFrames = Int(settle * 50)
    for f in 0..<count {
      if active[f] { lastActive = f }
      if silent[f] && inAppAlone(f) && f - lastActive > settleFrames, let g = gains[f] {
        away.append(g)
      }
    }
    appOnlyAwayFromTalk = away.sorted()
    talking = (0..<count).compactMap { f in active[f] ? gains[f] : nil }.sorted()
    var onsets: [Double?] = []
    var hidden: [Double?] = []
    var quiet = 0
    for f in 0..<count {
      if active[f] && quiet >= 15 && gains[f] != nil {
        let reached = (f..<min(count, f + 20)).first { (gains[$0] ?? 0) <= -6 }
        onsets.append(reached.map { Double(($0 - f) * 20) })
        let seen = min(count, reached ?? f + 20)
        if !duckingGain.isEmpty && (f..<seen).contains(where: { gains[$0] == nil }) {
          let start = f * frame
          let point = duckingGain.first { $0.end > start && $0.gainDB <= -6 }
          hidden.append(
            point.map { Double($0.end - start) * 1000 / Double(EchoScene.rate) }
              .flatMap { $0 <= 400 ? $0 : nil })
        }
      }
      quiet = silent[f] ? quiet + 1 : 0
    }
    self.onsets = onsets
    hiddenOnsets = hidden
    frames = (0..<count).map { (gains[$0], active[$0]) }
    var pumps = 0
    for span in EchoScene.talkSpans {
      let inSpan = (0..<count).filter { span.contains(Double($0) / 50) && active[$0] }
      guard let first = inSpan.first, let last = inSpan.last else { continue }
      var down = false
      for f in first...last {
        guard let g = gains[f] else { continue }
        if g <= -6 {
          down = true
        } else if down {
          pumps += 1
          down = false
        }
      }
    }
    self.pumps = pumps
  }

  /// The value at fraction `q` of sorted `x`.
  public static func quantile(_ x: [Double], _ q: Double) -> Double {
    x.isEmpty ? .nan : x[min(x.count - 1, Int(q * Double(x.count - 1)))]
  }
}

extension EchoScene {
  /// `x` read at `ratio` samples per sample (a loudspeaker's clock `ratio` times the mic's; a
  /// file recorded on a clock 1 / `ratio` times another's), `count` samples of it (default
  /// `x.count`), through a 32-tap Blackman-windowed sinc at the nearest of 4096 phases.
  public static func resampled(_ x: [Float], by ratio: Double, count: Int? = nil) -> [Float] {
    let (half, phases) = (16, 4096)
    var table = [Double](repeating: 0, count: phases * 2 * half)
    for phase in 0..<phases {
      for k in 0..<(2 * half) {
        let t = Double(phase) / Double(phases) + Double(half - 1 - k)
        let sinc = t == 0 ? 1 : sin(Double.pi * t) / (Double.pi * t)
        let u = Double.pi * t / Double(half)
        table[phase * 2 * half + k] = sinc * (0.42 + 0.5 * cos(u) + 0.08 * cos(2 * u))
      }
    }
    var out = [Float](repeating: 0, count: count ?? x.count)
    x.withUnsafeBufferPointer { x in
      table.withUnsafeBufferPointer { table in
        for i in out.indices {
          let p = Double(i) * ratio
          let whole = Int(p.rounded(.down))
          let phase = min(phases - 1, Int(((p - Double(whole)) * Double(phases)).rounded()))
          let taps = table.baseAddress! + phase * 2 * half
          var sum = 0.0
          // Tap k weighs x[whole - half + 1 + k].
          for k in 0..<(2 * half) {
            let j = whole - half + 1 + k
            if j >= 0 && j < x.count { sum += Double(x[j]) * taps[k] }
          }
          out[i] = Float(sum)
        }
      }
    }
    return out
  }
}

extension EchoScene {
  /// `x` (at `from` Hz) converted to `to` Hz by the library's ``PolyphaseResampler``, its delay
  /// taken off: sample `i` out stands at `i / to` seconds, as sample `i` in at `i / from`.
  public static func converted(_ x: [Float], from: Int, to: Int) -> [Float] {
    guard from != to else { return x }
    var r = PolyphaseResampler(inputRate: from, outputRate: to, channelCount: 1)
    let aligned = resampleAligned(&r, x)
    let count = Int((Double(x.count) * Double(to) / Double(from)).rounded())
    return Array(aligned.prefix(count))
      + [Float](repeating: 0, count: max(0, count - aligned.count))
  }

  /// The scene as a pipeline at `rate` hears it: each of its signals to `rate` and back to
  /// 48 kHz (band-limited to `rate` / 2, on the same timeline), so that its metrics measure
  /// a canceller run at `rate` against what that band holds.
  public func bandLimited(to rate: Int) -> EchoScene {
    EchoScene(self) { Self.bandLimited($0, to: rate) }
  }

  /// `x` (48 kHz) to `rate` and back, as ``bandLimited(to:)`` does each of a scene's signals.
  public static func bandLimited(_ x: [Float], to rate: Int) -> [Float] {
    converted(converted(x, from: Self.rate, to: rate), from: rate, to: Self.rate)
  }

  init(_ other: EchoScene, _ map: ([Float]) -> [Float]) {
    (name, content, outputLatency, room) = (
      other.name, other.content, other.outputLatency, other.room
    )
    (nonlinear, headphones) = (other.nonlinear, other.headphones)
    (app, echo, talker, noise, mic) = (
      map(other.app), map(other.echo), map(other.talker), map(other.noise), map(other.mic)
    )
  }
}
