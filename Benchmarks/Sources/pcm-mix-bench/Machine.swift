#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What the numbers were measured on, and the process's memory.
enum Machine {
  /// The CPU model from /proc/cpuinfo.
  static var cpuModel: String {
    guard let info = readTextFile("/proc/cpuinfo") else { return "unknown" }
    for line in info.split(separator: "\n") where line.hasPrefix("model name") {
      if let colon = line.firstIndex(of: ":") {
        return line[line.index(after: colon)...].trimmingPrefix(" ").description
      }
    }
    return "unknown"
  }

  /// The one-minute load average from /proc/loadavg (nan when unreadable).
  static var loadAverage: Double {
    readTextFile("/proc/loadavg")?.split(separator: " ").first.flatMap { Double($0) } ?? .nan
  }

  /// Processors online.
  static var cores: Int { sysconf(Int32(_SC_NPROCESSORS_ONLN)) }

  /// Kernel name and release.
  static var kernel: String {
    var u = utsname()
    uname(&u)
    func field<T>(_ value: T) -> String {
      withUnsafeBytes(of: value) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
    }
    return field(u.sysname) + " " + field(u.release)
  }

  /// Peak resident set size of this process so far, in bytes: `VmHWM` from /proc/self/status.
  ///
  /// Not getrusage's `ru_maxrss`, which starts from the high-water mark of whatever process
  /// exec'd this one (`swift run` itself, some 100 MB).
  static var peakRSS: Int {
    guard let status = readTextFile("/proc/self/status") else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
    }
    return 0
  }

  /// Resident set size now, in bytes (from /proc/self/statm).
  static var currentRSS: Int {
    guard let statm = readTextFile("/proc/self/statm") else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * sysconf(Int32(_SC_PAGESIZE))
  }

  /// The directory holding this executable.
  static var executableDirectory: String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, 4095)
    guard n > 0 else { return "." }
    let path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return String(path[..<slash])
  }
}
