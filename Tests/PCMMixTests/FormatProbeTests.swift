import Testing

@testable import PCMMix

/// A stream description with the given fields; packets default to one frame of `bytesPerFrame`.
private func asbd(
  rate: Double, flags: UInt32, bytesPerFrame: UInt32, channels: UInt32, bits: UInt32,
  bytesPerPacket: UInt32? = nil, framesPerPacket: UInt32 = 1,
  formatID: UInt32 = StreamDescription.linearPCM
) -> StreamDescription {
  StreamDescription(
    sampleRate: rate, formatID: formatID, formatFlags: flags,
    bytesPerPacket: bytesPerPacket ?? bytesPerFrame, framesPerPacket: framesPerPacket,
    bytesPerFrame: bytesPerFrame, channelsPerFrame: channels, bitsPerChannel: bits)
}

@Suite struct FormatProbeTests {
  /// One accepted description and the format it must probe to.
  struct AcceptedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let description: StreamDescription
    let expected: PCMFormat
    var testDescription: String { name }
  }

  /// One refused description, the error it must throw, and a piece of text the error's
  /// description must contain (the value of the field at fault).
  struct RefusedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let description: StreamDescription
    let expected: ProbeError
    let mentions: [String]
    var testDescription: String { name }
  }

  static let accepted: [AcceptedCase] = [
    // The shapes ReplayKit delivers.
    AcceptedCase(
      name: "ReplayKit app: 44.1 kHz stereo s16 big-endian, flags 0xE",
      description: asbd(
        rate: 44_100, flags: 0xE, bytesPerFrame: 4, channels: 2, bits: 16),
      expected: PCMFormat(
        sampleRate: 44_100, channelCount: 2, sampleType: .s16, byteOrder: .big)),
    AcceptedCase(
      name: "ReplayKit mic: 32 kHz mono s16le, flags 0xC",
      description: asbd(
        rate: 32_000, flags: 0xC, bytesPerFrame: 2, channels: 1, bits: 16),
      expected: PCMFormat(sampleRate: 32_000, channelCount: 1, sampleType: .s16)),
    AcceptedCase(
      name: "48 kHz stereo f32, flags 0x9",
      description: asbd(rate: 48_000, flags: 0x9, bytesPerFrame: 8, channels: 2, bits: 32),
      expected: PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .f32)),
    AcceptedCase(
      name: "48 kHz mono f32, flags 0x9",
      description: asbd(rate: 48_000, flags: 0x9, bytesPerFrame: 4, channels: 1, bits: 32),
      expected: PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .f32)),
    AcceptedCase(
      name: "48 kHz stereo non-interleaved f32, flags 0x29, 4 bytes a frame",
      description: asbd(
        rate: 48_000, flags: 0x29, bytesPerFrame: 4, channels: 2, bits: 32),
      expected: PCMFormat(
        sampleRate: 48_000, channelCount: 2, sampleType: .f32, isInterleaved: false)),
    AcceptedCase(
      name: "mono non-interleaved f32 is the same as interleaved",
      description: asbd(
        rate: 48_000, flags: 0x29, bytesPerFrame: 4, channels: 1, bits: 32),
      expected: PCMFormat(sampleRate: 48_000, channelCount: 1, sampleType: .f32)),
    // Every type and byte order, spelled with Core Audio's flags.
    AcceptedCase(
      name: "u8 stereo, flags 0x8 (unsigned, packed)",
      description: asbd(rate: 8_000, flags: 0x8, bytesPerFrame: 2, channels: 2, bits: 8),
      expected: PCMFormat(sampleRate: 8_000, channelCount: 2, sampleType: .u8)),
    AcceptedCase(
      name: "u8 with the big-endian flag (meaningless for one byte)",
      description: asbd(rate: 8_000, flags: 0xA, bytesPerFrame: 1, channels: 1, bits: 8),
      expected: PCMFormat(sampleRate: 8_000, channelCount: 1, sampleType: .u8)),
    AcceptedCase(
      name: "s24le stereo, flags 0xC",
      description: asbd(rate: 96_000, flags: 0xC, bytesPerFrame: 6, channels: 2, bits: 24),
      expected: PCMFormat(sampleRate: 96_000, channelCount: 2, sampleType: .s24)),
    AcceptedCase(
      name: "s24be stereo, flags 0xE",
      description: asbd(rate: 96_000, flags: 0xE, bytesPerFrame: 6, channels: 2, bits: 24),
      expected: PCMFormat(
        sampleRate: 96_000, channelCount: 2, sampleType: .s24, byteOrder: .big)),
    AcceptedCase(
      name: "s32le stereo, flags 0xC",
      description: asbd(rate: 48_000, flags: 0xC, bytesPerFrame: 8, channels: 2, bits: 32),
      expected: PCMFormat(sampleRate: 48_000, channelCount: 2, sampleType: .s32)),
    AcceptedCase(
      name: "s32be mono, flags 0xE",
      description: asbd(rate: 48_000, flags: 0xE, bytesPerFrame: 4, channels: 1, bits: 32),
      expected: PCMFormat(
        sampleRate: 48_000, channelCount: 1, sampleType: .s32, byteOrder: .big)),
    AcceptedCase(
      name: "f32be stereo, flags 0xB",
      description: asbd(rate: 44_100, flags: 0xB, bytesPerFrame: 8, channels: 2, bits: 32),
      expected: PCMFormat(
        sampleRate: 44_100, channelCount: 2, sampleType: .f32, byteOrder: .big)),
    AcceptedCase(
      name: "f64le stereo, flags 0x9",
      description: asbd(
        rate: 192_000, flags: 0x9, bytesPerFrame: 16, channels: 2, bits: 64),
      expected: PCMFormat(sampleRate: 192_000, channelCount: 2, sampleType: .f64)),
    AcceptedCase(
      name: "f64be non-interleaved stereo, flags 0x2B",
      description: asbd(
        rate: 192_000, flags: 0x2B, bytesPerFrame: 8, channels: 2, bits: 64),
      expected: PCMFormat(
        sampleRate: 192_000, channelCount: 2, sampleType: .f64, byteOrder: .big,
        isInterleaved: false)),
    AcceptedCase(
      name: "s16 non-interleaved stereo, flags 0x2C",
      description: asbd(
        rate: 16_000, flags: 0x2C, bytesPerFrame: 2, channels: 2, bits: 16),
      expected: PCMFormat(
        sampleRate: 16_000, channelCount: 2, sampleType: .s16, isInterleaved: false)),
    // Flags Core Audio allows to differ while the sizes say the samples are packed.
    AcceptedCase(
      name: "s16 without the packed flag, sizes packed (flags 0x4)",
      description: asbd(rate: 44_100, flags: 0x4, bytesPerFrame: 4, channels: 2, bits: 16),
      expected: PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16)),
    AcceptedCase(
      name: "s16 packed and aligned high (alignment moot when packed, flags 0x1C)",
      description: asbd(
        rate: 44_100, flags: 0x1C, bytesPerFrame: 4, channels: 2, bits: 16),
      expected: PCMFormat(sampleRate: 44_100, channelCount: 2, sampleType: .s16)),
    // The edges of the accepted ranges.
    AcceptedCase(
      name: "1 Hz",
      description: asbd(rate: 1, flags: 0xC, bytesPerFrame: 2, channels: 1, bits: 16),
      expected: PCMFormat(sampleRate: 1, channelCount: 1, sampleType: .s16)),
    AcceptedCase(
      name: "768 kHz",
      description: asbd(
        rate: 768_000, flags: 0xC, bytesPerFrame: 2, channels: 1, bits: 16),
      expected: PCMFormat(sampleRate: 768_000, channelCount: 1, sampleType: .s16)),
    AcceptedCase(
      name: "64 channels",
      description: asbd(
        rate: 48_000, flags: 0x9, bytesPerFrame: 256, channels: 64, bits: 32),
      expected: PCMFormat(sampleRate: 48_000, channelCount: 64, sampleType: .f32)),
  ]

  @Test(arguments: accepted)
  func accepts(_ c: AcceptedCase) throws {
    let format = try FormatProbe.probe(c.description)
    #expect(format == c.expected)
  }

  /// Every sample type × byte order × layout × channel count × rate survives
  /// `StreamDescription(format)` → probe.
  @Test(arguments: SampleType.allCases)
  func roundTrip(_ type: SampleType) throws {
    for order in [ByteOrder.little, .big] {
      for interleaved in [true, false] {
        for channels in [1, 2, 6, 64] {
          for rate in [1, 8_000, 44_100, 48_000, 768_000] {
            let format = PCMFormat(
              sampleRate: rate, channelCount: channels, sampleType: type, byteOrder: order,
              isInterleaved: interleaved)
            let d = StreamDescription(format)
            #expect(d.formatID == StreamDescription.linearPCM)
            #expect(d.flags.contains(.isPacked))
            #expect(try FormatProbe.probe(d) == format, "\(format)")
          }
        }
      }
    }
  }

  static let refused: [RefusedCase] = {
    let s16 = { (rate: Double) in
      asbd(rate: rate, flags: 0xC, bytesPerFrame: 4, channels: 2, bits: 16)
    }
    return [
      RefusedCase(
        name: "format ID 'aac '",
        description: asbd(
          rate: 44_100, flags: 0, bytesPerFrame: 0, channels: 2, bits: 0,
          formatID: 0x6161_6320),
        expected: .unsupportedFormatID(0x6161_6320), mentions: ["'aac '", "lpcm"]),
      RefusedCase(
        name: "format ID not printable",
        description: asbd(
          rate: 44_100, flags: 0xC, bytesPerFrame: 4, channels: 2, bits: 16, formatID: 1),
        expected: .unsupportedFormatID(1), mentions: ["0x1"]),
      RefusedCase(
        name: "rate 0", description: s16(0), expected: .invalidSampleRate(0),
        mentions: ["sample rate 0"]),
      RefusedCase(
        name: "rate -1", description: s16(-1), expected: .invalidSampleRate(-1),
        mentions: ["-1"]),
      RefusedCase(
        name: "rate 44100.5", description: s16(44_100.5),
        expected: .invalidSampleRate(44_100.5), mentions: ["44100.5"]),
      RefusedCase(
        name: "rate 768001", description: s16(768_001),
        expected: .invalidSampleRate(768_001), mentions: ["768001", "768000"]),
      RefusedCase(
        name: "rate +inf", description: s16(.infinity),
        expected: .invalidSampleRate(.infinity), mentions: ["inf"]),
      RefusedCase(
        name: "zero channels",
        description: asbd(rate: 48_000, flags: 0xC, bytesPerFrame: 0, channels: 0, bits: 16),
        expected: .zeroChannels, mentions: ["channel count is 0"]),
      RefusedCase(
        name: "65 channels",
        description: asbd(
          rate: 48_000, flags: 0xC, bytesPerFrame: 130, channels: 65, bits: 16),
        expected: .tooManyChannels(65), mentions: ["65", "64"]),
      RefusedCase(
        name: "float 16-bit",
        description: asbd(rate: 48_000, flags: 0x9, bytesPerFrame: 4, channels: 2, bits: 16),
        expected: .unsupportedBitDepth(16, flags: 0x9), mentions: ["16-bit", "float", "0x9"]),
      RefusedCase(
        name: "float 24-bit",
        description: asbd(rate: 48_000, flags: 0x9, bytesPerFrame: 6, channels: 2, bits: 24),
        expected: .unsupportedBitDepth(24, flags: 0x9), mentions: ["24-bit", "float"]),
      RefusedCase(
        name: "integer 12-bit",
        description: asbd(rate: 48_000, flags: 0xC, bytesPerFrame: 4, channels: 2, bits: 12),
        expected: .unsupportedBitDepth(12, flags: 0xC), mentions: ["12-bit", "integer", "0xc"]),
      RefusedCase(
        name: "unsigned 16-bit",
        description: asbd(rate: 48_000, flags: 0x8, bytesPerFrame: 4, channels: 2, bits: 16),
        expected: .unsupportedSignedness(bits: 16, flags: 0x8),
        mentions: ["16-bit", "unsigned", "0x8"]),
      RefusedCase(
        name: "signed 8-bit",
        description: asbd(rate: 8_000, flags: 0xC, bytesPerFrame: 1, channels: 1, bits: 8),
        expected: .unsupportedSignedness(bits: 8, flags: 0xC),
        mentions: ["8-bit", "signed", "0xc"]),
      RefusedCase(
        name: "bytesPerFrame 3 for s16 stereo",
        description: asbd(rate: 48_000, flags: 0xC, bytesPerFrame: 3, channels: 2, bits: 16),
        expected: .bytesPerFrameMismatch(3, expected: 4), mentions: ["3", "expected 4"]),
      RefusedCase(
        name: "bytesPerFrame 5 for s16 stereo",
        description: asbd(rate: 48_000, flags: 0xC, bytesPerFrame: 5, channels: 2, bits: 16),
        expected: .bytesPerFrameMismatch(5, expected: 4), mentions: ["5", "expected 4"]),
      RefusedCase(
        name: "24-bit in 4-byte containers, aligned high (flags 0x14)",
        description: asbd(
          rate: 48_000, flags: 0x14, bytesPerFrame: 8, channels: 2, bits: 24),
        expected: .unsupportedUnpackedLayout(bits: 24, bytesPerFrame: 8, flags: 0x14),
        mentions: ["24-bit", "8-byte", "unpacked", "0x14"]),
      RefusedCase(
        name: "24-bit mono in 4 bytes, aligned low (flags 0x4)",
        description: asbd(rate: 48_000, flags: 0x4, bytesPerFrame: 4, channels: 1, bits: 24),
        expected: .unsupportedUnpackedLayout(bits: 24, bytesPerFrame: 4, flags: 0x4),
        mentions: ["24-bit", "4-byte", "unpacked"]),
      RefusedCase(
        name: "framesPerPacket 2",
        description: asbd(
          rate: 48_000, flags: 0xC, bytesPerFrame: 4, channels: 2, bits: 16, bytesPerPacket: 8,
          framesPerPacket: 2),
        expected: .unsupportedFramesPerPacket(2), mentions: ["frames per packet is 2"]),
      RefusedCase(
        name: "bytesPerPacket 8 for 4-byte frames",
        description: asbd(
          rate: 48_000, flags: 0xC, bytesPerFrame: 4, channels: 2, bits: 16, bytesPerPacket: 8),
        expected: .bytesPerPacketMismatch(8, expected: 4), mentions: ["8", "expected 4"]),
    ]
  }()

  @Test(arguments: refused)
  func refuses(_ c: RefusedCase) {
    #expect(throws: c.expected) { try FormatProbe.probe(c.description) }
    let text = c.expected.description
    #expect(!text.isEmpty && !text.contains("\n"), "not one line: \(text)")
    for piece in c.mentions {
      #expect(text.contains(piece), "\"\(text)\" does not mention \(piece)")
    }
  }

  /// NaN is never equal to itself, so it gets its own test.
  @Test func refusesNaNRate() {
    let d = asbd(rate: .nan, flags: 0xC, bytesPerFrame: 4, channels: 2, bits: 16)
    do {
      _ = try FormatProbe.probe(d)
      Issue.record("a NaN sample rate was accepted")
    } catch {
      guard case .invalidSampleRate(let rate) = error else {
        Issue.record("wrong error \(error)")
        return
      }
      #expect(rate.isNaN)
      #expect(error.description.contains("nan"))
      #expect(!error.description.contains("\n"))
    }
  }

  /// Core Audio's fixed-point formats (the old 8.24 "AudioUnit canonical" on iOS) keep the
  /// fraction bits in flag bits 7…12 (`kLinearPCMFormatFlagsSampleFractionMask` = 0x1F80).
  /// They must be refused, not read as s32: read as s32, 8.24 comes out 2⁷ too quiet (−42 dB).
  @Test func refusesFixedPointSampleFractionBits() {
    // signed | packed | 24 fraction bits (24 << 7 = 0xC00), 32-bit samples.
    let d = asbd(rate: 44_100, flags: 0xC0C, bytesPerFrame: 8, channels: 2, bits: 32)
    #expect(throws: ProbeError.unsupportedFixedPoint(fractionBits: 24, flags: 0xC0C)) {
      try FormatProbe.probe(d)
    }
  }

  @Test func partialFrameDescription() {
    let text = ProbeError.partialFrame(byteCount: 1023, bytesPerFrame: 4).description
    #expect(text.contains("1023") && text.contains("4-byte") && !text.contains("\n"))
  }
}
