#!/usr/bin/env python3
"""Counts the public symbols of PCMMix in the symbol graphs a build wrote (see scripts/docs.sh):
  python3 scripts/public-symbols.py DIR [--list]
Counts every symbol docc would document (public, not SPI, not underscored, not synthesized), by
kind, across PCMMix.symbols.json and its extension files (PCMMix@Swift...)."""
import collections, glob, json, sys

folder = sys.argv[1]
kinds = collections.Counter()
names = []
for path in sorted(glob.glob(f"{folder}/PCMMix*.symbols.json")):
    graph = json.load(open(path))
    if graph["module"]["name"] != "PCMMix":
        continue
    for sym in graph["symbols"]:
        if sym.get("accessLevel") != "public" or sym.get("spi"):
            continue
        title = ".".join(sym["pathComponents"])
        if any(c.startswith("_") for c in sym["pathComponents"]):
            continue
        if "::SYNTHESIZED::" in sym["identifier"]["precise"]:
            continue
        kinds[sym["kind"]["displayName"]] += 1
        names.append(title)
print(f"{len(names)} public symbols")
for kind, n in kinds.most_common():
    print(f"  {n:4d} {kind}")
if "--list" in sys.argv:
    print("\n".join(sorted(names)))
