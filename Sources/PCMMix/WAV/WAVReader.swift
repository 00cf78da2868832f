/// Reads a WAV file's header, then its audio a buffer at a time, from any ``ByteSource``.
///
/// Memory stays bounded whatever the file's length: the reader holds one 32 KiB scratch,
/// allocated in `init`, and never reads ahead of what it returns. Chunks before `data` are
/// skipped by reading and discarding them, so pipes work as well as files.
///
/// ```swift
/// var reader = try WAVReader(source: FileDescriptorSource(fileDescriptor: 0))
/// let samples = UnsafeMutableBufferPointer<Float>.allocate(
///   capacity: 4096 * reader.format.channelCount)
/// defer { samples.deallocate() }
/// while true {
///   let frames = try reader.readFloat(into: samples)
///   if frames == 0 { break }
///   // frames × channelCount interleaved samples are in `samples`
/// }
/// ```
///
/// Accepted: PCM u8/s16/s24/s32, IEEE float f32/f64 and WAVE_FORMAT_EXTENSIBLE with a PCM or
/// float sub-format, 1 … 64 channels, 1 … 768,000 Hz. The RIFF size is ignored, and a data size of
/// 0 or 0xFFFFFFFF (what streaming writers leave) means the audio runs to the end of input.
/// Malformed input throws a ``WAVError``; it never traps.
public struct WAVReader<Source: ByteSource> {
  /// The source, positioned inside the data chunk after the frames read so far.
  public private(set) var source: Source
  /// The format of the audio: little-endian, interleaved.
  public let format: PCMFormat
  /// The offset of the first audio byte from the start of the input.
  public let dataOffset: Int
  /// The frames the data chunk's size claims, or `nil` when it says "to the end of input".
  public let claimedFrames: Int?
  /// The frames there should be: the claim cut to what the source says remains, when either is
  /// known (`nil` only for a "to the end" size on a pipe). Known without reading the audio.
  public let expectedFrames: Int?
  /// Whole frames returned so far.
  public private(set) var framesRead = 0
  /// Whether the input ends before the claimed data size, or the audio ends in a partial frame.
  ///
  /// Set in `init` when the source knows its remaining length; otherwise set once reading
  /// reaches the end.
  public private(set) var isTruncated: Bool

  /// Bytes of the data chunk not yet read, or `nil` to read to the end of input.
  private var dataBytesLeft: Int?
  /// Whether the end of the audio has been reached.
  private var isAtEnd = false
  /// Raw frames for ``readFloat(into:)``, and the header while parsing.
  private var scratch: [UInt8]

  /// The scratch size in bytes.
  private static var scratchByteCount: Int { 32_768 }

  /// Reads the header up to the start of the audio.
  ///
  /// Chunks other than `fmt ` and `data` (`LIST`, `fact`, `JUNK`, `bext`, …) are read and
  /// discarded, pad byte included; a second `fmt ` chunk is skipped.
  ///
  /// - Throws: ``WAVError`` naming what is wrong with the header, or ``WAVError/io(_:)``.
  /// - Complexity: O(bytes before the audio).
  public init(source: Source) throws(WAVError) {
    var source = source
    var scratch = [UInt8](repeating: 0, count: Self.scratchByteCount)
    let header = try scratch._withTypedBytes { (raw) throws(WAVError) -> _WAVHeader in
      try _WAVHeader(reading: &source, scratch: raw)
    }
    self.source = source
    self.scratch = scratch
    format = header.format
    dataOffset = header.dataOffset
    let frameBytes = header.format.bytesPerFrame
    let claimedBytes: Int? =
      header.dataSize == 0 || header.dataSize == 0xFFFF_FFFF ? nil : Int(header.dataSize)
    dataBytesLeft = claimedBytes
    claimedFrames = claimedBytes.map { $0 / frameBytes }
    switch (claimedBytes, source.remainingByteCount) {
    case (let claimed?, let remaining?):
      expectedFrames = min(claimed, remaining) / frameBytes
      isTruncated = remaining < claimed || claimed % frameBytes != 0
    case (let claimed?, nil):
      expectedFrames = claimed / frameBytes
      isTruncated = claimed % frameBytes != 0
    case (nil, let remaining?):
      expectedFrames = remaining / frameBytes
      isTruncated = remaining % frameBytes != 0
    case (nil, nil):
      expectedFrames = nil
      isTruncated = false
    }
  }

  /// Reads whole frames of raw audio bytes (in ``format``) into the start of `buffer` and
  /// returns how many; 0 at the end of the audio.
  ///
  /// Fills the buffer unless the audio ends first, so on a pipe it blocks until enough bytes
  /// arrive. Never reads past the claimed data size. A partial frame at the end is dropped and
  /// sets ``isTruncated``, as does input that ends before the claimed size.
  ///
  /// - Precondition: `buffer` holds at least one frame.
  /// - Complexity: O(frames read).
  public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
    let frameBytes = format.bytesPerFrame
    precondition(buffer.count >= frameBytes, "buffer is smaller than one frame")
    if isAtEnd { return 0 }
    var want = buffer.count - buffer.count % frameBytes
    if let left = dataBytesLeft {
      want = min(want, left - left % frameBytes)
      if want == 0 {
        // Only a partial frame (by the claimed size) or nothing is left.
        if left > 0 { isTruncated = true }
        isAtEnd = true
        return 0
      }
    }
    let got = try _fill(&source, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
    if let left = dataBytesLeft { dataBytesLeft = left - got }
    if got < want {
      isAtEnd = true
      if got % frameBytes != 0 || dataBytesLeft.map({ $0 > 0 }) == true { isTruncated = true }
    }
    let frames = got / frameBytes
    framesRead += frames
    return frames
  }

