import Foundation
import PCMMix
import PCMMixTestSupport
import Testing

/// The echo canceller on the scenes of `EchoScene` (speech through a loudspeaker into the mic,
/// a talker over it, the phone moved at 11 s), against the numbers the echo issue asks for.
/// The whole matrix, with speexdsp and WebRTC beside it, is `pcm-mix-bench --filter echo`.
@Suite struct EchoCancellationTests {
  static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
      "TestVectors/echo")

  static func scene(
    _ content: EchoScene.Content, _ latency: Double, _ room: String, clip: Bool = false,
    headphones: Bool = false, appShift: Double = 0, talkerDB: Double = 0, noiseDB: Double = -60
  ) throws -> EchoScene {
    try EchoScene(
      content: content, outputLatency: latency, room: room, nonlinear: clip,
      headphones: headphones, appShift: appShift, talkerDB: talkerDB, noiseDB: noiseDB,
      assets: assets)
  }

  /// Checks the issue's echo-alone targets on `m`: ERLE ≥ 25 dB before and after the path
  /// change, reached (20 dB) within 1.5 s of the start and of the change.
  static func expectEchoAloneTargets(
    _ m: EchoSceneMetrics, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    #expect(m.erleBefore >= 25, sourceLocation: sourceLocation)
    #expect(m.erleAfter >= 25, sourceLocation: sourceLocation)
    #expect(
      try #require(m.convergence, sourceLocation: sourceLocation) <= 1.5,
      sourceLocation: sourceLocation)
    #expect(
      try #require(m.reconvergence, sourceLocation: sourceLocation) <= 1.5,
      sourceLocation: sourceLocation)
  }

  @Test func speechThroughALoudspeakerIsCancelledAndTheTalkerKept() throws {
    let scene = try Self.scene(.speech, 0.03, "rt02")
    let (out, statistics) = scene.cancelled()
    let m = EchoSceneMetrics(scene: scene, output: out)
    try Self.expectEchoAloneTargets(m)
    #expect(m.doubleTalkSISDR >= 15)
    #expect(m.doubleTalkEchoReduction >= 15)
    #expect(m.talkerAloneSISDR >= 25)
    #expect(abs(m.talkerLevel) <= 1)
    // The delay found: the loudspeaker's 30 ms and the direct path (about 1 ms).
    #expect(abs(try #require(statistics.delay) - 0.031) <= 0.002)
    #expect(!statistics.isBypassed)
  }

  /// The reading of the targets the bench's held-out table counts by
  /// (``EchoSceneMetrics/missedTargets``): a perfect canceller (mic minus the true echo) meets
  /// them all, the raw mic none.
  @Test func theTargetsReadAPerfectCancellerAsMeetingThemAndTheRawMicAsNot() throws {
    let scene = try Self.scene(.music, 0.12, "rt05")
    let perfect = zip(scene.talker, scene.noise).map(+)
    #expect(EchoSceneMetrics(scene: scene, output: perfect).missedTargets == [])
    #expect(
      EchoSceneMetrics(scene: scene, output: scene.mic).missedTargets == [
        "ERLE before", "ERLE after", "convergence", "reconvergence", "double talk",
        "double-talk echo",
      ])
  }

  @Test func aLongDelayAReverberantRoomAndAClippingLoudspeaker() throws {
    // The hardest speech scene, held to the issue's numbers. Its double talk: 17.4 dB SI-SDR, the
    // echo 17.5 dB down (`pcm-mix-bench --filter echo`). The clipping loudspeaker's echo is taken
    // out as far as a perfect canceller's (30 dB) before the path change and past 25 dB after it:
    // the path's gain counts what the linear filter cannot model. It converges in 0.6 s (1.4 s
    // before the gains took the app's first 1.5 s as the echo alone, while the suppressor's voice
    // rate waited for a learnt path gain, 1.3 s here; 1.8 s when it counted the share it had no
    // gain for as a voice).
    let scene = try Self.scene(.speech, 0.12, "rt05", clip: true)
    let (out, statistics) = scene.cancelled()
    let m = EchoSceneMetrics(scene: scene, output: out)
    #expect(m.talkerAloneSISDR >= 25)
    #expect(abs(m.talkerLevel) <= 1)
    try Self.expectEchoAloneTargets(m)
    #expect(m.erleBefore >= m.perfectBefore - 3)
    #expect(m.doubleTalkSISDR >= 15)
    #expect(m.doubleTalkEchoReduction >= 15)
    #expect(abs(try #require(statistics.delay) - 0.121) <= 0.002)
  }

  @Test func musicInANoisyRoomIsTakenDownToTheNoise() throws {
    // White noise at -45 dBFS, 15 dB over the other scenes': the echo stands only 12-16 dB
    // over it, so even a perfect canceller (mic minus the true echo) takes out no more. Read
    // against the noise floor itself, the noise left over counted as a voice in half the
    // app-alone blocks, the gains then left out the estimate of notes the filter had not
    // learnt, and this scene took 4.5 s to come within 3 dB of the perfect canceller in every
    // window of a second (0.7 s now).
    let scene = try Self.scene(.music, 0.03, "rt05", clip: true, noiseDB: -45)
    let m = EchoSceneMetrics(scene: scene, output: scene.cancelled().output)
    #expect(try #require(m.convergence) <= 1.5)
    #expect(try #require(m.reconvergence) <= 1.5)
    #expect(m.erleBefore >= m.perfectBefore - 3)
    #expect(m.erleAfter >= m.perfectAfter - 3)
    #expect(m.talkerAloneSISDR >= 25)
    #expect(abs(m.talkerLevel) <= 1)
  }

  @Test func aTalkerOverMusicKeepsItsSyllables() throws {
    // Music under the talker: the suppressor's residual estimate jumps from block to block, and
    // a gain that fell at once with each jump took pieces of the talker's syllables (14.9 dB
    // SI-SDR in double talk). While a talker is heard the gains fall part of the way a block,
    // and rise sooner: 15.3, the echo 15.5 dB down; where the app plays alone they still fall
    // at once.
    let scene = try Self.scene(.music, 0.03, "rt02", clip: true)
    let m = EchoSceneMetrics(scene: scene, output: scene.cancelled().output)
    try Self.expectEchoAloneTargets(m)
    #expect(m.doubleTalkSISDR >= 15)
    #expect(m.doubleTalkEchoReduction >= 15)
    #expect(abs(m.talkerLevel) <= 1)
  }

  @Test func theTalkerKeepsItsVoiceInDoubleTalkAfterThePathChanges() throws {
    // After the phone is moved the filter has re-learnt the path (31 dB where the app plays
    // alone), but in the blocks where the echo is quiet (its tail, the noise) the error is
    // large beside it. The suppressor's leakage, a ratio of running means, is ruled by the
    // loud blocks and holds the talker's words; a running mean of each block's ratio was
    // ruled by the quiet ones (0.04 instead of 0.001-0.003 in 0.4-1.5 kHz at 13.9 s) and the
    // double talk after the change came out at 9 dB SI-SDR, the talker 1.7 dB down.
    let scene = try Self.scene(.speech, 0.12, "rt02")
    let (out, _) = scene.cancelled()
    let m = EchoSceneMetrics(scene: scene, output: out)
    #expect(m.doubleTalkSISDR >= 15)
    #expect(m.doubleTalkEchoReduction >= 15)
    #expect(m.erleAfter >= 25)
    #expect(abs(m.talkerLevel) <= 1)
    // The talker's first syllables, mostly under 375 Hz where the block-wide shape test does
    // not look, must not teach that band a leakage it then holds the voice down by: 19.1 dB;
    // 17.2 when each band learnt in every block the block-wide test called the echo alone.
    #expect(m.doubleTalkSISDR >= 18.5)
  }

  @Test func theShadowDoesNotTakeOverFromAFilterInDoubleTalk() throws {
    // With the app's speech started 6.45 s in, the shadow filter's error fell under the main
    // one's during the double talk (it followed the talker too) and it took over at 7.6 s; at
    // 9.5 s, the talker gone, the filter's output stood 14 dB over the mic: ERLE before the
    // path change 4.6 dB, the talker in double talk 11.2 dB SI-SDR. With no takeover while a
    // voice is heard: 31.5 and 19.7.
    try Self.expectSpeechTargets(0.03, "rt02", appShift: 6.45)
  }

  @Test func aTalkersFirstSyllableIsNotTakenForAMovedPhone() throws {
    // The talker's second sentence begins at 14 s over the app's music. Its first syllable
    // lifted what the filter leaves before the voice tests read it, and the path-change
    // detector reset P there: the Kalman filter took full steps into the double talk (15.26 dB
    // SI-SDR, the scene's one reset). The reset is held back where the app's power explains
    // the mic and dropped when the voice shows (`EchoCanceller.resetHold`): none, 15.88 dB.
    // (It resets P once, at 12.9 s, where the app plays alone after the phone moved at 11 s.)
    let scene = try Self.scene(.music, 0.03, "rt02")
    var trace: [Int] = []
    let out = scene.cancelled { trace.append($0.pathChanges) }.output
    func changes(at seconds: Double) -> Int { trace[Int(seconds * 48_000) / 256] }
    #expect(changes(at: 17) == changes(at: 13.9))
    #expect(changes(at: 11) == 0)
    #expect(EchoSceneMetrics(scene: scene, output: out).doubleTalkSISDR >= 15.6)
    // With the app's speech from 2.15 s the same reset came under the same sentence: 16.59 dB,
    // now 20.29.
    let speech = try Self.scene(.speech, 0.03, "rt02", appShift: 2.15)
    let m = EchoSceneMetrics(scene: speech, output: speech.cancelled().output)
    try Self.expectEchoAloneTargets(m)
    #expect(m.doubleTalkSISDR >= 18)
  }

  @Test func aTalkerWhoStartsWithANewChordKeepsTheFirstSyllable() throws {
    // With the app's music from 2.15 s each span of double talk begins with a chord the filter
    // has not heard. Until the voice rate opened (60–180 ms), the suppressor's estimates for
    // notes the filter has not learnt took the talker's first syllable for one: over the first
    // 150 ms of the first span the talker came out at 0.34 of their level, and the double talk
    // read 13.32 dB SI-SDR. A block that reads as a talker's onset leaves those estimates out
    // (`ResidualEchoSuppressor.onsetBar`): 0.67, and 14.06 dB; with the suppressor's
    // look-ahead (`EchoCanceller.lookaheadBlocks`), 0.89 and 14.35. (The second span's first
    // 150 ms stay at 0.39–0.40: few of its blocks pass the onset's bar.)
    let scene = try Self.scene(.music, 0.12, "rt05", appShift: 2.15)
    let out = scene.cancelled().output
    let rate = Double(EchoScene.rate)
    let first = Int(6 * rate)..<Int(6.15 * rate)
    #expect(
      EchoSceneMetrics.projection(Array(out[first]), Array(scene.talker[first])) >= 0.6)
    let m = EchoSceneMetrics(scene: scene, output: out)
    #expect(m.doubleTalkSISDR >= 13.9)
    try Self.expectEchoAloneTargets(m)
  }

  /// How much of the talker `out` holds over `seconds` of the scene: its projection on the
  /// clean talker there (1: their whole level).
  static func talkerKept(_ out: [Float], _ scene: EchoScene, _ seconds: Range<Double>) -> Double {
    let rate = Double(EchoScene.rate)
    let span = Int(seconds.lowerBound * rate)..<Int(seconds.upperBound * rate)
    return EchoSceneMetrics.projection(Array(out[span]), Array(scene.talker[span]))
  }

  @Test func theSuppressorWaitsForTheOnsetsReadAfterABlock() throws {
    // The onset bar reads a syllable over music some blocks after it begins, once its power
    // has spread over three bands; the blocks before took it for a note the filter had not
    // learnt. On the same scene, with no look-ahead (and no hold after an onset, which this
    // test leaves out), the talker's first 50 ms of the first span came out at 0.61 of their
    // level; with each block's gains waiting 8 blocks (43 ms) for the onsets read after it,
    // 0.83. The echo-alone targets hold.
    let scene = try Self.scene(.music, 0.12, "rt05", appShift: 2.15)
    func start(_ out: [Float]) -> Double { Self.talkerKept(out, scene, 6..<6.05) }
    let without = scene.cancelled(lookahead: 0, talkerHold: 0).output
    #expect(start(without) < 0.7)
    let out = scene.cancelled(talkerHold: 0).output
    #expect(EchoCanceller.lookaheadBlocks(rate: EchoScene.rate) == 8)
    #expect(start(out) >= 0.75)
    try Self.expectEchoAloneTargets(EchoSceneMetrics(scene: scene, output: out))
  }

  @Test func theFiltersUncertaintyTakesOutEchoItMissesInDoubleTalk() throws {
    // Music 120 ms RT60 0.5 s through the clipping loudspeaker, the app's piece from 6.45 s:
    // in double talk the residual estimate holds at least 0.15 of the Kalman filter's own
    // uncertainty (ResidualEchoSuppressor.uncertaintyShare), which no voice detector gates.
    // Without it the talker read 16.09 dB SI-SDR with the echo 16.19 dB down; with it 16.60
    // and 16.75, ERLE unmoved (28.4 / 33.0 dB).
    let scene = try Self.scene(.music, 0.12, "rt05", clip: true, appShift: 6.45)
    let unsure = scene.cancelled(uncertaintyShare: 0).output
    let without = EchoSceneMetrics(scene: scene, output: unsure)
    let with = EchoSceneMetrics(scene: scene, output: scene.cancelled().output)
    #expect(with.doubleTalkSISDR >= without.doubleTalkSISDR + 0.4)
    #expect(with.doubleTalkEchoReduction >= without.doubleTalkEchoReduction + 0.4)
    #expect(abs(with.erleBefore - without.erleBefore) <= 0.1)
    #expect(abs(with.erleAfter - without.erleAfter) <= 0.1)
    #expect(with.missedTargets == [])
  }

  @Test func theFiltersStepWeighsTheTalkerInDoubleTalk() throws {
    // Music 120 ms RT60 0.2 s through the clipping loudspeaker, the app's piece from 1.1 s: in
    // double talk the main filter's Ψ holds at least 3 times the talker's power per bin
    // (EchoCanceller.weighTalker), so the talker moves the filter less. Without it the talker
    // read 14.99 dB SI-SDR with the echo 15.36 dB down; with it 15.63 and 15.95, ERLE unmoved.
    // (On RT60 0.5 s the weight took 14.89 to 15.53 dB until the delay search found the echo
    // at its own lag from the start: now 15.06 to 15.45.)
    let scene = try Self.scene(.music, 0.12, "rt02", clip: true, appShift: 1.1)
    let without = EchoSceneMetrics(scene: scene, output: scene.cancelled(talkerWeight: 0).output)
    let with = EchoSceneMetrics(scene: scene, output: scene.cancelled().output)
    #expect(with.doubleTalkSISDR >= without.doubleTalkSISDR + 0.5)
    #expect(with.doubleTalkEchoReduction >= without.doubleTalkEchoReduction + 0.5)
    #expect(abs(with.erleBefore - without.erleBefore) <= 0.1)
    #expect(abs(with.erleAfter - without.erleAfter) <= 0.1)
    #expect(with.missedTargets == [])
  }

  @Test func aTalkersOnsetCountsForASyllableAfterItIsRead() throws {
    // The second span of double talk begins with a chord the filter has not heard. The onset
    // bar reads the talker's first syllable over 13.96–14.005 s, but the voice rate does not
    // open under the chord: with only the onset's own blocks (and the look-ahead before them)
    // leaving the estimate for notes the filter has not learnt out, it held the talker's
    // 750–1500 Hz band at its floor over 14.01–14.20 s. Leaving it out for 0.16 s after the
    // onset, with the gains moving as while a talker is heard, keeps the syllable (14.05–14.2 s
    // at 0.39 of the talker's level without, 0.75 with), and the scene meets the double-talk
    // targets (SI-SDR 14.35 → 15.48 dB, the echo 14.54 → 15.60 dB down).
    let scene = try Self.scene(.music, 0.12, "rt05", appShift: 2.15)
    func kept(_ out: [Float]) -> Double { Self.talkerKept(out, scene, 14.05..<14.2) }
    let without = scene.cancelled(talkerHold: 0).output
    let out = scene.cancelled().output
    #expect(EchoCanceller.talkerHoldBlocks(rate: EchoScene.rate) == 30)
    #expect(kept(without) < 0.5)
    #expect(kept(out) >= 0.7)
    let m = EchoSceneMetrics(scene: scene, output: out)
    try Self.expectEchoAloneTargets(m)
    #expect(m.doubleTalkSISDR >= 15)
    #expect(m.doubleTalkEchoReduction >= 15)
  }

  /// The speech scene with the app's piece started `appShift` s in, held to the issue's echo
  /// and double-talk targets.
  static func expectSpeechTargets(
    _ latency: Double, _ room: String, appShift: Double,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let scene = try Self.scene(.speech, latency, room, appShift: appShift)
    let m = EchoSceneMetrics(scene: scene, output: scene.cancelled().output)
    try Self.expectEchoAloneTargets(m, sourceLocation: sourceLocation)
    #expect(m.doubleTalkSISDR >= 15, sourceLocation: sourceLocation)
    #expect(m.doubleTalkEchoReduction >= 15, sourceLocation: sourceLocation)
  }

  @Test func aNoteFirstHeardSecondsInIsLearntWhereTheAppPlaysAlone() throws {
    // With the app's music started 2.15 s in, a chord the filter has not heard plays at 4.25 s,
    // where the app plays alone. Its bins' P had decayed towards 0 for 4 s (W = 0 there, so
    // the process noise q·|W|² gave nothing back): the filter hardly moved, and ERLE before
    // the path change was 12.6 dB. With P reverting towards its prior while no talker is
    // heard: 27.4.
    let scene = try Self.scene(.music, 0.12, "rt02", appShift: 2.15)
    try Self.expectEchoAloneTargets(
      EchoSceneMetrics(scene: scene, output: scene.cancelled().output))
  }

  @Test func musicTheFilterHasNotLearntIsTakenOutWhereTheAppPlaysAlone() throws {
    // Music defeats the linear filter (each new note is a frequency it has not heard: 12 dB
    // alone). Where the app's power has explained the mic lately, the suppressor takes out
    // what the path's gain predicts beyond the filter's estimate, and the whole error in the
    // bins where a note has just begun: 28.9 dB before the change, from 1.0 s on (22.6 and
    // never within 6 s when only 0.2 s of explained blocks in a row counted, which each onset
    // broke; see `pcm-mix-bench --filter echo`).
    let scene = try Self.scene(.music, 0.03, "rt02")
    let (out, _) = scene.cancelled()
    let m = EchoSceneMetrics(scene: scene, output: out)
    try Self.expectEchoAloneTargets(m)
    #expect(m.talkerAloneSISDR >= 25)
    #expect(abs(m.talkerLevel) <= 1)
  }

  @Test func theAppsFirstWordsAreTakenOutBeforeTheFilterHasHeardThem() throws {
    // With the app's speech started 2.15 s in, its first words bring sounds the filter has not
    // learnt (a fricative at 1.85 s); the voice rate read some of them as a talker and turned
    // off the estimates that cover them, and ERLE held 20 dB only from 2.1 s. For the app's
    // first 1.5 s the gains take every block as the echo alone
    // (`ResidualEchoSuppressor.startSeconds`): from 0.5 s.
    try Self.expectSpeechTargets(0.12, "rt02", appShift: 2.15)
  }

  @Test func aTalkerOverTheAppsFirstSecondsIsKeptFromTheirEnd() throws {
    // What the cautious start costs a talker who speaks over the app's first seconds: the
    // scene's first sentence (6–9 s) moved to 0.6 s. The gains take those blocks as the echo
    // alone, and the output keeps the talker at about 5 dB SI-SDR over 0.6–1.5 s and 10 over
    // 1.5–2.5 s (11.0 and 18.5 before); from 2.5 s on, as before (printed).
    let scene = try Self.scene(.speech, 0.03, "rt02")
    let (from, to, at) = (EchoScene.index(6), EchoScene.index(9), EchoScene.index(0.6))
    var early = [Float](repeating: 0, count: scene.mic.count)
    for i in from..<to { early[at + i - from] = scene.talker[i] }
    let out = EchoScene.cancel(mic: zip(scene.mic, early).map { $0 + $1 }, app: scene.app).output
    func kept(_ a: Double, _ b: Double) -> Double {
      let span = EchoScene.index(a)..<EchoScene.index(b)
      return EchoSceneMetrics.siSDR(Array(out[span]), Array(early[span]))
    }
    let spans = [(0.6, 1.5), (1.5, 2.5), (2.5, 3.6)].map { kept($0.0, $0.1) }
    print("Early talker, SI-SDR over 0.6–1.5, 1.5–2.5, 2.5–3.6 s (dB): \(spans)")
    #expect(spans[0] >= 4)
    #expect(spans[1] >= 9)
    #expect(spans[2] >= 18)
  }

  @Test func aLastWordsEchoAfterTheAppFallsSilentIsTakenOut() throws {
    // Through a 120 ms output latency the app's last word reaches the mic after the app has
    // fallen silent, with the room's tail after it. The estimates of what the filter has not
    // learnt counted only while the app played, and after the path change a 100 ms window at
    // 12.2 s read 11.1 dB: 20 dB held from 1.6 s after the change. They count for the filter's
    // delay and length after the app last played (`EchoCanceller.echoDueBlocks`): 0.7 s.
    try Self.expectSpeechTargets(0.12, "rt05", appShift: 4.3)
  }

  @Test func aNoteLastHeardBeforeThePathChangedIsTakenOut() throws {
    // After the phone moves, the filter still holds the old path for every note it has not
    // heard since: its estimate is as loud as the echo but in the old phase, so the error is
    // as loud too, and the mic keeps the estimate's shape. The suppressor takes that error out
    // where the app has explained the mic lately: 27.7 dB after the change (18.7 and no
    // re-convergence within 3 s without it).
    let scene = try Self.scene(.music, 0.12, "rt05")
    let (out, _) = scene.cancelled()
    let m = EchoSceneMetrics(scene: scene, output: out)
    #expect(m.erleAfter >= 25)
    #expect(try #require(m.reconvergence) <= 1.5)
    #expect(m.doubleTalkSISDR >= 13.5)
  }

  /// Suppression must not gate the room, nor hiss over it: where the app plays alone the
  /// output's noise is the room's (comfort noise where the echo was), within 1.5 dB, in each
  /// stretch of a minute's capture (the scene three times over, its path change each time).
  /// Comfort noise at 13 times the mic's noise floor read 1.1 dB under the room in the first
  /// 20 s, then up to 4.7 dB over by the last; at the room's tone, 0.0–0.3 dB under throughout
  /// on speech, 0.4–0.9 on music.
  @Test(arguments: [EchoScene.Content.speech, .music])
  func theRoomToneStaysWhereTheEchoIsTakenOut(_ content: EchoScene.Content) throws {
    let scene = try Self.scene(content, 0.03, "rt02")
    let (out, _) = EchoScene.cancel(
      mic: scene.mic + scene.mic + scene.mic, app: scene.app + scene.app + scene.app)
    let noise = scene.noise + scene.noise + scene.noise
    var readings: [String] = []
    for start in [0.0, 20, 40] {
      for (a, b) in [(3.0, 6.0), (9.5, 11.0), (12.5, 14.0)] {
        let (from, to) = (start + a, start + b)
        let off =
          EchoScene.level(out, from: from, to: to) - EchoScene.level(noise, from: from, to: to)
        readings.append(String(format: "%.1f", off))
        #expect(abs(off) <= 1.5, "\(content) \(from)–\(to) s: \(off) dB off the room")
      }
    }
    print("Room tone, \(content), off the room's (dB): \(readings.joined(separator: " "))")
  }

  @Test func theEchoIsFoundAtItsOwnLagWhenTheAppStartsWithTheCapture() throws {
    // The app's music, started 5.4 s into its piece, begins with the capture. The delay
    // search's mic window, cut square, began with a step where the reference's history stepped
    // from silence to the piece: it settled on a lag of 0 at 0.32 s and held it to 1.98 s, and
    // the echo reached 20 dB only at 2.3 s. Its window tapered: the true lag from the first,
    // 20 dB from 0.7 s.
    let scene = try Self.scene(.music, 0.12, "rt05", appShift: 5.4)
    var found: [Double] = []
    let out = scene.cancelled { if let delay = $0.delay { found.append(delay) } }.output
    let first = try #require(found.first)
    // The loudspeaker's 120 ms and the direct path (about 1 ms).
    #expect(abs(first - 0.121) <= 0.002)
    #expect(found.allSatisfy { abs($0 - first) <= 0.001 })
    try Self.expectEchoAloneTargets(EchoSceneMetrics(scene: scene, output: out))
  }

  @Test func theVoiceRateWaitsForTheEchoToBeFound() throws {
    // With the app's music started 1.1 s in, the delay search finds the echo at 0.77 s. Moved
    // by the share of the mic a bypassed canceller leaves unexplained (all of it), the
    // suppressor's voice rate stood at 0.70 at 0.53 s, the Kalman filter's uncertainty did not
    // revert, and the early hi-hats' bins kept their echo: ERLE before the path change 24.2 dB.
    // Held while bypassed: 25.6.
    let scene = try Self.scene(.music, 0.12, "rt02", appShift: 1.1)
    try Self.expectEchoAloneTargets(
      EchoSceneMetrics(scene: scene, output: scene.cancelled().output))
  }

  @Test(arguments: [0.0, 6.45])
  func withHeadphonesNoEchoIsFoundInThePipeline(appShift: Double) throws {
    // With the app's speech started 6.45 s in, two analyses running agreed on a lag of 17 ms
    // at 0.83 s, its peak 9.7 times the correlation's mean; the canceller left its bypass and
    // the ducker never read the talker (the app's median gain while they spoke 0 dB). The bar
    // is 12 (`EchoDelayEstimator.prominenceBar`).
    let scene = try Self.scene(.speech, 0.03, "rt02", headphones: true, appShift: appShift)
    let run = try scene.throughPipeline(EchoCancellation(), ducking: Ducking())
    let statistics = try #require(run.statistics)
    #expect(statistics.delay == nil)
    #expect(statistics.isBypassed)
    let m = DuckingMetrics(scene: scene, appStem: run.appStem, duckingGain: run.duckingGain)
    #expect(DuckingMetrics.quantile(m.talking, 0.5) <= -8.5)
  }

  /// The user plugs in headphones at 20 s: the first 20 s a loudspeaker scene, the next 20 the
  /// same app and talker with no echo. The canceller must hand the mic back bit for bit, and
  /// stay so. It never did: every analysis of the delay search counted as a find once one had
  /// been made, so it kept cancelling, and over the talker's next double talk its output matched
  /// the mic at 16–23 dB SI-SDR. Now the mic comes back untouched 6.1–8.4 s after the plug
  /// (the search's smoothed spectra still stand out at the old lag for 3 s, then 3 s without a
  /// find and 5 s of the app playing with nothing taken out, whose pauses do not count);
  /// 8.1–10.4 s with 5 s without a find, which the bound of 9 s after the plug refuses.
  @Test(arguments: [(EchoScene.Content.speech, 0.03, "rt02"), (.music, 0.12, "rt05")])
  func pluggingInHeadphonesHandsTheMicBackUntouched(
    content: EchoScene.Content, latency: Double, room: String
  ) throws {
    let speaker = try Self.scene(content, latency, room)
    let headphones = try Self.scene(content, latency, room, headphones: true)
    let mic = speaker.mic + headphones.mic
    let (out, statistics, flips) = Self.cancelWithBypassSwitches(
      mic: mic, app: speaker.app + headphones.app)
    #expect(statistics.isBypassed)
    // Cancelling from the find to the plug, then bypassed once and for good.
    #expect(flips.count == 2)
    let back = Double(256 * ((flips.last ?? 0) + 1)) / Double(EchoScene.rate)
    print("Headphones plugged in at 20 s, \(content) \(latency) s \(room): mic back at \(back) s")
    #expect(back > 20 && back < 29)
    // (One Bool: on a failing `==` Swift Testing diffs the arrays, 39 s at 100,000 samples.)
    let from = EchoScene.index(32)
    #expect(out[from...].elementsEqual(mic[from...]))
  }

  /// `mic` through the canceller with `app` as its reference (`EchoScene.cancel`), and the
  /// blocks at which it went into or out of its bypass.
  static func cancelWithBypassSwitches(mic: [Float], app: [Float]) -> (
    output: [Float], statistics: EchoStatistics, switches: [Int]
  ) {
    var bypassed: [Bool] = []
    let (out, statistics) = EchoScene.cancel(mic: mic, app: app) { bypassed.append($0.isBypassed) }
    let switches = bypassed.indices.dropFirst().filter { bypassed[$0] != bypassed[$0 - 1] }
    return (out, statistics, switches)
  }

  /// A talker 20 dB over the echo, for 3 s of double talk and then 5 s (14–19 s), twice over:
  /// the filter takes nothing out of the mic while they speak, and the delay search loses the
  /// echo under them, as after a plug. The canceller must not take them for headphones. It
  /// goes to bypass once the search has not found the echo for 3 s and the filter has taken
  /// 3 dB or less for 5 s of the app playing: with those 5 s at 3, music 30 ms RT60 0.2 s went
  /// to bypass four times in 40 s (at 9.8, 19.0, 29.7 and 39.0 s, each left 1–1.2 s later).
  @Test(arguments: [(EchoScene.Content.speech, 0.03, "rt02"), (.music, 0.03, "rt02")])
  func aTalkerOverTheAppIsNotTakenForHeadphones(
    content: EchoScene.Content, latency: Double, room: String
  ) throws {
    let scene = try Self.scene(content, latency, room, talkerDB: 20)
    let flips = Self.cancelWithBypassSwitches(
      mic: scene.mic + scene.mic, app: scene.app + scene.app
    ).switches
    // Bypassed until the echo is found in the first second, then cancelling to the end.
    #expect(flips.count == 1)
    #expect(Double(256 * (flips.first ?? 0)) / Double(EchoScene.rate) < 1)
  }

  /// The output latency moves from 30 to 120 ms at 11 s (a Bluetooth speaker took the route):
  /// the search must find the new lag. Its smoothing was meant to forget (0.8 of the past an
  /// analysis) but kept a mean over every analysis since the start, and the new lag never stood
  /// out: 0 dB taken out of the mic from 11 s on. Now it is found at 12.5 s.
  @Test func theSearchFollowsAChangeOfOutputLatency() throws {
    let before = try Self.scene(.speech, 0.03, "rt02")
    let after = try Self.scene(.speech, 0.12, "rt02")
    let change = EchoScene.index(11)
    var mic = before.mic
    for i in change..<mic.count { mic[i] += after.echo[i] - before.echo[i] }
    var delays: [Double?] = []
    let (out, statistics) = EchoScene.cancel(mic: mic, app: before.app) {
      delays.append($0.delay)
    }
    let found = try #require(statistics.delay)
    let refound = delays[(change / 256)...].firstIndex {
      $0.map { abs($0 - 0.121) < 0.002 } ?? false
    }
    let seconds = refound.map { Double(256 * $0) / Double(EchoScene.rate) }
    print("Output latency 30 → 120 ms at 11 s: the new lag found at \(seconds ?? .nan) s")
    #expect(abs(found - 0.121) < 0.002)
    let at13 = try #require(delays[EchoScene.index(13) / 256])
    #expect(abs(at13 - 0.121) < 0.002)
    let erle = EchoScene.level(mic, from: 13, to: 14) - EchoScene.level(out, from: 13, to: 14)
    #expect(erle >= 20)
  }

  /// The mic delivers digital silence for 3 s while the app plays (the user muted it, or a
  /// stall filled with zeros): nothing is learnt from it. Before, both filters adapted toward
  /// an echo of 0 and the suppressor learnt its leakage from a silent mic; when the mic came
  /// back the canceller took 0.1–0.6 dB out over 5.5–6 s, 8 dB at 9–11 s, and the talker's
  /// double talk read 5.0 dB SI-SDR (speech; music 2–3 dB and 14.2–14.3). Now speech reads as
  /// with no mute (31.9 dB, 20.0; 32.2 and 20.2 with none), and music 18.4–25.4 dB and
  /// 16.0–16.4 (its filter learns nothing of the notes played while the mic was silent).
  @Test(arguments: [(EchoScene.Content.speech, 0.03, "rt02"), (.music, 0.12, "rt05")])
  func aMutedMicTeachesTheCancellerNothing(
    content: EchoScene.Content, latency: Double, room: String
  ) throws {
    let scene = try Self.scene(content, latency, room)
    var mic = scene.mic
    for i in EchoScene.index(2.5)..<EchoScene.index(5.5) { mic[i] = 0 }
    let (out, _) = EchoScene.cancel(mic: mic, app: scene.app)
    func erle(_ from: Double, _ to: Double) -> Double {
      EchoScene.level(mic, from: from, to: to) - EchoScene.level(out, from: from, to: to)
    }
    #expect(erle(5.5, 5.75) >= 15)
    #expect(erle(9, 11) >= 25)
    #expect(EchoSceneMetrics(scene: scene, output: out).doubleTalkSISDR >= 15)
  }

  /// Samples no source should hold, in both (an uninitialised float buffer, a codec's glitch):
  /// NaN, ±∞, 10³⁰ and −3·10³⁸ in bursts of ten (``EchoScene/withHostileSamples()``), and
  /// 10⁴ for a second of the app and 10 ms of the mic. Before the canceller held its input to
  /// ±8 (``EchoCanceller/inputBound``), a NaN or a value past 10¹⁹ overflowed its sums and
  /// every output sample after it was NaN; 10⁸ in the app, or a buffer at 10⁴ in the mic, left
  /// it taking nothing out. Now the double talk and the ERLE after the path change read as
  /// with none of them: 20.2 dB SI-SDR and 30.5 dB (20.5 and 30.8 unpoisoned); without the
  /// bound, NaN and 0.0.
  @Test func noValueInEitherSourceStopsTheCanceller() throws {
    let scene = try Self.scene(.speech, 0.03, "rt02")
    var (app, mic) = scene.withHostileSamples()
    for i in EchoScene.index(3)..<EchoScene.index(4) { app[i] = 1e4 }
    for i in EchoScene.index(5.4)..<EchoScene.index(5.41) { mic[i] = 1e4 }
    let (out, _) = EchoScene.cancel(mic: mic, app: app)
    #expect(out.allSatisfy { $0.isFinite && abs($0) <= 2 * EchoCanceller.inputBound })
    let clean = EchoSceneMetrics(
      scene: scene, output: EchoScene.cancel(mic: scene.mic, app: scene.app).output)
    let m = EchoSceneMetrics(scene: scene, output: out)
    print(
      "poisoned: double talk \(m.doubleTalkSISDR) dB (\(clean.doubleTalkSISDR)), ERLE after the"
        + " change \(m.erleAfter) (\(clean.erleAfter))")
    #expect(m.doubleTalkSISDR >= clean.doubleTalkSISDR - 1)
    #expect(m.erleAfter >= clean.erleAfter - 1)
  }

  /// Four minutes: the speech scene played 12 times over. The main filter's coefficients
  /// grew about 1.4 times every 20 s in the bins the app's speech never reaches (P with them),
  /// and the talker in double talk fell from 20.2 dB SI-SDR in the first copy to 15.3 in the
  /// twelfth, ERLE unmoved (`EchoCanceller.forgetUnheardBins`). Now 19.8 in the last.
  @Test func overMinutesTheTalkerKeepsItsFidelity() throws {
    let scene = try Self.scene(.speech, 0.03, "rt02")
    let copies = 12
    let (out, _) = EchoScene.cancel(
      mic: Array([[Float]](repeating: scene.mic, count: copies).joined()),
      app: Array([[Float]](repeating: scene.app, count: copies).joined()))
    let n = scene.mic.count
    let first = EchoSceneMetrics(scene: scene, output: Array(out[0..<n]))
    let last = EchoSceneMetrics(scene: scene, output: Array(out[((copies - 1) * n)...]))
    #expect(last.doubleTalkSISDR >= 19)
    #expect(last.doubleTalkSISDR >= first.doubleTalkSISDR - 1)
    #expect(last.erleBefore >= 25)
  }

  /// The loudspeaker on another clock than the mic (a USB mic beside a laptop's speakers, or
  /// two recorders' files): the echo slides against the app's audio by `ppm`. One minute of
  /// speech 30 ms RT60 0.2 s or music 120 ms RT60 0.5 s, the echo resampled here by windowed
  /// sinc. Without the warp (`ReferenceWarp`) speech's last copy read 18.7, 15.3 and 15.3 dB
  /// of ERLE at +20 ppm (17.7, 14.5, 15.3 at −50) and 12.3 dB SI-SDR in double talk at −50
  /// (30.8 and 19.9 with no drift). With it, through `pcm-mix mix`: 30.9 dB and 20.4 at +20;
  /// 30.7–30.8 and 19.2 at −50. Music's filter does not show the drift in its phase; with the
  /// warp started only from there, its last copy read 14.9 and 13.2 dB SI-SDR in double talk at
  /// +20 and −50 ppm (17.2 through `pcm-mix mix` with no drift); started from the delay
  /// search's reading too (`LagTrend`), 17.9 and 16.8; with the search's line kept through
  /// double talk (`LagTrend.restart`), 18.0 and 17.2. Started on two readings of the search
  /// instead of three (`EchoCanceller.searchReadings`, 7.5 s instead of 8.5), the last copy's
  /// double talk reads 20.3 (20.6) and 19.4 (19.4) on speech, 18.1 (18.2) and 16.9 (17.7) on
  /// music, through the canceller alone.
  @Test(arguments: [
    (EchoScene.Content.speech, 20.0), (.speech, -50.0), (.music, 20.0), (.music, -50.0),
  ])
  func anEchoOnAnotherClockIsFollowed(content: EchoScene.Content, ppm: Double) throws {
    let scene =
      content == .speech
      ? try Self.scene(.speech, 0.03, "rt02") : try Self.scene(.music, 0.12, "rt05")
    let copies = 3
    let app = Array([[Float]](repeating: scene.app, count: copies).joined())
    let mic = Self.micWithDriftedEcho(scene, copies: copies, ppm: ppm)
    let (out, _) = EchoScene.cancel(mic: mic, app: app)
    let last = Self.lastCopy(scene, copies: copies, mic: mic, output: out)
    for (erle, window) in zip(last.erle, Self.echoAloneWindows) {
      #expect(erle >= 25, "ERLE \(erle) dB over \(window) s of the last copy")
    }
    #expect(last.doubleTalk >= 15)
  }

  /// The drift followed at other rates than 48 kHz (the canceller runs at the pipeline's
  /// output rate): the scene converted to `rate`, three copies, its echo drifted by `ppm`,
  /// measured against the scene band-limited the same way (``EchoScene/bandLimited(to:)``).
  /// The drift's times were counted in 256-frame blocks, three times as long at 16 kHz, and
  /// the warp's start needed two blocks of delay (an echo 30 ms late is 1.9 blocks at 16 kHz).
  /// Before: at 16 kHz the warp never started, and the last copy of speech at +20 ppm read
  /// 15.6–17.4 dB of ERLE and 12.6 SI-SDR in double talk (4.4–6.9 and 4.5 at −50); at 24 kHz
  /// music at −50 ppm started it at 42.7 s, its last copy 10.1–21.3 dB and 10.8. Now the warp
  /// starts at 7.5 s on each (and at −50 on speech), the last copies read 29.1–35.3 dB and
  /// 18.4–21.8, and with no drift no warp starts (music at 16 kHz: 31.4–34.8 dB, 17.4).
  /// A Debug build runs the first case (``otherRateDrifts``).
  @Test(arguments: otherRateDrifts)
  func anEchoOnAnotherClockIsFollowedAtOtherRates(
    rate: Int, content: EchoScene.Content, ppm: Double
  ) throws {
    let full =
      content == .speech
      ? try Self.scene(.speech, 0.03, "rt02") : try Self.scene(.music, 0.12, "rt05")
    let copies = 3
    var (blocks, warpStart): (Int, Double?) = (0, nil)
    let last = Self.lastCopy(
      at: rate, full, copies: copies,
      app: Array([[Float]](repeating: full.app, count: copies).joined()),
      mic: Self.micWithDriftedEcho(full, copies: copies, ppm: ppm)
    ) { statistics in
      blocks += 1
      if warpStart == nil && statistics.micDriftPPM != nil {
        warpStart = Double(blocks * EchoCanceller.hop(rate: rate)) / Double(rate)
      }
    }
    print(
      "drift at \(rate) Hz, \(content) \(ppm) ppm: warp from",
      warpStart.map(EchoLiveCaptureTests.fixed) ?? "-",
      "s; last copy ERLE", last.erle.map(EchoLiveCaptureTests.fixed).joined(separator: "/"),
      "dB, double talk", EchoLiveCaptureTests.fixed(last.doubleTalk), "dB")
    if ppm == 0 {
      #expect(warpStart == nil)
    } else {
      #expect(try #require(warpStart) <= 8)
    }
    for (erle, window) in zip(last.erle, Self.echoAloneWindows) {
      #expect(erle >= 25, "ERLE \(erle) dB over \(window) s of the last copy")
    }
    #expect(last.doubleTalk >= 15)
  }

  /// The cases of ``anEchoOnAnotherClockIsFollowedAtOtherRates(rate:content:ppm:)``: each is a
  /// minute of audio, converted to the rate and back, and takes about 13 s of CPU at `-Onone`.
  /// A Debug `swift test` runs the one the old drift tracking never followed (16 kHz, speech,
  /// +20 ppm); an optimized build (`make test-release`) runs all three.
  #if DEBUG
    static let otherRateDrifts: [(Int, EchoScene.Content, Double)] = [(16_000, .speech, 20)]
  #else
    static let otherRateDrifts: [(Int, EchoScene.Content, Double)] = [
      (16_000, .speech, 20), (24_000, .music, -50), (16_000, .music, 0),
    ]
  #endif

  /// A new note is not a talker's onset where the mic holds nothing else
  /// (``ResidualEchoSuppressor/onsetBar``'s `fresh`). At 32 kHz (8 ms blocks, 62.5 Hz bins) a
  /// note of music 120 ms RT60 0.2 s at 4.41 s left three bands unexplained and read as one;
  /// the 160 ms hold let the note's echo through: ERLE over 3–6 s read 21.7 dB before, 28.4
  /// now (before the path change, as `pcm-mix-bench`'s 16-khz table reads it at 32 kHz: 24.5,
  /// now 29.9, a perfect canceller's). The scene converted to 32 kHz, measured against it
  /// band-limited the same way.
  @Test func aNewNoteAloneIsNotReadAsATalkerAt32kHz() throws {
    let full = try Self.scene(.music, 0.12, "rt02")
    let copy = Self.lastCopy(at: 32_000, full, copies: 1, app: full.app, mic: full.mic)
    print(
      "a new note at 32 kHz: ERLE",
      copy.erle.map(EchoLiveCaptureTests.fixed).joined(separator: "/"),
      "dB, double talk", EchoLiveCaptureTests.fixed(copy.doubleTalk), "dB")
    #expect(copy.erle[0] >= 28, "ERLE \(copy.erle[0]) dB over 3–6 s")
    #expect(copy.doubleTalk >= 15)
  }

  /// Music's lags lean with what plays, and a line through them can read a drift where there is
  /// none: on music 30 ms converted to 44.1 kHz, the search's reading started the warp on RT60
  /// 0.5 s at 7.5 s (13.0 ppm) while its lags were placed by a parabola, and on RT60 0.2 s at
  /// 10.7 s (12.4 ppm) once they were placed between samples. A reading now counts toward the
  /// start only by what it is sure of (``EchoCanceller/searchMargin``): the warp starts on
  /// neither. With it started, RT60 0.5 s read 15.5 dB SI-SDR in double talk where it now reads
  /// 16.3, and RT60 0.2 s 15.9 where it now reads 16.6 (`pcm-mix-bench --filter
  /// echo/other-rates`). With no margin the RT60 0.2 s case fails: the warp runs from 10.7 s.
  @Test(arguments: ["rt02", "rt05"])
  func musicWithNoDriftStartsNoWarpAt44kHz(room: String) throws {
    let full = try Self.scene(.music, 0.03, room)
    var warped = 0
    let copy = Self.lastCopy(at: 44_100, full, copies: 1, app: full.app, mic: full.mic) {
      if $0.micDriftPPM != nil { warped += 1 }
    }
    print(
      "music 30 ms \(room) at 44.1 kHz, no drift: warped blocks \(warped), double talk",
      EchoLiveCaptureTests.fixed(copy.doubleTalk), "dB")
    #expect(warped == 0, "the warp ran for \(warped) blocks")
    #expect(copy.doubleTalk >= 15)
  }

  /// Where the app plays alone in each 20 s copy (s): before the path change, and after it.
  static let echoAloneWindows: [ClosedRange<Double>] = [3...6, 9.5...11, 12.5...14]

  /// The last of `copies` back-to-back copies of `scene`: ERLE (dB) of `output` against `mic`
  /// over each of ``echoAloneWindows``, and the talker's SI-SDR (dB) over the double talk.
  static func lastCopy(_ scene: EchoScene, copies: Int, mic: [Float], output: [Float]) -> (
    erle: [Double], doubleTalk: Double
  ) {
    let n = scene.mic.count
    let start = Double((copies - 1) * n) / Double(EchoScene.rate)
    let erle = echoAloneWindows.map { w in
      EchoScene.level(mic, from: start + w.lowerBound, to: start + w.upperBound)
        - EchoScene.level(output, from: start + w.lowerBound, to: start + w.upperBound)
    }
    var talk: [Float] = []
    var said: [Float] = []
    for span in EchoScene.doubleTalk {
      let r = EchoScene.index(start + span.lowerBound)..<EchoScene.index(start + span.upperBound)
      talk += output[r]
      said += scene.talker[(r.lowerBound - (copies - 1) * n)..<(r.upperBound - (copies - 1) * n)]
    }
    return (erle, EchoSceneMetrics.siSDR(talk, said))
  }

  /// ``lastCopy(_:copies:mic:output:)`` with the canceller at `rate`: `app` and `mic` (48 kHz,
  /// `copies` of `scene`) converted to it, the output and the mic converted back, measured
  /// against `scene` band-limited the same way (``EchoScene/bandLimited(to:)``). `eachBlock`
  /// sees the canceller's statistics after each block.
  static func lastCopy(
    at rate: Int, _ scene: EchoScene, copies: Int, app: [Float], mic: [Float],
    eachBlock: ((EchoStatistics) -> Void)? = nil
  ) -> (erle: [Double], doubleTalk: Double) {
    let heard = EchoScene.converted(mic, from: EchoScene.rate, to: rate)
    let (out, _) = EchoScene.cancel(
      mic: heard, app: EchoScene.converted(app, from: EchoScene.rate, to: rate), rate: rate,
      eachBlock: eachBlock)
    return lastCopy(
      scene.bandLimited(to: rate), copies: copies,
      mic: EchoScene.converted(heard, from: rate, to: EchoScene.rate),
      output: EchoScene.converted(out, from: rate, to: EchoScene.rate))
  }

  /// Each of `copies` back-to-back copies of `scene`, in order, measured as
  /// ``lastCopy(_:copies:mic:output:)`` measures the last.
  static func eachCopy(_ scene: EchoScene, copies: Int, mic: [Float], output: [Float]) -> [(
    erle: [Double], doubleTalk: Double
  )] {
    (1...copies).map { copy in
      let frames = scene.mic.count * copy
      return lastCopy(
        scene, copies: copy, mic: Array(mic[0..<frames]), output: Array(output[0..<frames]))
    }
  }

  /// `copies` of `scene`'s mic back to back, its echo read at 1 + `ppm`·10⁻⁶ samples per
  /// sample (``EchoScene/resampled(_:by:count:)``): the loudspeaker on another clock than the mic's.
  static func micWithDriftedEcho(_ scene: EchoScene, copies: Int, ppm: Double) -> [Float] {
    let echo = Array([[Float]](repeating: scene.echo, count: copies).joined())
    let moved = EchoScene.resampled(echo, by: 1 + ppm * 1e-6)
    var mic = Array([[Float]](repeating: scene.mic, count: copies).joined())
    for i in mic.indices { mic[i] += moved[i] - echo[i] }
    return mic
  }

  @Test func withHeadphonesTheMicPassesBitForBit() throws {
    let scene = try Self.scene(.speech, 0.03, "rt02", headphones: true)
    let (out, statistics) = scene.cancelled()
    #expect(statistics.isBypassed)
    #expect(statistics.delay == nil)
    #expect(out.elementsEqual(scene.mic))
  }

  /// With the default latency, and with one lower than the canceller's look-ahead needs (the
  /// pipeline then runs at the least it needs, 73 ms: `Configuration.timingLatency`; at 20 ms
  /// the canceller read frames not yet delivered, as silence).
  @Test(arguments: [nil, ClockedCapturePipeline.Latency.fixed(seconds: 0.02)])
  func inThePipelineTheMicIsCleanedWhereItLies(
    latency: ClockedCapturePipeline.Latency?
  ) throws {
    let scene = try Self.scene(.speech, 0.03, "rt02")
    let run = try scene.throughPipeline(EchoCancellation(), latency: latency)
    let m = EchoSceneMetrics(scene: scene, output: run.micStem)
    #expect(m.erleBefore >= 25)
    #expect(m.erleAfter >= 25)
    #expect(m.doubleTalkSISDR >= 15)
    #expect(m.talkerAloneSISDR >= 25)
    // On the timeline: the talker where the mic had it (SI-SDR would fall ~20 dB at 1 ms off).
    #expect(abs(m.talkerLevel) <= 1)
    let statistics = try #require(run.statistics)
    #expect(!statistics.isBypassed)
    #expect(statistics.erleDB > 15)
    // The double-talk share against the scene's own: of the 256-frame blocks where the app
    // plays, those where the talker speaks (above a hundredth of their mean energy).
    let app = EchoScene.frameEnergies(scene.app, frame: 256)
    let talker = EchoScene.frameEnergies(scene.talker, frame: 256)
    let blocks = app.indices.filter { app[$0] > 256e-7 }
    let talk = blocks.map { talker[$0] }
    let mean = talk.reduce(0, +) / Double(talk.filter { $0 > 0 }.count)
    let truth = Double(talk.filter { $0 > 0.01 * mean }.count) / Double(blocks.count)
    #expect(truth > 0.2 && truth < 0.35)
    #expect(abs(statistics.doubleTalkFraction - truth) <= 0.08)
  }

  @Test func inThePipelineHeadphonesChangeNoBitOfTheOutput() throws {
    let scene = try Self.scene(.speech, 0.03, "rt02", headphones: true)
    let on = try scene.throughPipeline(EchoCancellation())
    let off = try scene.throughPipeline(nil)
    #expect(on.statistics?.isBypassed == true)
    #expect(on.output.elementsEqual(off.output))
    #expect(on.micStem.elementsEqual(off.micStem))
    // And the stem is the mic itself, on the timeline.
    #expect(EchoSceneMetrics.siSDR(on.micStem, scene.mic) >= 25)
  }

  @Test func settingsOutOfRangeAreRefusedByName() {
    var c = ClockedCapturePipeline.Configuration()
    c.echoCancellation = EchoCancellation()
    c.echoCancellation?.maximumDelay = .nan
    #expect(throws: ConfigurationError.self) { try c.validate() }
    do {
      try c.validate()
    } catch {
      #expect(error.parameter == "echoCancellation.maximumDelay")
    }
    c.echoCancellation?.maximumDelay = 0.3
    c.echoCancellation?.filterLength = 0
    #expect(throws: ConfigurationError.self) { try c.validate() }
    c.echoCancellation?.filterLength = 0.2
    #expect(throws: Never.self) { try c.validate() }
  }
}

