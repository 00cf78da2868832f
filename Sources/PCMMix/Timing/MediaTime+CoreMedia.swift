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
#endif
