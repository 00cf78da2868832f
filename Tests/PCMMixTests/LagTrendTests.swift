import Testing

@testable import PCMMix

/// `LagTrend`, the line the echo canceller fits to the delay search's lags to read a drift on
/// any content.
@Suite struct LagTrendTests {
  /// Lags every 36 blocks moving 0.1 frame a block (about 390 ppm at 256 frames a block):
  /// nothing read before they span 1,000 blocks, then the slope, exactly.
  @Test func aSteadyMoveIsReadOnceTheLagsSpanEnough() throws {
    var trend = LagTrend(rate: 48_000)
    var readings: [Double?] = []
    for i in 0..<40 {
      let block = 36 * i
      trend.add(block: block, lag: 1_000 + 0.1 * Double(block))
      readings.append(trend.drift(at: block, hop: 256)?.drift)
    }
    // The 29th lag (block 1,008) is the first 1,000 blocks after the first.
    #expect(readings[..<28].allSatisfy { $0 == nil })
    let drift = try #require(readings[39])
    #expect(abs(drift - 0.1 / 256) < 1e-12)
  }

  /// A lag 15 frames off the line (the search on a reflection through a double talk) is left
  /// out; `LagTrend.restart` in a row start a new line there, which reads nothing until it
  /// spans enough again. One lag on the line between two runs keeps the line.
  @Test func lagsOffTheLineAreLeftOutUntilTheyStayOff() throws {
    var trend = LagTrend(rate: 48_000)
    var block = 0
    func add(_ lag: Double) {
      trend.add(block: block, lag: lag)
      block += 36
    }
    for _ in 0..<40 { add(500) }
    for _ in 1..<LagTrend.restart { add(515) }
    add(500)
    for _ in 1..<LagTrend.restart { add(515) }
    let held = try #require(trend.drift(at: block, hop: 256)?.drift)
    #expect(abs(held) < 1e-12)
    #expect(trend.count == 41)
    add(515)
    #expect(trend.count == 1)
    #expect(trend.drift(at: block, hop: 256) == nil)
  }

  /// Lags older than the window are dropped: a move that stopped is read as stopped once the
  /// window holds only lags after it.
  @Test func theWindowForgetsOldLags() throws {
    var trend = LagTrend(rate: 48_000)
    for i in 0..<200 {
      let block = 36 * i
      // Moving 0.01 frame a block for the first 3,600 blocks, then still.
      trend.add(block: block, lag: 0.01 * Double(min(block, 3_600)))
    }
    let drift = try #require(trend.drift(at: 36 * 199, hop: 256)?.drift)
    #expect(abs(drift) < 1e-12)
  }

  /// The reading's standard error (what ``EchoCanceller/searchMargin`` takes off it) comes from
  /// what the line leaves of the lags: 0 on a straight line, and twice as much for lags twice as
  /// far off it, the slope the same.
  @Test func theErrorGrowsWithTheLagsScatter() throws {
    func reading(scatter: Double) throws -> (drift: Double, error: Double) {
      var trend = LagTrend(rate: 48_000)
      for i in 0..<40 {
        let block = 36 * i
        let off = scatter * (i % 2 == 0 ? 1 : -1) * Double(i % 3 + 1)
        trend.add(block: block, lag: 1_000 + 0.01 * Double(block) + off)
      }
      return try #require(trend.drift(at: 36 * 39, hop: 256))
    }
    let (line, near, far) = try (reading(scatter: 0), reading(scatter: 0.5), reading(scatter: 1))
    #expect(line.error < 1e-15)
    #expect(near.error > 0)
    #expect(abs(far.error - 2 * near.error) < 1e-12)
    #expect(abs(2 * (near.drift - line.drift) - (far.drift - line.drift)) < 1e-12)
  }
}