/// Ducking on the echo scenes: the app's echo must not duck it, the talker must.
@Suite struct DuckingTests {
  static func scene(_ headphones: Bool) throws -> EchoScene {
    try EchoScene(
      content: .speech, outputLatency: 0.03, room: "rt02", nonlinear: false,
      headphones: headphones, assets: EchoCancellationTests.assets)
  }

  @Test(arguments: [(true, false), (false, false), (false, true)])
  func theTalkerDucksTheAppAndItsEchoDoesNot(cancel: Bool, headphones: Bool) throws {
    let scene = try Self.scene(headphones)
    let run = try scene.throughPipeline(cancel ? EchoCancellation() : nil, ducking: Ducking())
    let m = DuckingMetrics(scene: scene, appStem: run.appStem)
    let q = DuckingMetrics.quantile
    // Where only the app plays, the median frame is not ducked: its echo does not trigger the
    // detector; and 95 % of those frames are within 1.5 dB, the ducker's own release after each
    // sentence included (with the hold counted from the last word, 0.3 s, and a 0.5 s release,
    // about 0.7 s twice: −10 dB; the look-ahead now sees the sentence end before the output
    // does), with the echo (which rang on in the app's pauses and ducked it at 1.4–2.2 s until
    // the shape test covered them: −7.2 dB) and with headphones.
    #expect(q(m.appOnly, 0.5) >= -0.5)
    #expect(q(m.appOnly, 0.05) >= -1.5)
    #expect(q(m.talking, 0.5) <= -8.5)
    #expect(!m.onsets.isEmpty && m.onsets.allSatisfy { ($0 ?? .infinity) <= 100 })
    // The hold carries the duck over the gaps between words: the app never comes back above
    // −6 dB mid-sentence. (With hold 0.1 s and release 0.15 s and no look-ahead past the
    // pause, which pass the 95 % on every scene, it did 5 times on this one through the
    // loudspeaker.)
    #expect(m.pumps == 0)
  }

