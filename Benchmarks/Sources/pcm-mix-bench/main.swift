// pcm-mix-bench: the capture pipeline, its stages, the resampler backends beside their peers,
// and the CLI beside sox, measured on this machine. See Options.usage.
import PCMMixCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

let arguments = CommandLine.arguments
// A child running the CLI code when no fresh pcm-mix binary is at hand (see CLIEndToEnd).
if arguments.count > 1 && arguments[1] == "--run-cli" {
  exit(runCLI(arguments.dropFirst(2)))
}

let options: Options
switch Options.parse(arguments.dropFirst()) {
case .success(let parsed):
  options = parsed
case .failure(.help):
  emit(Options.usage)
  exit(0)
case .failure(.bad(let message)):
  warn("pcm-mix-bench: \(message)\n\n\(Options.usage)")
  exit(64)
}

let started = nowNS()
#if DEBUG
  let build = "DEBUG (numbers are not representative: use swift run -c release pcm-mix-bench)"
  warn("warning: pcm-mix-bench was built in debug mode; build with -c release")
#else
  let build = "release"
#endif
emit(
  "pcm-mix-bench: \(Machine.cpuModel), \(Machine.cores) cores, \(Machine.kernel); build \(build)")
emit("seconds: \(fixed(options.seconds, 2))" + (options.filter.map { ", filter: \($0)" } ?? ""))

let check = AllocCounting.selfCheck()
let allocCounterWorks = check.interposed && check.counted >= 100
emit(
  "allocation counter: \(check.counted) allocations counted for 100 Swift arrays; malloc "
    + (check.interposed ? "interposed" : "NOT interposed")
    + (allocCounterWorks ? "" : " -- allocation columns are n/a"))

if let directory = options.plotsDirectory {
  let ok = Plots.run(options, directory: directory)
  emit("done in \(fixed(Double(nowNS() - started) * 1e-9, 1)) s")
  exit(ok ? 0 : 73)
}

let report = Report(filter: options.filter)
report.record("machine", Machine.cpuModel, "cores", Double(Machine.cores), "count")
report.record("machine", "alloc_counter", "counted_for_100_arrays", Double(check.counted), "count")
CaptureScene.run(options, report: report, allocCounterWorks: allocCounterWorks)
StageBench.run(options, report: report)
ResamplerTable.run(options, report: report, allocCounterWorks: allocCounterWorks)
CLIEndToEnd.run(options, report: report)
TimingScenes.run(options, report: report, allocCounterWorks: allocCounterWorks)
DebugBuild.run(options, report: report)
EchoBench.run(options, report: report, allocCounterWorks: allocCounterWorks)
DuckingBench.run(options, report: report)
LoudnessBench.run(options, report: report)

let elapsed = Double(nowNS() - started) * 1e-9
report.record("machine", "run", "elapsed", elapsed, "s")
emit("")
let benchRSS = fixed(Double(Machine.peakRSS) / 1_048_576, 1)
emit("done in \(fixed(elapsed, 1)) s; peak RSS of the bench \(benchRSS) MB")
if let path = options.jsonPath {
  if report.writeJSON(to: path) {
    emit("wrote \(report.records.count) records to \(path)")
  } else {
    warn("pcm-mix-bench: cannot write \(path)")
    exit(73)
  }
}
