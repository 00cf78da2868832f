/// What the linear filter leaves of the echo, turned down bin by bin (see ``EchoCanceller``).
///
/// Frames are two blocks long, sqrt-Hann windowed, half overlapping. In each bin the residual
/// echo is estimated from the filter's echo estimate `Ŷ`: `η·|Ŷ|²`, η (the leakage) learnt per
/// band where the mic is the echo alone, as the running mean of the error's power above the
/// noise over the running mean of the estimate's. The gain is
/// `max(floor, 1 − γ·residual / |E|²)`, γ = 1 + ``EchoCancellation/suppression``: where the near
/// end outweighs the residual the bin passes, where the residual outweighs it the bin falls to
/// the floor (−30 dB). Where the mic is the echo alone, a second estimate counts too: a tenth of
/// the echo's whole power, from the reference's power spread along the echo path (see
/// ``EchoCanceller/pathProfile``) times the path's gain, learnt per band. It does not rest on
/// the filter, so it covers what the filter has not learnt yet (a note of music it has not
/// heard, an echo path that just changed). Where the app's power has explained the mic in all
/// but a fifth of the last 0.2 s or so, three more count: what that estimate holds beyond the
/// filter's, three times over; the error up to the filter's estimate where the two have one
/// shape (the filter is wrong there, the path having changed); and the whole error in the bins
/// where the app's power has just risen (a note's onset); not in a block that reads as a
/// talker's onset (``onsetBar``), or that has one read in the ``lookahead`` blocks after it (a
/// block's gains wait for them in ``pending``); and in the ``talkerHoldSeconds`` after one, not
/// the first of the three. Every block's residual is at least a share of the adaptive filter's
/// own uncertainty (``uncertaintyShare``). Gains rise halfway a block and fall at once
/// (``gainShares``); while a talker is heard, they rise faster and fall part of the way
/// (``talkerGains``). For the app's first 1.5 s (``startSeconds``) the gains take every block
/// as the echo alone. Comfort noise at the room's tone (``roomTone``) fills what was taken out.
struct ResidualEchoSuppressor {
  let bins: Int
  let settings: EchoCancellation
  static let bandCount = 8
  /// The comfort noise's power over ``roomTone``. On a steady noise that running minimum
  /// settles 4.1 dB under the noise's mean within 5 s and stays there (the recursion simulated
  /// on exponentially distributed powers, 2,000 bins, 60 s), and the generator's uniform values
  /// carry two thirds of their square: 3.8 would restore a noise tracked on the mic alone. On
  /// the lesser of mic and error the minimum reads lower again, where the echo is taken out:
  /// `pcm-mix mix --echo-cancel` on three echo scenes end to end (60 s, room −61.0 dBFS) left the
  /// mic stem's noise where the app plays alone at −63.0 to −63.4 dBFS with 3.8, −61.4 to
  /// −61.8 with 6, −60.9 to −61.3 with 7, steady from the first 20 s to the last; with 7 the
  /// 60 s scenes read 0.0–0.3 dB under the room on speech, 0.4–0.9 on music
  /// (`EchoCancellationTests`). (With 13 times the mic's
  /// ``noiseFloor``, which a start from silence pulls far down and which then climbs
  /// 0.4 dB a second, it read −62.1, then −57.6, then −56.3: too quiet at first, 5 dB too
  /// loud after a minute.)
  static let comfortScale: Float = 7
  /// The bands' edges (bins): band b holds bins `bandEdges[b] ..< bandEdges[b + 1]`
  /// (``edges(bins:rate:)``).
  let bandEdges: [Int]
  /// Each bin's band (``band(_:)``), looked up in the per-bin loops.
  let bandOf: [UInt8]
  /// Per band: the leakage, the error's power above the noise over the echo estimate's, and
  /// their running means (where the mic is the echo alone) it is the ratio of.
  var leakage: [Float]
  var meanE: [Double]
  var meanY: [Double]
  /// Per band, whether this block's mic has the echo estimate's shape in that band too (see
  /// ``bandsAgree(echo:mic:)``): only those bands learn their leakage.
  var bandAgrees: [Bool]
  /// How fast ``meanE`` and ``meanY`` follow each echo-alone block: about 20 blocks (0.1 s).
  static let leakageRate = 0.05
  /// Per band: the echo path's power gain from the spread reference to the mic, learnt where
  /// the mic is the echo alone; and this block's sums for it.
  var pathGain: [Float]
  /// Per band: how many blocks ``pathGain`` has been learnt in (up to 255).
  var pathGainBlocks: [UInt8]
  var bandR: [Double]
  /// The last block's coherence of mic and echo estimate (see ``shapes(echo:mic:echoPower:)``).
  var lastCoherence: Float = 0
  /// The last block's share of the mic the app's power does not explain
  /// (``unexplainedShare(mic:reference:direct:bypass:noiseScale:)``), and how often blocks have
  /// held a voice's share lately: a running mean of 0 or 1 over about 40 blocks (0.2 s). It
  /// moves only once some band's path gain is learnt: before that the share is 1 for want of a
  /// gain, not for a voice. It starts at 0.3, where neither of the gains' gates on it is open:
  /// a block the app explains opens the one under 0.3, 16 such blocks the one under 0.2.
  /// (From 1, and moved by the unlearnt share, it was still 0.55 at 1.5 s on speech 120 ms
  /// RT60 0.5 s through a clipping loudspeaker, whose path gain was first learnt at 1.3 s.)
  /// Nor while the canceller is bypassed (no echo found yet): the share is 1 there for want of
  /// an echo, and the filter, which adapts meanwhile, learns a gain soon enough for the rate to
  /// climb. On music 120 ms RT60 0.2 s with the app's piece from 1.1 s, where the delay search
  /// finds the echo at 0.77 s, it stood at 0.70 at 0.53 s; the Kalman filter's P then did not
  /// revert towards its prior (``EchoCanceller/revertVoiceRate``), and the bins the early hi-hats
  /// reach, learnt from a few hits, kept 2–5 dB more of their echo in the filter's output at
  /// 3–6 s (4–16.5 kHz, the hits' windows); ERLE before the path change 24.2 dB, 25.6 with the
  /// rate held.
  var lastShare: Float = 1
  var voiceRate: Float = 0.3
  /// Per bin: the spread reference's smoothed power, and the blocks left of its onset mark
  /// (``markOnsets(reference:)``).
  var refSmooth: [Float]
  var onsetHold: [UInt8]
  /// Blocks since the last sign of a near-end voice.
  var voiceQuiet = 0
  /// Whether this block reads as a talker's onset, before the voice rate can (see
  /// ``onsetBar``).
  var voiceOnset = false
  /// Whether the last block's error held more than the residual echo and the noise explain: a
  /// near-end voice, whether the app plays or not.
  var nearEnd = false
  /// For ducking: the detector cannot tell this block (see ``EchoCanceller/nearEndUncertain``).
  var voiceUncertain = false
  /// The error's power in the blocks ``nearEnd`` last held (smoothed): the voice's level.
  var voiceLevel: Float = 0
  /// Whether the last block was taken as the echo alone, and its error-to-estimate ratio.
  var echoAlone = false
  var misadjustment: Float = 0
  var lastEcho: Float = 0
  /// The bins the coherence is measured over (300 Hz … 8 kHz at 48 kHz).
  var lowBin: Int { 3 }
  var highBin: Int { 86 }
  /// Per band: this block's error (or mic) power above the noise, and echo estimate's power.
  var bandE: [Double]
  var bandY: [Double]
  /// The smoothed mic power and its running minimum (the noise floor).
  var smoothedMic: [Float]
  var noiseFloor: [Float]
  /// Minimum statistics for the voice detector: ``smoothedLeast``'s minimum over each of the
  /// last eight stretches of 36 blocks (about 0.2 s), and over the current one.
  var stretchMinima: [Float]
  var voiceFloor: [Float]
  var currentMinimum: [Float]
  var stretchBlocks = 0
  var stretches = 0
  var settling = 12
  /// The room's tone per bin, for the comfort noise: the running minimum of ``smoothedLeast``,
  /// rising 0.4 dB a second at most; unset (the largest float) until 12 audible blocks have
  /// settled the smoothing (from
  /// the start, and after digital silence, so a fade-in or a gap of zeros cannot pull it
  /// down). The lesser of mic and error, because the echo covers the mic most of the time
  /// where the app plays: once the filter takes it out, the error shows the room.
  var roomTone: [Float]
  /// The smoothed lesser of the mic's and the error's power per bin.
  var smoothedLeast: [Float]
  /// Audible blocks still to come before ``roomTone`` moves.
  var roomSettling = 12
  /// Blocks ``roomTone`` has moved in, up to ``roomToneWatch``: the comfort noise's power is
  /// that share of its level. A minimum needs a window to find the room in (minimum statistics
  /// looks back about 1.5 s): its first values are the mic's, the echo's level where the app
  /// plays from the start, and comfort noise at that level is hiss as loud as the echo. So it
  /// rises over the first 2 s of tracking. On speech 120 ms RT60 0.5 s through a clipping
  /// loudspeaker, full comfort noise from the first block kept ERLE at 19.9 dB in the 100 ms
  /// window at 1.5 s and converged in 1.8 s; rising over 2 s, in 1.4 s. From 3 s on (where the
  /// room's tone is checked) it changes nothing.
  var roomBlocks: Float = 0
  static let roomToneWatch: Float = 375
  /// Whether the voice detector's floor is kept (ducking asks for it; it costs a few µs).
  var tracksVoice = false
  /// The last block's gains.
  var gains: [Float]
  /// The comfort noise's generator state.
  var noiseState: UInt64 = 0x9E37_79B9_7F4A_7C15
  /// Blocks with the reference playing, and of them with the near end speaking too.
  var farBlocks = 0
  var nearBlocks = 0
  /// For the first this many blocks of the app playing (``startSeconds``), the gains take every
  /// block as the echo alone: as if the mic had the echo estimate's shape and no talker had
  /// been heard lately (all five of ``applyGains``' estimates count, at full over-subtraction,
  /// and the gains fall at once). The linear filter and the detectors are as at any time.
  let startBlocks: Int
  /// Blocks each block's gains wait for the decisions after them: a talker's onset read
  /// within them counts from that block on (``PendingGains``;
  /// ``EchoCanceller/lookaheadBlocks(rate:)``).
  var lookahead: Int { pending.depth - 1 }
  var pending: PendingGains
  /// The share of the filter's uncertainty the residual estimate holds at least
  /// (``uncertaintyShare`` unless a test sets another).
  let uncertaintyWeight: Float
  /// Whether the block the last output stands for passes as it came (no echo found when it
  /// was taken).
  var outputBypass = true

