#!/usr/bin/env bash
# make arm64-results: writes Benchmarks/ARM64.md — what `make arm64-check` verified under
# emulation (bits, arm64 against x86-64) and the llvm-mca cycle model of the arm64 kernels
# (scripts/arm64/model.sh), with the machine, date and commit at its head. A few minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
scripts/arm64/arm64-check.sh 2>&1 | tee "$log"
scripts/arm64/model.sh >/dev/null
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
{
  echo "# arm64: bits verified under emulation, cycles modelled"
  echo
  echo "Written by \`make arm64-results\` on $(date -u +%F) on $(uname -m) ($cpu, $(nproc) cores),"
  echo "commit $(git rev-parse --short HEAD). No arm64 hardware was used: the bits come from"
  echo "**emulation** (qemu-aarch64 running the arm64 build), the cycles from a **model** (llvm-mca)."
  echo
  echo "## Bits under emulation: \`make arm64-check\`"
  echo
  echo "The DSP core compiled as Embedded Swift for aarch64 and for x86-64 from the same sources,"
  echo "a driver (\`scripts/arm64/driver\`) run on both, outputs compared bit for bit"
  echo "(\`scripts/arm64/compare.py\`); then the kernels alone on random shapes"
  echo "(\`scripts/arm64/kernels-check.sh\`). Its output:"
  echo
  echo '```'
  grep -E '^(arm64-check: [0-9]|AVX2 vs|NEON vs|kernels-check)' "$log"
  echo '```'
  echo
  sed '1s/^## .*/## Cycles: a model (llvm-mca, Neoverse V2), not a measurement on Apple hardware/' \
    .build/arm64/model.md
} >Benchmarks/ARM64.md
echo "arm64-results: wrote Benchmarks/ARM64.md"
