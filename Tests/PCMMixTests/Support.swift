import Foundation
@_exported import PCMMixTestSupport
import Testing

@testable import PCMMix

/// Shared helpers for the library tests: the reference vectors and a seeded generator.
enum Vectors {
  /// `TestVectors/` at the repository root, found from this file's path.
  static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("TestVectors")

  /// The parsed `manifest.json`.
  static let manifest: JSONObject = {
    do {
      return try JSONObject.load(root.appendingPathComponent("manifest.json"))
    } catch {
      fatalError("cannot read \(root.path)/manifest.json: \(error)")
    }
  }()

  /// Every vector of one family (`wav`, `decode`, `mix`, …), in manifest order.
  static func family(_ name: String) -> [JSONObject] {
    (manifest["vectors"]!.objects!).filter { $0["family"]?.string == name }
  }

  /// The bytes of a file under `TestVectors/`.
  static func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
  }

  /// A little-endian float32 file.
  static func float32(_ path: String) throws -> [Float] {
    let b = try bytes(path)
    return stride(from: 0, to: b.count - 3, by: 4).map { i in
      Float(
        bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16
          | UInt32(b[i + 3]) << 24)
    }
  }

  /// A little-endian int16 file.
  static func int16(_ path: String) throws -> [Int16] {
    let b = try bytes(path)
    return stride(from: 0, to: b.count - 1, by: 2).map { i in
      Int16(bitPattern: UInt16(b[i]) | UInt16(b[i + 1]) << 8)
    }
  }
}

/// Checks the phase of a tone after a converter's latency was dropped (`fit` at `hz`): none
/// (1e-3 rad) behind a linear-phase filter; behind a minimum-phase one, which is aligned at low
/// frequencies and delays the top of the band more, a lag of at most `budgetMs` (the preset's
/// delay budget), taken modulo the tone's period.
func expectAligned(
  _ fit: ToneFit, hz: Double, minimumPhase: Bool, budgetMs: Double = 1.5, _ what: String = "",
  sourceLocation: SourceLocation = #_sourceLocation
) {
  if minimumPhase {
    // A lag is known only modulo the tone's period; below 1 / budget (667 Hz for 1.5 ms) the
    // check is strict. ResamplerPresetTests unwraps the phase from DC across the whole band.
    let periodMs = 1000 / hz
    let slackMs = 1e-3 / (2 * Double.pi * hz) * 1000
    var lagMs = -fit.phase / (2 * Double.pi * hz) * 1000
    lagMs -= periodMs * ((lagMs + slackMs) / periodMs).rounded(.down)
    #expect(
      lagMs >= -slackMs && lagMs <= budgetMs, "\(what) \(hz) Hz lags \(lagMs) ms",
      sourceLocation: sourceLocation)
  } else {
    #expect(
      abs(fit.phase) < 1e-3, "\(what) \(hz) Hz is not time-aligned: \(fit.phase) rad",
      sourceLocation: sourceLocation)
  }
}
