import Foundation
import Testing

@testable import PCMMix

/// Stereo int16 audio (a tone plus noise, different in each channel) that a test hands over in
/// any of the shapes a caller may hold it.
struct PlanarAudio {
  /// How the buffer is handed over.
  enum Shape: CaseIterable {
    /// One run of interleaved frames.
    case interleaved
    /// One run of bytes, left plane then right plane (what the contiguous entry points take).
    case planarContiguous
    /// Each plane in its own allocation (an `AudioBufferList`'s shape), through `planes:`.
    case planarSeparate
  }

  /// A buffer in the shape a pipeline's entry point takes.
  enum Input {
    case bytes(UnsafeRawBufferPointer, StreamDescription)
    case planes(UnsafeBufferPointer<UnsafeRawBufferPointer>, StreamDescription)
  }

  let rate: Int
  let channels: [[Int16]]

  init(rate: Int, frames: Int, channels: Int = 2, seed: UInt64) {
    self.rate = rate
    var state = seed
    self.channels = (0..<channels).map { c in
      (0..<frames).map { i in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let noise = Double(Int64(bitPattern: state) >> 52) / 4096
        let tone = sin(2 * Double.pi * Double(i * 440 * (c + 1)) / Double(rate))
        return Int16((tone * 9_000 + noise * 2_000).rounded())
      }
    }
  }

  func description(planar: Bool) -> StreamDescription {
    StreamDescription(
      PCMFormat(
        sampleRate: rate, channelCount: channels.count, sampleType: .s16, isInterleaved: !planar))
  }

  func plane(_ c: Int, _ frames: Range<Int>) -> [UInt8] {
    channels[c][frames].flatMap {
      [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)]
    }
  }

  /// Runs `body` with `frames` of the audio in `shape`.
  func with(
    _ shape: Shape, _ frames: Range<Int>, _ body: (Input) throws -> Void
  ) rethrows {
    switch shape {
    case .interleaved:
      let bytes = frames.flatMap { i in (0..<channels.count).flatMap { plane($0, i..<(i + 1)) } }
      try bytes.withUnsafeBytes { try body(.bytes($0, description(planar: false))) }
    case .planarContiguous:
      let bytes = (0..<channels.count).flatMap { plane($0, frames) }
      try bytes.withUnsafeBytes { try body(.bytes($0, description(planar: true))) }
    case .planarSeparate:
      try withSeparatePlanes((0..<channels.count).map { plane($0, frames) }) {
        try body(.planes($0, description(planar: true)))
      }
    }
  }
}

/// Runs `body` with each of `planes` copied into its own allocation, the second and later ones
/// at an odd address, so no two lie back to back.
func withSeparatePlanes(
  _ planes: [[UInt8]], _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void
) rethrows {
  let storage = planes.enumerated().map { c, bytes in
    let block = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 8)
    let start = c == 0 ? 0 : 1
    let plane = UnsafeMutableRawBufferPointer(rebasing: block[start..<(start + bytes.count)])
    plane.copyBytes(from: bytes)
    return (block, UnsafeRawBufferPointer(plane))
  }
  defer { for (block, _) in storage { block.deallocate() } }
  try storage.map(\.1).withUnsafeBufferPointer { try body($0) }
}

@Suite struct PlanarInputTests {
  /// The app at 44.1 kHz stereo (resampled), the mic at 48 kHz stereo (not resampled).
  static let app = PlanarAudio(rate: 44_100, frames: 44_100 / 2, seed: 1)
  static let mic = PlanarAudio(rate: 48_000, frames: 48_000 / 2, seed: 2)
  /// Buffer lengths, cycled: uneven, one of a single frame.
  static let lengths = [441, 1_024, 1, 700, 333]

