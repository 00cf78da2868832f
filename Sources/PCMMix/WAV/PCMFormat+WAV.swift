/// Format tags and the sub-format GUID of the WAV `fmt ` chunk.
internal enum _WAVFormatTag {
  static let pcm: UInt16 = 0x0001
  static let float: UInt16 = 0x0003
  static let extensible: UInt16 = 0xFFFE

  /// Bytes 2 ..< 16 of `KSDATAFORMAT_SUBTYPE_*` GUIDs whose first two bytes are a format tag:
  /// `{0000xxxx-0000-0010-8000-00aa00389b71}` as stored (little-endian fields).
  static let guidTail: [UInt8] = [
    0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
  ]

  /// The name of an encoding this library does not read, for ``WAVError/unsupportedEncoding(tag:name:)``.
  static func name(_ tag: UInt16) -> String {
    switch tag {
    case 0x0002: "ADPCM"
    case 0x0006: "A-law"
    case 0x0007: "mu-law"
    case 0x0011: "IMA ADPCM"
    case 0x0050: "MPEG"
    case 0x0055: "MPEG Layer 3"
    default: "format tag \(_hex(tag))"
    }
  }
}

extension PCMFormat {
  /// The largest `fmt ` body this library looks at: WAVE_FORMAT_EXTENSIBLE's 40 bytes.
  internal static let wavFormatChunkMaxRead = 40

  /// Reads a WAV `fmt ` chunk into an interleaved format (little-endian samples, or big-endian in
  /// a RIFX file) and the number of significant bits in each sample.
  ///
  /// Accepts PCM (tag 1), IEEE float (tag 3: 32 or 64 bits) and WAVE_FORMAT_EXTENSIBLE (tag
  /// 0xFFFE, `cbSize` ≥ 22) whose sub-format is PCM or float. PCM samples sit in containers of
  /// block align ÷ channels bytes, which must be `ceil(bits / 8)`: 8 bits or fewer are unsigned
  /// (u8), up to 16 s16, up to 24 s24, up to 32 s32; a depth that is not a whole number of bytes
  /// (12 bits in 2 bytes) is left-justified in its container and read as the whole container, as
  /// libsndfile reads it. For extensible, `wBitsPerSample` is the container and gives the sample
  /// type; the valid bits must not exceed it. The byte rate is not checked (writers often get it
  /// wrong); the block align must be channels × bytes per sample. Checks run in this order: size,
  /// encoding, channels, sample rate, bit depth, block align.
  ///
  /// - Parameters:
  ///   - body: The first `min(size, 40)` bytes of the chunk body.
  ///   - size: The chunk size its header declares.
  ///   - bigEndian: Whether the file is RIFX: every field is big-endian, the extensible sub-format
  ///     GUID's first three fields too (as libsndfile reads them), and so are the samples.
  internal static func wavFormat(
    chunk body: UnsafeRawBufferPointer, size: Int, bigEndian: Bool = false
  ) throws(WAVError) -> (format: PCMFormat, validBits: Int) {
    guard size >= 16, body.count >= 16 else { throw .formatChunkTooShort(size) }
    func u16(_ offset: Int) -> UInt16 {
      let raw = body.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
      return bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
    }
    func u32(_ offset: Int) -> UInt32 {
      let raw = body.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
      return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }
    let formatTag = u16(0)
    let channels = Int(u16(2))
    let rate = u32(4)
    let blockAlign = Int(u16(12))
    let bits = Int(u16(14))
    var tag = formatTag
    var validBits = bits
    if formatTag == _WAVFormatTag.extensible {
      guard size >= 40, body.count >= 40 else { throw .formatChunkTooShort(size) }
      guard u16(16) >= 22 else { throw .formatChunkTooShort(size) }
      // GUID Data1 (4 bytes, the tag in its low half), Data2, Data3, then 8 bytes as stored.
      let data1 = u32(24)
      let tailMatches =
        u16(28) == 0x0000 && u16(30) == 0x0010
        && (0..<8).allSatisfy { body[32 + $0] == _WAVFormatTag.guidTail[6 + $0] }
      guard data1 <= 0xFFFF, tailMatches else {
        throw .unsupportedEncoding(tag: formatTag, name: "extensible subformat")
      }
      tag = UInt16(data1)
      validBits = Int(u16(18))
    }
    guard tag == _WAVFormatTag.pcm || tag == _WAVFormatTag.float else {
      throw .unsupportedEncoding(tag: tag, name: _WAVFormatTag.name(tag))
    }
    guard channels > 0 else { throw .zeroChannels }
    guard channels <= PCMFormat.maxChannels else { throw .tooManyChannels(channels) }
    guard rate >= 1, rate <= PCMFormat.maxSampleRate else { throw .invalidSampleRate(rate) }
    let type: SampleType
    switch (tag, bits) {
    case (_WAVFormatTag.pcm, 1...8) where formatTag == _WAVFormatTag.pcm || bits == 8: type = .u8
    case (_WAVFormatTag.pcm, 9...16) where formatTag == _WAVFormatTag.pcm || bits == 16:
      type = .s16
    case (_WAVFormatTag.pcm, 17...24) where formatTag == _WAVFormatTag.pcm || bits == 24:
      type = .s24
    case (_WAVFormatTag.pcm, 25...32) where formatTag == _WAVFormatTag.pcm || bits == 32:
      type = .s32
    case (_WAVFormatTag.float, 32): type = .f32
    case (_WAVFormatTag.float, 64): type = .f64
    default: throw .unsupportedBitDepth(bits: bits, formatTag: tag)
    }
    guard validBits <= bits else { throw .unsupportedBitDepth(bits: validBits, formatTag: tag) }
    let expected = channels * type.bytesPerSample
    guard blockAlign == expected else { throw .blockAlignMismatch(blockAlign, expected: expected) }
    let format = PCMFormat(
      sampleRate: Int(rate), channelCount: channels, sampleType: type,
      byteOrder: bigEndian ? .big : .little)
    return (format, validBits)
  }