  /// The figure's scene (speech 120 ms late, RT60 0.5 s, the phone moved at 11 s): the app's
  /// echo never ducks it, neither
  /// while the canceller learns the room (the detector waits for the filter to explain the echo
  /// alone, or for the echo's reach to pass) nor after the path changes. Before those rules the
  /// 5th percentile was −10 dB (ducked 0–1.5 s and twice in 11–13.5 s).
  @Test func itsEchoDucksNothingAwayFromTheTalker() throws {
    let m = try Self.ducked(.speech, room: "rt05")
    #expect(DuckingMetrics.quantile(m.appOnly, 0.05) >= -1.5)
    Self.expectTheTalkerDucks(m)
  }

  /// Speech 30 ms late into RT60 0.5 s through a clipping loudspeaker: the filter, still
  /// learning the long room (1.4 s) or the new path (11.2 s), leaves an echo whose shape parts
  /// from its estimate, and the shape test alone read it as a voice (−10 dB at the 5th
  /// percentile away from the talker). The app's power through the path's learnt gain explains
  /// that mic, so it is not a voice: the app stays up, and the talker still ducks it.
  @Test func anEchoTheAppsPowerExplainsIsNotAVoice() throws {
    let m = try Self.ducked(.speech, latency: 0.03, room: "rt05", clip: true)
    #expect(DuckingMetrics.quantile(m.appOnly, 0.05) >= -1.5)
    Self.expectTheTalkerDucks(m)
  }

