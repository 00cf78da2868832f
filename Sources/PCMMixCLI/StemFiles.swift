import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `--stems DIR`: `DIR/app.wav` and `DIR/mic.wav`, each source as it enters the mix, on the
/// output's timeline and at its rate and sample type. Like the output, they appear whole or not
/// at all; the folder is made if it does not exist (its parent must).
struct StemFiles {
  var files: [OutputFile] = []
  var sinks: [WriterSink] = []
  var paths: [String] = []

  /// Opens both stems in `folder`.
  static func open(
    _ folder: String, inputs: [String], rate: Int, type: SampleType, maxFrames: Int?
  ) throws(CLIError) -> StemFiles {
    var st = stat()
    if stat(folder, &st) != 0 {
      guard mkdir(folder, 0o755) == 0 else {
        throw CLIError(.cantCreate, folder, "cannot make the stems folder: \(_errorText(errno))")
      }
    } else if st.st_mode & S_IFMT != S_IFDIR {
      throw CLIError(.cantCreate, folder, "is not a folder (--stems takes one)")
    }
    var stems = StemFiles()
    do throws(CLIError) {
      for name in ["app.wav", "mic.wav"] {
        let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        let file = try OutputFile.create(path, inputs: inputs)
        stems.files.append(file)
        stems.paths.append(path)
        stems.sinks.append(
          try WriterSink.open(file, rate: rate, channels: 2, type: type, maxFrames: maxFrames))
      }
    } catch {
      stems.discard()
      throw error
    }
    return stems
  }

  /// Appends both sources' frames (interleaved stereo, equal lengths).
  mutating func append(app: UnsafeBufferPointer<Float>, mic: UnsafeBufferPointer<Float>) {
    sinks[0].append(app)
    sinks[1].append(mic)
  }

  /// Throws the first write error.
  func check() throws(CLIError) {
    for (sink, path) in zip(sinks, paths) { try sink.check(path) }
  }

  /// Finishes both files (not yet in place: see ``commit()``).
  mutating func finish() throws(CLIError) {
    for i in sinks.indices { try sinks[i].finish(paths[i]) }
  }

  /// Removes both temporary files.
  func discard() {
    for file in files { file.discard() }
  }

  /// Puts both files in place.
  func commit() throws(CLIError) {
    for file in files { try file.commit() }
  }
}

/// Puts a finished command's files in place: the output (normalized first under `--loudness`),
/// then the stems, then the report. What fails removes what is not in place yet; a failed
/// commit has already removed its own temporary file.
func commitOutputs(
  _ output: OutputFile, loudness: Double?, truePeakDB: Double, type: SampleType,
  stems: StemFiles?, report: OutputFile?
) throws(CLIError) {
  do throws(CLIError) {
    try LoudnessPass.apply(output, target: loudness, truePeakCeiling: truePeakDB, type: type)
      .commit()
  } catch {
    report?.discard()
    stems?.discard()
    throw error
  }
  do throws(CLIError) {
    try stems?.commit()
  } catch {
    report?.discard()
    throw error
  }
  try report?.commit()
}
