#!/usr/bin/env python3
"""Replaces the tables in docs/GUIDE.md's Benchmarks section with the same tables from one
pcm-mix-bench run's output (the README names the command; this only pastes what it printed).

usage: .build/release/pcm-mix-bench --seconds 30 > bench.txt
       python3 scripts/readme-tables.py bench.txt [docs/GUIDE.md]

Each code block in the section is matched by its first line (a table's header, or the
"Time of builtin-balanced" ratio lines) to the first place the run printed it; footnote lines
("  (...") and the CLI's binary path are left out, as in the README. A block with no match is
left alone and named on stderr.
"""
import sys


def extract(lines, first):
    """The block the run printed starting with the line `first`, or None."""
    key = first.rstrip()
    for i, line in enumerate(lines):
        if line.rstrip() != key and not (key.startswith("Time of") and line.startswith(key[:40])):
            continue
        out = []
        blanks = 0
        for line in lines[i:]:
            if not line.strip():
                # The ratio block holds two paragraphs; every other block ends at a blank line.
                blanks += 1
                if not key.startswith("Time of") or blanks == 2:
                    break
                out.append("")
                continue
            if line.startswith("  (") or line.startswith("  pcm-mix: "):
                continue
            out.append(line.rstrip())
        return out
    return None


def main():
    run = open(sys.argv[1]).read().splitlines()
    path = sys.argv[2] if len(sys.argv) > 2 else "docs/GUIDE.md"
    readme = open(path).read().splitlines()
    start = readme.index("## Benchmarks")
    end = next(i for i in range(start + 1, len(readme)) if readme[i].startswith("## "))
    out = readme[:start]
    i = start
    while i < end:
        line = readme[i]
        out.append(line)
        i += 1
        if line.strip() != "```" or i >= end:
            continue
        close = next(j for j in range(i, end) if readme[j].strip() == "```")
        block = extract(run, readme[i]) if close > i else None
        if block is None:
            sys.stderr.write(f"no match for the block at README line {i + 1}: {readme[i][:60]}\n")
            block = readme[i:close]
        out.extend(block)
        out.append("```")
        i = close + 1
    out.extend(readme[end:])
    open(path, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
