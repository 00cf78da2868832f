#!/usr/bin/env python3
"""Reference vectors for the containers beyond plain little-endian RIFF/WAVE.

Run from the repository root:

    python3 TestVectors/generate_containers.py

Needs numpy, soundfile (libsndfile) and the `sox` command.  The script owns
TestVectors/containers/ (the files and containers/manifest.json) and nothing
else; it deletes and rewrites that folder.  It is deterministic (fixed seeds)
and runs no Swift.  The Swift tests (ContainerVectorTests, BadInputTests) read
the files and the manifest; they never run Python.

Families of files
-----------------
rf64    RF64 (EBU Tech 3306) written by libsndfile (format RF64: ds64 first,
        WAVE_FORMAT_EXTENSIBLE) in every sample type it writes; BW64 (ITU-R
        BS.2088), the same layout under the magic 'BW64', made by patching
        those files (libsndfile does not write BW64); hand-patched layouts: a
        ds64 table entry for the data chunk with the ds64 data size 0, a chunk
        whose 32-bit size 0xFFFFFFFF is resolved through the table, a
        streaming RF64 (ds64 all zero: audio to the end of the file), a chunk
        after the data, a data size that is not a whole number of frames, a
        data size past the end of the file; broken ones (ds64 too short, its
        table longer than the chunk, no ds64 at all, a table size past the end).
rifx    Big-endian RIFF written by libsndfile (format WAV, endian BIG) in every
        sample type it writes; RIFX WAVE_FORMAT_EXTENSIBLE and RIFX 12-bit PCM
        built by hand with struct (libsndfile reads but does not write them;
        the sub-format GUID's first three fields are big-endian, as libsndfile
        reads them); broken ones.
oddpcm  PCM (format tag 1) whose bit depth is not a whole number of bytes
        (4 ... 31 bits), built by hand: the container is block align /
        channels = ceil(bits / 8) bytes and the samples are left-justified in
        it; one file has its low, unused bits set (libsndfile does not mask
        them, and neither does the library).  Broken ones: block aligns that
        disagree with ceil(bits / 8), a 40-bit depth.
caf     CAF linear PCM written by libsndfile (format CAF) in every sample type
        it writes (s8 s16 s24 s32 f32 f64), both byte orders, 1 ... 6 channels;
        written by sox 14.4.2 (through the system's libsndfile; sox writes
        big-endian CAF only) in every sample type; patched: data size -1 (to
        the end of the file), a chunk after the data, a data size past the
        end; compressed CAF (ALAC, mu-law, A-law from libsndfile; 'aac ' and
        '.mp3' desc chunks by hand), and desc chunks that lie.

Expected samples
----------------
Every valid file's expected float32 samples are libsndfile's own decode
(soundfile.read(dtype='float32')) of that file, or, for a patched file
libsndfile cannot read (BW64, some table layouts, data size -1), of the file it
was patched from (same audio bytes).  Each is cross-checked against a numpy
decode of the data bytes by the library's documented rules (int / 2^(bits-1),
u8 and s8 around 0, floats as they are), so the libsndfile read and the rules
agree bit for bit.  Header expectations (container, data offset, sizes) come
from a small struct-level parser of each format written here to the specs.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf

ROOT = Path(__file__).resolve().parent
OUT = ROOT / "containers"
F32 = np.float32
FRAMES = 40

FILES: dict[str, dict] = {}
VECTORS: list[dict] = []


def write_file(rel: str, data: bytes) -> str:
    p = ROOT / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    FILES[rel] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return rel


def sox_version() -> str:
    out = subprocess.run(["sox", "--version"], capture_output=True, text=True, check=True).stdout
    return out.strip().split()[-1]


LIBSNDFILE = f"libsndfile {sf.__libsndfile_version__} via soundfile {sf.__version__}"
SOX = f"sox {sox_version()} (CAF through the system's libsndfile)"

# ---------------------------------------------------------------------------
# Sample values
# ---------------------------------------------------------------------------

INT_EXTREMES = [-(1 << 31), (1 << 31) - 1, 0, -1, 1]


def int_values(bits: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Signed values of `bits` bits (extremes first)."""
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    ext = [lo, hi, 0, -1, 1, lo + 1, hi - 1]
    rnd = rng.integers(lo, hi, size=max(0, n - len(ext)), endpoint=True)
    return np.concatenate([np.array(ext, dtype=np.int64), rnd.astype(np.int64)])[:n]


FLOAT_SPECIALS = [1.0, -1.0, 0.5, -0.5, 0.0, -0.0, 1.5, -1.5, 0.25, -0.75, 100.0, -1e10,
                  1e-30, -3e-8, 1.1754943508222875e-38, 32767 / 32768]
F64_ROUNDING = [1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24, 1 + 2.0 ** -24 + 2.0 ** -40, 0.1, -1 / 3]


