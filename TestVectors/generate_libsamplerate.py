#!/usr/bin/env python3
"""Reference vectors for the libsamplerate backend (PCMMixSampleRate).

Run from the repository root:

    python3 TestVectors/generate_libsamplerate.py

Needs numpy and the `samplerate` package (python-samplerate, which bundles its own
build of libsamplerate).  The script owns TestVectors/libsamplerate/ and its
manifest.json, and nothing else; it deletes and rewrites that folder.  It is
deterministic (fixed seeds) and does not run any Swift.

What it records
---------------
Four short signals -- 44.1 kHz stereo, 32 kHz mono, 96 kHz stereo, 8 kHz stereo,
all converted to 48 kHz -- each through each of libsamplerate's five converters,
streamed through `samplerate.Resampler.process` in a fixed sequence of calls:

1. Data calls, end_of_input=False: the input from frame `pos` on, at most
   `blockFrames` frames; then `pos` advances by the frames libsamplerate used.
   (The Python binding does not report frames used, so the same call is made on a
   twin state through libsamplerate's C API in the same bundled library, loaded
   with ctypes; the two outputs are checked equal.  Zero-order hold and linear
   sometimes leave a frame: when the binding's output room runs out first, or
   (linear) when an output instant lands exactly on the end of the input.  What
   is left is presented again at the start of the next call.)
2. Flush calls, end_of_input=True: each passes `flushSilenceFrames` =
   ceil(rate / 48000) + 1 frames of silence, exactly as the Swift wrapper's
   flush does.  The sinc converters take that silence in the first flush call and
   then only drain; zero-order hold and linear ignore end_of_input and take the
   silence as input each time.  Flush calls stop after a call that produces no
   frames, or once round(frames * 48000 / rate) + 16 frames have come out.

The Python binding gives each call room for ceil(input frames * ratio) output
frames (ratio = 48000 / rate as a double); every call is listed in the manifest
as [inputStart, inputFrames, outputCapacity, endOfInput, framesUsed,
framesGenerated], with inputStart -1 for silence, and the output file is the
raw concatenation of everything the calls returned (float32 little-endian,
interleaved).  The Swift test repeats those calls through the wrapper's raw
`src_process` path with the system libsamplerate and compares.

The same calls are also replayed here against the system libsamplerate
(libsamplerate.so.0 via ctypes) when it can be loaded, and the largest
difference is recorded.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import json
import math
import platform
import shutil
from pathlib import Path

import numpy as np
import samplerate

ROOT = Path(__file__).resolve().parent
OUT = ROOT / "libsamplerate"
OUTPUT_RATE = 48000

# libsamplerate's converter numbers, with the Swift enum's case names.
CONVERTERS = [
    ("sincBest", 0, "sinc_best"),
    ("sincMedium", 1, "sinc_medium"),
    ("sincFastest", 2, "sinc_fastest"),
    ("zeroOrderHold", 3, "zero_order_hold"),
    ("linear", 4, "linear"),
]

# (name, input rate, channels, frames, block frames, seed)
SIGNALS = [
    ("s44100_2", 44100, 2, 2300, 441, 11),
    ("s32000_1", 32000, 1, 1700, 320, 12),
    ("s96000_2", 96000, 2, 4900, 960, 13),
    ("s8000_2", 8000, 2, 430, 97, 14),
]


class SRC_DATA(ctypes.Structure):
    _fields_ = [
        ("data_in", ctypes.c_void_p), ("data_out", ctypes.c_void_p),
        ("input_frames", ctypes.c_long), ("output_frames", ctypes.c_long),
        ("input_frames_used", ctypes.c_long), ("output_frames_gen", ctypes.c_long),
        ("end_of_input", ctypes.c_int), ("src_ratio", ctypes.c_double),
    ]


def load(path: str):
    lib = ctypes.CDLL(path)
    lib.src_new.restype = ctypes.c_void_p
    lib.src_new.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
    lib.src_process.argtypes = [ctypes.c_void_p, ctypes.POINTER(SRC_DATA)]
    lib.src_delete.argtypes = [ctypes.c_void_p]
    lib.src_delete.restype = ctypes.c_void_p
    lib.src_get_version.restype = ctypes.c_char_p
    return lib


class CState:
    """One SRC_STATE driven with src_process, for frames used and for replays."""

    def __init__(self, lib, converter: int, channels: int):
        err = ctypes.c_int(0)
        self.lib, self.channels = lib, channels
        self.state = lib.src_new(converter, channels, ctypes.byref(err))
        assert self.state and err.value == 0, err.value

    def process(self, x: np.ndarray, capacity: int, end: bool, ratio: float):
        x = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
        keep = x if x.size else np.zeros(1, np.float32)  # never a null data_in
        out = np.zeros(max(capacity, 1) * self.channels, np.float32)
        d = SRC_DATA(keep.ctypes.data, out.ctypes.data, x.size // self.channels, capacity,
                     0, 0, int(end), ratio)
        err = self.lib.src_process(self.state, ctypes.byref(d))
        assert err == 0, err
        return d.input_frames_used, out[: d.output_frames_gen * self.channels].copy()

    def close(self):
        self.lib.src_delete(self.state)


def make_signal(rate: int, channels: int, frames: int, seed: int) -> np.ndarray:
    """Tones (one near the lower Nyquist), a little noise and a click, per channel."""
    rng = np.random.default_rng(seed)
    n = np.arange(frames)
    nyq = min(rate, OUTPUT_RATE) / 2
    cols = []
    for c in range(channels):
        f = [440.0 * (c + 1), 0.37 * nyq, 0.88 * nyq]
        a = [0.35, 0.2, 0.1]
        ph = rng.uniform(0, 2 * np.pi, 3)
        x = sum(a[i] * np.cos(2 * np.pi * f[i] * n / rate + ph[i]) for i in range(3))
        x = x + 0.01 * rng.standard_normal(frames)
        x[frames // 3 + c] += 0.25
        cols.append(x)
    return np.stack(cols, axis=1).astype(np.float32)


def run_sequence(x: np.ndarray, rate: int, block: int, conv: tuple, bundled):
    """Streams x through samplerate.Resampler; returns (calls, raw output)."""
    name, number, py_name = conv
    frames, channels = x.shape
    ratio = OUTPUT_RATE / rate
    silence_frames = -(-rate // OUTPUT_RATE) + 1
    rounded = (2 * frames * OUTPUT_RATE + rate) // (2 * rate)  # round half up, exactly
    r = samplerate.Resampler(py_name, channels=channels)
    twin = CState(bundled, number, channels)
    calls, outs = [], []

    def call(start: int, data: np.ndarray, end: bool):
        capacity = math.ceil(data.shape[0] * ratio)  # what the binding allocates
        got = np.asarray(r.process(data, ratio, end_of_input=end), dtype=np.float32)
        used, twin_out = twin.process(data, capacity, end, ratio)
        assert np.array_equal(got.reshape(-1), twin_out), (name, rate, "binding != C API")
        gen = got.shape[0]
        calls.append([start, data.shape[0], capacity, int(end), used, gen])
        outs.append(got.reshape(-1))
        return used, gen

    pos = 0
    while pos < frames:
        used, gen = call(pos, x[pos: pos + block], False)
        assert used > 0 or gen > 0, "no progress"
        pos += used
    total = sum(c[5] for c in calls)
    zeros = np.zeros((silence_frames, channels), np.float32)
    while True:
        _, gen = call(-1, zeros, True)
        total += gen
        if gen == 0 or total >= rounded + 16:
            break
    twin.close()
    raw = np.concatenate(outs) if outs else np.zeros(0, np.float32)
    return calls, raw, silence_frames, rounded


def replay(lib, x: np.ndarray, number: int, rate: int, silence_frames: int, calls) -> np.ndarray:
    """The recorded calls against another build of libsamplerate."""
    channels = x.shape[1]
    ratio = OUTPUT_RATE / rate
    s = CState(lib, number, channels)
    zeros = np.zeros((silence_frames, channels), np.float32)
    outs = []
    for start, count, capacity, end, used, gen in calls:
        data = zeros if start < 0 else x[start: start + count]
        u, o = s.process(data, capacity, bool(end), ratio)
        assert (u, o.size // channels) == (used, gen), ("replay counts differ", u, used)
        outs.append(o)
    s.close()
    return np.concatenate(outs)


FILES: dict[str, dict] = {}


def write(rel: str, data: np.ndarray) -> str:
    b = np.ascontiguousarray(data, dtype="<f4").tobytes()
    (OUT / rel).write_bytes(b)
    FILES[rel] = {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}
    return rel


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    bundled = load(samplerate.__file__)  # the binding exports libsamplerate's C API
    bundled_version = bundled.src_get_version().decode()
    system = None
    system_path = ctypes.util.find_library("samplerate")
    if system_path:
        system = load(system_path)

    vectors = []
    worst_system = 0.0
    for sig_name, rate, channels, frames, block, seed in SIGNALS:
        x = make_signal(rate, channels, frames, seed)
        in_file = write(f"{sig_name}_in.f32", x)
        for conv in CONVERTERS:
            calls, raw, silence_frames, rounded = run_sequence(x, rate, block, conv, bundled)
            out_file = write(f"{sig_name}_{conv[0]}.f32", raw)
            entry = {
                "name": f"{sig_name}_{conv[0]}", "converter": conv[0], "converterType": conv[1],
                "inputRate": rate, "outputRate": OUTPUT_RATE, "ratio": OUTPUT_RATE / rate,
                "channels": channels, "inputFrames": frames, "blockFrames": block,
                "flushSilenceFrames": silence_frames, "roundedOutputFrames": rounded,
                "inputFile": in_file, "outputFile": out_file,
                "outputFrames": int(raw.size // channels),
                "calls": calls,
            }
            if system is not None:
                again = replay(system, x, conv[1], rate, silence_frames, calls)
                diff = float(np.max(np.abs(again - raw))) if raw.size else 0.0
                entry["systemMaxAbsDifference"] = diff
                worst_system = max(worst_system, diff)
            vectors.append(entry)

    versions = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "samplerate": samplerate.__version__,
        "samplerateBundledLibsamplerate": samplerate.__libsamplerate_version__,
        "bundledSrcGetVersion": bundled_version,
        "systemLibrary": system_path,
        "systemSrcGetVersion": system.src_get_version().decode() if system else None,
        "machine": f"{platform.system()} {platform.machine()}",
    }
    exact = worst_system == 0.0 and system is not None
    manifest = {
        "generator": "generate_libsamplerate.py",
        "versions": versions,
        "sequence": __doc__.split("What it records\n---------------\n")[1].strip(),
        "callFields": ["inputStart", "inputFrames", "outputCapacity", "endOfInput",
                       "framesUsed", "framesGenerated"],
        "exactness": {
            "bundledVsSystemMaxAbsDifference": worst_system if system else None,
            "tolerance": 0.0 if exact else None,
            "note": (
                "The samplerate wheel links its own static build of libsamplerate; on this "
                "machine it and the system library report the same version, and replaying every "
                "recorded call against the system library gives bit-identical float32 output "
                "(largest difference 0). The Swift test therefore requires bit-identical output "
                "when the linked library's src_get_version() equals bundledSrcGetVersion. "
                "Another libsamplerate version, or a build with other floating-point code "
                "generation (fused multiply-add contraction, say), may differ in the last bits; "
                "the test then falls back to a 1e-5 absolute tolerance, which was not measured "
                "here."
                if exact else
                "The bundled and system builds differ; see systemMaxAbsDifference per vector."),
        },
        "vectors": vectors,
        "files": dict(sorted(FILES.items())),
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")

    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    assert total < 600 * 1024, total
    print(f"{len(vectors)} vectors, {len(FILES)} data files, {total} bytes in all")
    print("versions:", versions)
    print("bundled vs system, largest difference:", worst_system)


if __name__ == "__main__":
    main()
