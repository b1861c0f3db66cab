#!/usr/bin/env python3
"""Summarises scripts/rl_heldout.sh: for each learned partner and layout, its mean score
with each held-out partner (the BC human proxy `bc`, `greedy`, and an SP policy of another
seed), both seats averaged (100 episodes by default), and whether it is a competent partner.

Competent (docs/rl.md): with every held-out partner it scores at least a quarter of what
the best of the layout's learned partners scores with that partner, and at least one soup
(20 points) on average. Each weak policy is listed with the partners it fails, its score
there with the standard error, and the bar; a failure closer to the bar than two standard
errors is marked "within 2 SE of the bar" (the bar moves with the best policy: shipping a
better partner can make another policy weak without it changing).

Also prints the comparison the issue asks for: FCP, MEP and COLE against SP with the BC
proxy, per layout, each mean with its standard error over both seats' episodes; a score
under SP's is marked "within 2 SE" when the gap is under twice the standard error of the
difference (the strict count stays the headline).

Usage: python3 scripts/rl_heldout.py OUT-dir
"""

import json
import os
import sys
from collections import defaultdict

LAYOUTS = ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"]


def partner_name(p):
    if p.startswith("rl:"):
        return "sp seed 2"
    return p


def load(out):
    scores = defaultdict(list)  # (layout, agent, partner) -> scores
    for layout in LAYOUTS:
        d = os.path.join(out, layout)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not (f.startswith("results") and f.endswith(".jsonl")):
                continue
            with open(os.path.join(d, f)) as fh:
                for line in fh:
                    line = line.strip()
                    if not line:
                        continue
                    r = json.loads(line)
                    if "score" not in r:
                        continue
                    scores[(layout, r["agent"], partner_name(r["partner"]))].append(r["score"])
    return scores


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "runs/heldout"
    s = load(out)
    if not s:
        # An empty table would read as "no weak policy".
        sys.exit(f"rl_heldout: no results under {out}/<layout>/ (run scripts/rl_heldout.sh first)")
    agents = sorted({a for (_, a, _) in s}, key=lambda a: ["sp", "pbt", "fcp", "mep", "cole"].index(a)
                    if a in ["sp", "pbt", "fcp", "mep", "cole"] else 9)
    partners = ["bc", "greedy", "sp seed 2"]
    mean = {k: sum(v) / len(v) for k, v in s.items()}
    se = {k: (sum((x - mean[k]) ** 2 for x in v) / (len(v) - 1)) ** 0.5 / len(v) ** 0.5 if len(v) > 1 else 0.0
          for k, v in s.items()}
    print("| layout | policy | with bc | with greedy | with sp seed 2 | mean | competent |")
    print("|---|---|---|---|---|---|---|")
    weak = []
    why = []
    for layout in LAYOUTS:
        best = {p: max([mean.get((layout, a, p), 0.0) for a in agents] or [0.0]) for p in partners}
        for a in agents:
            row = [mean.get((layout, a, p)) for p in partners]
            if any(x is None for x in row):
                continue
            bars = [max(20.0, 0.25 * best[p]) for p in partners]
            ok = all(x >= bar for x, bar in zip(row, bars))
            if not ok:
                weak.append(f"{layout} {a}")
                for x, bar, p in zip(row, bars, partners):
                    if x < bar:
                        e = se[(layout, a, p)]
                        near = " (within 2 SE of the bar)" if bar - x < 2 * e else ""
                        why.append(f"- {layout} {a} with {p}: {x:.1f} ± {e:.1f}, bar {bar:.1f}{near}")
            cells = [f"{x:.1f}" for x in row]
            print(f"| {layout} | {a} | " + " | ".join(cells) + f" | {sum(row) / 3:.1f} | {'yes' if ok else '**no**'} |")
    print()
    print("weak:", ", ".join(weak) if weak else "none")
    for line in why:
        print(line)
    print()
    print("| layout | SP with bc | FCP with bc | MEP with bc | COLE with bc |")
    print("|---|---|---|---|---|")
    wins = defaultdict(int)
    for layout in LAYOUTS:
        sp = mean.get((layout, "sp", "bc"))
        if sp is None:
            continue
        sp_se = se[(layout, "sp", "bc")]
        cells = [f"{sp:.1f} ± {sp_se:.1f}"]
        for a in ["fcp", "mep", "cole"]:
            v = mean.get((layout, a, "bc"))
            if v is None:
                cells.append("—")
                continue
            v_se = se[(layout, a, "bc")]
            if v >= sp:
                wins[a] += 1
                mark = " ≥ SP"
            elif sp - v < 2 * (sp_se**2 + v_se**2) ** 0.5:
                mark = " (within 2 SE)"
            else:
                mark = ""
            cells.append(f"{v:.1f} ± {v_se:.1f}{mark}")
        print(f"| {layout} | " + " | ".join(cells) + " |")
    print()
    for a in ["fcp", "mep", "cole"]:
        print(f"{a}: at least SP's score with bc on {wins[a]} of {len(LAYOUTS)} layouts")


if __name__ == "__main__":
    main()
