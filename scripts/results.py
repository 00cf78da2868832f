#!/usr/bin/env python3
"""Writes Benchmarks/RESULTS.md from a pcm-mix-bench JSON record file.

    make bench      # runs every section, then: python3 scripts/results.py .build/bench.json

Sections are written for what the records hold: echo cancellation as its own table, every other
section as a table of its rows by their metrics. Every number in the file is a record of that
run; nothing is typed in by hand. The head names the machine, the date of the run and the
command.
"""
import datetime
import json
import re
import os
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
    day = datetime.date.fromtimestamp(os.path.getmtime(path)).isoformat()
    command = os.environ.get("RESULTS_COMMAND", "make bench")
    out.append(f"Measured on {day} by `{command}` on {cpu}"
               + (f", {int(cores)} cores" if cores else "")
               + ". Every table below is generated from that run (`scripts/results.py`).")
    out.append("")
    if echo:
        out += echo_section(echo)
    for section in dict.fromkeys(r["section"] for r in records):
        if section not in ("machine", "echo"):
            out += generic_section(section, [r for r in records if r["section"] == section])
    print("\n".join(out))


def generic_section(section, records):
    """One table: a row per benchmark row, a column per metric (with its unit)."""
    rows, metrics = {}, {}
    for r in records:
        rows.setdefault(r["name"], {})[r["metric"]] = r["value"]
        metrics.setdefault(r["metric"], r.get("unit", ""))
    lines = [f"## {section} (`pcm-mix-bench --filter {section}`)", ""]
    # Sections with many metrics are split into tables of at most 8 columns.
    names = list(metrics)
    for start in range(0, len(names), 8):
        chunk = names[start:start + 8]
        lines.append("| row | " + " | ".join(f"{m} ({metrics[m]})" if metrics[m] else m
                                              for m in chunk) + " |")
        lines.append("|---" * (len(chunk) + 1) + "|")
        for name, values in rows.items():
            if any(m in values for m in chunk):
                lines.append(f"| {name} | " + " | ".join(
                    f(values.get(m), 3 if abs(values.get(m) or 0) < 10 else 1) for m in chunk)
                    + " |")
        lines.append("")
    return lines


def room_table(scenes):
    """The noisy-room and 16 kHz tables' header and rows: ERLE and a perfect canceller's,
    convergence, double talk and a perfect canceller's, the talker alone, the whole capture."""
    lines = ["| scene | ERLE dB | perfect dB | conv. s | DT SI-SDR | perfect | DT echo red. |"
             " alone | whole |",
             "|---|---|---|---|---|---|---|---|---|"]
    for scene, m in scenes:
        headphones = "headphones" in scene
        lines.append(f"| {scene} | {f(m['erle_before'])} / {f(m['erle_after'])} |"
                     f" {f(m['perfect_before'])} / {f(m['perfect_after'])} |"
                     f" {f(m['convergence'])} / {f(m['reconvergence'])} |"
                     f" {f(m['dt_si_sdr'])} | {f(m['dt_si_sdr_perfect'])} |"
                     f" {'–' if headphones else f(m['dt_echo_reduction'])} |"
                     f" {f(min(m['alone_si_sdr'], 99))} |"
                     f" {f(min(m['whole_si_sdr'], 99)) if headphones else '–'} |")
    return lines


def under(echo, prefix):
    """The echo records named `prefix<scene>`, as (scene, metrics) pairs."""
    return [(name[len(prefix):], m) for name, m in echo.items() if name.startswith(prefix)]


def held_out_lines(echo):
    """The held-out table: per shift of the app's piece, a summary of ours on the 16 scenes."""
    shifts = {}
    for name, m in echo.items():
        if name.startswith("held-out/"):
            shift, scene = name.split("/", 2)[1:]
            shifts.setdefault(shift, []).append((scene, m))
    if not shifts:
        return []
    lines = ["", "held-out: ours on the same scenes with the app's piece started at nine more"
             " shifts, kept out of all tuning (read only in counts and ranges). Per shift: the"
             " scenes (of 16) missing one of the echo targets (ERLE >= 25 dB before and after the"
             " change or within 3 dB of a perfect canceller, 20 dB within 1.5 s of the start and"
             " of the change, the talker >= 15 dB SI-SDR in double talk with the echo >= 15 dB"
             " down); the talker's SI-SDR in double talk, least / median, on speech and on music;"
             " the least echo reduction in double talk; the least ERLE; the slowest convergence"
             " from the start / the change (s; – never).", "",
             "| app from | missing | DT speech dB | DT music dB | DT echo red. | ERLE dB"
             " | conv. s |",
             "|---|---|---|---|---|---|---|"]
    every = []
    for shift, scenes in sorted(shifts.items(), key=lambda item: float(item[0])):
        every += scenes
        lines.append(held_out_row(f"{shift} s", scenes))
    lines.append(held_out_row("all", every))
    return lines


