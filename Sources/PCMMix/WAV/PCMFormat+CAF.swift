/// A CAF `desc` chunk read into a format: linear PCM (`lpcm`) only.
internal struct _CAFDescription {
  /// Interleaved, in the byte order of the `kCAFLinearPCMFormatFlagIsLittleEndian` flag.
  var format: PCMFormat
  /// Whether the samples are signed 8-bit, which the reader hands out as `u8` (top bit flipped).
  var isSigned8: Bool

  /// Reads the 32 bytes of a `desc` body (big-endian): sample rate (Float64), format ID, format
  /// flags, bytes per packet, frames per packet, channels per frame, bits per channel.
  ///
  /// Accepts `lpcm` with integer samples of 8 (signed), 16, 24 or 32 bits or float samples of 32
  /// or 64 bits, packed (bytes per packet = channels × bytes per sample), one frame per packet,
  /// 1 … 64 channels, a whole number of hertz in 1 … 768,000. Only the two flags CAF defines are
  /// read: bit 0, float; bit 1, little-endian. Checks run in this order: encoding, channels,
  /// sample rate, frames per packet, bit depth, bytes per packet.
  init(_ body: UnsafeRawBufferPointer) throws(WAVError) {
    func u32(_ offset: Int) -> UInt32 {
      UInt32(bigEndian: body.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    let rate = Double(
      bitPattern: UInt64(bigEndian: body.loadUnaligned(fromByteOffset: 0, as: UInt64.self)))
    let formatID = u32(8)
    let flags = u32(12)
    let bytesPerPacket = u32(16)
    let framesPerPacket = u32(20)
    let channels = u32(24)
    let bits = u32(28)
    guard formatID == _FourCC.lpcm else {
      throw .unsupportedCAFEncoding(
        formatID: _fourCCString(formatID), name: Self.encodingName(formatID))
    }
    guard channels > 0 else { throw .zeroChannels }
    guard channels <= PCMFormat.maxChannels else { throw .tooManyChannels(Int(channels)) }
    guard rate.isFinite, rate == rate.rounded() else {
      throw .cafDescription("sample rate \(rate) Hz is not a whole number of hertz")
    }
    guard rate >= 1, rate <= Double(PCMFormat.maxSampleRate) else {
      if rate >= 0 && rate <= Double(UInt32.max) { throw .invalidSampleRate(UInt32(rate)) }
      throw .cafDescription("sample rate \(rate) Hz is outside 1 … \(PCMFormat.maxSampleRate) Hz")
    }
    guard framesPerPacket == 1 else {
      throw .cafDescription("\(framesPerPacket) frames per packet (linear PCM has 1)")
    }
    let isFloat = flags & 1 != 0
    let type: SampleType
    switch (isFloat, bits) {
    case (false, 8): type = .u8
    case (false, 16): type = .s16
    case (false, 24): type = .s24
    case (false, 32): type = .s32
    case (true, 32): type = .f32
    case (true, 64): type = .f64
    case (true, _):
      throw .cafDescription("\(bits)-bit float samples are not supported (32 or 64)")
    case (false, _):
      throw .cafDescription("\(bits)-bit integer samples are not supported (8, 16, 24 or 32)")
    }
    let expected = Int(channels) * type.bytesPerSample
    guard bytesPerPacket == expected else {
      throw .cafDescription(
        "\(bytesPerPacket) bytes per packet for \(channels) channels of \(bits) bits"
          + " (\(expected) expected)")
    }
    format = PCMFormat(
      sampleRate: Int(rate), channelCount: Int(channels), sampleType: type,
      byteOrder: flags & 2 != 0 ? .little : .big)
    isSigned8 = type == .u8
  }

  /// The name of a CAF format ID this library does not read.
  static func encodingName(_ id: UInt32) -> String {
    switch _fourCCString(id) {
    case "aac ": "AAC"
    case "aach": "HE-AAC"
    case "aacp": "HE-AAC v2"
    case "aacl": "AAC-LD"
    case "aace": "AAC-ELD"
    case "alac": "Apple Lossless"
    case "ulaw": "mu-law"
    case "alaw": "A-law"
    case "ima4": "IMA 4:1 ADPCM"
    case ".mp1": "MPEG Layer 1"
    case ".mp2": "MPEG Layer 2"
    case ".mp3": "MPEG Layer 3"
    case "opus": "Opus"
    case "flac": "FLAC"
    case "ac-3": "AC-3"
    case "ec-3": "E-AC-3"
    case "MAC3": "MACE 3:1"
    case "MAC6": "MACE 6:1"
    case "QDMC", "QDM2": "QDesign"
    case "samr": "AMR"
    case "ilbc": "iLBC"
    case let other: "format '\(other)'"
    }
  }
}