def float_values(bits: int, n: int, rng: np.random.Generator) -> np.ndarray:
    specials = FLOAT_SPECIALS + (F64_ROUNDING if bits == 64 else [])
    rnd = rng.uniform(-1.25, 1.25, size=max(0, n - len(specials)))
    v = np.concatenate([np.array(specials, dtype=np.float64), rnd])[:n]
    return v.astype(np.float32) if bits == 32 else v


SUBTYPE_BITS = {"PCM_U8": 8, "PCM_S8": 8, "PCM_16": 16, "PCM_24": 24, "PCM_32": 32,
                "FLOAT": 32, "DOUBLE": 64}


def libsndfile_input(subtype: str, ch: int, rng) -> np.ndarray:
    """An array soundfile writes exactly: int32 left-justified (libsndfile keeps the top bits)
    for integer subtypes, float32 / float64 for float ones."""
    bits = SUBTYPE_BITS[subtype]
    if subtype in ("FLOAT", "DOUBLE"):
        return float_values(bits, FRAMES * ch, rng).reshape(FRAMES, ch)
    v = int_values(bits, FRAMES * ch, rng) << (32 - bits)
    return v.astype(np.int32).reshape(FRAMES, ch)


def sf_write(data: np.ndarray, rate: int, fmt: str, subtype: str, endian="FILE") -> bytes:
    b = io.BytesIO()
    sf.write(b, data, rate, format=fmt, subtype=subtype, endian=endian)
    blob = bytearray(b.getvalue())
    # libsndfile's WAV PEAK chunk holds the time of writing: zero it, so the files are the same
    # on every run (the chunk is skipped by readers either way).
    at = blob.find(b"PEAK")
    if fmt in ("WAV", "RF64") and at >= 0:
        blob[at + 12:at + 16] = bytes(4)
    return bytes(blob)


def sf_read(blob: bytes) -> tuple[np.ndarray, sf.SoundFile]:
    with sf.SoundFile(io.BytesIO(blob)) as f:
        info = (f.format, f.subtype, f.endian, f.samplerate, f.channels, f.frames)
        x = f.read(dtype="float32", always_2d=True)
    return x.reshape(-1), info


# ---------------------------------------------------------------------------
# The library's decode rules, from the data bytes (cross-check of libsndfile)
# ---------------------------------------------------------------------------

def decode_rules(raw: bytes, spelling: str, signed8=False) -> np.ndarray:
    if spelling == "u8":
        x = np.frombuffer(raw, dtype=np.int8 if signed8 else np.uint8).astype(np.float32)
        return (x / F32(128) if signed8 else (x - F32(128)) / F32(128)).astype(np.float32)
    base, e = spelling[:3], (">" if spelling.endswith("be") else "<")
    if base == "s16":
        return (np.frombuffer(raw, dtype=e + "i2").astype(np.float32) / F32(32768)).astype(F32)
    if base == "s24":
        a = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        u = (a[:, 0] << 16 | a[:, 1] << 8 | a[:, 2]) if e == ">" else (
            a[:, 0] | a[:, 1] << 8 | a[:, 2] << 16)
        s = (u ^ 0x800000) - 0x800000
        return (s.astype(np.float32) / F32(8388608)).astype(F32)
    if base == "s32":
        x = np.frombuffer(raw, dtype=e + "i4").astype(np.float32)
        return (x / F32(2147483648.0)).astype(F32)
    if base == "f32":
        return np.frombuffer(raw, dtype=e + "f4").astype(F32)
    if base == "f64":
        return np.frombuffer(raw, dtype=e + "f8").astype(F32)
    raise ValueError(spelling)


# ---------------------------------------------------------------------------
# Struct-level parsers (what the header says: container, data offset and size)
# ---------------------------------------------------------------------------

def parse_riff(b: bytes) -> dict:
    magic = b[:4]
    e = ">" if magic == b"RIFX" else "<"
    rf64 = magic in (b"RF64", b"BW64")
    assert b[8:12] == b"WAVE"
    pos, fmt, ds64, table = 12, None, None, {}
    while True:
        cid = b[pos:pos + 4]
        size = struct.unpack(e + "I", b[pos + 4:pos + 8])[0]
        body = pos + 8
        if rf64 and cid == b"ds64":
            riff64, data64, frames64, n = struct.unpack("<QQQI", b[body:body + 28])
            ds64 = data64
            for k in range(n):
                tid = b[body + 28 + 12 * k:body + 32 + 12 * k]
                tsz = struct.unpack("<Q", b[body + 32 + 12 * k:body + 40 + 12 * k])[0]
                table.setdefault(tid, tsz)
        wide = rf64 and size == 0xFFFFFFFF and ds64 is not None
        if wide:
            if cid == b"data":
                size = table.get(b"data", ds64) if ds64 == 0 else ds64
            else:
                size = table[cid]
        if cid == b"fmt ":
            tag, ch, rate, _br, ba, bits = struct.unpack(e + "HHIIHH", b[body:body + 16])
            valid = bits
            if tag == 0xFFFE:
                valid = struct.unpack(e + "H", b[body + 18:body + 20])[0]
                tag = struct.unpack(e + "I", b[body + 24:body + 28])[0]  # GUID Data1
            width = ba // ch
            kind = {1: {1: "u8", 2: "s16", 3: "s24", 4: "s32"}, 3: {4: "f32", 8: "f64"}}[tag][width]
            spelling = kind if kind == "u8" else kind + ("be" if e == ">" else "le")
            fmt = dict(sampleType=spelling, sampleRate=rate, channels=ch, validBits=valid,
                       blockAlign=ba)
        if cid == b"data":
            to_end = size in ((0, 0xFFFFFFFFFFFFFFFF) if wide else (0, 0xFFFFFFFF))
            container = {b"RIFF": "WAV", b"RIFX": "RIFX", b"RF64": "RF64", b"BW64": "BW64"}[magic]
            return dict(fmt, container=container, dataOffset=body,
                        dataSize=None if to_end else size)
        pos = body + size + (size & 1)


