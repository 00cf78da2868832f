/// A validated description of linear PCM: what ``FormatProbe`` yields and ``PCMDecoder`` reads.
///
/// Planar (non-interleaved) data holds each channel's samples contiguously, channel 0 first.
public struct PCMFormat: Hashable, Sendable {
  /// Frames per second, 1 … 768,000.
  public var sampleRate: Int
  /// Channels per frame, 1 … ``PCMFormat/maxChannels``.
  public var channelCount: Int
  /// How one sample is encoded.
  public var sampleType: SampleType
  /// Byte order of multi-byte samples (ignored for `u8`).
  public var byteOrder: ByteOrder
  /// Whether channels alternate sample by sample (`true`) or are stored as planes.
  public var isInterleaved: Bool

  /// The highest sample rate accepted anywhere in the library.
  public static let maxSampleRate = 768_000
  /// The most channels accepted in one frame.
  public static let maxChannels = 64

  /// Creates a format without validation; ``FormatProbe`` validates descriptions from outside.
  public init(
    sampleRate: Int, channelCount: Int, sampleType: SampleType,
    byteOrder: ByteOrder = .little, isInterleaved: Bool = true
  ) {
    self.sampleRate = sampleRate
    self.channelCount = channelCount
    self.sampleType = sampleType
    self.byteOrder = sampleType == .u8 ? .little : byteOrder
    self.isInterleaved = channelCount == 1 ? true : isInterleaved
  }

  /// Bytes in one frame (all channels of one sample instant).
  @inlinable
  public var bytesPerFrame: Int { sampleType.bytesPerSample * channelCount }

  /// The sample type and byte order spelled as the CLI spells them: `u8`, `s16le`, `f32be`, ….
  public var typeSpelling: String {
    sampleType == .u8 ? "u8" : sampleType.rawValue + (byteOrder == .little ? "le" : "be")
  }
}

extension PCMFormat: CustomStringConvertible {
  /// For example `s16be 44100 Hz 2 ch`.
  public var description: String {
    "\(typeSpelling) \(sampleRate) Hz \(channelCount) ch" + (isInterleaved ? "" : " planar")
  }
}