  /// Feeds both sources in buffers of ``lengths`` frames, calling `append(side, input, first)`
  /// (`first`: the buffer's first frame) and `pull()` after each pair.
  static func feed(
    _ shape: PlanarAudio.Shape, refusing: Bool = false,
    append: (DualBufferMixer.Side, PlanarAudio.Input, Int) throws -> Void, pull: () -> Void
  ) throws {
    var at = (app: 0, mic: 0)
    var k = 0
    while at.app < app.channels[0].count || at.mic < mic.channels[0].count {
      let n = lengths[k % lengths.count]
      k += 1
      let a = at.app..<min(at.app + n, app.channels[0].count)
      let m = at.mic..<min(at.mic + n * 48 / 44, mic.channels[0].count)
      if !a.isEmpty { try app.with(shape, a) { try append(.app, $0, a.lowerBound) } }
      if !m.isEmpty { try mic.with(shape, m) { try append(.mic, $0, m.lowerBound) } }
      (at.app, at.mic) = (a.upperBound, m.upperBound)
      if refusing && k == 2 {
        try refuse { try append(.app, $0, at.app) }
        try refuse { try append(.mic, $0, at.mic) }
      }
      pull()
    }
  }

  /// Planes that do not fit their description, and what each must be refused with.
  static let misfits: [(planes: [[UInt8]], stereo: Bool, planar: Bool, error: ProbeError)] = [
    ([[UInt8](repeating: 1, count: 200)], true, true, .planeCountMismatch(1, expected: 2)),
    ([], true, true, .planeCountMismatch(0, expected: 2)),
    (Array(repeating: [1, 2], count: 3), true, true, .planeCountMismatch(3, expected: 2)),
    (Array(repeating: [1, 2, 3, 4], count: 2), true, false, .planeCountMismatch(2, expected: 1)),
    (Array(repeating: [1, 2], count: 2), false, false, .planeCountMismatch(2, expected: 1)),
    (
      [[UInt8](repeating: 1, count: 200), [UInt8](repeating: 1, count: 198)], true, true,
      .unequalPlanes(index: 1, byteCount: 198, expected: 200)
    ),
    (
      Array(repeating: [UInt8](repeating: 1, count: 201), count: 2), true, true,
      .partialPlane(byteCount: 201, bytesPerSample: 2)
    ),
    (
      [[UInt8](repeating: 1, count: 202)], true, false,
      .partialFrame(byteCount: 202, bytesPerFrame: 4)
    ),
  ]

  /// Hands every misfit to `append` (at `rate`) and checks it is refused with its error.
  static func refuse(_ append: (PlanarAudio.Input) throws -> Void) throws {
    for misfit in misfits {
      let d = StreamDescription(
        PCMFormat(
          sampleRate: 44_100, channelCount: misfit.stereo ? 2 : 1, sampleType: .s16,
          isInterleaved: !misfit.planar))
      try withSeparatePlanes(misfit.planes) { planes in
        do {
          try append(.planes(planes, d))
          Issue.record("accepted planes that should give \(misfit.error)")
        } catch let e as ProbeError {
          #expect(e == misfit.error)
        } catch CaptureError.format(let e) {
          #expect(e == misfit.error)
        }
      }
    }
  }

  /// The host time of frame `first` of `source`, a second after zero.
  static func time(_ source: PlanarAudio, _ first: Int) -> MediaTime {
    MediaTime(value: Int64(source.rate + first), timescale: Int32(source.rate))
  }

  /// Checks that every shape gave the same output, that it is not silence, and that it is what
  /// `reference` gives for each shape, if given.
  static func expectSameOutput(
    _ run: (PlanarAudio.Shape) throws -> [Int16],
    as reference: ((PlanarAudio.Shape) throws -> [Int16])? = nil
  ) throws {
    let outputs = try PlanarAudio.Shape.allCases.map(run)
    #expect(outputs[0].count > 40_000)
    #expect(outputs[0].filter { $0 != 0 }.count > outputs[0].count / 2)
    #expect(outputs[2] == outputs[1], "separate planes against the planes back to back")
    #expect(outputs[2] == outputs[0], "separate planes against interleaved frames")
    if let reference {
      #expect(try outputs == PlanarAudio.Shape.allCases.map(reference))
    }
  }