def parse_caf(b: bytes) -> dict:
    assert b[:4] == b"caff" and struct.unpack(">HH", b[4:8]) == (1, 0)
    pos, fmt = 8, None
    while True:
        ctype = b[pos:pos + 4]
        size = struct.unpack(">q", b[pos + 4:pos + 12])[0]
        body = pos + 12
        if ctype == b"desc":
            rate, fid, flags, bpp, fpp, ch, bits = struct.unpack(">d4sIIIII", b[body:body + 32])
            assert fid == b"lpcm" and fpp == 1 and bpp == ch * bits // 8
            is_float, little = flags & 1, flags & 2
            if bits == 8:
                spelling = "u8"
            else:
                spelling = ("f" if is_float else "s") + str(bits) + ("le" if little else "be")
            fmt = dict(sampleType=spelling, sampleRate=int(rate), channels=ch, validBits=bits,
                       blockAlign=bpp, signed8=bits == 8)
        if ctype == b"data":
            return dict(fmt, container="CAF", dataOffset=body + 4,
                        dataSize=None if size == -1 else size - 4)
        pos = body + size


def parse(b: bytes) -> dict:
    return parse_caf(b) if b[:4] == b"caff" else parse_riff(b)


# ---------------------------------------------------------------------------
# Vectors
# ---------------------------------------------------------------------------

def valid(name: str, kind: str, blob: bytes, description: str, writer: str, *,
          reference: bytes | None = None, reference_note: str | None = None,
          truncated=False) -> None:
    """A readable file; `reference` is the file libsndfile decodes for the expected samples
    (this one by default)."""
    h = parse(blob)
    ba = h["blockAlign"]
    avail = len(blob) - h["dataOffset"]
    claimed = h["dataSize"]
    if claimed is None:
        frames, stray, is_truncated, claimed_frames = avail // ba, 0, avail % ba != 0, None
    else:
        frames = min(avail, claimed) // ba
        is_truncated = avail < claimed
        stray = 0 if is_truncated else claimed % ba
        claimed_frames = claimed // ba
    assert is_truncated == truncated, (name, is_truncated)
    ref_blob = blob if reference is None else reference
    expected, info = sf_read(ref_blob)
    if not truncated:
        assert info[5] == frames, (name, info, frames)
    expected = expected[:frames * h["channels"]]
    assert info[3] == h["sampleRate"] and info[4] == h["channels"], (name, info)
    data = blob[h["dataOffset"]:h["dataOffset"] + frames * ba]
    rules = decode_rules(data, h["sampleType"], signed8=h.get("signed8", False))
    assert np.array_equal(rules.view(np.uint32), expected.view(np.uint32)), name
    path = write_file(f"containers/{name}.{'caf' if h['container'] == 'CAF' else 'wav'}", blob)
    samples = write_file(f"containers/{name}.f32", expected.astype("<f4").tobytes())
    VECTORS.append({
        "name": name, "family": "containers", "kind": kind, "description": description,
        "writer": writer,
        "method": "expected samples: libsndfile's float32 read of "
                  + ("this file" if reference is None else reference_note)
                  + ", equal bit for bit to a numpy decode of the data bytes by the library's "
                    "rules; header fields from a struct-level parser of the spec",
        "tolerance": "exact", "file": path, "valid": True, "container": h["container"],
        "sampleType": h["sampleType"], "sampleRate": h["sampleRate"],
        "channels": h["channels"], "validBits": h["validBits"], "blockAlign": ba,
        "frames": frames, "dataOffset": h["dataOffset"], "claimedFrames": claimed_frames,
        "truncated": truncated, "strayBytes": stray, "samplesFile": samples,
        "storedSampleType": "s8" if h.get("signed8") else h["sampleType"],
        "libsndfileReads": reference is None,
    })


