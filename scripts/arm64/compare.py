#!/usr/bin/env python3
"""Compares what the arm64 check's driver wrote on x86-64 and on arm64 (arm64-check.sh).

Checks, case by case:
- portable (no kernels): x86-64 and arm64 give the same bits for everything that is not a
  resampler; for the resamplers, arm64's portable kernels fuse (they compute the AVX2 chains),
  so they must equal x86-64 running the AVX2 kernels with the portable structure (mode 2), and
  stay within a stated bound of x86-64's unfused portable kernels;
- kernels (mode 1): arm64's NEON set gives the same bits as x86-64's AVX2 set.
Exits non-zero on any difference beyond that.
"""
import struct
import sys

import numpy as np

# Fused vs unfused portable kernels (arm64 against x86-64, no kernel set on either): the largest
# difference allowed on any resampler output, relative to full scale (1.0). A one-ulp change of
# a product near full scale is 6e-8; sums of a few hundred taps reach a few ulps of the output.
FUSED_BOUND = 2e-6

KINDS = {0: np.float32, 1: np.int16, 2: np.float64}


def read(path):
    records = {}
    with open(path, "rb") as f:
        data = f.read()
    at = 0
    while at < len(data):
        (n,) = struct.unpack_from("<I", data, at)
        name = data[at + 4 : at + 4 + n].decode()
        kind, size = struct.unpack_from("<iq", data, at + 4 + n)
        at += 4 + n + 12
        records[name] = (kind, data[at : at + size])
        at += size
    return records


def values(record):
    kind, raw = record
    return np.frombuffer(raw, dtype=KINDS[kind])


def same(a, b):
    return a[0] == b[0] and a[1] == b[1]


def is_resampler(name):
    return name.startswith("fixed ") or name.startswith("variable ")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    portable_only = "--portable-only" in sys.argv
    out = args[0]
    x86 = read(f"{out}/x86_64-portable.bin")
    arm = read(f"{out}/aarch64-portable.bin")
    failures = []
    if set(x86) != set(arm):
        failures.append(f"case lists differ: {sorted(set(x86) ^ set(arm))[:5]}")

    # Everything but the resamplers: bit for bit.
    plain = [n for n in x86 if not is_resampler(n) and n in arm]
    count = 0
    for name in plain:
        if not same(x86[name], arm[name]):
            a, b = values(x86[name]), values(arm[name])
            where = np.flatnonzero(a.view(np.uint8) != b.view(np.uint8)) if len(a) == len(b) else []
            failures.append(f"{name}: arm64 differs from x86-64 ({len(where)} bytes differ)")
        count += len(values(x86[name]))
    print(f"arm64-check: {len(plain)} cases (decode, channels, encode, mixer, limiter, meters, "
          f"echo, ducking): {count:,} values, arm64 = x86-64 bit for bit"
          + ("" if not failures else " — NOT"))

    # Resamplers, portable: arm64 fuses, so within a bound of x86-64 unfused...
    resampled = [n for n in x86 if is_resampler(n) and n in arm]
    worst, worst_name, identical, total = 0.0, "", 0, 0
    for name in resampled:
        a, b = values(x86[name]), values(arm[name])
        if len(a) != len(b):
            failures.append(f"{name}: {len(a)} outputs on x86-64, {len(b)} on arm64")
            continue
        total += len(a)
        identical += int(np.sum(a.view(np.uint32) == b.view(np.uint32)))
        d = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if len(a) else 0.0
        if d > worst:
            worst, worst_name = d, name
    print(f"arm64-check: {len(resampled)} resampler runs, portable kernels: {total:,} outputs, "
          f"{identical:,} identical to x86-64's unfused ones; largest difference {worst:.2e} "
          f"of full scale ({worst_name or 'none'}), bound {FUSED_BOUND:.0e}")
    if worst > FUSED_BOUND:
        failures.append(f"fused portable kernels differ from x86-64's by {worst:.2e} > {FUSED_BOUND:.0e}")

    if not portable_only:
        # ...and bit for bit equal to the same chains on x86-64 (AVX2, portable structure).
        chains = read(f"{out}/x86_64-avx2-chains.bin")
        bad = [n for n in resampled if not same(chains[n], arm[n])]
        print(f"arm64-check: {len(resampled)} resampler runs, arm64 portable (fused) = x86-64 AVX2 "
              f"chains bit for bit: {len(resampled) - len(bad)} of {len(resampled)}")
        failures += [f"{n}: arm64 portable differs from the AVX2 chains" for n in bad[:10]]
        # The kernel sets: NEON on arm64 against AVX2 on x86-64.
        avx2 = read(f"{out}/x86_64-avx2.bin")
        neon = read(f"{out}/aarch64-neon.bin")
        bad = [n for n in avx2 if n not in neon or not same(avx2[n], neon[n])]
        outputs = sum(len(values(avx2[n])) for n in avx2)
        print(f"arm64-check: {len(avx2)} resampler runs with kernels: {outputs:,} outputs, NEON "
              f"(arm64) = AVX2 (x86-64) bit for bit: {len(avx2) - len(bad)} of {len(avx2)}")
        failures += [f"{n}: NEON differs from AVX2" for n in bad[:10]]

    for f in failures:
        print(f"arm64-check: FAIL {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
