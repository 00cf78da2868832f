/// The kind of file an ``AudioFileReader`` found its audio in.
public enum AudioContainer: String, CaseIterable, Hashable, Sendable {
  /// RIFF/WAVE: little-endian sizes and samples, 32-bit sizes.
  case wav = "WAV"
  /// RIFX/WAVE: RIFF with every size, `fmt ` field and sample big-endian.
  case rifx = "RIFX"
  /// RF64 (EBU Tech 3306): WAVE whose sizes past 4 GiB are 64-bit, in a `ds64` chunk.
  case rf64 = "RF64"
  /// BW64 (ITU-R BS.2088): RF64's layout under its own magic.
  case bw64 = "BW64"
  /// Core Audio Format: big-endian chunks with 64-bit sizes; linear PCM in either byte order.
  case caf = "CAF"
}