def broken(name: str, kind: str, blob: bytes, error: str, message: str, description: str) -> None:
    ext = "caf" if blob[:4] == b"caff" else "wav"
    path = write_file(f"containers/{name}.{ext}", blob)
    VECTORS.append({
        "name": name, "family": "containers", "kind": kind, "description": description,
        "method": "patched or built by hand with struct; expected error chosen by the generator",
        "tolerance": "exact", "file": path, "valid": False, "error": error, "message": message,
    })


# --- RF64 / BW64 ---------------------------------------------------------------

def rf64_vectors(rng) -> None:
    made = {}
    for subtype, ch, rate in [("PCM_U8", 1, 8000), ("PCM_16", 2, 44100), ("PCM_24", 6, 48000),
                              ("PCM_32", 2, 96000), ("FLOAT", 2, 48000), ("DOUBLE", 1, 192000)]:
        blob = sf_write(libsndfile_input(subtype, ch, rng), rate, "RF64", subtype)
        assert blob[:4] == b"RF64" and blob[12:16] == b"ds64"
        tag = subtype.lower().replace("pcm_", "")
        made[tag] = blob
        valid(f"rf64_{tag}_{ch}ch_{rate}", "rf64", blob,
              f"RF64 {subtype}, {ch} channel(s), {rate} Hz, as libsndfile writes it", LIBSNDFILE)
    for tag, blob in made.items():
        h = parse(blob)
        valid(f"bw64_{tag}_{h['channels']}ch_{h['sampleRate']}", "rf64", b"BW64" + blob[4:],
              f"BW64: the libsndfile RF64 {tag} file with its magic patched to 'BW64'",
              "patched from " + LIBSNDFILE, reference=blob,
              reference_note=f"the RF64 file it was patched from (rf64_{tag})")
    src = made["16"]
    h = parse(src)
    size = h["dataSize"]
    ds64 = 12 + 8

    # A ds64 table entry for the data chunk, the ds64 data size left 0.
    body = bytearray(src[ds64:ds64 + 28])
    body[8:16] = struct.pack("<Q", 0)
    table = struct.pack("<I", 1) + b"data" + struct.pack("<Q", size)
    new_ds64 = b"ds64" + struct.pack("<I", 24 + len(table)) + bytes(body[:24]) + table
    blob = src[:12] + new_ds64 + src[ds64 + 28:]
    valid("rf64_table_entry_for_data", "rf64", blob,
          "RF64 s16 stereo whose ds64 data size is 0 and whose table has an entry for 'data' "
          "with the real size (the data chunk's own size is 0xFFFFFFFF)",
          "patched from " + LIBSNDFILE, reference=src,
          reference_note="the RF64 file it was patched from (rf64_16)")

    # A JUNK chunk whose 32-bit size is 0xFFFFFFFF, resolved through the table; a trailing chunk.
    junk_body = b"0123456789"
    table = struct.pack("<I", 1) + b"JUNK" + struct.pack("<Q", len(junk_body))
    new_ds64 = b"ds64" + struct.pack("<I", 28 + 12) + src[ds64:ds64 + 24] + table
    rest = src[ds64 + 28:]
    blob = src[:12] + new_ds64 + b"JUNK" + struct.pack("<I", 0xFFFFFFFF) + junk_body + rest
    blob += b"LIST" + struct.pack("<I", 4) + b"INFO"
    valid("rf64_table_sizes_a_chunk", "rf64", blob,
          "RF64 s16 stereo with a 10-byte JUNK chunk whose 32-bit size is 0xFFFFFFFF (the ds64 "
          "table gives 10) before fmt, and a LIST chunk after the data (not audio)",
          "patched from " + LIBSNDFILE, reference=src,
          reference_note="the RF64 file it was patched from (rf64_16)")

    # Streaming: ds64 all zero, data 0xFFFFFFFF: the audio runs to the end of the file.
    blob = src[:ds64] + bytes(28) + src[ds64 + 28:]
    valid("rf64_streaming", "rf64", blob,
          "RF64 s16 stereo as a streaming writer leaves it: ds64 sizes all 0, data size "
          "0xFFFFFFFF; the audio runs to the end of the file",
          "patched from " + LIBSNDFILE, reference=src,
          reference_note="the RF64 file it was patched from (rf64_16)")

    # Not a whole number of frames: 3 stray bytes after the last frame, then the end.
    blob = src[:ds64 + 8] + struct.pack("<Q", size + 3) + src[ds64 + 16:] + b"\x01\x02\x03"
    valid("rf64_stray_bytes", "rf64", blob,
          "RF64 s16 stereo whose ds64 data size is 3 bytes more than its 40 frames, all present: "
          "40 frames and 3 stray bytes, not truncated",
          "patched from " + LIBSNDFILE, reference=src,
          reference_note="the RF64 file it was patched from (rf64_16)")

    # The ds64 data size past the end of the file: truncated.
    blob = src[:ds64 + 8] + struct.pack("<Q", size + 4 * 1000) + src[ds64 + 16:]
    valid("rf64_data_past_end", "rf64", blob,
          "RF64 s16 stereo whose ds64 data size claims 1,000 frames more than the file holds: "
          "reported truncated, the 40 frames there are read",
          "patched from " + LIBSNDFILE, reference=src,
          reference_note="the RF64 file it was patched from (rf64_16)", truncated=True)

    # Broken ones.
    broken("rf64_err_ds64_short", "rf64",
           src[:ds64 - 4] + struct.pack("<I", 20) + src[ds64:ds64 + 20] + src[ds64 + 28:],
           "ds64TooShort", "ds64 chunk of 20 bytes",
           "RF64 whose ds64 chunk is 20 bytes (28 needed)")
    broken("rf64_err_ds64_table_overrun", "rf64",
           src[:ds64 + 24] + struct.pack("<I", 5) + src[ds64 + 28:],
           "ds64TooShort", "ds64 chunk of 28 bytes",
           "RF64 whose ds64 table length says 5 entries (60 bytes) in a 28-byte chunk")
    broken("rf64_err_no_ds64", "rf64", src[:12] + src[ds64 + 28:], "ds64Missing", "no ds64",
           "RF64 without a ds64 chunk, data size 0xFFFFFFFF")
    broken("rf64_err_ds64_cut", "rf64", src[:ds64 + 13], "truncatedHeader",
           "ends inside the WAV header", "RF64 cut inside its ds64 chunk")
    table = struct.pack("<I", 1) + b"JUNK" + struct.pack("<Q", 1 << 40)
    new_ds64 = b"ds64" + struct.pack("<I", 28 + 12) + src[ds64:ds64 + 24] + table
    broken("rf64_err_table_past_end", "rf64",
           src[:12] + new_ds64 + b"JUNK" + struct.pack("<I", 0xFFFFFFFF) + src[ds64 + 28:],
           "truncatedHeader", "ends inside the WAV header",
           "RF64 whose ds64 table gives a JUNK chunk before fmt a size of 2^40 bytes, past the "
           "end of the file")


