#!/usr/bin/env bash
# The resampler kernels' bits, x86-64 against arm64: builds scripts/arm64/kernels_check.c for
# x86-64 (the AVX2 + FMA kernels) and for aarch64 (static, run under qemu-aarch64-static: the
# NEON kernels and the portable ones of CPCMMixCore), runs each on the same few thousand random
# shapes and compares their outputs byte for byte: AVX2 with NEON, and both with the portable
# kernels on what those cover (all but upsampling). Any difference fails it, with the first
# differing output's kernel and shape.
#
#   scripts/arm64/kernels-check.sh               # from anywhere in the checkout
#   PCMMIX_PERTURB=1 scripts/arm64/kernels-check.sh
#
# PCMMIX_PERTURB=1 builds with -DPCMMIX_PERTURB, which moves pcmmix_neon_lerp_dot's result by
# one ulp (nextafterf): the check must then fail, which shows that it sees one ulp.
# PCMMIX_CHECK_OPT=-O0 builds both programs unoptimized, as a Debug build compiles the package's
# C (default -O2).
# Needs /opt/swift's clang and ld.lld (or CLANG=...), the aarch64 glibc of gcc-aarch64-linux-gnu
# (/usr/aarch64-linux-gnu) and qemu-user-static. Builds into .build/arm64/.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/.build/arm64"
clang=${CLANG:-/opt/swift/usr/bin/clang}
sysroot=/usr/aarch64-linux-gnu
qemu=${QEMU:-qemu-aarch64-static}

fail() {
  echo "kernels-check: $*" >&2
  exit 2
}
[[ -x $clang ]] || fail "no clang at $clang (set CLANG)"
[[ -d $sysroot/include && -d $sysroot/lib ]] || fail "no aarch64 glibc in $sysroot (apt-get install gcc-aarch64-linux-gnu)"
# The cross gcc's crtbeginT.o and libgcc.a, which a static link needs: clang finds them under
# --gcc-toolchain (the newest version there).
gcc_dir=$(ls -d /usr/lib/gcc-cross/aarch64-linux-gnu/* 2>/dev/null | sort -V | tail -n 1)
[[ -n $gcc_dir && -f $gcc_dir/crtbeginT.o ]] || fail "no /usr/lib/gcc-cross/aarch64-linux-gnu/*/crtbeginT.o"
command -v "$qemu" >/dev/null || fail "no $qemu (apt-get install qemu-user-static)"

mkdir -p "$out"
defines=()
if [[ ${PCMMIX_PERTURB:-0} == 1 ]]; then
  defines=(-DPCMMIX_PERTURB)
  echo "PCMMIX_PERTURB=1: pcmmix_neon_lerp_dot moved by one ulp"
fi
kernels="$root/Sources/CPCMMixKernels"
core="$root/Sources/CPCMMixCore"
flags=("${PCMMIX_CHECK_OPT:--O2}" -std=gnu11 -Wall -Wextra -Werror -I"$kernels/include" -I"$core/include" "${defines[@]}")

"$clang" "${flags[@]}" -o "$out/kernels_check-x86_64" "$root/scripts/arm64/kernels_check.c" \
  "$kernels/avx2_resample.c" "$kernels/upsample.c" "$kernels/cpu.c" -lm
"$clang" --target=aarch64-linux-gnu --sysroot="$sysroot" --gcc-toolchain=/usr -fuse-ld=lld \
  -static "${flags[@]}" -o "$out/kernels_check-aarch64" "$root/scripts/arm64/kernels_check.c" \
  "$kernels/neon_resample.c" "$kernels/cpu.c" "$core/resample.c" -lm

status=0
"$out/kernels_check-x86_64" avx2 "$out/avx2" || status=$?
if [[ $status == 77 ]]; then
  echo "kernels-check: skipped: this CPU lacks AVX2 + FMA, so there are no AVX2 bits to compare"
  exit 0
fi
[[ $status == 0 ]] || fail "the x86-64 run failed ($status)"
"$qemu" "$out/kernels_check-aarch64" neon "$out/neon" || fail "the arm64 NEON run failed"
"$qemu" "$out/kernels_check-aarch64" portable "$out/portable" ||
  fail "the arm64 portable run failed"

# Byte for byte; on a difference, the first differing output (a four-byte word), and from the
# map which kernel and shape it belongs to, with both values.
differ=0
compare() {
  local name=$1 a=$2 b=$3 map=$4
  local words=$(($(stat -c %s "$a") / 4)) shapes
  shapes=$(awk '{ k = $3 " " $4; if (!(k in seen)) { seen[k] = 1; n++ } } END { print n + 0 }' \
    <(awk -v limit="$words" '$1 < limit' "$map"))
  if cmp -s "$a" "$b"; then
    echo "$name: $words outputs over $shapes shapes: identical"
    return
  fi
  differ=1
  if [[ $(stat -c %s "$a") != $(stat -c %s "$b") ]]; then
    echo "$name: DIFFERENT sizes ($(stat -c %s "$a") and $(stat -c %s "$b") bytes)"
  fi
  local byte
  byte=$({ cmp "$a" "$b" 2>/dev/null || true; } | sed -n 's/.*differ: byte \([0-9]*\),.*/\1/p')
  [[ -n $byte ]] || { echo "$name: DIFFERENT (one file is a prefix of the other)"; return; }
  local index=$(((byte - 1) / 4)) mismatches
  mismatches=$({ cmp -l "$a" "$b" || true; } |
    awk '{ w[int(($1 - 1) / 4)] = 1 } END { print length(w) }')
  local where
  where=$(awk -v i="$index" '$1 <= i && i < $1 + $2 { print $3 " shape " $4 ", word " i - $1; exit }' "$map")
  local va vb
  va=$(od -A n -t x4 -j $((index * 4)) -N 4 "$a" | tr -d ' ')
  vb=$(od -A n -t x4 -j $((index * 4)) -N 4 "$b" | tr -d ' ')
  echo "$name: DIFFERENT: $mismatches of $words outputs; the first at index $index ($where):" \
    "0x$va against 0x$vb"
}

echo "x86-64 AVX2, arm64 NEON and arm64 portable (qemu), compared byte for byte:"
compare "AVX2 vs NEON" "$out/avx2.bin" "$out/neon.bin" "$out/avx2.map"
compare "AVX2 vs portable" "$out/avx2-common.bin" "$out/portable-common.bin" "$out/portable.map"
compare "NEON vs portable" "$out/neon-common.bin" "$out/portable-common.bin" "$out/portable.map"
if [[ $differ != 0 ]]; then
  echo "kernels-check: FAILED: the kernels do not give the same bits" >&2
  exit 1
fi
echo "kernels-check: all identical"
