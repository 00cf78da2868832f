#!/usr/bin/env python3
"""Checks the layering of Sources/PCMMix: each stage folder may use only the folders listed
before it in ORDER (and Support/, which every folder may use). A use is a type, extension or
top-level function declared in another folder's files and named in this folder's code (comments
and strings aside). Prints each forward use and exits 1 if there is any."""
import os
import re
import sys

ORDER = ["Support", "Format", "Decode", "Channels", "Resample", "Encode", "Mix", "WAV",
         "Pipeline", "Echo", "Loudness", "Timing", "Deprecated"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "PCMMix")
DECL = re.compile(r"^(?:@\w+(?:\([^)]*\))?[ \t]+)*(?:(?:public|package|internal|fileprivate|"
                  r"private|final|indirect|nonisolated)[ \t]+)*(?:struct|enum|class|protocol|"
                  r"typealias|actor|func)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M)


def strip(text):
    text = re.sub(r'"""[\s\S]*?"""', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"/\*[\s\S]*?\*/", "", text)
    return re.sub(r"//.*", "", text)


def main():
    owner, code = {}, {}
    for folder in ORDER:
        path = os.path.join(ROOT, folder)
        for name in sorted(os.listdir(path)):
            if not name.endswith(".swift"):
                continue
            text = strip(open(os.path.join(path, name)).read())
            code[(folder, name)] = text
            # Top-level declarations only (column 0): what other files can name.
            for match in DECL.finditer(text):
                if not match.group(1).startswith("_"):
                    owner.setdefault(match.group(1), folder)
    unknown = sorted(set(os.listdir(ROOT)) - set(ORDER) - {"PCMMix.docc"})
    if unknown:
        print(f"layers: folders not in ORDER: {', '.join(unknown)}")
        return 1
    bad = 0
    for (folder, name), text in sorted(code.items()):
        rank = ORDER.index(folder)
        for ident in sorted(set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", text))):
            other = owner.get(ident)
            if other and ORDER.index(other) > rank:
                print(f"layers: {folder}/{name} uses {ident} from {other}/")
                bad += 1
    print(f"layers: {len(code)} files, {bad} forward uses; order: {' < '.join(ORDER)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
