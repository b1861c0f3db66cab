#!/usr/bin/env python3
"""Who does what in a team: per-seat counts of the classic Overcooked sub-tasks, read from
trajectory files (`proagent play --trajectory FILE` or the reference-trace schema).

Explains a low team score by roles: a partner that keeps putting onions on a counter for a
teammate who never takes them, or one that pots almost nothing itself, shows here.

A sub-task is read from a change of what a player holds between two consecutive states,
and from the tile the player faces after the step: onion taken from a dispenser (`O`) or
a counter (`X`); onion into a pot (`P`) or onto a counter; dish taken from the dish
dispenser (`D`) or a counter; soup taken (a dish turned into a soup, at a pot) and soup
delivered (`S`). Counts are means per episode, one row per team (the agents, seat 0
first) and seat.

Usage: python3 scripts/rl_roles.py [--json] TRAJECTORY.jsonl...
"""

import argparse
import json
import sys
from collections import defaultdict

# (what was held, what is held now, the tile faced) -> column
EVENTS = [
    ("onion from O", None, "onion", "O"),
    ("onion from X", None, "onion", "X"),
    ("onion into P", "onion", None, "P"),
    ("onion onto X", "onion", None, "X"),
    ("dish from D", None, "dish", "D"),
    ("dish from X", None, "dish", "X"),
    ("soup taken", "dish", "soup", "P"),
    ("soup delivered", "soup", None, "S"),
]
COLUMNS = [e[0] for e in EVENTS]


class BadTrajectory(Exception):
    pass


def held_name(player):
    h = player.get("held")
    if h is None:
        return None
    if not isinstance(h, dict) or not isinstance(h.get("name"), str):
        raise BadTrajectory("`held` must be null or an object with a `name`")
    return h["name"]


def faced_tile(grid, player):
    try:
        x, y = player["pos"]
        dx, dy = player["or"]
        tx, ty = x + dx, y + dy
    except (KeyError, TypeError, ValueError) as e:
        raise BadTrajectory(f"a player needs `pos` and `or` as [x, y] ({e})")
    if not (0 <= ty < len(grid)) or not (0 <= tx < len(grid[ty])):
        raise BadTrajectory(f"player at {player['pos']} faces {[tx, ty]}, outside the grid")
    return grid[ty][tx]


def count_episode(ep):
    """Per-seat event counts of one trajectory object."""
    grid = ep.get("grid")
    steps = ep.get("steps")
    if not isinstance(grid, list) or not isinstance(steps, list):
        raise BadTrajectory("a trajectory needs `grid` (list of rows) and `steps` (list)")
    start = ep.get("start", {}).get("players")
    if not isinstance(start, list):
        raise BadTrajectory("a trajectory needs `start.players`")
    seats = len(start)
    counts = [defaultdict(int) for _ in range(seats)]
    prev = [None] * seats  # every player starts empty-handed
    for t, step in enumerate(steps):
        players = step.get("state", {}).get("players") if isinstance(step, dict) else None
        if not isinstance(players, list) or len(players) != seats:
            raise BadTrajectory(f"step {t}: `state.players` must list {seats} players")
        for i, p in enumerate(players):
            now = held_name(p)
            if now != prev[i]:
                tile = faced_tile(grid, p)
                for name, before, after, where in EVENTS:
                    if prev[i] == before and now == after and tile == where:
                        counts[i][name] += 1
            prev[i] = now
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    ap.add_argument("files", nargs="+", help="trajectory files (JSON Lines, one episode per line)")
    a = ap.parse_args()
    totals = {}  # (team, seat) -> [episodes, counts]
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
                    ep = json.loads(line)
                    if not isinstance(ep, dict):
                        raise BadTrajectory("a line must hold one JSON object")
                    agents = ep.get("agents") or [f"seat {i}" for i in range(len(ep.get("start", {}).get("players", [])))]
                    counts = count_episode(ep)
                    names = [str(agents[i]) if i < len(agents) else f"seat {i}" for i in range(len(counts))]
                    team = " + ".join(names)
                    for seat, c in enumerate(counts):
                        key = (team, seat, names[seat])
                        slot = totals.setdefault(key, [0, defaultdict(int)])
                        slot[0] += 1
                        for k, v in c.items():
                            slot[1][k] += v
                except json.JSONDecodeError as e:
                    sys.exit(f"rl_roles: {path}:{line_no}: not JSON ({e.msg})")
                except BadTrajectory as e:
                    sys.exit(f"rl_roles: {path}:{line_no}: {e}")
                except (AttributeError, TypeError, KeyError, IndexError) as e:
                    sys.exit(f"rl_roles: {path}:{line_no}: not a trajectory of the reference schema ({e!r})")
    if not totals:
        sys.exit("rl_roles: no trajectories in the files given")
    rows = []
    for (team, seat, agent), (n, c) in totals.items():
        rows.append({"team": team, "seat": seat, "agent": agent, "episodes": n,
                     **{col: round(c[col] / n, 2) for col in COLUMNS}})
    if a.json:
        print(json.dumps(rows, indent=1))
        return
    print("| team | seat | agent | episodes | " + " | ".join(COLUMNS) + " |")
    print("|---|---|---|---|" + "---|" * len(COLUMNS))
    for r in rows:
        print(f"| {r['team']} | {r['seat']} | {r['agent']} | {r['episodes']} | " + " | ".join(f"{r[c]:.1f}" for c in COLUMNS) + " |")


if __name__ == "__main__":
    main()