  init(
    bins: Int, rate: Int, settings: EchoCancellation, startBlocks: Int, lookahead: Int = 0,
    talkerHold: Int = 0, uncertaintyShare: Float = Self.uncertaintyShare
  ) {
    self.bins = bins
    uncertaintyWeight = uncertaintyShare
    self.settings = settings
    self.startBlocks = startBlocks
    pending = PendingGains(bins: bins, lookahead: lookahead, talkerHold: talkerHold)
    let edges = Self.edges(bins: bins, rate: rate)
    bandEdges = edges
    bandOf = (0..<Self.bandCount).flatMap { b in
      [UInt8](repeating: UInt8(b), count: edges[b + 1] - edges[b])
    }
    leakage = [Float](repeating: 0.05, count: Self.bandCount)
    pathGain = [Float](repeating: 0, count: Self.bandCount)
    pathGainBlocks = [UInt8](repeating: 0, count: Self.bandCount)
    bandR = [Double](repeating: 0, count: Self.bandCount)
    bandE = [Double](repeating: 0, count: Self.bandCount)
    bandY = [Double](repeating: 0, count: Self.bandCount)
    meanE = [Double](repeating: 0, count: Self.bandCount)
    meanY = [Double](repeating: 0, count: Self.bandCount)
    bandAgrees = [Bool](repeating: false, count: Self.bandCount)
    smoothedMic = [Float](repeating: 0, count: bins)
    noiseFloor = [Float](repeating: 1, count: bins)
    roomTone = [Float](repeating: .greatestFiniteMagnitude, count: bins)
    smoothedLeast = [Float](repeating: 0, count: bins)
    stretchMinima = [Float](repeating: .greatestFiniteMagnitude, count: 8 * bins)
    currentMinimum = [Float](repeating: .greatestFiniteMagnitude, count: bins)
    voiceFloor = [Float](repeating: 1, count: bins)
    gains = [Float](repeating: 1, count: bins)
    refSmooth = [Float](repeating: 0, count: bins)
    onsetHold = [UInt8](repeating: 0, count: bins)
  }

  var retainedBytes: Int {
    4
      * (smoothedMic.count + noiseFloor.count + roomTone.count + smoothedLeast.count
        + gains.count + stretchMinima.count
        + currentMinimum.count + voiceFloor.count + pathGain.count + leakage.count
        + refSmooth.count)
      + 8 * (meanE.count + meanY.count + bandE.count + bandY.count + bandR.count + bandEdges.count)
      + bandOf.count
      + pathGainBlocks.count + onsetHold.count + bandAgrees.count + pending.retainedBytes
  }

  /// The band of bin `k` (``edges(bins:rate:)``).
  func band(_ k: Int) -> Int { Int(bandOf[k]) }

  /// The bands' edges among `bins` bins of a spectrum at `rate` (`bins − 1` bins to Nyquist):
  /// band 0 up to 375 Hz, then each band an octave (375–750 Hz, …, 12–24 kHz), the last from
  /// 24 kHz up, each edge at the bin nearest its frequency and none past the last bin. At 48
  /// kHz (bins of 93.75 Hz) that is bins 0–3, 4–7, 8–15, …, 128–255 and 256; at 16 kHz (bins
  /// of 62.5 Hz) 0–5, 6–11, …, 96–128, and the top two bands empty. The bands held bins
  /// 0–3, 4–7, … at every rate before: at 16 kHz, with blocks of 128 frames, that put the
  /// bands' edges a third lower (250 Hz, 500, …), and music 120 ms late read 23.6–27.9 dB of
  /// ERLE before the path change, 26.4–31.6 with the bands in hertz (the guide's echo section).
  static func edges(bins: Int, rate: Int) -> [Int] {
    let width = Double(rate) / Double(2 * (bins - 1))
    return (0...bandCount).map { b in
      guard b > 0 else { return 0 }
      guard b < bandCount else { return bins }
      return min(bins, Int((375 * Double(1 << (b - 1)) / width).rounded()))
    }
  }

  /// A uniform number in −1 … 1 (SplitMix64), advancing `state`.
  static func random(_ state: inout UInt64) -> Float {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    return Float(Int64(bitPattern: z) >> 11) * 0x1p-52
  }

