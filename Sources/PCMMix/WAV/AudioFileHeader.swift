/// What a file's header says: the container, the format, where the audio starts and how many
/// bytes of it the header claims.
internal struct _AudioFileHeader {
  var container: AudioContainer
  var format: PCMFormat
  /// Significant bits per sample (≤ the container's).
  var validBits: Int
  /// The offset of the first audio byte from the start of the input.
  var dataOffset: Int
  /// The audio bytes the header claims; `nil`: to the end of input.
  var dataSize: Int?
  /// Whether the samples are signed 8-bit (CAF), handed out as `u8` with the top bit flipped.
  var flipsSignBit = false

  /// Parses from the start of `source` up to the first audio byte.
  init<Source: ByteSource>(reading source: inout Source, scratch: UnsafeMutableRawBufferPointer)
    throws(WAVError)
  {
    let magicBytes = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<4])
    let got = try _fill(&source, magicBytes)
    guard got == 4 else {
      let start = magicBytes[0..<got]
      if got > 0 && start.elementsEqual("caff".utf8.prefix(got)) { throw .truncatedCAFHeader }
      let riffMagics = ["RIFF", "RIFX", "RF64", "BW64"]
      if riffMagics.contains(where: { start.elementsEqual($0.utf8.prefix(got)) }) {
        throw .truncatedHeader
      }
      throw .notRIFF
    }
    let magic = UInt32(bigEndian: magicBytes.loadUnaligned(as: UInt32.self))
    switch magic {
    case _FourCC.riff: try self.init(riff: .wav, &source, scratch)
    case _FourCC.rifx: try self.init(riff: .rifx, &source, scratch)
    case _FourCC.rf64: try self.init(riff: .rf64, &source, scratch)
    case _FourCC.bw64: try self.init(riff: .bw64, &source, scratch)
    case _FourCC.caff: try self.init(caf: &source, scratch)
    default: throw .notRIFF
    }
  }

  /// Parses a RIFF-family file after its magic: the form type, then chunks up to `data`.
  ///
  /// Chunks other than `fmt `, `ds64` and `data` are read and discarded, pad byte included; a
  /// second `fmt ` chunk is skipped. In RF64 and BW64 a chunk whose 32-bit size is 0xFFFFFFFF
  /// takes its size from the `ds64` chunk: `data` from its data size (or from a table entry for
  /// `data` when that size is 0), any other chunk from its table entry.
  private init<Source: ByteSource>(
    riff container: AudioContainer, _ source: inout Source, _ scratch: UnsafeMutableRawBufferPointer
  ) throws(WAVError) {
    let bigEndian = container == .rifx
    let isRF64 = container == .rf64 || container == .bw64
    let head = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<8])
    guard try _fill(&source, head) == 8 else { throw .truncatedHeader }
    guard head[4..<8].elementsEqual("WAVE".utf8) else { throw .notWAVE }
    var offset = 12
    var format: (format: PCMFormat, validBits: Int)?
    var ds64: _DS64?
    let chunkHeader = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<8])
    while true {
      let headerBytes = try _fill(&source, chunkHeader)
      if headerBytes == 0 {
        throw format == nil ? .formatChunkMissing : .missingDataChunk
      }
      guard headerBytes == 8 else { throw .truncatedHeader }
      offset &+= 8
      let id = UInt32(bigEndian: chunkHeader.loadUnaligned(as: UInt32.self))
      let raw = chunkHeader.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
      let size32 = bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
      var size = UInt64(size32)
      // A 64-bit size from the ds64 chunk.
      var isWide = false
      if isRF64 && size32 == 0xFFFF_FFFF && id != _FourCC.ds64 {
        guard let ds64 else { throw .ds64Missing }
        if id == _FourCC.data {
          size = ds64.dataSize == 0 ? ds64.size(of: id) ?? 0 : ds64.dataSize
          isWide = true
        } else if let entry = ds64.size(of: id) {
          size = entry
        }
      }
      let bodySize = Int(clamping: size)
      let padded = size & 1 == 1
      switch id {
      case _FourCC.data:
        guard let format else { throw .dataBeforeFormat }
        self.container = container
        self.format = format.format
        self.validBits = format.validBits
        self.dataOffset = offset
        let toEnd = isWide ? size == 0 || size == .max : size32 == 0 || size32 == 0xFFFF_FFFF
        self.dataSize = toEnd ? nil : bodySize
        return
      case _FourCC.ds64 where isRF64 && ds64 == nil:
        ds64 = try _DS64(reading: &source, size: bodySize, scratch: scratch)
        try _skip(&source, 0, padded: padded, scratch: scratch, error: .truncatedHeader)
      case _FourCC.fmt where format == nil:
        let headBytes = min(bodySize, PCMFormat.wavFormatChunkMaxRead)
        let body = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<headBytes])
        guard try _fill(&source, body) == headBytes else { throw .truncatedHeader }
        format = try PCMFormat.wavFormat(
          chunk: UnsafeRawBufferPointer(body), size: bodySize, bigEndian: bigEndian)
        try _skip(
          &source, bodySize - headBytes, padded: padded, scratch: scratch, error: .truncatedHeader)
      default:
        try _skip(&source, bodySize, padded: padded, scratch: scratch, error: .truncatedHeader)
      }
      offset &+= bodySize &+ (padded ? 1 : 0)
    }
  }

  /// Parses a CAF file after its magic: the version, the `desc` chunk (which must come first),
  /// then chunks up to `data` and its 4-byte edit count. CAF chunks are not padded.
  private init<Source: ByteSource>(
    caf source: inout Source, _ scratch: UnsafeMutableRawBufferPointer
  )
    throws(WAVError)
  {
    let head = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<4])
    guard try _fill(&source, head) == 4 else { throw .truncatedCAFHeader }
    let version = UInt16(bigEndian: head.loadUnaligned(as: UInt16.self))
    guard version == 1 else { throw .unsupportedCAFVersion(Int(version)) }
    var offset = 8
    var description: _CAFDescription?
    let chunkHeader = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<12])
    while true {
      let headerBytes = try _fill(&source, chunkHeader)
      if headerBytes == 0 {
        throw description == nil ? .cafDescriptionMissing : .cafDataMissing
      }
      guard headerBytes == 12 else { throw .truncatedCAFHeader }
      offset &+= 12
      let id = UInt32(bigEndian: chunkHeader.loadUnaligned(as: UInt32.self))
      let size = Int64(bigEndian: chunkHeader.loadUnaligned(fromByteOffset: 4, as: Int64.self))
      if description == nil && id != _FourCC.desc { throw .cafDescriptionMissing }
      let isData = id == _FourCC.data
      guard size >= 0 || (isData && size == -1) else {
        throw .invalidCAFChunkSize(type: _fourCCString(id), size: size)
      }
      let bodySize = Int(clamping: size)
      switch id {
      case _FourCC.desc where description == nil:
        guard size >= 32 else {
          throw .cafDescription("the chunk is \(size) bytes, 32 needed")
        }
        let body = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<32])
        guard try _fill(&source, body) == 32 else { throw .truncatedCAFHeader }
        description = try _CAFDescription(UnsafeRawBufferPointer(body))
        try _skip(
          &source, bodySize - 32, padded: false, scratch: scratch, error: .truncatedCAFHeader)
      case _FourCC.data:
        guard size == -1 || size >= 4 else {
          throw .invalidCAFChunkSize(type: _fourCCString(id), size: size)
        }
        let editCount = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<4])
        guard try _fill(&source, editCount) == 4 else { throw .truncatedCAFHeader }
        let desc = description!
        self.container = .caf
        self.format = desc.format
        self.validBits = desc.format.sampleType.bitsPerSample
        self.dataOffset = offset &+ 4
        self.dataSize = size == -1 ? nil : bodySize - 4
        self.flipsSignBit = desc.isSigned8
        return
      default:
        try _skip(&source, bodySize, padded: false, scratch: scratch, error: .truncatedCAFHeader)
      }
      offset &+= bodySize
    }
  }
}

