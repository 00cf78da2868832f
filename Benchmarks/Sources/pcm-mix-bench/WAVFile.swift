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
}
