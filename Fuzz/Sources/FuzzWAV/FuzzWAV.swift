import PCMMixFuzzDrivers

/// libFuzzer entry: the input is a WAV file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWAVEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { [UInt8](UnsafeBufferPointer(start: $0, count: size)) } ?? []
  FuzzWAV.run(bytes)
  return 0
}
