#!/usr/bin/env python3
"""Assets for evaluating an acoustic echo canceller.

Run from the repository root:

    python3 -m pip install -q pyroomacoustics numpy
    apt-get install -y -qq espeak-ng    # where `command -v espeak-ng` fails
    python3 TestVectors/echo/generate.py

The script owns and rewrites TestVectors/echo/rir/, TestVectors/echo/speech/ and
TestVectors/echo/README.md (never anything else).

rir/     Loudspeaker-to-microphone impulse responses of a phone in a room of
         4 x 3.5 x 2.7 m, by the image-source method of pyroomacoustics, at
         48 kHz, for two reverberation times (0.2 s and 0.5 s) and two
         placements of the phone ("a", "b") in each room.  Raw little-endian
         float32 mono.
speech/  Read English from espeak-ng at its native 22050 Hz: the app's audio
         (what the loudspeaker plays) and a second, clearly different talker
         (the near end, for double talk).  16-bit PCM mono WAV.

It is deterministic: the image-source method has no random part here, numpy's
global generator (which pyroomacoustics would draw from) is seeded anyway, and
espeak-ng gives the same samples for the same text, voice and version.
"""

import hashlib
import platform
import shutil
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

import numpy as np
import pyroomacoustics as pra

OUT = Path(__file__).resolve().parent
SEED = 20240611

# ---------------------------------------------------------------------------------------------
# Room impulse responses

RIR_RATE = 48000
ROOM = [4.0, 3.5, 2.7]
SPEED_OF_SOUND = pra.constants.get("c")
# pyroomacoustics draws each image as a windowed-sinc fractional delay of this many taps,
# centred, so every arrival sits this many samples later than its propagation time.
SINC_CENTRE = pra.constants.get("frac_delay_length") // 2
# The file starts this long before the direct path.
LEAD_IN = RIR_RATE // 1000
# Where the energy decay curve has fallen this far, the response is cut.
TRIM_DB = -60.0
# The largest direct-path peak of the four files after the common scaling.
DIRECT_PEAK = 0.5
MAX_RIR_BYTES = 200 * 1024

# The phone's loudspeaker and microphone are 12 cm apart on the device (a bottom loudspeaker
# and a top microphone), at the same height.  "a": the phone stands upright 25 cm from the
# wall at x = 4 m, 1.1 m high (on a shelf), its long side along y.  "b": the same phone moved
# half a metre into the room and down 15 cm, and turned by 90 degrees so its long side runs
# along x.  Positions are (x, y, z) in metres.
PLACEMENTS = {
    "a": {"loudspeaker": [3.75, 1.40, 1.10], "microphone": [3.75, 1.52, 1.10]},
    "b": {"loudspeaker": [3.35, 1.70, 0.95], "microphone": [3.23, 1.70, 0.95]},
}
ROOMS = {"rt02": 0.2, "rt05": 0.5}

# ---------------------------------------------------------------------------------------------
# Speech

SPEECH_RATE = 22050
TARGET_ACTIVE_DBFS = -23.0
# Silence between sentences, and before the first and after the last.
SENTENCE_GAP_S = 0.12
EDGE_GAP_S = 0.05
# The joined sentences must come to a length in this range ("about 20 s").
MIN_SPEECH_S = 19.0
MAX_SPEECH_S = 22.0
MAX_WAV_BYTES = 1024 * 1024

# Text written for these assets (public domain).  Each list is as long as makes about 20 s.
APP_SENTENCES = [
    "The old lighthouse stood at the edge of the harbour, and every night its keeper climbed "
    "the narrow stairs to light the lamp.",
    "Ships passing in the dark could see the beam sweep across the water from many miles away.",
    "In the winter the wind was so strong that the windows rattled until dawn.",
    "The keeper wrote the name of every vessel he saw in a small notebook.",
]
TALKER_SENTENCES = [
    "Good morning, this is a quick note about the garden before the weekend.",
    "The tomatoes have ripened early this year, so please pick the red ones on Saturday.",
    "I left the watering can by the shed door, next to the bag of compost.",
    "If it rains on Sunday, there is no need to water the beans at all.",
    "Thank you, and see you next week.",
]
VOICES = {
    # file name: (espeak-ng voice, words per minute, sentences)
    "app_speech": ("en-us", 150, APP_SENTENCES),
    "talker": ("en-gb+f3", 150, TALKER_SENTENCES),
}