# --- RIFX ------------------------------------------------------------------------

GUID_TAIL = bytes([0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])


def riff(magic: bytes, chunks: list[tuple[bytes, bytes]], e: str) -> bytes:
    body = b"WAVE"
    for cid, payload in chunks:
        body += cid + struct.pack(e + "I", len(payload)) + payload
        if len(payload) % 2:
            body += b"\x00"
    return magic + struct.pack(e + "I", len(body)) + body


def fmt16(e: str, tag: int, ch: int, rate: int, bits: int, ba: int) -> bytes:
    return struct.pack(e + "HHIIHH", tag, ch, rate, rate * ba, ba, bits)


def fmt_ext(e: str, ch: int, rate: int, bits: int, valid_bits: int, sub: int,
            guid_order: str | None = None) -> bytes:
    ba = ch * bits // 8
    g = struct.pack((guid_order or e) + "IHH", sub, 0, 0x10) + GUID_TAIL
    return fmt16(e, 0xFFFE, ch, rate, bits, ba) + struct.pack(
        e + "HHI", 22, valid_bits, (1 << ch) - 1) + g


def int_bytes(values: np.ndarray, width: int, e: str) -> bytes:
    out = bytearray()
    for v in values:
        u = int(v) & ((1 << (8 * width)) - 1)
        out += u.to_bytes(width, "big" if e == ">" else "little")
    return bytes(out)


