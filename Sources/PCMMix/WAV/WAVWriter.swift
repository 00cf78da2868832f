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
/// Past 4 GiB a RIFF header cannot hold the sizes. Asked to (`reservingRF64: true`) and given a
/// sink that can seek, the writer puts a 36-byte `JUNK` chunk first, the room an RF64 `ds64`
/// chunk needs (EBU Tech 3306); ``finish()`` turns the file into RF64 (magic `RF64`, the `JUNK`
/// chunk rewritten as `ds64` with the 64-bit sizes, 32-bit sizes 0xFFFFFFFF) only when its sizes
/// do not fit 32 bits, and otherwise leaves a plain RIFF file whose first chunk is `JUNK`, which
/// every reader skips. Without the reservation (the default) the header is the plain one above,
/// byte for byte, and a file past 4 GiB keeps the streaming marker.
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
  /// 68 for extensible; 36 more with the RF64 reservation.
  public let dataOffset: Int
  /// Whether the header holds a `JUNK` chunk that ``finish()`` can turn into RF64's `ds64`.
  public let reservesRF64: Bool
  /// Whether the last ``finish()`` wrote the file as RF64.
  public private(set) var isRF64 = false
  /// Audio bytes written so far (internal so a test can stand in for 4 GiB of audio).
  internal var dataByteCount = 0
  /// The largest RIFF size (file size − 8) a plain RIFF header holds: 0xFFFFFFFE, since
  /// 0xFFFFFFFF is the streaming marker (internal so a test can lower it).
  internal var largestRIFFSize = Int(UInt32.max) - 1
  /// Encoded samples waiting to be written; allocated once.
  private var scratch: [UInt8]

  /// The scratch size in bytes: the most one ``ByteSink/write(_:)`` call carries.
  private static var scratchByteCount: Int { 32_768 }

  /// Whole frames written so far.
  public var framesWritten: Int { dataByteCount / format.bytesPerFrame }

  /// Writes the header for `channelCount` channels of `sampleType` at `sampleRate` Hz.
  ///
  /// - Parameters:
  ///   - sink: Where the bytes go (a file, standard output, memory).
  ///   - sampleRate: Frames per second, 1 … 768,000.
  ///   - channelCount: Channels per frame, 1 … 64.
  ///   - sampleType: `.s16` or `.f32`.
  ///   - reservingRF64: Whether to put a `JUNK` chunk first so that ``finish()`` can turn a
  ///     file past 4 GiB into RF64; honored only when the sink can seek (a pipe keeps the
  ///     streaming marker instead). Pass it when the output may pass 4 GiB.
  /// - Precondition: `sampleType` is `.s16` or `.f32`.
  /// - Throws: ``WAVError/invalidSampleRate(_:)``, ``WAVError/zeroChannels`` or
  ///   ``WAVError/tooManyChannels(_:)`` for a format outside 1 … 768,000 Hz and 1 … 64 channels;
  ///   ``WAVError/io(_:)`` when the header cannot be written.
  public init(
    sink: Sink, sampleRate: Int, channelCount: Int, sampleType: SampleType,
    reservingRF64: Bool = false
  ) throws(WAVError) {
    precondition(sampleType == .s16 || sampleType == .f32, "WAVWriter writes s16 or f32")
    guard (1...PCMFormat.maxSampleRate).contains(sampleRate) else {
      throw .invalidSampleRate(Double(sampleRate))
    }
    guard channelCount > 0 else { throw .zeroChannels }
    guard channelCount <= PCMFormat.maxChannels else { throw .tooManyChannels(channelCount) }
    let format = PCMFormat(
      sampleRate: sampleRate, channelCount: channelCount, sampleType: sampleType,
      byteOrder: .little)
    var sink = sink
    // Seeking to the first byte before anything is written moves nothing; it asks whether the
    // sink can seek at all.
    var reserves = false
    if reservingRF64 { reserves = try sink.seek(toOffset: 0) }
    let unknownSize: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
    var header: [UInt8] = Array("RIFF".utf8) + unknownSize + Array("WAVE".utf8)
    if reserves { header += _rf64JunkChunk }
    header += format.wavFormatChunk + Array("data".utf8) + unknownSize
    try header._withTypedBytes { (bytes) throws(WAVError) in
      try sink.write(UnsafeRawBufferPointer(bytes))
    }
    self.sink = sink
    self.format = format
    self.dataOffset = header.count
    self.reservesRF64 = reserves
    self.scratch = [UInt8](repeating: 0, count: Self.scratchByteCount)
  }

  /// Encodes interleaved `samples` (see ``PCMEncoder``: int16 rounds to nearest with ties toward
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
        let count = PCMEncoder.encodeLittleEndian(
          UnsafeBufferPointer(rebasing: samples[start..<end]), as: type, into: raw)
        try self.sink.write(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
        self.dataByteCount += count
        start = end
      }
    }
  }

  /// Counts `byteCount` bytes of encoded frames as written right after this writer's frames,
  /// where another writer put them directly (`pcm-mix convert` fills the later parts of a file
  /// from other threads with `pwrite(2)`), and moves the sink past them, so that ``finish()``
  /// states every frame.
  ///
  /// - Precondition: `byteCount` is whole frames.
  package mutating func countWrittenElsewhere(byteCount: Int) throws(WAVError) {
    precondition(byteCount >= 0 && byteCount % format.bytesPerFrame == 0, "whole frames only")
    dataByteCount += byteCount
    guard try sink.seek(toOffset: dataOffset + dataByteCount) else {
      throw .io("cannot seek past frames written elsewhere")
    }
  }

  /// Writes the RIFF and data sizes into the header when the sink can seek, then returns the sink
  /// to the end so more frames and another `finish()` may follow.
  ///
  /// An unseekable sink (a pipe) keeps 0xFFFFFFFF, which ``AudioFileReader`` and other
  /// streaming-aware readers take as "to the end of input". When the RIFF size would not fit in
  /// 32 bits (more than 4 GiB − 8 bytes): with the RF64 reservation the file becomes RF64, its
  /// 64-bit sizes and frame count in the `ds64` chunk; without it the sizes are clamped to the
  /// streaming marker rather than wrapped, and no error is thrown, since every frame was written.
  ///
  /// - Returns: `true` when real sizes were written (RIFF or RF64), `false` when 0xFFFFFFFF
  ///   stays.
  /// - Complexity: O(1).
  @discardableResult
  public mutating func finish() throws(WAVError) -> Bool {
    let riffSize = dataOffset - 8 + dataByteCount
    let fits = riffSize <= largestRIFFSize
    if reservesRF64 {
      guard try sink.seek(toOffset: 0) else { return false }
      // The whole reserved region, so that each finish() leaves a consistent header.
      var head: [UInt8] = Array((fits ? "RIFF" : "RF64").utf8)
      head += Self.le32(fits ? UInt32(riffSize) : 0xFFFF_FFFF) + Array("WAVE".utf8)
      if fits {
        head += _rf64JunkChunk
      } else {
        head += Array("ds64".utf8) + Self.le32(28)
        head += Self.le64(UInt64(riffSize)) + Self.le64(UInt64(dataByteCount))
        head += Self.le64(UInt64(framesWritten)) + Self.le32(0)
      }
      try writeBytes(head)
      isRF64 = !fits
    } else {
      guard try sink.seek(toOffset: 4) else { return false }
      try writeBytes(Self.le32(fits ? UInt32(riffSize) : 0xFFFF_FFFF))
    }
    guard try sink.seek(toOffset: dataOffset - 4) else { return false }
    try writeBytes(Self.le32(fits ? UInt32(dataByteCount) : 0xFFFF_FFFF))
    guard try sink.seek(toOffset: dataOffset + dataByteCount) else { return false }
    return fits || reservesRF64
  }

  /// `value` as 4 little-endian bytes.
  private static func le32(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }

  /// `value` as 8 little-endian bytes.
  private static func le64(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }

  /// Writes `bytes` at the sink's position.
  private mutating func writeBytes(_ bytes: [UInt8]) throws(WAVError) {
    var bytes = bytes
    try bytes._withTypedBytes { (raw) throws(WAVError) in
      try self.sink.write(UnsafeRawBufferPointer(raw))
    }
  }
}

/// The `JUNK` chunk that holds the place of RF64's `ds64`: 8 bytes of header and 28 of zeros
/// (RIFF size, data size and frame count, 8 bytes each, and an empty table's length).
private let _rf64JunkChunk: [UInt8] =
  Array("JUNK".utf8) + [28, 0, 0, 0] + [UInt8](repeating: 0, count: 28)
