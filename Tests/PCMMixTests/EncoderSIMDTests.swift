import PCMMixTestSupport
import Testing

@testable import PCMMix

/// The eight-at-a-time int16 encoder gives the scalar rule's bits for every kind of input: every
/// int16 step and the halves and near-halves between them, the clamps, infinities and NaN, and
/// random values in and past full scale.
@Suite struct EncoderSIMDTests {
  static func check(_ values: [Float]) {
    var simd = [Int16](repeating: 0, count: values.count)
    values.withUnsafeBufferPointer { v in
      simd.withUnsafeMutableBufferPointer { PCMEncoder.encode(v, into: $0) }
    }
    var mismatches = 0
    for (x, y) in zip(values, simd) where PCMEncoder.int16(x) != y {
      if mismatches < 5 {
        Issue.record("\(x) (\(x.bitPattern)): scalar \(PCMEncoder.int16(x)), simd \(y)")
      }
      mismatches += 1
    }
    #expect(mismatches == 0)
  }

  @Test func everyStepAndEveryHalfStep() {
    var values: [Float] = []
    values.reserveCapacity(65_536 * 9)
    for n in -32_769...32_768 {
      let base = Float(n) / 32768
      for frac: Float in [0, 0.25, 0.5, 0.75] {
        let x = base + frac / 32768
        values += [x, x.nextUp, x.nextDown]
      }
    }
    Self.check(values)
  }

  @Test func specialsAndRandomValues() {
    var values: [Float] = [
      .nan, -.nan, .infinity, -.infinity, 0, -0, .greatestFiniteMagnitude,
      -.greatestFiniteMagnitude, .leastNonzeroMagnitude, 1, -1, 1.5, -1.5, 1e9, -1e9,
    ]
    var rng = SplitMix64(seed: 16)
    for _ in 0..<500_000 { values.append(Float.random(in: -1.2...1.2, using: &rng)) }
    for _ in 0..<100_000 {
      values.append(Float(bitPattern: UInt32(truncatingIfNeeded: rng.next())))
    }
    Self.check(values)
  }

  @Test func littleEndianBytesMatchTooAtAnyAlignment() {
    var rng = SplitMix64(seed: 17)
    let values = (0..<1_003).map { _ in Float.random(in: -1.1...1.1, using: &rng) }
    for offset in 0..<3 {
      var bytes = [UInt8](repeating: 0, count: 2 * values.count + offset)
      let written = values.withUnsafeBufferPointer { v in
        bytes.withUnsafeMutableBytes {
          PCMEncoder.encodeLittleEndian(
            v, as: .s16, into: UnsafeMutableRawBufferPointer(rebasing: $0[offset...]))
        }
      }
      #expect(written == 2 * values.count)
      for (i, x) in values.enumerated() {
        let v = Int16(
          bitPattern: UInt16(bytes[offset + 2 * i]) | UInt16(bytes[offset + 2 * i + 1]) << 8)
        #expect(v == PCMEncoder.int16(x))
      }
    }
  }
}
