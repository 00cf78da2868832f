#!/bin/sh
# Smoke test of the benchmark (no timing assertions): builds in release, runs every section
# briefly, and checks that the JSON is a well-formed array of measurement records covering each
# section, and that the allocation counter saw Swift's allocations.
#
#   Benchmarks/smoke.sh            (from anywhere; SWIFT overrides the swift command)
set -eu
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
json="$(mktemp "${TMPDIR:-/tmp}/pcm-mix-bench-smoke.XXXXXX")"
trap 'rm -f "$json"' EXIT INT TERM

# One build of every product, so the pcm-mix binary the CLI section runs matches the library.
"$SWIFT" build -c release
"$SWIFT" run -c release --skip-build pcm-mix-bench --seconds 0.2 --json "$json"

python3 - "$json" <<'PY'
import json, math, shutil, sys

with open(sys.argv[1]) as f:
    records = json.load(f)
assert isinstance(records, list) and records, "expected a non-empty JSON array"
keys = {"section", "name", "metric", "value", "unit"}
for r in records:
    assert isinstance(r, dict) and set(r) == keys, f"bad record {r!r}"
    for k in ("section", "name", "metric", "unit"):
        assert isinstance(r[k], str) and r[k], f"bad {k} in {r!r}"
    v = r["value"]
    assert v is None or (isinstance(v, (int, float)) and math.isfinite(v)), f"bad value in {r!r}"

def value(section, name, metric):
    hits = [r["value"] for r in records
            if r["section"] == section and r["name"] == name and r["metric"] == metric]
    assert hits, f"missing {section} / {name} / {metric}"
    return hits[0]

sections = {r["section"] for r in records}
for s in ("machine", "capture", "stages", "resamplers", "cli", "timing", "debug", "echo",
          "ducking", "loudness"):
    assert s in sections, f"no records for section {s}"
assert value("machine", "alloc_counter", "counted_for_100_arrays") >= 100, "allocations not counted"
for metric in ("callback_p50", "callback_p99", "callback_p99.9", "callback_max",
               "allocations_first_window", "allocations_after_first_window", "retained",
               "peak_rss", "throughput"):
    value("capture", "builtin-balanced", metric)
for stage in ("decode", "upmix", "resample builtin-balanced", "mix"):
    value("stages", stage, "block_p50")
row = "builtin-balanced 44100->48000 2ch"
for metric in ("ns_per_sample_p50", "ns_per_sample_p99", "throughput", "worst_snr",
               "gain_at_0.9_nyquist", "delay", "stream_latency_mean"):
    value("resamplers", row, metric)
for peer in ("soxr-hq", "speex-5"):
    value("resamplers", f"{peer} 44100->48000 2ch", "ns_per_sample_p50")
value("debug", "consumer -Onone", "pull_p99")
# The README's configuration in a Debug build: timed with the echo canceller running (its
# delay found), not bypassed.
value("debug", "consumer -Onone, echo+duck+loudness", "pull_p99")
value("debug", "consumer -Onone, echo+duck+loudness", "echo_delay")
# The per-buffer path allocates nothing once configured, in a Debug build too (the consumer
# counts from its second second; the scene and the pull schedule are fixed, so the count is).
for row in ("consumer -Onone", "consumer -Onone, accelerated",
            "consumer -Onone, echo+duck+loudness"):
    n = value("debug", row, "allocations_after_first_second")
    assert n == 0, f"debug / {row}: {n} heap allocations after the first second"
    # And what its creation costs there (the filter designs, the first in the process).
    value("debug", row, "setup")
value("cli", "pcm-mix mix", "wall_median")
value("cli", "pcm-mix mix", "peak_rss")
value("cli", "pcm-mix convert", "wall_median")
value("cli", "pcm-mix mix", "output_frames")
if shutil.which("sox"):
    value("cli", "sox -m", "wall_median")
if shutil.which("ffmpeg"):
    value("cli", "ffmpeg mix", "wall_median")
    value("cli", "ffmpeg convert", "wall_median")
for row, metric in (("drift/steered", "mic_error_max"), ("hour/default", "error_max"),
                    ("cost/realtime", "pull_p99"), ("switch/prepared", "switch_allocations")):
    value("timing", row, metric)
