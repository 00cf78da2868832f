import Foundation
import Testing

@testable import PCMMix

/// The ducker's pauses: a gap between words keeps the duck down, the end of a sentence lets it
/// go as soon as the look-ahead shows it, and a talker under a loud echo reads as neither voice
/// nor silence, where the duck must not let go (the app came back above −6 dB between two
/// words on every loudspeaker music scene) but must not hold forever either (the app's own
/// echo would then keep it down). Blocks of 256 frames at 48 kHz; the default hold is 0.5 s
/// (24,000 frames).
@Suite struct DuckerHoldTests {
  static let hold = 24_000
  static let depth = Float(pow(10, -10.0 / 20))

  /// The gain per frame over `blocks` blocks, with the detector's verdict for each block given
  /// `ahead` blocks before the output reaches it (all of them first when `ahead` is nil).
  static func gains(
    _ settings: Ducking = Ducking(), blocks: Int = 400, ahead: Int? = nil,
    voice: (Int) -> Bool, unsure: (Int) -> Bool = { _ in false }
  ) -> [Float] {
    var ducker = Ducker(settings, rate: 48_000)
    var noted = 0
    func note(upTo n: Int) {
      while noted < min(n, blocks) {
        ducker.note(
          voice: voice(noted), uncertain: unsure(noted), start: 256 * noted, frames: 256)
        noted += 1
      }
    }
    var out: [Float] = []
    var block = [Float](repeating: 1, count: 2 * 256)
    for b in 0..<blocks {
      note(upTo: ahead.map { b + 1 + $0 } ?? blocks)
      for i in block.indices { block[i] = 1 }
      block.withUnsafeMutableBufferPointer {
        ducker.apply($0.baseAddress!, at: 256 * b, frames: 256)
      }
      for i in 0..<256 { out.append(block[2 * i]) }
    }
    return out
  }

  /// Where the gain rises from the depth after a sentence (voice in the first 40 blocks, to
  /// frame 10,240) followed by `unsure` blocks.
  static func releaseAfterASentence(unsure: (Int) -> Bool) throws -> Int {
    try #require(releaseStart(gains(voice: { $0 < 40 }, unsure: unsure)))
  }

  /// The first frame at which the gain rises from the depth.
  static func releaseStart(_ g: [Float]) -> Int? {
    guard let down = g.firstIndex(where: { $0 <= depth * 1.0001 }) else { return nil }
    return g[down...].firstIndex { $0 > depth * 1.001 }
  }

  @Test func theEndOfASentenceLetsGoAtOnceWhenTheLookAheadShowsIt() throws {
    // Voice in the first 40 blocks (to 10,240), nothing after, all of it read ahead.
    let start = try #require(Self.releaseStart(Self.gains(voice: { $0 < 40 })))
    #expect(abs(start - 10_240) <= 64)
  }

