import PCMMixFuzzDrivers

/// libFuzzer entry: the input is an audio file (WAV, RF64, BW64, RIFX or CAF).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContainersEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { [UInt8](UnsafeBufferPointer(start: $0, count: size)) } ?? []
  FuzzContainers.run(bytes)
  return 0
}
