import PCMMixFuzzDrivers

/// libFuzzer entry: the input is a configuration and a schedule of stamped buffers and pulls.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCaptureEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { [UInt8](UnsafeBufferPointer(start: $0, count: size)) } ?? []
  FuzzCapture.run(bytes)
  return 0
}
