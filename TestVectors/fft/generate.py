#!/usr/bin/env python3
"""Reference spectra for PCMMix's RealFFT, from numpy (run from this folder).

For each length n in SIZES: `input_n.f32` holds n float32 samples (a seeded mix of noise, a
tone and an impulse), `rfft_n.f64` numpy.fft.rfft of them in float64 as n/2 + 1 (re, im)
pairs. The Swift test transforms the same float32 input and compares.
"""
import numpy as np

SIZES = [4, 8, 64, 512, 4096]

for n in SIZES:
    rng = np.random.default_rng(n)
    t = np.arange(n)
    x = 0.5 * rng.standard_normal(n) + 0.3 * np.sin(2 * np.pi * 0.1234 * t)
    x[n // 3] += 1.0
    x = x.astype(np.float32)
    x.tofile(f"input_{n}.f32")
    spectrum = np.fft.rfft(x.astype(np.float64))
    np.stack([spectrum.real, spectrum.imag], axis=1).astype(np.float64).tofile(f"rfft_{n}.f64")
