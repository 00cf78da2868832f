#if canImport(CoreMedia)
  import CoreMedia

  extension MediaTime {
    /// A sample buffer's presentation time, value and timescale as `CMTime` holds them; an
    /// invalid `CMTime` gives `nil`, which places the buffer by arrival. Apple platforms only:
    /// elsewhere use ``init(value:timescale:)``, the initializer this one calls.
    public init?(_ time: CMTime) {
      guard time.isValid, time.timescale > 0 else { return nil }
      self.init(value: time.value, timescale: time.timescale)
    }
  }

  extension CMTime {
    /// The same time as a `CMTime` (an invalid ``MediaTime`` gives `.invalid`): for example a
    /// pulled block's ``PullStatus/time``, to stamp it for an `AVAssetWriterInput`.
    public init(_ time: MediaTime) {
      self = time.isValid ? CMTime(value: time.value, timescale: time.timescale) : .invalid
    }
  }
#endif
