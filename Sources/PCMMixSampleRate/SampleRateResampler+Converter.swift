import CSampleRate

extension SampleRateResampler {
  /// libsamplerate's five converters, best first.
  ///
  /// The sinc converters band-limit properly and come out time-aligned (``latency`` 0); the
  /// zero-order hold and linear interpolator are cheap, alias freely, and lag by about one input
  /// sample (see ``SampleRateResampler/latency``).
  ///
  /// | converter | CLI name | taps per output, upsampling | state, stereo |
  /// |---|---|---|---|
  /// | ``sincBest`` | `src-best` | 285 | 862 KiB |
  /// | ``sincMedium`` | `src-medium` | 91 | 276 KiB |
  /// | ``sincFastest`` | `src-fastest` | 39 | 118 KiB |
  /// | ``zeroOrderHold`` | `src-zoh` | 1 | < 1 KiB |
  /// | ``linear`` | `src-linear` | 2 | < 1 KiB |
  ///
  /// Taps are the nonzero extent of the impulse response at 48 → 48 kHz; when downsampling by
  /// `r` the sinc filters widen to `taps / r` input samples. Each sinc tap interpolates its
  /// coefficient too, so it costs about two multiply-adds.
  public enum Converter: String, CaseIterable, Sendable {
    /// `SRC_SINC_BEST_QUALITY`: the longest filter and the widest flat band.
    case sincBest
    /// `SRC_SINC_MEDIUM_QUALITY`: a third of the best filter's length.
    case sincMedium
    /// `SRC_SINC_FASTEST`: the shortest sinc filter.
    case sincFastest
    /// `SRC_ZERO_ORDER_HOLD`: repeats the last input sample.
    case zeroOrderHold
    /// `SRC_LINEAR`: interpolates linearly between the last two input samples.
    case linear

    /// Whether this is one of the band-limited sinc converters.
    public var isSinc: Bool {
      switch self {
      case .sincBest, .sincMedium, .sincFastest: true
      case .zeroOrderHold, .linear: false
      }
    }

    /// libsamplerate's `converter_type` number.
    var converterType: Int32 {
      switch self {
      case .sincBest: Int32(SRC_SINC_BEST_QUALITY)
      case .sincMedium: Int32(SRC_SINC_MEDIUM_QUALITY)
      case .sincFastest: Int32(SRC_SINC_FASTEST)
      case .zeroOrderHold: Int32(SRC_ZERO_ORDER_HOLD)
      case .linear: Int32(SRC_LINEAR)
      }
    }
  }
}
