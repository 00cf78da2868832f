#!/usr/bin/env python3
"""Loudness reference vectors for PCMMix's LoudnessMeter (run from this folder).

Writes `manifest.json` (and the one signal that is not a sine, a WAV) with what libebur128 (Debian libebur128-dev,
through ctypes) measures of each: integrated loudness, loudness range, true peak (the larger
channel's), the largest momentary loudness (read every 100 ms), and the momentary and short-term
loudness at every whole second from 3 s on ("live": [seconds, momentary, short-term], -999 for
-inf); and pyloudnorm's integrated
loudness (PyPI) as a second opinion. The signals follow EBU Tech 3341 and 3342 where they can
be generated here (sines at set levels and sequences of them, and the true-peak sines of Tech 3341
cases 15-19, with the reading and tolerance the EBU expects), plus noise at stepped levels at
44.1 kHz and a quarter-rate sine whose true peak lies between the samples.
"""
import ctypes
import ctypes.util
import json

import numpy as np
import soundfile as sf

lib = ctypes.CDLL(ctypes.util.find_library("ebur128") or "libebur128.so.1")
lib.ebur128_init.restype = ctypes.c_void_p
lib.ebur128_init.argtypes = [ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
lib.ebur128_add_frames_float.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_size_t]
lib.ebur128_loudness_global.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double)]
lib.ebur128_loudness_range.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double)]
lib.ebur128_loudness_momentary.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double)]
lib.ebur128_loudness_shortterm.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double)]
lib.ebur128_true_peak.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_double)]
lib.ebur128_destroy.argtypes = [ctypes.POINTER(ctypes.c_void_p)]


def measure(x, rate):
    ch = x.shape[1]
    st = lib.ebur128_init(ch, rate, (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5))
    x = np.ascontiguousarray(x, dtype=np.float32)
    step = rate // 10
    mmax = -np.inf
    live = []
    for k, i in enumerate(range(0, len(x), step)):
        part = x[i:i + step]
        lib.ebur128_add_frames_float(st, part.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), len(part))
        if i + step >= rate * 4 // 10:
            m = ctypes.c_double()
            lib.ebur128_loudness_momentary(st, ctypes.byref(m))
            mmax = max(mmax, m.value)
        if (k + 1) % 10 == 0 and (k + 1) >= 30:
            # Every whole second from 3 s on: the momentary and short-term loudness then.
            m, s_ = ctypes.c_double(), ctypes.c_double()
            lib.ebur128_loudness_momentary(st, ctypes.byref(m))
            lib.ebur128_loudness_shortterm(st, ctypes.byref(s_))
            live.append([(k + 1) / 10, m.value, s_.value])
    i_, lra = ctypes.c_double(), ctypes.c_double()
    lib.ebur128_loudness_global(st, ctypes.byref(i_))
    lib.ebur128_loudness_range(st, ctypes.byref(lra))
    tp = 0.0
    for c in range(ch):
        v = ctypes.c_double()
        lib.ebur128_true_peak(st, c, ctypes.byref(v))
        tp = max(tp, v.value)
    p = ctypes.c_void_p(st)
    lib.ebur128_destroy(ctypes.byref(p))
    return i_.value, lra.value, 20 * np.log10(tp), mmax, live


def sine(rate, seconds, dbfs, freq=1000.0, phase=0.0):
    t = np.arange(int(rate * seconds)) / rate
    return 10 ** (dbfs / 20) * np.sin(2 * np.pi * freq * t + phase)


def stereo(x):
    return np.stack([x, x], axis=1)


# Sine signals are described in the manifest ("segments": [seconds, dBFS] runs of a sine of
# "frequency" Hz starting at "phase" radians, "am": an amplitude modulation 0.6 + 0.4 sin(2π·am·t),
# every channel alike, "fade": faded in and out linearly over that many seconds, gain
# min(1, i / n, (N - 1 - i) / n) at sample i of N, "bits": then rounded to that many bits, to
# nearest, ties to even), and the Swift test makes them the same way (in Double, then Float); only
# the noise, which it cannot make, is a file (16-bit, mono).
specs = {
    "tech3341_1_sine_-23": dict(rate=48000, channels=2, segments=[[20, -23]]),
    "tech3341_2_sine_-33": dict(rate=48000, channels=2, segments=[[20, -33]]),
    "tech3341_3_sequence": dict(rate=48000, channels=2, segments=[[10, -36], [60, -23], [10, -36]]),
    "tech3341_4_sequence": dict(rate=48000, channels=2,
                                segments=[[10, -72], [10, -36], [60, -23], [10, -36], [10, -72]]),
    "tech3342_1_steps_-20_-30": dict(rate=48000, channels=2, segments=[[20, -20], [20, -30]]),
    "tech3342_2_steps_-20_-15": dict(rate=48000, channels=2, segments=[[20, -20], [20, -15]]),
    "tech3342_3_steps_-40_-20": dict(rate=48000, channels=2, segments=[[20, -40], [20, -20]]),
    "mono_am_440_44100": dict(rate=44100, channels=1, segments=[[12, -20]], frequency=440.0, am=3.0),
    # A quarter-rate sine whose samples miss its crests by 45 degrees: sample peak -9.03 dBFS,
    # true peak -6.02 dBTP.
    "truepeak_fs4_45deg": dict(rate=48000, channels=2, segments=[[5, -6.0206]], frequency=12000.0,
                               phase=float(np.pi / 4)),
}

