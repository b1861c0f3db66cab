#!/usr/bin/env python3
"""Lines of Rust code at a git revision: non-blank lines that are not comments, outside
test code (tests/ directories, benches, examples, and `#[cfg(test)]` modules, which sit at the
end of a file by the project's convention).

    python3 scripts/loc.py [REV ...]        # default: HEAD

Prints one line per revision: the revision, its total and the lines per top-level directory
(crates/NAME, src, python). Reads the repository with `git`; writes nothing.
"""
import subprocess
import sys
from collections import Counter


def files(rev):
    out = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev], capture_output=True,
                         text=True, check=True).stdout
    for path in out.splitlines():
        parts = path.split("/")
        if not path.endswith(".rs") or {"tests", "benches", "examples", "fuzz"} & set(parts):
            continue
        yield path


def count(text):
    n = 0
    lines = text.splitlines()
    for i, line in enumerate(lines):
        s = line.strip()
        if s == "#[cfg(test)]" and not line.startswith((" ", "\t")):
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if nxt.startswith("mod ") or nxt.startswith("pub mod "):
                break
        if not s or s.startswith("//"):
            continue
        n += 1
    return n


def group(path):
    parts = path.split("/")
    if parts[0] == "crates" and len(parts) > 2:
        return "crates/" + parts[1]
    return parts[0]


def main():
    revs = sys.argv[1:] or ["HEAD"]
    for rev in revs:
        per = Counter()
        for path in files(rev):
            text = subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True,
                                  text=True, check=True).stdout
            per[group(path)] += count(text)
        total = sum(per.values())
        detail = ", ".join(f"{k} {v}" for k, v in sorted(per.items()))
        print(f"{rev}: {total} lines ({detail})")


if __name__ == "__main__":
    main()
