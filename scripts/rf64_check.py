#!/usr/bin/env python3
"""Helpers for scripts/rf64-check.sh: the > 4 GiB round trip.

    rf64_check.py generate FRAMES        s16le mono samples v(i) on standard output
    rf64_check.py check-file PATH FRAMES  libsndfile (soundfile) reads PATH: RF64, FRAMES frames
                                          of f32 stereo, every sample v(i) / 32768 on both sides
    rf64_check.py check-stream FRAMES     a streamed s16 mono WAV on standard input holds v(i)

v(i) = (i * 40503) mod 65536 - 32768: 40503 is odd, so every 65,536 frames run through every
int16 value, extremes included, in a different order each time the index wraps.
"""

import sys
import time

import numpy as np

BLOCK = 1 << 22


def pattern(start: int, count: int) -> np.ndarray:
    i = np.arange(start, start + count, dtype=np.uint64)
    return ((i * np.uint64(40503)) % np.uint64(65536)).astype(np.int64) - 32768


def generate(frames: int) -> None:
    out = sys.stdout.buffer
    for start in range(0, frames, BLOCK):
        out.write(pattern(start, min(BLOCK, frames - start)).astype("<i2").tobytes())
    out.flush()


def check_file(path: str, frames: int) -> None:
    import soundfile as sf

    with open(path, "rb") as f:
        magic = f.read(4)
    assert magic == b"RF64", f"{path} starts with {magic!r}, not RF64"
    t0 = time.monotonic()
    bad = 0
    with sf.SoundFile(path) as f:
        assert f.format == "RF64", f.format
        assert f.subtype == "FLOAT" and f.channels == 2 and f.samplerate == 48000, (
            f.subtype, f.channels, f.samplerate)
        assert f.frames == frames, f"libsndfile sees {f.frames} frames, not {frames}"
        read = 0
        while True:
            x = f.read(BLOCK, dtype="float32", always_2d=True)
            if len(x) == 0:
                break
            want = (pattern(read, len(x)).astype(np.float32) / np.float32(32768))
            bad += int(np.count_nonzero(x[:, 0] != want) + np.count_nonzero(x[:, 1] != want))
            read += len(x)
        # A few samples by seeking, far into the file (past the 32-bit sizes).
        for at in (0, 536_870_911, 536_870_912, frames - 1):
            f.seek(at)
            x = f.read(1, dtype="float32", always_2d=True)
            assert x[0, 0] == x[0, 1] == pattern(at, 1)[0] / 32768, (at, x, pattern(at, 1))
    assert read == frames, f"libsndfile read {read} frames, not {frames}"
    assert bad == 0, f"{bad} samples differ"
    print(f"libsndfile {sf.__libsndfile_version__}: RF64 f32 stereo, {read:,} frames read, "
          f"every sample as written, 4 seeks past 2^29 frames exact ({time.monotonic() - t0:.1f} s)")


def read_exactly(stream, n: int) -> bytes:
    chunks = []
    while n > 0:
        b = stream.read(n)
        if not b:
            break
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def check_stream(frames: int) -> None:
    stream = sys.stdin.buffer
    header = read_exactly(stream, 44)
    assert header[:4] == b"RIFF" and header[8:16] == b"WAVEfmt ", header[:16]
    assert header[22:24] == b"\x01\x00" and header[34:36] == b"\x10\x00", "not s16 mono"
    read = 0
    bad = 0
    while True:
        b = read_exactly(stream, 2 * BLOCK)
        if not b:
            break
        x = np.frombuffer(b, dtype="<i2")
        bad += int(np.count_nonzero(x != pattern(read, len(x))))
        read += len(x)
    assert read == frames, f"the stream holds {read} frames, not {frames}"
    assert bad == 0, f"{bad} samples differ"
    print(f"pcm-mix convert of the RF64 file streamed {read:,} frames, every sample as written")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "generate":
        generate(int(sys.argv[2]))
    elif command == "check-file":
        check_file(sys.argv[2], int(sys.argv[3]))
    elif command == "check-stream":
        check_stream(int(sys.argv[2]))
    else:
        sys.exit(f"unknown command {command}")