  /// Music 120 ms late: the filter underestimates the echo, which outweighs its estimate in the
  /// app's shape. Read as a voice, it held the app at −10 dB (median) through every app-alone
  /// span; the detector's shape test and the ducker's rule (a voice in most blocks over
  /// 43 ms) keep it at 0 dB. Away from the
  /// talker too (the 5th percentile): the delay search no longer takes a peak at the edge of
  /// its range (300 ms), which placed the filter past the echo for the first 1.5 s and ducked
  /// the app from 0.6 to 3.6 s (−10 dB).
  ///
  /// After the path change, a loud bar of the music (15.0–15.35 s) hides the talker from the
  /// detector (it read no voice while the error held the talker 20 dB over the true residual,
  /// the mic being the echo's in shape); the duck let go, and the app came back above −6 dB
  /// in the talker's next word gap (15.5 s). The ducker now holds through such blocks.
  @Test func musicThroughALongPathDoesNotDuckItself() throws {
    let m = try Self.ducked(.music, room: "rt02")
    #expect(DuckingMetrics.quantile(m.appOnly, 0.5) >= -0.5)
    #expect(DuckingMetrics.quantile(m.appOnly, 0.05) >= -1.5)
    Self.expectTheTalkerDucks(m)
    #expect(m.pumps == 0)
  }

