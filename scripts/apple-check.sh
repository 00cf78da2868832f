#!/usr/bin/env bash
# Type-checks PCMMix's Apple-only code on Linux: the `#if canImport(CoreAudioTypes / CoreAudio /
# CoreMedia)` files of Sources/PCMMix and the Swift code blocks of the DocC catalog and the README
# that use Core Media, ReplayKit or AVFoundation. Nothing else compiles them (CI is Linux), so a
# typo there would ship.
#
# They are compiled against stand-ins of exactly the Apple API they use (Tests/AppleStandIns/, one
# file per module, with Apple's published Swift signatures and trapping bodies; see its README).
# The stand-ins are built here, into .build/apple-check/, and never into the package's own build:
# a CoreMedia module in .build/<triple>/debug/Modules would turn `canImport(CoreMedia)` true there.
#
# Steps:
#   1. Each stand-in module, with `swiftc -emit-module -parse-as-library -enable-library-evolution`
#      (evolution, so that a `switch` over an imported C enum needs its `default`, as on Apple
#      platforms).
#   2. Every `canImport(X)` in Sources/PCMMix must name a stand-in or a platform C library, so a
#      misspelt guard cannot hide a file from this check (and from every Apple build).
#   3. The whole PCMMix module from its sources, with the stand-ins on the import path so the
#      `canImport` branches compile: full type check, Swift 6 mode, then emitted as a module.
#   4. The guide code. Each page (README.md, Sources/PCMMix/PCMMix.docc/*.md) with a ```swift
#      block that imports or names Core Media / ReplayKit / AVFoundation / Core Audio API has all
#      its ```swift blocks read in order as one Swift file, as the page reads: in the broadcast
#      guide, the first block opens `SampleHandler`, the next two add its members and close it,
#      and one calls the last block's `report(_:)`. `#sourceLocation` lines map every diagnostic
#      to the .md file and line. Each page is type-checked as a library file of its own module
#      against PCMMix and the stand-ins. Pages whose Swift touches none of that API (the README's
#      overview, written with placeholders) are left out.
#
# Any error fails the run (exit 1) with the compiler's `file:line:col: error:` lines. On success
# it prints one line. SWIFTC overrides the compiler (default: the swiftc beside $SWIFT or swift).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# The swiftc beside the swift driver ($SWIFT, as the Makefile passes it), as docs.sh finds docc.
if [[ -z "${SWIFTC:-}" ]]; then
  SWIFTC=$(dirname "$(readlink -f "$(command -v "${SWIFT:-swift}")")")/swiftc
fi

out=.build/apple-check
standins=Tests/AppleStandIns
# Dependency order: each module after the ones it imports.
modules=(CoreAudioTypes CoreAudio CoreMedia AVFoundation ReplayKit)
# Modules a `canImport` may name without a stand-in: C libraries, one of which every platform has.
platform_modules=(Glibc Musl Darwin Bionic Android WASILibc ucrt WinSDK)

# Everything but the module cache (Glibc, Foundation, … as clang/Swift modules) is rebuilt.
rm -rf "$out/modules" "$out/pcmmix" "$out/guide" "$out/cmodules"
mkdir -p "$out/modules" "$out/pcmmix" "$out/guide" "$out/cmodules"
log="$out/log"

fail() {
  echo "apple-check: FAILED: $1" >&2
  exit 1
}

# Runs a compiler command quietly; on failure prints its diagnostics and fails with $1.
compile() {
  local what=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "$what"
  fi
  if grep -q 'warning:' "$log"; then
    cat "$log" >&2
    warnings=$((warnings + $(grep -c 'warning:' "$log")))
  fi
}
warnings=0
common=(-swift-version 6 -diagnostic-style=llvm -module-cache-path "$out/module-cache")

# 1. The stand-ins.
for module in "${modules[@]}"; do
  compile "stand-in $module ($standins/$module.swift)" \
    "$SWIFTC" -emit-module -parse-as-library -enable-library-evolution -suppress-warnings \
    "${common[@]}" -module-name "$module" -emit-module-path "$out/modules/$module.swiftmodule" \
    -I "$out/modules" "$standins/$module.swift"
done

# 2. Every canImport in an #if / #elseif of the library names a stand-in or a C library.
guards='^[[:space:]]*#(if|elseif)[[:space:]].*canImport'
while IFS=: read -r file line condition; do
  named=$(grep -oE 'canImport\([A-Za-z0-9_.]+\)' <<<"$condition" | sed -E 's/^canImport.//; s/.$//')
  for module in $named; do
    known=no
    for m in "${modules[@]}" "${platform_modules[@]}"; do
      [[ "$module" == "$m" ]] && known=yes
    done
    [[ $known == yes ]] || fail "$file:$line: canImport($module) names no stand-in in $standins"
  done
