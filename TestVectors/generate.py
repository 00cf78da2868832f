#!/usr/bin/env python3
"""Reference test vectors for PCMMix.

Run from the repository root:

    python3 TestVectors/generate.py

The script owns and rewrites TestVectors/{wav,decode,channels,mix,resample,scene}/,
TestVectors/manifest.json and TestVectors/README.md.  Everything is computed
with numpy (and soxr where noted), independently of the Swift code.  It is
deterministic: every random draw comes from np.random.default_rng(<fixed seed>).
The Swift tests read only the files and manifest.json; they never run Python.

Raw files (.raw .f32 .s16) have no header, are interleaved and little-endian
unless the manifest says otherwise (decode/<type>.raw uses the byte order of
<type>; scene/app_s16be_44100_2.raw is big-endian; decode/s16le_planar.raw is
planar).

Vector families
---------------
wav       Hand-built WAV files (every header byte written with struct, never by
          an audio library).  Valid files: PCM u8/16/24/32, IEEE float 32/64,
          WAVE_FORMAT_EXTENSIBLE (PCM and float subformats, 2 and 6 channels),
          mono/stereo, rates 1 Hz ... 768000 Hz, unknown chunks (LIST, JUNK,
          fact, bext, id3) before/after 'fmt ' and after 'data' including odd
          sizes with pad bytes, data size 0, data size 0xFFFFFFFF (data runs to
          end of file), wrong RIFF sizes (ignored by readers), data chunks
          shorter than claimed (reported as truncated) and data sizes that are
          not a whole number of frames, all present (the stray bytes are
          counted, not reported as truncation).  Each valid file has a
          companion .f32 with the expected decoded float32 samples.  Broken
          files each carry one expected error name (notRIFF, notWAVE,
          truncatedHeader,
          dataBeforeFormat, formatChunkMissing, formatChunkTooShort,
          missingDataChunk, unsupportedEncoding (+ encodingName),
          unsupportedBitDepth, zeroChannels, invalidSampleRate,
          blockAlignMismatch).
decode    For each of the 11 sample types (u8 s16le s16be s24le s24be s32le
          s32be f32le f32be f64le f64be) a stereo raw input containing the
          type's extremes plus random values, and the expected float32 output.
          Plus a planar s16le case (all left samples, then all right samples)
          whose expected output is interleaved.
encode    float32 -> int16 with round-to-nearest, ties toward zero, then clamp.
          Inputs include exact halves, their float32 neighbours, +-1.0, +-1.5,
          +-0.0 and random values.
channels  Mono s16le -> stereo s16le, L = R = x.
mix       Stereo s16le app + mic streams (full-range random, all pairings of
          int16 extremes, negative odd sums) and the expected 'average'
          (trunc((a+b)/2) toward zero) and 'saturate' (clip(a+b)) outputs.
resample  Stereo float32 sums of sines at 8000 ... 96000 Hz; expected output is
          the same sines evaluated analytically at the 48 kHz output instants
          (output frame j <-> time j/48000).  Compared by SNR in the middle of
          the signal.  The SNR that soxr VHQ reaches is recorded for
          information.
scene     A ReplayKit-shaped capture: 44.1 kHz stereo big-endian int16 app
          audio in 1024-frame buffers and 32 kHz mono little-endian int16 mic
          audio in uneven buffers.  Expected 48 kHz stereo average mix computed
          with soxr VHQ.  Compared by SNR.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import shutil
import struct
import sys
import uuid
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import scipy
import scipy.io.wavfile
import soundfile
import soxr

try:
    import samplerate  # only for the version record; not used
    SAMPLERATE_VERSION = getattr(samplerate, "__version__", "unknown")
except Exception:  # pragma: no cover
    SAMPLERATE_VERSION = "not installed"

ROOT = Path(__file__).resolve().parent
FAMILY_DIRS = ["wav", "decode", "channels", "mix", "resample", "scene"]
OUT_RATE = 48000

TYPES = ["u8", "s16le", "s16be", "s24le", "s24be", "s32le", "s32be",
         "f32le", "f32be", "f64le", "f64be"]
BYTES_PER_SAMPLE = {"u8": 1, "s16": 2, "s24": 3, "s32": 4, "f32": 4, "f64": 8}

F32 = np.float32


def base_type(t: str) -> str:
    return t[:3] if t != "u8" else "u8"


def is_big(t: str) -> bool:
    return t.endswith("be")


def bps(t: str) -> int:
    return BYTES_PER_SAMPLE[base_type(t)]


# ---------------------------------------------------------------------------
# Sample encoding (native values -> bytes) and reference decoding (bytes -> f32)
# ---------------------------------------------------------------------------

def encode_samples(values, t: str) -> bytes:
    """values: ints for integer types (u8 as 0..255), floats for float types."""
    b = base_type(t)
    e = ">" if is_big(t) else "<"
    if len(values) == 0:
        return b""
    if b == "u8":
        v = np.asarray(values, dtype=np.int64)
        assert v.min() >= 0 and v.max() <= 255
        return v.astype(np.uint8).tobytes()
    if b == "s16":
        v = np.asarray(values, dtype=np.int64)
        assert v.min() >= -32768 and v.max() <= 32767
        return v.astype(e + "i2").tobytes()
    if b == "s24":
        v = np.asarray(values, dtype=np.int64)
        assert v.min() >= -(1 << 23) and v.max() <= (1 << 23) - 1
        u = (v & 0xFFFFFF).astype(np.uint32)
        lo, mid, hi = (u & 0xFF), ((u >> 8) & 0xFF), ((u >> 16) & 0xFF)
        order = (hi, mid, lo) if is_big(t) else (lo, mid, hi)
        return np.stack(order, axis=1).astype(np.uint8).tobytes()
    if b == "s32":
        v = np.asarray(values, dtype=np.int64)
        assert v.min() >= -(1 << 31) and v.max() <= (1 << 31) - 1
        return v.astype(e + "i4").tobytes()
    if b == "f32":
        return np.asarray(values, dtype=np.float32).astype(e + "f4").tobytes()
    if b == "f64":
        return np.asarray(values, dtype=np.float64).astype(e + "f8").tobytes()
    raise ValueError(t)


def decode_reference(raw: bytes, t: str) -> np.ndarray:
    """The library's decoding rules, computed from the bytes with numpy."""
    b = base_type(t)
    e = ">" if is_big(t) else "<"
    if b == "u8":
        x = np.frombuffer(raw, dtype=np.uint8).astype(np.float32)
        return ((x - F32(128)) / F32(128)).astype(np.float32)
    if b == "s16":
        x = np.frombuffer(raw, dtype=e + "i2").astype(np.float32)
        return (x / F32(32768)).astype(np.float32)
    if b == "s24":
        a = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        if is_big(t):
            u = (a[:, 0] << 16) | (a[:, 1] << 8) | a[:, 2]
        else:
            u = a[:, 0] | (a[:, 1] << 8) | (a[:, 2] << 16)
        s = (u ^ 0x800000) - 0x800000
        return (s.astype(np.float32) / F32(8388608)).astype(np.float32)
    if b == "s32":
        x = np.frombuffer(raw, dtype=e + "i4").astype(np.int32)
        return (x.astype(np.float32) / F32(2147483648.0)).astype(np.float32)
    if b == "f32":
        return np.frombuffer(raw, dtype=e + "f4").astype(np.float32)
    if b == "f64":
        return np.frombuffer(raw, dtype=e + "f8").astype(np.float32)
    raise ValueError(t)


def f32_bytes(x) -> bytes:
    return np.asarray(x, dtype=np.float32).astype("<f4").tobytes()


def check_decode_independently(raw: bytes, t: str, got: np.ndarray) -> None:
    """Second, scalar implementation of the decode rules (struct + Python)."""
    b = base_type(t)
    n = len(raw) // bps(t)
    e = ">" if is_big(t) else "<"
    for i in range(n):
        chunk = raw[i * bps(t):(i + 1) * bps(t)]
        if b == "u8":
            exp = (chunk[0] - 128) / 128.0
        elif b == "s16":
            exp = struct.unpack(e + "h", chunk)[0] / 32768.0
        elif b == "s24":
            exp = int.from_bytes(chunk, "big" if is_big(t) else "little", signed=True) / 8388608.0
        elif b == "s32":
            v = struct.unpack(e + "i", chunk)[0]
            exp = struct.unpack("<f", struct.pack("<f", float(v)))[0] / 2147483648.0
        elif b == "f32":
            exp = struct.unpack(e + "f", chunk)[0]
        else:
            d = struct.unpack(e + "d", chunk)[0]
            exp = struct.unpack("<f", struct.pack("<f", d))[0]
        g = float(got[i])
        assert g == exp and math.copysign(1, g) == math.copysign(1, exp), (t, i, g, exp)


# ---------------------------------------------------------------------------
# Native-value generators with extremes
# ---------------------------------------------------------------------------

INT_EXTREMES = {
    "u8": [0, 255, 128, 127, 129, 1, 254],
    "s16": [-32768, 32767, 0, -1, 1, -32767, 32766],
    "s24": [-8388608, 8388607, 0, -1, 1, -8388607, 8388606],
    "s32": [-2147483648, 2147483647, 0, -1, 1, -2147483647, 2147483646,
            # float32 rounding cases (round to nearest, ties to even)
            (1 << 24) + 1, -((1 << 24) + 1), (1 << 24) + 3, (1 << 25) + 2,
            (1 << 25) + 6, 0x7FFFFFC0, 0x7FFFFFBF, 0x7FFFFFC1, -0x7FFFFFC0,
            0x7FFFFF80, 0x7FFFFF40, 0x7FFFFF3F, 16777215, 12345678, -87654321],
}
INT_RANGE = {"u8": (0, 255), "s16": (-32768, 32767),
             "s24": (-8388608, 8388607), "s32": (-2147483648, 2147483647)}

