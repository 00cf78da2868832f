#!/usr/bin/env bash
# A real > 4 GiB round trip, outside the unit tests (make rf64-check):
#   1. pcm-mix convert writes RF64_FRAMES (default 543,000,000: 3 h 8.6 min at 48 kHz, 4.34 GB)
#      frames of f32 stereo from s16 mono generated into a pipe; the output's length is not known
#      up front, so it reserves RF64's room and finishes as RF64;
#   2. libsndfile (Python soundfile) reads every frame back and checks every sample;
#   3. pcm-mix probe reports the frame count;
#   4. pcm-mix convert reads the RF64 file back in full into a pipe, checked sample by sample;
# and both converts must stay under 20 MB of resident memory. The files are deleted at the end.
# Needs ~4.5 GB free in RF64_DIR (default: a new folder under ${TMPDIR:-/tmp}).
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES=${RF64_FRAMES:-543000000}
LIMIT_KB=${RF64_RSS_LIMIT_KB:-20000}
SWIFT=${SWIFT:-swift}
$SWIFT build -c release --product pcm-mix >&2
BIN=$($SWIFT build -c release --product pcm-mix --show-bin-path)/pcm-mix
DIR=$(mktemp -d "${RF64_DIR:-${TMPDIR:-/tmp}}/pcm-mix-rf64.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
need=$((FRAMES * 8 + 100 * 1024 * 1024))
free=$(df --output=avail -B1 "$DIR" | tail -1)
if [ "$free" -lt "$need" ]; then
  echo "rf64-check: $DIR has $free bytes free; $need needed" >&2
  exit 1
fi
[ -x /usr/bin/time ] || scripts/bootstrap.sh time

# Prints the elapsed time and peak RSS from a GNU time -v report, and checks the RSS.
report() {  # report LABEL FILE
  local rss wall
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$2")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$2")
  echo "$1: wall $wall, peak RSS $rss KB (limit $LIMIT_KB KB)"
  if [ "$rss" -gt "$LIMIT_KB" ]; then
    echo "rf64-check: $1 used $rss KB of memory" >&2
    exit 1
  fi
}

echo "== writing $FRAMES frames of f32 stereo (pipe in, RF64 out) to $DIR/big.wav"
python3 scripts/rf64_check.py generate "$FRAMES" \
  | /usr/bin/time -v -o "$DIR/time-write.txt" \
    "$BIN" convert - --input-format s16le:48000:1 -o "$DIR/big.wav" --format f32
ls -l "$DIR/big.wav"
report "pcm-mix convert (write)" "$DIR/time-write.txt"

echo "== libsndfile reads it back"
python3 scripts/rf64_check.py check-file "$DIR/big.wav" "$FRAMES"

echo "== pcm-mix probe"
probe=$("$BIN" probe --json "$DIR/big.wav")
echo "$probe"
echo "$probe" | grep -q "\"container\":\"RF64\"" || { echo "rf64-check: not RF64" >&2; exit 1; }
echo "$probe" | grep -q "\"frames\":$FRAMES," || { echo "rf64-check: probe frames" >&2; exit 1; }
echo "$probe" | grep -q "\"claimedFrames\":$FRAMES," || { echo "rf64-check: claim" >&2; exit 1; }

echo "== pcm-mix convert reads it back (RF64 in, s16 mono to a pipe)"
/usr/bin/time -v -o "$DIR/time-read.txt" \
  "$BIN" convert "$DIR/big.wav" -o - --channels 1 --format s16 \
  | python3 scripts/rf64_check.py check-stream "$FRAMES"
report "pcm-mix convert (read)" "$DIR/time-read.txt"
echo "rf64-check: ok"
