import PCMMix

/// A ``FrameSink`` that writes frames to a WAV file, keeping the first write error for the
/// caller to throw (a sink cannot throw from inside a pipeline stage).
struct WriterSink: FrameSink {
  var writer: WAVWriter<FileDescriptorSink>
  var error: WAVError?

  mutating func append(_ frames: UnsafeBufferPointer<Float>) {
    guard error == nil else { return }
    do {
      try writer.write(frames)
    } catch {
      self.error = error
    }
  }

  /// Throws the kept error as an I/O failure on `path`.
  func check(_ path: String) throws(CLIError) {
    if let error { throw CLIError(.io, path, error.description) }
  }

  /// Opens a writer on `output` for at most `maxFrames` frames (`nil`: not known). A file that may
  /// pass 4 GiB (its frames unknown, or too many for a RIFF header) gets the RF64 reservation,
  /// so that it can become RF64 when finished; every other file is plain RIFF, as before.
  static func open(
    _ output: OutputFile, rate: Int, channels: Int, type: SampleType, maxFrames: Int?
  ) throws(CLIError) -> WriterSink {
    do {
      let writer = try WAVWriter(
        sink: FileDescriptorSink(fileDescriptor: output.fd), sampleRate: rate,
        channelCount: channels, sampleType: type,
        reservingRF64: mayNeedRF64(frames: maxFrames, channels: channels, type: type))
      return WriterSink(writer: writer)
    } catch {
      throw CLIError(.io, output.path, error.description)
    }
  }

  /// Whether `frames` frames (`nil`: unknown) of `channels` × `type` could make a RIFF file
  /// whose sizes do not fit 32 bits (the largest plain header, extensible's 68 bytes, assumed).
  static func mayNeedRF64(frames: Int?, channels: Int, type: SampleType) -> Bool {
    guard let frames else { return true }
    let bytes = Double(frames) * Double(channels * type.bytesPerSample) + 68 - 8
    return bytes > Double(UInt32.max - 1)
  }

  /// The most frames `inputFrames` frames (`nil`: unknown) at `inputRate` become at
  /// `outputRate`: `round(n × out / in)` is the contract, one more allows for rounding.
  static func framesAfterConversion(_ inputFrames: Int?, from inputRate: Int, to outputRate: Int)
    -> Int?
  {
    guard let inputFrames else { return nil }
    let frames = (Double(inputFrames) * Double(outputRate) / Double(inputRate)).rounded(.up) + 1
    return frames < Double(Int.max / 1024) ? Int(frames) : nil
  }

  /// Finishes the file (real sizes where the output can seek).
  mutating func finish(_ path: String) throws(CLIError) {
    try check(path)
    do {
      try writer.finish()
    } catch {
      throw CLIError(.io, path, error.description)
    }
  }
}
