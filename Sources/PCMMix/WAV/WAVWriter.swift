/// Writes interleaved Float32 samples to a WAV file on any ``ByteSink``, as 16-bit PCM or 32-bit
/// IEEE float.
///
/// The header goes out in `init` with both sizes set to 0xFFFFFFFF, the streaming marker, so the
/// file is readable as it grows and from a pipe; ``finish()`` puts the real sizes in when the sink
/// can seek. One or two channels get a plain PCM (tag 1, 16-byte `fmt `) or IEEE float (tag 3,
/// 18-byte `fmt ` with `cbSize` 0) header; more channels get WAVE_FORMAT_EXTENSIBLE with the
/// first N standard speakers in the channel mask. No `fact` chunk is written: it carries only the
/// frame count, which readers take from the data size, and on a pipe it could not be filled in.
///
/// ```swift
/// var writer = try WAVWriter(
///   sink: FileDescriptorSink(fileDescriptor: 1), sampleRate: 48_000, channelCount: 2,
///   sampleType: .s16)
/// try writer.write(samples)  // interleaved, whole frames
/// try writer.finish()
/// ```
public struct WAVWriter<Sink: ByteSink> {
  /// The sink, holding everything written so far.
  public private(set) var sink: Sink
  /// The format written: `s16le` or `f32le`, interleaved.
  public let format: PCMFormat
  /// The offset of the first audio byte from the start of the sink: 44 for PCM, 46 for float,
  /// 68 for extensible.
  public let dataOffset: Int
  /// Audio bytes written so far (internal so a test can stand in for 4 GiB of audio).
  internal var dataByteCount = 0
  /// Encoded samples waiting to be written; allocated once.
  private var scratch: [UInt8]

  /// The scratch size in bytes: the most one ``ByteSink/write(_:)`` call carries.
  private static var scratchByteCount: Int { 32_768 }

  /// Whole frames written so far.
  public var framesWritten: Int { dataByteCount / format.bytesPerFrame }

  /// Writes the header for `channelCount` channels of `sampleType` at `sampleRate` Hz.
  ///
  /// - Precondition: `sampleType` is `.s16` or `.f32`.
  /// - Throws: ``WAVError/invalidSampleRate(_:)``, ``WAVError/zeroChannels`` or
  ///   ``WAVError/tooManyChannels(_:)`` for a format outside 1 … 768,000 Hz and 1 … 64 channels;
  ///   ``WAVError/io(_:)`` when the header cannot be written.
  public init(sink: Sink, sampleRate: Int, channelCount: Int, sampleType: SampleType)
    throws(WAVError)
  {
    precondition(sampleType == .s16 || sampleType == .f32, "WAVWriter writes s16 or f32")
    guard (1...PCMFormat.maxSampleRate).contains(sampleRate) else {
      throw .invalidSampleRate(UInt32(clamping: sampleRate))
    }
    guard channelCount > 0 else { throw .zeroChannels }
    guard channelCount <= PCMFormat.maxChannels else { throw .tooManyChannels(channelCount) }
    let format = PCMFormat(
      sampleRate: sampleRate, channelCount: channelCount, sampleType: sampleType,
      byteOrder: .little)
    let unknownSize: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
    var header: [UInt8] =
      Array("RIFF".utf8) + unknownSize + Array("WAVE".utf8) + format.wavFormatChunk
      + Array("data".utf8) + unknownSize
    var sink = sink
    try header._withTypedBytes { (bytes) throws(WAVError) in
      try sink.write(UnsafeRawBufferPointer(bytes))
    }
    self.sink = sink
    self.format = format
    self.dataOffset = header.count
    self.scratch = [UInt8](repeating: 0, count: Self.scratchByteCount)
  }

  /// Encodes interleaved `samples` (see ``Encoder``: int16 rounds to nearest with ties toward
  /// zero and clamps; f32 is written bit for bit) and writes them in chunks of at most 32 KiB.
  ///
  /// Does not allocate. If the sink throws part-way, ``framesWritten`` counts only the chunks
  /// the sink accepted.
  ///
  /// - Precondition: `samples.count` is a multiple of the channel count.
  /// - Complexity: O(`samples.count`).
  public mutating func write(_ samples: UnsafeBufferPointer<Float>) throws(WAVError) {
    let channels = format.channelCount
    precondition(samples.count % channels == 0, "samples must be whole frames")
    let type = format.sampleType
    let chunkSamples = Self.scratchByteCount / type.bytesPerSample
    var scratch = self.scratch
    self.scratch = []
    defer { self.scratch = scratch }
    try scratch._withTypedBytes { (raw) throws(WAVError) in
      var start = 0
      while start < samples.count {
        let end = min(start + chunkSamples, samples.count)
        let count = Encoder.encodeLittleEndian(
          UnsafeBufferPointer(rebasing: samples[start..<end]), as: type, into: raw)
        try self.sink.write(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
        self.dataByteCount += count
        start = end
      }
    }
  }

  /// Writes the RIFF and data sizes into the header when the sink can seek, then returns the sink
  /// to the end so more frames and another `finish()` may follow.
  ///
  /// An unseekable sink (a pipe) keeps 0xFFFFFFFF, which ``WAVReader`` and other streaming-aware
  /// readers take as "to the end of input". So does a file whose RIFF size would not fit in 32
  /// bits (more than 4 GiB − 8 bytes): the sizes are clamped to the streaming marker rather than
  /// wrapped, and no error is thrown, since every frame was written.
  ///
  /// - Returns: `true` when real sizes were written, `false` when 0xFFFFFFFF stays.
  /// - Complexity: O(1).
  @discardableResult
  public mutating func finish() throws(WAVError) -> Bool {
    let riffSize = dataOffset - 8 + dataByteCount
    let fits = riffSize <= Int(UInt32.max - 1)
    guard try sink.seek(toOffset: 4) else { return false }
    try writeUInt32(fits ? UInt32(riffSize) : 0xFFFF_FFFF)
    guard try sink.seek(toOffset: dataOffset - 4) else { return false }
    try writeUInt32(fits ? UInt32(dataByteCount) : 0xFFFF_FFFF)
    guard try sink.seek(toOffset: dataOffset + dataByteCount) else { return false }
    return fits
  }

  /// Writes `value` little-endian at the sink's position.
  private mutating func writeUInt32(_ value: UInt32) throws(WAVError) {
    let result = withUnsafeBytes(of: value.littleEndian) { bytes in
      Result { () throws(WAVError) in try self.sink.write(bytes) }
    }
    try result.get()
  }
}
