/// The CLI's help texts.
package enum Help {
  /// This build's version.
  package static let version = "pcm-mix 0.1.0"

  static let commands = ["probe", "convert", "mix", "demo", "replay"]

  /// The text for `topic` (nil: the overview).
  package static func text(_ topic: String?) -> String {
    switch topic {
    case "probe": probe
    case "convert": convert
    case "mix": mix
    case "demo": demo
    case "replay": replay
    default: overview
    }
  }

  static let inputs = """
    INPUT is an audio file: WAV (PCM of 1 to 32 bits, IEEE float 32/64-bit, or EXTENSIBLE), its
    64-bit forms RF64 and BW64, big-endian RIFX, or CAF with linear PCM (s8/16/24/32, float
    32/64, either byte order; compressed CAF is refused by name); or headerless PCM when its
    format SPEC is given as TYPE:RATE:CHANNELS, TYPE one of
      u8 s16le s16be s24le s24be s32le s32be f32le f32be f64le f64be
    (s16be:44100:2 is the shape of a ReplayKit app-audio dump). '-' reads standard input;
    OUTPUT '-' writes standard output. Output goes to a temporary file beside OUTPUT and is
    renamed into place only when complete. OUTPUT is a WAV file; one that may pass 4 GiB (its
    length unknown, as from a pipe, or too long) starts with a JUNK chunk and becomes RF64 if
    it does; written to a pipe it keeps the 0xFFFFFFFF sizes of a stream.
    """

  static let resamplers = """
    --resampler NAME picks the converter: builtin (builtin:balanced, the default), builtin:fast
    (lowest delay), builtin:high (cleanest), or libsamplerate's src-best, src-medium,
    src-fastest, src-linear, src-zoh. --phase picks the built-in resampler's phase response:
    linear (the default: a file converter has the whole file, so it drops a linear-phase
    filter's delay and every frequency comes out at its input time), minimum (least delay, the
    top of the band lags), or capture (the presets as the capture pipeline runs them: minimum
    phase wherever linear phase would exceed the preset's delay budget, which is at every
    common rate into 48 kHz).
    """

  static let overview = """
    pcm-mix: convert and mix PCM audio the way a capture pipeline does.

    usage:
      pcm-mix probe FILE... [--json] [--loudness]
      pcm-mix convert INPUT -o OUTPUT [--rate HZ] [--channels 1|2] [--format s16|f32]
                      [--input-format SPEC] [--resampler NAME] [--phase PHASE] [--threads N]
                      [--loudness LUFS [--true-peak DB]]
      pcm-mix mix --app INPUT --mic INPUT -o OUTPUT [--rate HZ] [--policy POLICY]
                  [--ceiling DB] [--fade MS] [--app-gain DB] [--mic-gain DB] [--pad]
                  [--mic-drift PPM|auto] [--format s16|f32] [--app-format SPEC]
                  [--mic-format SPEC] [--resampler NAME] [--phase PHASE] [--echo-cancel]
                  [--duck [DEPTH_DB]] [--stems DIR] [--loudness LUFS [--true-peak DB]]
                  [--report FILE.json] [--json]
      pcm-mix demo [-o OUTPUT]
      pcm-mix replay [--app RAW --app-log CSV] [--mic RAW --mic-log CSV] -o OUTPUT [--pull MS]
                     [--latency MS] [--policy POLICY] [--ceiling DB] [--fade MS]
                     [--app-gain DB] [--mic-gain DB] [--format s16|f32] [--resampler NAME]
                     [--phase PHASE] [--drift off|timestamps|fill] [--echo-cancel]
                     [--duck [DEPTH_DB]] [--stems DIR] [--loudness LUFS [--true-peak DB]]
                     [--report FILE.json] [--json]
      pcm-mix --help | help COMMAND | --version

    \(inputs)

    \(resamplers)

    exit codes: 0 ok, 64 usage, 65 malformed or unsupported data, 66 input missing or
    unreadable, 73 output cannot be created, 74 I/O error.
    """

  static let probe = """
    usage: pcm-mix probe FILE... [--json] [--loudness]

    Prints each file's container (WAV, RF64, BW64, RIFX or CAF) and format: sample type, rate,
    channels, frames, duration. With --json, one JSON object per line with
      path             the FILE as given
      container        WAV, RF64, BW64, RIFX or CAF
      sampleRate       in Hz
      channels
      sampleType       as the file stores it: u8, s8 (CAF), s16le, s16be, ..., f64be
      validBits        significant bits per sample (12 for 12-bit PCM in 2 bytes)
      frames           whole frames of audio there are
      durationSeconds  frames / sampleRate
      dataOffset       the byte offset of the first audio byte
      truncated        whether the file ends before the size its header claims
      claimedFrames    the whole frames the header's data size claims (absent when it says
                       "to the end of the file": 0 or 0xFFFFFFFF in WAV, -1 in CAF)
      strayBytes       bytes after the last whole frame of a data chunk whose size is not a
                       whole number of frames (ignored; not a truncation)
    --loudness reads each file through and adds its loudness (ITU-R BS.1770-4, EBU R128; every
    channel weighted 1): "loudness": {"integratedLUFS", "rangeLU", "truePeakDBTP" (4x
    oversampled), "momentaryMaxLUFS"}, null where there is nothing to measure.
    Every file is probed; the exit code is that of the first failure.
    """

  static let convert = """
    usage: pcm-mix convert INPUT -o OUTPUT [--rate HZ] [--channels 1|2] [--format s16|f32]
                           [--input-format SPEC] [--resampler NAME]
                           [--phase linear|minimum|capture] [--threads N]
                           [--loudness LUFS [--true-peak DB]]

    Decodes INPUT, maps it to 1 or 2 channels (mono is duplicated, stereo averaged for 1,
    channels past the second dropped), resamples it to HZ (default 48000) with the built-in
    resampler, and writes a WAV file (default s16). The output is time-aligned with the input
    and holds round(frames × HZ / input rate) frames, whichever resampler runs; with the
    default linear phase, at every frequency.

    With the built-in resampler, a WAV, RF64 or CAF file whose data is all there and a file
    (not standard output) to write, long inputs are cut into up to N parts (default: one per
    processor, at most 4) converted at once; the output is the same bytes for any N.

    \(resamplers)

    \(inputs)

    --loudness LUFS normalizes the output to that integrated loudness (ITU-R BS.1770-4, EBU
    R128; -70 to 0) in a second pass over the finished file, through the limiter, keeping the
    true peak (4x oversampled) at or below --true-peak DB (default -1 dBTP). It needs an output
    file, not standard output.
    """

  static let mix = """
    usage: pcm-mix mix --app INPUT --mic INPUT -o OUTPUT [--rate HZ]
                       [--policy average|saturate|limit] [--ceiling DB] [--fade MS]
                       [--app-gain DB] [--mic-gain DB] [--pad] [--mic-drift PPM|auto]
                       [--format s16|f32] [--app-format SPEC] [--mic-format SPEC]
                       [--resampler NAME] [--phase linear|minimum|capture] [--echo-cancel]
                       [--duck [DEPTH_DB]] [--stems DIR] [--loudness LUFS [--true-peak DB]]
                       [--report FILE.json] [--json]

    Converts both inputs to HZ (default 48000) stereo and mixes them: average (default),
    (a + b) / 2, bit-exact with C's integer average on int16; saturate, a + b clamped; or
    limit (recommended), a + b through a limiter that keeps every sample at or below
    --ceiling (default -1 dBFS) and is the plain sum below it. The output holds the shorter
    converted input, or the longer with --pad (the shorter continued as silence).

    --fade MS fades each input in at its start and out at its end (raised cosine; default 0,
    none, so the output is the reference's bit for bit); without --pad the longer input is
    faded out with the shorter where the output ends. --report FILE.json writes the counters,
    each source's and the output's levels (peak and RMS dBFS) and what the limiter or the
    clamp did; --json prints the same on standard error.

    --mic-drift PPM says the mic input was recorded on a clock PPM parts per million fast
    against the app input's (negative: slow; -1000 to 1000), as two recorders' files are: the
    mic is resampled onto the app's clock, so that it stays where the app is on the output's
    timeline (at 50 ppm it would slide 3 ms a minute). With --echo-cancel and an echo in the
    mic, the report's "echo" reads that drift ("micDriftPPM", once the canceller follows it).
    --mic-drift auto reads it first from the app's echo in the mic, in a pass over both files
    (they are read twice, so neither can be standard input); with no echo of the app in the mic
    there is nothing to read it from, and a warning says the mix went as recorded. The echo
    slides by the loudspeaker's clock against the mic's: that is the files' drift when the app
    file was recorded on the clock that played it, not when the loudspeaker has a clock of its
    own (Bluetooth), where the files may share one: then give no --mic-drift.

    --echo-cancel takes the app's echo out of the mic (the app played on a loudspeaker and
    recorded again), with the app's audio at the same output position as the reference: a
    delay search over 0 … 300 ms, a 200 ms adaptive filter and a residual-echo suppressor. With
    no echo (headphones) the mic passes unchanged. The report gains "echo": the delay found
    (seconds), an ERLE estimate (dB), the share of double talk, whether it stayed bypassed, and
    the mic's drift against the loudspeaker's clock where it follows one (ppm, else null).
    --duck [DEPTH_DB] turns the app down by DEPTH_DB (default 10) while the talker speaks, as
    replay's does (see 'pcm-mix help replay'): the voice detected on the mic with the app's echo
    taken out, 0.5 s ahead of the app's frames; the app stem is after it.
    --stems DIR writes DIR/app.wav and DIR/mic.wav (made if missing): each source as it enters
    the mix (at its gain, ducked, the echo cancelled), stereo at the output's rate, on the
    output's timeline.

    --loudness LUFS normalizes the output to that integrated loudness (ITU-R BS.1770-4, EBU
    R128; -70 to 0) in a second pass over the finished file, through the limiter, keeping the
    true peak (4x oversampled) at or below --true-peak DB (default -1 dBTP). It needs an output
    file, not standard output.

    \(resamplers)

    \(inputs)
    """

  static let demo = """
    usage: pcm-mix demo [-o OUTPUT]

    Synthesizes a ReplayKit-shaped capture (app audio 44.1 kHz stereo big-endian int16 in
    1,024-frame buffers, mic audio 32 kHz mono little-endian int16 in uneven buffers, each with
    marker bursts at known times), hands each buffer to a RealtimeCapturePipeline when its last
    frame exists, stamped with its host time, pulls 10 ms at a time, writes the blocks back to
    back from the first stamped one (default pcm-mix-demo.wav), and prints where the markers
    landed against their host time, the latency and the counters.
    """

  static let replay = """
    usage: pcm-mix replay [--app RAW --app-log CSV] [--mic RAW --mic-log CSV] -o OUTPUT
                          [--pull MS] [--latency MS] [--policy average|saturate|limit]
                          [--ceiling DB] [--fade MS] [--app-gain DB] [--mic-gain DB]
                          [--format s16|f32] [--resampler NAME]
                          [--phase linear|minimum|capture] [--drift off|timestamps|fill]
                          [--echo-cancel] [--duck [DEPTH_DB]] [--stems DIR]
                          [--loudness LUFS [--true-peak DB]] [--report FILE.json] [--json]

    Replays a capture log of the app source, the mic source or both through the clocked capture
    pipeline, as a live capture would have run it, and writes the 48 kHz stereo output on the
    host timeline. --app needs --app-log and --mic needs --mic-log; a source given alone plays
    alone (the other is disabled, so it is not halved by average).

    A capture log is a raw file of the buffers' bytes back to back and a CSV whose first line is
    exactly 'time,frames,format', then one row per buffer:
      time    the host time of its first frame: decimal seconds (12.345), VALUE/TIMESCALE
              (1234567/1000000000, TIMESCALE a positive 32-bit integer), or empty: no stamp
      frames  its frame count, a positive integer; it takes frames × bytes-per-frame bytes
      format  TYPE:RATE:CHANNELS as for --app-format in mix (interleaved)
    Blank lines are skipped; CRLF line ends are fine.

    Timing, all in log time:
      t0 is the earliest time in either log (0 if no row has one); it is the pipeline's origin,
      and output frame k is host time t0 + k / 48000.
      A row is delivered when its last sample exists, time + frames / rate; a row without a time
      is delivered frames / rate after the previous row of its log (the first one after t0).
      A row is never delivered before the previous row of its log.
      Rows are appended in delivery order across both logs, the app first on a tie. The output
      is pulled every --pull MS (default 10, 1 … 100) of log time, MS × 48 frames a pull: pull
      j at t0 + (j + 1) × MS, after every row delivered by then.
      Each pulled block is written at its timeline position: frames before 0 are dropped,
      blocks given while the output is starting or holding are not written, and a jump ahead
      is written as silence. The output ends where the last buffer ends: round((the largest
      time + frames / rate of any row − t0) × 48000) frames. After the last row, both sources
      are finished (their resampler tails flushed) and pulling goes on until then.

    --latency MS fixes how far behind the newest audio the output plays; by default the
    pipeline chooses it (100 ms … 1 s) and raises it when a source is late again and again, or
    holds when both run dry at once (replay never lowers it: the file is on the capture
    timeline). --drift picks
    what steers the resamplers: the timestamps (default), nothing (off), or the timestamps and,
    for an unstamped source, its fill level (fill). --resampler as for mix; the built-in
    presets run the steerable variable-ratio resampler, in linear phase unless --phase says
    otherwise (--phase capture runs them as the device did).

    --policy limit (recommended) sums the sources through a limiter that keeps every sample at
    or below --ceiling (default -1 dBFS); it looks 1 ms ahead into the timeline, adding no
    delay. --fade MS (default 10, 0 for none) fades each source in where it starts or comes
    back and out before it stops, stalls, switches format or is disabled; gain changes ramp as
    long.

    --report FILE.json writes what happened: t0, endFrame, the output (path, frames, frames
    filled with silence), the settings, per source every pipeline counter and its drift loop
    once a second of log time (time, driftPPM, positionErrorMs, ratioAdjustment), the output
    clock's counters, and the latency at the start and at every change (time, latencyMs);
    times are seconds since t0. --json also prints it on standard error.

    --echo-cancel takes the app's echo out of the mic (the app played on a loudspeaker and
    recorded again), with the app's audio at the same output position as the reference: a
    delay search over 0 … 300 ms, a 200 ms adaptive filter and a residual-echo suppressor. With
    no echo (headphones) the mic passes unchanged. The report's mic source gains "echo": the delay found
    (seconds), an ERLE estimate (dB), the share of double talk, whether it stayed bypassed.
    --stems DIR writes DIR/app.wav and DIR/mic.wav (made if missing): each source as it enters
    the mix (at its gain, the echo cancelled), stereo at the output's rate, on the output's timeline (frame k is host time t0 + k / 48000).

    --duck [DEPTH_DB] turns the app down by DEPTH_DB (default 10) while the talker speaks:
    the voice is detected on the mic with the app's echo taken out (the canceller runs for the
    detector even without --echo-cancel), up to 0.5 s ahead (the replay's latency is at least
    0.53 s); the gain ramps down over 40 ms from 60 ms before the voice, stays down through
    pauses under 0.5 s, and comes back over 0.25 s once the look-ahead shows the voice has
    ended. The app stem (--stems) is after it.

    --loudness LUFS normalizes the output to that integrated loudness (ITU-R BS.1770-4, EBU
    R128; -70 to 0) in a second pass over the finished file, through the limiter, keeping the
    true peak (4x oversampled) at or below --true-peak DB (default -1 dBTP). It needs an output
    file, not standard output.

    A malformed log is refused with 65 naming FILE:LINE. A raw file that ends inside a row's
    buffer, or holds bytes after the last row's, is a log cut short (a killed extension): every
    whole buffer is replayed, a warning names the row (or the raw file), the report records it
    under "cut", and the exit code is 0. Output goes to a temporary file beside OUTPUT and is
    renamed into place only when complete.

    \(resamplers)
    """
}
