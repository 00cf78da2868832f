// The built-in resamplers as the pipeline holds them: `any Resampler`, so that an adopter's own
// backend (libsamplerate, a closure) plugs in beside them. The DSP itself (`Resample/`) uses no
// existential, so it also compiles as Embedded Swift (`make arm64-check`); the existential
// forms of its functions live here, with the pipeline that needs them.

extension PolyphaseResampler {
  /// Mono → stereo: the history is duplicated into two planes. Since the filter is the same on
  /// every channel, the stream continues exactly as if it had been sent as stereo throughout.
  /// Other changes return `nil` (averaging stereo history into mono would not be exact).
  public func remappingChannels(to channels: Int) -> (any Resampler)? {
    remapped(to: channels)
  }
}

extension VariableRatioResampler {
  /// A stereo copy of a mono resampler with the same history in both channels, so a source going
  /// from mono to stereo keeps its phase; `nil` otherwise.
  public func remappingChannels(to channels: Int) -> (any Resampler)? {
    remapped(to: channels)
  }
}
