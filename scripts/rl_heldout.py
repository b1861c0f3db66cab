#!/usr/bin/env python3
"""Summarises scripts/rl_heldout.sh: for each learned partner and layout, its mean score
with each held-out partner (the BC human proxy `bc`, `greedy`, and SP policies of seeds
outside every pool, by default seeds 2, 21, 22 and 23), both seats averaged (100 episodes
per partner by default), and whether it is a competent partner.

The SP seeds are one held-out partner, a population: self-play runs of different seeds
settle on different conventions, so a single seed is a draw from that population and the
score with it says as much about which convention that seed happened to learn as about
the policy. The table gives the mean over the seeds (each seed's episodes weigh the same)
and, beside it, the worst seed with its score, which is not judged.

Competent (docs/rl.md): with every held-out partner (bc, greedy, the SP seeds' mean) it
scores at least a quarter of what the best of the layout's learned partners scores with
that partner, and at least one soup (20 points) on average. Each weak policy is listed
with the partners it fails, its score there with the standard error (over all the
partner's episodes), and the bar; a failure closer to the bar than two standard errors is
marked "within 2 SE of the bar" (the bar moves with the best policy: shipping a better
partner can make another policy weak without it changing). Each SP seed alone, judged
the same way, is listed after it as information.

Also prints the comparison the issue asks for: FCP, MEP and COLE against SP with the BC
proxy, per layout, each mean with its standard error over both seats' episodes; a score
under SP's is marked "within 2 SE" when the gap is under twice the standard error of the
difference (the strict count stays the headline).

Usage: python3 scripts/rl_heldout.py OUT-dir
"""

import json
import os
import re
import signal
import sys
from collections import defaultdict

LAYOUTS = ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"]
ALGOS = ["sp", "pbt", "fcp", "mep", "cole"]
SP = "sp seeds"  # the population of held-out SP seeds, judged as one partner


def sp_seed(partner):
    """The seed of a held-out SP partner (`rl:<dir>/<layout>_sp_s<N>.safetensors`), or None."""
    m = re.fullmatch(r"rl:.*_sp_s(\d+)\.safetensors", partner)
    return int(m.group(1)) if m else None


def load(out):
    scores = defaultdict(list)  # (layout, agent, partner) -> scores; partner "sp seed N" per seed
    for layout in LAYOUTS:
        d = os.path.join(out, layout)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not (f.startswith("results") and f.endswith(".jsonl")):
                continue
            path = os.path.join(d, f)
            with open(path) as fh:
                for n, line in enumerate(fh, 1):
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        r = json.loads(line)
                    except ValueError:
                        sys.exit(f"rl_heldout: {path}:{n}: not JSON")
                    if "score" not in r:
                        continue
                    seed = sp_seed(r["partner"])
                    if r["partner"].startswith("rl:") and seed is None:
                        sys.exit(f"rl_heldout: {path}:{n}: partner {json.dumps(r['partner'])} is not an SP seed's file (<layout>_sp_s<N>.safetensors)")
                    partner = r["partner"] if seed is None else f"sp seed {seed}"
                    scores[(layout, r["agent"], partner)].append(r["score"])
    return scores


def stats(v):
    m = sum(v) / len(v)
    e = (sum((x - m) ** 2 for x in v) / (len(v) - 1)) ** 0.5 / len(v) ** 0.5 if len(v) > 1 else 0.0
    return m, e


def main():
    # `| head` closes the pipe early: end quietly, as the Unix tools do.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    out = sys.argv[1] if len(sys.argv) > 1 else "runs/heldout"
    s = load(out)
    if not s:
        # An empty table would read as "no weak policy".
        sys.exit(f"rl_heldout: no results under {out}/<layout>/ (run scripts/rl_heldout.sh first)")
    seeds_of = defaultdict(set)  # layout -> its held-out SP seeds
    for (layout, _, p) in s:
        if p.startswith("sp seed "):
            seeds_of[layout].add(int(p.split()[-1]))
    for layout in sorted({l for (l, _, _) in s}):
        if not seeds_of[layout]:
            sys.exit(f"rl_heldout: no held-out SP seed among the partners under {out}/{layout}/")
    # The population as one partner: every seed's episodes together (equal counts per seed
    # make this the mean of the seeds' means).
    for (layout, a, p), v in list(s.items()):
        if p.startswith("sp seed "):
            s[(layout, a, SP)] = s.get((layout, a, SP), []) + v
    agents = sorted({a for (_, a, _) in s}, key=lambda a: ALGOS.index(a) if a in ALGOS else len(ALGOS))
    partners = ["bc", "greedy", SP]
    st = {k: stats(v) for k, v in s.items()}
    mean = {k: m for k, (m, _) in st.items()}
    se = {k: e for k, (_, e) in st.items()}
    print("| layout | policy | with bc | with greedy | with the SP seeds (mean) | mean | competent | worst SP seed |")
    print("|---|---|---|---|---|---|---|---|")
    weak = []
    why = []
    single = []
    for layout in LAYOUTS:
        seeds = sorted(seeds_of[layout])
        best = {p: max([mean.get((layout, a, p), 0.0) for a in agents] or [0.0])
                for p in partners + [f"sp seed {x}" for x in seeds]}

        def bar(p):
            # The competence bar with partner p: a quarter of the best policy's score, one soup at least.
            return max(20.0, 0.25 * best[p])

        for a in agents:
            row = [mean.get((layout, a, p)) for p in partners]
            if any(x is None for x in row):
                continue
            per_seed = [(mean[(layout, a, f"sp seed {x}")], x) for x in seeds if (layout, a, f"sp seed {x}") in mean]
            if len(per_seed) != len(seeds):
                sys.exit(f"rl_heldout: {layout} {a}: results with SP seeds {[x for _, x in per_seed]}, "
                         f"expected {seeds} (rl_heldout.sh with the same seeds for every policy)")
            bars = [bar(p) for p in partners]
            ok = all(x >= bar for x, bar in zip(row, bars))
            if not ok:
                weak.append(f"{layout} {a}")
                for x, b, p in zip(row, bars, partners):
                    if x < b:
                        e = se[(layout, a, p)]
                        near = " (within 2 SE of the bar)" if b - x < 2 * e else ""
                        why.append(f"- {layout} {a} with {p}: {x:.1f} ± {e:.1f}, bar {b:.1f}{near}")
            for x, seed in per_seed:
                p = f"sp seed {seed}"
                if x < bar(p):
                    single.append(f"- {layout} {a} with {p}: {x:.1f} ± {se[(layout, a, p)]:.1f}, bar {bar(p):.1f}")
            worst, wseed = min(per_seed)
            cells = [f"{x:.1f}" for x in row]
            print(f"| {layout} | {a} | " + " | ".join(cells) + f" | {sum(row) / 3:.1f} | {'yes' if ok else '**no**'} | {worst:.1f} (seed {wseed}) |")
    print()
    print("SP seeds: " + "; ".join(f"{l} " + ", ".join(str(x) for x in sorted(seeds_of[l]))
                                   for l in LAYOUTS if seeds_of[l]))
    print()
    print("weak:", ", ".join(weak) if weak else "none")
    for line in why:
        print(line)
    if single:
        print()
        print("under the bar with one SP seed alone (not judged: one seed is one convention):")
        for line in single:
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