def least_and_median(values):
    """"least / median" of `values`, or – if there are none."""
    if not values:
        return "–"
    v = sorted(values)
    median = (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
    return f"{f(v[0])} / {f(median)}"


def held_out_row(label, scenes):
    """One row of the held-out table over `scenes` ((name, metrics) pairs)."""
    missing = sum(1 for _, m in scenes if m.get("missed_targets", 0) > 0)
    speech = [m["dt_si_sdr"] for name, m in scenes if name.startswith("speech")]
    music = [m["dt_si_sdr"] for name, m in scenes if name.startswith("music")]
    echo_red = min(m["dt_echo_reduction"] for _, m in scenes)
    erle = min(min(m["erle_before"], m["erle_after"]) for _, m in scenes)
    slowest = [max(m[k] if m[k] is not None else float("inf") for _, m in scenes)
               for k in ("convergence", "reconvergence")]
    return (f"| {label} | {missing} of {len(scenes)} | {least_and_median(speech)} |"
            f" {least_and_median(music)} |"
            f" {f(echo_red)} | {f(erle)} | {f(slowest[0])} / {f(slowest[1])} |")


def f(v, digits=1):
    if v is None:
        return "–"
    if v == float("inf") or v != v:
        return "–"
    return f"{v:.{digits}f}"


def swift_cell(canceller, m):
    if canceller != "ours":
        return "–"
    v = m.get("cpu_per_10ms_swift")
    return "differs" if v is None or v != v else f(v)


def echo_levels(m):
    """The echo levels (dB under its own) a table's records were measured at, from their
    metric names (pesq_wb_echo_<dB>), not a copy of the bench's list."""
    return sorted(int(k.rsplit("_", 1)[1]) for k in m if re.fullmatch(r"pesq_wb_echo_\d+", k))


def spoken(levels):
    """The levels as a sentence names them: "20, 25, 30 and 35"."""
    return ", ".join(str(v) for v in levels[:-1]) + f" and {levels[-1]}"


def echo_section(echo):
    lines = ["## Echo cancellation (`pcm-mix-bench --filter echo`)", "",
             "Each `EchoScene` (20 s at 48 kHz: app speech or music through a loudspeaker into the"
             " mic, a talker over it 6–9 s and 14–17 s and alone 17–19 s, the phone moved at 11 s)"
             " through PCMMix, speexdsp (MDF, 200 ms, with its preprocessor as residual suppressor)"
             " and WebRTC's classic AEC (webrtc-audio-processing 0.3). Each canceller's own delay"
             " (speexdsp 480 frames, WebRTC 384) is taken off before measuring. ERLE where the app"
             " plays alone, before / after the path change, against a perfect canceller (mic minus"
             " the true echo); convergence to 20 dB from the start / the change, held over 100 ms"
             " windows for a second (or within 3 dB of the perfect canceller in windows where the"
             " room's noise holds it under 23 dB; – never); the talker in double talk: SI-SDR, echo"
             " reduction, PESQ-WB, and the PESQ-WB of a perfect canceller (the talker with the"
             " room's noise, the mic without its echo: the ceiling any canceller that keeps the"
             " room tone can reach); the talker alone against the raw mic (SI-SDR, capped at 99);"
             " CPU per 10 ms of audio (least of ten runs, in ten rounds each running every"
             " scene and canceller in turn), and ours with its Swift kernels instead of the C ones (the same output, bit"
             " for bit;"
             " \"differs\" if not).", "",
             "| scene | canceller | ERLE dB | perfect dB | conv. s | DT SI-SDR | DT echo red. | PESQ-WB | perfect PESQ | alone | µs / 10 ms | Swift µs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, m in echo.items():
        if name.startswith(("pipeline/", "shifted/", "held-out/", "noisy-room/", "16-khz/",
                            "pesq-demand/", "pesq-heard/", "pesq-denoised/")):
            continue
        scene, canceller = name.rsplit("/", 1)
        headphones = "headphones" in scene
        lines.append(
            f"| {scene} | {canceller} | {f(m.get('erle_before'))} / {f(m.get('erle_after'))} |"
            f" {f(m.get('perfect_before'))} / {f(m.get('perfect_after'))} |"
            f" {f(m.get('convergence'))} / {f(m.get('reconvergence'))} |"
            f" {f(m.get('dt_si_sdr'))} | {'–' if headphones else f(m.get('dt_echo_reduction'))} |"
            f" {f(m.get('pesq_wb'), 2)} | {f(m.get('pesq_wb_perfect'), 2)} |"
            f" {f(min(m.get('alone_si_sdr', 0), 99))} |"
            f" {f(m.get('cpu_per_10ms'))} | {swift_cell(canceller, m)} |")
    split = [(name.rsplit("/", 1)[0], m) for name, m in echo.items()
             if name.endswith("/ours") and "dt_si_sdr_filter" in m]
    if split:
        lines += ["", "Ours in double talk: the talker's SI-SDR from the adaptive filter alone"
                  " (suppression 0: it leaves the talker whole, so this is also the echo reduction"
                  " it reaches, the talker being at the echo's level) and from the whole canceller."
                  " Where the change is negative the suppressor takes more of the talker than of"
                  " the echo the filter left. Last, what the talker costs the filter: the same"
                  " filter's echo reduction over those spans when it runs on the mic without the"
                  " talker (the echo and the room's noise), beside the first column.", "",
                  "| scene | filter alone | whole canceller | change | filter without the talker |",
                  "|---|---|---|---|---|"]
        for scene, m in split:
            change = m["dt_si_sdr"] - m["dt_si_sdr_filter"]
            lines.append(f"| {scene} | {f(m['dt_si_sdr_filter'])} | {f(m['dt_si_sdr'])} |"
                         f" {'+' if change >= 0 else '−'}{f(abs(change))} |"
                         f" {f(m.get('dt_echo_reduction_filter_quiet'))} |")
    demand = [(name.split("/", 1)[1], m) for name, m in echo.items()
              if name.startswith("pesq-demand/")]
    if demand:
        # The levels the bench recorded (pesq_wb_echo_<dB>), not a copy of its list.
        levels = echo_levels(demand[0][1])
        named = spoken(levels)
        lines += ["", "pesq-demand: what PESQ-WB 2.8 in double talk asks of the echo if it is only"
                  " turned down:"
                  f" the talker, whole, with the scene's true echo {named} dB down, in the"
                  " scene's room (white noise at -60 dBFS) and in a silent one. A suppressor takes"
                  " more out where the talker is quiet, so a canceller can score above the column"
                  " its echo reduction matches (ours does on speech). Ours beside them (PESQ-WB,"
                  " and its echo reduction in double talk, dB). The scenes without the"
                  " loudspeaker's clipping.", "",
                  "| scene | ours | ours echo red. |"
                  + "".join(f" echo −{v} dB |" for v in levels)
                  + "".join(f" silent room, −{v} dB |" for v in levels),
                  "|---|---|---|" + "---|" * (2 * len(levels))]
        for scene, m in demand:
            ours = echo.get(f"{scene}/ours", {})
            lines.append(f"| {scene} | {f(ours.get('pesq_wb'), 2)} |"
                         f" {f(ours.get('dt_echo_reduction'))} |"
                         + "".join(f" {f(m.get(f'pesq_wb_echo_{v}'), 2)} |" for v in levels)
                         + "".join(f" {f(m.get(f'pesq_wb_echo_{v}_quiet'), 2)} |"
                                   for v in levels))
    heard = under(echo, "pesq-heard/")
    if heard:
        levels = echo_levels(heard[0][1])
        named = spoken(levels)
        cancellers = [name.rsplit("/", 1)[1] for name in echo
                      if name.startswith(f"{heard[0][0]}/")]
        lowered = dict(heard)
        lines += ["", "pesq-heard: the same double talk scored against the talker as the mic hears"
                  " them (the"
                  " talker with the room's noise: a perfect canceller's output, which scores"
                  " PESQ-WB's maximum against itself) instead of the clean talker. Under this"
                  " reading a canceller that keeps the room tone can reach 2.8. Each canceller,"
                  f" and the talker with the scene's true echo turned down evenly by {named} dB"
                  " (the scenes without the loudspeaker's clipping).", "",
                  "| scene |" + "".join(f" {c} |" for c in cancellers)
                  + "".join(f" echo −{v} dB |" for v in levels),
                  "|---|" + "---|" * (len(cancellers) + len(levels))]
        for scene in [name.rsplit("/", 1)[0] for name in echo
                      if name.endswith("/ours") and echo[name].get("pesq_wb_heard") is not None
                      and "/" not in name.rsplit("/", 1)[0]]:
            m = lowered.get(scene, {})
            lines.append(f"| {scene} |"
                         + "".join(f" {f(echo.get(f'{scene}/{c}', {}).get('pesq_wb_heard'), 2)} |"
                                   for c in cancellers)
                         + "".join(f" {f(m.get(f'pesq_wb_echo_{v}'), 2)} |" for v in levels))
    denoised = under(echo, "pesq-denoised/")
    if denoised:
        lines += ["", "pesq-denoised: the talker in double talk scored against the clean talker"
                  " as in the first table, after a noise reducer in the mic path"
                  " (`Benchmarks/echo_pesq.py --denoise`: a stationary-noise Wiener filter,"
                  " non-causal over the file, so an upper bound of what one would give): a"
                  " perfect canceller's output (the talker and the room's noise) and ours, each"
                  " beside its score without the reducer.", "",
                  "| scene | perfect | perfect + reducer | ours | ours + reducer |",
                  "|---|---|---|---|---|"]
        for scene, m in denoised:
            lines.append(f"| {scene} | {f(m.get('perfect'), 2)} |"
                         f" {f(m.get('perfect_denoised'), 2)} | {f(m.get('ours'), 2)} |"
                         f" {f(m.get('ours_denoised'), 2)} |")
    shifted = [(name.split("/", 2)[1:], m) for name, m in echo.items()
               if name.startswith("shifted/")]
    if shifted:
        lines += ["", "shifted: ours on the same scenes with the app's piece started later"
                  " (`EchoScene`'s"
                  " `appShift`, rotated): other words and notes in the first seconds, under the"
                  " talker and at the path change. The canceller was tuned on the scenes above"
                  " and on the shifts 2.15, 4.3 and 6.45 s; 1.1, 3.2, 5.4 and 8.6 s were first"
                  " run on it after. ERLE before / after the change and a perfect canceller's"
                  " (mic minus the true echo), convergence from the start / the change (s), the"
                  " talker in double talk.", "",
                  "| scene | app from | ERLE dB | perfect dB | conv. s | DT SI-SDR"
                  " | DT echo red. |",
                  "|---|---|---|---|---|---|---|"]
        for (shift, scene), m in shifted:
            lines.append(f"| {scene} | {shift} s | {f(m['erle_before'])} / {f(m['erle_after'])} |"
                         f" {f(m.get('perfect_before'))} / {f(m.get('perfect_after'))} |"
                         f" {f(m['convergence'])} / {f(m['reconvergence'])} |"
                         f" {f(m['dt_si_sdr'])} | {f(m['dt_echo_reduction'])} |")
    lines += held_out_lines(echo)
    noisy = under(echo, "noisy-room/")
    if noisy:
        lines += ["", "noisy-room: ours on the same scenes in a room 15 dB noisier (white noise at"
                  " -45 dBFS"
                  " instead of -60; the canceller was not tuned on it). ERLE before / after the"
                  " change and a perfect canceller's (mic minus the true echo: the room's noise"
                  " limits it), convergence from the start / the change (s; 20 dB, or within 3 dB"
                  " of the perfect canceller where it is held under 23 dB), the talker in double"
                  " talk (SI-SDR, and a perfect canceller's, which keeps the noise), the talker"
                  " alone and, with headphones, the whole capture against the raw mic (SI-SDR,"
                  " capped at 99).", "",
                  *room_table(noisy)]
    voice = under(echo, "16-khz/")
    if voice:
        lines += ["", "16-khz: ours on the same scenes with the pipeline's output at 16 kHz (app"
                  " and mic converted to it, the output back, measured against the scenes"
                  " band-limited the same way; the canceller was tuned at 48 kHz). ERLE before /"
                  " after the change and a perfect canceller's, convergence from the start / the"
                  " change (s), the talker in double talk (SI-SDR, and a perfect canceller's),"
                  " the talker alone and, with headphones, the whole capture against the raw mic"
                  " (SI-SDR, capped at 99).", "",
                  *room_table(voice)]
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