done < <(grep -rnE --include='*.swift' "$guards" Sources/PCMMix)

# 3. PCMMix from its sources. Its C modules get module maps like the ones SwiftPM generates.
for c in CPCMMixCore CPCMMixAtomics; do
  printf 'module %s {\n  umbrella "%s"\n  export *\n}\n' "$c" "$root/Sources/$c/include" \
    >"$out/cmodules/$c.modulemap"
done
cmodules=(
  -Xcc "-fmodule-map-file=$out/cmodules/CPCMMixCore.modulemap"
  -Xcc "-fmodule-map-file=$out/cmodules/CPCMMixAtomics.modulemap"
  -I Sources/CPCMMixCore/include -I Sources/CPCMMixAtomics/include
)
sources=()
while IFS= read -r f; do sources+=("$f"); done < <(find Sources/PCMMix -name '*.swift' | sort)
alternatives=$(IFS='|' && echo "${modules[*]}")
apple_only=$(grep -lE "canImport\(($alternatives)\)" "${sources[@]}" | wc -l || true)
[[ $apple_only -gt 0 ]] || fail "no canImport(${modules[*]}) file in Sources/PCMMix"
pcmmix=(-module-name PCMMix -package-name PCMMix -parse-as-library "${common[@]}"
  -I "$out/modules" "${cmodules[@]}")
# Whole-module (-wmo): one compiler process for all files, several times faster than one per file.
compile "PCMMix type check" "$SWIFTC" -typecheck -wmo "${pcmmix[@]}" "${sources[@]}"
compile "PCMMix module" "$SWIFTC" -emit-module -wmo -emit-module-path \
  "$out/pcmmix/PCMMix.swiftmodule" "${pcmmix[@]}" "${sources[@]}"

# 4. The guide code, one Swift file per page.
python3 - "$out/guide" README.md Sources/PCMMix/PCMMix.docc/*.md >"$out/guide/pages" <<'EOF' ||
import os
import re
import sys

APPLE = re.compile(
    r"^\s*import\s+(?:ReplayKit|CoreMedia|AVFoundation|CoreAudio|CoreAudioTypes)\b"
    r"|\b(?:CM[A-Z]\w*|RP[A-Z]\w*|AV[A-Z]\w*|AudioStreamBasicDescription|AudioBufferList"
    r"|UnsafeMutableAudioBufferListPointer|kAudioFormat\w*|kCMBlockBuffer\w*|kCFAllocator\w*)\b",
    re.M)
out_dir, pages = sys.argv[1], sys.argv[2:]
for page in pages:
    blocks, block, start = [], None, 0
    for number, line in enumerate(open(page, encoding="utf-8"), 1):
        fence = line.strip()
        if block is None and re.fullmatch(r"```\s*swift", fence):
            block, start = [], number + 1
        elif block is not None and fence == "```":
            blocks.append((start, "".join(block)))
            block = None
        elif block is not None:
            block.append(line)
    if block is not None:
        sys.exit(f"{page}:{start - 1}: unterminated ```swift block")
    if not any(APPLE.search(text) for _, text in blocks):
        continue
    name = re.sub(r"\W", "_", page) + ".swift"
    with open(os.path.join(out_dir, name), "w", encoding="utf-8") as swift:
        for start, text in blocks:
            swift.write(f'#sourceLocation(file: "{page}", line: {start})\n{text}')
        swift.write("#sourceLocation()\n")
    print(f"{name}\t{page}\t{len(blocks)}")
EOF
  fail "extracting the guide code"
pages=0
blocks=0
page_names=()
while IFS=$'\t' read -r name page count; do
  compile "guide code in $page" "$SWIFTC" -typecheck -parse-as-library "${common[@]}" \
    -module-name GuideCode -I "$out/pcmmix" -I "$out/modules" "${cmodules[@]}" "$out/guide/$name"
  pages=$((pages + 1))
  blocks=$((blocks + count))
  page_names+=("$(basename "$page")")
done <"$out/guide/pages"
[[ $pages -gt 0 ]] || fail "no page with Apple-framework Swift blocks found (extraction broken?)"

suffix=""
[[ $warnings -eq 0 ]] || suffix=" ($warnings warnings above)"
echo "apple-check: OK: ${#sources[@]} PCMMix sources ($apple_only Apple-only) and $blocks swift" \
  "blocks of ${page_names[*]} type-check against stand-ins ${modules[*]}$suffix"
