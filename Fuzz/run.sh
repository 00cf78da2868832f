#!/bin/sh
# Builds the libFuzzer targets and runs each for SECONDS (default 60), one after another.
#   Fuzz/run.sh [SECONDS] [TARGET...]
# New corpus entries go to a scratch directory ($FUZZ_WORK, default /tmp/pcmmix-fuzz/TARGET) so
# Fuzz/ stays small; the seeds in Corpus/TARGET are read, never written. Crashes, leaks and
# timeouts are written to Regressions/TARGET/, which `swift test` replays
# (Tests/PCMMixTests/FuzzRegressionTests.swift). Each run's log is in $FUZZ_WORK/TARGET.log;
# its last lines hold libFuzzer's final stats (stat::number_of_executed_units).
set -eu
cd "$(dirname "$0")"
SECONDS_PER_TARGET=${1:-60}
[ $# -gt 0 ] && shift
TARGETS=${*:-FuzzWAV FuzzContainers FuzzProbeDecode FuzzPipeline FuzzCapture}
WORK=${FUZZ_WORK:-/tmp/pcmmix-fuzz}

# --sanitize=fuzzer alone links libFuzzer but (with this toolchain and SwiftPM) leaves the code
# without coverage counters, so libFuzzer would mutate blindly: ask for them explicitly.
# FuzzPipeline and FuzzCapture are built without comparison tracing (trace-cmp), in their own
# scratch directory:
# inside the resampler's inner loop the tracing calls took 60 % of the time, and the schedule's
# bytes are read as counts and choices, not matched against magic values.
COVERAGE=edge,inline-8bit-counters,pc-table
# FUZZ_ASAN=0 leaves AddressSanitizer out (about three times the executions per second, for the
# long runs whose property is "no trap, no hang": Swift checks its own memory), in its own
# scratch directory.
ASAN=${FUZZ_ASAN:-1}
build() {  # build SCRATCH COVERAGE -> prints the bin path
  if [ "$ASAN" = 0 ]; then
    FLAGS="-c release --sanitize=fuzzer --scratch-path $1-noasan"
  else
    FLAGS="-c release --sanitize=fuzzer --sanitize=address --scratch-path $1"
  fi
  FLAGS="$FLAGS -Xswiftc -sanitize-coverage=$2"
  # shellcheck disable=SC2086
  swift build $FLAGS >&2
  # shellcheck disable=SC2086
  swift build $FLAGS --show-bin-path
}

# libFuzzer's own handler must see a trap to write the input that caused it.
export SWIFT_BACKTRACE=enable=no
status=0
for target in $TARGETS; do
  mkdir -p "$WORK/$target" "Regressions/$target"
  if [ "$target" = FuzzPipeline ] || [ "$target" = FuzzCapture ]; then
    BIN=$(build "$WORK/build-nocmp" "$COVERAGE")
  else
    BIN=$(build .build "$COVERAGE,trace-cmp")
  fi
  echo "== $target: $SECONDS_PER_TARGET s"
  # FUZZ_RUNS=N stops after N executions instead of the time; FUZZ_JOBS=N runs N processes.
  LIMIT="-max_total_time=$SECONDS_PER_TARGET"
  [ -n "${FUZZ_RUNS:-}" ] && LIMIT="-runs=$FUZZ_RUNS"
  JOBS=""
  [ -n "${FUZZ_JOBS:-}" ] && JOBS="-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS"
  # shellcheck disable=SC2086
  if ! "$BIN/$target" "$WORK/$target" "Corpus/$target" $JOBS \
    $LIMIT -print_final_stats=1 -rss_limit_mb=2048 \
    -timeout=10 -max_len=65536 -artifact_prefix="Regressions/$target/" \
    >"$WORK/$target.log" 2>&1; then
    echo "   $target found a failure: see $WORK/$target.log and Regressions/$target/"
    status=1
  fi
  grep -E 'stat::number_of_executed_units|^Done' "$WORK/$target.log" || true
done
exit $status