  /// Reads whole frames and decodes them to interleaved Float32 in `output` (see ``Decoder``),
  /// returning how many frames; 0 at the end of the audio.
  ///
  /// Reads at most `output.count / channelCount` frames, and at most what the 32 KiB scratch
  /// holds (4,096 stereo f32 frames), so call it until it returns 0. Does not allocate.
  ///
  /// - Precondition: `output` holds at least one frame (`format.channelCount` samples).
  /// - Complexity: O(frames read × channels).
  public mutating func readFloat(into output: UnsafeMutableBufferPointer<Float>) throws(WAVError)
    -> Int
  {
    let format = self.format
    let channels = format.channelCount
    precondition(output.count >= channels, "output is smaller than one frame")
    var scratch = self.scratch
    self.scratch = []
    defer { self.scratch = scratch }
    return try scratch._withTypedBytes { (raw) throws(WAVError) -> Int in
      let frames = min(output.count / channels, raw.count / format.bytesPerFrame)
      let part = UnsafeMutableRawBufferPointer(rebasing: raw[0..<frames * format.bytesPerFrame])
      let n = try self.read(into: part)
      Decoder.decode(
        UnsafeRawBufferPointer(part), format: format, totalFrames: n, frames: 0..<n,
        outputChannels: channels, into: output)
      return n
    }
  }
}

/// What the header says: the format, where the audio starts, and the data chunk's size field.
private struct _WAVHeader {
  var format: PCMFormat
  var dataOffset: Int
  var dataSize: UInt32

  /// Parses from the start of `source` up to the first byte of the `data` chunk's body.
  init<Source: ByteSource>(reading source: inout Source, scratch: UnsafeMutableRawBufferPointer)
    throws(WAVError)
  {
    let riff = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<12])
    let got = try _fill(&source, riff)
    if got >= 4 {
      let magic = Array(riff[0..<4])
      if magic == Array("RIFX".utf8) { throw .bigEndianRIFX }
      if magic != Array("RIFF".utf8) { throw .notRIFF }
    } else if !riff[0..<got].elementsEqual("RIFF".utf8.prefix(got)) {
      throw .notRIFF
    }
    guard got == 12 else { throw .truncatedHeader }
    guard riff[8..<12].elementsEqual("WAVE".utf8) else { throw .notWAVE }
    var offset = 12
    var format: PCMFormat?
    let chunkHeader = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<8])
    while true {
      let headerBytes = try _fill(&source, chunkHeader)
      if headerBytes == 0 {
        throw format == nil ? .formatChunkMissing : .missingDataChunk
      }
      guard headerBytes == 8 else { throw .truncatedHeader }
      offset &+= 8
      let id = UInt32(bigEndian: chunkHeader.loadUnaligned(as: UInt32.self))
      let size = UInt32(littleEndian: chunkHeader.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
      let bodySize = Int(size)
      switch id {
      case 0x6461_7461:  // "data"
        guard let format else { throw .dataBeforeFormat }
        self.format = format
        self.dataOffset = offset
        self.dataSize = size
        return
      case 0x666D_7420 where format == nil:  // "fmt "
        let headBytes = min(bodySize, PCMFormat.wavFormatChunkMaxRead)
        let body = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<headBytes])
        guard try _fill(&source, body) == headBytes else { throw .truncatedHeader }
        format = try PCMFormat(wavFormatChunk: UnsafeRawBufferPointer(body), size: bodySize)
        try Self.skip(&source, bodySize - headBytes, padded: size & 1 == 1, scratch: scratch)
      default:
        try Self.skip(&source, bodySize, padded: size & 1 == 1, scratch: scratch)
      }
      offset &+= bodySize + Int(size & 1)
    }
  }

  /// Reads and discards `count` bytes and, if `padded`, the pad byte after them. A missing pad
  /// byte at the very end of input is forgiven (the next chunk header finds the end).
  private static func skip<Source: ByteSource>(
    _ source: inout Source, _ count: Int, padded: Bool, scratch: UnsafeMutableRawBufferPointer
  ) throws(WAVError) {
    var left = count
    while left > 0 {
      let part = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<min(left, scratch.count)])
      let n = try _fill(&source, part)
      guard n == part.count else { throw .truncatedHeader }
      left -= n
    }
    if padded {
      _ = try _fill(&source, UnsafeMutableRawBufferPointer(rebasing: scratch[0..<1]))
    }
  }
}

/// Reads until `buffer` is full or the input ends; returns the bytes read.
private func _fill<Source: ByteSource>(
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
