#!/usr/bin/env bash
# Installs what building and testing PCMMix needs, only where it is missing.
# Usage: scripts/bootstrap.sh [apt packages beyond the default set...]
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
  echo "bootstrap: no 'swift' on PATH; PCMMix needs a Swift 6 toolchain (6.0 or later)" >&2
  exit 1
fi

# Debian packages the build needs. The core library (PCMMix) needs none; the libsamplerate
# backend needs libsamplerate, and the benchmark links soxr and speexdsp as resampler peers and
# speexdsp and webrtc-audio-processing as echo canceller peers and libebur128 as the loudness
# peer. SwiftPM builds every target, so all are installed.
packages=(pkg-config libsamplerate0-dev libsoxr-dev libspeexdsp-dev libwebrtc-audio-processing-dev
  libebur128-dev "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: missing ${missing[*]} and no apt-get to install them" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "bootstrap: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
