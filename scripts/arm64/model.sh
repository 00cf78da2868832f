#!/usr/bin/env bash
# A cycle model of the built-in resampler's arm64 kernels: llvm-mca's model of a Neoverse V2 core
# (the closest wide core LLVM models; its apple-* CPUs are 2013's Cyclone), not a measurement on
# Apple hardware.
#
# Compiles, for aarch64 at SwiftPM's release optimisation level,
#   - today's portable kernels (Sources/CPCMMixCore/resample.c as of commit fde15ab),
#   - the working tree's portable kernels (Sources/CPCMMixCore/resample.c),
#   - the NEON kernels (Sources/CPCMMixKernels/neon_resample.c), when the file exists,
# and, for x86-64 calibration rows, today's portable kernels and the AVX2 / AVX-512F kernels.
# Then scripts/arm64/model.py takes each kernel's inner (tap) loop out of the assembly (the block
# that ends in a backward branch to its own label, holding no other loop), runs llvm-mca on it
# and prints a Markdown table, also written to .build/arm64/model.md.
#
# Usage: scripts/arm64/model.sh [--iterations N] [--ghz G]
# Nothing in the repository is edited: sources are copied to .build/arm64/src first (the working
# tree's files as they are at that moment, the baseline by `git show`).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
base_commit=fde15ab
out=.build/arm64
src="$out/src"
asm="$out/asm"

# llvm-mca-19 from Debian's llvm-19 where it is missing (as scripts/bootstrap.sh installs).
if ! command -v llvm-mca-19 >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "model: installing llvm-19 (for llvm-mca-19)" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq llvm-19 >/dev/null
fi

# The toolchain's clang (the one SwiftPM runs for C targets).
clang="${CLANG:-}"
if [ -z "$clang" ]; then
  if command -v swift >/dev/null 2>&1; then
    clang="$(dirname "$(readlink -f "$(command -v swift)")")/clang"
  fi
  [ -x "$clang" ] || clang=/opt/swift/usr/bin/clang
  [ -x "$clang" ] || clang="$(command -v clang)"
fi

# SwiftPM's release flags for a C target, as `swift build -c release -v` shows them for
# CPCMMixCore: -O2 -DSWIFT_PACKAGE=1 -fblocks -fPIC -g -fno-omit-frame-pointer (-g is left out
# here: it changes no instruction). When the release plan is at hand, take its level from there.
opt=-O2
if [ -f .build/release.yaml ]; then
  level="$(grep -A1 'description: "Compiling CPCMMixCore resample.c"' .build/release.yaml |
    grep -o '"-O[0-3sz]"' | head -1 | tr -d '"' || true)"
  if [ -n "$level" ] && [ "$level" != "$opt" ]; then
    echo "model: SwiftPM's release plan compiles CPCMMixCore at $level; using it" >&2
    opt="$level"
  fi
fi
common=("$opt" -DSWIFT_PACKAGE=1 -fblocks -fPIC -fno-omit-frame-pointer -S)
arm=(--target=aarch64-linux-gnu -mcpu=neoverse-v2)
x86=(--target=x86_64-unknown-linux-gnu)

rm -rf "$src" "$asm"
mkdir -p "$src/base/include" "$src/core/include" "$src/kernels/include" "$asm"

# Today's loop, from git (read-only: git show).
for f in resample.c vector.h include/pcmmix_core.h; do
  git show "$base_commit:Sources/CPCMMixCore/$f" >"$src/base/$f"
done
# The working tree, snapshotted (another engineer may be writing these files).
cp Sources/CPCMMixCore/*.c Sources/CPCMMixCore/*.h "$src/core/" 2>/dev/null || true
cp Sources/CPCMMixCore/include/*.h "$src/core/include/"
cp Sources/CPCMMixKernels/*.c "$src/kernels/"
cp Sources/CPCMMixKernels/include/*.h "$src/kernels/include/"

compile() {  # name, source dir, source file, target flags...
  local name="$1" dir="$2" file="$3"
  shift 3
  if ! "$clang" "$@" "${common[@]}" -I "$dir/include" -I "$dir" "$dir/$file" \
    -o "$asm/$name.s" 2>"$asm/$name.log"; then
    echo "model: $name did not compile (see $asm/$name.log):" >&2
    head -5 "$asm/$name.log" >&2
    rm -f "$asm/$name.s"
  fi
}

compile base-arm64 "$src/base" resample.c "${arm[@]}"
compile core-arm64 "$src/core" resample.c "${arm[@]}"
if [ -f "$src/kernels/neon_resample.c" ]; then
  compile neon-arm64 "$src/kernels" neon_resample.c "${arm[@]}"
fi
for f in "$src"/kernels/neon_*.c; do
  [ -e "$f" ] || continue
  b="$(basename "$f" .c)"
  [ "$b" = neon_resample ] && continue
  compile "$b-arm64" "$src/kernels" "$b.c" "${arm[@]}"
done
# x86-64 (this machine) for the calibration rows.
compile base-x86 "$src/base" resample.c "${x86[@]}"
compile avx2-x86 "$src/kernels" avx2_resample.c "${x86[@]}"
compile avx512-x86 "$src/kernels" avx512_resample.c "${x86[@]}"
compile upsample-x86 "$src/kernels" upsample.c "${x86[@]}"

exec python3 "$root/scripts/arm64/model.py" --asm "$asm" --root "$root" --opt="$opt" \
  --clang "$("$clang" --version | head -1)" --out "$out/model.md" "$@"
