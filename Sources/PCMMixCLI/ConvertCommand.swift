import PCMMix

/// `pcm-mix convert`: one input through a ``SourceChain`` into a WAV file. Reading, decoding and
/// resampling run on a thread of their own (``ChainThread``), ahead of encoding and writing.
func convert(_ options: ConvertOptions, console: Console) throws(CLIError) {
  let opened = try InputFile.open(options.input)
  do throws(CLIError) {
    try options.resampler.check(
      inputRate: opened.format.sampleRate, outputRate: options.rate, path: options.input.path)
  } catch {
    opened.close()
    throw error
  }
  let output: OutputFile
  do throws(CLIError) {
    output = try OutputFile.create(options.output, inputs: [options.input.path])
  } catch {
    opened.close()
    throw error
  }
  let format = opened.format
  let expectedFrames = opened.expectedFrames
  let reader = ChainThread(
    input: opened,
    chain: SourceChain(
      outputRate: options.rate, outputChannels: options.channels,
      resampler: options.resampler.factory(phase: options.phase)),
    readFrames: min(65_536, format.sampleRate / 10), threaded: ChainThread.hasSpareProcessor)
  // Waits for the thread on every way out, then closes the input.
  var input: InputFile?
  defer { (input ?? reader.join()).close() }
  do throws(CLIError) {
    var sink = try WriterSink.open(
      output, rate: options.rate, channels: options.channels, type: options.sampleType,
      maxFrames: WriterSink.framesAfterConversion(
        expectedFrames, from: format.sampleRate, to: options.rate))
    var progress = Progress(console, "converting", total: expectedFrames)
    // Cleared on failure too, so that an error line starts at the left margin.
    defer { progress.end() }
    reader.start()
    reading: while true {
      switch reader.next() {
      case .frames(var samples, let framesRead):
        samples.withUnsafeBufferPointer { sink.append($0) }
        reader.recycle(&samples)
        try sink.check(options.output)
        progress.update(framesRead)
      case .end(let samples, _):
        samples.withUnsafeBufferPointer { sink.append($0) }
        break reading
      case .failure(let error):
        throw error
      }
    }
    try sink.finish(options.output)
  } catch {
    output.discard()
    throw error
  }
  input = reader.join()
  // Outside the do: a failed commit has already removed its temporary file.
  try output.commit()
  if let warning = input?.readWarning {
    console.err(CLIError(.data, input!.path, warning).line + "\n")
  }
}
