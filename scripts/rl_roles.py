#!/usr/bin/env python3
"""Who does what in a team: each seat's object-handling actions per episode, averaged over
the episodes of `proagent play --json` output.

Explains a low team score by roles: a partner that keeps putting onions on a counter for a
teammate who never takes them, or one that pots almost nothing itself, shows here. The
counts are the teamwork analysis's own (`teamwork.players[i].actions` of each episode
line, from the symbolic trace of crates/analysis); this script only averages them, one
row per team (agent and partner, seat 0 first) and seat.

Usage: proagent play ... --json > FILE; python3 scripts/rl_roles.py [--json] FILE...
"""

import argparse
import json
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


def seat_actions(ep):
    """The episode's team (names by seat) and each seat's action counts."""
    agent, partner, seat = ep["agent"], ep["partner"], ep["seat"]
    if seat not in (0, 1):
        raise ValueError(f"seat {seat!r} is not 0 or 1")
    players = ep["teamwork"]["players"]
    if len(players) != 2:
        raise ValueError("`teamwork.players` must list two players")
    names = [agent, partner] if seat == 0 else [partner, agent]
    return names, [dict(p["actions"]) for p in players]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print JSON (every action) instead of a Markdown table")
    ap.add_argument("files", nargs="+", help="`proagent play --json` output: one episode per line")
    a = ap.parse_args()
    totals = {}  # (team, seat, agent) -> [episodes, counts]
    for path in a.files:
        try:
            fh = open(path, encoding="utf-8")
        except OSError as e:
            sys.exit(f"rl_roles: {path}: {e.strerror}")
        with fh:
            for line_no, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    names, counts = seat_actions(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"rl_roles: {path}:{line_no}: not JSON ({e.msg})")
                except (KeyError, TypeError, ValueError, AttributeError) as e:
                    sys.exit(f"rl_roles: {path}:{line_no}: not a classic Overcooked episode line of "
                             f"`proagent play --json` with teamwork actions ({e!r})")
                team = " + ".join(names)
                for seat, c in enumerate(counts):
                    slot = totals.setdefault((team, seat, names[seat]), [0, defaultdict(int)])
                    slot[0] += 1
                    for k, v in c.items():
                        slot[1][k] += v
    if not totals:
        sys.exit("rl_roles: no episodes in the files given")
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