/// The chunk IDs the parsers look for, as big-endian 32-bit values of their four characters.
internal enum _FourCC {
  static let riff: UInt32 = 0x5249_4646  // "RIFF"
  static let rifx: UInt32 = 0x5249_4658  // "RIFX"
  static let rf64: UInt32 = 0x5246_3634  // "RF64"
  static let bw64: UInt32 = 0x4257_3634  // "BW64"
  static let caff: UInt32 = 0x6361_6666  // "caff"
  static let fmt: UInt32 = 0x666D_7420  // "fmt "
  static let data: UInt32 = 0x6461_7461  // "data"
  static let ds64: UInt32 = 0x6473_3634  // "ds64"
  static let desc: UInt32 = 0x6465_7363  // "desc"
  static let lpcm: UInt32 = 0x6C70_636D  // "lpcm"
}

/// A four-character code as text: its characters when all are printable ASCII, else hex.
internal func _fourCCString(_ code: UInt32) -> String {
  let bytes = (0..<4).map { UInt8(truncatingIfNeeded: code >> (24 - 8 * UInt32($0))) }
  if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
    return String(decoding: bytes, as: UTF8.self)
  }
  let digits = String(code, radix: 16)
  return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}

/// The sizes an RF64 / BW64 `ds64` chunk gives: the data size and the first entries of its
/// table (chunk ID → size).
private struct _DS64 {
  var dataSize: UInt64
  /// At most ``maxEntries`` entries are kept; the rest of a longer table is skipped.
  var table: [(id: UInt32, size: UInt64)] = []

