import PCMMixFuzzDrivers

/// libFuzzer entry: the input is a schedule of buffers, format changes and mix calls.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipelineEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { [UInt8](UnsafeBufferPointer(start: $0, count: size)) } ?? []
  FuzzPipeline.run(bytes)
  return 0
}