FLOAT_SPECIALS = [1.0, -1.0, 0.5, -0.5, 0.0, -0.0, 1.5, -1.5, 2.0, -2.0,
                  0.25, -0.75, 100.0, -100.0, 1e10, -1e10,
                  1e-30, -1e-30, 1e-20, -3e-8, 1.1754943508222875e-38,  # FLT_MIN (normal)
                  float(np.nextafter(F32(1), F32(2))), float(np.nextafter(F32(1), F32(0))),
                  float(np.nextafter(F32(-1), F32(-2))), 32767 / 32768, -32767 / 32768]
F64_ROUNDING = [1 + 2.0 ** -24,            # tie -> 1.0 (even)
                1 + 3 * 2.0 ** -24,        # tie -> 1 + 2^-22 (even)
                1 + 2.0 ** -24 + 2.0 ** -40,  # just above tie -> 1 + 2^-23
                -(1 + 2.0 ** -24), 0.1, -0.1, 1 / 3, -2 / 3, 2e-38, -1e-37,
                0.5 + 2.0 ** -26, 1.5 - 2.0 ** -25]


def make_values(t: str, n: int, rng: np.random.Generator, float_scale=1.25):
    b = base_type(t)
    if b in INT_RANGE:
        lo, hi = INT_RANGE[b]
        ext = INT_EXTREMES[b]
        rnd = rng.integers(lo, hi, size=max(0, n - len(ext)), endpoint=True)
        v = np.concatenate([np.array(ext[:n], dtype=np.int64), rnd.astype(np.int64)])
        return v[:n]
    specials = list(FLOAT_SPECIALS)
    if b == "f64":
        specials += F64_ROUNDING
    rnd = rng.uniform(-float_scale, float_scale, size=max(0, n - len(specials)))
    v = np.concatenate([np.array(specials[:n], dtype=np.float64), rnd])[:n]
    return v.astype(np.float32) if b == "f32" else v


# ---------------------------------------------------------------------------
# File bookkeeping
# ---------------------------------------------------------------------------

FILES: dict[str, dict] = {}


def write_file(rel: str, data: bytes) -> str:
    p = ROOT / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    FILES[rel] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return rel


# ---------------------------------------------------------------------------
# WAV construction (by hand with struct)
# ---------------------------------------------------------------------------

def guid(s: str) -> bytes:
    return uuid.UUID(s).bytes_le


GUID_PCM = guid("00000001-0000-0010-8000-00aa00389b71")
GUID_FLOAT = guid("00000003-0000-0010-8000-00aa00389b71")
GUID_UNKNOWN = guid("a1b2c3d4-0bad-4f00-8e11-5057c0ffee00")  # made up, not a KSDATAFORMAT subtype

MASK = {1: 0x4, 2: 0x3, 6: 0x3F}


