/// Reads an audio file's header, then its audio a buffer at a time, from any ``ByteSource``:
/// WAV (RIFF/WAVE), RF64 and BW64 (WAVE with 64-bit sizes), RIFX (big-endian RIFF) and CAF
/// (Core Audio Format) linear PCM.
///
/// Memory stays bounded whatever the file's length: the reader holds one 32 KiB scratch,
/// allocated in `init`, and never reads ahead of what it returns. Chunks before the audio are
/// skipped by reading and discarding them, so pipes work as well as files.
///
/// ```swift
/// var reader = try AudioFileReader(source: FileDescriptorSource(fileDescriptor: 0))
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
/// Accepted, 1 … 64 channels, 1 … 768,000 Hz:
/// - WAV, RF64, BW64 and RIFX: PCM (format tag 1) of 1 … 32 bits in containers of
///   `ceil(bits / 8)` bytes (u8, s16, s24, s32; a depth that is not a whole number of bytes is
///   read as its whole container, as libsndfile reads it), IEEE float f32/f64, and
///   WAVE_FORMAT_EXTENSIBLE with a PCM or float sub-format. The RIFF size is ignored; a data size
///   of 0 or 0xFFFFFFFF (what streaming writers leave) means the audio runs to the end of input.
///   RF64 and BW64 take 64-bit sizes from their `ds64` chunk (a 64-bit data size of 0 or all
///   ones also means "to the end"). RIFX samples are big-endian.
/// - CAF: linear PCM (`lpcm`), integer s8 (handed out as `u8`: the same values), s16, s24, s32
///   or float f32, f64, either byte order, packed; a data size of -1 means "to the end". Other
///   CAF encodings (AAC, Apple Lossless, mu-law, …) throw
///   ``WAVError/unsupportedCAFEncoding(formatID:name:)`` naming them.
///
/// Malformed input throws a ``WAVError``; it never traps.
public struct AudioFileReader<Source: ByteSource> {
  /// The source, positioned inside the data chunk after the frames read so far.
  public private(set) var source: Source
  /// The kind of file: WAV, RIFX, RF64, BW64 or CAF.
  public let container: AudioContainer
  /// The format of the audio, interleaved: little-endian, or as the file says (RIFX and CAF may
  /// be big-endian).
  public let format: PCMFormat
  /// How the file stores its samples, spelled as ``PCMFormat/typeSpelling``: the format's
  /// spelling, except `s8` for CAF's signed 8-bit samples (handed out as `u8`, the same values).
  public var fileSampleType: String { flipsSignBit ? "s8" : format.typeSpelling }
  /// The significant bits of each sample: the container's (``format``'s) unless the file says
  /// fewer (EXTENSIBLE's valid bits; a PCM depth such as 12 bits in 2 bytes). Informational: the
  /// whole container is decoded.
  public let validBitsPerSample: Int
  /// The offset of the first audio byte from the start of the input.
  public let dataOffset: Int
  /// The audio bytes the data chunk's size claims, or `nil` when it says "to the end of input".
  public let claimedByteCount: Int?
  /// The whole frames the data chunk's size claims, or `nil` when it says "to the end of input".
  public let claimedFrames: Int?
  /// The frames there should be: the claim cut to what the source says remains, when either is
  /// known (`nil` only for a "to the end" size on a pipe). Known without reading the audio.
  public let expectedFrames: Int?
  /// Whole frames returned so far.
  public private(set) var framesRead = 0
  /// Whether the input ends before the claimed data size, or (with a "to the end" size) inside
  /// a frame.
  ///
  /// Set in `init` when the source knows its remaining length; otherwise set once reading
  /// reaches the end.
  public private(set) var isTruncated: Bool
  /// The bytes after the last whole frame of a data chunk that holds everything it claims but
  /// whose size is not a whole number of frames: ignored, and not a truncation.
  ///
  /// Known in `init` when the source knows its remaining length; otherwise once reading reaches
  /// the end.
  public private(set) var strayByteCount = 0

