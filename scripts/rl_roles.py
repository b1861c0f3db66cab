#!/usr/bin/env python3
"""Who does what in a team: each seat's object-handling actions per episode, averaged over
the episodes of trajectory files (`proagent play --trajectory FILE`).

Explains a low team score by roles: a partner that keeps putting onions on a counter for a
teammate who never takes them, or one that pots almost nothing itself, shows here. The
counts are the teamwork analysis's own (`players[i].actions` of `proagent analyze --json`,
from the symbolic trace of crates/analysis); this script runs the analysis on each file,
takes the team's names from the file's `agents` field, and averages, one row per team
(seat 0 first) and seat.

Usage: python3 scripts/rl_roles.py [--bin PROAGENT] [--json] TRAJECTORY.jsonl...
(--bin: by default `proagent` on PATH, else target/release/proagent)
"""

import argparse
import json
import shutil
import subprocess
import sys
from collections import defaultdict

# The table's columns (--json gives every action the episodes hold).
COLUMNS = [
    "pick-from-dispenser onion",
    "pick-from-counter onion",
    "put-in-pot onion",
    "place-on-counter onion",
    "pick-from-dispenser dish",
    "pick-from-counter dish",
    "pick-up-soup soup",
    "deliver soup",
]


def teams(path):
    """The seats' names of every trajectory line of `path`, in order."""
    out = []
    try:
        fh = open(path, encoding="utf-8")
    except OSError as e:
        sys.exit(f"rl_roles: {path}: {e.strerror}")
    with fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                ep = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"rl_roles: {path}:{line_no}: not JSON ({e.msg})")
            agents = ep.get("agents") if isinstance(ep, dict) else None
            if not (isinstance(agents, list) and len(agents) == 2):
                agents = ["seat 0", "seat 1"]
            out.append([str(a) for a in agents])
    return out


def analyze(binary, path):
    """Each trajectory's per-player action counts, from `proagent analyze --json`."""
    try:
        p = subprocess.run([binary, "analyze", "--json", path], capture_output=True, text=True)
    except OSError as e:
        sys.exit(f"rl_roles: cannot run {binary}: {e.strerror}")
    if p.returncode != 0:
        sys.exit(f"rl_roles: {path}: proagent analyze failed: {p.stderr.strip()}")
    reports = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    counts = []
    for i, r in enumerate(reports, start=1):
        players = r.get("players")
        if not (isinstance(players, list) and len(players) == 2 and all("actions" in x for x in players)):
            sys.exit(f"rl_roles: {path}: trajectory {i} is not a classic Overcooked episode "
                     "(no per-player actions in its analysis)")
        counts.append([dict(x["actions"]) for x in players])
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=shutil.which("proagent") or "target/release/proagent",
                    help="the proagent binary (default: proagent on PATH, else target/release/proagent)")
    ap.add_argument("--json", action="store_true", help="print JSON (every action) instead of a Markdown table")
    ap.add_argument("files", nargs="+", help="trajectory files (JSON Lines, one episode per line)")
    a = ap.parse_args()
    totals = {}  # (team, seat, agent) -> [episodes, counts]
    for path in a.files:
        names = teams(path)
        counts = analyze(a.bin, path)
        if len(names) != len(counts):
            sys.exit(f"rl_roles: {path}: {len(names)} lines but {len(counts)} analysed trajectories")
        for seats, per_seat in zip(names, counts):
            team = " + ".join(seats)
            for seat, c in enumerate(per_seat):
                slot = totals.setdefault((team, seat, seats[seat]), [0, defaultdict(int)])
                slot[0] += 1
                for k, v in c.items():
                    slot[1][k] += v
    if not totals:
        sys.exit("rl_roles: no trajectories in the files given")
    rows = []
    for (team, seat, agent), (n, c) in totals.items():
        keys = sorted(set(COLUMNS) | set(c))
        rows.append({"team": team, "seat": seat, "agent": agent, "episodes": n,
                     **{k: round(c[k] / n, 2) for k in keys}})
    if a.json:
        print(json.dumps(rows, indent=1))
        return
    print("| team | seat | agent | episodes | " + " | ".join(COLUMNS) + " |")
    print("|---|---|---|---|" + "---|" * len(COLUMNS))
    for r in rows:
        print(f"| {r['team']} | {r['seat']} | {r['agent']} | {r['episodes']} | "
              + " | ".join(f"{r[c]:.1f}" for c in COLUMNS) + " |")


if __name__ == "__main__":
    main()