  /// Feeds `target` the whole scene in `shape` (stamping the fifth app buffer `early` frames
  /// before its place, so that it overlaps and is trimmed) and returns everything it put out.
  static func run<Target: PlanarInputTarget>(
    _ target: inout Target, _ shape: PlanarAudio.Shape, refusing: Bool = false, early: Int = 0
  ) throws -> [Int16] {
    var out: [Int16] = []
    var block = [Int16](repeating: 0, count: 2 * 512)
    try feed(shape, refusing: refusing) { side, input, first in
      let shift = side == .app && first == 2_499 ? early : 0
      try target.append(side, input, time: time(side == .app ? app : mic, first - shift))
    } pull: {
      let n = block.withUnsafeMutableBufferPointer { target.output(into: $0) }
      out += block[..<(n * 2)]
    }
    return out
  }

  static func capture(_ shape: PlanarAudio.Shape, refusing: Bool = false) throws -> [Int16] {
    var pipeline = CapturePipeline()
    return try run(&pipeline, shape, refusing: refusing)
  }

  @available(*, deprecated, message: "SharedCapturePipeline is deprecated; tested while it remains")
  static func shared(_ shape: PlanarAudio.Shape, refusing: Bool = false) throws -> [Int16] {
    var pipeline = SharedCapturePipeline()
    return try run(&pipeline, shape, refusing: refusing)
  }

  static func clocked(
    _ shape: PlanarAudio.Shape, refusing: Bool = false, early: Int = 0
  ) throws -> [Int16] {
    var pipeline = try ClockedCapturePipeline(
      app: app.description(planar: true), mic: mic.description(planar: true))
    let out = try run(&pipeline, shape, refusing: refusing, early: early)
    #expect(pipeline.statistics(.app).inputFramesTrimmed == early)
    return out
  }

  static func realtime(
    _ shape: PlanarAudio.Shape, refusing: Bool = false, handoffBytes: Int? = nil
  ) throws -> [Int16] {
    var pipeline = try RealtimeCapturePipeline(
      app: app.description(planar: true), mic: mic.description(planar: true),
      handoffBytes: handoffBytes)
    let out = try run(&pipeline, shape, refusing: refusing)
    #expect(pipeline.statistics.appHandoffDrops == 0)
    return out
  }

  @Test func capturePipelineGivesTheSameBitsForEveryShape() throws {
    try Self.expectSameOutput { try Self.capture($0) }
  }

  @available(*, deprecated, message: "SharedCapturePipeline is deprecated; tested while it remains")
  @Test func sharedCapturePipelineGivesTheSameBitsForEveryShape() throws {
    // The same bits as the single-threaded pipeline too.
    try Self.expectSameOutput({ try Self.shared($0) }, as: { try Self.capture($0) })
    #expect(try Self.shared(.planarSeparate, refusing: true) == Self.shared(.planarSeparate))
  }

  @Test func clockedCapturePipelineGivesTheSameBitsForEveryShape() throws {
    try Self.expectSameOutput { try Self.clocked($0) }
  }

  @Test func realtimeCapturePipelineGivesTheSameBitsForEveryShape() throws {
    // Planes copied into the hand-off back to back decode as the clocked pipeline's input.
    try Self.expectSameOutput({ try Self.realtime($0) }, as: { try Self.clocked($0) })
  }

  @Test func aTrimmedOverlapDropsTheSameFramesOfEveryPlane() throws {
    try Self.expectSameOutput { try Self.clocked($0, early: 240) }
    #expect(try Self.clocked(.planarSeparate, early: 240) != Self.clocked(.planarSeparate))
  }