# ---------------------------------------------------------------------------------------------
# Shared helpers


def energy_decay_db(h):
    """Schroeder's backward integral of h squared, in dB relative to its value at the start."""
    remaining = np.cumsum(h[::-1].astype(np.float64) ** 2)[::-1]
    return 10.0 * np.log10(np.maximum(remaining / remaining[0], 1e-300))


def decay_time(edc_db, rate, top_db, bottom_db):
    """The reverberation time extrapolated from a least-squares line through the decay curve
    between top_db and bottom_db (T20: -5 to -25 dB, T30: -5 to -35 dB), in seconds."""
    inside = np.nonzero((edc_db <= top_db) & (edc_db >= bottom_db))[0]
    slope, _ = np.polyfit(inside / rate, edc_db[inside], 1)
    return -60.0 / slope


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------------------
# Room impulse responses


def simulate(rt60, placement):
    """The raw response of pyroomacoustics for one room and placement, and the sample at which
    its direct path arrives (fractional: propagation time plus the sinc's centre)."""
    absorption, max_order = pra.inverse_sabine(rt60, ROOM)
    np.random.seed(SEED)
    room = pra.ShoeBox(
        ROOM, fs=RIR_RATE, materials=pra.Material(absorption), max_order=max_order)
    room.add_source(placement["loudspeaker"])
    room.add_microphone(placement["microphone"])
    room.compute_rir()
    h = np.asarray(room.rir[0][0], dtype=np.float64)
    distance = np.linalg.norm(np.subtract(placement["loudspeaker"], placement["microphone"]))
    direct = SINC_CENTRE + distance / SPEED_OF_SOUND * RIR_RATE
    return h, direct, absorption, max_order, distance


def direct_peak(h, direct):
    """The largest magnitude within two samples of the direct path's arrival."""
    centre = int(round(direct))
    return float(np.max(np.abs(h[centre - 2:centre + 3])))


