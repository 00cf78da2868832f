import Testing

@testable import PCMMix

/// How the echo canceller moves its filters along the reference's ring.
@Suite struct EchoFilterShiftTests {
  /// `shiftFilters(by:keepingUncertainty:)`, as the warp's start uses it where the delay is 0:
  /// each partition takes its neighbour's coefficients (both filters) and uncertainty, what
  /// comes in is zero with P at its prior; moving back restores all but the partition lost.
  @Test func shiftingTheFiltersKeepsTheirUncertaintyWhenAsked() {
    var c = EchoCanceller(rate: 16_000, settings: EchoCancellation())
    let (width, n, count) = (2 * c.bins, c.bins, c.partitions)
    for i in c.main.indices { c.main[i] = Float(i % 97) - 48 }
    for i in c.shadow.indices { c.shadow[i] = Float(i % 89) }
    for i in c.covariance.indices { c.covariance[i] = Float(i % 13) * 1e-3 }
    let (main, shadow, covariance) = (c.main, c.shadow, c.covariance)
    c.shiftFilters(by: 1, keepingUncertainty: true)
    #expect(c.main[0..<((count - 1) * width)] == main[width...])
    #expect(c.shadow[0..<((count - 1) * width)] == shadow[width...])
    #expect(c.covariance[0..<((count - 1) * n)] == covariance[n...])
    #expect(c.main[((count - 1) * width)...].allSatisfy { $0 == 0 })
    var prior = EchoCanceller.initialCovariance
    for _ in 0..<(count - 1) { prior *= EchoCanceller.covarianceDecay }
    #expect(c.covariance[((count - 1) * n)...].allSatisfy { $0 == prior })
    c.shiftFilters(by: -1, keepingUncertainty: true)
    #expect(c.main[width...] == main[width...])
    #expect(c.covariance[n...] == covariance[n...])
    #expect(c.main[0..<width].allSatisfy { $0 == 0 })
    #expect(c.covariance[0..<n].allSatisfy { $0 == EchoCanceller.initialCovariance })
  }
}
