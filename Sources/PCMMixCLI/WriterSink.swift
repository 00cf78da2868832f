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

  /// Opens a writer on `output`.
  static func open(_ output: OutputFile, rate: Int, channels: Int, type: SampleType)
    throws(CLIError) -> WriterSink
  {
    do {
      let writer = try WAVWriter(
        sink: FileDescriptorSink(fileDescriptor: output.fd), sampleRate: rate,
        channelCount: channels, sampleType: type)
      return WriterSink(writer: writer)
    } catch {
      throw CLIError(.io, output.path, error.description)
    }
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