  /// The `fmt ` chunk (header and body) ``WAVWriter`` writes for this format: PCM (16 bytes) or
  /// IEEE float (18 bytes, `cbSize` 0) for one or two channels, WAVE_FORMAT_EXTENSIBLE (40 bytes)
  /// for more, with valid bits = container bits and a channel mask naming the first N standard
  /// speakers (at most the 18 defined; further channels have no speaker).
  internal var wavFormatChunk: [UInt8] {
    let tag = sampleType.isFloat ? _WAVFormatTag.float : _WAVFormatTag.pcm
    let extensible = channelCount > 2
    let bodySize = extensible ? 40 : (sampleType.isFloat ? 18 : 16)
    var chunk: [UInt8] = Array("fmt ".utf8)
    func put16(_ v: UInt16) { chunk += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func put32(_ v: UInt32) {
      for s in stride(from: 0, to: 32, by: 8) {
        chunk.append(UInt8(truncatingIfNeeded: v >> UInt32(s)))
      }
    }
    put32(UInt32(bodySize))
    put16(extensible ? _WAVFormatTag.extensible : tag)
    put16(UInt16(channelCount))
    put32(UInt32(sampleRate))
    put32(UInt32(sampleRate * bytesPerFrame))
    put16(UInt16(bytesPerFrame))
    put16(UInt16(sampleType.bitsPerSample))
    if extensible {
      put16(22)
      put16(UInt16(sampleType.bitsPerSample))
      let speakers = min(channelCount, 18)
      put32(UInt32((1 << speakers) - 1))
      put16(tag)
      chunk += _WAVFormatTag.guidTail
    } else if sampleType.isFloat {
      put16(0)
    }
    return chunk
  }
}