  @Test func aBufferLongerThanTheHandOffKeepsTheNewestFramesOfEveryPlane() throws {
    // 4 KiB rings: the 1,024-frame buffers (4 KiB of stereo int16, plus a header) do not fit.
    try Self.expectSameOutput { try Self.realtime($0, handoffBytes: 4_096) }
    #expect(
      try Self.realtime(.planarSeparate, handoffBytes: 4_096) != Self.realtime(.planarSeparate))
  }

  @Test func misfitPlanesAreRefusedAndTheStreamGoesOn() throws {
    #expect(try Self.capture(.planarSeparate, refusing: true) == Self.capture(.planarSeparate))
    #expect(try Self.clocked(.planarSeparate, refusing: true) == Self.clocked(.planarSeparate))
    #expect(try Self.realtime(.planarSeparate, refusing: true) == Self.realtime(.planarSeparate))
  }

  @Test func theErrorsNameTheProblemAndTheNumbers() {
    #expect(
      ProbeError.planeCountMismatch(1, expected: 2).description
        == "1 plane(s) given, expected 2 (one per channel for planar data, one for interleaved)")
    #expect(
      ProbeError.unequalPlanes(index: 1, byteCount: 198, expected: 200).description
        == "plane 1 holds 198 bytes, plane 0 holds 200; planes must be the same size")
    #expect(
      ProbeError.partialPlane(byteCount: 201, bytesPerSample: 2).description
        == "plane of 201 bytes is not a whole number of 2-byte samples")
  }
}

/// A pipeline the scene is fed to: each buffer through the entry point for its shape.
protocol PlanarInputTarget {
  mutating func append(
    _ side: DualBufferMixer.Side, _ input: PlanarAudio.Input, time: MediaTime) throws
  /// Writes what is ready (stereo int16) into `block`; returns the frames written.
  mutating func output(into block: UnsafeMutableBufferPointer<Int16>) -> Int
}

extension CapturePipeline: PlanarInputTarget {
  mutating func append(
    _ side: DualBufferMixer.Side, _ input: PlanarAudio.Input, time: MediaTime
  ) throws {
    switch (input, side) {
    case (.bytes(let b, let d), .app): try append(.app, b, description: d)
    case (.bytes(let b, let d), .mic): try append(.mic, b, description: d)
    case (.planes(let p, let d), .app): try append(.app, planes: p, description: d)
    case (.planes(let p, let d), .mic): try append(.mic, planes: p, description: d)
    }
  }

  mutating func output(into block: UnsafeMutableBufferPointer<Int16>) -> Int { mix(into: block) }
}

@available(*, deprecated, message: "SharedCapturePipeline is deprecated; tested while it remains")
extension SharedCapturePipeline: PlanarInputTarget {
  func append(_ side: DualBufferMixer.Side, _ input: PlanarAudio.Input, time: MediaTime) throws {
    let app = side == .app
    switch input {
    case .bytes(let b, let d):
      try app ? append(.app, b, description: d) : append(.mic, b, description: d)
    case .planes(let p, let d):
      try app ? append(.app, planes: p, description: d) : append(.mic, planes: p, description: d)
    }
  }

  func output(into block: UnsafeMutableBufferPointer<Int16>) -> Int { mix(into: block) }
}

extension ClockedCapturePipeline: PlanarInputTarget {
  mutating func append(
    _ side: DualBufferMixer.Side, _ input: PlanarAudio.Input, time: MediaTime
  ) throws {
    switch input {
    case .bytes(let b, let d): try append(side, b, description: d, time: time)
    case .planes(let p, let d): try append(side, planes: p, description: d, time: time)
    }
  }

  mutating func output(into block: UnsafeMutableBufferPointer<Int16>) -> Int {
    _ = pull(into: block)
    return block.count / 2
  }
}

extension RealtimeCapturePipeline: PlanarInputTarget {
  func append(_ side: DualBufferMixer.Side, _ input: PlanarAudio.Input, time: MediaTime) throws {
    if case .planes(let p, let d) = input {
      try append(side, planes: p, description: d, time: time)
    } else if case .bytes(let b, let d) = input {
      try append(side, b, description: d, time: time)
    }
  }

  func output(into block: UnsafeMutableBufferPointer<Int16>) -> Int {
    _ = pull(into: block)  // always fills the block
    return block.count / 2
  }
}
