import PCMMixFuzzDrivers

/// libFuzzer entry: the first bytes are a stream description, the rest are samples.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProbeDecodeEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { [UInt8](UnsafeBufferPointer(start: $0, count: size)) } ?? []
  FuzzProbeDecode.run(bytes)
  return 0
}
