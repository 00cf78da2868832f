/// Reads fields from the fuzz input; past its end every read is zero.
struct FuzzBytes {
  let bytes: [UInt8]
  var position = 0
  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var isAtEnd: Bool { position >= bytes.count }

  mutating func u8() -> UInt8 {
    defer { position += 1 }
    return position < bytes.count ? bytes[position] : 0
  }

  mutating func u16() -> UInt16 { UInt16(u8()) | UInt16(u8()) << 8 }
  mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }
  mutating func u64() -> UInt64 { UInt64(u32()) | UInt64(u32()) << 32 }

  /// The bytes not read yet.
  mutating func rest() -> [UInt8] {
    defer { position = bytes.count }
    return position < bytes.count ? Array(bytes[position...]) : []
  }

  /// Up to `count` bytes not read yet.
  mutating func take(_ count: Int) -> [UInt8] {
    let start = min(position, bytes.count)
    let end = min(start + count, bytes.count)
    position = end
    return Array(bytes[start..<end])
  }
}
