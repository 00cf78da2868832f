#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes the benchmark's input WAV files: 16-bit PCM, one tone per channel at -10 dBFS plus a
/// little noise, deterministic.
enum WAVFile {
  /// Writes `frames` frames; false when the file cannot be written whole.
  static func write(
    _ path: String, rate: Int, channels: Int, frames: Int, seed: UInt64, tones: [Double]
  ) -> Bool {
    guard let f = fopen(path + ".part", "w") else { return false }
    let dataBytes = frames * channels * 2
    var header: [UInt8] = []
    func put(_ s: String) { header += Array(s.utf8) }
    func put32(_ v: Int) { for i in 0..<4 { header.append(UInt8((v >> (8 * i)) & 0xff)) } }
    func put16(_ v: Int) { for i in 0..<2 { header.append(UInt8((v >> (8 * i)) & 0xff)) } }
    put("RIFF")
    put32(36 + dataBytes)
    put("WAVEfmt ")
    put32(16)
    put16(1)
    put16(channels)
    put32(rate)
    put32(rate * channels * 2)
    put16(channels * 2)
    put16(16)
    put("data")
    put32(dataBytes)
    var ok = header.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) } == header.count
    var rng = SplitMix64(seed: seed)
    let chunk = rate
    var samples = [Int16](repeating: 0, count: chunk * channels)
    var done = 0
    while ok && done < frames {
      let n = min(chunk, frames - done)
      for i in 0..<n {
        let t = Double(done + i) / Double(rate)
        for c in 0..<channels {
          let x = 0.3 * sin(2 * Double.pi * tones[c % tones.count] * t) + 0.01 * rng.nextSigned()
          samples[i * channels + c] = Int16(x * 32_767).littleEndian
        }
      }
      ok = samples.withUnsafeBytes { fwrite($0.baseAddress, 2 * channels, n, f) } == n
      done += n
    }
    ok = fclose(f) == 0 && ok
    return ok && rename(path + ".part", path) == 0
  }

  /// What the benchmark checks of an output: its length and level.
  struct Measure {
    var frames: Int
    /// RMS over every sample of every channel, dB relative to full scale.
    var rmsDBFS: Double
  }

  /// Reads a 16-bit PCM WAV file (any chunks before its data, as ffmpeg writes a `LIST`) and
  /// measures it, a megabyte at a time; nil when it is not one.
  static func measure(_ path: String) -> Measure? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var head = [UInt8](repeating: 0, count: 12)
    guard fread(&head, 1, 12, f) == 12, head[0..<4] == Array("RIFF".utf8)[...],
      head[8..<12] == Array("WAVE".utf8)[...]
    else { return nil }
    func le(_ b: ArraySlice<UInt8>) -> Int {
      b.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
    var channels = 0
    while true {
      var chunk = [UInt8](repeating: 0, count: 8)
      guard fread(&chunk, 1, 8, f) == 8 else { return nil }
      let size = le(chunk[4..<8])
      let id = String(decoding: chunk[0..<4], as: UTF8.self)
      if id == "data" { break }
      var body = [UInt8](repeating: 0, count: size + size % 2)
      guard fread(&body, 1, body.count, f) == body.count else { return nil }
      if id == "fmt " {
        guard size >= 16, le(body[0..<2]) == 1 || le(body[0..<2]) == 0xFFFE,
          le(body[14..<16]) == 16
        else { return nil }
        channels = le(body[2..<4])
      }
    }
    guard channels > 0 else { return nil }
    var samples = [Int16](repeating: 0, count: 1 << 19)
    var count = 0
    var sum = 0.0
    while true {
      let n = samples.withUnsafeMutableBytes { fread($0.baseAddress, 2, $0.count / 2, f) }
      if n == 0 { break }
      var part = 0.0
      for i in 0..<n {
        let x = Double(Int16(littleEndian: samples[i]))
        part += x * x
      }
      sum += part
      count += n
    }
    guard count > 0 else { return Measure(frames: 0, rmsDBFS: -.infinity) }
    let rms = (sum / Double(count)).squareRoot() / 32_768
    return Measure(frames: count / channels, rmsDBFS: 20 * log10(rms))
  }
}