  /// Music 120 ms late into RT60 0.5 s: a note that has just begun reaches the mic whole, but
  /// the spread reference weighs the direct path at a fifth, so for 3 blocks its bands read
  /// 6–9 dB over their learnt gain, with a shape the filter has not learnt (coherence 0.2–0.3),
  /// as a voice would. That ducked the app at 5.5 s (−7.7 dB at the 5th percentile away from
  /// the talker). The detector now takes the direct path's power where it is over twice the
  /// spread's, so the note is the app's; the talker over the music still ducks it in time.
  @Test func aNoteThatHasJustBegunIsNotAVoice() throws {
    let m = try Self.ducked(.music, room: "rt05")
    #expect(DuckingMetrics.quantile(m.appOnly, 0.05) >= -1.5)
    Self.expectTheTalkerDucks(m)
    #expect(m.pumps == 0)
  }

  /// Scenes the ducker was not tuned on: the app's piece started later (``EchoScene``'s
  /// `appShift`), so that other notes and words meet the canceller's first seconds and the
  /// talker.
  ///
  /// Music 120 ms late, from 4.3 s in: a note the filter had not yet learnt left a burst of
  /// voice blocks among doubt at 2.2 s (three of four blocks once confirmed a voice), and the
  /// app ducked for 0.4 s under its own echo (−4.65 dB at the 5th percentile).
  ///
  /// Speech 120 ms late, from 2.15 s in: the same at 1.9 s (−3.74 dB); and the talker's first
  /// syllable at 14.0 s read only here and there, so the duck came with the next one, 260 ms
  /// late. The duck now starts where the run of voice and doubt that leads up to a confirmed
  /// voice began.
  ///
  /// With headphones, from 6.45 s in: blocks after the talker's last word read as doubt (no
  /// echo to cause it) and held the duck on 40 ms (−1.66 dB). Without an echo nothing is in
  /// doubt.
  ///
  /// Music 120 ms late, from 1.1 s in: the app's first broadband sound at 1.16 s, which the
  /// filter had never heard (the mic 8–12 dB over its estimate), read as a voice, and the app
  /// ducked for 0.4 s (−5.4 dB at the 5th percentile; and the talker's onset at 14.0 s came
  /// 280 ms late, as in the next test). Nearly all of that mic is in bins where the app has
  /// just begun a sound; no voice is read there now.
  @Test(arguments: [
    (EchoScene.Content.music, 4.3, false), (.speech, 2.15, false), (.speech, 6.45, true),
    (.music, 1.1, false),
  ])
  func otherNotesAndWordsDoNotDuckTheApp(
    content: EchoScene.Content, shift: Double, headphones: Bool
  ) throws {
    let m = try Self.ducked(content, room: "rt02", shift: shift, headphones: headphones)
    #expect(DuckingMetrics.quantile(m.appOnly, 0.5) >= -0.5)
    #expect(DuckingMetrics.quantile(m.appOnly, 0.05) >= -1.5)
    Self.expectTheTalkerDucks(m)
  }

