#!/usr/bin/env bash
# make arm64-check: PCMMix's DSP core compiled as Embedded Swift for arm64 (aarch64) and for
# x86-64 from the same sources, with a driver (scripts/arm64/driver) run on both — arm64 under
# qemu-aarch64 — and their outputs compared bit for bit (compare.py); then the kernel harness
# (kernels-check.sh): NEON and the fused arm64 portable kernels against AVX2, built -O2 and then
# -O0 (as a Debug build compiles them), each set the same bits both ways.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=.build/arm64
mkdir -p "$out"

# What the check needs beyond the toolchain: the arm64 C library to link against and qemu.
# (`--build` only builds both drivers; it installs nothing.)
if [ "${1:-}" != --build ]; then
  scripts/bootstrap.sh qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  python3 -c "import numpy" 2>/dev/null || python3 -m pip install -q numpy # compare.py
fi

clang=${CLANG:-$(dirname "$(command -v swiftc)")/clang}
swiftc=${SWIFTC:-swiftc}
embedded=$(dirname "$(command -v swiftc)")/../lib/swift/embedded

# Module maps for the C targets, as SwiftPM makes them (an umbrella directory each).
mods=$out/modules
mkdir -p "$mods"
{
  for m in CPCMMixCore CPCMMixAtomics CPCMMixKernels; do
    printf 'module %s {\n  umbrella "%s/Sources/%s/include"\n  export *\n}\n' "$m" "$root" "$m"
  done
  printf 'module DriverIO {\n  header "%s/scripts/arm64/driver/driver_io.h"\n  export *\n}\n' "$root"
} >"$mods/module.modulemap"

# The DSP core: every folder of Sources/PCMMix up to and including Echo and Loudness, without
# the Apple-only files; the pipeline, WAV files and timing (threads, existentials for plug-in
# backends, file I/O) are not the DSP and are not compiled here.
core=()
for d in Support Format Decode Channels Resample Encode Mix Echo Loudness; do
  for f in Sources/PCMMix/$d/*.swift; do
    case "$f" in *CoreAudio*) ;; *) core+=("$f") ;; esac
  done
done

build() { # $1 = name, $2 = Swift target, $3 = C target, $4... = link flags
  local name=$1 starget=$2 ctarget=$3
  shift 3
  local dir=$out/$name
  mkdir -p "$dir"
  # Three modules, as in the package: the core, PCMMixAccelerated (the kernel sets the library
  # installs) and the driver.
  local embedded_flags=(-target "$starget" -enable-experimental-feature Embedded -wmo -O
    -parse-as-library -package-name PCMMix -I "$mods" -I "$dir"
    -Xcc -fmodule-map-file="$mods/module.modulemap")
  "$swiftc" "${embedded_flags[@]}" -module-name PCMMix -emit-module \
    -emit-module-path "$dir/PCMMix.swiftmodule" -c "${core[@]}" -o "$dir/core.o"
  "$swiftc" "${embedded_flags[@]}" -module-name PCMMixAccelerated -emit-module \
    -emit-module-path "$dir/PCMMixAccelerated.swiftmodule" \
    -c Sources/PCMMixAccelerated/Accelerated.swift -o "$dir/accelerated.o"
  "$swiftc" "${embedded_flags[@]}" -module-name Arm64CheckDriver \
    -c scripts/arm64/driver/Driver.swift -o "$dir/driver.o"
  local objs=("$dir/core.o" "$dir/accelerated.o" "$dir/driver.o")
  for c in Sources/CPCMMixCore/*.c Sources/CPCMMixAtomics/*.c Sources/CPCMMixKernels/*.c \
    scripts/arm64/driver/main.c; do
    local o
    o=$dir/$(basename "$(dirname "$c")")-$(basename "$c" .c).o
    "$clang" --target="$ctarget" -O2 -c "$c" -o "$o" -ISources/CPCMMixCore/include \
      -ISources/CPCMMixAtomics/include -ISources/CPCMMixKernels/include -Iscripts/arm64/driver
    objs+=("$o")
  done
  # String comparison in Embedded Swift needs the Unicode tables the toolchain ships per target.
  "$clang" --target="$ctarget" "$@" "${objs[@]}" -o "$dir/driver" \
    "$embedded/$starget/libswiftUnicodeDataTables.a" -lm -lpthread
}

echo "arm64-check: building the core and driver for x86-64 and arm64 (Embedded Swift)"
build x86_64 x86_64-unknown-linux-gnu x86_64-linux-gnu
build aarch64 aarch64-none-none-elf aarch64-linux-gnu -static -fuse-ld=lld
[ "${1:-}" = --build ] && exit 0
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64)

echo "arm64-check: running (arm64 under $(basename "$qemu"))"
"$out/x86_64/driver" 0 "$out/x86_64-portable.bin"
"$qemu" "$out/aarch64/driver" 0 "$out/aarch64-portable.bin"
if "$out/x86_64/driver" 1 "$out/x86_64-avx2.bin" 2>/dev/null; then
  "$out/x86_64/driver" 2 "$out/x86_64-avx2-chains.bin"
  "$qemu" "$out/aarch64/driver" 1 "$out/aarch64-neon.bin"
  python3 scripts/arm64/compare.py "$out"
else
  echo "arm64-check: this CPU has no AVX2 + FMA; NEON compared with nothing on x86-64" >&2
  python3 scripts/arm64/compare.py --portable-only "$out"
fi

# The kernels alone on random shapes: NEON and the fused arm64 portable kernels against AVX2.
# (No output of an earlier run is left to compare below.)
rm -f "$out"/{avx2,neon,portable}{,-common}{,-O2}.bin
scripts/arm64/kernels-check.sh
# And compiled -O0, as a Debug build compiles them (Xcode builds a package dependency so): each
# set the same bits as at -O2. Their macros are what keep -O0 fast (CPCMMixKernels/avx2_ops.h).
kept=()
for f in avx2 avx2-common neon neon-common portable portable-common; do
  if [[ -f $out/$f.bin ]]; then
    cp "$out/$f.bin" "$out/$f-O2.bin"
    kept+=("$f")
  fi
done
if [[ ${#kept[@]} == 0 ]]; then
  echo "arm64-check: no kernel outputs (kernels-check skipped), so -O0 is not compared"
  exit 0
fi
PCMMIX_CHECK_OPT=-O0 scripts/arm64/kernels-check.sh
for f in "${kept[@]}"; do
  cmp -s "$out/$f-O2.bin" "$out/$f.bin" || {
    echo "arm64-check: $f.bin holds other bits at -O0 than at -O2" >&2
    exit 1
  }
done
echo "arm64-check: the kernels at -O0 = at -O2, bit for bit (${kept[*]})"
