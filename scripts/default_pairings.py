#!/usr/bin/env python3
"""Score of every game's default pairing on every built-in layout or scenario.

For each built-in spec that `proagent play --help` lists under `--layout` (the list comes
from the game catalog), plays the game's default agent with its default partner (no
`--agent`, no `--partner`) in each seat the game has room for, over seeds 0..N-1, and
prints one Markdown table row per spec: the mean score per seat and the fewest points of
any episode. This is the table of docs/partners.md, "Default partners".

Usage: scripts/default_pairings.py [--bin PROAGENT] [--episodes N] [--seats 0,1] [SPEC ...]
Exit status 0 when every pairing ran, 1 otherwise. Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys


def builtin_specs(binary: str) -> list[str]:
    """The built-in specs of every game, as the `--layout` help lists them."""
    text = subprocess.run([binary, "play", "--help"], capture_output=True, text=True, check=True).stdout
    text = " ".join(text.split())
    text = text.split("--layout <LAYOUT>", 1)[-1].split("[default:", 1)[0]
    specs: list[str] = []
    for _game, names in re.findall(r"\(([A-Za-z0-9 -]+): ([^()]+)\)", text):
        specs.extend(n.strip() for n in names.split(",") if n.strip())
    return specs


def play(binary: str, spec: str, seat: int, episodes: int) -> list[dict] | None:
    """The `--json` summaries of the default pairing with the agent in `seat`; `None` when
    the game has no such seat."""
    out = subprocess.run(
        [binary, "play", "--layout", spec, "--seat", str(seat), "--episodes", str(episodes),
         "--no-transcript", "--no-progress", "--json"],
        capture_output=True, text=True,
    )
    if out.returncode != 0:
        if f"--seat {seat}: " in out.stderr and " has " in out.stderr:
            return None
        raise RuntimeError(f"{spec} seat {seat}: {out.stderr.strip()}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="proagent")
    ap.add_argument("--episodes", type=int, default=3)
    ap.add_argument("--seats", default="0,1")
    ap.add_argument("specs", nargs="*")
    a = ap.parse_args()
    seats = [int(s) for s in a.seats.split(",")]
    specs = a.specs or builtin_specs(a.bin)
    print("| layout | agent | partner | " + " | ".join(f"seat {s}" for s in seats) + " | lowest |")
    print("|---|---|---|" + "---|" * len(seats) + "---|")
    failed = False
    for spec in specs:
        cells, lowest, who = [], None, None
        for seat in seats:
            try:
                rows = play(a.bin, spec, seat, a.episodes)
            except RuntimeError as e:
                print(e, file=sys.stderr)
                failed = True
                rows = None
            if rows is None:
                cells.append("–")
                continue
            scores = [r["score"] for r in rows]
            partners = ",".join(dict.fromkeys(rows[0]["partner"].split(",")))
            who = who or (rows[0]["agent"], partners)
            cells.append(f"{sum(scores) / len(scores):.1f}")
            lowest = min(scores) if lowest is None else min(lowest, *scores)
        agent, partner = who or ("?", "?")
        partner = partner or "(one player)"
        lowest = f"{lowest:g}" if lowest is not None else "–"
        print(f"| {spec} | {agent} | {partner} | " + " | ".join(cells) + f" | {lowest} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
