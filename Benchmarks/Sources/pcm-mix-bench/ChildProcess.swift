#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A child process run to completion: posix_spawn, its memory sampled from /proc while it runs,
/// reaped with wait4.
///
/// Peak RSS comes from the kernel's per-process high-water mark (`VmHWM` in /proc/PID/status),
/// read every few milliseconds for the child and every descendant it starts (sox runs its
/// inputs through `|sox ...` pipes), summed over the processes. wait4's `ru_maxrss` is kept
/// too, but it is not the child's own: a child made by posix_spawn (vfork-style, sharing the
/// parent's memory until exec) starts from the parent's high-water mark, so it reports at least
/// this benchmark's own peak.
struct ChildProcess {
  /// The exit status (or 128 + signal).
  var status: Int32
  var wallSeconds: Double
  /// User + system CPU of the child and of the descendants it waited for.
  var cpuSeconds: Double
  /// Sum over the process tree of each process's peak RSS, in bytes.
  var peakRSS: Int
  /// The first process's own peak RSS, in bytes.
  var mainPeakRSS: Int
  /// Processes seen in the tree.
  var processes: Int
  /// wait4's ru_maxrss in bytes (inflated; see the type's summary).
  var wait4MaxRSS: Int

  /// Runs `argv` (the first element is searched in PATH when it has no slash), its standard
  /// output to /dev/null (to `errorPath` too with `keepOutput`: `swift build` prints its
  /// errors there) and standard error to `errorPath`; nil when it cannot start.
  static func run(_ argv: [String], errorPath: String, keepOutput: Bool = false) -> ChildProcess? {
    // Every process of the tree inherits the write end of this pipe; the read end sees
    // end-of-file when the last one exits, which wakes the sampling loop at once.
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if keepOutput {
      posix_spawn_file_actions_adddup2(&actions, 2, 1)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    posix_spawn_file_actions_addclose(&actions, fds[0])
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { for p in cArgs { free(p) } }
    var pid: pid_t = 0
    let t0 = nowNS()
    let spawned = posix_spawnp(&pid, argv[0], &actions, nil, cArgs, environ)
    close(fds[1])
    defer { close(fds[0]) }
    guard spawned == 0 else { return nil }

    var peaks: [Int32: Int] = [:]
    var poller = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
    while true {
      sampleTree(pid, into: &peaks)
      let ready = poll(&poller, 1, 3)
      if ready > 0 {
        var byte: UInt8 = 0
        if read(fds[0], &byte, 1) <= 0 { break }
      } else if ready < 0 && errno != EINTR {
        break
      }
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
      guard errno == EINTR else { return nil }
    }
    let wall = Double(nowNS() - t0) * 1e-9
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
    let exited = status & 0x7f == 0
    return ChildProcess(
      status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), wallSeconds: wall,
      cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
      peakRSS: peaks.values.reduce(0, +), mainPeakRSS: peaks[pid] ?? 0, processes: peaks.count,
      wait4MaxRSS: usage.ru_maxrss * 1024)
  }

  /// Records the peak RSS of `pid` and of its descendants (the most seen per process).
  static func sampleTree(_ pid: pid_t, into peaks: inout [Int32: Int]) {
    guard let status = readTextFile("/proc/\(pid)/status") else { return }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let kb = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
      peaks[pid] = max(peaks[pid] ?? 0, kb * 1024)
    }
    let children = readTextFile("/proc/\(pid)/task/\(pid)/children") ?? ""
    for child in children.split(separator: " ").compactMap({ Int32($0) }) {
      sampleTree(child, into: &peaks)
    }
  }
}

/// File helpers over the C library.
enum Files {
  /// Size in bytes, or nil when absent.
  static func size(_ path: String) -> Int? {
    var s = stat()
    return stat(path, &s) == 0 ? Int(s.st_size) : nil
  }

  /// Modification time in seconds, or nil when absent.
  static func modified(_ path: String) -> Double? {
    var s = stat()
    guard stat(path, &s) == 0 else { return nil }
    return Double(s.st_mtim.tv_sec) + Double(s.st_mtim.tv_nsec) * 1e-9
  }

  static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

  /// Names in a directory (nil when it cannot be read).
  static func list(_ directory: String) -> [String]? {
    guard let d = opendir(directory) else { return nil }
    defer { closedir(d) }
    var names: [String] = []
    while let entry = readdir(d) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// The first line of a text file, for error messages.
  static func firstLine(_ path: String) -> String {
    (readTextFile(path) ?? "").split(separator: "\n").first.map(String.init) ?? ""
  }
}
