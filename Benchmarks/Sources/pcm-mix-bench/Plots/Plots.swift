#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `pcm-mix-bench --plots DIR`: measures and draws the figures the README and the documentation
/// show, as SVG files in `DIR`, instead of running the benchmark's tables.
///
/// `--filter` picks figures by file name (`response`, `spectrogram`, `callback`, `alignment`, `echo`,
/// `ducking`);
/// `--seconds` scales the capture scene and the simulated hour as it scales the benchmark.
enum Plots {
  /// One figure: its file and how to make it.
  struct Figure {
    var file: String
    var make: () -> SVGDocument
  }

  static func figures(_ options: Options) -> [Figure] {
    ResponseFigure.conversions.map { c in
      Figure(file: ResponseFigure.fileName(c.0, c.1)) {
        ResponseFigure.make(inRate: c.0, outRate: c.1)
      }
    } + [
      Figure(file: SpectrogramFigure.file) { SpectrogramFigure.make() },
      Figure(file: LatencyFigure.file) { LatencyFigure.make(seconds: options.seconds) },
      Figure(file: AlignmentFigure.file) { AlignmentFigure.make(minutes: 60 * options.scale) },
      Figure(file: EchoFigure.file) { EchoFigure.make() },
      Figure(file: DuckingFigure.file) { DuckingFigure.make() },
    ]
  }

  /// Writes every figure the filter lets through into `directory`; false when a file cannot
  /// be written.
  static func run(_ options: Options, directory: String) -> Bool {
    let chosen = figures(options).filter { f in
      options.filter.map { f.file.lowercased().contains($0.lowercased()) } ?? true
    }
    if chosen.isEmpty { warn("pcm-mix-bench: no figure matches the filter") }
    // Like `mkdir -p`; then a file is tried before minutes go into measuring.
    var prefix = directory.hasPrefix("/") ? "/" : ""
    for part in directory.split(separator: "/") {
      prefix += part + "/"
      mkdir(prefix, 0o755)
    }
    let probe = directory + "/.plots-write-test"
    guard writeTextFile(probe, "") else {
      warn("pcm-mix-bench: cannot write into \(directory)")
      return false
    }
    unlink(probe)
    for figure in chosen {
      let t0 = nowNS()
      let text = figure.make().text
      let path = directory + "/" + figure.file
      guard writeTextFile(path, text) else {
        warn("pcm-mix-bench: cannot write \(path)")
        return false
      }
      emit(
        "wrote \(path): \(fixed(Double(text.utf8.count) / 1024, 0)) KB in "
          + "\(fixed(Double(nowNS() - t0) * 1e-9, 1)) s")
    }
    return true
  }
}

/// A converter the resampler figures compare: its benchmark row, its name in the legend, and
/// its line.
struct PlotBackend {
  var backend: Backend
  var label: String
  var style: SeriesStyle

  /// The built-in presets (the Swift kernels; the AVX2 ones run the same filter tables) beside
  /// the best of each peer: libsamplerate's best sinc, soxr's HQ and VHQ, speexdsp's quality 10.
  /// Built-in lines are solid red, blue and green; peers dashed, in the hues between and grey.
  static var compared: [PlotBackend] {
    let rows: [(String, String, hue: Double?)] = [
      ("builtin-fast", "built-in fast", 25), ("builtin-balanced", "built-in balanced", 265),
      ("builtin-high", "built-in high", 145), ("src-best", "libsamplerate best", 85),
      ("soxr-hq", "soxr HQ", 205), ("soxr-vhq", "soxr VHQ", 325), ("speex-10", "speexdsp 10", nil),
    ]
    let all = Backend.all
    return rows.compactMap { row in
      guard let backend = all.first(where: { $0.name == row.0 }) else { return nil }
      let colour = row.hue.map { Colors.series(hue: $0) } ?? Colors.RGB(r: 80, g: 80, b: 80)
      return PlotBackend(
        backend: backend, label: row.1,
        style: SeriesStyle(color: colour, dash: backend.family == .builtin ? nil : "6 3"))
    }
  }
}
