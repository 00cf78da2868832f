#if canImport(CoreAudioTypes)
  import CoreAudioTypes

  extension StreamDescription {
    /// Core Audio's description of a stream (what `CMAudioFormatDescription` and
    /// `AVAudioFormat` hold), field for field; ``FormatProbe`` checks it as it checks any other.
    /// Apple platforms only: elsewhere, build the description with
    /// ``init(sampleRate:formatID:formatFlags:bytesPerPacket:framesPerPacket:bytesPerFrame:channelsPerFrame:bitsPerChannel:reserved:)``,
    /// the initializer this one calls.
    public init(_ asbd: AudioStreamBasicDescription) {
      self.init(
        sampleRate: asbd.mSampleRate, formatID: asbd.mFormatID, formatFlags: asbd.mFormatFlags,
        bytesPerPacket: asbd.mBytesPerPacket, framesPerPacket: asbd.mFramesPerPacket,
        bytesPerFrame: asbd.mBytesPerFrame, channelsPerFrame: asbd.mChannelsPerFrame,
        bitsPerChannel: asbd.mBitsPerChannel, reserved: asbd.mReserved)
    }
  }
#endif