def make_rirs():
    """Simulates the four responses, scales them by one common factor, cuts each to start
    LEAD_IN samples before its direct path and to end where its decay reaches TRIM_DB, writes
    them and returns what the README reports."""
    raw = {}
    for room_name, rt60 in ROOMS.items():
        for placement_name, placement in PLACEMENTS.items():
            raw[room_name + placement_name] = (rt60, placement) + simulate(rt60, placement)

    # One factor for all four, so their levels relative to each other stay physical.
    scale = DIRECT_PEAK / max(direct_peak(v[2], v[3]) for v in raw.values())

    folder = OUT / "rir"
    folder.mkdir()
    results = {}
    for name, (rt60, placement, h, direct, absorption, max_order, distance) in raw.items():
        start = max(0, int(np.floor(direct)) - LEAD_IN)
        h = h[start:] * scale
        direct -= start
        edc = energy_decay_db(h)
        below = np.nonzero(edc <= TRIM_DB)[0]
        # The ISM response ends abruptly after its last image, so the decay reaches -60 dB
        # before its end; 1.2 x RT60 is the fallback should it not.
        trimmed_at_decay = len(below) > 0
        end = int(below[0]) if trimmed_at_decay else int(round(1.2 * rt60 * RIR_RATE))
        h = h[:end].astype("<f4")
        path = folder / f"{name}.f32"
        path.write_bytes(h.tobytes())
        if path.stat().st_size >= MAX_RIR_BYTES:
            sys.exit(f"{path} is {path.stat().st_size} bytes, over {MAX_RIR_BYTES}")

        edc = energy_decay_db(h.astype(np.float64))
        centre = int(round(direct))
        direct_energy = np.sum(h[:centre + 3].astype(np.float64) ** 2)
        late_energy = np.sum(h[centre + 3:].astype(np.float64) ** 2)
        results[name] = {
            "rt60": rt60,
            "placement": placement,
            "absorption": absorption,
            "max_order": max_order,
            "distance": distance,
            "samples": len(h),
            "trimmed_at_decay": trimmed_at_decay,
            "bytes": path.stat().st_size,
            "direct": direct,
            "direct_peak_index": int(np.argmax(np.abs(h))),
            "direct_peak": direct_peak(h, direct),
            "t20": decay_time(edc, RIR_RATE, -5.0, -25.0),
            "t30": decay_time(edc, RIR_RATE, -5.0, -35.0),
            "drr_db": 10.0 * np.log10(direct_energy / late_energy),
            "sha256": sha256(path),
        }

    # How far "b" is from "a" in each room: the energy of their difference relative to the
    # energy of "a", over the whole response and past the direct path (the first 2 ms).
    for room_name in ROOMS:
        a = np.fromfile(folder / f"{room_name}a.f32", dtype="<f4").astype(np.float64)
        b = np.fromfile(folder / f"{room_name}b.f32", dtype="<f4").astype(np.float64)
        n = max(len(a), len(b))
        a = np.pad(a, (0, n - len(a)))
        b = np.pad(b, (0, n - len(b)))
        late = 2 * LEAD_IN
        results[room_name + "b"]["change_db"] = 10.0 * np.log10(np.sum((b - a) ** 2) / np.sum(a ** 2))
        results[room_name + "b"]["late_change_db"] = 10.0 * np.log10(
            np.sum((b[late:] - a[late:]) ** 2) / np.sum(a[late:] ** 2))
    return scale, results


# ---------------------------------------------------------------------------------------------
# Speech


def espeak_command(voice, words_per_minute, wav_path, text):
    return ["espeak-ng", "-v", voice, "-s", str(words_per_minute), "-w", str(wav_path), text]


