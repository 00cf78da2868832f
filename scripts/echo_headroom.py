#!/usr/bin/env python3
"""How much of the talker a suppressor could still win back in double talk, on the echo bench's
dumps. Run `PCMMIX_ECHO_DUMP=DIR pcm-mix-bench --filter echo/ours`, then
`python3 scripts/echo_headroom.py DIR`.

For each loudspeaker scene dumped with the adaptive filter alone (`<scene>-filter.wav`,
suppression 0: the matrix's and the shifted scenes') it prints the talker's SI-SDR over the double talk (6-9 s and 14-17 s) from the
filter alone and from the whole canceller (`-ours.wav`), then from the filter's output with
gains no estimate can reach: each bin's residual echo known exactly (the filter's output less
the talker and the room's noise, smoothed over three frames), the gain
max(-30 dB, 1 - 2 * residual / |E|^2), in frames of 512 (the canceller's) and 2048 samples
(four times finer in frequency), hop 256. Last, where the filter's residual lies in double
talk: its share below 375 Hz and at 375-750 Hz.

`python3 scripts/echo_headroom.py --pesq DIR` asks the same of PESQ-WB (PyPI `pesq`), scored
against the talker as the mic hears them (the talker and the room's noise), the mean over the
two spans: from the filter alone; from the whole canceller; from the filter's output with the
exact gain max(-30 dB, 1 - residual / |E|^2) in every bin of every 512-sample frame (the
residual unsmoothed); with the whole canceller's gains kept but for the bins where the residual
outweighs the talker and the noise, which get the exact gain; the same only in the talker's
frames (within 30 dB of its loudest). The whole canceller's gain in a bin is read off its
output, Re(out * conj(E)) / |E|^2, clipped to 0-1 (the comfort noise, uncorrelated with E,
falls out). Last, how well the filter's echo estimate marks those bins over the talker's
frames: the area under the ROC curve of |Y|^2 / |E|^2 (Y the estimate, mic - filter output)
for the bins where the residual outweighs the talker and the noise, 0.5 for chance, 1 for a
perfect mark.

`python3 scripts/echo_headroom.py DIR SCENE` (a dump's prefix, as `shift2.15-music_120_ms_rt05`)
prints the same two outputs' SI-SDR over each half second of the double talk instead, with the
scale SI-SDR puts on the talker (under 1 where the talker comes out quieter), the talker's and
the echo's level; last, the whole double talk's SI-SDR with the first half second of each span
taken from the filter alone.
"""

import glob
import os
import sys

import numpy as np
import soundfile as sf

RATE = 48000
HOP = 256
DOUBLE_TALK = [(6, 9), (14, 17)]


def read(prefix, part):
    return sf.read(f"{prefix}-{part}.wav", dtype="float64")[0]


def spans(x):
    return np.concatenate([x[a * RATE : b * RATE] for a, b in DOUBLE_TALK])


def scaled_sdr(x, reference):
    scale = np.dot(x, reference) / np.dot(reference, reference)
    target = scale * reference
    return 10 * np.log10(np.dot(target, target) / np.sum((x - target) ** 2)), scale


def si_sdr(x, reference):
    return scaled_sdr(spans(x), spans(reference))[0]


def level(x):
    return 10 * np.log10(np.mean(x**2) + 1e-20)