  @Test func withLessLookAheadTheDuckHoldsWhatItCannotSee() throws {
    // 0.1 s of look-ahead (19 blocks read ahead): the rest of the hold, 0.4 s, is held.
    var settings = Ducking()
    settings.lookahead = 0.1
    let start = try #require(
      Self.releaseStart(Self.gains(settings, ahead: 19, voice: { $0 < 40 })))
    #expect(abs(start - (10_240 + Self.hold - 19 * 256)) <= 320)
  }

  @Test func aPauseShorterThanTheHoldStaysDown() {
    // Voice, 0.43 s of silence (80 blocks), voice: the gain holds the depth through the gap.
    let g = Self.gains(voice: { $0 < 40 || (120..<160).contains($0) })
    #expect(g[12_000..<30_720].allSatisfy { $0 <= Self.depth * 1.0001 })
  }

  @Test func aPauseLongerThanTheHoldComesUp() throws {
    // Voice, 0.75 s of silence (140 blocks), voice: up at the first voice's end.
    let g = Self.gains(voice: { $0 < 40 || (180..<220).contains($0) })
    let start = try #require(Self.releaseStart(g))
    #expect(abs(start - 10_240) <= 64)
    #expect(g[30_000] > 0.99)
  }

  @Test func blocksTheDetectorCannotTellCarryTheDuckOn() throws {
    // Unsure straight after the voice, to block 60 (frame 15,360): the duck lasts to there.
    let start = try Self.releaseAfterASentence(unsure: { (40..<60).contains($0) })
    #expect(abs(start - 15_360) <= 64)
  }

  @Test func doubtAfterAShortQuietCarriesItToo() throws {
    // A talker under the echo reads as doubt with a few quiet blocks among it: after 7 quiet
    // blocks (37 ms, within the 50 ms a doubt may begin after the span), unsure to block 60.
    let start = try Self.releaseAfterASentence(unsure: { (47..<60).contains($0) })
    #expect(abs(start - 15_360) <= 64)
  }

  @Test func butForAtMostOneMoreHold() throws {
    // Unsure for ever: carried to one hold past the voice (the last block ending by 34,240 is
    // at 34,048), then let go.
    let start = try Self.releaseAfterASentence(unsure: { $0 >= 40 })
    #expect(abs(start - 34_048) <= 64)
  }

  @Test func doubtThatDoesNotFollowTheVoiceCarriesNothing() throws {
    // Unsure blocks 0.2 s after the voice (the app's music coming back): they do not hold it.
    let start = try Self.releaseAfterASentence(unsure: { (80..<90).contains($0) })
    #expect(abs(start - 10_240) <= 64)
  }

  @Test func doubtAloneStartsNoDuck() {
    let g = Self.gains(blocks: 100, voice: { _ in false }, unsure: { _ in true })
    #expect(g.allSatisfy { $0 == 1 })
  }

  @Test func aLoneVoiceBlockStartsNoDuckButCarriesAnOpenOne() throws {
    // Every fourth block a voice: never five of eight, no duck.
    #expect(Self.gains(blocks: 100, voice: { $0 % 4 == 0 }).allSatisfy { $0 == 1 })
    // After a sentence, one voice block 0.2 s on (block 77): the duck lasts to its end.
    let g = Self.gains(voice: { $0 < 40 || $0 == 77 })
    let start = try #require(Self.releaseStart(g))
    #expect(abs(start - 78 * 256) <= 64)
  }

  @Test func aBurstOfVoiceAmongDoubtStartsNoDuck() {
    // What an echo the canceller has not yet learnt leaves (a new note, the phone moved):
    // doubt, and a burst of three voice blocks and one more among it. Three of four blocks
    // once confirmed a voice here, and the app ducked under its own echo.
    let burst: Set = [22, 23, 24, 27]
    let g = Self.gains(
      blocks: 100, voice: { burst.contains($0) }, unsure: { (18..<50).contains($0) })
    #expect(g.allSatisfy { $0 == 1 })
  }

  @Test func voiceAndDoubtInTurnStartOne() {
    // A talker over loud music: voice and doubt in turn, never five of eight voice blocks,
    // but seven of sixteen with none quiet. The duck starts from the first voice block.
    let g = Self.gains(
      blocks: 100, voice: { $0 >= 20 && $0 % 2 == 0 }, unsure: { $0 >= 20 && $0 % 2 == 1 })
    #expect(g[2_000] == 1)
    #expect(g[20 * 256] <= Self.depth * 1.0001)
  }

  /// A first syllable read in two voice blocks among doubt (blocks 20 and 23), `pause` quiet
  /// blocks, then a voice confirmed on blocks in a row: the gains, and where the row starts.
  static func firstSyllable(pause: Int) -> (gains: [Float], row: Int) {
    let row = 25 + pause
    let g = gains(
      blocks: 150, voice: { $0 == 20 || $0 == 23 || (row..<row + 55).contains($0) },
      unsure: { (21..<25).contains($0) })
    return (g, row)
  }

  @Test func theDuckStartsFromAFirstSyllableReadHereAndThere() {
    // A pause of 20 quiet blocks (0.11 s): the duck is down from block 20, not from the row.
    let (g, _) = Self.firstSyllable(pause: 20)
    #expect(g[2_000] == 1)
    #expect(g[20 * 256] <= Self.depth * 1.0001)
  }

  @Test func butNotAcrossALongerQuiet() {
    // A pause of 40 quiet blocks (0.21 s, over the 0.14 s the run may cross): the duck starts
    // 60 ms before the row.
    let (g, row) = Self.firstSyllable(pause: 40)
    #expect(g[..<(row * 256 - 2_880 - 64)].allSatisfy { $0 == 1 })
    #expect(g[row * 256] <= Self.depth * 1.0001)
  }

  @Test func notFurtherBackThanReachBack() {
    // Voice, doubt and quiet in turn from block 100 (never five of eight, and a quiet block
    // in every sixteen), then voice in a row from block 250: five of eight from block 246
    // confirm it. The duck starts from the first voice block 0.4 s (75 blocks) before 246,
    // block 171, not from block 100, and 60 ms (2,880 frames) ahead of it.
    let g = Self.gains(
      blocks: 400, voice: { ($0 >= 100 && $0 % 3 == 0) || $0 >= 250 },
      unsure: { $0 >= 100 && $0 < 250 && $0 % 3 == 1 })
    let firstDown = g.firstIndex { $0 < 1 } ?? g.count
    #expect(abs(firstDown - (171 * 256 - 2_880)) <= 64)
  }

  @Test func thePipelineHoldsTheLookAhead() {
    var c = ClockedCapturePipeline.Configuration()
    #expect(c.timingLatency == c.latency)
    c.ducking = Ducking()
    #expect(c.timingLatency == .adaptive(minimum: 0.53, maximum: 1.0))
    c.latency = .fixed(seconds: 0.2)
    #expect(c.timingLatency == .fixed(seconds: 0.53))
    c.latency = .fixed(seconds: 0.8)
    #expect(c.timingLatency == .fixed(seconds: 0.8))
    c.ducking?.lookahead = 0
    #expect(c.timingLatency == .fixed(seconds: 0.8))
    // Echo cancellation: the suppressor's look-ahead (8 blocks of 256 frames at 48 kHz) and
    // 30 ms (the canceller's block, the one past it, a pull), under the ducking's when on.
    c.ducking = nil
    c.echoCancellation = EchoCancellation()
    c.latency = .fixed(seconds: 0.02)
    #expect(c.timingLatency == .fixed(seconds: 0.03 + 2_048.0 / 48_000))
    c.ducking = Ducking()
    #expect(c.timingLatency == .fixed(seconds: 0.5 + 0.03 + 2_048.0 / 48_000))
    c.latency = .adaptive(minimum: 0.1, maximum: 1)
    c.ducking = nil
    #expect(c.timingLatency == .adaptive(minimum: 0.1, maximum: 1))
  }
}
