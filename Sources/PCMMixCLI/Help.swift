/// The CLI's help texts.
public enum Help {
  /// This build's version.
  public static let version = "pcm-mix 0.1.0"

  static let commands = ["probe", "convert", "mix", "demo"]

  /// The text for `topic` (nil: the overview).
  public static func text(_ topic: String?) -> String {
    switch topic {
    case "probe": probe
    case "convert": convert
    case "mix": mix
    case "demo": demo
    default: overview
    }
  }

  static let inputs = """
    INPUT is a WAV file (PCM 8/16/24/32-bit, IEEE float 32/64-bit, or EXTENSIBLE), or headerless
    PCM when its format SPEC is given as TYPE:RATE:CHANNELS, TYPE one of
      u8 s16le s16be s24le s24be s32le s32be f32le f32be f64le f64be
    (s16be:44100:2 is the shape of a ReplayKit app-audio dump). '-' reads standard input;
    OUTPUT '-' writes standard output. Output goes to a temporary file beside OUTPUT and is
    renamed into place only when complete.
    """

  static let resamplers = """
    --resampler NAME picks the converter: builtin (builtin:balanced, the default), builtin:fast
    (lowest delay), builtin:high (cleanest), or libsamplerate's src-best, src-medium,
    src-fastest, src-linear, src-zoh.
    """

  static let overview = """
    pcm-mix: convert and mix PCM audio the way a capture pipeline does.

    usage:
      pcm-mix probe FILE... [--json]
      pcm-mix convert INPUT -o OUTPUT [--rate HZ] [--channels 1|2] [--format s16|f32]
                      [--input-format SPEC] [--resampler NAME]
      pcm-mix mix --app INPUT --mic INPUT -o OUTPUT [--rate HZ] [--policy average|saturate]
                  [--app-gain DB] [--mic-gain DB] [--pad] [--format s16|f32]
                  [--app-format SPEC] [--mic-format SPEC] [--resampler NAME]
      pcm-mix demo [-o OUTPUT]
      pcm-mix --help | help COMMAND | --version

    \(inputs)

    \(resamplers)

    exit codes: 0 ok, 64 usage, 65 malformed or unsupported data, 66 input missing or
    unreadable, 73 output cannot be created, 74 I/O error.
    """

  static let probe = """
    usage: pcm-mix probe FILE... [--json]

    Prints each WAV file's format: sample type, rate, channels, frames, duration. With --json,
    one JSON object per line with path, sampleRate, channels, sampleType, frames,
    durationSeconds, dataOffset and truncated. Every file is probed; the exit code is that of
    the first failure.
    """

  static let convert = """
    usage: pcm-mix convert INPUT -o OUTPUT [--rate HZ] [--channels 1|2] [--format s16|f32]
                           [--input-format SPEC] [--resampler NAME]

    Decodes INPUT, maps it to 1 or 2 channels (mono is duplicated, stereo averaged for 1,
    channels past the second dropped), resamples it to HZ (default 48000) with the built-in
    resampler, and writes a WAV file (default s16). The output is time-aligned with the input
    and holds round(frames × HZ / input rate) frames, whichever resampler runs.

    \(resamplers)

    \(inputs)
    """

  static let mix = """
    usage: pcm-mix mix --app INPUT --mic INPUT -o OUTPUT [--rate HZ]
                       [--policy average|saturate] [--app-gain DB] [--mic-gain DB] [--pad]
                       [--format s16|f32] [--app-format SPEC] [--mic-format SPEC]
                       [--resampler NAME]

    Converts both inputs to HZ (default 48000) stereo and mixes them: average (default),
    (a + b) / 2, bit-exact with C's integer average on int16; or saturate, a + b clamped.
    The output holds the shorter converted input, or the longer with --pad (the shorter
    continued as silence).

    \(resamplers)

    \(inputs)
    """

  static let demo = """
    usage: pcm-mix demo [-o OUTPUT]

    Synthesizes a ReplayKit-shaped capture (app audio 44.1 kHz stereo big-endian int16 in
    1,024-frame buffers, mic audio 32 kHz mono little-endian int16 in uneven buffers), runs it
    through the capture pipeline buffer by buffer, writes the 48 kHz stereo mix (default
    pcm-mix-demo.wav) and prints what it did.
    """
}