def read_wav_int16(path):
    with wave.open(str(path), "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2 or w.getframerate() != SPEECH_RATE:
            sys.exit(f"espeak-ng wrote {w.getparams()}, expected 16-bit mono at {SPEECH_RATE} Hz")
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768.0


def write_wav_int16(path, x):
    """16-bit PCM mono WAV; x in [-1, 1) is rounded to the nearest integer step."""
    pcm = np.clip(np.round(x * 32768.0), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SPEECH_RATE)
        w.writeframes(pcm.tobytes())


def trim_silence(x, threshold=1e-3):
    """Drops the leading and trailing samples quieter than threshold (espeak-ng pads each
    utterance with silence, which would make the pauses between sentences long)."""
    loud = np.nonzero(np.abs(x) > threshold)[0]
    return x[loud[0]:loud[-1] + 1]


def active_speech_level_db(x, rate):
    """A simplified ITU-T P.56 active speech level: over 10 ms frames, the threshold c is
    raised until the mean power of the frames at or above c is no more than 15.9 dB above c;
    that mean power, in dB relative to full scale, is the level.  (No envelope smoothing or
    hangover, which P.56 has; espeak-ng's pauses are digital silence, so they drop out alike.)"""
    frame = rate // 100
    frames = x[:len(x) // frame * frame].reshape(-1, frame)
    power = np.mean(frames ** 2, axis=1)
    power_db = 10.0 * np.log10(np.maximum(power, 1e-20))
    for threshold in np.arange(-100.0, power_db.max(), 0.1):
        active = power[power_db >= threshold]
        level = 10.0 * np.log10(np.mean(active))
        if level - threshold <= 15.9:
            return level, len(active) / len(power)
    return power_db.max(), 1.0 / len(power)


def make_speech(workdir):
    folder = OUT / "speech"
    folder.mkdir()
    gap = np.zeros(int(round(SENTENCE_GAP_S * SPEECH_RATE)))
    edge = np.zeros(int(round(EDGE_GAP_S * SPEECH_RATE)))
    results = {}
    for name, (voice, words_per_minute, sentences) in VOICES.items():
        pieces = [edge]
        for index, text in enumerate(sentences):
            wav_path = workdir / f"{name}_{index}.wav"
            subprocess.run(espeak_command(voice, words_per_minute, wav_path, text), check=True)
            pieces += [trim_silence(read_wav_int16(wav_path)), gap]
        pieces[-1] = edge
        x = np.concatenate(pieces)
        seconds = len(x) / SPEECH_RATE
        if not MIN_SPEECH_S <= seconds <= MAX_SPEECH_S:
            sys.exit(f"{name}: {seconds:.2f} s of speech, outside {MIN_SPEECH_S} ... {MAX_SPEECH_S} s")

        level, activity = active_speech_level_db(x, SPEECH_RATE)
        x *= 10.0 ** ((TARGET_ACTIVE_DBFS - level) / 20.0)
        peak = np.max(np.abs(x))
        if peak >= 32767.0 / 32768.0:
            sys.exit(f"{name}: the peak would be {20 * np.log10(peak):.2f} dBFS, which clips")
        path = folder / f"{name}.wav"
        write_wav_int16(path, x)
        if path.stat().st_size >= MAX_WAV_BYTES:
            sys.exit(f"{path} is {path.stat().st_size} bytes, over {MAX_WAV_BYTES}")

        written = read_wav_int16(path)
        results[name] = {
            "voice": voice,
            "words_per_minute": words_per_minute,
            "sentences": len(sentences),
            "seconds": len(written) / SPEECH_RATE,
            "bytes": path.stat().st_size,
            "active_dbfs": active_speech_level_db(written, SPEECH_RATE)[0],
            "activity": activity,
            "peak_dbfs": 20.0 * np.log10(np.max(np.abs(written))),
            "sha256": sha256(path),
        }
    return results


# ---------------------------------------------------------------------------------------------
# README


def espeak_version():
    """espeak-ng's own version, and the Debian package's where dpkg knows it."""
    banner = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True,
                            check=True).stdout
    version = banner.split(":", 1)[1].split()[0] if ":" in banner else banner.strip()
    package = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "espeak-ng"],
                             capture_output=True, text=True) if shutil.which("dpkg-query") else None
    if package is not None and package.returncode == 0 and package.stdout:
        return f"espeak-ng {version} (Debian package {package.stdout})"
    return f"espeak-ng {version}"