# EBU Tech 3341 (v3 2016 / v4 2023), table of minimum requirements, cases 15-19: a stereo sine at
# 48 kHz in 24 bits, of amplitude (full scale 1) and starting phase as listed, whose largest true
# peak must read as "expectedTruePeakDBTP" within +toleranceAbove / -toleranceBelow dB. The table
# gives no length; 3 s (the EBU's own files are about that long). Nor does it give the ends: a
# sine cut in on a sample of up to 0.92 of its crest is a step, whose ringing is not the sine's true
# peak (libebur128 reads case 18 so at -5.37 dBTP), so these fade in and out over 10 ms. (Cases
# 20-23, one fs/4 period inside an fs/6 tone made at 4 fs and decimated through a low-pass the
# table does not give, are left out.)
for case, divisor, amplitude, degrees, expected in [
    (15, 4, 0.50, 0.0, -6.0),
    (16, 4, 0.50, 45.0, -6.0),
    (17, 6, 0.50, 60.0, -6.0),
    (18, 8, 0.50, 67.5, -6.0),
    (19, 4, 1.41, 45.0, 3.0),
]:
    specs[f"tech3341_{case}_truepeak_fs{divisor}_{degrees:g}deg"] = dict(
        rate=48000, channels=2, fade=0.01, bits=24, segments=[[3, float(20 * np.log10(amplitude))]],
        frequency=48000 / divisor, phase=float(np.deg2rad(degrees)),
        expectedTruePeakDBTP=expected, toleranceAbove=0.2, toleranceBelow=0.4)


def make(spec):
    rate = spec["rate"]
    parts = []
    offset = 0
    for seconds, dbfs in spec["segments"]:
        n = int(rate * seconds)
        t = (offset + np.arange(n)) / rate
        x = 10 ** (dbfs / 20) * np.sin(2 * np.pi * spec.get("frequency", 1000.0) * t + spec.get("phase", 0.0))
        if "am" in spec:
            x = x * (0.6 + 0.4 * np.sin(2 * np.pi * spec["am"] * t))
        parts.append(x)
        offset += n
    x = np.concatenate(parts)
    if "fade" in spec:
        n = int(rate * spec["fade"])
        i = np.arange(len(x))
        x = x * np.minimum(1, np.minimum(i / n, (len(x) - 1 - i) / n))
    if "bits" in spec:
        scale = 2.0 ** (spec["bits"] - 1)
        x = np.round(x * scale) / scale
    return np.repeat(x[:, None], spec["channels"], axis=1), rate


signals = {name: make(spec) for name, spec in specs.items()}
rng = np.random.default_rng(3341)
noise = []
for level in [-30, -18, -25, -40, -22]:
    n = rng.standard_normal(44100 * 4)
    n *= 10 ** (level / 20) / np.sqrt(np.mean(n ** 2))
    noise.append(n)
noise = np.round(np.clip(np.concatenate(noise), -1, 32767 / 32768) * 32768).astype(np.int16)
sf.write("noise_steps_44100.wav", noise, 44100, subtype="PCM_16")
signals["noise_steps_44100"] = ((noise.astype(np.float64) / 32768)[:, None], 44100)
specs["noise_steps_44100"] = dict(rate=44100, channels=1, file="noise_steps_44100.wav")

manifest = {}
for name, (x, rate) in signals.items():
    x = x.astype(np.float32)
    i_, lra, tp, mmax, live = measure(x, rate)
    entry = dict(specs[name])
    entry.update({"integratedLUFS": i_, "rangeLU": lra, "truePeakDBTP": float(tp),
                  "momentaryMaxLUFS": mmax,
                  "live": [[t, m if np.isfinite(m) else -999.0, s_ if np.isfinite(s_) else -999.0]
                           for t, m, s_ in live]})
    try:
        import pyloudnorm
        entry["pyloudnormIntegratedLUFS"] = float(
            pyloudnorm.Meter(rate).integrated_loudness(x.astype(np.float64)))
    except ImportError:
        pass
    manifest[name] = entry
    print(name, {k: round(v, 3) if isinstance(v, float) else v for k, v in entry.items()})
json.dump(manifest, open("manifest.json", "w"), indent=1, sort_keys=True)
