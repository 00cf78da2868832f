import PCMMix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The `sox` command's `rate` effect behind the library's ``Resampler`` protocol, for the
/// band-edge table only: sox converts a whole file, not a stream, so this converter holds every
/// input frame back and runs `sox -D -t f32 … rate [-v] OUT` over all of them at the flush
/// (mono, raw native-endian Float32 through temporary files; sox's own samples are 32-bit
/// integers, far below the levels measured). Its output is aligned with its input, as sox's
/// `rate` drops its filter's delay: ``latency`` is 0.
struct SoxRate: Resampler {
  let inputRate: Int
  let outputRate: Int
  let channelCount = 1
  let latency = 0
  /// The `rate` effect's quality option: "-h" (sox's default, high) or "-v" (very high).
  let quality: String
  private var held: [Float] = []

  /// The backends, when `sox` is on the PATH: `sox rate` (its default quality, -h) and
  /// `sox rate -v`.
  static var backends: [Backend] {
    guard CLIEndToEnd.inPath("sox") else { return [] }
    return [("sox-rate", "-h"), ("sox-rate-v", "-v")].map { name, quality in
      Backend(name: name, family: .sox) { inRate, outRate, channels in
        channels == 1 ? SoxRate(inputRate: inRate, outputRate: outRate, quality: quality) : nil
      }
    }
  }

  mutating func process(
    _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
  ) -> (consumed: Int, produced: Int) {
    held += input
    return (input.count, 0)
  }

  /// Runs sox over everything held and writes its output (as much as `output` holds).
  mutating func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
    guard !held.isEmpty else { return 0 }
    let tmp = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    let base = "\(tmp)/pcm-mix-bench-sox-\(getpid())"
    let (inPath, outPath, log) = (base + "-in.f32", base + "-out.f32", base + ".log")
    defer { for p in [inPath, outPath, log] { unlink(p) } }
    guard Self.write(held, to: inPath) else { preconditionFailure("cannot write \(inPath)") }
    held = []
    let argv = [
      "sox", "-D", "-V1", "-t", "f32", "-r", "\(inputRate)", "-c", "1", inPath, "-t", "f32",
      outPath, "rate", quality, "\(outputRate)",
    ]
    guard let run = ChildProcess.run(argv, errorPath: log), run.status == 0 else {
      preconditionFailure("sox failed: \(argv.joined(separator: " ")): \(Files.firstLine(log))")
    }
    return Self.read(outPath, into: output)
  }

  mutating func reset() { held = [] }

  func maxOutputFrames(forInputFrames frames: Int) -> Int {
    frames * outputRate / inputRate + 2
  }

  static func write(_ samples: [Float], to path: String) -> Bool {
    guard let f = fopen(path, "w") else { return false }
    let written = samples.withUnsafeBytes { fwrite($0.baseAddress, 4, samples.count, f) }
    return fclose(f) == 0 && written == samples.count
  }

  /// Reads up to `output.count` Float32 samples from `path`; returns how many.
  static func read(_ path: String, into output: UnsafeMutableBufferPointer<Float>) -> Int {
    guard let f = fopen(path, "r") else { return 0 }
    defer { fclose(f) }
    return fread(output.baseAddress, 4, output.count, f)
  }
}