  /// Bytes of the data chunk not yet read, or `nil` to read to the end of input.
  private var dataBytesLeft: Int?
  /// Whether the end of the audio has been reached.
  private var isAtEnd = false
  /// Raw frames for ``readFloat(into:)``, and the header while parsing.
  private var scratch: [UInt8]
  /// Whether each byte read is flipped into `u8` (CAF's signed 8-bit samples).
  private let flipsSignBit: Bool

  /// The scratch size in bytes.
  private static var scratchByteCount: Int { 32_768 }

  /// Reads the header up to the start of the audio.
  ///
  /// Chunks other than the format and the data (`LIST`, `fact`, `JUNK`, `bext`, CAF's `free`,
  /// `chan`, …) are read and discarded, pad byte included; a second format chunk is skipped.
  ///
  /// - Throws: ``WAVError`` naming what is wrong with the header, or ``WAVError/io(_:)``.
  /// - Complexity: O(bytes before the audio).
  public init(source: Source) throws(WAVError) {
    var source = source
    var scratch = [UInt8](repeating: 0, count: Self.scratchByteCount)
    let header = try scratch._withTypedBytes { (raw) throws(WAVError) -> _AudioFileHeader in
      try _AudioFileHeader(reading: &source, scratch: raw)
    }
    self.source = source
    self.scratch = scratch
    container = header.container
    format = header.format
    validBitsPerSample = header.validBits
    dataOffset = header.dataOffset
    flipsSignBit = header.flipsSignBit
    let frameBytes = header.format.bytesPerFrame
    let claimedBytes = header.dataSize
    claimedByteCount = claimedBytes
    dataBytesLeft = claimedBytes
    claimedFrames = claimedBytes.map { $0 / frameBytes }
    switch (claimedBytes, source.remainingByteCount) {
    case (let claimed?, let remaining?):
      expectedFrames = min(claimed, remaining) / frameBytes
      isTruncated = remaining < claimed
      if !isTruncated { strayByteCount = claimed % frameBytes }
    case (let claimed?, nil):
      expectedFrames = claimed / frameBytes
      isTruncated = false
    case (nil, let remaining?):
      expectedFrames = remaining / frameBytes
      isTruncated = remaining % frameBytes != 0
    case (nil, nil):
      expectedFrames = nil
      isTruncated = false
    }
  }

  /// Reads whole frames of raw audio bytes (in ``format``: CAF's signed 8-bit samples with their
  /// top bit flipped, as `u8`) into the start of `buffer` and returns how many; 0 at the end of
  /// the audio.
  ///
  /// Fills the buffer unless the audio ends first, so on a pipe it blocks until enough bytes
  /// arrive. Never reads past the claimed data size. Input that ends before the claimed size,
  /// or inside a frame when the size says "to the end", sets ``isTruncated``; the bytes of a
  /// claimed size that is not a whole number of frames, all present, are read past and counted
  /// in ``strayByteCount``.
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
        // Less than a frame (by the claimed size) or nothing is left: stray bytes, if there.
        isAtEnd = true
        if left > 0 {
          let got = try _fill(&source, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<left]))
          dataBytesLeft = left - got
          if got < left { isTruncated = true } else { strayByteCount = left }
        }
        return 0
      }
    }
    let got = try _fill(&source, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
    if let left = dataBytesLeft { dataBytesLeft = left - got }
    if got < want {
      isAtEnd = true
      if got % frameBytes != 0 || dataBytesLeft.map({ $0 > 0 }) == true { isTruncated = true }
    }
    if flipsSignBit {
      for i in 0..<got { buffer[i] ^= 0x80 }
    }
    let frames = got / frameBytes
    framesRead += frames
    return frames
  }

  /// Reads whole frames and decodes them to interleaved Float32 in `output` (see ``PCMDecoder``),
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
      PCMDecoder.decode(
        UnsafeRawBufferPointer(part), format: format, totalFrames: n, frames: 0..<n,
        outputChannels: channels, into: output)
      return n
    }
  }
}

/// The reader's earlier name, from when it read WAV alone.
public typealias WAVReader<Source: ByteSource> = AudioFileReader<Source>