def half_seconds(prefix):
    talker, echo = read(prefix, "talker"), read(prefix, "echo")
    filtered, whole = read(prefix, "filter"), read(prefix, "ours")
    print("| from s | filter alone | whole | whole's scale | talker dBFS | echo dBFS |")
    print("|---|---|---|---|---|---|")
    for start, end in DOUBLE_TALK:
        for at in np.arange(start, end, 0.5):
            span = slice(int(at * RATE), int((at + 0.5) * RATE))
            alone = scaled_sdr(filtered[span], talker[span])[0]
            sdr, scale = scaled_sdr(whole[span], talker[span])
            cells = [alone, sdr, scale, level(talker[span]), level(echo[span])]
            print(f"| {at:.1f} | " + " | ".join(f"{v:.2f}" if i == 2 else f"{v:.1f}"
                                                for i, v in enumerate(cells)) + " |")
    spared = whole.copy()
    for start, _ in DOUBLE_TALK:
        span = slice(start * RATE, start * RATE + RATE // 2)
        spared[span] = filtered[span]
    print(f"\ndouble talk: whole {si_sdr(whole, talker):.1f} dB SI-SDR; with each span's first"
          f" half second from the filter alone {si_sdr(spared, talker):.1f}")


def window(size):
    return np.sqrt(np.hanning(size + 1)[:size])


def analyse(x, size):
    w = window(size)
    frames = (len(x) - size) // HOP + 1
    return np.fft.rfft(np.stack([x[i * HOP : i * HOP + size] * w for i in range(frames)]), axis=1)


def synthesise(spectra, size, length):
    w = window(size)
    frames = np.fft.irfft(spectra, n=size, axis=1) * w
    out, weight = np.zeros(length), np.zeros(length)
    for i, frame in enumerate(frames):
        out[i * HOP : i * HOP + size] += frame
        weight[i * HOP : i * HOP + size] += w * w
    return out / np.maximum(weight, 1e-9)


def oracle(filtered, residual, size):
    e = analyse(filtered, size)
    r = np.abs(analyse(residual, size)) ** 2
    r = (np.roll(r, 1, axis=0) + r + np.roll(r, -1, axis=0)) / 3
    gain = np.maximum(10 ** -1.5, 1 - 2 * r / np.maximum(np.abs(e) ** 2, 1e-20))
    return synthesise(gain * e, size, len(filtered))


def shares(residual):
    power = np.abs(analyse(spans(residual), 512)) ** 2
    total = power.sum()
    return power[:, :4].sum() / total, power[:, 4:8].sum() / total


def talker_frames(talker, frames):
    """Double-talk frames (of `analyse`'s, 512 samples) where the talker is within 30 dB of its
    loudest frame."""
    power = np.abs(analyse(talker, 512)) ** 2
    level = power.sum(axis=1)[:frames]
    at = (np.arange(frames) * HOP + 256) / RATE
    spans = np.zeros(frames, bool)
    for start, end in DOUBLE_TALK:
        spans |= (at >= start) & (at < end)
    return spans & (level > level.max() * 1e-3)


def area_under_roc(labels, scores):
    """Mann-Whitney: the chance that a random positive scores above a random negative."""
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    positives = labels.sum()
    negatives = len(labels) - positives
    return (ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives)


def pesq_heard(heard, x, pesq, resample_poly):
    scores = [pesq(16000, resample_poly(heard[a * RATE : b * RATE], 1, 3),
                   resample_poly(x[a * RATE : b * RATE], 1, 3), "wb") for a, b in DOUBLE_TALK]
    return sum(scores) / len(scores)


def pesq_headroom(folder):
    try:
        from pesq import pesq
        from scipy.signal import resample_poly
    except ImportError:
        sys.exit("echo_headroom: --pesq needs PyPI's pesq and scipy (python3 -m pip install pesq)")
    print("| scene | filter alone | whole | exact gains | exact where the echo outweighs "
          "| the same, talker's frames | estimate's AUC |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(folder, "*-filter.wav"))):
        prefix = path[: -len("-filter.wav")]
        talker, mic, echo = read(prefix, "talker"), read(prefix, "mic"), read(prefix, "echo")
        filtered, whole = read(prefix, "filter"), read(prefix, "ours")
        heard = mic - echo
        e, h, out = (analyse(x, 512) for x in (filtered, heard, whole))
        frames = len(e)
        residual = np.abs(e - h) ** 2
        power = np.maximum(np.abs(e) ** 2, 1e-20)
        exact = np.maximum(10 ** -1.5, 1 - residual / power)
        ours = np.clip(np.real(out[:frames] * np.conj(e)) / power, 0, 1)
        outweighs = residual > np.abs(h) ** 2
        speaking = talker_frames(talker, frames)[:, None]
        row = [filtered, whole]
        for gain in (exact, np.where(outweighs, exact, ours),
                     np.where(outweighs & speaking, exact, ours)):
            row.append(synthesise(gain * e, 512, len(filtered)))
        scores = [pesq_heard(heard, x, pesq, resample_poly) for x in row]
        estimate = np.abs(analyse(mic - filtered, 512)) ** 2
        cells = np.s_[speaking[:, 0], 2:250]
        auc = area_under_roc(outweighs[cells].ravel(), (estimate[cells] / power[cells]).ravel())
        cells = [f"{v:.2f}" for v in scores] + [f"{auc:.2f}"]
        print(f"| {os.path.basename(prefix).replace('_', ' ')} | " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--pesq":
        pesq_headroom(sys.argv[2])
        return
    if len(sys.argv) == 3:
        half_seconds(os.path.join(sys.argv[1], sys.argv[2]))
        return
    if len(sys.argv) != 2:
        sys.exit("usage: echo_headroom.py [--pesq] DUMP_DIR [SCENE]")
    print("| scene | filter alone | whole | exact residual, 512 | exact residual, 2048 "
          "| residual < 375 Hz | 375-750 Hz |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*-filter.wav"))):
        prefix = path[: -len("-filter.wav")]
        name = os.path.basename(prefix)
        talker, mic, echo = read(prefix, "talker"), read(prefix, "mic"), read(prefix, "echo")
        filtered, whole = read(prefix, "filter"), read(prefix, "ours")
        residual = filtered - talker - (mic - echo - talker)
        low, next_octave = shares(residual)
        row = [si_sdr(filtered, talker), si_sdr(whole, talker)]
        row += [si_sdr(oracle(filtered, residual, size), talker) for size in (512, 2048)]
        cells = [f"{v:.1f}" for v in row] + [f"{low:.2f}", f"{next_octave:.2f}"]
        print(f"| {name.replace('_', ' ')} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
