/// The fields of Core Audio's `AudioStreamBasicDescription`, field for field.
///
/// On Apple platforms an adapter is one initializer:
/// ```swift
/// let d = StreamDescription(
///   sampleRate: asbd.mSampleRate, formatID: asbd.mFormatID, formatFlags: asbd.mFormatFlags,
///   bytesPerPacket: asbd.mBytesPerPacket, framesPerPacket: asbd.mFramesPerPacket,
///   bytesPerFrame: asbd.mBytesPerFrame, channelsPerFrame: asbd.mChannelsPerFrame,
///   bitsPerChannel: asbd.mBitsPerChannel)
/// ```
/// ``FormatProbe/probe(_:)`` validates it into a ``PCMFormat``.
public struct StreamDescription: Hashable, Sendable {
  /// `mSampleRate`: frames per second.
  public var sampleRate: Double
  /// `mFormatID`: ``StreamDescription/linearPCM`` for what the library reads.
  public var formatID: UInt32
  /// `mFormatFlags`: ``Flags`` bits.
  public var formatFlags: UInt32
  /// `mBytesPerPacket`: equals ``bytesPerFrame`` for linear PCM.
  public var bytesPerPacket: UInt32
  /// `mFramesPerPacket`: 1 for linear PCM.
  public var framesPerPacket: UInt32
  /// `mBytesPerFrame`: bytes of one frame, or of one channel's sample when non-interleaved.
  public var bytesPerFrame: UInt32
  /// `mChannelsPerFrame`.
  public var channelsPerFrame: UInt32
  /// `mBitsPerChannel`: valid bits in each sample.
  public var bitsPerChannel: UInt32
  /// `mReserved`: 0.
  public var reserved: UInt32

  /// Creates a description from its raw fields.
  public init(
    sampleRate: Double, formatID: UInt32, formatFlags: UInt32, bytesPerPacket: UInt32,
    framesPerPacket: UInt32, bytesPerFrame: UInt32, channelsPerFrame: UInt32,
    bitsPerChannel: UInt32, reserved: UInt32 = 0
  ) {
    self.sampleRate = sampleRate
    self.formatID = formatID
    self.formatFlags = formatFlags
    self.bytesPerPacket = bytesPerPacket
    self.framesPerPacket = framesPerPacket
    self.bytesPerFrame = bytesPerFrame
    self.channelsPerFrame = channelsPerFrame
    self.bitsPerChannel = bitsPerChannel
    self.reserved = reserved
  }

  /// `'lpcm'`, Core Audio's linear PCM format ID.
  public static let linearPCM: UInt32 = 0x6C70_636D

  /// Core Audio's format flag bits for linear PCM.
  public struct Flags: OptionSet, Hashable, Sendable {
    /// The flag bits.
    public var rawValue: UInt32
    /// Flags from their bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// `kAudioFormatFlagIsFloat`.
    public static let isFloat = Flags(rawValue: 1)
    /// `kAudioFormatFlagIsBigEndian`.
    public static let isBigEndian = Flags(rawValue: 2)
    /// `kAudioFormatFlagIsSignedInteger`.
    public static let isSignedInteger = Flags(rawValue: 4)
    /// `kAudioFormatFlagIsPacked`.
    public static let isPacked = Flags(rawValue: 8)
    /// `kAudioFormatFlagIsAlignedHigh`.
    public static let isAlignedHigh = Flags(rawValue: 16)
    /// `kAudioFormatFlagIsNonInterleaved`: one buffer per channel.
    public static let isNonInterleaved = Flags(rawValue: 32)
  }

  /// The flags as an option set.
  public var flags: Flags { Flags(rawValue: formatFlags) }

  /// The description Core Audio would give for `format`, packed.
  public init(_ format: PCMFormat) {
    var flags: Flags = [.isPacked]
    if format.sampleType.isFloat { flags.insert(.isFloat) }
    if format.sampleType != .u8 && !format.sampleType.isFloat { flags.insert(.isSignedInteger) }
    if format.byteOrder == .big && format.sampleType != .u8 { flags.insert(.isBigEndian) }
    if !format.isInterleaved { flags.insert(.isNonInterleaved) }
    let bytes = UInt32(format.sampleType.bytesPerSample)
    let frameBytes = format.isInterleaved ? bytes * UInt32(format.channelCount) : bytes
    self.init(
      sampleRate: Double(format.sampleRate), formatID: Self.linearPCM,
      formatFlags: flags.rawValue, bytesPerPacket: frameBytes, framesPerPacket: 1,
      bytesPerFrame: frameBytes, channelsPerFrame: UInt32(format.channelCount),
      bitsPerChannel: UInt32(format.sampleType.bitsPerSample))
  }
}
