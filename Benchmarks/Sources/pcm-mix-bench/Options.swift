/// Command-line options of `pcm-mix-bench`.
struct Options {
  /// Seconds of audio in the capture scene (default 60); every other section scales with it.
  var seconds = 60.0
  /// Where to write the JSON records, if anywhere.
  var jsonPath: String?
  /// Runs only rows whose `section/row` name contains this (case-insensitive).
  var filter: String?
  /// Where `--plots` writes the figures; when set, the figures are made instead of the tables.
  var plotsDirectory: String?

  /// `seconds / 60`: the factor every section's length is scaled by.
  var scale: Double { seconds / 60 }

  static let usage = """
    usage: pcm-mix-bench [--seconds S] [--json FILE] [--filter SUBSTRING]
           pcm-mix-bench --plots DIR [--seconds S] [--filter SUBSTRING]

      --seconds S      seconds of audio in the capture scene (default 60); every section scales
                       with it (the CLI files are 10 s per scene second: 10 minutes by default;
                       the timing scenes 20 s and 60 s per second: 20 minutes and an hour)
      --json FILE      also write every measurement as a JSON array of
                       {"section", "name", "metric", "value", "unit"} records
      --filter SUB     run only the rows whose SECTION/ROW name contains SUB (case-insensitive):
                       sections capture, stages, resamplers, cli, timing, debug; e.g. soxr, src-,
                       44100, capture/builtin, cli/sox, timing/drift
      --plots DIR      measure and draw the figures instead, as SVG files in DIR:
                       plot-response-44100-48000.svg, plot-response-96000-44100.svg (stepped
                       sines), plot-spectrogram-96000-44100.svg (a sine sweep),
                       plot-callback-latency.svg (the capture scene), plot-alignment-hour.svg
                       (the timing section's hour); --filter picks figures by file name,
                       --seconds scales the capture scene and the hour
    """

  /// Parses the arguments after the program name.
  static func parse(_ args: ArraySlice<String>) -> Result<Options, OptionError> {
    var o = Options()
    var rest = args
    while let arg = rest.popFirst() {
      switch arg {
      case "-h", "--help":
        return .failure(.help)
      case "--seconds":
        guard let v = rest.popFirst().flatMap(Double.init), v > 0, v.isFinite else {
          return .failure(.bad("--seconds takes a positive number"))
        }
        o.seconds = v
      case "--json":
        guard let v = rest.popFirst() else { return .failure(.bad("--json takes a file path")) }
        o.jsonPath = v
      case "--filter":
        guard let v = rest.popFirst() else { return .failure(.bad("--filter takes a substring")) }
        o.filter = v
      case "--plots":
        guard let v = rest.popFirst() else { return .failure(.bad("--plots takes a directory")) }
        o.plotsDirectory = v
      default:
        return .failure(.bad("unknown argument '\(arg)'"))
      }
    }
    if o.plotsDirectory != nil && o.jsonPath != nil {
      return .failure(.bad("--json does not apply to --plots"))
    }
    return .success(o)
  }
}

/// Why the arguments were not taken.
enum OptionError: Error {
  case help
  case bad(String)
}
