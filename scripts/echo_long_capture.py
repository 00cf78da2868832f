#!/usr/bin/env python3
"""A long capture from the echo bench's dumps: each named scene tiled N times (default 15, five
minutes), through `pcm-mix mix --echo-cancel --stems`, and per 20 s copy the ERLE where the app
plays alone (3-6 s and 9.5-11 s; 12.5-14 s after the phone moves) and the talker's SI-SDR over
the double talk (6-9 s and 14-17 s). A canceller whose state drifts over minutes shows it here,
where the bench's 20 s scenes cannot.

`--ppm P` plays the echo on another clock than the mic's: the echo part of the tiled capture
is read at 1 + P/1e6 samples per sample (a 32-tap Blackman-windowed sinc), as when the
loudspeaker and the mic run on different crystals.

Run `PCMMIX_ECHO_DUMP=DIR pcm-mix-bench --filter echo/ours`, build `pcm-mix` in release, then
`python3 scripts/echo_long_capture.py DIR speech_30_ms_rt02 [SCENE ...]` (a dump's prefix).
`--copies N` sets the count; `--bin PATH` the pcm-mix to run (default .build/release/pcm-mix).
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
import soundfile as sf

RATE = 48_000


def mono(path):
    x = sf.read(path, dtype="float64")[0]
    return x[:, 0] if x.ndim == 2 else x


def resampled(x, ratio, half=16):
    """x read at `ratio` samples per sample through a 2*half-tap Blackman-windowed sinc."""
    p = np.arange(len(x)) * ratio
    whole = np.floor(p).astype(np.int64)
    frac = p - whole
    padded = np.concatenate([np.zeros(half), x, np.zeros(half + 1)])
    out = np.zeros(len(x))
    for k in range(-half + 1, half + 1):
        t = frac - k
        window = 0.42 + 0.5 * np.cos(np.pi * t / half) + 0.08 * np.cos(2 * np.pi * t / half)
        out += np.sinc(t) * window * padded[np.clip(whole + k + half, 0, len(padded) - 1)]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("scenes", nargs="+")
    ap.add_argument("--copies", type=int, default=15)
    ap.add_argument("--bin", default=".build/release/pcm-mix")
    ap.add_argument("--ppm", type=float, default=0.0)
    a = ap.parse_args()
    for tag in a.scenes:
        parts = {k: np.tile(mono(os.path.join(a.dump, f"{tag}-{k}.wav")), a.copies)
                 for k in ("app", "mic", "talker", "echo")}
        if a.ppm:
            parts["mic"] += resampled(parts["echo"], 1 + a.ppm * 1e-6) - parts["echo"]
        with tempfile.TemporaryDirectory() as d:
            for k in ("app", "mic"):
                sf.write(f"{d}/{k}.wav", parts[k].astype(np.float32), RATE, subtype="FLOAT")
            run = subprocess.run([a.bin, "mix", "--app", f"{d}/app.wav", "--mic", f"{d}/mic.wav",
                                  "-o", f"{d}/out.wav", "--echo-cancel", "--stems", f"{d}/stems"],
                                 capture_output=True, text=True)
            if run.returncode:
                raise SystemExit(f"{tag}: pcm-mix failed: {run.stderr.strip()}")
            out = mono(f"{d}/stems/mic.wav")
        mic, talker = parts["mic"], parts["talker"]

        def energy(x, t0, t1):
            return np.sum(x[int(round(t0 * RATE)):int(round(t1 * RATE))] ** 2)

        def erle(spans):
            return 10 * np.log10(sum(energy(mic, *s) for s in spans)
                                 / sum(energy(out, *s) for s in spans))

        before, after, talk = [], [], []
        for c in range(a.copies):
            o = 20 * c
            before.append(erle([(o + 3, o + 6), (o + 9.5, o + 11)]))
            after.append(erle([(o + 12.5, o + 14)]))
            spans = [(o + 6, o + 9), (o + 14, o + 17)]
            y = np.concatenate([out[int(t0 * RATE):int(t1 * RATE)] for t0, t1 in spans])
            s = np.concatenate([talker[int(t0 * RATE):int(t1 * RATE)] for t0, t1 in spans])
            scale = np.dot(y, s) / np.dot(s, s)
            talk.append(10 * np.log10(np.sum((scale * s) ** 2) / np.sum((y - scale * s) ** 2)))
        for name, row in (("ERLE before dB", before), ("ERLE after dB ", after),
                          ("double talk dB", talk)):
            print(f"{tag}{f' {a.ppm:+g} ppm' if a.ppm else ''} {name} "
                  + " ".join(f"{v:.1f}" for v in row))


if __name__ == "__main__":
    main()