  /// Music 30 ms late, from 2.15 s in: the talker's first syllable at 14.0 s over music the
  /// filter has learnt kept the mic's shape near the estimate's (coherence 0.75–0.87, over the
  /// shape test's 0.6) though the app's power left 0.67–0.92 of it unexplained. Read only as
  /// doubt, the duck came 260 ms late. The detector's second bar (shapes less far apart, most
  /// of the mic unexplained, little of it in a sound the app has just begun) reads it as a
  /// voice, and the duck comes in time.
  @Test func aFirstSyllableOverLearntMusicDucksTheApp() throws {
    let m = try Self.ducked(.music, latency: 0.03, room: "rt02", shift: 2.15)
    #expect(DuckingMetrics.quantile(m.appOnly, 0.05) >= -1.5)
    Self.expectTheTalkerDucks(m)
  }

  /// A talker 6 dB under the app's echo (speech 30 ms late, RT60 0.2 s): the detector reads
  /// much of the voice as doubt, with a few quiet blocks among it. When doubt had to begin
  /// within 20 ms of the last voice to carry the duck on, the app came back above −6 dB at
  /// 16.1 s, mid-sentence; within 50 ms it stays down.
  @Test func aTalkerUnderTheEchoKeepsTheDuckDown() throws {
    let m = try Self.ducked(.speech, latency: 0.03, room: "rt02", talkerDB: -6)
    #expect(DuckingMetrics.quantile(m.appOnly, 0.05) >= -1.5)
    Self.expectTheTalkerDucks(m)
    #expect(m.pumps == 0)
  }

