#if canImport(CoreAudio)
  import CoreAudio

  extension UnsafeMutableAudioBufferListPointer {
    /// Runs `body` with this list's buffers as the planes every `planes:` entry point takes
    /// (``CapturePipeline/append(_:planes:description:)``,
    /// ``RealtimeCapturePipeline/append(_:planes:description:time:)``, …): one per buffer, in
    /// order, each `mDataByteSize` bytes from `mData`. The bytes are not copied; the list of
    /// planes lives on the stack for the call. Apple platforms only: elsewhere build the planes
    /// yourself, as this does.
    ///
    /// ```swift
    /// try UnsafeMutableAudioBufferListPointer(list).withPlanes { planes in
    ///   try pipeline.append(.mic, planes: planes, description: format, time: time)
    /// }
    /// ```
    public func withPlanes<Result, Failure: Error>(
      _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      try withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: count) {
        (planes) throws(Failure) -> Result in
        for (i, buffer) in enumerated() {
          planes.initializeElement(
            at: i, to: UnsafeRawBufferPointer(start: buffer.mData, count: Int(buffer.mDataByteSize))
          )
        }
        return try body(UnsafeBufferPointer(planes))
      }
    }
  }

  extension UnsafePointer where Pointee == AudioBufferList {
    /// Runs `body` with the list's buffers as planes; see
    /// `UnsafeMutableAudioBufferListPointer.withPlanes(_:)`. The list is only read.
    public func withPlanes<Result, Failure: Error>(
      _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      try UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: self)).withPlanes(body)
    }
  }
#endif
