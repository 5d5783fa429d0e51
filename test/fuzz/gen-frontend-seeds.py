#!/usr/bin/env python3
"""Writes the seed corpus of the weavec front-end fuzzer.

usage: gen-frontend-seeds.py OUT_DIR ROOT FILE...

Each FILE (an .mlir of examples/ or test/) is split at `// -----`, as
`-split-input-file` does; comment-only lines (RUN, CHECK, expected-error)
are dropped, since the fuzzer would only mutate them into other comments.
Seeds are named after the file's path under ROOT and the piece's index.
"""
import os
import re
import sys


def main():
    out_dir, root, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, name))
    count = 0
    for path in sorted(files):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.relpath(path, root))
        for i, piece in enumerate(re.split(r"^// -----.*$", text, flags=re.M)):
            lines = [l for l in piece.splitlines() if not l.lstrip().startswith("//")]
            body = "\n".join(lines).strip("\n")
            if not body.strip():
                continue
            with open(os.path.join(out_dir, f"{stem}.{i}"), "w", encoding="utf-8") as f:
                f.write(body + "\n")
            count += 1
    print(f"gen-frontend-seeds: {count} seed(s) from {len(files)} file(s) in {out_dir}")


if __name__ == "__main__":
    main()