  static let maxEntries = 16

  /// The table's size for chunk `id` (its first entry), if any.
  func size(of id: UInt32) -> UInt64? {
    table.first { $0.id == id }?.size
  }

  /// Reads a `ds64` body of `size` bytes: RIFF size, data size and sample count (8 bytes each,
  /// little-endian), the table length (4 bytes), then 12 bytes per entry (ID, size); the rest
  /// of the body, if any, is skipped.
  init<Source: ByteSource>(
    reading source: inout Source, size: Int, scratch: UnsafeMutableRawBufferPointer
  ) throws(WAVError) {
    guard size >= 28 else { throw .ds64TooShort(size) }
    let fixed = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<28])
    guard try _fill(&source, fixed) == 28 else { throw .truncatedHeader }
    dataSize = UInt64(littleEndian: fixed.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    let entries = Int(
      UInt32(littleEndian: fixed.loadUnaligned(fromByteOffset: 24, as: UInt32.self)))
    guard entries <= (size - 28) / 12 else { throw .ds64TooShort(size) }
    let entry = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<12])
    for _ in 0..<min(entries, Self.maxEntries) {
      guard try _fill(&source, entry) == 12 else { throw .truncatedHeader }
      let id = UInt32(bigEndian: entry.loadUnaligned(as: UInt32.self))
      let chunkSize = UInt64(littleEndian: entry.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
      table.append((id, chunkSize))
    }
    let read = 28 + 12 * min(entries, Self.maxEntries)
    try _skip(&source, size - read, padded: false, scratch: scratch, error: .truncatedHeader)
  }
}

/// Reads and discards `count` bytes and, if `padded`, the pad byte after them; throws `error` if
/// the input ends first. A missing pad byte at the very end of input is forgiven (the next chunk
/// header finds the end).
internal func _skip<Source: ByteSource>(
  _ source: inout Source, _ count: Int, padded: Bool, scratch: UnsafeMutableRawBufferPointer,
  error: WAVError
) throws(WAVError) {
  var left = count
  while left > 0 {
    let part = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<min(left, scratch.count)])
    let n = try _fill(&source, part)
    guard n == part.count else { throw error }
    left -= n
  }
  if padded {
    _ = try _fill(&source, UnsafeMutableRawBufferPointer(rebasing: scratch[0..<1]))
  }
}

/// Reads until `buffer` is full or the input ends; returns the bytes read.
internal func _fill<Source: ByteSource>(
  _ source: inout Source, _ buffer: UnsafeMutableRawBufferPointer
) throws(WAVError) -> Int {
  var got = 0
  while got < buffer.count {
    let asked = buffer.count - got
    let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[got...]))
    guard n > 0 else { break }
    guard n <= asked else { throw .io("source returned \(n) bytes when \(asked) were asked") }
    got += n
  }
  return got
}