def write_readme(scale, rirs, speech):
    lines = [
        "# Echo canceller test assets",
        "",
        "Inputs for evaluating an acoustic echo canceller: the app's audio is played on a",
        "phone's loudspeaker and picked up again by its microphone. Everything here is written",
        "by `generate.py` (deterministic); do not edit by hand.",
        "",
        "## Regenerate",
        "",
        "From the repository root:",
        "",
        "    python3 -m pip install -q pyroomacoustics numpy",
        "    command -v espeak-ng || apt-get install -y -qq espeak-ng",
        "    python3 TestVectors/echo/generate.py",
        "",
        "The script deletes and rewrites `rir/`, `speech/` and this README, nothing else.",
        "",
        "## Files",
        "",
        "| file | what | bytes | SHA-256 |",
        "|------|------|------:|---------|",
    ]
    for name, r in rirs.items():
        lines.append(f"| `rir/{name}.f32` | RT60 {r['rt60']} s room, placement {name[-1]}: "
                     f"{r['samples']} samples at 48 kHz | {r['bytes']} | `{r['sha256'][:16]}` |")
    for name, s in speech.items():
        lines.append(f"| `speech/{name}.wav` | espeak-ng `{s['voice']}`, {s['seconds']:.2f} s at "
                     f"22050 Hz | {s['bytes']} | `{s['sha256'][:16]}` |")

    lines += [
        "",
        "## Room impulse responses (`rir/`)",
        "",
        "Loudspeaker-to-microphone responses, raw little-endian float32 mono at 48000 Hz, no",
        "header. Computed with the image-source method of pyroomacoustics (`pra.ShoeBox`, no",
        "randomised images, no air absorption) in a room of 4 x 3.5 x 2.7 m whose walls, floor",
        "and ceiling share one energy absorption coefficient; `pra.inverse_sabine(rt60, room)`",
        "gives that coefficient and the image order from the target RT60.",
        "",
        "The phone's loudspeaker and microphone are 12 cm apart on the device (a bottom",
        "loudspeaker, a top microphone), at the same height. Positions in metres (x, y, z):",
        "",
        "| placement | loudspeaker | microphone | what |",
        "|-----------|-------------|------------|------|",
        f"| a | {tuple(PLACEMENTS['a']['loudspeaker'])} | {tuple(PLACEMENTS['a']['microphone'])} "
        "| upright on a shelf 25 cm from the wall at x = 4 m, 1.1 m high, long side along y |",
        f"| b | {tuple(PLACEMENTS['b']['loudspeaker'])} | {tuple(PLACEMENTS['b']['microphone'])} "
        "| the same phone moved 0.52 m into the room (and 15 cm down), turned by 90 degrees |",
        "",
        "Processing, in this order:",
        "",
        f"1. All four are multiplied by one common factor ({scale:.6g}), chosen so that the",
        f"   largest direct-path peak of the four is {DIRECT_PEAK}. Their levels relative to",
        "   each other stay as simulated (pyroomacoustics gives each path an amplitude of",
        "   1 / distance in metres).",
        "2. Each starts 1 ms (48 samples) before its direct path: the samples before that are",
        "   removed. pyroomacoustics draws every arrival as an 81-tap windowed-sinc",
        f"   fractional delay centred {SINC_CENTRE} samples after its propagation time; the",
        "   direct path's propagation delay (12 cm: "
        f"{next(iter(rirs.values()))['distance'] / SPEED_OF_SOUND * RIR_RATE:.1f} samples) is shorter",
        "   than that, so the kept 1 ms lead-in holds the sinc's leading half and the direct",
        "   path sits at sample 48 + its fractional part. The propagation delay itself is in",
        "   the file only as that fractional part: the lead-in is the same 1 ms for all four.",
        "3. Each ends where its Schroeder energy decay curve has fallen 60 dB below its start,",
        "   or at 1.2 x RT60 where it does not get there ("
        + ("needed for " + ", ".join(n for n, r in rirs.items() if not r["trimmed_at_decay"])
           if not all(r["trimmed_at_decay"] for r in rirs.values()) else "not needed for any")
        + "). The",
        "   strong direct path makes the -60 dB point come before the nominal RT60.",
        "",
        "Measured on the files as written (Schroeder backward integration; T20 is the line",
        "fitted to the decay curve from -5 to -25 dB, T30 from -5 to -35 dB, both extrapolated",
        "to 60 dB). The direct-path delay is where the direct path falls in the file: its",
        "fractional position (propagation time plus the sinc centre, less the samples",
        "removed) and the index of the file's largest sample. DRR is the energy up to two",
        "samples past the direct path over the energy after it.",
        "",
        "| file | target RT60 | absorption | image order | samples | T20 | T30 | direct path (samples) | largest sample | direct peak | DRR |",
        "|------|------------:|-----------:|------------:|--------:|----:|----:|----------------------:|---------------:|------------:|----:|",
    ]
    for name, r in rirs.items():
        lines.append(
            f"| `{name}.f32` | {r['rt60']:.1f} s | {r['absorption']:.4f} | {r['max_order']} | "
            f"{r['samples']} | {r['t20']:.3f} s | {r['t30']:.3f} s | {r['direct']:.2f} | "
            f"{r['direct_peak_index']} | {r['direct_peak']:.4f} | {r['drr_db']:.1f} dB |")
    lines += [
        "",
        "How different \"b\" is from \"a\" (the energy of b - a relative to the energy of a,",
        "both from the file's start; the direct path is the same, since the device is):",
        "",
        "| room | whole response | after the first 2 ms |",
        "|------|---------------:|---------------------:|",
    ]
    for room_name in ROOMS:
        r = rirs[room_name + "b"]
        lines.append(f"| {room_name} | {r['change_db']:.1f} dB | {r['late_change_db']:.1f} dB |")

    lines += [
        "",
        "## Speech (`speech/`)",
        "",
        "16-bit PCM mono WAV at espeak-ng's native 22050 Hz (not resampled). Each sentence of",
        "text written for these files (public domain, in `generate.py`) is synthesised alone,",
        "its leading and trailing silence (samples below 1e-3 of full scale) cut, and the",
        f"sentences joined with {SENTENCE_GAP_S * 1000:.0f} ms of silence "
        f"({EDGE_GAP_S * 1000:.0f} ms before the first",
        "and after the last). The whole file is then scaled so that its active speech level",
        f"is {TARGET_ACTIVE_DBFS:.0f} dBFS (a simplified ITU-T P.56 over 10 ms frames: the level of",
        "the frames at or above a threshold 15.9 dB below that level; no envelope smoothing",
        "or hangover) and rounded to 16 bits.",
        "",
        "The command for each sentence:",
        "",
    ]
    for name, (voice, words_per_minute, _) in VOICES.items():
        command = " ".join(espeak_command(voice, words_per_minute, "SENTENCE.wav", "TEXT"))
        lines.append(f"    {command}    # {name}.wav")
    lines += [
        "",
        "| file | voice | words/min | sentences | seconds | active level | active frames | peak |",
        "|------|-------|----------:|----------:|--------:|-------------:|--------------:|-----:|",
    ]
    for name, s in speech.items():
        lines.append(
            f"| `{name}.wav` | `{s['voice']}` | {s['words_per_minute']} | {s['sentences']} | "
            f"{s['seconds']:.2f} | {s['active_dbfs']:.2f} dBFS | {100 * s['activity']:.0f} % | "
            f"{s['peak_dbfs']:.2f} dBFS |")
    lines += [
        "",
        "`app_speech.wav` is the app's audio (the far end: what the loudspeaker plays);",
        "`talker.wav` is a different voice with different sentences, for the near-end talker",
        "in double talk.",
        "",
        "## Versions used",
        "",
        f"- Python {platform.python_version()}",
        f"- numpy {np.__version__}",
        f"- pyroomacoustics {pra.__version__}",
        f"- {espeak_version()}",
        "",
    ]
    (OUT / "README.md").write_text("\n".join(lines))


def main():
    if shutil.which("espeak-ng") is None:
        sys.exit("espeak-ng is not installed (apt-get install -y -qq espeak-ng)")
    for folder in ("rir", "speech"):
        shutil.rmtree(OUT / folder, ignore_errors=True)
    scale, rirs = make_rirs()
    with tempfile.TemporaryDirectory() as workdir:
        speech = make_speech(Path(workdir))
    write_readme(scale, rirs, speech)
    for name, r in rirs.items():
        print(f"rir/{name}.f32: {r['samples']} samples, T20 {r['t20']:.3f} s, T30 {r['t30']:.3f} s, "
              f"direct path at {r['direct']:.2f} samples")
    for name, s in speech.items():
        print(f"speech/{name}.wav: {s['seconds']:.2f} s, active {s['active_dbfs']:.2f} dBFS, "
              f"peak {s['peak_dbfs']:.2f} dBFS")


if __name__ == "__main__":
    main()
