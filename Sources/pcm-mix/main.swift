import PCMMixCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

exit(runCLI(CommandLine.arguments.dropFirst()))
