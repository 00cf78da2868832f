#!/usr/bin/env bash
# Builds the PCMMix documentation as a static site in .build/docs, with the toolchain's own
# docc (no plugin, no network): the compiler emits PCMMix's symbol graph while it builds the
# module, and docc converts it with the catalog Sources/PCMMix/PCMMix.docc.
#
# The module is built in its own scratch directory (.build/docs-build) so that the extra
# compiler flags do not invalidate the ordinary debug build. They are given on the command line
# (-Xswiftc); Package.swift stays free of unsafeFlags.
#
# Every docc warning fails the build (a broken ``Symbol`` link, a missing image, a bad
# directive), except those listed in scripts/docs-known-warnings.txt: warnings from doc comments
# in the Swift sources that are known and left for their own change. A listed warning that no
# longer occurs fails too, so the list cannot go stale; delete the file once it is empty.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
OUT=${DOCS_OUT:-.build/docs}
SCRATCH=.build/docs-build
GRAPHS=$PWD/.build/docs-symbol-graphs
CATALOG=Sources/PCMMix/PCMMix.docc
KNOWN=scripts/docs-known-warnings.txt

# The docc that ships beside the swift driver (xcrun finds it on macOS).
if [ -z "${DOCC:-}" ]; then
  if command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then
    DOCC=$(xcrun --find docc)
  else
    DOCC=$(dirname "$(readlink -f "$(command -v "$SWIFT")")")/docc
  fi
fi
if [ ! -x "$DOCC" ]; then
  echo "docs: no docc at $DOCC (it ships with Swift toolchains 5.6 and later; set DOCC=...)" >&2
  exit 1
fi

echo "docs: symbol graph of PCMMix -> $GRAPHS" >&2
mkdir -p "$GRAPHS"
"$SWIFT" build --target PCMMix --scratch-path "$SCRATCH" \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$GRAPHS"
[ -s "$GRAPHS/PCMMix.symbols.json" ] || { echo "docs: no symbol graph was written" >&2; exit 1; }

echo "docs: $DOCC convert -> $OUT" >&2
rm -rf "$OUT"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$DOCC" convert "$CATALOG" --additional-symbol-graph-dir "$GRAPHS" --output-path "$OUT" \
  --transform-for-static-hosting --fallback-display-name PCMMix \
  --fallback-bundle-identifier org.pcmmix.PCMMix >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$log" >&2
  echo "docs: docc failed ($status)" >&2
  exit "$status"
fi

# Warnings are the lines docc starts with "warning:" or "error:", each followed by its location.
found=$(grep -E '^(warning|error): ' "$log" | sort -u || true)
known=$( (grep -v -e '^#' -e '^$' "$KNOWN" 2>/dev/null || true) | sort -u)
unexpected=$(comm -23 <(printf '%s\n' "$found" | sed '/^$/d') <(printf '%s\n' "$known" | sed '/^$/d'))
gone=$(comm -13 <(printf '%s\n' "$found" | sed '/^$/d') <(printf '%s\n' "$known" | sed '/^$/d'))
if [ -n "$unexpected" ]; then
  cat "$log" >&2
  echo "docs: docc warned (each warning fails the build):" >&2
  printf '  %s\n' "$unexpected" >&2
  exit 1
fi
if [ -n "$gone" ]; then
  echo "docs: these known warnings no longer occur; remove them from $KNOWN:" >&2
  printf '  %s\n' "$gone" >&2
  exit 1
fi
if [ -n "$known" ]; then
  echo "docs: $(printf '%s\n' "$known" | wc -l | tr -d ' ') known warning(s) from doc comments in the sources, listed in $KNOWN" >&2
fi
echo "docs: built $OUT (open $OUT/documentation/pcmmix/index.html through a web server, e.g. make docs-check)" >&2
