#!/usr/bin/env python3
"""Wide-band PESQ (ITU-T P.862.2) of a degraded speech file against its reference.

Usage:

    python3 Benchmarks/echo_pesq.py [--denoise] REF.wav DEG.wav [START_S END_S]...

Prints one line `pesq_wb <value>` per time range, in seconds from the start of the files, or
one line for the whole files when no range is given.  A range where PESQ cannot be computed
(no speech in the reference, too short, past the end) prints `pesq_wb nan`.

Both files are mixed down to mono, resampled to 16 kHz with scipy.signal.resample_poly and
cut to the shorter of the two; each range is then taken from both alike, so the files must be
time-aligned.  The score comes from the PyPI package `pesq` (python3 -m pip install pesq);
without it the script exits with status 2.  Usage errors exit with status 1.

--denoise first passes the degraded file through a stationary-noise Wiener filter (see
`denoise`): what a noise reducer after the canceller would give the score, for the question
whether noise reduction in the mic path (one reading of the echo issue's PESQ-WB target)
would reach it.
"""

import sys
from math import gcd

PESQ_RATE = 16000


def usage(message):
    print(f"echo_pesq: {message}", file=sys.stderr)
    print("usage: echo_pesq.py [--denoise] REF.wav DEG.wav [START_S END_S]...",
          file=sys.stderr)
    sys.exit(1)


def parse_ranges(arguments):
    """Pairs of (start, end) seconds; None stands for the whole file."""
    if len(arguments) % 2 != 0:
        usage("time ranges come in pairs: START_S END_S")
    ranges = []
    for start_text, end_text in zip(arguments[0::2], arguments[1::2]):
        try:
            start, end = float(start_text), float(end_text)
        except ValueError:
            usage(f"not a time range in seconds: {start_text} {end_text}")
        if not 0 <= start < end:
            usage(f"a range needs 0 <= START_S < END_S: {start_text} {end_text}")
        ranges.append((start, end))
    return ranges or [None]


def read_mono_16k(path, np, wavfile, resample_poly):
    """The file's samples as float64 in [-1, 1], channels averaged, at 16 kHz."""
    try:
        rate, data = wavfile.read(path)
    except (OSError, ValueError) as error:
        usage(f"cannot read {path}: {error}")
    if data.dtype == np.uint8:
        samples = (data.astype(np.float64) - 128.0) / 128.0
    elif np.issubdtype(data.dtype, np.integer):
        samples = data.astype(np.float64) / float(-np.iinfo(data.dtype).min)
    else:
        samples = data.astype(np.float64)
    if samples.ndim == 2:
        samples = samples.mean(axis=1)
    divisor = gcd(PESQ_RATE, rate)
    return resample_poly(samples, PESQ_RATE // divisor, rate // divisor)


def denoise(x, np, stft, istft):
    """`x` (16 kHz) through a Wiener filter for stationary noise: STFT of 512 points (32 ms),
    hop 128; each bin's noise power from its 10th percentile over the whole file (a tenth of
    exponentially distributed powers lies under 0.1054 of their mean), the a priori SNR by
    Ephraim and Malah's decision-directed rule (0.98), gains no lower than -20 dB. Non-causal
    over the file, so an upper bound of what a real-time reducer of the kind does."""
    _, _, spectra = stft(x, PESQ_RATE, window="hann", nperseg=512, noverlap=384)
    power = np.abs(spectra) ** 2
    noise = np.maximum(np.percentile(power, 10, axis=1) / 0.1054, 1e-20)
    gains = np.ones_like(power)
    previous = np.zeros(power.shape[0])
    least = 10 ** (-20 / 20)
    for j in range(power.shape[1]):
        posterior = power[:, j] / noise
        prior = 0.98 * previous + 0.02 * np.maximum(posterior - 1, 0)
        gain = np.maximum(prior / (1 + prior), least)
        gains[:, j] = gain
        previous = gain ** 2 * posterior
    _, y = istft(spectra * gains, PESQ_RATE, window="hann", nperseg=512, noverlap=384)
    return y[:len(x)]


def main():
    arguments = sys.argv[1:]
    denoised = "--denoise" in arguments
    arguments = [a for a in arguments if a != "--denoise"]
    if len(arguments) < 2:
        usage("needs a reference and a degraded file")
    reference_path, degraded_path = arguments[0], arguments[1]
    ranges = parse_ranges(arguments[2:])

    try:
        from pesq import PesqError, pesq
    except ImportError:
        print("echo_pesq: the Python package 'pesq' is not installed "
              "(python3 -m pip install pesq)", file=sys.stderr)
        sys.exit(2)
    try:
        import numpy as np
        from scipy.io import wavfile
        from scipy.signal import istft, resample_poly, stft
    except ImportError:
        print("echo_pesq: needs numpy and scipy (python3 -m pip install numpy scipy)",
              file=sys.stderr)
        sys.exit(2)

    reference = read_mono_16k(reference_path, np, wavfile, resample_poly)
    degraded = read_mono_16k(degraded_path, np, wavfile, resample_poly)
    if denoised:
        degraded = denoise(degraded, np, stft, istft)
    length = min(len(reference), len(degraded))
    reference, degraded = reference[:length], degraded[:length]

    for time_range in ranges:
        if time_range is None:
            first, last = 0, length
        else:
            first = int(round(time_range[0] * PESQ_RATE))
            last = min(length, int(round(time_range[1] * PESQ_RATE)))
        score = float("nan")
        # pesq divides both signals by their common peak, so two silent pieces give no score.
        if first < last and np.any(reference[first:last] != 0):
            try:
                score = pesq(PESQ_RATE, reference[first:last], degraded[first:last], "wb")
            except (PesqError, ValueError):
                # No utterance found in the reference, too short a piece, or samples PESQ
                # cannot take (a silent degraded piece over a silent reference, NaNs).
                pass
        print(f"pesq_wb {score:.3f}" if score == score else "pesq_wb nan")


if __name__ == "__main__":
    main()