# The timed pipeline's pulls allocate nothing: 19 s of 10 ms pulls of the echo scene each, plain,
# with echo cancellation, with the loudness meter, and with ducking alone and with cancellation
# (the recovery work once made every pull allocate, and nothing here noticed).
for row in ("pipeline/off", "pipeline/on", "pipeline/loudness", "pipeline/ducking",
            "pipeline/ducking+echo"):
    assert value("echo", row, "allocations") == 0, f"echo / {row}: the pulls allocated"
for scene in ("speech 30 ms rt02", "music headphones"):
    for canceller in ("ours", "speexdsp", "webrtc"):
        value("echo", f"{scene}/{canceller}", "erle_before")
print(f"smoke: {len(records)} records in {len(sections)} sections, JSON well formed")
PY

# The capture-timing scenes at full length (20 minutes and an hour of simulated capture, about
# 30 s in release): not timings, but where the audio lands, which must not regress. They run
# here, release-built through the benchmark, and not in the Debug `swift test`, where the hour
# alone took 138 s and grew the whole run from 160 to 250-310 s.
"$SWIFT" run -c release --skip-build pcm-mix-bench --seconds 60 --filter timing/drift \
  --json "$json" >/dev/null
"$SWIFT" run -c release --skip-build pcm-mix-bench --seconds 60 --filter timing/hour \
  --json "$json.hour" >/dev/null
"$SWIFT" run -c release --skip-build pcm-mix-bench --seconds 20 --filter timing/switch \
  --json "$json.switch" >/dev/null
python3 - "$json" "$json.hour" "$json.switch" <<'PY'
import json, sys

records = [r for path in sys.argv[1:] for r in json.load(open(path))]
def value(name, metric):
    hits = [r["value"] for r in records if r["name"] == name and r["metric"] == metric]
    assert hits, f"missing timing / {name} / {metric}"
    return hits[0]

# Steered by its stamps, the 300 ppm mic stays on time for 20 minutes; placed by count it
# drifts by 300 ppm x 20 min = 360 ms (the scene really drifts).
assert value("drift/steered", "minutes") == 20
for metric in ("app_error_max", "mic_error_max"):
    assert value("drift/steered", metric) <= 1.0, f"steered {metric} {value('drift/steered', metric)} ms"
assert value("drift/steered", "markers_missing") == 0
assert value("drift/steered", "late_pulls") == 0
assert 340 <= value("drift/stamped-once", "mic_error_max") <= 380
# An hour with the defaults: every marker within 1 ms, no audio late.
assert value("hour/default", "minutes") == 60
assert value("hour/default", "markers") >= 350 and value("hour/default", "markers_missing") == 0
assert value("hour/default", "error_max") <= 1.0, f"hour max {value('hour/default', 'error_max')} ms"
assert value("hour/default", "late_pulls") == 0
# A switch among prepared rates allocates nothing.
assert value("switch/prepared", "switches") >= 19
assert value("switch/prepared", "switch_allocations") == 0
print("smoke: timing scenes on time (20 min steered max "
      f"{value('drift/steered', 'mic_error_max'):.3f} ms, counted "
      f"{value('drift/stamped-once', 'mic_error_max'):.0f} ms; hour max "
      f"{value('hour/default', 'error_max'):.3f} ms)")
PY
rm -f "$json.hour" "$json.switch"

# Two minutes of files mixed with the echo canceller and the ducker: mix holds what waits, not
# the input. Its staging kept every frame of the side that waits on the other: 133 MB at two
# minutes, 652 MB at ten, where the plain mix holds 12 MB.
"$SWIFT" run -c release --skip-build pcm-mix-bench --seconds 12 --filter "cli/pcm-mix mix" \
  --json "$json.cli" >/dev/null
python3 - "$json.cli" <<'PY'
import json, sys

records = json.load(open(sys.argv[1]))
def value(name, metric):
    hits = [r["value"] for r in records if r["name"] == name and r["metric"] == metric]
    assert hits, f"missing cli / {name} / {metric}"
    return hits[0]

plain = value("pcm-mix mix", "peak_rss")
voice = value("pcm-mix mix --echo-cancel --duck", "peak_rss")
assert value("pcm-mix mix --echo-cancel --duck", "audio") == 120
assert voice < plain + 16 * 1048576, f"mix --echo-cancel --duck peaked at {voice} bytes"
print(f"smoke: two minutes mixed in {plain / 1048576:.1f} MB, with --echo-cancel --duck "
      f"{voice / 1048576:.1f} MB")
PY
rm -f "$json.cli"