def rifx_vectors(rng) -> None:
    for subtype, ch, rate in [("PCM_U8", 2, 11025), ("PCM_16", 2, 44100), ("PCM_24", 1, 48000),
                              ("PCM_32", 2, 32000), ("FLOAT", 2, 48000), ("DOUBLE", 3, 96000)]:
        blob = sf_write(libsndfile_input(subtype, ch, rng), rate, "WAV", subtype, endian="BIG")
        assert blob[:4] == b"RIFX"
        tag = subtype.lower().replace("pcm_", "")
        valid(f"rifx_{tag}_{ch}ch_{rate}", "rifx", blob,
              f"RIFX (big-endian RIFF) {subtype}, {ch} channel(s), {rate} Hz, as libsndfile "
              "writes it", LIBSNDFILE)
    e = ">"
    for bits, valid_bits, sub, ch, rate in [(16, 16, 1, 2, 48000), (24, 20, 1, 2, 44100),
                                            (32, 32, 1, 4, 48000), (32, 32, 3, 2, 96000),
                                            (64, 64, 3, 1, 22050)]:
        if sub == 1:
            vals = int_values(valid_bits, FRAMES * ch, rng) << (bits - valid_bits)
            data = int_bytes(vals, bits // 8, e)
        else:
            data = float_values(bits, FRAMES * ch, rng).astype(f">f{bits // 8}").tobytes()
        blob = riff(b"RIFX", [(b"fmt ", fmt_ext(e, ch, rate, bits, valid_bits, sub)),
                              (b"data", data)], e)
        kind = "pcm" if sub == 1 else "float"
        valid(f"rifx_ext_{kind}{bits}_valid{valid_bits}_{ch}ch", "rifx", blob,
              f"RIFX WAVE_FORMAT_EXTENSIBLE {kind} {bits}-bit container, {valid_bits} valid "
              f"bits, {ch} channels, {rate} Hz; every field big-endian, the sub-format GUID's "
              "first three fields too", "built by hand with struct")
    vals = int_values(12, FRAMES * 2, rng) << 4
    blob = riff(b"RIFX", [(b"fmt ", fmt16(e, 1, 2, 16000, 12, 4)),
                          (b"data", int_bytes(vals, 2, e))], e)
    valid("rifx_pcm12_2ch", "rifx", blob,
          "RIFX PCM (tag 1) 12-bit stereo in 2-byte big-endian containers, left-justified",
          "built by hand with struct")
    # Broken: sizes written little-endian in a RIFX file, and a little-endian GUID.
    le_sizes = riff(b"RIFX", [(b"fmt ", fmt16(e, 1, 2, 44100, 16, 4)),
                              (b"data", bytes(64))], "<")
    broken("rifx_err_little_endian_sizes", "rifx", le_sizes, "truncatedHeader",
           "ends inside the WAV header",
           "RIFX whose chunk sizes are little-endian: read big-endian, the fmt chunk is "
           "268,435,456 bytes, past the end")
    blob = riff(b"RIFX", [(b"fmt ", fmt_ext(e, 2, 48000, 16, 16, 1, guid_order="<")),
                          (b"data", bytes(64))], e)
    broken("rifx_err_little_endian_guid", "rifx", blob, "unsupportedEncoding",
           "extensible subformat",
           "RIFX EXTENSIBLE whose sub-format GUID is stored little-endian (libsndfile refuses "
           "it too)")


# --- PCM (tag 1) with bit depths that are not whole bytes ---------------------------

def oddpcm_vectors(rng) -> None:
    e = "<"
    cases = [(4, 1, 8000), (5, 2, 8000), (7, 1, 22050), (9, 1, 16000), (12, 2, 44100),
             (14, 2, 48000), (17, 1, 48000), (20, 2, 96000), (23, 1, 44100), (25, 2, 48000),
             (28, 1, 192000), (31, 2, 48000)]
    for bits, ch, rate in cases:
        width = (bits + 7) // 8
        vals = int_values(bits, FRAMES * ch, rng) << (8 * width - bits)
        if width == 1:
            data = bytes(int(v) + 128 for v in vals)
        else:
            data = int_bytes(vals, width, e)
        blob = riff(b"RIFF", [(b"fmt ", fmt16(e, 1, ch, rate, bits, ch * width)),
                              (b"data", data)], e)
        valid(f"pcm{bits}_{ch}ch_{rate}", "oddpcm", blob,
              f"PCM (tag 1) {bits}-bit, {ch} channel(s), {rate} Hz: {width}-byte containers "
              f"(block align {ch * width}), samples left-justified", "built by hand with struct")
    # The low bits set: libsndfile reads the whole container, so does the library.
    raw = rng.integers(-32768, 32767, size=FRAMES * 2, endpoint=True)
    blob = riff(b"RIFF", [(b"fmt ", fmt16(e, 1, 2, 44100, 12, 4)),
                          (b"data", int_bytes(raw, 2, e))], e)
    valid("pcm12_low_bits_set", "oddpcm", blob,
          "PCM (tag 1) 12-bit stereo whose 4 unused low bits are not zero: decoded as the "
          "whole 16-bit container, as libsndfile does", "built by hand with struct")
    data = bytes(64)
    broken("pcm12_err_block_align_6", "oddpcm",
           riff(b"RIFF", [(b"fmt ", fmt16(e, 1, 2, 44100, 12, 6)), (b"data", data)], e),
           "blockAlignMismatch", "block align is 6 bytes, expected 4",
           "PCM 12-bit stereo with block align 6 (3-byte containers; ceil(12 / 8) = 2)")
    broken("pcm20_err_block_align_8", "oddpcm",
           riff(b"RIFF", [(b"fmt ", fmt16(e, 1, 2, 44100, 20, 8)), (b"data", data)], e),
           "blockAlignMismatch", "block align is 8 bytes, expected 6",
           "PCM 20-bit stereo with block align 8 (4-byte containers; ceil(20 / 8) = 3)")
    broken("pcm40_err", "oddpcm",
           riff(b"RIFF", [(b"fmt ", fmt16(e, 1, 1, 44100, 40, 5)), (b"data", data)], e),
           "unsupportedBitDepth", "40-bit PCM", "PCM 40-bit mono: no container holds it")


# --- CAF ---------------------------------------------------------------------------

def caf_chunks(blob: bytes) -> list[tuple[bytes, int, int]]:
    """(type, header offset, size) of every chunk of a CAF file."""
    out, pos = [], 8
    while pos + 12 <= len(blob):
        size = struct.unpack(">q", blob[pos + 4:pos + 12])[0]
        out.append((blob[pos:pos + 4], pos, size))
        if size < 0:
            break
        pos += 12 + size
    return out


def desc(rate: float, fid: bytes, flags: int, bpp: int, fpp: int, ch: int, bits: int) -> bytes:
    return b"desc" + struct.pack(">q", 32) + struct.pack(">d4sIIIII", rate, fid, flags, bpp, fpp,
                                                         ch, bits)


def caf_vectors(rng, tmp: Path) -> None:
    made = {}
    for subtype, ch, rate in [("PCM_S8", 1, 8000), ("PCM_16", 2, 44100), ("PCM_24", 3, 48000),
                              ("PCM_32", 2, 16000), ("FLOAT", 2, 48000), ("DOUBLE", 6, 96000)]:
        for endian in ("LITTLE", "BIG"):
            blob = sf_write(libsndfile_input(subtype, ch, rng), rate, "CAF", subtype, endian)
            tag = subtype.lower().replace("pcm_", "")
            made[(tag, endian)] = blob
            valid(f"caf_{tag}_{endian.lower()}_{ch}ch_{rate}", "caf", blob,
                  f"CAF lpcm {subtype} {endian.lower()}-endian, {ch} channel(s), {rate} Hz, as "
                  "libsndfile writes it (desc, free, data)", LIBSNDFILE)
    # sox, from a WAV of the same type's values (no dither: -D).
    for bits, enc, ch, rate in [(8, "signed-integer", 2, 8000), (16, "signed-integer", 1, 22050),
                                (24, "signed-integer", 2, 44100), (32, "signed-integer", 2, 48000),
                                (32, "floating-point", 2, 32000), (64, "floating-point", 1, 48000)]:
        subtype = {8: "PCM_U8", 16: "PCM_16", 24: "PCM_24", 32: "PCM_32"}[bits] \
            if enc.startswith("signed") else ("FLOAT" if bits == 32 else "DOUBLE")
        src = tmp / f"sox_in_{bits}_{enc}.wav"
        sf.write(str(src), libsndfile_input(subtype, ch, rng), rate, format="WAV",
                 subtype=subtype)
        dst = tmp / f"sox_out_{bits}_{enc}.caf"
        subprocess.run(["sox", "-V1", "-D", str(src), "-t", "caf", "-b", str(bits), "-e", enc, str(dst)],
                       check=True)
        blob = dst.read_bytes()
        kind = "f" if enc.startswith("floating") else "s"
        valid(f"caf_sox_{kind}{bits}_{ch}ch_{rate}", "caf", blob,
              f"CAF lpcm {kind}{bits} (big-endian), {ch} channel(s), {rate} Hz, written by sox "
              f"from a WAV ({enc}, -b {bits}, no dither)", SOX)

    src = made[("16", "LITTLE")]
    chunks = caf_chunks(src)
    data_type, data_at, data_size = chunks[-1]
    assert data_type == b"data"

    blob = src[:data_at + 4] + struct.pack(">q", -1) + src[data_at + 12:]
    valid("caf_data_size_minus_one", "caf", blob,
          "CAF s16 little-endian stereo whose data chunk size is -1: the audio runs to the end "
          "of the file", "patched from " + LIBSNDFILE, reference=src,
          reference_note="the CAF file it was patched from (caf_16_little)")
    blob = src + b"free" + struct.pack(">q", 6) + bytes(6)
    valid("caf_chunk_after_data", "caf", blob,
          "CAF s16 little-endian stereo with a free chunk after the data chunk (not audio)",
          "patched from " + LIBSNDFILE, reference=src,
          reference_note="the CAF file it was patched from (caf_16_little)")
    blob = src[:data_at + 4] + struct.pack(">q", data_size + 4 * 500) + src[data_at + 12:]
    valid("caf_data_past_end", "caf", blob,
          "CAF s16 little-endian stereo whose data size claims 500 frames more than the file "
          "holds: reported truncated", "patched from " + LIBSNDFILE, reference=src,
          reference_note="the CAF file it was patched from (caf_16_little)", truncated=True)
    blob = src[:data_at + 4] + struct.pack(">q", data_size + 1) + src[data_at + 12:] + b"\x07"
    valid("caf_stray_byte", "caf", blob,
          "CAF s16 little-endian stereo whose data chunk holds its 40 frames and 1 stray byte",
          "patched from " + LIBSNDFILE, reference=src,
          reference_note="the CAF file it was patched from (caf_16_little)")

    # Compressed CAF, refused by name.
    x = libsndfile_input("PCM_16", 2, rng)
    for subtype, name in [("ALAC_16", "Apple Lossless"), ("ULAW", "mu-law"), ("ALAW", "A-law")]:
        blob = sf_write(x, 44100, "CAF", subtype)
        broken(f"caf_err_{subtype.lower()}", "caf", blob, "unsupportedCAFEncoding", name,
               f"CAF {subtype} as libsndfile writes it: refused by name")
    head = b"caff" + struct.pack(">HH", 1, 0)
    tail = b"data" + struct.pack(">q", 4 + 64) + bytes(4 + 64)
    broken("caf_err_aac", "caf", head + desc(44100, b"aac ", 0, 0, 1024, 2, 0) + tail,
           "unsupportedCAFEncoding", "AAC", "CAF whose desc says 'aac ' (AAC)")
    broken("caf_err_mp3", "caf", head + desc(44100, b".mp3", 0, 0, 1152, 2, 0) + tail,
           "unsupportedCAFEncoding", "MPEG Layer 3", "CAF whose desc says '.mp3'")
    # desc chunks that lie.
    lies = [
        ("bytes_per_packet", desc(48000, b"lpcm", 2, 6, 1, 2, 16), "cafDescription",
         "6 bytes per packet", "2 channels of 16 bits in 6 bytes per packet"),
        ("frames_per_packet", desc(48000, b"lpcm", 2, 4, 2, 2, 16), "cafDescription",
         "2 frames per packet", "2 frames per packet (linear PCM has 1)"),
        ("zero_channels", desc(48000, b"lpcm", 2, 0, 1, 0, 16), "zeroChannels",
         "channel count is 0", "0 channels"),
        ("rate_zero", desc(0, b"lpcm", 2, 4, 1, 2, 16), "invalidSampleRate", "sample rate 0 Hz",
         "sample rate 0"),
        ("rate_fraction", desc(44100.5, b"lpcm", 2, 4, 1, 2, 16), "cafDescription",
         "44100.5", "sample rate 44100.5 Hz"),
        ("rate_nan", desc(float("nan"), b"lpcm", 2, 4, 1, 2, 16), "cafDescription",
         "sample rate", "sample rate NaN"),
        ("bits_12", desc(48000, b"lpcm", 2, 4, 1, 2, 12), "cafDescription", "12-bit",
         "12-bit integer samples in 2 bytes"),
        ("float_16", desc(48000, b"lpcm", 3, 4, 1, 2, 16), "cafDescription", "16-bit float",
         "16-bit float samples"),
    ]
    for nm, d, error, message, what in lies:
        broken(f"caf_err_desc_{nm}", "caf", head + d + tail, error, message,
               f"CAF whose desc chunk lies: {what}")
    broken("caf_err_version_2", "caf", b"caff" + struct.pack(">HH", 2, 0) + src[8:],
           "unsupportedCAFVersion", "version 2", "CAF file version 2")
    broken("caf_err_desc_not_first", "caf",
           head + b"free" + struct.pack(">q", 4) + bytes(4) + src[8:],
           "cafDescriptionMissing", "does not start with a desc chunk",
           "CAF whose first chunk is free, desc after it")
    broken("caf_err_desc_short", "caf",
           head + b"desc" + struct.pack(">q", 20) + src[20:40] + tail,
           "cafDescription", "20 bytes", "CAF whose desc chunk is 20 bytes (32 needed)")
    broken("caf_err_desc_cut", "caf", src[:30], "truncatedCAFHeader", "ends inside the CAF header",
           "CAF cut inside its desc chunk")
    broken("caf_err_no_data", "caf", src[:data_at], "cafDataMissing", "no data chunk",
           "CAF with desc and free chunks but no data chunk")
    broken("caf_err_data_size_2", "caf", src[:data_at + 4] + struct.pack(">q", 2) + src[data_at + 12:],
           "invalidCAFChunkSize", "size 2", "CAF whose data chunk size is 2 (the edit count "
           "alone takes 4)")
    broken("caf_err_chunk_size_negative", "caf",
           head + src[8:8 + 44] + b"free" + struct.pack(">q", -5) + src[8 + 44:],
           "invalidCAFChunkSize", "size -5", "CAF with a free chunk of size -5")
    broken("caf_err_edit_count_cut", "caf", src[:data_at + 14], "truncatedCAFHeader",
           "ends inside the CAF header", "CAF cut inside the data chunk's edit count")


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        rf64_vectors(np.random.default_rng(8008))
        rifx_vectors(np.random.default_rng(9009))
        oddpcm_vectors(np.random.default_rng(10010))
        caf_vectors(np.random.default_rng(11011), Path(tmp))
    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "soundfile": sf.__version__, "libsndfile": sf.__libsndfile_version__,
                "sox": sox_version()}
    manifest = {"generator": "generate_containers.py", "versions": versions,
                "vectors": VECTORS, "files": dict(sorted(FILES.items()))}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1, allow_nan=False) + "\n")
    total = sum(p.stat().st_size for p in OUT.iterdir())
    kinds: dict[str, list[int]] = {}
    for v in VECTORS:
        kinds.setdefault(v["kind"], [0, 0])[0 if v["valid"] else 1] += 1
    print("containers:", {k: f"{a} valid, {b} broken" for k, (a, b) in kinds.items()},
          "files:", len(FILES), "bytes:", total)
    print("versions:", versions)


if __name__ == "__main__":
    main()
