#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// printf-style formatting without Foundation.
func format(_ spec: String, _ args: any CVarArg...) -> String {
  withVaList(args) { list in
    var buffer = [CChar](repeating: 0, count: 256)
    let n = buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, 256, spec, list) }
    let bytes = buffer.prefix(Int(max(0, min(n, 255)))).map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// A number with `decimals` decimals, or "-" when it is not finite.
func fixed(_ x: Double, _ decimals: Int) -> String {
  x.isFinite ? format("%.*f", Int32(decimals), x) : (x.isNaN ? "-" : (x > 0 ? "inf" : "-inf"))
}

/// A number with about three significant digits, for tables of wide range.
func short(_ x: Double) -> String {
  guard x.isFinite else { return fixed(x, 0) }
  let a = abs(x)
  if a >= 100 || a == 0 { return fixed(x, 0) }
  if a >= 10 { return fixed(x, 1) }
  if a >= 1 { return fixed(x, 2) }
  return fixed(x, 3)
}

/// Pads `s` on the left (right-aligns) to `width`.
func pad(_ s: String, _ width: Int) -> String {
  s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
}

/// Pads `s` on the right (left-aligns) to `width`.
func padRight(_ s: String, _ width: Int) -> String {
  s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
}

/// Writes `s` to standard output now (tables stream while a long run goes on).
func emit(_ s: String) {
  print(s)
  fflush(nil)
}

/// Writes `s` to standard error.
func warn(_ s: String) {
  fflush(nil)
  let bytes = Array((s + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// The whole content of a (small) file, or nil.
func readTextFile(_ path: String) -> String? {
  guard let f = fopen(path, "r") else { return nil }
  defer { fclose(f) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  while true {
    let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 4096, f) }
    if n == 0 { break }
    bytes += chunk[..<n]
  }
  return String(decoding: bytes, as: UTF8.self)
}

/// Writes `text` to `path` (replacing it); false when it cannot be written whole.
func writeTextFile(_ path: String, _ text: String) -> Bool {
  guard let f = fopen(path, "w") else { return false }
  let bytes = Array(text.utf8)
  let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
  return fclose(f) == 0 && written == bytes.count
}
