import PCMMix

/// `pcm-mix convert`: one input through a ``SourceChain`` into a WAV file.
func convert(_ options: ConvertOptions, console: Console) throws(CLIError) {
  var input = try InputFile.open(options.input)
  defer { input.close() }
  try options.resampler.check(
    inputRate: input.format.sampleRate, outputRate: options.rate, path: options.input.path)
  let output = try OutputFile.create(options.output, inputs: [options.input.path])
  do throws(CLIError) {
    var sink = try WriterSink.open(
      output, rate: options.rate, channels: options.channels, type: options.sampleType,
      maxFrames: WriterSink.framesAfterConversion(
        input.expectedFrames, from: input.format.sampleRate, to: options.rate))
    var chain = SourceChain(
      outputRate: options.rate, outputChannels: options.channels,
      resampler: options.resampler.factory(phase: options.phase))
    let format = input.format
    let block = max(1, min(65_536, format.sampleRate / 10))
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: block * format.bytesPerFrame, alignment: 16)
    defer { buffer.deallocate() }
    var progress = Progress(console, "converting", total: input.expectedFrames)
    // Cleared on failure too, so that an error line starts at the left margin.
    defer { progress.end() }
    while true {
      let frames = try input.read(into: buffer)
      if frames == 0 { break }
      let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<(frames * format.bytesPerFrame)])
      do {
        try chain.process(bytes, format: format, into: &sink)
      } catch {
        throw CLIError(.data, input.path, error.description)
      }
      try sink.check(options.output)
      progress.update(input.framesRead)
    }
    chain.finish(into: &sink)
    try sink.finish(options.output)
  } catch {
    output.discard()
    throw error
  }
  // Outside the do: a failed commit has already removed its temporary file.
  try output.commit()
  if let warning = input.readWarning {
    console.err(CLIError(.data, input.path, warning).line + "\n")
  }
}