def fmt_basic(tag, ch, rate, bits, block_align=None, byte_rate=None, cb=None, extra=b""):
    ba = ch * ((bits + 7) // 8) if block_align is None else block_align
    br = (rate * ba) & 0xFFFFFFFF if byte_rate is None else byte_rate
    p = struct.pack("<HHIIHH", tag, ch, rate, br, ba, bits)
    if cb is not None:
        p += struct.pack("<H", cb) + extra
    return p


def fmt_ext(ch, rate, bits, sub, valid_bits=None, mask=None):
    vb = bits if valid_bits is None else valid_bits
    m = MASK.get(ch, 0) if mask is None else mask
    return fmt_basic(0xFFFE, ch, rate, bits, cb=22, extra=struct.pack("<HI", vb, m) + sub)


class Wav:
    """Accumulates chunks after the 12-byte RIFF header; records offsets."""

    def __init__(self, magic=b"RIFF", form=b"WAVE", big=False):
        self.magic, self.form, self.big = magic, form, big
        self.body = bytearray()
        self.data_offset = None
        self.data_size_field = None

    def chunk(self, cid: bytes, payload: bytes, size=None, pad=True):
        assert len(cid) == 4
        sz = len(payload) if size is None else size
        self.body += cid + struct.pack(">I" if self.big else "<I", sz)
        off = 12 + len(self.body)
        self.body += payload
        if pad and len(payload) % 2 == 1:
            self.body += b"\x00"
        if cid == b"data" and self.data_offset is None:
            self.data_offset, self.data_size_field = off, sz
        return off

    def raw(self, b: bytes):
        self.body += b

    def build(self, riff_size=None) -> bytes:
        rs = 4 + len(self.body) if riff_size is None else riff_size
        self.riff_size_field = rs
        return self.magic + struct.pack(">I" if self.big else "<I", rs) + self.form + bytes(self.body)


def list_info(text: str) -> bytes:
    s = text.encode() + b"\x00"
    sub = b"ISFT" + struct.pack("<I", len(s)) + s + (b"\x00" if len(s) % 2 else b"")
    return b"INFO" + sub


WAV_TYPE = {("pcm", 8): "u8", ("pcm", 16): "s16le", ("pcm", 24): "s24le",
            ("pcm", 32): "s32le", ("float", 32): "f32le", ("float", 64): "f64le"}


def wav_vectors(rng: np.random.Generator) -> list[dict]:
    vectors = []

    def valid(name, desc, kind, bits, ch, rate, frames, *, ext=False, fmt_cb=None,
              before=(), after_fmt=(), after_data=(), data_size=None,
              present_frames=None, extra_bytes=b"", riff_size=None,
              truncated=False, claimed_frames=None, pad_data=True, notes=None, stray_bytes=0):
        t = WAV_TYPE[(kind, bits)]
        n_present = frames if present_frames is None else present_frames
        vals = make_values(t, n_present * ch, rng, float_scale=1.1)
        data = encode_samples(vals, t) + extra_bytes
        w = Wav()
        for cid, payload, *rest in before:
            w.chunk(cid, payload, **(rest[0] if rest else {}))
        tag = 1 if kind == "pcm" else 3
        if ext:
            fmt = fmt_ext(ch, rate, bits, GUID_PCM if kind == "pcm" else GUID_FLOAT)
        else:
            fmt = fmt_basic(tag, ch, rate, bits, cb=fmt_cb)
        w.chunk(b"fmt ", fmt)
        for cid, payload, *rest in after_fmt:
            w.chunk(cid, payload, **(rest[0] if rest else {}))
        w.chunk(b"data", data, size=data_size, pad=pad_data)
        for cid, payload, *rest in after_data:
            w.chunk(cid, payload, **(rest[0] if rest else {}))
        blob = w.build(riff_size)
        path = write_file(f"wav/{name}.wav", blob)
        usable = n_present * ch * bps(t)
        expected = decode_reference(data[:usable], t)
        check_decode_independently(data[:usable], t, expected)
        sfile = write_file(f"wav/{name}.f32", f32_bytes(expected))
        v = {
            "name": f"wav_{name}", "family": "wav", "description": desc,
            "method": "WAV bytes written by hand with struct; expected samples decoded from the "
                      "data bytes with numpy using the library's decode rules (cross-checked "
                      "with a scalar struct-based decoder).",
            "tolerance": "exact", "file": path, "valid": True,
            "formatTag": 0xFFFE if ext else tag, "bitsPerSample": bits,
            "sampleRate": rate, "channels": ch, "sampleType": t,
            "frames": n_present, "dataOffset": w.data_offset,
            "blockAlign": ch * bps(t),
            "dataSizeField": w.data_size_field, "riffSizeField": w.riff_size_field,
            "truncated": truncated, "samplesFile": sfile,
        }
        if truncated:
            v["claimedFrames"] = claimed_frames
        if stray_bytes:
            v["strayBytes"] = stray_bytes
        if notes:
            v["notes"] = notes
        vectors.append(v)

    # --- plain PCM / float -------------------------------------------------
    valid("pcm_u8_mono_8000", "PCM 8-bit unsigned, mono, 8000 Hz", "pcm", 8, 1, 8000, 32)
    valid("pcm_u8_stereo_22050", "PCM 8-bit unsigned, stereo, 22050 Hz", "pcm", 8, 2, 22050, 24)
    valid("pcm_s16_mono_8000", "PCM 16-bit, mono, 8000 Hz", "pcm", 16, 1, 8000, 32)
    valid("pcm_s16_stereo_44100", "PCM 16-bit, stereo, 44100 Hz", "pcm", 16, 2, 44100, 24)
    valid("pcm_s24_mono_22050", "PCM 24-bit packed, mono, 22050 Hz", "pcm", 24, 1, 22050, 32)
    valid("pcm_s24_stereo_96000", "PCM 24-bit packed, stereo, 96000 Hz", "pcm", 24, 2, 96000, 24)
    valid("pcm_s32_stereo_48000", "PCM 32-bit, stereo, 48000 Hz (exercises float32 rounding)",
          "pcm", 32, 2, 48000, 24)
    valid("pcm_s32_mono_192000", "PCM 32-bit, mono, 192000 Hz", "pcm", 32, 1, 192000, 32)
    valid("float_f32_mono_44100", "IEEE float 32-bit (tag 3), 16-byte fmt, mono, 44100 Hz",
          "float", 32, 1, 44100, 32)
    valid("float_f32_stereo_48000_fact",
          "IEEE float 32-bit, 18-byte fmt (cbSize 0), fact chunk after fmt, stereo, 48000 Hz",
          "float", 32, 2, 48000, 24, fmt_cb=0,
          after_fmt=[(b"fact", struct.pack("<I", 24))])
    valid("float_f64_stereo_96000_fact",
          "IEEE float 64-bit, 18-byte fmt (cbSize 0), fact chunk, stereo, 96000 Hz",
          "float", 64, 2, 96000, 16, fmt_cb=0,
          after_fmt=[(b"fact", struct.pack("<I", 16))])
    valid("float_f64_mono_192000", "IEEE float 64-bit, 16-byte fmt, mono, 192000 Hz",
          "float", 64, 1, 192000, 32)
    # --- extensible ----------------------------------------------------------
    valid("ext_s16_stereo_44100", "WAVE_FORMAT_EXTENSIBLE PCM 16-bit, stereo, 44100 Hz",
          "pcm", 16, 2, 44100, 24, ext=True)
    valid("ext_s16_mono_8000", "WAVE_FORMAT_EXTENSIBLE PCM 16-bit, mono (mask 0x4), 8000 Hz",
          "pcm", 16, 1, 8000, 16, ext=True)
    valid("ext_s24_stereo_48000", "WAVE_FORMAT_EXTENSIBLE PCM 24-bit, stereo, 48000 Hz",
          "pcm", 24, 2, 48000, 24, ext=True)
    valid("ext_s32_stereo_96000", "WAVE_FORMAT_EXTENSIBLE PCM 32-bit, stereo, 96000 Hz",
          "pcm", 32, 2, 96000, 16, ext=True)
    valid("ext_f32_stereo_192000", "WAVE_FORMAT_EXTENSIBLE IEEE float 32-bit, stereo, 192000 Hz",
          "float", 32, 2, 192000, 16, ext=True,
          after_fmt=[(b"fact", struct.pack("<I", 16))])
    valid("ext_s24_6ch_48000", "WAVE_FORMAT_EXTENSIBLE PCM 24-bit, 6 channels (mask 0x3F), 48000 Hz",
          "pcm", 24, 6, 48000, 12, ext=True)
    # --- sample-rate bounds --------------------------------------------------
    valid("pcm_s16_mono_768000", "PCM 16-bit mono at 768000 Hz (upper bound of accepted range)",
          "pcm", 16, 1, 768000, 16)
    valid("pcm_u8_mono_1hz", "PCM 8-bit mono at 1 Hz (lower bound of accepted range)",
          "pcm", 8, 1, 1, 8)
    # --- extra chunks ----------------------------------------------------------
    valid("chunks_around_fmt",
          "PCM 16-bit stereo 44100 Hz with LIST and JUNK before 'fmt ', fact and an ODD-sized "
          "(13-byte) bext chunk + pad byte after 'fmt ', and an odd-sized 'id3 ' chunk + pad "
          "after 'data'",
          "pcm", 16, 2, 44100, 20,
          before=[(b"LIST", list_info("PCMMix test")), (b"JUNK", bytes(28))],
          after_fmt=[(b"fact", struct.pack("<I", 20)), (b"bext", b"PCMMix-bext!!")],
          after_data=[(b"id3 ", b"ID3\x04\x00\x00\x00\x00\x00")])
    valid("odd_chunk_before_fmt",
          "PCM 24-bit mono 48000 Hz; an unknown 'abcd' chunk of ODD size 7 (+ pad byte) and a "
          "LIST chunk come before 'fmt '",
          "pcm", 24, 1, 48000, 16,
          before=[(b"abcd", b"\x01\x02\x03\x04\x05\x06\x07"), (b"LIST", list_info("x"))])
    valid("trailing_list_after_data",
          "PCM 16-bit mono 22050 Hz with a LIST chunk after 'data' (must not be read as audio)",
          "pcm", 16, 1, 22050, 24, after_data=[(b"LIST", list_info("after data"))])
    # --- size fields ------------------------------------------------------------
    valid("data_size_zero", "PCM 16-bit stereo 48000 Hz with an empty data chunk (size 0)",
          "pcm", 16, 2, 48000, 0)
    valid("data_size_ffffffff",
          "Streaming writer: data size 0xFFFFFFFF and RIFF size 0xFFFFFFFF; samples run to end "
          "of file (32 whole frames). Not truncated.",
          "pcm", 16, 2, 48000, 32, data_size=0xFFFFFFFF, riff_size=0xFFFFFFFF)
    valid("data_size_ffffffff_f32",
          "Streaming writer, IEEE float 32 mono 44100 Hz: data size 0xFFFFFFFF, correct RIFF "
          "size; 20 frames to end of file",
          "float", 32, 1, 44100, 20, data_size=0xFFFFFFFF)
    valid("riff_size_ffffffff", "RIFF size 0xFFFFFFFF, everything else correct (RIFF size is ignored)",
          "pcm", 16, 2, 44100, 16, riff_size=0xFFFFFFFF)
    valid("riff_size_zero", "RIFF size 0, everything else correct (RIFF size is ignored)",
          "pcm", 16, 1, 44100, 16, riff_size=0)
    valid("riff_size_too_large", "RIFF size 100000 bytes larger than the file (ignored)",
          "pcm", 24, 2, 48000, 16, riff_size=100000)
    valid("riff_size_too_small", "RIFF size 4 (covers only 'WAVE'); ignored",
          "pcm", 16, 2, 48000, 16, riff_size=4)
    # --- truncation ------------------------------------------------------------
    valid("truncated_data",
          "PCM 16-bit stereo 44100 Hz; data chunk claims 64 frames but the file ends after 40",
          "pcm", 16, 2, 44100, 64, data_size=64 * 4, present_frames=40,
          truncated=True, claimed_frames=64)
    valid("truncated_data_partial_tail",
          "PCM 24-bit stereo 48000 Hz; data claims 64 frames, file ends after 40 frames + 4 "
          "bytes of a 41st (partial frame ignored)",
          "pcm", 24, 2, 48000, 64, data_size=64 * 6, present_frames=40,
          extra_bytes=b"\x11\x22\x33\x44", truncated=True, claimed_frames=64)
    valid("partial_frame",
          "PCM 16-bit stereo 44100 Hz; data size 83 = 20 frames + 3 bytes, all present, no pad "
          "byte, end of file. frames = floor(83/4) = 20, the 3 stray bytes ignored and counted "
          "(strayBytes 3), not truncated",
          "pcm", 16, 2, 44100, 20, present_frames=20, extra_bytes=b"\x01\x02\x03",
          stray_bytes=3, pad_data=False)
    valid("partial_frame_then_chunk",
          "PCM 32-bit mono 8000 Hz; data size 30 = 7 frames + 2 bytes, followed (it is even, no "
          "pad) by a LIST chunk. frames = 7, 2 stray bytes, not truncated",
          "pcm", 32, 1, 8000, 7, present_frames=7, extra_bytes=b"\x7f\x7f",
          stray_bytes=2, after_data=[(b"LIST", list_info("tail"))])

    # --- broken files ----------------------------------------------------------
    def broken(name, desc, blob, error, encoding_name=None, **extra):
        path = write_file(f"wav/{name}.wav", blob)
        v = {"name": f"wav_{name}", "family": "wav", "description": desc,
             "method": "WAV bytes written by hand with struct; expected error chosen by the "
                       "generator (see conventions.wav).",
             "tolerance": "exact", "file": path, "valid": False, "error": error}
        if encoding_name is not None:
            v["encodingName"] = encoding_name
        v.update(extra)
        vectors.append(v)

    pcm16 = fmt_basic(1, 2, 44100, 16)
    some_data = encode_samples(make_values("s16le", 16, rng), "s16le")

    def simple(fmt_payload, data=some_data, magic=b"RIFF", form=b"WAVE", before=()):
        w = Wav(magic, form)
        for cid, payload in before:
            w.chunk(cid, payload)
        w.chunk(b"fmt ", fmt_payload)
        w.chunk(b"data", data)
        return w.build()

    ogg = b"OggS\x00\x02" + bytes(8) + struct.pack("<I", 0x1234) + bytes(4) + b"\x00\x00\x00\x00\x01\x1e" \
        + b"\x01vorbis" + bytes(23)
    broken("err_notriff_ogg", "Ogg file header ('OggS')", ogg, "notRIFF")
    rb = bytearray(rng.integers(0, 256, size=64, dtype=np.uint8).tobytes())
    if rb[:4] in (b"RIFF", b"RIFX", b"RF64", b"BW64", b"caff"):
        rb[0] = 0
    broken("err_notriff_random", "64 random bytes", bytes(rb), "notRIFF")
    broken("err_notriff_lowercase", "A valid file but with lowercase 'riff' magic (FourCCs are case-sensitive)",
           simple(pcm16, magic=b"riff"), "notRIFF")

    # RIFX is read now: its vectors are in generate_containers.py. The draw stays, so that
    # every later vector keeps its values.
    make_values("s16le", 16, rng)

    wa = Wav(b"RIFF", b"AVI ")
    wa.chunk(b"LIST", b"hdrl" + b"avih" + struct.pack("<I", 56) + bytes(56))
    broken("err_notwave_avi", "RIFF file with form type 'AVI '", wa.build(), "notWAVE")

    broken("err_trunc_empty", "Empty file (0 bytes)", b"", "truncatedHeader")
    broken("err_trunc_3bytes", "3-byte file 'RIF'", b"RIF", "truncatedHeader")
    broken("err_trunc_riff_8bytes", "File ends after 'RIFF' + size (inside the 12-byte RIFF header)",
           b"RIFF" + struct.pack("<I", 36), "truncatedHeader")
    broken("err_trunc_riff_11bytes", "File ends inside the form type ('RIFF' size 'WAV')",
           b"RIFF" + struct.pack("<I", 36) + b"WAV", "truncatedHeader")
    broken("err_trunc_chunk_header_first",
           "File ends inside the first chunk header ('RIFF' size 'WAVE' 'fmt ' + 2 bytes of size)",
           b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt \x10\x00", "truncatedHeader")
    w = Wav()
    w.chunk(b"fmt ", pcm16)
    w.raw(b"da")
    broken("err_trunc_chunk_header_after_fmt",
           "Valid 'fmt ' chunk, then the file ends inside the next chunk header ('da')",
           w.build(), "truncatedHeader")
    blob = b"RIFF" + struct.pack("<I", 36) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + pcm16[:10]
    broken("err_trunc_in_fmt", "'fmt ' chunk claims 16 bytes, file ends after 10 of them",
           blob, "truncatedHeader")
    w = Wav()
    w.chunk(b"fmt ", pcm16)
    w.raw(b"LIST" + struct.pack("<I", 1000) + list_info("short"))
    broken("err_trunc_list_overrun",
           f"Valid 'fmt ', then a LIST chunk claiming 1000 bytes with only {len(list_info('short'))} "
           "present; no data chunk",
           w.build(), "truncatedHeader")
    w = Wav()
    w.raw(b"LIST" + struct.pack("<I", 1000) + list_info("short"))
    broken("err_trunc_list_overrun_before_fmt",
           f"First chunk is a LIST claiming 1000 bytes with only {len(list_info('short'))} present "
           "(no fmt, no data)",
           w.build(), "truncatedHeader")

    w = Wav()
    w.chunk(b"data", some_data)
    w.chunk(b"fmt ", pcm16)
    broken("err_data_before_fmt", "'data' chunk precedes 'fmt '", w.build(), "dataBeforeFormat")

    w = Wav()
    w.chunk(b"LIST", list_info("no format here"))
    broken("err_fmt_missing", "RIFF/WAVE containing only a LIST chunk (no fmt, no data)",
           w.build(), "formatChunkMissing")

    broken("err_fmt_too_short_14", "'fmt ' chunk of size 14 (old WAVEFORMAT without wBitsPerSample)",
           simple(pcm16[:14]), "formatChunkTooShort")
    ext18 = fmt_basic(0xFFFE, 2, 48000, 16, cb=22)  # 18 bytes: cbSize says 22 but nothing follows
    broken("err_fmt_ext_too_short_18",
           "WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk of size 18 (cbSize field = 22, extension missing)",
           simple(ext18), "formatChunkTooShort")

    w = Wav()
    w.chunk(b"fmt ", pcm16)
    w.chunk(b"LIST", list_info("no data"))
    broken("err_missing_data", "'fmt ' and LIST chunks, no 'data' chunk", w.build(), "missingDataChunk")
    w = Wav()
    w.chunk(b"fmt ", pcm16)
    broken("err_missing_data_fmt_only", "Only a 'fmt ' chunk", w.build(), "missingDataChunk")

    # unsupported encodings (realistic fmt chunks for each codec)
    ulaw = fmt_basic(7, 1, 8000, 8, cb=0)
    alaw = fmt_basic(6, 1, 8000, 8, cb=0)
    coefs = [(256, 0), (512, -256), (0, 0), (192, 64), (240, 0), (460, -208), (392, -232)]
    msadpcm = fmt_basic(2, 1, 22050, 4, block_align=512, byte_rate=11155, cb=32,
                        extra=struct.pack("<HH", 1012, 7) + b"".join(struct.pack("<hh", *c) for c in coefs))
    ima = fmt_basic(0x11, 1, 22050, 4, block_align=512, byte_rate=11100, cb=2,
                    extra=struct.pack("<H", 1017))
    mpeg = fmt_basic(0x50, 2, 44100, 0, block_align=1, byte_rate=16000, cb=22,
                     extra=struct.pack("<HIHHHHHII", 2, 128000, 1, 0, 1, 0x1C, 0, 0, 0))
    mp3 = fmt_basic(0x55, 2, 44100, 0, block_align=1, byte_rate=16000, cb=12,
                    extra=struct.pack("<HIHHH", 1, 2, 417, 1, 1393))
    extu = fmt_ext(2, 44100, 16, GUID_UNKNOWN)
    for nm, f, en, d in [
        ("ulaw", ulaw, "mu-law", "G.711 mu-law, format tag 7"),
        ("alaw", alaw, "A-law", "G.711 A-law, format tag 6"),
        ("msadpcm", msadpcm, "ADPCM", "Microsoft ADPCM, format tag 2 (4 bits, 50-byte fmt)"),
        ("imaadpcm", ima, "IMA ADPCM", "IMA/DVI ADPCM, format tag 0x11 (4 bits)"),
        ("mpeg", mpeg, "MPEG", "MPEG-1 audio, format tag 0x50"),
        ("mp3", mp3, "MPEG Layer 3", "MPEG Layer 3, format tag 0x55"),
        ("ext_unknown_guid", extu, "extensible subformat",
         "WAVE_FORMAT_EXTENSIBLE 16-bit stereo with an unknown SubFormat GUID "
         "{a1b2c3d4-0bad-4f00-8e11-5057c0ffee00}"),
    ]:
        tag = struct.unpack("<H", f[:2])[0]
        broken(f"err_encoding_{nm}", d, simple(f), "unsupportedEncoding", en, formatTag=tag)

    # PCM 12-bit in 2-byte containers is read now (generate_containers.py); 40 bits fit none.
    broken("err_bitdepth_pcm40", "PCM 40-bit stereo (blockAlign 10: no container holds 40 bits)",
           simple(fmt_basic(1, 2, 44100, 40)), "unsupportedBitDepth", bitsPerSample=40)
    broken("err_bitdepth_float16", "IEEE float 16-bit stereo (half floats are not supported)",
           simple(fmt_basic(3, 2, 44100, 16)), "unsupportedBitDepth", bitsPerSample=16)
    broken("err_bitdepth_pcm0", "PCM 0-bit stereo (blockAlign 0, byteRate 0)",
           simple(fmt_basic(1, 2, 44100, 0)), "unsupportedBitDepth", bitsPerSample=0)
    broken("err_zero_channels", "PCM 16-bit with 0 channels (blockAlign 0, byteRate 0)",
           simple(fmt_basic(1, 0, 44100, 16)), "zeroChannels")
    for r in (0, 768001, 1000000):
        broken(f"err_sample_rate_{r}", f"PCM 16-bit stereo at {r} Hz (accepted range 1 ... 768000)",
               simple(fmt_basic(1, 2, r, 16)), "invalidSampleRate", sampleRate=r)
    broken("err_block_align", "PCM 16-bit stereo with blockAlign 2 (should be 4)",
           simple(fmt_basic(1, 2, 44100, 16, block_align=2)), "blockAlignMismatch")
    return vectors


ENCODING_NAMES = {7: "mu-law", 6: "A-law", 2: "ADPCM", 0x11: "IMA ADPCM", 0x50: "MPEG",
                  0x55: "MPEG Layer 3"}


class ProbeError(Exception):
    def __init__(self, error, encoding_name=None):
        super().__init__(error)
        self.error, self.encoding_name = error, encoding_name


def reference_probe(b: bytes) -> dict:
    """A minimal reader implementing conventions.wav, used only to check that
    every wav vector's expectation follows one coherent algorithm."""
    if len(b) < 4:
        raise ProbeError("truncatedHeader")
    if b[:4] != b"RIFF":
        raise ProbeError("notRIFF")
    if len(b) < 12:
        raise ProbeError("truncatedHeader")
    if b[8:12] != b"WAVE":
        raise ProbeError("notWAVE")
    pos, fmt = 12, None
    while pos < len(b):
        if pos + 8 > len(b):
            raise ProbeError("truncatedHeader")
        cid, size = b[pos:pos + 4], struct.unpack("<I", b[pos + 4:pos + 8])[0]
        body = pos + 8
        if cid == b"data":
            if fmt is None:
                raise ProbeError("dataBeforeFormat")
            ba = fmt["blockAlign"]
            avail = len(b) - body
            stray = 0
            if size == 0xFFFFFFFF:
                frames, truncated = avail // ba, False
            else:
                frames = min(avail, size) // ba
                truncated = avail < size
                stray = 0 if truncated else size % ba
            r = dict(fmt, frames=frames, dataOffset=body, truncated=truncated)
            if truncated:
                r["claimedFrames"] = size // ba
            if stray:
                r["strayBytes"] = stray
            return r
        if body + size > len(b):
            raise ProbeError("truncatedHeader")
        if cid == b"fmt ":
            if size < 16:
                raise ProbeError("formatChunkTooShort")
            tag, ch, rate, _br, ba, bits = struct.unpack("<HHIIHH", b[body:body + 16])
            if tag == 0xFFFE:
                if size < 40:
                    raise ProbeError("formatChunkTooShort")
                sub = b[body + 24:body + 40]
                kind = {GUID_PCM: "pcm", GUID_FLOAT: "float"}.get(sub)
                if kind is None:
                    raise ProbeError("unsupportedEncoding", "extensible subformat")
            elif tag in (1, 3):
                kind = "pcm" if tag == 1 else "float"
            else:
                raise ProbeError("unsupportedEncoding", ENCODING_NAMES.get(tag, f"format 0x{tag:04X}"))
            if ch == 0:
                raise ProbeError("zeroChannels")
            if not 1 <= rate <= 768000:
                raise ProbeError("invalidSampleRate")
            if (kind, bits) not in WAV_TYPE:
                raise ProbeError("unsupportedBitDepth")
            if ba != ch * bits // 8:
                raise ProbeError("blockAlignMismatch")
            fmt = {"sampleRate": rate, "channels": ch, "sampleType": WAV_TYPE[(kind, bits)],
                   "blockAlign": ba, "formatTag": tag, "bitsPerSample": bits}
        pos = body + size + (size & 1)
    raise ProbeError("formatChunkMissing" if fmt is None else "missingDataChunk")


def check_wavs_with_reference_probe(vectors) -> None:
    keys = ("sampleRate", "channels", "sampleType", "blockAlign", "formatTag", "bitsPerSample",
            "frames", "dataOffset", "truncated", "claimedFrames", "strayBytes")
    for v in vectors:
        blob = (ROOT / v["file"]).read_bytes()
        try:
            r = reference_probe(blob)
        except ProbeError as e:
            assert not v["valid"], (v["name"], e.error)
            assert e.error == v["error"] and e.encoding_name == v.get("encodingName"), \
                (v["name"], e.error, e.encoding_name)
            continue
        assert v["valid"], (v["name"], "probe succeeded", r)
        for k in keys:
            assert r.get(k) == v.get(k), (v["name"], k, r.get(k), v.get(k))


def cross_check_wavs(vectors) -> None:
    """Independent readers (read-only use of libsndfile and scipy) must agree
    with our expected samples for the well-formed files they can parse."""
    skip = {"data_size_zero", "data_size_ffffffff", "data_size_ffffffff_f32", "truncated_data",
            "truncated_data_partial_tail", "partial_frame", "partial_frame_then_chunk",
            "riff_size_too_small", "riff_size_zero", "riff_size_ffffffff", "riff_size_too_large",
            "pcm_u8_mono_1hz"}
    for v in vectors:
        if not v["valid"]:
            continue
        short = v["name"][4:]
        exp = np.frombuffer((ROOT / v["samplesFile"]).read_bytes(), dtype="<f4")
        assert len(exp) == v["frames"] * v["channels"]
        checked = []
        if short not in skip:
            data, sr = soundfile.read(str(ROOT / v["file"]), dtype="float64", always_2d=True)
            assert sr == v["sampleRate"] and data.shape == (v["frames"], v["channels"]), (short, data.shape)
            t = v["sampleType"]
            if t.startswith("f"):
                assert np.array_equal(data.reshape(-1).astype(np.float32), exp), short
            else:
                # libsndfile normalises by 2^(bits-1) in double precision
                nb = {"u8": 8, "s16le": 16, "s24le": 24, "s32le": 32}[t]
                ints = np.rint(data.reshape(-1) * 2.0 ** (nb - 1)).astype(np.int64)
                assert np.array_equal((ints.astype(np.float32) / F32(2.0 ** (nb - 1))).astype(np.float32), exp), short
            checked.append(f"libsndfile {soundfile.__libsndfile_version__}")
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", scipy.io.wavfile.WavFileWarning)
                    sr2, d2 = scipy.io.wavfile.read(str(ROOT / v["file"]))
                d2 = d2.reshape(-1)
                if t == "u8":
                    d2f = (d2.astype(np.float32) - 128) / F32(128)
                elif t == "s24le":
                    d2f = (d2.astype(np.int64) >> 8).astype(np.float32) / F32(8388608) \
                        if d2.dtype == np.int32 else None
                elif t in ("s16le", "s32le"):
                    d2f = d2.astype(np.float32) / F32(2.0 ** (16 if t == "s16le" else 32) / 2)
                else:
                    d2f = d2.astype(np.float32)
                assert sr2 == v["sampleRate"] and np.array_equal(d2f, exp), short
                checked.append(f"scipy.io.wavfile {scipy.__version__}")
            except (ValueError, NotImplementedError):
                pass
        v["crossCheckedWith"] = checked


# ---------------------------------------------------------------------------
# decode / encode / channels / mix
# ---------------------------------------------------------------------------

def decode_vectors(rng) -> list[dict]:
    vectors = []
    frames, ch = 300, 2
    for t in TYPES:
        vals = make_values(t, frames * ch, rng)
        # shuffle everything after the first 2 frames so extremes land in both channels
        perm = np.concatenate([np.arange(4), 4 + rng.permutation(frames * ch - 4)])
        vals = vals[perm]
        raw = encode_samples(vals, t)
        exp = decode_reference(raw, t)
        check_decode_independently(raw, t, exp)
        if not t.startswith("f"):
            # cross-check byte layout with libsndfile reading the raw bytes (read-only)
            sub = {"u8": "PCM_U8", "s16": "PCM_16", "s24": "PCM_24", "s32": "PCM_32"}[base_type(t)]
            import io
            got = soundfile.read(io.BytesIO(raw), format="RAW", subtype=sub, channels=ch,
                                 samplerate=48000, endian="BIG" if is_big(t) else "LITTLE",
                                 dtype="int32")[0].reshape(-1).astype(np.int64)
            nb = {"u8": 8, "s16": 16, "s24": 24, "s32": 32}[base_type(t)]
            iv = np.asarray(vals, dtype=np.int64) - (128 if t == "u8" else 0)
            assert np.array_equal(got >> (32 - nb), iv), t
        inp = write_file(f"decode/{t}.raw", raw)
        out = write_file(f"decode/{t}.f32", f32_bytes(exp))
        vectors.append({
            "name": f"decode_{t}", "family": "decode",
            "description": f"{t} stereo interleaved, {frames} frames: type extremes (min, max, 0, "
                           "+-1 and neighbours; for floats +-1.0, +-0.5, +-0.0, tiny normal values, "
                           "values > 1) plus random values",
            "method": "numpy: bytes -> native type -> float32 per conventions.decode; verified with a "
                      "scalar struct decoder and (integer types) libsndfile RAW read",
            "tolerance": "exact", "sampleType": t, "layout": "interleaved", "channels": ch,
            "frames": frames, "inputFile": inp, "expectedFile": out,
        })
    # planar s16le
    vals = make_values("s16le", frames * ch, rng)[np.concatenate([np.arange(7), 7 + rng.permutation(frames * ch - 7)])]
    inter = vals.reshape(frames, ch)
    planar_raw = encode_samples(inter.T.reshape(-1), "s16le")
    exp = decode_reference(encode_samples(inter.reshape(-1), "s16le"), "s16le")
    inp = write_file("decode/s16le_planar.raw", planar_raw)
    out = write_file("decode/s16le_planar.f32", f32_bytes(exp))
    vectors.append({
        "name": "decode_s16le_planar", "family": "decode",
        "description": f"s16le planar (non-interleaved) stereo, {frames} frames: all {frames} left "
                       "samples, then all right samples. Expected output is interleaved float32.",
        "method": "numpy: planar int16 -> interleave -> x / 32768 in float32",
        "tolerance": "exact", "sampleType": "s16le", "layout": "planar", "channels": ch,
        "frames": frames, "inputFile": inp, "expectedFile": out,
    })
    return vectors


def encode_reference(x: np.ndarray) -> np.ndarray:
    v = x.astype(np.float32) * F32(32768)           # exact (power-of-two scaling)
    a = np.abs(v.astype(np.float64))
    r = np.sign(v.astype(np.float64)) * np.ceil(a - 0.5)   # nearest, ties toward zero
    return np.clip(r, -32768, 32767).astype(np.int16)


def encode_vectors(rng) -> list[dict]:
    xs: list[float] = []
    ks = [0, 1, 2, 3, 4, 10, 100, 1000, 12345, 16383, 16384, 32765, 32766, 32767, 32768, 32769]
    for k in ks:
        for s in (1, -1):
            h = F32(s * (k + 0.5) / 32768)
            assert float(h) * 32768 == s * (k + 0.5)
            xs += [float(h), float(np.nextafter(h, F32(np.inf))), float(np.nextafter(h, F32(-np.inf)))]
    xs += [1.0, -1.0, 1.5, -1.5, 0.0, -0.0, 2.0, -2.0, 3.0, -3.0, 1e10, -1e10, 1e-30, -1e-30,
           32767 / 32768, -32767 / 32768, -32768 / 32768, 0.5, -0.5, 0.25,
           32767.4 / 32768, 32767.6 / 32768, -32768.4 / 32768, -32768.6 / 32768,
           2.6 / 32768, -2.6 / 32768, 2.4 / 32768, -2.4 / 32768,
           float(np.nextafter(F32(1), F32(2))), float(np.nextafter(F32(-1), F32(-2))),
           float(np.nextafter(F32(1), F32(0))), float(np.nextafter(F32(-1), F32(0)))]
    n_rand = 2048 - len(xs) - 512 - 256
    xs += list(rng.uniform(-1.1, 1.1, size=n_rand).astype(np.float32).astype(np.float64))
    xs += list((rng.integers(-32768, 32767, size=512, endpoint=True) / 32768.0))
    xs += list(((rng.integers(-32769, 32768, size=256, endpoint=True) + 0.5) / 32768.0))
    x = np.array(xs, dtype=np.float32)
    y = encode_reference(x)
    # independent scalar check with exact rationals
    for xi, yi in zip(x, y):
        v = Fraction(float(xi)) * 32768
        a = abs(v)
        fl = math.floor(a)
        r = fl + 1 if a - fl > Fraction(1, 2) else fl
        r = r if v >= 0 else -r
        assert int(yi) == max(-32768, min(32767, r)), (xi, yi)
    inp = write_file("decode/encode_in.f32", f32_bytes(x))
    out = write_file("decode/encode_out.s16", y.astype("<i2").tobytes())
    return [{
        "name": "encode_f32_to_s16le", "family": "encode",
        "description": "float32 -> int16: exact halves (k+0.5)/32768 for +-k, their float32 "
                       "neighbours above/below, +-1.0, +-1.5, +-2, +-3, +-1e10, 0, -0.0, tiny values, "
                       "random values in [-1.1, 1.1], random exact k/32768 and (k+0.5)/32768",
        "method": "numpy: v = float32(x) * 32768 (exact); round to nearest, ties toward zero "
                  "(sign(v) * ceil(|v| - 0.5)); clamp to [-32768, 32767]; verified per sample with "
                  "exact rational arithmetic (fractions.Fraction)",
        "tolerance": "exact", "inputSampleType": "f32le", "outputSampleType": "s16le",
        "channels": 1, "count": int(len(x)), "inputFile": inp, "expectedFile": out,
    }]


def channels_vectors(rng) -> list[dict]:
    n = 1000
    x = make_values("s16le", n, rng)
    x = np.concatenate([x[:7], x[7:][rng.permutation(n - 7)]])
    y = np.repeat(x[:, None], 2, axis=1).reshape(-1)
    inp = write_file("channels/mono_s16le.raw", encode_samples(x, "s16le"))
    out = write_file("channels/stereo_s16le.raw", encode_samples(y, "s16le"))
    return [{
        "name": "channels_mono_to_stereo", "family": "channels",
        "description": f"{n} mono s16le samples (full range incl. -32768, 32767, 0, +-1) -> stereo",
        "method": "numpy: L = R = x",
        "tolerance": "exact", "sampleType": "s16le", "inputChannels": 1, "outputChannels": 2,
        "frames": n, "inputFile": inp, "expectedFile": out,
    }]


def mix_vectors(rng) -> list[dict]:
    frames = 4096
    E = [-32768, -32767, -1, 0, 1, 32766, 32767]
    app, mic = [], []
    for a in E:
        for b in E:
            app.append((a, b))  # L: app=a mic=b ; R: app=b mic=a
            mic.append((b, a))
    explicit = [(-3, 0), (-1, 0), (0, -1), (-2, -1), (-32768, 1), (-32768, 32767), (1, -2),
                (-5, 2), (-32767, 32766), (32767, -32768), (-101, 0), (-1, -32768)]
    for a, b in explicit:
        assert (a + b) < 0 and (a + b) % 2 == 1
        app.append((a, b))
        mic.append((b, a))
    n_neg = 256
    s = -(2 * rng.integers(0, 32768, size=(n_neg, 2)) + 1)          # negative odd sums, -1 ... -65535
    lo = np.maximum(-32768, s - 32767)
    hi = np.minimum(32767, s + 32768)
    a = lo + (rng.random(size=(n_neg, 2)) * (hi - lo + 1)).astype(np.int64)
    a = np.minimum(a, hi)
    b = s - a
    assert (b >= -32768).all() and (b <= 32767).all() and ((a + b) % 2 == 1).all() and ((a + b) < 0).all()
    app_arr = np.concatenate([np.array(app, dtype=np.int64), a])
    mic_arr = np.concatenate([np.array(mic, dtype=np.int64), b])
    rest = frames - len(app_arr)
    app_arr = np.concatenate([app_arr, rng.integers(-32768, 32767, size=(rest, 2), endpoint=True)])
    mic_arr = np.concatenate([mic_arr, rng.integers(-32768, 32767, size=(rest, 2), endpoint=True)])
    assert app_arr.shape == (frames, 2)
    ssum = app_arr + mic_arr
    avg = np.trunc(ssum / 2).astype(np.int64)        # toward zero (exact in float64)
    sat = np.clip(ssum, -32768, 32767)
    # independent check with Python ints (C-style division)
    for p, q, r1, r2 in zip(app_arr.reshape(-1), mic_arr.reshape(-1), avg.reshape(-1), sat.reshape(-1)):
        t = int(p) + int(q)
        c = abs(t) // 2 * (1 if t >= 0 else -1)
        assert c == r1 and max(-32768, min(32767, t)) == r2
    fa = write_file("mix/app_s16le.raw", encode_samples(app_arr.reshape(-1), "s16le"))
    fm = write_file("mix/mic_s16le.raw", encode_samples(mic_arr.reshape(-1), "s16le"))
    fav = write_file("mix/average.s16", encode_samples(avg.reshape(-1), "s16le"))
    fsa = write_file("mix/saturate.s16", encode_samples(sat.reshape(-1), "s16le"))
    common = {"family": "mix", "tolerance": "exact", "sampleType": "s16le", "channels": 2,
              "frames": frames, "appFile": fa, "micFile": fm}
    desc = (f"{frames} stereo frames: first 49 frames pair every extreme of {E} with every other "
            "(L: app=a, mic=b; R: app=b, mic=a), then 12 hand-picked and 256 random pairs whose sum "
            "is negative and odd (both channels), then full-range random int16")
    return [
        {"name": "mix_average", **common, "policy": "average", "description": desc,
         "method": "numpy int64: trunc((app + mic) / 2) toward zero (C division semantics); "
                   "verified with Python ints", "expectedFile": fav},
        {"name": "mix_saturate", **common, "policy": "saturate", "description": desc,
         "method": "numpy int64: clip(app + mic, -32768, 32767); verified with Python ints",
         "expectedFile": fsa},
    ]


# ---------------------------------------------------------------------------
# resample
# ---------------------------------------------------------------------------

def out_frames(n_in: int, rate: int) -> int:
    q = Fraction(n_in * OUT_RATE, rate)
    assert q.denominator != 2, "tie in output length rounding"
    return int(math.floor(q + Fraction(1, 2)))


def sines(tones, t):
    y = np.zeros_like(t)
    for tone in tones:
        y += tone["amplitude"] * np.sin(2 * np.pi * tone["freqHz"] * t + tone["phaseRad"])
    return y


def snr_db(ref, got):
    e = np.sum((got - ref) ** 2)
    return float("inf") if e == 0 else float(10 * np.log10(np.sum(ref ** 2) / e))


def soxr_output_aligned(x64: np.ndarray, rate: int, m: int):
    y = soxr.resample(x64, rate, OUT_RATE, quality="VHQ")
    n_soxr = y.shape[0]
    if n_soxr >= m:
        y = y[:m]
    else:
        y = np.concatenate([y, np.zeros((m - n_soxr,) + y.shape[1:])])
    return y, n_soxr


def resample_vectors(rng) -> tuple[list[dict], list[dict]]:
    vectors, report = [], []
    skip = OUT_RATE // 100  # 10 ms
    for rate in [8000, 11025, 16000, 22050, 32000, 44100, 96000]:
        ln = min(rate, OUT_RATE) / 2
        n = rate // 4                       # 0.25 s (floor for 11025, 22050)
        m = out_frames(n, rate)
        ph = lambda: round(float(rng.uniform(0, 2 * np.pi)), 6)
        left = [
            {"freqHz": round(float(rng.uniform(100, 500)), 3), "amplitude": 0.4, "phaseRad": ph()},
            {"freqHz": round(float(rng.uniform(0.3, 0.5) * ln), 3), "amplitude": 0.3, "phaseRad": ph()},
            {"freqHz": round(ln * 17 / 20, 3), "amplitude": 0.2, "phaseRad": ph()},
        ]
        right = [
            {"freqHz": round(float(rng.uniform(0.1, 0.2) * ln), 3), "amplitude": 0.5, "phaseRad": ph()},
            {"freqHz": round(float(rng.uniform(0.55, 0.75) * ln), 3), "amplitude": 0.4, "phaseRad": ph()},
        ]
        ti = np.arange(n, dtype=np.float64) / rate
        to = np.arange(m, dtype=np.float64) / OUT_RATE
        x = np.stack([sines(left, ti), sines(right, ti)], axis=1).astype(np.float32)
        ref = np.stack([sines(left, to), sines(right, to)], axis=1)
        ref32 = ref.astype(np.float32)
        assert np.abs(x).max() <= 0.9 + 1e-6
        fi = write_file(f"resample/in_{rate}.f32", f32_bytes(x.reshape(-1)))
        fo = write_file(f"resample/ref_{rate}.f32", f32_bytes(ref32.reshape(-1)))
        cs, ce = skip, m - skip

        # ---- informational: soxr VHQ against the analytic reference -------
        y, n_soxr = soxr_output_aligned(x.astype(np.float64), rate, m)
        r64 = ref32.astype(np.float64)
        snr = [snr_db(r64[cs:ce, c], y[cs:ce, c]) for c in range(2)]
        shifts = {}
        for sh in range(-8, 9):
            shifts[sh] = min(snr_db(r64[cs:ce, c], y[cs + sh:ce + sh, c]) for c in range(2))
        best_shift = max(shifts, key=shifts.get)
        snr20 = [snr_db(r64[2 * skip:m - 2 * skip, c], y[2 * skip:m - 2 * skip, c]) for c in range(2)]
        # per-tone least-squares gain / delay of soxr, all tones of a channel fitted jointly (diagnosis)
        tone_fit, fit_snr = [], [0.0, 0.0]
        for tone in left + right:
            col = 0 if tone in left else 1
            # soxr output contains all tones of that channel; fit them jointly
            others = [o for o in (left if col == 0 else right)]
            cols = []
            for o in others:
                a2 = 2 * np.pi * o["freqHz"] * to[cs:ce] + o["phaseRad"]
                cols += [np.sin(a2), np.cos(a2)]
            B = np.stack(cols, axis=1)
            cb = np.linalg.lstsq(B, y[cs:ce, col], rcond=None)[0]
            k = others.index(tone)
            c_s, c_c = cb[2 * k], cb[2 * k + 1]
            gain = math.hypot(c_s, c_c) / tone["amplitude"]
            delay = -math.atan2(c_c, c_s) / (2 * np.pi * tone["freqHz"]) * OUT_RATE
            tone_fit.append({"channel": "left" if col == 0 else "right", "freqHz": tone["freqHz"],
                             "gainDB": float(f"{20 * math.log10(gain):.3g}") + 0.0,
                             "delayOutputFrames": float(f"{delay:.3g}") + 0.0})
            if k == len(others) - 1:
                resid = y[cs:ce, col] - B @ cb
                fit_snr[col] = snr_db(r64[cs:ce, col], r64[cs:ce, col] + resid)
        soxr_info = {
            "quality": "VHQ", "call": f"soxr.resample(x64, {rate}, 48000, quality='VHQ')",
            "outputFrames": n_soxr, "snrDB": {"left": round(snr[0], 2), "right": round(snr[1], 2)},
            "snrDBSkipping20ms": {"left": round(snr20[0], 2), "right": round(snr20[1], 2)},
            "bestIntegerShiftFrames": best_shift, "toneFit": tone_fit,
            "snrDBAfterFittingToneGainsAndPhases": {"left": round(fit_snr[0], 2), "right": round(fit_snr[1], 2)},
        }
        report.append({"rate": rate, **soxr_info})
        vectors.append({
            "name": f"resample_{rate}_to_48000", "family": "resample",
            "description": f"Stereo float32, {n} frames ({n / rate:.6f} s) at {rate} Hz -> 48000 Hz. "
                           "Left = 3 sines (low, mid, 0.85 x min(inRate, 48000)/2), right = 2 other sines.",
            "method": "Input: sines evaluated by numpy in float64 at t = i / inputRate, stored as float32. "
                      "Expected: the same sines evaluated analytically at t = j / 48000, stored as float32.",
            "tolerance": {"minSNRdB": 90, "provisional": True},
            "inputRate": rate, "outputRate": OUT_RATE, "channels": 2,
            "inputFrames": n, "outputFrames": m, "compareStart": cs, "compareEnd": ce,
            "inputFile": fi, "expectedFile": fo,
            "tones": {"left": left, "right": right},
            "soxrVHQ": soxr_info,
        })
    return vectors, report


# ---------------------------------------------------------------------------
# scene
# ---------------------------------------------------------------------------

def scene_vectors(rng) -> list[dict]:
    amp = 10 ** (-12 / 20)   # -12 dBFS peak
    app_rate, mic_rate = 44100, 32000
    app_n, mic_n = app_rate, mic_rate   # 1.0 s each
    ta = np.arange(app_n) / app_rate
    tm = np.arange(mic_n) / mic_rate
    app_tones = {"left": [{"freqHz": 440.0, "amplitude": amp / 2, "phaseRad": 0.0},
                          {"freqHz": 3000.0, "amplitude": amp / 2, "phaseRad": 0.0}],
                 "right": [{"freqHz": 1000.0, "amplitude": amp, "phaseRad": 0.0}]}
    mic_tones = [{"freqHz": 300.0, "amplitude": amp / 2, "phaseRad": 0.0},
                 {"freqHz": 2500.0, "amplitude": amp / 2, "phaseRad": 0.0}]
    q = lambda v: np.clip(np.round(v * 32768), -32768, 32767).astype(np.int64)
    app_i = np.stack([q(sines(app_tones["left"], ta)), q(sines(app_tones["right"], ta))], axis=1)
    mic_i = q(sines(mic_tones, tm))

    app_buf = [1024] * (app_n // 1024) + ([app_n % 1024] if app_n % 1024 else [])
    sizes = [1, 17, 160, 320, 1024, 1500, 4000]
    mic_buf = [int(s) for s in rng.permutation(sizes)]
    while sum(mic_buf) < mic_n:
        mic_buf.append(int(rng.choice(sizes)))
    mic_buf[-1] -= sum(mic_buf) - mic_n
    assert sum(app_buf) == app_n and sum(mic_buf) == mic_n and min(mic_buf) >= 1

    fa = write_file("scene/app_s16be_44100_2.raw", encode_samples(app_i.reshape(-1), "s16be"))
    fm = write_file("scene/mic_s16le_32000_1.raw", encode_samples(mic_i, "s16le"))

    m_app, m_mic = out_frames(app_n, app_rate), out_frames(mic_n, mic_rate)
    assert m_app == m_mic
    m = m_app
    app_f = app_i.astype(np.float64) / 32768.0
    mic_f = mic_i.astype(np.float64) / 32768.0
    app_r, n_app_soxr = soxr_output_aligned(app_f, app_rate, m)
    mic_r, n_mic_soxr = soxr_output_aligned(mic_f, mic_rate, m)
    mix = (app_r + mic_r[:, None]) / 2.0
    mix32 = mix.astype(np.float32)
    fe = write_file("scene/expected_mix.f32", f32_bytes(mix32.reshape(-1)))
    skip = OUT_RATE // 100
    cs, ce = skip, m - skip
    # informational: how far the (int16-quantised) reference is from the ideal analytic mix
    to = np.arange(m) / OUT_RATE
    ideal_mic = sines(mic_tones, to)
    ideal = np.stack([(sines(app_tones["left"], to) + ideal_mic) / 2,
                      (sines(app_tones["right"], to) + ideal_mic) / 2], axis=1)
    ideal_snr = [round(snr_db(ideal[cs:ce, c], mix32[cs:ce, c].astype(np.float64)), 2) for c in range(2)]
    return [{
        "name": "scene_replaykit_average", "family": "scene",
        "description": "ReplayKit-shaped capture, 1.0 s: app 44100 Hz stereo int16 big-endian "
                       "(L = 440 Hz + 3000 Hz, R = 1000 Hz), mic 32000 Hz mono int16 little-endian "
                       "(300 Hz + 2500 Hz), both -12 dBFS peak, all tones phase 0; buffers as listed. "
                       "Output: 48000 Hz stereo float32, policy average.",
        "method": "Inputs: numpy sines quantised with round(x * 32768) (half to even), clipped. "
                  "Reference: int16 / 32768 in float64 -> soxr.resample(..., 48000, quality='VHQ') "
                  "per stream (time-aligned one-shot, length round(n * 48000 / rate)) -> mic upmixed "
                  "L = R -> (app + mic) / 2 in float64 -> float32.",
        "tolerance": {"minSNRdB": 80, "provisional": True},
        "appFile": fa, "appSampleType": "s16be", "appRate": app_rate, "appChannels": 2,
        "appFrames": app_n, "appBufferFrames": app_buf, "appTones": app_tones,
        "micFile": fm, "micSampleType": "s16le", "micRate": mic_rate, "micChannels": 1,
        "micFrames": mic_n, "micBufferFrames": mic_buf, "micTones": mic_tones,
        "policy": "average", "expectedFile": fe, "outputRate": OUT_RATE, "outputChannels": 2,
        "outputFrames": m, "compareStart": cs, "compareEnd": ce,
        "soxrOutputFrames": {"app": n_app_soxr, "mic": n_mic_soxr},
        "expectedVsIdealAnalyticSNRdB": {"left": ideal_snr[0], "right": ideal_snr[1]},
    }]


# ---------------------------------------------------------------------------
# verification
# ---------------------------------------------------------------------------

def expected_sizes(v) -> dict[str, int]:
    f = v["family"]
    if f == "wav":
        if not v["valid"]:
            return {}
        return {v["samplesFile"]: v["frames"] * v["channels"] * 4}
    if f == "decode":
        n = v["frames"] * v["channels"]
        return {v["inputFile"]: n * bps(v["sampleType"]), v["expectedFile"]: n * 4}
    if f == "encode":
        return {v["inputFile"]: v["count"] * 4, v["expectedFile"]: v["count"] * 2}
    if f == "channels":
        return {v["inputFile"]: v["frames"] * 2, v["expectedFile"]: v["frames"] * 4}
    if f == "mix":
        n = v["frames"] * v["channels"] * 2
        return {v["appFile"]: n, v["micFile"]: n, v["expectedFile"]: n}
    if f == "resample":
        return {v["inputFile"]: v["inputFrames"] * v["channels"] * 4,
                v["expectedFile"]: v["outputFrames"] * v["channels"] * 4}
    if f == "scene":
        return {v["appFile"]: v["appFrames"] * v["appChannels"] * 2,
                v["micFile"]: v["micFrames"] * v["micChannels"] * 2,
                v["expectedFile"]: v["outputFrames"] * v["outputChannels"] * 4}
    raise ValueError(f)


def verify(manifest) -> None:
    seen = set()
    for v in manifest["vectors"]:
        assert v["name"] not in seen, v["name"]
        seen.add(v["name"])
        for k in ("name", "family", "description", "method", "tolerance"):
            assert k in v, (v.get("name"), k)
        for path, size in expected_sizes(v).items():
            data = (ROOT / path).read_bytes()
            assert len(data) == size, (v["name"], path, len(data), size)
            assert manifest["files"][path]["bytes"] == size
        if v["family"] == "wav":
            blob = (ROOT / v["file"]).read_bytes()
            assert len(blob) == manifest["files"][v["file"]]["bytes"]
            if v["valid"]:
                # the expected samples are exactly the decoded bytes at dataOffset
                n = v["frames"] * v["blockAlign"]
                raw = blob[v["dataOffset"]:v["dataOffset"] + n]
                assert len(raw) == n
                exp = decode_reference(raw, v["sampleType"])
                assert exp.astype("<f4").tobytes() == (ROOT / v["samplesFile"]).read_bytes(), v["name"]
                avail = len(blob) - v["dataOffset"]
                dsz = v["dataSizeField"]
                if dsz == 0xFFFFFFFF:
                    assert v["frames"] == avail // v["blockAlign"] and not v["truncated"]
                else:
                    assert v["frames"] == min(avail, dsz) // v["blockAlign"], v["name"]
                    assert v["truncated"] == (avail < dsz), v["name"]
                    stray = 0 if v["truncated"] else dsz % v["blockAlign"]
                    assert v.get("strayBytes", 0) == stray, v["name"]
                    if v["truncated"]:
                        assert v["claimedFrames"] == dsz // v["blockAlign"]
        if v["family"] in ("resample", "scene"):
            assert 0 <= v["compareStart"] < v["compareEnd"] <= v["outputFrames"]
    for path, info in manifest["files"].items():
        data = (ROOT / path).read_bytes()
        assert len(data) == info["bytes"] and hashlib.sha256(data).hexdigest() == info["sha256"], path
    # no stray files in the owned folders
    on_disk = {str(p.relative_to(ROOT)) for d in FAMILY_DIRS for p in (ROOT / d).rglob("*") if p.is_file()}
    assert on_disk == set(manifest["files"]), on_disk ^ set(manifest["files"])


# ---------------------------------------------------------------------------

CONVENTIONS = {
    "rawFiles": "Raw files have no header and are interleaved. Byte order is little-endian except "
                "where the sample type says 'be' (decode/*be.raw, scene/app_s16be_44100_2.raw). "
                ".f32 = float32 LE, .s16 = int16 LE. decode/s16le_planar.raw is planar (all left, "
                "then all right).",
    "decode": "To float32: u8 (x-128)/128; s16 x/32768; s24 (3-byte two's complement) x/8388608; "
              "s32 float32(x) (round to nearest even) / 2^31 in float32; f32 as is; f64 -> float32 "
              "round to nearest even. Expected outputs are bit-exact (-0.0 stays -0.0 for float "
              "inputs). No NaN/inf and no subnormal values appear in any input.",
    "encode": "float32 -> int16: v = x * 32768; round to nearest, ties toward zero (2.5 -> 2, "
              "-2.5 -> -2, 2.6 -> 3); clamp to [-32768, 32767]. -0.0 -> 0.",
    "channels": "Mono -> stereo: L = R = x exactly.",
    "mix": "average: trunc((a + b) / 2) toward zero in wide ints ((-3)/2 = -1); saturate: "
           "clip(a + b, -32768, 32767). Applied per sample (each channel independently).",
    "resample": "Output frame j is at time j/48000 s, input frame i at i/inRate. A one-shot "
                "conversion of n input frames yields round(n * 48000 / inRate) frames (no ties occur "
                "in these vectors). SNR over output frames [compareStart, compareEnd) (end exclusive), "
                "computed per channel: 10*log10(sum(ref^2) / sum((out - ref)^2)); every channel must "
                "reach tolerance.minSNRdB. 'provisional': true means the threshold is a placeholder "
                "to be tuned on the Swift side after measuring.",
    "wav": "Chunks are walked in order from offset 12; odd-sized chunks are followed by one pad byte "
           "(not counted in the size). Unknown chunks are skipped anywhere. The RIFF size field is "
           "ignored. dataOffset = byte offset of the first sample. A data size of 0xFFFFFFFF means "
           "'data runs to end of file' (frames = floor(remaining / blockAlign), not truncated). "
           "Otherwise frames = floor(min(dataSize, bytes present) / blockAlign); truncated = "
           "(bytes present < dataSize); when truncated, claimedFrames = floor(dataSize / "
           "blockAlign); when not truncated, strayBytes = dataSize % blockAlign (listed when not 0: "
           "bytes after the last whole frame, ignored). Sample types: PCM 8-bit = u8, PCM 16/24/32 = "
           "s16le/s24le/s32le, float 32/64 = f32le/f64le (extensible subformats map the same way; "
           "validBitsPerSample equals bitsPerSample in all valid files). Accepted sample rates "
           "1 ... 768000. Any chunk other than 'data' that extends past end of file, or a file ending "
           "inside the RIFF header or a chunk header, is truncatedHeader. Each broken file has a "
           "single defect, except the unsupportedEncoding files, whose fmt chunks are realistic for "
           "their codec (e.g. 4-bit ADPCM with blockAlign 512): the encoding check comes before the "
           "bit-depth and blockAlign checks. blockAlign must equal channels * bytesPerSample. "
           "byteRate is always consistent and never tested. Check order used by the generator's "
           "reference probe: fewer than 4 bytes -> truncatedHeader; magic "
           "other than 'RIFF' -> notRIFF (RIFX, RF64, BW64 and CAF have their own vectors, "
           "generate_containers.py); fewer than 12 bytes -> truncatedHeader; form type not "
           "'WAVE' -> notWAVE; then chunks in order ('data' before any 'fmt ' -> dataBeforeFormat); "
           "inside 'fmt ': size < 16, or tag 0xFFFE with size < 40 -> formatChunkTooShort; "
           "encoding; channels; sample rate; bit depth; blockAlign. End of chunks without 'fmt ' "
           "-> formatChunkMissing, with 'fmt ' but no 'data' -> missingDataChunk.",
}


def main() -> None:
    # rewrite everything we own
    for d in FAMILY_DIRS:
        shutil.rmtree(ROOT / d, ignore_errors=True)
    for f in ("manifest.json",):
        (ROOT / f).unlink(missing_ok=True)

    vectors = []
    wv = wav_vectors(np.random.default_rng(1001))
    cross_check_wavs(wv)
    check_wavs_with_reference_probe(wv)
    vectors += wv
    vectors += decode_vectors(np.random.default_rng(2002))
    vectors += encode_vectors(np.random.default_rng(3003))
    vectors += channels_vectors(np.random.default_rng(4004))
    vectors += mix_vectors(np.random.default_rng(5005))
    rv, report = resample_vectors(np.random.default_rng(6006))
    vectors += rv
    vectors += scene_vectors(np.random.default_rng(7007))

    versions = {
        "python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
        "soxr": soxr.__version__, "libsoxr": getattr(soxr, "__libsoxr_version__", "unknown"),
        "samplerate": SAMPLERATE_VERSION, "soundfile": soundfile.__version__,
        "libsndfile": soundfile.__libsndfile_version__,
    }
    manifest = {
        "generator": "generate.py",
        "versions": versions,
        "usage": {"numpy": "all reference computations", "soxr": "informational SNR (resample) and "
                  "the scene reference mix", "soundfile": "read-only cross-checks of WAV/raw bytes",
                  "scipy": "read-only cross-check of WAV files (scipy.io.wavfile)",
                  "samplerate": "not used"},
        "conventions": CONVENTIONS,
        "soxrNote": soxr_note(report),
        "vectors": vectors,
        "files": dict(sorted(FILES.items())),
    }
    text = json.dumps(manifest, indent=1, allow_nan=False) + "\n"
    (ROOT / "manifest.json").write_text(text)
    (ROOT / "README.md").write_text(README.format(
        versions="\n".join(f"- {k}: {v}" for k, v in versions.items())))

    verify(json.loads((ROOT / "manifest.json").read_text()))
    # This script's own files (the other generators' folders have budgets of their own).
    total = sum(f["bytes"] for f in FILES.values())
    total += sum((ROOT / name).stat().st_size for name in ("manifest.json", "README.md"))
    assert total < 4 * 1024 * 1024, total

    fams: dict[str, int] = {}
    for v in vectors:
        fams[v["family"]] = fams.get(v["family"], 0) + 1
    print("vectors:", fams, "files:", len(FILES), "total bytes:", total)
    print("versions:", versions)
    for r in report:
        print(f"soxr VHQ {r['rate']:>6} -> 48000: SNR L {r['snrDB']['left']:7.2f} dB, "
              f"R {r['snrDB']['right']:7.2f} dB (skip 20 ms: {r['snrDBSkipping20ms']['left']:.2f} / "
              f"{r['snrDBSkipping20ms']['right']:.2f}), best shift {r['bestIntegerShiftFrames']}, "
              f"soxr frames {r['outputFrames']}")
    sc = vectors[-1]
    print("scene: expected vs ideal analytic SNR", sc["expectedVsIdealAnalyticSNRdB"],
          "soxr frames", sc["soxrOutputFrames"])


def soxr_note(report) -> str:
    """Build the informational soxr note from the measurements (and check its claims)."""
    for r in report:
        assert r["bestIntegerShiftFrames"] == 0
        assert all(abs(t["delayOutputFrames"]) < 1e-3 for t in r["toneFit"])
    low = [r for r in report if min(r["snrDB"].values()) < 90]
    per_rate = "; ".join(f"{r['rate']}: L {r['snrDB']['left']:.1f} / R {r['snrDB']['right']:.1f} dB"
                         for r in report)
    text = ("soxr.resample(x64, rate, 48000, quality='VHQ') one-shot output is already time-aligned "
            "(filter delay compensated): the best integer shift over -8..8 frames is 0 for every "
            "rate and the per-tone least-squares fits show |delay| < 0.001 output frames. Output "
            "lengths: " + ", ".join(f"{r['rate']}: {r['outputFrames']}" for r in report) +
            " (equal to round(n * 48000 / rate) in every case here). SNR over [compareStart, "
            "compareEnd): " + per_rate + ". ")
    if low:
        worst = min(t["gainDB"] for r in low for t in r["toneFit"])
        text += ("Where SNR is below 90 dB the cause is amplitude, not timing: in the 44.1 kHz "
                 "family (non-integer ratios) soxr's default passband roll-off (documented as "
                 "<= 0.01 dB) attenuates the tone at 0.85 x the input Nyquist by about "
                 f"{worst:.4f} dB (see toneFit); with those gains and phases fitted out the residual "
                 f"SNR is >= {min(min(r['snrDBAfterFittingToneGainsAndPhases'].values()) for r in low):.0f} dB "
                 "(snrDBAfterFittingToneGainsAndPhases). So a 90 dB threshold "
                 "would reject soxr VHQ itself on these rates. ")
    text += ("At 8 kHz the first/last 10 ms still contain part of the abrupt-start ringing "
             "(compare snrDBSkipping20ms).")
    return text


README = """# PCMMix test vectors

Reference inputs and expected outputs for the Swift tests. Everything here is
generated by `generate.py` with numpy (plus soxr for the scene reference mix and
for informational resampler SNR figures), independently of the Swift code.
WAV headers are written byte by byte with `struct`.

`manifest.json` lists every vector (`name`, `family`, `description`, `method`,
`tolerance`, file paths relative to this folder, and the family's parameters),
the library conventions the expected values follow, and the size and SHA-256 of
every file.

| folder      | family   | contents |
|-------------|----------|----------|
| `wav/`      | wav      | valid and broken WAV files; `.f32` = expected decoded samples |
| `decode/`   | decode, encode | raw inputs per sample type, expected float32; float32 -> int16 encode |
| `channels/` | channels | mono -> stereo int16 |
| `mix/`      | mix      | app + mic int16, expected `average` and `saturate` |
| `resample/` | resample | sines at 8 k ... 96 kHz, analytic 48 kHz references |
| `scene/`    | scene    | ReplayKit-shaped capture and the expected 48 kHz mix |
| `containers/` | containers | RF64, BW64, RIFX, odd-depth PCM and CAF files; `.f32` = libsndfile's decode (`generate_containers.py`, own manifest) |
| `libsamplerate/` | libsamplerate | libsamplerate's converters, call by call (`generate_libsamplerate.py`, own manifest) |

Raw files have no header, are interleaved and little-endian unless the sample
type says `be` (or the manifest says planar).

## Regenerate

From the repository root:

    python3 TestVectors/generate.py
    python3 TestVectors/generate_containers.py    # numpy, soundfile, sox
    python3 TestVectors/generate_libsamplerate.py # numpy, samplerate

Each script is deterministic (fixed seeds) and deletes and rewrites only its own
folders: generate.py the first six above, `manifest.json` and this README, then
re-reads every file and checks sizes and hashes against the manifest. The resample/scene `minSNRdB` values are provisional.

## Versions used

{versions}
"""

if __name__ == "__main__":
    main()
