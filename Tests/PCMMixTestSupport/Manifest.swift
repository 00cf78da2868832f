import Foundation

/// A JSON value as the `TestVectors/` manifests hold it, decoded with `JSONDecoder`: the one
/// manifest loader the test targets share (``JSONObject/load(_:)``).
public enum JSONValue: Decodable, Sendable, Equatable {
  case string(String)
  case number(Double)
  case bool(Bool)
  case array([JSONValue])
  case object(JSONObject)
  case null

  /// Decodes whichever JSON type the value is.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let d = try? c.decode(Double.self) {
      self = .number(d)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSONValue].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode(JSONObject.self))
    }
  }

  /// The string, if this is one.
  public var string: String? { if case .string(let s) = self { s } else { nil } }
  /// The number, if this is one.
  public var double: Double? { if case .number(let d) = self { d } else { nil } }
  /// The number, if this is a whole one.
  public var int: Int? {
    guard case .number(let d) = self, d == d.rounded(), abs(d) < 9e15 else { return nil }
    return Int(d)
  }
  /// The Boolean, if this is one.
  public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
  /// The elements, if this is an array.
  public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
  /// The object, if this is one.
  public var object: JSONObject? { if case .object(let o) = self { o } else { nil } }
  /// The whole numbers, if this is an array of them.
  public var ints: [Int]? {
    guard let a = array else { return nil }
    let values = a.compactMap(\.int)
    return values.count == a.count ? values : nil
  }
  /// The rows of whole numbers, if this is an array of such arrays.
  public var intRows: [[Int]]? {
    guard let a = array else { return nil }
    let rows = a.compactMap(\.ints)
    return rows.count == a.count ? rows : nil
  }
  /// The objects, if this is an array of them.
  public var objects: [JSONObject]? {
    guard let a = array else { return nil }
    let objects = a.compactMap(\.object)
    return objects.count == a.count ? objects : nil
  }
}

/// A JSON object: a manifest, or one vector's entry in it.
public struct JSONObject: Decodable, Sendable, Equatable {
  /// The object's members.
  public let members: [String: JSONValue]

  /// Decodes an object's members.
  public init(from decoder: any Decoder) throws {
    members = try [String: JSONValue](from: decoder)
  }

  /// The member called `key`, if there is one.
  public subscript(key: String) -> JSONValue? { members[key] }

  /// The JSON object in the file at `url` (a manifest under `TestVectors/`).
  public static func load(_ url: URL) throws -> JSONObject {
    try JSONDecoder().decode(JSONObject.self, from: Data(contentsOf: url))
  }
}
