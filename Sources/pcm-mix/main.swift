#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import PCMMixCLI

exit(runCLI(CommandLine.arguments.dropFirst()))
