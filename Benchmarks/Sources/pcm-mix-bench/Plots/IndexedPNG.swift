/// A palette image (8 bits per pixel, up to 256 colours) encoded as PNG, for a grid of cells
/// embedded in an SVG as a `data:` URI.
///
/// The image data is stored, not compressed (zlib's "stored" deflate blocks), which keeps the
/// encoder a few lines long; a 320 × 150 grid is 48 KB. Chunk layout, CRC-32 and Adler-32 as
/// the PNG specification (ISO/IEC 15948) and RFC 1950/1951 define them.
struct IndexedPNG {
  let width: Int
  let height: Int
  /// Row-major palette indices, top row first.
  var pixels: [UInt8]
  var palette: [Colors.RGB]

  /// The PNG file's bytes.
  var bytes: [UInt8] {
    precondition(pixels.count == width * height && (1...256).contains(palette.count))
    var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    // IHDR: size, bit depth 8, colour type 3 (palette), deflate, adaptive filters, no interlace.
    chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 3, 0, 0, 0], &out)
    chunk("PLTE", palette.flatMap { [$0.r, $0.g, $0.b] }, &out)
    // Each row starts with its filter type, 0 (none).
    var raw: [UInt8] = []
    raw.reserveCapacity((width + 1) * height)
    for y in 0..<height {
      raw.append(0)
      raw += pixels[(y * width)..<((y + 1) * width)]
    }
    chunk("IDAT", Self.zlibStored(raw), &out)
    chunk("IEND", [], &out)
    return out
  }

  private func chunk(_ type: String, _ data: [UInt8], _ out: inout [UInt8]) {
    let typed = Array(type.utf8) + data
    out += bigEndian(UInt32(data.count)) + typed + bigEndian(Self.crc32(typed))
  }

  private func bigEndian(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
  }

  /// A zlib stream of stored deflate blocks (at most 65,535 bytes each) holding `data`.
  static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var start = 0
    repeat {
      let n = min(65_535, data.count - start)
      let last: UInt8 = start + n == data.count ? 1 : 0
      out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
      out += data[start..<(start + n)]
      start += n
    } while start < data.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in data {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    let adler = b << 16 | a
    return out + [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF)]
      + [UInt8(adler & 0xFF)]
  }

  /// CRC-32 (polynomial 0xEDB88320, reflected), as PNG chunks carry it.
  static func crc32(_ data: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
      crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }
    return crc ^ 0xFFFF_FFFF
  }

  private static let crcTable: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  /// `data` in base64 (RFC 4648, with padding).
  static func base64(_ data: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((data.count + 2) / 3 * 4)
    var i = 0
    while i < data.count {
      let n = min(3, data.count - i)
      let v =
        UInt32(data[i]) << 16 | (n > 1 ? UInt32(data[i + 1]) << 8 : 0)
        | (n > 2 ? UInt32(data[i + 2]) : 0)
      for k in 0..<4 {
        out.append(k <= n ? alphabet[Int((v >> (18 - 6 * k)) & 63)] : UInt8(ascii: "="))
      }
      i += 3
    }
    return String(decoding: out, as: UTF8.self)
  }
}
