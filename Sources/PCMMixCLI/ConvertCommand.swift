import PCMMix

/// `pcm-mix convert`: one input through a ``SourceChain`` into a WAV file. A long file is cut
/// into parts that threads convert at once (``ConvertParts``); otherwise reading, decoding and
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
  if case .builtin = options.resampler, output.tempPath != nil,
    let frames = opened.wholeDataFrames,
    let parts = ConvertParts.plan(
      frames: frames, inputRate: format.sampleRate, outputRate: options.rate,
      threads: options.threads ?? ConvertParts.defaultThreads)
  {
    defer { opened.close() }
    do throws(CLIError) {
      try convert(opened, in: parts, to: output, options, console: console)
    } catch {
      output.discard()
      throw error
    }
    try LoudnessPass.apply(
      output, target: options.loudness, truePeakCeiling: options.truePeakDB,
      type: options.sampleType
    ).commit()
    return
  }
  try convertStreaming(opened, to: output, options, console: console)
}

/// Converts `opened` as one stream: reading, decoding and resampling on a thread of their own
/// (``ChainThread``), ahead of encoding and writing here; then the loudness pass and commit.
private func convertStreaming(
  _ opened: InputFile, to output: OutputFile, _ options: ConvertOptions, console: Console
) throws(CLIError) {
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
  try LoudnessPass.apply(
    output, target: options.loudness, truePeakCeiling: options.truePeakDB,
    type: options.sampleType
  ).commit()
  input?.warnIfReadShort(console)
}

/// Converts `input` part by part: the later parts on threads of their own, each writing its
/// frames at their place in the output; the first on this thread through the WAV writer, which
/// then counts the others' frames and finishes the header.
private func convert(
  _ input: InputFile, in parts: ConvertParts, to output: OutputFile, _ options: ConvertOptions,
  console: Console
) throws(CLIError) {
  var sink = try WriterSink.open(
    output, rate: options.rate, channels: options.channels, type: options.sampleType,
    maxFrames: WriterSink.framesAfterConversion(
      parts.frames, from: input.format.sampleRate, to: options.rate))
  let control = PartsControl()
  let factory = options.resampler.factory(phase: options.phase)
  let frameBytes = options.channels * options.sampleType.bytesPerSample
  let jobs = parts.starts.indices.map { p in
    PartJob(
      input: input,
      chain: SourceChain(
        outputRate: options.rate, outputChannels: options.channels, resampler: factory),
      parts: parts, part: p, control: control,
      writer: PartWriter(
        fd: output.fd, type: options.sampleType,
        offset: sink.writer.dataOffset + parts.outputStart(p) * frameBytes),
      outputPath: options.output)
  }
  for job in jobs.dropFirst() { job.start() }
  var progress = Progress(console, "converting", total: parts.frames)
  // The parts are about equal and run at the same speed: the first's share stands for all.
  jobs[0].runWriting { progress.update($0 * jobs.count) }
  for job in jobs.dropFirst() { job.done.wait() }
  progress.end()
  var elsewhere = 0
  for job in jobs {
    elsewhere += job.writer.bytesWritten
    job.writer.deallocate()
  }
  if let error = jobs.lazy.compactMap(\.error).first { throw error }
  do {
    try sink.writer.countWrittenElsewhere(byteCount: elsewhere)
  } catch {
    throw CLIError(.io, options.output, error.description)
  }
  try sink.finish(options.output)
}