  /// Where the app plays on, its echo filled the minimum of the mic's power that the energy
  /// test's floor was, and words the echo half hides failed the test: a talker 6 dB under the
  /// echo after a pause of its own (speech 120 ms late, RT60 0.5 s, 15.6 s), and the first
  /// sentence's last fragment after the app's words began under it (speech 30 ms late, from
  /// 2.15 s in, 8.96 s). The duck let go under them; the floor now comes from the lesser of
  /// mic and error, and it stays down. From 4.3 s in, that fragment is 5–11 dB under the echo
  /// and reads as doubt from 65 ms after the last voice: doubt carries the duck on from up to
  /// 70 ms after it now (``Ducker/unsureReach``; at 50 ms the app came back).
  @Test(arguments: [(0.12, "rt05", 0.0, -6.0), (0.03, "rt02", 2.15, 0.0), (0.03, "rt02", 4.3, 0.0)])
  func wordsTheEchoHalfHidesKeepTheDuckDown(
    latency: Double, room: String, shift: Double, talkerDB: Double
  ) throws {
    let m = try Self.ducked(
      .speech, latency: latency, room: room, shift: shift, talkerDB: talkerDB)
    #expect(DuckingMetrics.quantile(m.appOnly, 0.05) >= -1.5)
    Self.expectTheTalkerDucks(m)
    #expect(m.pumps == 0)
  }

