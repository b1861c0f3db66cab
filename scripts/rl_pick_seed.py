#!/usr/bin/env python3
"""Picks which of several training runs of one algorithm to ship: the run whose policy
scores best, on average, with the other runs (cross-play, both seats).

Self-play runs of different seeds settle on different conventions (on coordination_ring
the SP run of seed 1 scores 14.7 on average with seeds 3-5, which score 82-103 with each
other). Shipping the run that shares the most common convention makes a better partner
for strangers, and the choice uses only the training runs: the held-out partners of
scripts/rl_heldout.sh (the BC proxy, greedy, SP seeds 2 and 21-23) must not be among
MODEL.

Plays every ordered pair of MODEL (10 episodes per pair and seat, seeds 0-9; --episodes
changes the count) with `proagent eval`, prints each run's mean score with the others on stderr, and the chosen
model's path on stdout (ties: the first listed).

Usage: python3 scripts/rl_pick_seed.py [--bin target/release/proagent] [--out DIR]
                                       [--episodes N] LAYOUT MODEL MODEL...
"""

import argparse
import csv
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/release/proagent")
    ap.add_argument("--out", default="runs/pick", help="where the cross-play evaluation goes")
    ap.add_argument("--episodes", type=int, default=10, help="episodes per pair and seat")
    ap.add_argument("layout")
    ap.add_argument("models", nargs="+", help=".safetensors files of the candidate runs")
    a = ap.parse_args()
    if a.episodes < 1:
        sys.exit("rl_pick_seed: --episodes must be at least 1")
    if len(a.models) < 2:
        sys.exit("rl_pick_seed: give at least two models to choose from")
    if len(set(a.models)) != len(a.models):
        sys.exit("rl_pick_seed: a model is listed twice")
    for m in a.models:
        if not os.path.isfile(m):
            sys.exit(f"rl_pick_seed: {m}: no such file")
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"rl_pick_seed: {a.bin}: not an executable (build with cargo build --release)")
    specs = ",".join("rl:" + m for m in a.models)
    out = os.path.join(a.out, a.layout)
    cmd = [a.bin, "eval", "--layouts", a.layout, "--agents", specs, "--partners", specs,
           "--episodes", str(a.episodes), "--seed", "0", "--quiet", "--out", out]
    run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"rl_pick_seed: {' '.join(cmd)} failed:\n{run.stderr}")
    report = os.path.join(out, "report.csv")
    scores = {m: [] for m in a.models}
    try:
        with open(report, newline="") as fh:
            for line, row in enumerate(csv.DictReader(fh), start=2):
                agent, partner = row["agent"][3:], row["partner"][3:]
                if agent == partner or agent not in scores:
                    continue
                try:
                    scores[agent].append(float(row["mean"]))
                except ValueError:
                    sys.exit(f"rl_pick_seed: {report}:{line}: mean {row['mean']!r} is not a number")
    except (OSError, KeyError) as e:
        sys.exit(f"rl_pick_seed: {report}: unreadable ({e})")
    means = {}
    for m in a.models:
        want = 2 * (len(a.models) - 1)
        if len(scores[m]) != want:
            sys.exit(f"rl_pick_seed: {report}: {len(scores[m])} cells for {m}, expected {want}")
        means[m] = sum(scores[m]) / want
    best = max(a.models, key=lambda m: means[m])  # max keeps the first of equals
    print(f"{a.layout}: mean score with the other runs (both seats, {a.episodes} episodes per seat)",
          file=sys.stderr)
    for m in a.models:
        print(f"  {means[m]:6.1f}  {m}{'  <- picked' if m == best else ''}", file=sys.stderr)
    print(best)


if __name__ == "__main__":
    main()
