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
  nonisolated(unsafe) static let manifest: [String: Any] = {
    let data = try! Data(contentsOf: root.appendingPathComponent("manifest.json"))
    return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
  }()

  /// Every vector of one family (`wav`, `decode`, `mix`, …), in manifest order.
  static func family(_ name: String) -> [[String: Any]] {
    (manifest["vectors"] as! [[String: Any]]).filter { $0["family"] as? String == name }
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