  /// `content` through a loudspeaker `latency` seconds late (clipping if `clip`) into `room`
  /// (or with `headphones`), the app's piece from `shift` seconds in, the talker `talkerDB`
  /// against the echo, cancelled, ducked at the default.
  static func ducked(
    _ content: EchoScene.Content, latency: Double = 0.12, room: String, clip: Bool = false,
    shift: Double = 0, headphones: Bool = false, talkerDB: Double = 0
  ) throws -> DuckingMetrics {
    let scene = try EchoScene(
      content: content, outputLatency: latency, room: room, nonlinear: clip,
      headphones: headphones, appShift: shift, talkerDB: talkerDB,
      assets: EchoCancellationTests.assets)
    let run = try scene.throughPipeline(EchoCancellation(), ducking: Ducking())
    return DuckingMetrics(scene: scene, appStem: run.appStem, duckingGain: run.duckingGain)
  }

  /// The app's piece from 8.6 s in (speech 30 ms, RT60 0.2 s): the talker's soft first
  /// syllable at 14.0 s comes as the app falls silent (14.08–14.24 s), so the app stem shows
  /// that onset's duck only at the app's return, at −10 dB (240 ms). The pipeline's own gain
  /// (`duckingGainDB` after each pull) says when it came: −6 dB within 100 ms (71 ms on the
  /// bench's table). Every onset the stem can time is within 100 ms too.
  @Test func anOnsetTheAppFallsSilentAfterIsTimedByTheDucksOwnGain() throws {
    let m = try Self.ducked(.speech, latency: 0.03, room: "rt02", shift: 8.6)
    let late = m.onsets.filter { ($0 ?? .infinity) > 100 }
    #expect(late.count == 1 && m.hiddenOnsets.count == 1)
    #expect(m.hiddenOnsets.allSatisfy { ($0 ?? .infinity) <= 100 })
    #expect(DuckingMetrics.quantile(m.talking, 0.5) <= -8.5)
  }

  /// While the talker speaks the app sits near the depth, and every onset ducks in time.
  static func expectTheTalkerDucks(_ m: DuckingMetrics) {
    #expect(DuckingMetrics.quantile(m.talking, 0.5) <= -8.5)
    #expect(!m.onsets.isEmpty && m.onsets.allSatisfy { ($0 ?? .infinity) <= 100 })
  }
}
