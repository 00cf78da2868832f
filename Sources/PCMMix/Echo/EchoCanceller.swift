import CPCMMixCore

/// The echo canceller (see ``EchoCancellation``), on one mono stream: each call takes a block of
/// ``hop`` frames of the mic and of the reference (the app's audio on the same timeline) and
/// gives ``hop`` frames of output, those of an earlier block (``latency``: a block for the
/// suppressor's overlap-add, and its look-ahead, ``lookaheadBlocks(rate:)``). Everything is
/// allocated at creation.
///
/// The linear part is a partitioned-block frequency-domain adaptive filter in overlap-save form:
/// blocks of ``hop`` frames (256 at 32 kHz and up, 128 from 16 kHz: ``hop(rate:)``), FFTs of
/// twice that, P partitions of the delayed reference's spectra. The main
/// filter is a Kalman filter per bin (Enzner and Vary's FDKF, partitioned): its gain is
/// `P·X* / (Σ P|X|² + 2·Ψ)`, `Ψ` the near end's power as the error shows it, so a voice over
/// the app makes the step small; `P` grows back by the process noise `q|W|²`, larger in bins
/// where the reference holds a tone (``updateProcessNoise()``), and while no talker is heard
/// it reverts towards its prior (``revertVoiceRate``); while one is, `Ψ` is at least
/// ``talkerWeight`` times the talker's power per bin (``weighTalker(_:power:inverse:floor:)``).
/// A shadow
/// filter of the same length adapts by normalized LMS with a large step; when its error stays
/// well below the main filter's, the main one takes its coefficients (the echo path changed),
/// and when it falls well behind it (double talk threw it off) it takes the main one's. One
/// partition of each is made causal again per block (in turn), as the MDF does.
///
/// Above ``fullBand`` (16.5 kHz at 48 kHz) the filters hold only their first
/// ``highPartitions`` partitions (85 ms: the direct path and the early reflections). A room
/// absorbs the top octave fastest, and a capture's echo is weak there (music's app audio holds
/// 3 % of its power above 16 kHz, speech none): the suppressor takes out what is left. That
/// takes a quarter off the filters' instructions. With 8 partitions (43 ms), ERLE after the
/// path change fell 1.8 dB on speech 30 ms RT60 0.5 s; with 16, every scene's echo figures
/// stay within 0.1 dB of the whole filters'.
package struct EchoCanceller {
  package let hop: Int
  /// The FFTs' size and the bins of their spectra.
  var size: Int { 2 * hop }
  var bins: Int { hop + 1 }
  /// The frequency up to which the filters are whole (Hz).
  static let fullBand = 16_500.0
  /// The partitions the filters hold above ``fullBand``.
  static let highPartitions = 16
  /// The bins below ``fullBand``, a multiple of 8 (the kernels' vector width), or all.
  let lowBins: Int
  /// The partitions the filters hold in the bins from ``lowBins`` up.
  let highPartitions: Int
  let rate: Int
  let partitions: Int
  let lags: Int
  let settings: EchoCancellation
  let fft: RealFFT
  /// The per-bin loops' and the FFTs' kernels (C, or the same in Swift).
  let kernels: EchoKernels
  /// The sqrt-Hann analysis and synthesis window (its squares add to 1 at half overlap).
  let window: [Float]

  // Reference: its recent samples (the newest `size`) and the spectra of the last
  // `lags + partitions` blocks (each of the block and the one before), a ring.
  var refBlock: [Float]
  var spectra: [Float]
  var spectrumCount: Int
  var blockIndex = 0
  /// Reference blocks pushed into the ring: ``blockIndex``, less a block for each the warp
  /// held back and more for each it added (``ReferenceWarp``).
  var ringCount = 0
  /// The reference on the echo's clock (``trackDrift()``).
  var warp: ReferenceWarp
  /// ``trackDrift()``'s snapshot of the main filter's partitions about the direct path, taken
  /// at block `driftBlock` with the filter at `driftDelay`, the direct path in `driftPart`,
  /// after the reset at `driftReset`; the blocks heard since, and the last estimates' votes.
  var driftSnapshot: [Float]
  var driftBlock = 0
  var driftDelay = 0
  var driftPart = 0
  var driftReset = 0
  var driftPaths = 0
  var driftHeard = 0
  var driftVotes = 0
  /// The delay search's lags over the last seconds (``LagTrend``), and its readings' votes.
  var lagTrend: LagTrend
  var searchVotes = 0
  /// The block the Kalman filter's P was last set to its prior in (``resetCovariance()``).
  var covarianceReset = 0
  /// The filter's delay in blocks (from the delay search).
  var delay = 0
  var estimator: EchoDelayEstimator

  // The main (Kalman) filter and the shadow (NLMS): split spectra per partition; P per bin.
  var main: [Float]
  var covariance: [Float]
  var shadow: [Float]
  /// The near end's power per bin, as the error shows it (Ψ), and the reference's (for NLMS).
  var nearPower: [Float]
  var refPower: [Float]
  /// Each bin's reference power over about five seconds (0.999 a block, where the filters
  /// adapt), for ``forgetUnheardBins()``.
  var slowReference: [Float]
  /// Per bin, the decay ``forgetUnheardBins()`` applies: ``unheardDecayFactor`` or 1.
  var unheardDecay: [Float]
  /// Per bin: how steadily the reference's phase advances from block to block, smoothed (1: a
  /// held tone; about 0.5: noise, or speech, whose pitch moves), the last advance as a unit
  /// phasor (re, then im), and the process noise it sets (``updateProcessNoise()``).
  var steadiness: [Float]
  var advance: [Float]
  var processNoise: [Float]
  /// Smoothed error energies of the two filters, and the blocks the shadow has led by far.
  var mainError = 0.0
  var shadowError = 0.0
  var shadowLead = 0
  /// The previous block's echo estimate (time domain): the suppressor's frames are two blocks
  /// long (the mic's previous block is in ``micRing``).
  var echoPrev: [Float]
  var suppressor: ResidualEchoSuppressor
  /// The overlap-add tail: the second half of the last output frame.
  var tail: [Float]
  /// Scratch: spectra (re, im) and time buffers, ``slotSize(hop:)`` floats each.
  var scratch: [Float]
  /// A scratch slot: a frame (twice `hop`) and 8 more, so that each slot starts on the
  /// kernels' vector width.
  static func slotSize(hop: Int) -> Int { 2 * hop + 8 }
  /// The block's mic and reference as the canceller takes them (``inputBound``).
  var bounded: [Float]

  // Echo presence: recent mic and echo-estimate energies while the reference plays.
  var micEnergy = 0.0
  var echoEnergy = 0.0
  var activeBlocks = 0
  var bypassed = true
  /// The block in which the delay search last found the echo where it had found it
  /// (``EchoDelayEstimator/confirmed``).
  var lastFound: Int?
  /// Whether the delay search has found the echo on the reference's whole history
  /// (``EchoDelayEstimator/historyFull``). It finds it first on a shorter one, from 0.32 s;
  /// when it finds it again on the whole (from 0.49 s), the Kalman filter's P is reset as a
  /// lock then would have reset it, and the filter learns fast once more, having cancelled since
  /// the first lock. With that first reset alone, P had shrunk by the time the pipeline's drift
  /// loop and the app's first words moved the path: in a live capture with the clocks 300 ppm
  /// apart (`EchoLiveCaptureTests`) ERLE before the path change fell from 32.2 to 28.2 dB and
  /// the mic stem at 3–6 s read 5.8 dB over the room's tone; with the second reset, 32.3 dB and
  /// 0.7 over, as before the search started early. On the echo bench's 16 loudspeaker scenes
  /// the filter then reaches 20 dB in 0.6–1.2 s instead of 1.0–1.4.
  var lockedOnWholeHistory = false
  /// Blocks of the app playing with no sign of its echo, while not bypassed.
  var quietBlocks = 0
  /// The misadjustment's long-run and recent levels (log10), the echo-alone blocks seen, and
  /// the block of the last reset.
  var baseline = 0.0
  var echoPeak = 0.0
  var recent = 0.0
  var aloneBlocks = 0
  var lastReset = 0
  /// A reset the detector asked for and holds back (``resetHold``): the block it is due, and
  /// ``lastReset`` before it (a dropped reset leaves no trace).
  var heldReset: (due: Int, lastReset: Int)?
  package var statistics = EchoStatistics()
  /// How the echo path spreads the reference's power over the partitions (summing to 1): from
  /// the partition of the direct path the delay search found (and half the one before it),
  /// falling 1 dB a block. The suppressor's second residual estimate takes the reference's
  /// power through it; it does not depend on what the filter has learnt.
  var pathProfile: [Float]
  /// Frames from the filters' first coefficient to the direct path (as the delay search last
  /// placed it, less a block for each partition ``pushReference(_:_:)`` gave up since).
  var directOffset = 0
  /// The partition of the direct path in ``pathProfile`` (its largest weight).
  var directPartition: Int { max(0, min(partitions - 1, directOffset / hop)) }
  /// Whether the block before the input's holds a near-end voice (the suppressor's frame ends
  /// in the input's block; its look-ahead does not delay the verdict): what is left of the mic
  /// after the echo is more than the residual echo and the noise explain.
  /// (Only while ``detectsVoice``.)
  package var nearEndVoice: Bool {
    suppressor.nearEnd && (echoSettled || blockIndex - lastFarBlock > echoReach)
  }
  /// Whether the detector's verdicts hold while the app's echo may be in the mic: the filter
  /// has explained the echo alone (``ResidualEchoSuppressor/echoAlone``) in
  /// ``settlingBlocks`` blocks, or the
  /// app has played for a second with no echo found (headphones). Until then an unconverged
  /// filter leaves the echo in its error, and its estimate has no shape to compare with, so
  /// ``nearEndVoice`` holds only where the app's echo cannot reach (``echoReach`` blocks after
  /// it last played).
  var echoSettled = false
  /// Whether the detector cannot tell the last output block: the app plays, no voice was
  /// read, yet the error outweighs what the residual echo explains, or the residual echo the
  /// suppressor expects would hide a voice at the level it was last read at. The ducker holds
  /// a duck through such blocks instead of letting go (for at most its hold). Never while the
  /// canceller is bypassed (no echo found: nothing to hide a voice): with headphones, such
  /// blocks after the talker's last word held the duck 40 ms longer, and the app's 5th
  /// percentile where it plays alone fell to −1.66 dB on the speech headphones scene with the
  /// app's piece started 6.45 s later (−0.74 without).
  ///
  /// Nor for ``resumeBlocks`` after the app begins to play again after a pause of at least
  /// ``pauseBlocks``: the echo's return is what the detector doubts there, not a voice it
  /// hides. In a live capture (ReplayKit's formats and clocks) the talker's last word ended as
  /// the app came back (19.0 s); doubt 40 ms after it held the duck on 60 ms longer, and the
  /// app's 5th percentile where it plays alone fell to −2.3 dB (`EchoLiveCaptureTests`).
  package var nearEndUncertain: Bool {
    suppressor.voiceUncertain && echoSettled && !bypassed && blockIndex - farResumed > resumeBlocks
  }
  /// The block the app last began to play in after a pause of ``pauseBlocks`` or more.
  var farResumed = Int.min / 2
  /// 0.3 s and 0.15 s in blocks (the longest output latency the scenes have, 120 ms, and
  /// some of the room's tail).
  var pauseBlocks: Int { Int(0.3 * Double(rate)) / hop }
  var resumeBlocks: Int { Int(0.15 * Double(rate)) / hop }
  var settledBlocks = 0
  /// The blocks of the echo alone explained after which the detector's verdicts hold (see
  /// ``echoSettled``). At 5, on speech 30 ms RT60 0.5 s with a clipping loudspeaker, the
  /// filter not yet converged left a residual at 0.66 s that read as a voice and ducked the app
  /// for 0.36 s (the ducking's 5th percentile where the app plays alone −3.9 dB); at 20 no
  /// scene's app ducks itself, and no onset of the talker's is later.
  static let settlingBlocks = 20
  /// The last block in which the app played, and how many blocks its echo may last after it
  /// (the longest delay searched and the filter's length).
  var lastFarBlock = Int.min / 2
  var echoReach: Int { lags + partitions }
  /// How many blocks after the app last played its echo may still be arriving, for the
  /// suppressor's gains (`echoDue` in ``ResidualEchoSuppressor/process``): the delay found and
  /// the filter's length. The estimates that cover what the filter has not learnt counted only
  /// while the app played; through a 120 ms output latency the last word's echo and the room's
  /// tail reach the mic for 0.3 s after the app falls silent, and there the suppressor took
  /// out only the filter's leakage (a 100 ms window 12.2–12.3 s after the path change read 11.1
  /// dB where the perfect canceller allows 19.4: speech 120 ms RT60 0.5 s, the app's piece
  /// from 4.3 s). On the echo bench's 64 loudspeaker scenes this brought the time to 20 dB
  /// after the path change from 0.1–1.6 s to 0.1–1.2 s and from the start from 0.5–1.0 to
  /// 0.5–0.9 s; ERLE moved by 0.0 to +0.8 dB, double talk by −0.13 to 0.0 dB SI-SDR (PESQ-WB
  /// −0.04 to 0.0).
  var echoDueBlocks: Int { delay + partitions }

  /// Whether ``nearEndVoice`` is worked out (for ducking; off by default).
  package var detectsVoice: Bool {
    get { suppressor.tracksVoice }
    set { suppressor.tracksVoice = newValue }
  }

  /// Blocks in the ring of reference spectra.
  var ringBlocks: Int { lags + partitions + 2 }

  /// `lookahead`: blocks the suppressor's gains wait for the voice decisions after them (see
  /// ``lookaheadBlocks(rate:)``, the default; 0: none, the output a block late).
  /// `talkerHold`: blocks marked as a talker's after an onset is read (see
  /// ``talkerHoldBlocks(rate:)``, the default; 0: none). `uncertaintyShare`: the suppressor's
  /// share of the filter's uncertainty (``ResidualEchoSuppressor/uncertaintyShare``, the
  /// default; 0: none). `talkerWeight`: the talker's weight in the main filter's step
  /// (``talkerWeight``, the default; 0: none).
  package init(
    rate: Int, settings: EchoCancellation, kernels: EchoKernels = .c, lookahead: Int? = nil,
    talkerHold: Int? = nil, uncertaintyShare: Float? = nil, talkerWeight: Float? = nil
  ) {
    self.rate = rate
    let hop = Self.hop(rate: rate)
    let (size, bins) = (2 * hop, hop + 1)
    self.hop = hop
    self.settings = settings
    self.kernels = kernels
    talkerWeighting = max(0, talkerWeight ?? Self.talkerWeight)
    fft = RealFFT(count: size, kernels: kernels)!
    partitions = max(2, Int((settings.filterLength * Double(rate) / Double(hop)).rounded(.up)))
    let band = Int((Self.fullBand / (Double(rate) / Double(size))).rounded(.up))
    lowBins = min(bins, (band + 7) / 8 * 8)
    highPartitions = min(partitions, Self.highPartitions)
    lags = Int((settings.maximumDelay * Double(rate) / Double(hop)).rounded(.up)) + 1
    window = (0..<size).map { Float(Math.sin(Double.pi * (Double($0) + 0.5) / Double(size))) }
    refBlock = [Float](repeating: 0, count: size)
    spectrumCount = 0
    warp = ReferenceWarp(hop: hop)
    driftSnapshot = [Float](repeating: 0, count: Self.driftParts * 2 * bins)
    driftInterval = Self.blocks(lasting: 200, rate: rate)
    driftSettling = Self.blocks(lasting: 800, rate: rate)
    lagTrend = LagTrend(rate: rate)
    let ring = lags + partitions + 2
    spectra = [Float](repeating: 0, count: ring * 2 * bins)
    estimator = EchoDelayEstimator(
      rate: rate, maximumDelay: settings.maximumDelay,
      interval: Self.blocks(lasting: 12, rate: rate), kernels: kernels)
    main = [Float](repeating: 0, count: partitions * 2 * bins)
    shadow = [Float](repeating: 0, count: partitions * 2 * bins)
    covariance = [Float](repeating: 0, count: partitions * bins)
    nearPower = [Float](repeating: 1, count: bins)
    refPower = [Float](repeating: 1, count: bins)
    slowReference = [Float](repeating: 0, count: bins)
    unheardDecay = [Float](repeating: 1, count: bins)
    steadiness = [Float](repeating: 0.5, count: bins)
    advance = [Float](repeating: 0, count: 2 * bins)
    processNoise = [Float](repeating: Self.processNoiseLevels.acquiring, count: bins)
    echoPrev = [Float](repeating: 0, count: hop)
    let lookahead = max(0, lookahead ?? Self.lookaheadBlocks(rate: rate))
    suppressor = ResidualEchoSuppressor(
      bins: bins, rate: rate, settings: settings,
      startBlocks: Int(ResidualEchoSuppressor.startSeconds * Double(rate)) / hop,
      lookahead: lookahead, talkerHold: talkerHold ?? Self.talkerHoldBlocks(rate: rate),
      uncertaintyShare: max(0, uncertaintyShare ?? ResidualEchoSuppressor.uncertaintyShare))
    micRing = [Float](repeating: 0, count: (lookahead + 2) * hop)
    tail = [Float](repeating: 0, count: hop)
    pathProfile = [Float](repeating: 0, count: partitions)
    scratch = [Float](repeating: 0, count: 20 * Self.slotSize(hop: hop))
    bounded = [Float](repeating: 0, count: 2 * hop)
    resetCovariance()
    shapePathProfile(lag: 0)
  }

  static let initialCovariance: Float = 0.1
  /// The regularization of both filters' steps, as a share of the mean power over the bins.
  static let regularization: Float = 0.01
  /// The prior uncertainty falls by this factor per partition (an echo path decays: about
  /// 1 dB per block).
  static let covarianceDecay: Float = 0.8

  /// Sets every partition's uncertainty to its prior.
  mutating func resetCovariance() {
    covarianceReset = blockIndex
    setPriorCovariance(0..<partitions)
  }

  /// Sets the uncertainty of `parts` to its prior: ``initialCovariance``, falling by
  /// ``covarianceDecay`` a partition.
  mutating func setPriorCovariance(_ parts: Range<Int>) {
    let n = bins
    covariance.withUnsafeMutableBufferPointer { p in
      var level = Self.initialCovariance
      for part in 0..<parts.upperBound {
        if part >= parts.lowerBound {
          (p.baseAddress! + part * n).update(repeating: level, count: n)
        }
        level *= Self.covarianceDecay
      }
    }
  }
  /// The suppressor's look-ahead (``ResidualEchoSuppressor/lookahead``): the blocks in 40 ms
  /// (8 at 48 kHz, 43 ms). A block's gains then leave out the estimates that took a talker's
  /// first syllable for a note the filter has not learnt (``ResidualEchoSuppressor/onsetBar``)
  /// when the onset is read in that block or in the 8 after it. The onset bar reads a syllable
  /// over music some blocks after it begins, once its power has spread over three bands; the
  /// blocks before lost it. On the echo bench's 64 loudspeaker scenes (`pcm-mix-bench --filter
  /// echo/ours`) 8 blocks raised double talk by 0.00 to +0.74 dB SI-SDR (4 blocks: up to +0.52;
  /// 16: up to +0.99), ERLE moving −0.49 to +0.02 dB (4: −0.40; 16: −0.60); shifted scenes
  /// missing a target 5 → 4. Looking ahead at the voice rate instead (a block's gains taking
  /// the larger of its rate and the newest block's) raised double talk as much (up to +0.75
  /// dB) but took up to 5.3 dB off ERLE before the path change, two shifted music scenes
  /// falling under 25 dB: a false rise of the rate where the app plays alone then counted for
  /// the blocks before it too.
  package static func lookaheadBlocks(rate: Int) -> Int { blocks(in: 0.04, rate: rate) }
  /// Blocks marked as a talker's after the block an onset is read in
  /// (``ResidualEchoSuppressor/talkerHoldSeconds``): 30 at 48 kHz.
  package static func talkerHoldBlocks(rate: Int) -> Int {
    blocks(in: ResidualEchoSuppressor.talkerHoldSeconds, rate: rate)
  }
  /// The blocks at `rate` that last as long as `blocks` at 48 kHz (the nearest whole number,
  /// at least one): times the canceller was tuned on at 48 kHz, the same at every rate.
  static func blocks(lasting blocks: Int, rate: Int) -> Int {
    let frames = 48_000 * hop(rate: rate)
    return max(1, (blocks * hop(rate: 48_000) * rate + frames / 2) / frames)
  }
  /// The nearest whole number of blocks (``hop(rate:)``) to `seconds` at `rate`.
  static func blocks(in seconds: Double, rate: Int) -> Int {
    Int((seconds * Double(rate) / Double(hop(rate: rate))).rounded())
  }
  /// ``lookaheadBlocks(rate:)`` in seconds.
  package static func lookaheadSeconds(rate: Int) -> Double {
    Double(lookaheadBlocks(rate: rate) * hop(rate: rate)) / Double(rate)
  }
  /// The frames of a block at `rate`: 256 from 32 kHz up, 128 from 16 kHz, 64 below, so that a
  /// block lasts 4–8 ms and the filters adapt about as often as at 48 kHz (5.3 ms), where the
  /// canceller was tuned. With 256 at 16 kHz (16 ms) they adapted a third as often: on the
  /// echo matrix converted to 16 kHz (`pcm-mix-bench --filter echo/16-khz`) speech reached 20 dB
  /// of ERLE 2.2–4.2 s after the start and the talker over music 120 ms late read 5.1–6.5 dB
  /// SI-SDR in double talk (17.2–18.3 at 48 kHz); with 128, 0.5–0.9 s and 16.6–17.0, every
  /// music scene 15.8–17.0, speech 17.7–22.3 (18.3–24.0), ERLE after the path change 30.5–35.0
  /// dB (24.7–33.9). Two minutes of `pcm-mix mix --echo-cancel --rate 16000` took 0.40 s
  /// instead of 0.30 (0.08 without the canceller).
  package static func hop(rate: Int) -> Int { rate >= 32_000 ? 256 : rate >= 16_000 ? 128 : 64 }
  /// Frames of output delay: a block (the suppressor's overlap-add) and its look-ahead.
  package var latency: Int { hop * (1 + suppressor.lookahead) }
  /// The mic's blocks from the one the last output stands for to the input's, a ring of
  /// ``micRingDepth``: the suppressor's frames take the previous block from it too.
  var micRing: [Float]
  /// The suppressor's look-ahead + 2 blocks.
  var micRingDepth: Int { suppressor.lookahead + 2 }
  /// The mic's block that the last output stands for (``latency`` behind the input): the
  /// stages add the output less this block to the mic; while bypassed the output is this
  /// block.
  package func withOutputMic<R>(_ body: (UnsafePointer<Float>) -> R) -> R {
    micRing.withUnsafeBufferPointer {
      body($0.baseAddress! + (blockIndex + 1) % micRingDepth * hop)
    }
  }
  /// Whether the last output is the mic's block as it came (no echo found when it was taken).
  package var outputBypassed: Bool { suppressor.outputBypass }

  /// Bytes held: the arrays, the suppressor's, and the delay search's and the two FFTs' tables
  /// (205,408 bytes at 48 kHz, which this sum left out before 2026-12-06).
  package var retainedBytes: Int {
    4
      * (refBlock.count + spectra.count + main.count + covariance.count + shadow.count
        + nearPower.count + refPower.count + slowReference.count + unheardDecay.count
        + steadiness.count + advance.count
        + processNoise.count + echoPrev.count + tail.count + scratch.count + bounded.count
        + window.count + pathProfile.count + micRing.count + driftSnapshot.count)
      + suppressor.retainedBytes + warp.retainedBytes + lagTrend.retainedBytes
      + estimator.retainedBytes + fft.retainedBytes
  }

  /// The largest magnitude the canceller takes in (18 dB over full scale): a sample beyond it
  /// is taken at ±8, and NaN or ±∞ as 0 (``process(mic:reference:output:)``). Its sums of
  /// squares and its filters' steps are in Float, and a float source can hold any value (an
  /// uninitialised buffer, a codec's glitch). With a sine scene through the real-time pipeline
  /// (float input at 48 kHz, policy average), one app buffer of 480 samples with ten at 10¹⁹
  /// (or 10³⁰, or 3·10³⁸) overflowed them, and every output frame after it was NaN, the app's
  /// too; 10⁸ in the app or a whole buffer at 10⁴ in the mic left the canceller taking nothing
  /// out 5 s later (the output 9.4 dB from the unpoisoned run's there). In that harness a
  /// second of the mic or the app at ±8 was followed by the unpoisoned run's output within
  /// 30 dB 5 s later, as a second at ±1 was; a second of the mic at 10³ was not.
  /// `EchoCancellationTests.noValueInEitherSourceStopsTheCanceller` holds a speech scene with
  /// such values in both sources, and `NoTrapTests.noSampleValuePoisonsTheMix` the pipeline.
  package static let inputBound: Float = 8

  /// One block: `mic` and `reference` (``hop`` frames each) in, the output of the block
  /// ``latency`` earlier into `output`. Both are taken within ±``inputBound`` (NaN and ±∞ as
  /// 0); the mic's block is kept so (``withOutputMic(_:)``, and the output while bypassed).
  package mutating func process(
    mic: UnsafePointer<Float>, reference: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>
  ) {
    var inputs = bounded
    bounded = []
    defer { bounded = inputs }
    inputs.withUnsafeMutableBufferPointer { b in
      let (m, r) = (b.baseAddress!, b.baseAddress! + hop)
      kernels.bound(mic, hop, limit: Self.inputBound, m)
      kernels.bound(reference, hop, limit: Self.inputBound, r)
      processBounded(mic: m, reference: r, output: output)
    }
  }

  /// ``process(mic:reference:output:)`` on inputs within ±``inputBound``.
  mutating func processBounded(
    mic: UnsafePointer<Float>, reference: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>
  ) {
    let h = hop
    blockIndex += 1
    statistics.blocks += 1
    // The scratch moves out of `self` while `self` changes, and back after (no copy).
    var work = scratch
    scratch = []
    defer { scratch = work }
    work.withUnsafeMutableBufferPointer { s in
      let base = s.baseAddress!
      // Scratch, `slotSize(hop:)` floats a slot: 0 time (`size`), 1 re, 2 im, 3 echo re, 4 echo im, 5 power,
      // 6 inverse denominator, 7 error re, 8 error im, 9 shadow re, 10 shadow im, 11 shadow
      // error re, 12 shadow error im, 13 and 14 the echo estimate's spectrum in the error's
      // frame (``weighTalker(_:power:inverse:floor:)``), 15 step, 16 the block's echo
      // estimate, 17 and 18 the two errors (time), 19 the spread reference power; the
      // suppressor uses 0 … 10 (and reads 11: the filter's uncertainty).
      let stride = Self.slotSize(hop: h)
      func slot(_ i: Int) -> UnsafeMutablePointer<Float> { base + i * stride }
      // 1. The reference block's spectrum into the ring; the delay search.
      let refEnergy = pushReference(reference, slot)
      var micEnergy: Float = 0
      for i in 0..<h { micEnergy += mic[i] * mic[i] }
      let farActive = refEnergy > Float(h) * 1e-7
      let micActive = micEnergy > Float(h) * 1e-8
      // The app plays and the mic is not silent: what the search, the filters and the
      // suppressor learn from (see 3).
      let heard = farActive && micActive
      searchDelay(reference: reference, mic: mic, active: heard)
      // 2. Echo estimates of both filters, and the main one's Kalman denominator.
      predictEchoes(slot)
      // To the time domain: the block's echo estimates are the second halves (overlap-save).
      let echo = slot(0)
      let echoNow = slot(16)
      let errorMain = slot(17)
      let errorShadow = slot(18)
      fft.inverse(re: slot(3), im: slot(4), output: echo)
      for i in 0..<h { echoNow[i] = echo[h + i] }
      fft.inverse(re: slot(9), im: slot(10), output: echo)
      var mainE: Float = 0
      var shadowE: Float = 0
      for i in 0..<h {
        errorMain[i] = mic[i] - echoNow[i]
        errorShadow[i] = mic[i] - echo[h + i]
        mainE += errorMain[i] * errorMain[i]
        shadowE += errorShadow[i] * errorShadow[i]
      }
      // 3. Adapt, where the reference plays and the mic is not silent. A mic muted, or a
      // stall filled with zeros, under the app's audio holds no echo to learn: both filters
      // adapted toward an echo of 0, the filters' comparison took the one that predicted less,
      // and the suppressor learnt its leakage from the silence. With the mic silent at
      // 2.5–5.5 s of speech 30 ms RT60 0.2 s, 0.1 dB was taken out over 5.5–5.75 s, 8 dB at
      // 9–11 s, and the talker's double talk read 5.0 dB SI-SDR; with nothing learnt there,
      // 31.9 dB and 20.0 (32.2 and 20.2 with no mute: `aMutedMicTeachesTheCancellerNothing`).
      if heard {
        adapt(errorMain, errorShadow, slot)
      }
      // 4. The filters compared (not on a silent mic: see 3).
      if micActive {
        compareFilters(
          mainEnergy: mainE, shadowEnergy: shadowE, micEnergy: micEnergy, farActive: farActive)
      }
      // The block's linear output is the main filter's error, mic − echoNow (the shadow's is
      // noisier; it only leads the main one through a path change, and then takes its place
      // above): the suppressor takes its spectrum as the mic's less the estimate's.
      // Echo presence, for the bypass decision and the statistics.
      var echoE: Float = 0
      for i in 0..<h { echoE += echoNow[i] * echoNow[i] }
      trackPresence(
        farActive: farActive, mic: Double(micEnergy), echo: Double(echoE),
        error: Double(min(mainE, shadowE)))
      statistics.micDriftPPM = warp.active ? (1 / warp.ratio - 1) * 1e6 : nil
      // The reference's power in each bin as the echo path spreads it (slot 19).
      spreadReference(into: slot(19))
      if suppressor.tracksVoice { directReference(into: slot(9)) }
      // The main filter's uncertainty per bin, ΣP|X|² from the prediction (slot 5), in the
      // error's scale, into slot 11 (free once the filters are adapted): the echo it may miss.
      let power = slot(5)
      let uncertainty = slot(11)
      for k in 0..<bins { uncertainty[k] = 0.5 * power[k] }
      // 5. The suppressor on two-block frames of error, echo estimate and mic; overlap-add.
      micRing.withUnsafeBufferPointer { ring in
        suppressor.process(
          reference: slot(19), direct: slot(9), echo: echoNow, echoPrev: &echoPrev, mic: mic,
          micPrev: ring.baseAddress! + (blockIndex - 1) % micRingDepth * h, window: window,
          uncertainty: uncertainty, fft: fft, scratch: slot,
          farActive: heard,
          echoDue: farActive || blockIndex - lastFarBlock <= echoDueBlocks, tail: &tail,
          output: output, bypass: bypassed, statistics: &statistics)
      }
      detectPathChange()
      trackDrift(heard: heard)
      if farActive {
        if blockIndex - lastFarBlock > pauseBlocks { farResumed = blockIndex }
        lastFarBlock = blockIndex
      }
      if !echoSettled {
        if suppressor.echoAlone { settledBlocks += 1 }
        echoSettled =
          settledBlocks >= Self.settlingBlocks || (bypassed && suppressor.farBlocks > rate / h)
      }
      let newest = blockIndex % micRingDepth * h
      micRing.withUnsafeMutableBufferPointer {
        ($0.baseAddress! + newest).update(from: mic, count: h)
      }
      if suppressor.outputBypass {
        // The mic as it came, ``latency`` late: bit for bit.
        withOutputMic { output.update(from: $0, count: h) }
      }
    }
  }

  /// The reference block into the ring (its spectrum, on a two-block frame), through the warp
  /// once it is started (``trackDrift()``): none, one or two blocks, the filters' delay moved
  /// to match. Returns the raw block's energy.
  mutating func pushReference(
    _ reference: UnsafePointer<Float>, _ slot: (Int) -> UnsafeMutablePointer<Float>
  ) -> Float {
    let h = hop
    var refEnergy: Float = 0
    for i in 0..<h { refEnergy += reference[i] * reference[i] }
    warp.push(reference)
    guard warp.active else {
      pushSpectrum(reference, slot)
      return refEnergy
    }
    var pushed = 0
    while pushed < 2 && warp.canProduce {
      warp.produce(into: slot(0), kernels: kernels)
      pushSpectrum(slot(0), slot)
      pushed += 1
    }
    // The ring's newest block moved by `pushed` while the mic moved by one: the filters read
    // it that much nearer (their coefficients stay where they are).
    let moved = delay + pushed - 1
    if moved < 0 && spareFront > 0 {
      // No delay left to give, but the filters' first partition holds none of the echo: it is
      // given up instead (each partition takes the next's coefficients, exactly the filter it
      // was on the ring a block later), and the delay stays 0.
      shiftFilters(by: 1, keepingUncertainty: true)
      shapePathProfile(lag: directOffset - h)
      return refEnergy
    }
    guard moved >= 0 && moved < lags else {
      // The echo now comes sooner than the filters can reach behind the warp's lag (a drift
      // that has gone on for minutes: at 20 ppm a block every 4.4 minutes), or later than the
      // longest delay searched. The warp stops, the raw reference goes on (a block of it now,
      // if the warp gave none), and the delay search places the filters again.
      warp.stop()
      driftVotes = 0
      searchVotes = 0
      if pushed == 0 { pushSpectrum(reference, slot) }
      delay = max(0, min(lags - 1, moved))
      return refEnergy
    }
    delay = moved
    return refEnergy
  }

  /// One block into the reference frame, its spectrum into the ring's next slot (and into
  /// slots 1 and 2).
  mutating func pushSpectrum(
    _ block: UnsafePointer<Float>, _ slot: (Int) -> UnsafeMutablePointer<Float>
  ) {
    let h = hop
    let n = bins
    refBlock.withUnsafeMutableBufferPointer { r in
      r.baseAddress!.update(from: r.baseAddress! + h, count: h)
      (r.baseAddress! + h).update(from: block, count: h)
      fft.forward(r.baseAddress!, re: slot(1), im: slot(2))
    }
    ringCount += 1
    let newest = ringCount % ringBlocks
    spectra.withUnsafeMutableBufferPointer { sp in
      (sp.baseAddress! + newest * 2 * n).update(from: slot(1), count: n)
      (sp.baseAddress! + newest * 2 * n + n).update(from: slot(2), count: n)
    }
  }

  /// Feeds the delay search; when it finds the echo's delay, moves the filters so that the
  /// direct path lies early in them (not at their very start).
  mutating func searchDelay(
    reference: UnsafePointer<Float>, mic: UnsafePointer<Float>, active: Bool
  ) {
    let h = hop
    if estimator.push(reference: reference, mic: mic, count: h, active: active),
      let found = estimator.found
    {
      if estimator.confirmed {
        lastFound = blockIndex
        lagTrend.add(block: blockIndex, lag: estimator.fractionalLag)
      }
      statistics.delay = Double(found) / Double(rate)
      // The search runs on the raw reference; the ring holds it as the warp read it.
      let lag = found + Int(warp.offset.rounded())
      if !lockedOnWholeHistory && estimator.historyFull {
        lockedOnWholeHistory = true
        resetCovariance()
      }
      // The direct path belongs early in the filter, not at its very start: moved when it
      // falls outside the first two partitions' middle.
      let offset = lag - delay * h
      if offset < h / 8 || offset > 2 * h {
        let wanted = max(0, min(lags - 1, (lag - 3 * h / 8) / h))
        if wanted != delay { shiftFilters(by: wanted - delay) }
        delay = wanted
      }
      shapePathProfile(lag: lag)
    }
  }

  /// Sets ``pathProfile`` for an echo found `lag` frames late, with the filter at ``delay``.
  /// Partitions under a hundredth of the direct path's weight are left at 0 (1 % of the power,
  /// half the partitions: ``spreadReference(into:)`` skips them).
  mutating func shapePathProfile(lag: Int) {
    directOffset = lag - delay * hop
    let first = directPartition
    var level: Float = 1
    var total: Float = 0
    for part in 0..<partitions {
      let weight: Float = part < first - 1 ? 0 : part == first - 1 ? 0.5 : level
      if part >= first { level *= 0.8 }
      pathProfile[part] = weight
      total += weight
    }
    let least = 0.01 / total
    for part in 0..<partitions {
      pathProfile[part] /= total
      if pathProfile[part] < least { pathProfile[part] = 0 }
    }
  }

  /// The reference's power in each bin as the echo path spreads it: the partitions' spectra
  /// weighted by ``pathProfile``, into `out`.
  func spreadReference(into out: UnsafeMutablePointer<Float>) {
    let n = bins
    out.update(repeating: 0, count: n)
    spectra.withUnsafeBufferPointer { sp in
      for part in 0..<partitions where pathProfile[part] > 0 {
        let x = sp.baseAddress! + spectrumSlot(part) * 2 * n
        kernels.powerAdd(x, x + n, n, pathProfile[part], out)
      }
    }
  }

  /// The reference's power in each bin at the direct path: the larger of the partition of
  /// ``directPartition`` and the one before it, into `out`. Where a note has just begun it is
  /// what the mic hears at once, while ``spreadReference(into:)``, the power spread over the
  /// path's tail, holds a fifth of it.
  func directReference(into out: UnsafeMutablePointer<Float>) {
    let n = bins
    out.update(repeating: 0, count: n)
    spectra.withUnsafeBufferPointer { sp in
      for part in max(0, directPartition - 1)...directPartition {
        let x = sp.baseAddress! + spectrumSlot(part) * 2 * n
        for k in 0..<n { out[k] = max(out[k], x[k] * x[k] + x[n + k] * x[n + k]) }
      }
    }
  }

  /// Both filters' echo spectra (slots 3, 4 and 9, 10) and the main one's Kalman denominator
  /// (slot 5): every partition below ``lowBins``, the first ``highPartitions`` above.
  func predictEchoes(_ slot: (Int) -> UnsafeMutablePointer<Float>) {
    spectra.withUnsafeBufferPointer { sp in
      main.withUnsafeBufferPointer { w in
        shadow.withUnsafeBufferPointer { v in
          covariance.withUnsafeBufferPointer { p in
            // Every partition below `lowBins`, the first `highPartitions` above (as in
            // ``adapt(_:_:_:)``).
            func predict(_ bands: Range<Int>, _ count: Int) {
              kernels.predict(
                w.baseAddress!, v.baseAddress!, p.baseAddress!, ring: sp.baseAddress!,
                ringBlocks: ringBlocks, newest: spectrumSlot(0), partitions: count, bins: bins,
                first: bands.lowerBound, count: bands.upperBound, slot(3), slot(4), slot(9),
                slot(10), slot(5))
            }
            predict(0..<lowBins, partitions)
            predict(lowBins..<bins, highPartitions)
          }
        }
      }
    }
  }

  /// The filters compared by their smoothed errors: the shadow takes over after an echo path
  /// change (`shadowLead` blocks ahead); it is reset to the main one when it falls behind.
  ///
  /// Not while a talker is heard (the suppressor's ``ResidualEchoSuppressor/voiceRate`` over
  /// ``takeoverVoiceRate``): in double talk the shadow, with its large step, follows the talker
  /// too, and its error can fall below the main one's for being fitted to the voice. On speech
  /// 30 ms RT60 0.2 s with the app's speech started 6.45 s in (`EchoScene`'s `appShift`), the
  /// shadow took over at 7.6 s, in double talk; at 9.5 s, the talker gone, the filter's output
  /// stood 14 dB over the mic (ERLE before the change 4.6 dB, double-talk SI-SDR 11.2). With
  /// the gate: 31.5 dB and 19.7. The voice rate reads the app's power through the path's gain
  /// per band, not through the filter, so a changed path does not hold the gate shut: no scene
  /// reconverged slower, unshifted or at any of the bench's three shifts (three at 6.45 s
  /// faster: 1.0 → 0.2, 1.4 → 0.7 and 1.0 → 0.5 s).
  mutating func compareFilters(
    mainEnergy mainE: Float, shadowEnergy shadowE: Float, micEnergy: Float, farActive: Bool
  ) {
    mainError = 0.9 * mainError + 0.1 * Double(mainE)
    shadowError = 0.9 * shadowError + 0.1 * Double(shadowE)
    let talking = suppressor.voiceRate > Self.takeoverVoiceRate
    if farActive && !talking && shadowError < 0.5 * mainError
      && mainError > Double(micEnergy) * 0.01
    {
      shadowLead += 1
    } else {
      shadowLead = 0
    }
    if shadowLead >= 8 {
      main.withUnsafeMutableBufferPointer { m in
        shadow.withUnsafeBufferPointer {
          m.baseAddress!.update(from: $0.baseAddress!, count: $0.count)
        }
      }
      resetCovariance()
      shadowLead = 0
      statistics.pathChanges += 1
      mainError = shadowError
    } else if shadowError > 4 * mainError && mainError > 0 {
      shadow.withUnsafeMutableBufferPointer { v in
        main.withUnsafeBufferPointer {
          v.baseAddress!.update(from: $0.baseAddress!, count: $0.count)
        }
      }
      shadowError = mainError
    }
  }

  /// The ring slot of partition `part`'s spectrum: `delay + part` blocks before the newest.
  func spectrumSlot(_ part: Int) -> Int {
    let ring = ringBlocks
    return ((ringCount - delay - part) % ring + ring) % ring
  }

  /// The Kalman update of the main filter and the NLMS update of the shadow, from the two
  /// blocks' errors; one partition of each made causal again.
  mutating func adapt(
    _ errorMain: UnsafeMutablePointer<Float>, _ errorShadow: UnsafeMutablePointer<Float>,
    _ slot: (Int) -> UnsafeMutablePointer<Float>
  ) {
    let n = bins
    // Error spectra, zero-padded in front (overlap-save).
    paddedSpectrum(errorMain, time: slot(0), re: slot(7), im: slot(8))
    paddedSpectrum(errorShadow, time: slot(0), re: slot(11), im: slot(12))
    // Ψ: the near end's power in each bin as the main error shows it, less what the filter's
    // own uncertainty explains; and the reference's power for the shadow's step.
    let (power, inverse, step) = (slot(5), slot(6), slot(15))
    // The state transition: each bin's uncertainty P decays by A² a block (A = 0.999) and grows
    // back by the process noise q·|W|², how far the echo path may move in a block
    // (``updateProcessNoise()``). (A changed path is caught by resetting P instead:
    // ``detectPathChange()``, the shadow.)
    updateProcessNoise()
    let a2: Float = 0.999 * 0.999
    let newest = spectrumSlot(0) * 2 * n
    // Regularization: a bin the reference hardly reaches (between a tone's partials) must not
    // take a step as large as its power is small, or it learns other bins' leakage and sings.
    var mean: Float = 0
    for k in 0..<n { mean += power[k] }
    let floor = max(1e-6, Self.regularization * mean / Float(n))
    var refMean: Float = 0
    for k in 0..<n { refMean += refPower[k] }
    let nlmsFloor = max(1e-4, Float(partitions) * Self.regularization * refMean / Float(n))
    nearPower.withUnsafeMutableBufferPointer { psi in
      refPower.withUnsafeMutableBufferPointer { rp in
        spectra.withUnsafeBufferPointer { sp in
          let x = sp.baseAddress! + newest
          kernels.steps(
            slot(7), slot(8), power, x, x + n, psi.baseAddress!, rp.baseAddress!, inverse, step,
            n, floor, Float(partitions), nlmsFloor)
        }
      }
    }
    if weighsTalker { weighTalker(slot, power: power, inverse: inverse, floor: floor) }
    let (ring, first, low) = (ringBlocks, spectrumSlot(0), lowBins)
    // P's pull back towards its prior, in partition 0 (``revertVoiceRate``).
    let revert: Float =
      suppressor.voiceRate < Self.revertVoiceRate ? (1 - a2) * Self.initialCovariance : 0
    spectra.withUnsafeBufferPointer { sp in
      main.withUnsafeMutableBufferPointer { w in
        shadow.withUnsafeMutableBufferPointer { v in
          covariance.withUnsafeMutableBufferPointer { p in
            processNoise.withUnsafeBufferPointer { q in
              // Every partition below `lowBins`, the first `highPartitions` above.
              func update(_ bands: Range<Int>, _ count: Int) {
                kernels.update(
                  main: w.baseAddress!, shadow: v.baseAddress!, p.baseAddress!,
                  ring: sp.baseAddress!, ringBlocks: ring, newest: first, partitions: count,
                  bins: n, first: bands.lowerBound, count: bands.upperBound, slot(7), slot(8),
                  inverse, slot(11), slot(12), step, processNoise: q.baseAddress!, a2, 0.5,
                  revert: revert, decay: Self.covarianceDecay)
              }
              update(0..<low, partitions)
              update(low..<n, highPartitions)
            }
          }
        }
      }
    }
    forgetUnheardBins()
    // One partition made causal per block (its impulse response's second half zeroed), of the
    // main filter and the shadow in turn: two FFTs a block instead of four.
    constrain(shadow: blockIndex & 1 == 1, (blockIndex >> 1) % partitions, slot)
  }

  /// Lets the main filter's coefficients decay by the model's A (0.999 a block) in the bins the
  /// reference has hardly reached for seconds: where ``slowReference`` is under
  /// ``unheardShare`` of its mean over the bins. Nothing there is measured (the app's speech
  /// leaves everything above 11 kHz to the frame's leakage), yet the Kalman steps go on, and P
  /// grows with the coefficients (its process noise is q·|W|²): in a capture longer than the
  /// bench's 20 s scenes the coefficients grew about 1.4 times every 20 s, and the talker in
  /// double talk on speech 30 ms RT60 0.2 s fell from 20.2 dB SI-SDR to 12.6 in five minutes
  /// (`scripts/echo_long_capture.py`), ERLE unmoved. Decaying here it holds at 19.8–20.2 for
  /// the five minutes (speech 120 ms RT60 0.5 s clip: 17.6–17.8, where it fell to 14.7).
  /// Decaying every bin held it too but cost the matrix's double talk 1.4 dB on average (music's
  /// notes must outlast their silences). Shares of 0.01 and 0.001: see ``unheardShare``.
  mutating func forgetUnheardBins() {
    let n = bins
    var total: Float = 0
    let newest = spectrumSlot(0) * 2 * n
    slowReference.withUnsafeMutableBufferPointer { slow in
      spectra.withUnsafeBufferPointer { sp in
        let x = sp.baseAddress! + newest
        for k in 0..<n {
          slow[k] = 0.999 * slow[k] + 0.001 * (x[k] * x[k] + x[n + k] * x[n + k])
          total += slow[k]
        }
      }
    }
    // Every eighth block, by A⁸: the same decay at an eighth of the passes over the filter.
    guard blockIndex % 8 == 0 else { return }
    let bar = Self.unheardShare * total / Float(n)
    var any = false
    slowReference.withUnsafeBufferPointer { slow in
      unheardDecay.withUnsafeMutableBufferPointer { f in
        for k in 0..<n {
          let unheard = slow[k] < bar
          f[k] = unheard ? Self.unheardDecayFactor : 1
          any = any || unheard
        }
      }
    }
    guard any else { return }
    let count = partitions
    unheardDecay.withUnsafeBufferPointer { f in
      main.withUnsafeMutableBufferPointer { w in
        for part in 0..<count {
          let re = w.baseAddress! + part * 2 * n
          let im = re + n
          for k in 0..<n {
            re[k] *= f[k]
            im[k] *= f[k]
          }
        }
      }
    }
  }

  /// A⁸ (A = 0.999): eight blocks' decay at once (``forgetUnheardBins()``).
  static let unheardDecayFactor: Float = 0.992_028

  /// The share of the mean reference power under which a bin counts as unheard
  /// (``forgetUnheardBins()``). Over the echo bench's matrix and seven shifts (128 scenes, the
  /// fast CLI loop) 0.003 moved double talk −0.12 to +0.42 dB and ERLE −0.28 dB at worst, the
  /// scenes missing a target 9 → 10 (one speech reconvergence); 0.01 cost double talk up to
  /// 1.45 dB and took them to 14; 0.001 let speech fall to 13.7 dB in five minutes.
  static let unheardShare: Float = 0.003

  /// The spectrum of one block `x` (``hop`` frames) in the filters' frame: zero-padded in
  /// front to 512 through `time` (overlap-save), into `re` and `im`.
  func paddedSpectrum(
    _ x: UnsafePointer<Float>, time: UnsafeMutablePointer<Float>,
    re: UnsafeMutablePointer<Float>, im: UnsafeMutablePointer<Float>
  ) {
    let h = hop
    for i in 0..<h { (time[i], time[h + i]) = (0, x[i]) }
    fft.forward(time, re: re, im: im)
  }

  /// The process noise q per bin (of P's growth, q·|W|²), from how steadily the reference's
  /// phase advances in that bin: where it holds a tone, q rises from ``processNoiseLevels``'s
  /// `base` towards `tonal`; in its first two seconds and for two seconds after the path-change
  /// detector resets P (``detectPathChange()``; not after the shadow's takeover or a moved
  /// delay, which reset P too), it is at least `acquiring`.
  ///
  /// A tone's partial advances by the same phase every block; a bin, 94 Hz wide, then holds
  /// it until the next note puts another partial there, which the room treats apart, so the
  /// coefficients must follow from note to note: music in double talk wanted more process noise
  /// (0.005·|W|²: SI-SDR of the talker +0.8 to +1.4 dB on music 30 ms) and speech less
  /// (0.0002·|W|²: +0.9 to +1.6 dB, but convergence 1.8–3.0 s on three scenes). Halving the
  /// tonal level later (0.0025) gained 0 to +0.3 dB of double talk on all 16 bench scenes and
  /// cut the held-out shifts' misses from 43 to 40; dropping it (0.001) cost three music
  /// scenes of the shifted table their double talk. Steadiness
  /// over 0.9 held 25–66 % of the power of the music's app audio under 4 kHz and 0–7 % of the
  /// speech's (`pcm-mix-bench --filter echo`'s scenes).
  mutating func updateProcessNoise() {
    let n = bins
    let (newest, previous) = (spectrumSlot(0) * 2 * n, spectrumSlot(1) * 2 * n)
    let (steady, tonal) = Self.steadyTone
    let noise = Self.processNoiseLevels
    let base =
      blockIndex - lastReset < 2 * rate / hop ? max(noise.base, noise.acquiring) : noise.base
    spectra.withUnsafeBufferPointer { sp in
      steadiness.withUnsafeMutableBufferPointer { s in
        advance.withUnsafeMutableBufferPointer { u in
          processNoise.withUnsafeMutableBufferPointer { q in
            let (xr, yr) = (sp.baseAddress! + newest, sp.baseAddress! + previous)
            let (xi, yi) = (xr + n, yr + n)
            let (s, q) = (s.baseAddress!, q.baseAddress!)
            let (ur, ui) = (u.baseAddress!, u.baseAddress! + n)
            let (scale, rise) = (1 / (tonal - steady), noise.tonal - base)
            for k in 0..<n {
              // x·conj(y): this block's phase advance, as a unit phasor.
              let dr = xr[k] * yr[k] + xi[k] * yi[k]
              let di = xi[k] * yr[k] - xr[k] * yi[k]
              let m = (dr * dr + di * di).squareRoot()
              let inverse: Float = m > 1e-20 ? 1 / m : 0
              let (pr, pi) = (dr * inverse, di * inverse)
              let (cr, ci) = (pr - ur[k], pi - ui[k])
              let d = 0.25 * (cr * cr + ci * ci)
              let change: Float = d < 1 ? d : 1
              ur[k] = pr
              ui[k] = pi
              s[k] += 0.1 * ((1 - change) - s[k])
              let t = (s[k] - steady) * scale
              q[k] = base + rise * (t < 0 ? 0 : t > 1 ? 1 : t)
            }
          }
        }
      }
    }
  }

  /// The suppressor's ``ResidualEchoSuppressor/voiceRate`` under which the Kalman filter's P
  /// reverts towards its prior: while no talker is heard, each block adds
  /// (1 − A²) × the prior (``resetCovariance()``) to every bin's P, as if the echo path wandered
  /// about the prior's spread (W ← A·W + noise of that spread) besides the process noise
  /// q·|W|². Without it, a bin the reference has not reached keeps W = 0 and its P decays
  /// by A² a block towards 0, so a note first heard seconds in is learnt slowly: on music
  /// 120 ms with the app's piece started 2.15 s in (`EchoScene`'s `appShift`), a G chord first
  /// played at 4.25 s, where the app plays alone, left ERLE before the path change at
  /// 12.5–12.9 dB; with the reversion 26.4–27.4. Not while a talker is heard: the larger P
  /// takes larger steps in double talk: ungated, the talker's SI-SDR in double talk fell 0.8–6.1
  /// dB on every one of the bench's 64 loudspeaker scenes.
  static let revertVoiceRate: Float = 0.1

  /// The suppressor's ``ResidualEchoSuppressor/voiceRate`` over which the main filter's step
  /// weighs the talker's power (``weighsTalker``).
  static let talkerVoiceRate: Float = 0.4
  /// How much more the talker's power weighs in the main filter's `Ψ` than the error's power
  /// does, and the share of the suppressor's residual estimate taken off the error's power
  /// for it (see ``weighTalker(_:power:inverse:floor:)``).
  static let talkerWeight: Float = 3
  static let talkerResidualShare: Float = 0.5
  /// This canceller's ``talkerWeight`` (0: the step does not weigh the talker).
  let talkerWeighting: Float

  /// Whether this block's step weighs the talker's power
  /// (``weighTalker(_:power:inverse:floor:)``): a talker is heard (the suppressor's voice rate
  /// over ``talkerVoiceRate``), after the app's first seconds (where the suppressor takes
  /// every block as the echo alone and its voice rate is not read), and while the main
  /// filter's smoothed error is no larger than the shadow's. The shadow leads where the echo
  /// path has changed, and there the voice rate, which reads the app's power through the
  /// path's gain per band, rises with no talker: a filter slowed then left the echo in, and
  /// the ducker took it for a voice (speech 30 ms RT60 0.5 s, the app's piece from 2.15 s:
  /// the app ducked 10 dB over 11.2–12.6 s, after the phone moved; and from the first seconds
  /// on music 120 ms RT60 0.2 s from 1.1 s, 0.6–1.7 s, before the start was left out).
  var weighsTalker: Bool {
    talkerWeighting > 0 && suppressor.voiceRate > Self.talkerVoiceRate
      && suppressor.farBlocks >= suppressor.startBlocks && shadowError >= mainError
  }

  /// In double talk, the main filter's step made smaller where the talker is loud: each
  /// bin's `Ψ` is at least ``talkerWeight`` × the talker's power there, the error's power
  /// less ``talkerResidualShare`` of the echo the filter may have left (the suppressor's
  /// leakage of this block's echo estimate and the filter's own uncertainty, half of
  /// `power`). Not in the bins where the app's power has just risen
  /// (``ResidualEchoSuppressor/markOnsets(reference:)``): a note that begins under the talker
  /// must still be learnt. `inverse` (the Kalman gain's `1 / (Σ P|X|² + 2Ψ + floor)`, from
  /// the kernel's `Ψ`) is worked out again where the talker's weight is the larger.
  ///
  /// `Ψ` follows the error's power, which in double talk holds the residual echo as well as
  /// the talker: a filter that knew each bin's near-end power (the talker and the room's noise,
  /// from the scenes' parts), weighed 8 times, kept the talker in double talk 1.3–1.6 dB
  /// higher on music 120 ms RT60 0.5 s, music 30 ms RT60 0.2 s and speech 30 ms RT60 0.5 s
  /// (whole canceller; 2.3–3.9 dB for the filter alone); the same weight on the whole block
  /// where the talker speaks, 0.25–0.7 dB. Estimated from the error as here, on the matrix and
  /// the seven shifts of the echo bench: double talk +0.25 dB on average on the matrix (+0.07
  /// to +0.62), +0.19 on the three tuned shifts, +0.31 on the four others, ERLE −0.21 dB at
  /// worst, and the scenes missing a target 19 → 14 (all on the four shifts). Over a voice rate
  /// of 0.3 instead of 0.4, or without sparing the onsets' bins, a new chord read as a voice
  /// slowed the filter where the app played alone (ERLE before the path change down by up to
  /// 2.9 and 2.3 dB); with the residual taken off whole, double talk rose only 0.16–0.25 dB on
  /// average; weighed 6 times with a quarter of it taken off, 16 scenes missed (these four
  /// measured before the gates on the app's first seconds and on the shadow).
  func weighTalker(
    _ slot: (Int) -> UnsafeMutablePointer<Float>, power: UnsafeMutablePointer<Float>,
    inverse: UnsafeMutablePointer<Float>, floor: Float
  ) {
    let n = bins
    // The block's echo estimate in the error's frame (zero-padded in front).
    let (yr, yi, er, ei) = (slot(13), slot(14), slot(7), slot(8))
    paddedSpectrum(slot(16), time: slot(0), re: yr, im: yi)
    let weight = talkerWeighting
    let share = Self.talkerResidualShare
    suppressor.leakage.withUnsafeBufferPointer { leakage in
      suppressor.bandOf.withUnsafeBufferPointer { band in
        suppressor.onsetHold.withUnsafeBufferPointer { onset in
          for k in 0..<n where onset[k] == 0 {
            let e2 = er[k] * er[k] + ei[k] * ei[k]
            let y2 = yr[k] * yr[k] + yi[k] * yi[k]
            let residual = share * (leakage[Int(band[k])] * y2 + 0.5 * power[k])
            let talker = weight * (e2 - residual)
            let near = (1 / inverse[k] - power[k] - floor) / 2
            if talker > near { inverse[k] = 1 / (power[k] + 2 * talker + floor) }
          }
        }
      }
    }
  }

  /// The suppressor's voice rate over which the shadow does not take over
  /// (``compareFilters(mainEnergy:shadowEnergy:micEnergy:farActive:)``). At 0.5 the music
  /// 120 ms scenes' double talk gained less (+0.08 and +0.13 dB on RT60 0.5 s, against +0.46
  /// and +0.51 at 0.3).
  static let takeoverVoiceRate: Float = 0.3

  /// The levels of the process noise (see ``updateProcessNoise()``): the least it is while the
  /// filter acquires the path, the base elsewhere, and where the reference holds a tone.
  static let processNoiseLevels: (acquiring: Float, base: Float, tonal: Float) = (
    0.002, 0.001, 0.0025
  )
  /// The steadiness of a bin's phase advance (``steadiness``) from which the process noise
  /// rises, and at which it reaches `tonal`.
  static let steadyTone: (from: Float, to: Float) = (0.8, 0.95)

  /// Zeroes the second half of partition `part`'s impulse response in the main filter or the
  /// shadow. (Mutating, so that the filter is not also held by a copy of `self`: that would
  /// copy it.)
  mutating func constrain(shadow: Bool, _ part: Int, _ slot: (Int) -> UnsafeMutablePointer<Float>) {
    let (h, n, fft) = (hop, bins, fft)
    func run(_ f: UnsafeMutableBufferPointer<Float>) {
      let re = f.baseAddress! + part * 2 * n
      let im = re + n
      let time = slot(0)
      slot(1).update(from: re, count: n)
      slot(2).update(from: im, count: n)
      fft.inverse(re: slot(1), im: slot(2), output: time)
      for i in h..<(2 * h) { time[i] = 0 }
      fft.forward(time, re: re, im: im)
    }
    if shadow {
      self.shadow.withUnsafeMutableBufferPointer { run($0) }
    } else {
      main.withUnsafeMutableBufferPointer { run($0) }
    }
  }

  /// Partitions in ``trackDrift()``'s snapshot: the one before the direct path's and the
  /// three from it.
  static let driftParts = 4
  /// Blocks between two readings of the drift: 1.07 s (200 blocks at 48 kHz).
  let driftInterval: Int
  /// Blocks after P is reset (``resetCovariance()``: the lock, a path change) before a
  /// snapshot counts: 4.3 s (800 blocks at 48 kHz). A filter still converging turns its phases
  /// as a drift would (on music 30 ms RT60 0.2 s, with no drift, readings of 28–75 ppm over
  /// 2–4 s started the warp).
  ///
  /// The drift's times were counted in blocks, which lasted three times as long at 16 kHz (of
  /// 256 frames then, ``hop(rate:)``): there
  /// a speech scene drifted 20 ppm (`anEchoOnAnotherClockIsFollowedAtOtherRates`) never started
  /// the warp in a minute, and its later copies read 15.5–17.8 dB of ERLE and 12.6–12.8 dB
  /// SI-SDR in double talk; at 24 kHz the warp started at 14.9 s.
  let driftSettling: Int
  /// The drift (samples per sample) under which the warp is not started: at 5 ppm ERLE and
  /// double talk stay within 0.1 dB of no drift over two minutes; at 10 ppm ERLE after the
  /// path change read 26.1 dB in the first 20 s (30.8 with none).
  static let driftStart = 3e-6
  /// Readings of the filter's phase in a row (over ``driftStart``, of one sign) that start the
  /// warp.
  static let driftReadings = 3
  /// The most the filter's phase may read, once the warp runs, for the reading to move it. What
  /// is left of the drift then is the start's error: live, with the clocks 150 and −100 ppm
  /// off, within 9 ppm (25.1–28.7 ppm at +20, 93.7–96.4 at +100), and in the guide's model of
  /// the clocks −300/+300 within 27. A reading past that is a filter thrown off, on music above
  /// all, whose phase does not follow a drift. Live, music 120 ms RT60 0.5 s at −50 ppm read
  /// +92.2 and −73.8 after the start: each moved the ratio 5 ppm, and it sat 5 ppm short of
  /// the drift for 13 s (the second copy's ERLE over 3–6 s 24.9 dB). Left out: 28.8 dB. Over
  /// 16 drifted live runs and 64 drifted files (speech and music at +20, +50, +100 and −50 ppm,
  /// three copies) the least ERLE in copies 2–3 went 24.9 → 28.8 dB live and 26.0 → 26.1 on
  /// music files, double talk there moved −0.7 to +1.1 dB by copy with the mean the same to
  /// 0.02 dB, and the first copies within 0.1 dB on average. With no drift the warp does not
  /// run, so nothing else changes.
  static let driftOutlier = 30e-6

  /// Measures how fast the echo slides against the reference (two clocks), and brings the
  /// reference onto the echo's clock (``ReferenceWarp``). Every ``driftInterval`` blocks it
  /// compares the main filter's partitions about the direct path with their snapshot from the
  /// last reading: a delay moved by δ frames turns bin k's phase by 2πkδ/512. The phase of
  /// Σ Z_k·Z*_{k−1} (Z_k the bin's product with the snapshot's conjugate, summed over the
  /// partitions) reads δ roughly, and a fit of what each bin's phase leaves after it reads the
  /// rest. A reading counts where the filters held their place and were not reset since the
  /// snapshot nor for ``driftSettling`` blocks before it, the app was heard in 80 % of the
  /// blocks, and the phase turns coherently (|Σ Z_k·Z*_{k−1}| at least half of
  /// Σ|Z_k·Z*_{k−1}|). Three readings in a row of one sign over ``driftStart`` start the warp;
  /// after that each reading takes half of what it reads (at most 5 ppm) off the warp's ratio.
  ///
  /// Music's filter hardly follows a drift between the shadow's takeovers, so it reads near 0
  /// there; the delay search's reading (``followSearch(_:)``) starts the warp instead.
  mutating func trackDrift(heard: Bool) {
    if heard { driftHeard += 1 }
    guard blockIndex - driftBlock >= driftInterval else { return }
    if let reading = lagTrend.drift(at: blockIndex, hop: hop) {
      followSearch(reading.drift, error: reading.error)
    }
    let n = bins
    let width = 2 * n
    let first = max(0, min(partitions - Self.driftParts, directPartition - 1))
    let valid =
      driftBlock - covarianceReset >= driftSettling && delay == driftDelay
      && first == driftPart && lastReset == driftReset
      && statistics.pathChanges == driftPaths && !bypassed && echoSettled
      && driftHeard * 10 >= 8 * (blockIndex - driftBlock)
    if valid {
      // Z_k = W_k·conj(S_k), the filter now against its snapshot, over the four partitions.
      let moved = main.withUnsafeBufferPointer { w in
        driftSnapshot.withUnsafeBufferPointer { old in
          Self.phaseDelay(parts: Self.driftParts, bins: lowBins, size: size) { part, k in
            let a = w.baseAddress! + (first + part) * width
            let b = old.baseAddress! + part * width
            return (
              Double(a[k] * b[k] + a[n + k] * b[n + k]), Double(a[n + k] * b[k] - a[k] * b[n + k])
            )
          }
        }
      }
      if let moved { followDrift(moved / Double((blockIndex - driftBlock) * hop)) }
    }
    main.withUnsafeBufferPointer { w in
      driftSnapshot.withUnsafeMutableBufferPointer { old in
        old.baseAddress!.update(
          from: w.baseAddress! + first * width, count: Self.driftParts * width)
      }
    }
    driftBlock = blockIndex
    driftDelay = delay
    driftPart = first
    driftReset = lastReset
    driftPaths = statistics.pathChanges
    driftHeard = 0
  }

  /// One reading of the drift (the echo's delay growth, frames per frame): three in a row of
  /// one sign over ``driftStart`` start the warp; after that each takes half of what it reads
  /// (at most 5 ppm: a filter the shadow has just replaced, or a double talk, reads tens of
  /// ppm once in a while) off the warp's ratio, unless it reads more than ``driftOutlier``.
  mutating func followDrift(_ drift: Double) {
    if warp.active {
      guard abs(drift) <= Self.driftOutlier else { return }
      let step = max(-5e-6, min(5e-6, 0.5 * drift))
      warp.ratio = Self.warpRatio(warp.ratio - step)
    } else {
      driftVotes = Self.tally(driftVotes, drift, over: Self.driftStart)
      startWarp(after: driftVotes, needed: Self.driftReadings, drift: drift)
    }
  }

  /// Whole partitions at the filters' start that hold none of the echo: what lies before the
  /// direct path, less an eighth of a block for its onset (the placement's margin,
  /// ``searchDelay(reference:mic:active:)``). The warp's start takes a block of delay
  /// (``pushReference(_:_:)``); where the delay is 0 a spare partition gives it instead. The
  /// start once needed a delay of 2 blocks, an echo 608 frames late or more: at 16 kHz an
  /// output latency of 30 ms (the echo 496 frames late) left the delay at 0, and a loudspeaker
  /// 20 ppm fast was never followed (`anEchoOnAnotherClockIsFollowedAtOtherRates`).
  var spareFront: Int { max(0, (directOffset - hop / 8) / hop) }

  /// `ratio` kept within 500 ppm of 1: no pair of crystals is that far apart, and a reading
  /// past it is a filter thrown off, not a drift.
  static func warpRatio(_ ratio: Double) -> Double { max(1 - 5e-4, min(1 + 5e-4, ratio)) }

  /// A reading's vote: one more of its sign where it is over `bar` (the count starts again at a
  /// change of sign), none under it.
  static func tally(_ votes: Int, _ drift: Double, over bar: Double) -> Int {
    guard abs(drift) > bar else { return 0 }
    let sign = drift > 0 ? 1 : -1
    return votes * sign > 0 ? votes + sign : sign
  }

  /// Starts the warp at 1 − `drift` (within ±500 ppm) once `votes` in a row reach `needed`,
  /// while the filters have a block to give (of delay, or a spare partition: ``spareFront``),
  /// and sets P back to its prior, as for a moved phone.
  ///
  /// Until the warp starts the echo path slides under the filter (7 frames in 7.5 s at 20
  /// ppm), and a Kalman filter whose P has settled on a path that stood still follows it
  /// slowly: live, speech through a loudspeaker on its own clock read 13.0–21.5 dB of ERLE at
  /// 9.5–11 s, 2–3.5 s after the warp started (32 dB once the path held, in the next copies).
  /// With P at its prior the filter converges again as it does at the start: 25.1–32.4 dB
  /// there (mean 17.5 → 30.6), and after the path change at 11 s 31.6–32.8 (mean 27.3 → 32.2;
  /// 16 live runs: speech and music at +20, +50, +100 and −50 ppm, the clocks 150 and −100 ppm
  /// off). Music's filter had kept up (28.0–32.8 dB there, now 29.8–32.8). Its first copy's
  /// double talk (6–9 s, the warp starting in it) moves −0.9 to +1.9 dB by run (mean +0.52 on
  /// speech, −0.17 on music), later copies −0.4 to +0.2 dB, but for one music run (30 ms RT60
  /// 0.2 s, −50 ppm) whose ERLE in two later windows fell 3.3 and 5.2 dB (to 26.2 and 25.5).
  /// Through `pcm-mix mix` (the 16 loudspeaker scenes at the same four drifts, three copies,
  /// `scripts/echo_long_capture.py`) the first copy's ERLE after the path change rose on 28 of
  /// the 32 speech runs (mean 26.6 → 29.6 dB, the least 20.3 → 28.3), its double talk moved
  /// −1.4 to +1.8 dB (mean +0.17 on speech, −0.05 on music), and later copies held their
  /// figures on average (means within 0.06 dB, the least within 0.1), a copy's double talk
  /// moving −1.4 to +1.9 dB by run. Tried and left: P reset only once no voice had been heard
  /// for 0.25 s (the sliding echo's residual reads as a voice, so it came late or never: 22.7
  /// dB at 9.5–11 s on speech, mean), and P raised to a tenth or three tenths of its prior
  /// (21.0 and 24.2).
  mutating func startWarp(after votes: Int, needed: Int, drift: Double) {
    guard abs(votes) >= needed && delay + spareFront >= 1 else { return }
    // The ring's frame holds the last two raw blocks: the history the first warped block
    // reaches back into.
    let ratio = Self.warpRatio(1 - drift)
    refBlock.withUnsafeBufferPointer { warp.start(ratio: ratio, recent: $0) }
    resetCovariance()
  }

  /// The drift the delay search reads (``LagTrend``), which holds on music where the filter's
  /// phase does not (``trackDrift(heard:)``): ``searchReadings`` in a row of one sign over
  /// ``searchStart`` start the warp; once it runs, a reading more than ``searchDeadZone`` off
  /// the warp's ratio moves it by at most that much. The filter's phase reads finer (within a
  /// ppm on speech, where the search reads within about 5), so the search only starts the warp
  /// and keeps it near; the phase moves it the rest of the way.
  mutating func followSearch(_ drift: Double, error: Double) {
    if warp.active {
      let off = (1 - drift) - warp.ratio
      guard abs(off) > Self.searchDeadZone else { return }
      let step = min(abs(off) - Self.searchDeadZone, Self.searchDeadZone)
      warp.ratio = Self.warpRatio(warp.ratio + (off > 0 ? step : -step))
    } else {
      // What the reading is sure of: its size less ``searchMargin`` standard errors.
      let sure = max(0, abs(drift) - Self.searchMargin * error)
      searchVotes = Self.tally(searchVotes, drift < 0 ? -sure : sure, over: Self.searchStart)
      startWarp(after: searchVotes, needed: Self.searchReadings, drift: drift)
    }
  }

  /// Readings of the search in a row (1.07 s apart) that start the warp. The first comes once
  /// the line holds 5.3 s of lags, so two start it 7.5 s into a drifted capture; three started
  /// it at 8.5 s. Over 32 drifted speech files (the 8 loudspeaker scenes at +20, +50, +100 and
  /// −50 ppm, three copies through the canceller alone) the first copy's double talk rose on
  /// every one, by 0.4–2.0 dB (mean 12.6 → 13.5); its ERLE over 9.5–11 s rose on 17 and fell
  /// on 15 (mean 17.8 → 18.7 dB, the least 6.9 → 13.3). On the same music files ERLE there
  /// fell on none (the least 14.1 → 24.4 dB). Live (the clocks 150 and −100 ppm off, 16
  /// drifted runs) the first copy's double talk rose by up to 1.5 dB (mean 13.0 → 13.7). Later
  /// copies are unchanged on average, but a copy's double talk moves by up to 1.8 dB either way
  /// with the ratio's path after the start. With no drift no warp started, over 864 file runs
  /// (the 18 scenes at 20 app shifts, the talker 0 and 10 dB over the echo, and the noisy
  /// room) nor over 64 live runs of 40 s (16 scenes, the clocks −300/+300, +300/−300,
  /// 150/−100 and 0/0 ppm). The first ratio live: 25.1–28.7 ppm at +20 (21.4–25.5 with three
  /// readings), 93.7–96.4 at +100 (95.1–98.0).
  static let searchReadings = 2
  /// The drift the search must read (``searchReadings`` times in a row) to start the warp:
  /// with no drift a Python model of ``LagTrend``'s fit, over the lags the canceller logged in a
  /// minute of each of five scenes, read within ±3.3 ppm; the live minute with the clocks 150
  /// and −100 ppm apart read −0.96 to +0.36 ppm.
  static let searchStart = 12e-6
  /// Standard errors of the search's reading (``LagTrend/drift(at:hop:)``: the line's slope,
  /// from what the line leaves of the lags) taken off its size before it counts toward the
  /// warp's start. Music's lags lean with what plays, and a line through them can read over
  /// ``searchStart`` with no drift: on the echo table converted to 44.1 kHz the warp started on
  /// music 30 ms RT60 0.5 s at 7.5 s (13.0 ppm), and with the lags placed between samples
  /// (``EchoDelayEstimator/peak(re:im:bins:size:near:sign:)``) on RT60 0.2 s at 10.7 s (12.4
  /// ppm). With a margin of 1 or 1.5 the warp starts on none of the 16 loudspeaker scenes at 8,
  /// 16, 24, 32, 44.1 or 48 kHz, and live (speech and music 30 ms RT60 0.2 s, the clocks 150
  /// and −100 ppm off) at +20 and −50 ppm at 16, 32, 44.1 and 48 kHz it starts when it did
  /// with none, but on music at 16 kHz and +20 ppm, at 8.5 s instead of 7.4 (its line there
  /// reads −15 to −29 ppm ± 8–14 over the first readings). A margin of 2 started that at 9.6 s.
  /// Speech's readings are sure to within 0.3–0.6 ppm at +20 and 0.9–7 at −50.
  static let searchMargin = 1.5
  /// How far the search's reading may lie from the warp's ratio before it moves it.
  static let searchDeadZone = 2e-6

  /// The delay (frames; later is positive) that turns the phases of `z(part, k)` (a bin's re
  /// and im, over `parts` rows of bins 1 ..< `bins`) by 2πk·delay/512: roughly from the phase
  /// of Σ z_k·z*_{k−1}, then by a fit of the phase each bin leaves after turning back by that
  /// (weighed by its size). Nil where the turn is not coherent: |Σ z_k·z*_{k−1}| under half of
  /// Σ|z_k·z*_{k−1}|.
  static func phaseDelay(
    parts: Int, bins: Int, size: Int, _ z: (Int, Int) -> (Double, Double)
  ) -> Double? {
    var (re, im, total) = (0.0, 0.0, 0.0)
    for part in 0..<parts {
      var (pr, pi) = z(part, 0)
      for k in 1..<bins {
        let (zr, zi) = z(part, k)
        re += zr * pr + zi * pi
        im += zi * pr - zr * pi
        total += (zr * zr + zi * zi).squareRoot() * (pr * pr + pi * pi).squareRoot()
        (pr, pi) = (zr, zi)
      }
    }
    guard total > 0 && (re * re + im * im).squareRoot() >= 0.5 * total else { return nil }
    let rough = -Math.atan2(im, re) * Double(size) / (2 * Double.pi)
    var (fit, weight) = (0.0, 0.0)
    for part in 0..<parts {
      for k in 1..<bins {
        let (zr, zi) = z(part, k)
        let omega = 2 * Double.pi * Double(k) / Double(size)
        let (c, s) = (Math.cos(omega * rough), Math.sin(omega * rough))
        let phase = Math.atan2(zi * c + zr * s, zr * c - zi * s)
        let size = (zr * zr + zi * zi).squareRoot()
        fit += size * omega * phase
        weight += size * omega * omega
      }
    }
    return rough - fit / max(weight, 1e-30)
  }

  /// Moves both filters' partitions by `shift` blocks when the delay changes (the response
  /// stays where it is in time; what falls off either end is dropped, what comes in is zero).
  /// P is set to its prior, or with `keepingUncertainty` moved with them (what comes in at its
  /// prior).
  mutating func shiftFilters(by shift: Int, keepingUncertainty: Bool = false) {
    let width = 2 * bins
    let count = partitions
    func move(_ filter: inout [Float]) {
      filter.withUnsafeMutableBufferPointer { f in
        let base = f.baseAddress!
        // In place: towards the front first when moving down, from the back when moving up.
        for step in 0..<count {
          let part = shift > 0 ? step : count - 1 - step
          let from = part + shift
          let at = base + part * width
          if from >= 0 && from < count {
            at.update(from: base + from * width, count: width)
          } else {
            at.update(repeating: 0, count: width)
          }
        }
      }
    }
    move(&main)
    move(&shadow)
    guard keepingUncertainty else { return resetCovariance() }
    let n = bins
    covariance.withUnsafeMutableBufferPointer { p in
      let base = p.baseAddress!
      for step in 0..<count {
        let part = shift > 0 ? step : count - 1 - step
        let from = part + shift
        if from >= 0 && from < count { (base + part * n).update(from: base + from * n, count: n) }
      }
    }
    // What comes in is unknown.
    setPriorCovariance(shift > 0 ? max(0, count - shift)..<count : 0..<min(count, -shift))
    // The drift's snapshot no longer lies where the filter's partitions do.
    driftDelay = -1
  }

  /// Watches what the filter leaves of the echo where the echo is alone: a level that jumps
  /// 8 dB above its long-run value and stays there means the echo path changed (the phone was
  /// moved); the filter's uncertainty is then set back to its prior so it adapts as fast as at
  /// the start, instead of creeping.
  mutating func detectPathChange() {
    if let held = heldReset {
      // A voice before it is due: the talker's first syllable, not a moved phone.
      if suppressor.voiceQuiet == 0 {
        lastReset = held.lastReset
        heldReset = nil
      } else if blockIndex >= held.due {
        resetCovariance()
        statistics.pathChanges += 1
        heldReset = nil
      }
    }
    // Only where the echo is alone and strong (its level within 6 dB of its recent peak: tails
    // after the app stops leave the filter's reach and would read as a change).
    echoPeak = max(Double(suppressor.lastEcho), echoPeak * 0.99)
    guard !bypassed, suppressor.echoAlone && suppressor.voiceQuiet > rate / hop,
      Double(suppressor.lastEcho) > 0.25 * echoPeak
    else { return }
    let level = Math.log10(Double(max(suppressor.misadjustment, 1e-6)))
    aloneBlocks += 1
    if aloneBlocks < 40 {
      baseline = aloneBlocks == 1 ? level : min(baseline, level) * 0.5 + baseline * 0.5
      recent = baseline
      return
    }
    recent += 0.15 * (level - recent)
    if recent - baseline > 1 && blockIndex - lastReset > rate / hop {
      if suppressor.lastShare < ResidualEchoSuppressor.voiceShare {
        heldReset = (blockIndex + Self.resetHold, lastReset)
      } else {
        resetCovariance()
        statistics.pathChanges += 1
      }
      lastReset = blockIndex
      baseline = recent
    } else {
      baseline += (recent < baseline ? 0.05 : 0.005) * (recent - baseline)
    }
  }

  /// Blocks (213 ms) that a reset of ``detectPathChange()`` waits where the app's power, through
  /// the echo path's learnt gain per band, still explains the mic (the suppressor's
  /// ``ResidualEchoSuppressor/lastShare`` under ``ResidualEchoSuppressor/voiceShare``); it is
  /// dropped if a voice shows meanwhile. A talker's first syllable over the app lifts what the
  /// filter leaves before the voice tests read it, as a moved phone does, and a reset there set
  /// P back to its prior at the start of the double talk, so the filter took full steps with
  /// the talker in its error. On music 30 ms RT60 0.2 s with the app's piece from 2.15 s the
  /// detector reset at the first syllable of the talker's second sentence, and over that
  /// sentence half of the filter's error power lay in bins where it was over the echo itself
  /// (0.14 over the first sentence, with no reset). Held back, on the echo bench's 64
  /// loudspeaker scenes (`pcm-mix-bench --filter echo/ours`): double talk +0.5 to +1.1 dB
  /// SI-SDR on eight music 30 ms scenes (15.26 → 15.88 on the unshifted RT60 0.2 s), +3.7 on
  /// speech 30 ms RT60 0.2 s from 2.15 s, −0.3 to −0.5 on speech 120 ms RT60 0.5 s and two
  /// clipping speech 30 ms RT60 0.5 s scenes; shifted scenes missing a target 10 → 8. A moved
  /// phone whose new gains leave the mic unexplained (a share of 0.48–0.70 on speech at 11 s)
  /// still resets at once; time to 20 dB after the move is unchanged but on one clipping speech
  /// scene from 2.15 s (0.1 → 1.1 s), where a voice test read the moved phone's echo as a
  /// voice and dropped its reset. 20 blocks did the same with one music scene 1.1 dB lower, 60
  /// within 0.2 dB of 40; holding every reset back, whatever the share, dropped the moved
  /// phone's reset on three speech scenes (0.1–0.4 → 1.1–1.2 s). The ducking bench's records
  /// are unchanged.
  static let resetHold = 40

  /// Blocks (3 s) without the delay search finding the echo at its lag, after which the mic may
  /// pass through again (``trackPresence(farActive:mic:echo:error:)``).
  var searchSilence: Int { 3 * rate / hop }

  /// Decides whether there is an echo to cancel. The mic passes through untouched until the
  /// delay search finds the echo, or the filter takes 6 dB or more out of the mic where the app
  /// plays; it passes through again once the search has not found the echo where it was for
  /// ``searchSilence`` blocks (3 s), and the filter has taken 3 dB or less out of the mic for
  /// five seconds of the app playing (the user put on headphones).
  ///
  /// Until now every analysis of the search counted as a find once one had been made, and the
  /// two spans ran one after the other: with headphones plugged in at 20 s of a capture the
  /// canceller never passed the mic through again, and over the talker's next double talk
  /// its output matched the mic at 16–23 dB SI-SDR (the room's tone under comfort noise).
  /// Counting only the analyses that stand out at the lag found, and the two spans side by
  /// side, it passes the mic through bit for bit 8.1–10.4 s after the plug
  /// (`pluggingInHeadphonesHandsTheMicBackUntouched`): the search's smoothed spectra still
  /// stand out at the old lag for about 3 s, and the app's pauses do not count. Over the echo
  /// bench's 16 loudspeaker scenes run twice over (40 s), with the talker 0, 10 and 20 dB over
  /// the echo, no scene went back to bypass: the search stood out at its lag in every analysis.
  /// With the search's span at 3 s instead of 5 the plug is followed 2 s sooner (6.1–8.4 s on
  /// the test's two scenes, 5.7–8.6 on four), and no loudspeaker scene of the bench's 17 shifts
  /// and noisy room (288) nor of the 48 runs above leaves the echo to bypass. The five seconds
  /// of the filter taking nothing out are what keep a talker over the app from reading as
  /// headphones: with those at 3 s as well, 44 spans of bypass came in the 48 runs, where the
  /// talker spoke 3 s or more.
  mutating func trackPresence(farActive: Bool, mic: Double, echo: Double, error: Double) {
    guard farActive && mic > Double(hop) * 1e-8 else { return }
    activeBlocks += 1
    micEnergy = 0.98 * micEnergy + 0.02 * mic
    echoEnergy = 0.98 * echoEnergy + 0.02 * error
    let reduction = micEnergy / max(echoEnergy, 1e-20)
    let recent = lastFound.map { blockIndex - $0 < searchSilence } ?? false
    if bypassed && (recent || (activeBlocks > rate / hop / 2 && reduction > 4)) {
      bypassed = false
      quietBlocks = 0
    } else if !bypassed {
      quietBlocks = reduction > 2 ? 0 : quietBlocks + 1
      if quietBlocks > 5 * rate / hop && !recent { bypassed = true }
    }
    statistics.isBypassed = bypassed
    let erle = 10 * Math.log10(max(mic, 1e-12) / max(error, 1e-12))
    statistics.erleDB = 0.98 * statistics.erleDB + 0.02 * erle
  }
}