  /// One block: the frames of echo estimate and mic (this block and the one before, the echo's
  /// kept in `echoPrev`, updated here) and the error's spectrum as the mic's less the
  /// estimate's (the error is mic − echo, and the FFT is linear: one FFT fewer), then the
  /// gains of the frame ``lookahead`` blocks older, and the output block (the one that frame
  /// begins with, overlap-added with `tail`). `reference`: the
  /// reference's power per bin as the echo path spreads it
  /// (``EchoCanceller/spreadReference(into:)``); `direct`: its power at the direct path
  /// (``EchoCanceller/directReference(into:)``), read only by the ducking detector.
  /// `farActive`: the app plays in this block; `echoDue`: or its echo may still be arriving
  /// (``EchoCanceller/echoDueBlocks``), where the gains' estimates of what the filter has not
  /// learnt still count.
  mutating func process(
    reference: UnsafePointer<Float>, direct: UnsafePointer<Float>, echo: UnsafePointer<Float>,
    echoPrev: inout [Float], mic: UnsafePointer<Float>, micPrev: UnsafePointer<Float>,
    window: [Float], uncertainty: UnsafePointer<Float>,
    fft: RealFFT, scratch slot: (Int) -> UnsafeMutablePointer<Float>, farActive: Bool,
    echoDue: Bool, tail: inout [Float], output: UnsafeMutablePointer<Float>, bypass: Bool,
    statistics: inout EchoStatistics
  ) {
    let n = bins
    let h = n - 1
    let time = slot(0)
    // Spectra of the frames of echo estimate (3, 4) and mic (5, 6), and the error's (1, 2).
    func frame(_ prev: UnsafePointer<Float>, _ now: UnsafePointer<Float>, _ re: Int, _ im: Int) {
      for i in 0..<h {
        time[i] = prev[i] * window[i]
        time[h + i] = now[i] * window[h + i]
      }
      fft.forward(time, re: slot(re), im: slot(im))
    }
    echoPrev.withUnsafeBufferPointer { frame($0.baseAddress!, echo, 3, 4) }
    frame(micPrev, mic, 5, 6)
    let (er, ei, yr, yi, mr, mi) = (slot(1), slot(2), slot(3), slot(4), slot(5), slot(6))
    for k in 0..<n {
      er[k] = mr[k] - yr[k]
      ei[k] = mi[k] - yi[k]
    }
    let se = slot(7)
    let sy = slot(8)
    trackPowers(
      error: (er, ei), echo: (yr, yi), mic: (mr, mi), errorPower: se, echoPower: sy)
    // Before the detector, which reads this block's marks (the gains read them too).
    markOnsets(reference: reference)
    let residual = slot(10)
    let (near, noiseSum, voice) = estimateResidual(errorPower: se, echoPower: sy, into: residual)
    if farActive {
      learnLeakage(
        near: near, noise: noiseSum, voiceTest: voice, echo: (yr, yi), mic: (mr, mi),
        errorPower: se, echoPower: sy, reference: (reference, direct), bypass: bypass,
        statistics: &statistics)
    } else {
      // No app: nothing the detector cannot tell from a voice.
      voiceUncertain = false
      voiceOnset = false
      if nearEnd {
        // In the app's pauses its echo still rings in the mic (the output latency, the room's
        // tail): the same shape test, for the ducker.
        nearEnd = readsVoice(
          mic: (mr, mi), shape: shapes(echo: (yr, yi), mic: (mr, mi), echoPower: sy),
          noise: noiseSum, reference: reference, direct: direct, bypass: bypass)
      }
    }
    // The block waits for the decisions after it (``lookahead``); the oldest one waiting
    // gets its gains.
    pend(
      error: (er, ei), errorPower: se, echoPower: sy, residual: residual,
      uncertainty: uncertainty, reference: reference, echoDue: echoDue, bypass: bypass)
    let (ready, decisions) = pending.oldest()
    outputBypass = decisions.bypass
    withPending(ready) { s, field in
      let error = (field(.errorRe), field(.errorIm))
      s.pending.holds.withUnsafeBufferPointer { holds in
        s.applyGains(
          to: error, errorPower: field(.errorPower), echoPower: field(.echoPower),
          residual: field(.residual), path: field(.path), comfortLevel: field(.comfort),
          hold: holds.baseAddress! + ready * n, decisions, fft: fft)
      }
      fft.inverse(re: error.0, im: error.1, output: time)
    }
    for i in 0..<h {
      output[i] = tail[i] + time[i] * window[i]
      tail[i] = time[h + i] * window[h + i]
    }
    echoPrev.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: echo, count: h) }
  }

  /// Each bin's error and echo-estimate power (into `errorPower`, `echoPower`), the smoothed
  /// mic power, the noise floor, and for the voice detector the minimum-statistics floor.
  mutating func trackPowers(
    error: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    echo: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    errorPower se: UnsafeMutablePointer<Float>, echoPower sy: UnsafeMutablePointer<Float>
  ) {
    let n = bins
    let (er, ei) = error
    let (yr, yi) = echo
    let (mr, mi) = mic
    // Digital silence (a source not started, a gap filled with zeros) says nothing of the
    // room's noise: the floor is not pulled down by it.
    var micPower: Float = 0
    for k in 0..<n { micPower += mr[k] * mr[k] + mi[k] * mi[k] }
    let audible = micPower > 1e-12
    // The first 12 audible blocks (64 ms) only settle the smoothing: from zeros, or from a
    // frame half silent, it would read as a quiet room.
    if audible && settling > 0 { settling -= 1 }
    smoothedMic.withUnsafeMutableBufferPointer { smooth in
      noiseFloor.withUnsafeMutableBufferPointer { noise in
        for k in 0..<n {
          se[k] = er[k] * er[k] + ei[k] * ei[k]
          sy[k] = yr[k] * yr[k] + yi[k] * yi[k]
          let sm = mr[k] * mr[k] + mi[k] * mi[k]
          smooth[k] = 0.8 * smooth[k] + 0.2 * sm
          // The noise floor: the smoothed power's running minimum, rising 0.4 dB a second at
          // most (the detectors' thresholds read it; the comfort noise reads ``roomTone``).
          noise[k] = min(noise[k] * 1.0005, max(smooth[k], 1e-10))
        }
      }
    }
    trackRoomTone(errorPower: se, mic: mic, audible: audible)
    // For the voice detector, minimum statistics: the least of ``smoothedLeast`` over the last
    // 1.5 to 1.7 s, so a start from silence or a louder room is caught up with. Of the lesser
    // of mic and error, not of the mic: where the app plays on, its echo fills the mic's
    // minimum (speech through RT60 0.5 s), and the floor stood so high that a talker 6 dB under
    // the echo, after a pause of its own, failed the energy test for 0.2 s at the level of
    // its words (`quiet-talker` on the ducking bench: the duck let go mid-sentence on 10 of 36
    // rows, 0 now; 8 rows of speech 30 ms from 2.15 s, the same under a sentence's last
    // fragment, 0 now). The residual echo the filter leaves is the energy test's other term.
    if tracksVoice && audible && settling == 0 {
      for k in 0..<n {
        currentMinimum[k] = min(currentMinimum[k], max(smoothedLeast[k], 1e-10))
        var floor = currentMinimum[k]
        for j in 0..<8 { floor = min(floor, stretchMinima[j * n + k]) }
        voiceFloor[k] = floor
      }
    }
    if tracksVoice && audible && settling == 0 {
      stretchBlocks += 1
      if stretchBlocks == 36 {
        let at = (stretches % 8) * n
        for k in 0..<n { stretchMinima[at + k] = currentMinimum[k] }
        currentMinimum.withUnsafeMutableBufferPointer {
          $0.update(repeating: .greatestFiniteMagnitude)
        }
        stretches += 1
        stretchBlocks = 0
      }
    }
  }

  /// ``smoothedLeast`` and ``roomTone`` for this block.
  mutating func trackRoomTone(
    errorPower se: UnsafeMutablePointer<Float>,
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>), audible: Bool
  ) {
    let (mr, mi) = mic
    roomSettling = audible ? max(0, roomSettling - 1) : 12
    let moves = roomSettling == 0
    if moves && roomBlocks < Self.roomToneWatch { roomBlocks += 1 }
    smoothedLeast.withUnsafeMutableBufferPointer { least in
      roomTone.withUnsafeMutableBufferPointer { tone in
        for k in 0..<bins {
          least[k] = 0.8 * least[k] + 0.2 * min(mr[k] * mr[k] + mi[k] * mi[k], se[k])
          guard moves else { continue }
          tone[k] = min(tone[k] * 1.0005, max(least[k], 1e-10))
        }
      }
    }
  }

  /// The residual echo each bin may hold (into `residual`): the bands' leakage of the echo
  /// estimate. Sets ``nearEnd`` (the ducking detector's test) and returns whether the error
  /// outweighs residual and noise (the near end's presence), the noise floor's sum, and the
  /// detector's energy test: the error's energy and its threshold (for ``voiceUncertain``).
  mutating func estimateResidual(
    errorPower se: UnsafeMutablePointer<Float>, echoPower sy: UnsafeMutablePointer<Float>,
    into residual: UnsafeMutablePointer<Float>
  ) -> (near: Bool, noise: Float, voice: (energy: Float, threshold: Float)) {
    let n = bins
    // The residual estimate and the near end's presence.
    var seSum: Float = 0
    var residualSum: Float = 0
    var noiseSum: Float = 0
    let (leakage, noiseFloor, bandOf) = (leakage, noiseFloor, bandOf)
    for k in 0..<n {
      residual[k] = leakage[Int(bandOf[k])] * sy[k]
      seSum += se[k]
      residualSum += residual[k]
      noiseSum += noiseFloor[k]
    }
    let near = seSum > 4 * residualSum + 6 * noiseSum
    // For ducking, a stricter test on its own floor: that is a minimum of the lesser of mic and
    // error (about 10 dB under the room noise's mean once the filter takes the echo out), so a
    // voice must stand 15 dB above it, and above four times the residual echo.
    var voiceNoise: Float = 0
    if tracksVoice { for k in 0..<n { voiceNoise += voiceFloor[k] } }
    let threshold = 4 * residualSum + 30 * voiceNoise
    nearEnd = tracksVoice && seSum > threshold
    return (near, noiseSum, (seSum, threshold))
  }

  /// While the app plays: the double-talk share, the coherence of mic and echo estimate, the
  /// voice test, ``nearEnd``'s shape test, and where the mic is the echo alone, the bands'
  /// leakage learnt.
  mutating func learnLeakage(
    near: Bool, noise noiseSum: Float, voiceTest: (energy: Float, threshold: Float),
    echo: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    errorPower se: UnsafeMutablePointer<Float>, echoPower sy: UnsafeMutablePointer<Float>,
    reference references: (spread: UnsafePointer<Float>, direct: UnsafePointer<Float>),
    bypass: Bool, statistics: inout EchoStatistics
  ) {
    let reference = references.spread
    let n = bins
    farBlocks += 1
    // Learn the leakages where the mic is the echo alone: the mic and the echo estimate
    // agree in shape (their spectra's normalized inner product, 300 Hz … 8 kHz, is high), which
    // holds after an echo path change too, when the residual is large, but not under a voice.
    let (coherence, micSum, echoSum) = shapes(echo: echo, mic: mic, echoPower: sy)
    lastCoherence = coherence
    // Echo alone: the estimate has the mic's shape, and the filter takes 5 dB or more out.
    var errorSum: Float = 0
    for k in lowBin..<min(n, highBin) { errorSum += se[k] }
    // A voice shows as the mic outweighing the estimate or their shapes parting; none for the
    // last 200 ms (the gaps between words count as the voice's).
    let voice = (coherence < 0.6 || micSum > 2 * echoSum) && micSum > echoSum + 16 * noiseSum
    voiceQuiet = voice ? 0 : voiceQuiet + 1
    lastShare = unexplainedShare(
      mic: mic, reference: reference, bypass: bypass, noiseScale: Self.voiceRateNoise)
    voiceOnset =
      voice && unexplainedBands() >= Self.onsetBar.bands
      && freshShare(mic: mic, of: micSum, bypass: bypass) <= Self.onsetBar.fresh
    // Double talk, for the statistics: the error outweighs the residual estimate and the noise,
    // and the app's power through the learnt path leaves a quarter of the mic unexplained. The
    // first test alone also counts what the filter has not yet learnt (a new note, the room's
    // tail): on the speech, music and clipping scenes (30 and 120 ms) it read 0.36–0.45 where
    // the talker spoke in 0.27 of the app's blocks; both tests together read 0.22–0.26.
    if near && lastShare > Self.voiceShare { nearBlocks += 1 }
    statistics.doubleTalkFraction = Double(nearBlocks) / Double(farBlocks)
    // A loop, not `contains(where:)`: unspecialized in a Debug build, that walks the array
    // through an iterator whose element reads allocate.
    var learnt = false
    for b in 0..<Self.bandCount where pathGainBlocks[b] >= Self.learntBlocks {
      learnt = true
      break
    }
    if !bypass && learnt {
      voiceRate += 0.025 * ((lastShare > Self.voiceShare ? 1 : 0) - voiceRate)
    }
    if nearEnd {
      nearEnd = readsVoice(
        mic: mic, shape: (coherence, micSum, echoSum), noise: noiseSum, reference: reference,
        direct: references.direct, bypass: bypass)
    }
    if tracksVoice {
      if nearEnd { voiceLevel += 0.1 * (voiceTest.energy - voiceLevel) }
      voiceUncertain =
        !nearEnd
        && (voiceTest.energy > voiceTest.threshold
          || voiceTest.threshold > Self.hiddenVoice * voiceLevel)
    }
    // Shapes that agree well after 200 ms without a voice; less well (an echo path that
    // changed, a loudspeaker that distorts) after 500 ms.
    let threshold: Float = voiceQuiet > 94 ? 0.75 : voiceQuiet > 37 ? 0.9 : 2
    echoAlone = coherence > threshold && echoSum > 4 * noiseSum && errorSum < 0.3 * micSum
    misadjustment = errorSum / max(echoSum, 1e-30)
    lastEcho = echoSum
    // The path's gain, where the mic has the echo estimate's shape almost exactly (no voice;
    // the filter need not have taken anything out yet).
    if coherence > 0.97 && echoSum > 4 * noiseSum {
      learnPathGain(mic: mic, reference: reference)
    }
    if echoAlone {
      noiseFloor.withUnsafeBufferPointer { noise in
        Self.bandSums(edges: bandEdges, into: &bandE, &bandY) {
          (Double(max(0, se[$0] - noise[$0])), Double(sy[$0]))
        }
      }
      bandsAgree(echo: echo, mic: mic)
      // A ratio of running means, not a running mean of each block's ratio: the blocks
      // where the echo is loud, which the gains must get right, weigh the most; a quiet
      // block's ratio (the error there mostly the room's tail and noise) was often 10 times
      // the loud blocks', and held the talker down in double talk.
      let rate = Self.leakageRate
      for b in 0..<Self.bandCount where bandAgrees[b] {
        meanE[b] += rate * (bandE[b] - meanE[b])
        meanY[b] += rate * (bandY[b] - meanY[b])
        if meanY[b] > 1e-12 { leakage[b] = Float(min(1, max(0.0005, meanE[b] / meanY[b]))) }
      }
    }
  }

  /// Sets ``bandAgrees``: per band, the mic and the echo estimate agree in shape (their
  /// normalized inner product over the band's bins is over 0.9), or the estimate lies under
  /// four times the band's noise floor (no shape to compare; such a band learns as before).
  /// The estimate's power per band is ``bandY``, summed for this block before.
  ///
  /// The block-wide test of ``echoAlone`` looks at 300 Hz … 8 kHz only. A talker's first
  /// syllables put most of their power under 375 Hz (the voice's fundamental and first
  /// harmonics), where that test does not look: on music 30 ms RT60 0.2 s, at the talker's
  /// onset (14.0 s), band 0's agreement fell to 0.03–0.7 in 20 of 30 blocks while the block-wide
  /// one stayed at 0.93–1.0. Learnt there, band 0's leakage rose from 0.004 to 0.54 in 150 ms
  /// and stayed through the double talk: the gains then held the talker's low band down under
  /// the music's bass, and the voice detector's energy threshold rose about threefold.
  mutating func bandsAgree(
    echo: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)
  ) {
    let (yr, yi) = echo
    let (mr, mi) = mic
    let (bandY, edges) = (bandY, bandEdges)
    noiseFloor.withUnsafeBufferPointer { noise in
      bandAgrees.withUnsafeMutableBufferPointer { agrees in
        // Each band summed in local variables.
        for b in 0..<Self.bandCount {
          let range = edges[b]..<edges[b + 1]
          guard !range.isEmpty else { continue }
          var (cr, ci, pm, pn): (Float, Float, Float, Float) = (0, 0, 0, 0)
          for k in range {
            cr += mr[k] * yr[k] + mi[k] * yi[k]
            ci += mi[k] * yr[k] - mr[k] * yi[k]
            pm += mr[k] * mr[k] + mi[k] * mi[k]
            pn += noise[k]
          }
          let py = Float(bandY[b])
          agrees[b] =
            py < 4 * pn || (cr * cr + ci * ci) / max(pm * py, 1e-30) > Self.bandAgreement
        }
      }
    }
  }

  /// The least agreement in shape, per band, for the band to learn its leakage (see
  /// ``bandsAgree(echo:mic:)``). Measured on the echo scenes' double talk (SI-SDR of
  /// the talker): 0.8 and 0.9 gave the same gains within 0.1 dB; 0.97 made speech 120 ms
  /// RT60 0.5 s with clipping converge in 1.8 s instead of 1.4 s.
  static let bandAgreement: Float = 0.9

  /// The bands' ``pathGain``: the mic's power above the noise over the spread reference's.
  mutating func learnPathGain(
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    reference: UnsafePointer<Float>
  ) {
    sumBands(mic: mic, reference: reference)
    for b in 0..<Self.bandCount where bandR[b] > 1e-12 {
      Self.follow(&pathGain[b], Float(min(1e3, bandE[b] / bandR[b])))
      if pathGainBlocks[b] < 255 { pathGainBlocks[b] += 1 }
    }
  }

  /// Per band, the mic's power above the noise floor into `bandE`, the spread reference's into
  /// `bandR` (or the direct path's, where given and over twice it: see
  /// ``unexplainedShare(mic:reference:direct:bypass:noiseScale:)``).
  mutating func sumBands(
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    reference: UnsafePointer<Float>, direct: UnsafePointer<Float>? = nil, noiseScale: Float = 1
  ) {
    let (mr, mi) = mic
    noiseFloor.withUnsafeBufferPointer { noise in
      Self.bandSums(edges: bandEdges, into: &bandE, &bandR) {
        let above = mr[$0] * mr[$0] + mi[$0] * mi[$0] - noiseScale * noise[$0]
        return (Double(max(0, above)), Double(reference[$0]))
      }
    }
    if let direct {
      for k in 0..<bins where direct[k] > 2 * reference[k] {
        bandR[band(k)] += Double(direct[k] - reference[k])
      }
    }
  }

  /// Each band's sums of the two terms `term(k)` gives for its bins
  /// (`edges`: ``bandEdges``), into `x` and `y` (bands without bins: 0), each band summed in
  /// local variables, bin after bin.
  static func bandSums(
    edges: [Int], into x: inout [Double], _ y: inout [Double], _ term: (Int) -> (Double, Double)
  ) {
    for b in 0..<x.count {
      var (sx, sy) = (0.0, 0.0)
      for k in edges[b]..<edges[b + 1] {
        let (tx, ty) = term(k)
        sx += tx
        sy += ty
      }
      x[b] = sx
      y[b] = sy
    }
  }

  /// Moves a learnt per-band ratio towards this block's: up slower than down (one frame's ratio
  /// is noisy, and the gains must cover the peaks).
  static func follow(_ value: inout Float, _ ratio: Float) {
    value += (ratio > value ? 0.1 : 0.2) * (ratio - value)
  }

  /// The mic's and the echo estimate's spectra compared over 300 Hz … 8 kHz: their normalized
  /// inner product (1: the same shape), and each one's power.
  func shapes(
    echo: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    echoPower sy: UnsafeMutablePointer<Float>
  ) -> (coherence: Float, mic: Float, echo: Float) {
    let (yr, yi) = echo
    let (mr, mi) = mic
    var cross = (re: Float(0), im: Float(0))
    var micSum: Float = 0
    var echoSum: Float = 0
    for k in lowBin..<min(bins, highBin) {
      cross.re += mr[k] * yr[k] + mi[k] * yi[k]
      cross.im += mi[k] * yr[k] - mr[k] * yi[k]
      micSum += mr[k] * mr[k] + mi[k] * mi[k]
      echoSum += sy[k]
    }
    let coherence = (cross.re * cross.re + cross.im * cross.im) / max(micSum * echoSum, 1e-30)
    return (coherence, micSum, echoSum)
  }

  /// The least share of the mic's power that
  /// ``unexplainedShare(mic:reference:direct:bypass:noiseScale:)`` must leave for a voice.
  static let voiceShare: Float = 0.25
  /// ``voiceUncertain`` holds where the energy test's threshold is over this share of
  /// ``voiceLevel``: a voice at half the level it was last read at would not pass.
  static let hiddenVoice: Float = 0.5
  /// How far a bin's gain moves in a block towards this block's: the share `rise` of the way up
  /// to a higher one, `fall` of the way down to a lower one (1: at once). Where no talker is
  /// heard: halfway up, at once down (an echo's onset is taken out in the block it comes).
  static let gainShares: (rise: Float, fall: Float) = (0.5, 1)
  /// The shares of ``gainShares`` while a talker is heard (``voiceRate`` over `voiceRate`). A
  /// talker's syllables and the residual estimate's peaks from block to block then take the gain
  /// down by less than a step each, and it comes back sooner after. On the echo bench's 64
  /// loudspeaker scenes, falling 0.4 of the way (rising halfway) raised the talker's SI-SDR in
  /// double talk on 58 (−0.06 to +1.21 dB; music 30 ms 14.75–15.05 → 15.04–15.40), and ERLE where
  /// the app plays alone moved −0.23 to +0.09 dB, the voice rate being low there; rising 0.7 of the
  /// way then added −0.05 to +0.81 (music 30 ms 15.12–15.53; ERLE −0.35 to +0.06). Falling 0.5 of
  /// the way at all times let a clipping loudspeaker's onsets through after the path change (speech
  /// 120 ms RT60 0.5 s reconverged in 1.5 s instead of 0.2); rising at once while talking did the
  /// same on a shifted scene (1.6 s instead of 0.2).
  static let talkerGains: (rise: Float, fall: Float, voiceRate: Float) = (0.7, 0.4, 0.3)
  /// A talker's onset, read in the block it comes (``voiceOnset``): the voice test fires (the
  /// mic outweighs the echo estimate or parts from its shape) and in at least `bands` octave
  /// bands, each holding over `weight` of the mic's power, the mic is over `excess` times what
  /// the app's power explains through the path's learnt gain (twice the unexplained share's
  /// margin). In such a block the gains leave out the estimates for where the app explains the
  /// mic (notes the filter has not learnt, its misadjustment, a note's onset) and move as while
  /// a talker is heard (``talkerGains``). The voice rate takes 60–180 ms to open over a talker
  /// who starts with the app (a running mean over about 40 blocks), and in that time those
  /// estimates took the first syllable for a note the filter had not learnt: on music 120 ms
  /// RT60 0.5 s with the app's piece from 2.15 s, where each span of double talk begins with a
  /// new chord, the talker's first 150 ms came out at 0.34 of their level (0.11–0.63 in 50 ms
  /// windows; `scripts/echo_headroom.py` reads such spans half a second at a time), now 0.67.
  /// On the echo bench's 64 loudspeaker scenes
  /// (`pcm-mix-bench --filter echo/ours`) double talk rose by 0.00 to +0.80 dB SI-SDR and fell
  /// on none (music 120 ms +0.42 to +0.48, speech 120 ms RT60 0.5 s 18.95 → 19.50, the shifted
  /// music 120 ms scenes from 2.15 s 13.12–13.82 → 13.64–14.62); ERLE moved −0.14 to +0.01
  /// dB, PESQ-WB −0.01 (−0.02 against the talker with the room's noise), convergence not at
  /// all; shifted scenes missing a target 8 → 5. The noisy room's records moved by 0.01 dB at
  /// most, the ducking bench's not at all. With the mic over 2.25 times the app's explaining
  /// power (1.5 × the margin) double talk rose up to +0.90 dB but ERLE before the path change
  /// fell up to 1.0 dB; over 4.5 times, up to +0.58 with ERLE unmoved. Leaving out only the
  /// estimate for notes the filter has not learnt, on the block's unexplained share alone
  /// (over 0.25 while the voice test fires), took that scene's double talk from 13.32 to 14.59
  /// dB but its ERLE before the path change to 24.9; on the ducking detector's verdict, to
  /// 13.80 (the 64 scenes +0.00 to +0.69, ERLE down to −0.48).
  ///
  /// `fresh`: no onset while over that share of the mic (300 Hz … 8 kHz) lies in bins where the
  /// app has just begun a sound (``freshShare(mic:of:bypass:)``): nothing of the mic is outside
  /// the new sound, so it is a note the filter has not learnt, not a voice. At 16 and 32 kHz
  /// (8 ms blocks, 62.5 Hz bins) a new note on music 120 ms RT60 0.2 s (4.41 s) left three bands
  /// unexplained and read as an onset; the 160 ms hold then let the note's echo through: ERLE
  /// before the path change 26.4 dB at 16 kHz and 24.5 at 32 (a perfect canceller 32.9 and
  /// 29.9), now 32.2 and 29.9 (`PCMMIX_RATE=32000 pcm-mix-bench --filter echo/16-khz` in a
  /// scratch run), double talk there unmoved. At 48 kHz no record of
  /// `pcm-mix-bench --filter echo/ours` moved. At 0.9 (the ducking detector's `fresh` bar,
  /// ``voiceBars``) or 0.7 a 48 kHz talker who starts on a new chord lost the onset: double
  /// talk −0.23 to −1.08 dB on the twelve music 120 ms scenes shifted by 2.15 s and held out at
  /// 0.55 and 3.75 s, and the held-out ones at 0.55 s all under 15 dB. At 32 kHz 0.95, 0.97,
  /// 0.99, 0.995 and 0.999 took the same ERLE.
  static let onsetBar: (bands: Int, excess: Double, weight: Double, fresh: Float) = (
    3, 3, 0.05, 0.999
  )
  /// For the suppressor's voice rate (``voiceRate``), the share of the mic the app's power
  /// does not explain counts the mic's power above this many times its noise floor. The floor
  /// is a minimum of the smoothed power, well under the noise's mean. At 1, in a room 15 dB
  /// noisier than the scenes' (white noise at −45 dBFS, `pcm-mix-bench`'s noisy-room table),
  /// the noise left over kept the rate over 0.2 in 49 % of the first 6 s of music 30 ms RT60
  /// 0.2 s, where only the app plays (21 % on a quiet-room music scene); the gains then left
  /// out the estimate of notes the filter has not learnt, each new note left 4–6 dB more echo
  /// than the noise allows, and music took 2.3–4.5 s to come within 3 dB of a perfect
  /// canceller. At 2.5 and 3 the slowest took 2.4 s; at 4, 5, 6 and 8, 1.0 s (music
  /// 0.5–0.7 s). The quiet room's records moved by 0.4 dB at most (speech RT60 0.5 s double
  /// talk −0.3 and −0.4 dB SI-SDR, still 18.2 and 19.4; music's lowest unchanged at 15.3),
  /// and the ducking bench's not at all (its detector takes the floor off once). 6: the
  /// middle of those.
  static let voiceRateNoise: Float = 6
  /// How long the gains take every block as the echo alone (``startBlocks``): seconds of the
  /// app playing. In its first seconds the filter has not yet heard much of the app, and what
  /// it has not learnt (a fricative, a word's reverberant tail, a note) leaves more echo than
  /// the residual estimates hold; the voice rate then reads some of it as a talker, which turns
  /// the estimates that would cover it off. WebRTC's AEC3 starts the same way, for 2.5 s of
  /// the far end playing (`initial_state_seconds`). On the echo bench's 64 loudspeaker scenes
  /// (the matrix and its three shifted tables) 1.5 s brought the time to 20 dB from 0.6–2.2 s
  /// (7 scenes over 1.5 s) to 0.5–1.0 s, and changed no other record: the filter and the
  /// detectors run as before. 2 and 2.5 s did the same; 1 s left 5 scenes at 2.1–2.2 s. It
  /// costs a talker who speaks over the app that early: on speech 30 ms RT60 0.2 s with the
  /// talker's first sentence moved to 0.6 s (`EchoCancellationTests`; `pcm-mix mix --echo-cancel
  /// --stems` reads the same), the talker's SI-SDR in the output read 5.1 dB over 0.6–1.5 s
  /// (11.0 without) and 10.5 over 1.5–2.5 s (18.5 without), and the same as without from 2.5 s
  /// on.
  static let startSeconds = 1.5
  /// How long after a block read as a talker's onset (``onsetBar``) the gains leave out the
  /// estimate for notes the filter has not learnt and move as while a talker is heard
  /// (``talkerGains``; ``PendingGains``, ``EchoCanceller/talkerHoldBlocks(rate:)``): about a
  /// syllable. The bar reads a syllable's start, where its power spreads over three bands; the
  /// voice rate may then not open at all under a chord the filter has learnt: on music 120 ms
  /// RT60 0.5 s with the app's piece from 2.15 s, the bar fired over 13.96–14.005 s, the rate
  /// stayed at 0.05–0.14, and over 14.01–14.20 s that estimate (the path's prediction less the
  /// filter's estimate: a small difference of two large powers) held the 750–1500 Hz band at
  /// its floor, the talker's 25 ms windows at 0.29–0.41 of their level. The estimates for the
  /// filter's misadjustment and a note's onset still count: they cover an echo path that
  /// changed and a new chord where the app plays alone, which a false read must not let
  /// through. Against none (`pcm-mix-bench --filter echo/ours`): on the 16 matrix scenes double
  /// talk +0.00 to +0.12 dB SI-SDR, ERLE −0.16 to 0.00 dB; on the three shifts the canceller
  /// was tuned on (48 scenes) double talk −0.01 to +1.55, scenes missing a target 4 → 1 (music
  /// 120 ms RT60 0.5 s clip from 2.15 s: 13.83 → 14.99 dB); on the four it was not (64 scenes)
  /// double talk −0.07 to +1.63, ERLE −0.40 to 0.00, missing 23 → 22 (two mended, and speech 30
  /// ms RT60 0.5 s clip from 1.1 s reconverging in 2.1 s instead of 0.6: an onset read 0.77 s
  /// after the path change, with the mic in the estimate's shape through the hold, as under
  /// the chord at 14 s).
  /// Leaving all three estimates out for the hold mended all 4 on the tuned shifts but cost
  /// ERLE up to 1.54 dB on the others (four music 120 ms scenes from 1.1 s under 25 dB: 23
  /// missing); the unlearnt estimate alone, with the gains moving as before, left 1 and 23. 20
  /// blocks (0.11 s) left 3 and 22; 45 (0.24 s), 1 and 23. Holding on only while the voice
  /// test still fires, or while one or two bands stay over the bar's excess, left 3 of the 4.
  static let talkerHoldSeconds = 0.16
  /// A band's ``pathGain`` counts once it has been learnt in this many blocks.
  static let learntBlocks: UInt8 = 10

  /// For the ducking detector: the share of the mic's power above the noise that the app's own
  /// power, through the path's learnt gain per band (``pathGain``) with 1.8 dB to spare, does
  /// not explain. Near 0 where the mic holds only the app's echo, however far the filter has
  /// got (not yet converged, or the path just changed: a voice read there would duck the app
  /// under its own echo); large under a voice, which the app's power cannot account for. Bands
  /// whose gain has not been learnt for 10 blocks are left out, unless the app does not reach
  /// them; 1 if none is left, or while no echo is found (`bypass`).
  ///
  /// With `direct` (the reference's power at the direct path,
  /// ``EchoCanceller/directReference(into:)``; the detector's test), bins where it is more than
  /// twice the spread reference take it instead: a note that has just begun reaches the mic
  /// whole, while the spread reference, which weighs the direct path at a fifth, has caught up
  /// with a quarter of it. Without it such an onset read 6–9 dB over its band's learnt gain
  /// and ducked the app under its own music (music 120 ms RT60 0.5 s, 5.49 s). Not for the
  /// suppressor's voice rate: there it cost speech double talk 1 dB.
  ///
  /// `noiseScale`: how many times the noise floor is taken off the mic's power per bin
  /// (``voiceRateNoise`` for the suppressor's voice rate).
  mutating func unexplainedShare(
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    reference: UnsafePointer<Float>, direct: UnsafePointer<Float>? = nil, bypass: Bool,
    noiseScale: Float = 1
  ) -> Float {
    guard !bypass else { return 1 }
    sumBands(mic: mic, reference: reference, direct: direct, noiseScale: noiseScale)
    var total = 0.0
    var left = 0.0
    for b in 0..<Self.bandCount where sharesBand(b) {
      total += bandE[b]
      left += max(0, bandE[b] - 1.5 * Double(pathGain[b]) * bandR[b])
    }
    return total > 0 ? Float(left / total) : 1
  }

  /// Whether band `b` counts in the unexplained share: its path gain is learnt, or the app
  /// plays nothing there.
  func sharesBand(_ b: Int) -> Bool {
    pathGainBlocks[b] >= Self.learntBlocks || bandR[b] < 1e-9 * (bandE[b] + 1e-30)
  }

  /// The bands that the last
  /// ``unexplainedShare(mic:reference:direct:bypass:noiseScale:)`` found the mic in far beyond
  /// what the app's power explains (see ``onsetBar``).
  func unexplainedBands() -> Int {
    var total = 0.0
    for b in 0..<Self.bandCount where sharesBand(b) { total += bandE[b] }
    let bar = Self.onsetBar
    var count = 0
    for b in 0..<Self.bandCount
    where pathGainBlocks[b] >= Self.learntBlocks && bandE[b] > bar.weight * total
      && bandE[b] > bar.excess * Double(pathGain[b]) * bandR[b]
    {
      count += 1
    }
    return count
  }

  /// For ducking, whether the mic (already over the energy test) holds a voice: it stands
  /// above the noise, parts from the echo estimate by shape, not merely by weight (`shape`,
  /// ``shapes(echo:mic:echoPower:)``: an echo that the filter underestimates, music or a long
  /// path, outweighs its estimate in the app's shape and must not read as a voice), and the
  /// app's power does not explain it
  /// (``unexplainedShare(mic:reference:direct:bypass:noiseScale:)``). Two bars (see
  /// ``voiceBars``): shapes far apart and a quarter unexplained, or shapes less far
  /// apart and most of it unexplained while little of the mic is in a sound the app has just
  /// begun (``freshShare(mic:of:bypass:)``). Nothing reads as a voice while nearly all of the
  /// mic is in such a sound.
  mutating func readsVoice(
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    shape: (coherence: Float, mic: Float, echo: Float), noise noiseSum: Float,
    reference: UnsafePointer<Float>, direct: UnsafePointer<Float>, bypass: Bool
  ) -> Bool {
    let bars = Self.voiceBars
    guard shape.mic > shape.echo + 16 * noiseSum else { return false }
    let fresh = freshShare(mic: mic, of: shape.mic, bypass: bypass)
    guard fresh <= bars.fresh else { return false }
    let unexplained = unexplainedShare(
      mic: mic, reference: reference, direct: direct, bypass: bypass)
    return (shape.coherence < bars.apart.coherence && unexplained > bars.apart.unexplained)
      || (shape.coherence < bars.unlike.coherence && unexplained > bars.unlike.unexplained
        && fresh <= bars.unlike.fresh)
  }

  /// The share of the mic's power (300 Hz … 8 kHz) in bins where the app has just begun a sound
  /// (marked by ``markOnsets(reference:)``): a note or word the filter may not have learnt,
  /// which reaches the mic before the filter or the path's gain can account for it. 0 while no
  /// echo is found (`bypass`): with headphones the app's sounds do not reach the mic, so what
  /// passes the bars there is the talker's whatever the app plays. (Without this the fresh bar
  /// took talker blocks on the headphones scenes: on music the duck ended sooner and the 5th
  /// percentile where the app plays alone moved from −0.62 to −0.42 dB.)
  /// `micSum` is the mic's power over those bins, as ``shapes(echo:mic:echoPower:)`` sums it.
  func freshShare(
    mic: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>), of micSum: Float,
    bypass: Bool
  ) -> Float {
    guard !bypass else { return 0 }
    let (mr, mi) = mic
    var fresh: Float = 0
    onsetHold.withUnsafeBufferPointer { hold in
      for k in lowBin..<min(bins, highBin) where hold[k] > 0 {
        fresh += mr[k] * mr[k] + mi[k] * mi[k]
      }
    }
    return fresh / max(micSum, 1e-30)
  }

  /// The share of the adaptive filter's own uncertainty per bin (the Kalman filter's ΣP|X|²
  /// in the error's scale, ``EchoCanceller``) the residual estimate holds at least, at all
  /// times: the echo the filter expects to miss, large where its P is (a note it has not
  /// learnt, a bin the path change or the talker left unsure), small where it has converged;
  /// it rests neither on the band's path gain nor on a voice detector, so it counts in double
  /// talk too. Enzner and Vary's FDKF gives its postfilter the same estimate. On the echo
  /// bench's matrix and its seven shifts (`pcm-mix-bench --filter echo/ours`) double talk rose
  /// 0.11 dB SI-SDR on average (−0.09 to +0.51), ERLE moved −0.04 to +0.59 dB, and scenes
  /// missing a target fell 23 → 19 of 128; at 0.05, 0.1, 0.2 and 0.3: 21, 21, 20 and 20, and
  /// at 1, 51 (the talker cut in double talk, 0.95 dB on average). On the held-out table's
  /// 144 scenes, read once after: 54 → 50 missing, double talk +0.07 dB on average.
  static let uncertaintyShare: Float = 0.15

  /// The ducking detector's bars (``readsVoice(mic:shape:noise:reference:direct:bypass:)``), set
  /// on the ducking bench (`pcm-mix-bench --filter ducking`, with the app's piece shifted 1.1,
  /// 2.15, 3.2, 4.3, 5.4, 6.45 and 8.6 s and with the talker 6 dB under the echo).
  ///
  /// - `apart`: the first bar, and before these rules the only one. A first syllable over music
  ///   that the filter has learnt kept the mic's coherence with the estimate at 0.75–0.87 while
  ///   the app's power left 0.67–0.92 of it unexplained (music 30 ms, the app from 2.15 s, at
  ///   14.1 s): read only as doubt for 0.3 s, the duck came 260 ms late.
  /// - `unlike`: the second bar, for that syllable. Alone it let a sound the app had just begun
  ///   pass it in two blocks next to three of the first bar's (the filter not yet converged on
  ///   it: error 4–25 times the estimate), and the app ducked under its own echo for 0.4 s
  ///   (music 120 ms from 4.3 s, −5.1 dB at the 5th percentile where the app plays alone). With
  ///   at most 0.3 of the mic in fresh bins every table met its targets, and so with coherence
  ///   0.85 or 0.95 and the unexplained share 0.5 or 0.7 instead.
  /// - `fresh`: no voice at all while over 0.9 of the mic is in fresh bins. The app's first
  ///   broadband sounds (music 120 ms from 1.1 s and from 5.4 s, at 1.16 s) read as a voice by
  ///   the first bar, the filter having never heard them (mic 8–12 dB over the estimate), and
  ///   ducked the app for 0.4–0.5 s (−4.6 to −7.0 dB at the 5th percentile). On the first
  ///   table's scenes, the shifted ones of those two and 8.6 s and the quieter talker's, this
  ///   bar took 47 of the 542 voice blocks read where the talker was silent, and 420 of the
  ///   27,909 read where they spoke (1.5 %).
  static let voiceBars:
    (
      apart: (coherence: Float, unexplained: Float),
      unlike: (coherence: Float, unexplained: Float, fresh: Float), fresh: Float
    ) = ((0.6, voiceShare), (0.9, 0.6, 0.3), 0.9)

  /// Marks the bins whose spread reference has just risen to 4 times its smoothed value (rate
  /// 0.3), and keeps the mark for 8 blocks (43 ms).
  mutating func markOnsets(reference: UnsafePointer<Float>) {
    refSmooth.withUnsafeMutableBufferPointer { smooth in
      onsetHold.withUnsafeMutableBufferPointer { hold in
        for k in 0..<bins {
          let (r, m, h) = (reference[k], smooth[k], hold[k])
          hold[k] = r > 4 * m && r > 1e-12 ? 8 : h > 0 ? h &- 1 : 0
          smooth[k] = m + 0.3 * (r - m)
        }
      }
    }
  }

  /// Runs `body` with `self` and the arrays of `slot` in ``pending`` (the ring moved out of
  /// `self` meanwhile and back after: no copy).
  mutating func withPending(
    _ slot: Int,
    _ body: (inout Self, (PendingGains.Field) -> UnsafeMutablePointer<Float>) -> Void
  ) {
    var values = pending.values
    pending.values = []
    defer { pending.values = values }
    let n = bins
    values.withUnsafeMutableBufferPointer { v in
      body(&self) { v.baseAddress! + PendingGains.offset(slot, $0, bins: n) }
    }
  }

  /// Leaves this block's error spectrum, powers and estimates in ``pending`` with its
  /// decisions, for its gains to be worked out ``lookahead`` blocks later (the residual
  /// estimate at least ``uncertaintyShare`` of the filter's `uncertainty`): with them the
  /// path's prediction per bin (its band's gain times the spread reference) and the comfort
  /// noise's level (the room's tone, never over the mic's own smoothed power: while the tone
  /// holds still, in a gap of digital silence or the smoothing settling after it, the mic may
  /// fall under it).
  mutating func pend(
    error: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    errorPower se: UnsafeMutablePointer<Float>, echoPower sy: UnsafeMutablePointer<Float>,
    residual: UnsafeMutablePointer<Float>, uncertainty: UnsafePointer<Float>,
    reference: UnsafePointer<Float>, echoDue: Bool, bypass: Bool
  ) {
    let n = bins
    // The app's first seconds: every block is taken as the echo alone (``startBlocks``).
    let starting = farBlocks < startBlocks
    let s = pending.push(
      PendingGains.Decisions(
        coherence: starting ? 1 : lastCoherence, voiceRate: starting ? 0 : voiceRate,
        starting: starting, onset: voiceOnset && !starting, echoDue: echoDue, bypass: bypass))
    let ramp = roomBlocks / Self.roomToneWatch
    withPending(s) { this, field in
      field(.errorRe).update(from: error.0, count: n)
      field(.errorIm).update(from: error.1, count: n)
      field(.errorPower).update(from: se, count: n)
      field(.echoPower).update(from: sy, count: n)
      let pended = field(.residual)
      let share = this.uncertaintyWeight
      for k in 0..<n { pended[k] = max(residual[k], share * uncertainty[k]) }
      let path = field(.path)
      let comfort = field(.comfort)
      this.pathGain.withUnsafeBufferPointer { pg in
        this.bandOf.withUnsafeBufferPointer { band in
          for k in 0..<n { path[k] = pg[Int(band[k])] * reference[k] }
        }
      }
      this.roomTone.withUnsafeBufferPointer { tone in
        this.smoothedMic.withUnsafeBufferPointer { mic in
          for k in 0..<n { comfort[k] = ramp * Self.comfortScale * min(tone[k], mic[k]) }
        }
      }
    }
    pending.holds.withUnsafeMutableBufferPointer { holds in
      onsetHold.withUnsafeBufferPointer {
        (holds.baseAddress! + s * n).update(from: $0.baseAddress!, count: n)
      }
    }
  }

  /// The suppression gains of a block that has waited its look-ahead (its arrays from
  /// ``pend(error:errorPower:echoPower:residual:uncertainty:reference:echoDue:bypass:)``,
  /// `decisions` with those of the blocks after it), applied to its error spectrum in place,
  /// with comfort noise where it is turned down.
  mutating func applyGains(
    to error: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
    errorPower se: UnsafeMutablePointer<Float>, echoPower sy: UnsafeMutablePointer<Float>,
    residual: UnsafeMutablePointer<Float>, path: UnsafeMutablePointer<Float>,
    comfortLevel: UnsafeMutablePointer<Float>, hold: UnsafePointer<UInt8>,
    _ decisions: PendingGains.Decisions, fft: RealFFT
  ) {
    let n = bins
    let (er, ei) = error
    let coherence = decisions.coherence
    let voiceRate = decisions.voiceRate
    let echoDue = decisions.echoDue
    let bypass = decisions.bypass
    // Over-subtraction: where the mic is the echo alone, the residual is pushed down hard (the
    // near end loses nothing there); where a voice is over it, a Wiener gain (the voice keeps
    // what outweighs the residual).
    let alone = min(1, max(0, (coherence - 0.6) / 0.3))
    let overdrive = 1 + Float(settings.suppression) * 2 * alone
    // The second estimate, a tenth of the path's gain times the spread reference, only where
    // the mic is surely the echo alone (the shapes agree).
    let echoOnly = min(1, max(0, (coherence - 0.9) / 0.08))
    // The third, where the app's power has explained the mic in all but a fifth of the recent
    // blocks (so not in the gaps between a talker's words, where it is a voice half the time or
    // more; a music onset now and then does not close it): the echo the path's gain predicts
    // that the filter's estimate does not hold (notes the filter has not learnt), three times
    // over.
    // None of the three while this block reads as a talker's onset (``onsetBar``).
    // Nor the third for ``talkerHoldSeconds`` after such a block.
    let onset = decisions.onset
    let explained = echoDue && voiceRate < 0.2 && !onset
    let unlearnt: Float = explained && !decisions.talking ? 3 : 0
    // The fourth, where the app has explained the mic lately and the mic has the estimate's
    // shape: the error itself, up to the estimate. There the filter is wrong, not a voice
    // present: a note heard last before the echo path changed, whose estimate has the old
    // path's phase, leaves an error as loud as the echo.
    let misadjusted: Float = echoDue && voiceRate < 0.3 && coherence > 0.88 && !onset ? 1 : 0
    // And in the bins where the app's power has just risen (4 times its recent mean, in the
    // last 8 blocks) the whole error, while the app explains the mic: the onset of a note
    // that neither the filter nor the path's gain per band can know yet (the room's gain at
    // one frequency is often 10 dB off its band's; marked by ``markOnsets(reference:)``).
    let floor: Float = 0.0316
    let shares =
      voiceRate > Self.talkerGains.voiceRate || onset || decisions.talking
      ? (rise: Self.talkerGains.rise, fall: Self.talkerGains.fall) : Self.gainShares
    let on = settings.suppression > 0 && !bypass
    let comfort = on && settings.comfortNoise
    // The gains (a kernel), and the comfort noise after.
    let kernels = fft.kernels
    gains.withUnsafeMutableBufferPointer { gains in
      kernels.gains(
        se, sy, residual, path, hold, gains.baseAddress!, er, ei, n,
        overdrive: overdrive, echoOnly: echoOnly, unlearnt: unlearnt, misadjusted: misadjusted,
        explained: explained, on: on, floor: floor, rise: shares.rise, fall: shares.fall)
      guard comfort else { return }
      var state = noiseState
      defer { noiseState = state }
      for k in 0..<n where gains[k] < 1 {
        let g = gains[k]
        let level = (comfortLevel[k] * (1 - g * g)).squareRoot()
        er[k] += level * Self.random(&state)
        ei[k] += level * Self.random(&state)
      }
    }
  }

}
