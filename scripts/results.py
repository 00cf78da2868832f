#!/usr/bin/env python3
"""Writes Benchmarks/RESULTS.md from a pcm-mix-bench JSON record file.

    swift run -c release pcm-mix-bench --filter echo --json bench.json
    python3 scripts/results.py bench.json > Benchmarks/RESULTS.md

Sections are written for what the records hold (today: echo cancellation). Every number in the
file is a record of that run; nothing is typed in by hand.
"""
import json
import sys


def main(path):
    records = json.load(open(path))
    machine = {r["name"]: r for r in records if r["section"] == "machine"}
    echo = {}
    for r in records:
        if r["section"] == "echo":
            echo.setdefault(r["name"], {})[r["metric"]] = r["value"]
    out = ["# Benchmark results", ""]
    cpu = next((r["name"] for r in records if r["section"] == "machine" and r["metric"] == "cores"), "?")
    cores = machine.get(cpu, {}).get("value") if cpu in machine else None
    out.append(f"Measured by `pcm-mix-bench` on {cpu}" + (f", {int(cores)} cores" if cores else "")
               + "; regenerate with the two commands at the top of `scripts/results.py`.")
    out.append("")
    if echo:
        out += echo_section(echo)
    print("\n".join(out))


def f(v, digits=1):
    if v is None:
        return "–"
    if v == float("inf") or v != v:
        return "–"
    return f"{v:.{digits}f}"


def echo_section(echo):
    lines = ["## Echo cancellation (`pcm-mix-bench --filter echo`)", "",
             "Each `EchoScene` (20 s at 48 kHz: app speech or music through a loudspeaker into the"
             " mic, a talker over it 6–9 s and 14–17 s and alone 17–19 s, the phone moved at 11 s)"
             " through PCMMix, speexdsp (MDF, 200 ms, with its preprocessor as residual suppressor)"
             " and WebRTC's classic AEC (webrtc-audio-processing 0.3). Each canceller's own delay"
             " (speexdsp 480 frames, WebRTC 384) is taken off before measuring. ERLE where the app"
             " plays alone, before / after the path change, against a perfect canceller (mic minus"
             " the true echo); convergence to 20 dB from the start / the change (– never); the"
             " talker in double talk: SI-SDR, echo reduction, PESQ-WB; the talker alone against the"
             " raw mic (SI-SDR, capped at 99); CPU per 10 ms of audio (least of three runs).", "",
             "| scene | canceller | ERLE dB | perfect dB | conv. s | DT SI-SDR | DT echo red. | PESQ-WB | alone | µs / 10 ms |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, m in echo.items():
        if name.startswith("pipeline/"):
            continue
        scene, canceller = name.rsplit("/", 1)
        headphones = "headphones" in scene
        lines.append(
            f"| {scene} | {canceller} | {f(m.get('erle_before'))} / {f(m.get('erle_after'))} |"
            f" {f(m.get('perfect_before'))} / {f(m.get('perfect_after'))} |"
            f" {f(m.get('convergence'))} / {f(m.get('reconvergence'))} |"
            f" {f(m.get('dt_si_sdr'))} | {'–' if headphones else f(m.get('dt_echo_reduction'))} |"
            f" {f(m.get('pesq_wb'), 2)} | {f(min(m.get('alone_si_sdr', 0), 99))} |"
            f" {f(m.get('cpu_per_10ms'))} |")
    lines += ["", "In `ClockedCapturePipeline` (speech 30 ms RT60 0.2 s; 10 ms stamped buffers of"
              " each source, then a 10 ms pull; append + pull, CPU of the thread):", "",
              "| echo cancellation | pull p50 µs | pull p99 µs | allocations | bytes held |",
              "|---|---|---|---|---|"]
    for state, label in (("off", "off"), ("on", "on"), ("loudness", "off, loudness meter on")):
        m = echo.get(f"pipeline/{state}")
        if m:
            lines.append(f"| {label} | {f(m['pull_p50'])} | {f(m['pull_p99'])} |"
                         f" {int(m['allocations'])} | {int(m['retained']):,} |")
    lines.append("")
    return lines


if __name__ == "__main__":
    main(sys.argv[1])
