#!/usr/bin/env python3
"""Prints the learned-partner tables of docs/results.md from the shipped models' metadata
(data/rl/<layout>_<algo>.json and data/rl/v2/*.json, written by `proagent rl train`):
self-play scores beside the 2019 PPO figures, training times with rollout and update
speeds, and the OvercookedV2 models.

With a cross-play directory (written by scripts/rl_crossplay.sh), prints per layout each
policy's score with itself (the matrix diagonal) against its mean with the others.

Usage: python3 scripts/rl_results.py [data/rl] [crossplay-dir]
"""

import json
import os
import sys

LAYOUTS = ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"]
# Carroll et al. 2019, self-play PPO and PBT (mean over seeds, 400 steps).
PUBLISHED = {
    "sp": [198.8, 167.2, 190.8, 151.9, 122.3],
    "pbt": [216.9, 190.1, 173.8, 169.5, 140.1],
}


def load(d, layout, algo):
    path = os.path.join(d, f"{layout}_{algo}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def self_play_table(d):
    print("| layout | SP (ours) | 2019 PPO SP | difference | PBT (ours) | 2019 PBT | difference |")
    print("|---|---|---|---|---|---|---|")
    for i, layout in enumerate(LAYOUTS):
        cells = [layout]
        for algo in ["sp", "pbt"]:
            m = load(d, layout, algo)
            pub = PUBLISHED[algo][i]
            if m is None:
                cells += ["not trained", f"{pub}", "—"]
                continue
            sp = m["self_play"]
            diff = 100.0 * (sp["mean"] - pub) / pub
            cells += [f"{sp['mean']:.1f} ± {sp['se']:.1f}", f"{pub}", f"{diff:+.0f} %"]
        print("| " + " | ".join(cells) + " |")


def pool_mean(m):
    others = [e["mean"] for e in m["evaluations"] if e["partner"] != "self"]
    return sum(others) / len(others) if others else None


def training_table(d):
    print(
        "| layout | algo | env steps (all networks) | wall | rollout s | update s | rollout steps/s "
        "| update samples/s | self-play (100 ep.) | mean with its pool/population |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for layout in LAYOUTS:
        for algo in ["sp", "pbt", "fcp", "mep", "cole"]:
            m = load(d, layout, algo)
            if m is None:
                print(f"| {layout} | {algo} | not trained | | | | | | | |")
                continue
            pm = pool_mean(m)
            print(
                f"| {layout} | {algo} | {m['env_steps'] / 1e6:.0f} M | {m['wall_s'] / 60:.1f} min | "
                f"{m['rollout_s']:.0f} | {m['update_s']:.0f} | {m['rollout_steps_per_s']:,.0f} | "
                f"{m['update_samples_per_s']:,.0f} | {m['self_play']['mean']:.1f} | "
                + (f"{pm:.1f}" if pm is not None else "—")
                + " |"
            )


def short(name):
    # rl:DIR/<layout>_sp_s2.safetensors -> sp_s2
    if name.startswith("rl:"):
        stem = os.path.basename(name[3:]).rsplit(".", 1)[0]
        return "_".join(stem.split("_")[-2:])
    return name


def crossplay_table(xp):
    print("| layout | policies | mean with itself (diagonal) | mean with the others (off-diagonal) | gap | SP seeds: with itself | SP seeds: with another seed |")
    print("|---|---|---|---|---|---|---|")
    for layout in LAYOUTS:
        path = os.path.join(xp, layout, "report.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            r = json.load(f)
        cells = {(c["agent"], c["partner"]): c["mean"] for c in r["cells"] if c["layout"] == layout}
        names = r["agents"]
        diag = [cells[(a, a)] for a in names]
        off = [v for (a, b), v in cells.items() if a != b]
        sps = [a for a in names if a == "sp" or short(a).startswith("sp_s")]
        sp_diag = [cells[(a, a)] for a in sps]
        sp_off = [cells[(a, b)] for a in sps for b in sps if a != b]
        dm, om = sum(diag) / len(diag), sum(off) / len(off)
        spo = f"{sum(sp_off) / len(sp_off):.1f}" if sp_off else "—"
        print(
            f"| {layout} | {', '.join(short(a) for a in names)} | {dm:.1f} | {om:.1f} | {100 * (om - dm) / dm:+.0f} % "
            f"| {sum(sp_diag) / len(sp_diag):.1f} | {spo} |"
        )


def v2_table(d):
    v2 = os.path.join(d, "v2")
    if not os.path.isdir(v2):
        return
    print(
        "| V2 layout | switches | algo | env steps (all networks) | wall | rollout steps/s | update samples/s "
        "| self-play (100 ep.) | mean with its pool |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for f in sorted(os.listdir(v2)):
        if not f.endswith(".json"):
            continue
        with open(os.path.join(v2, f)) as fh:
            m = json.load(fh)
        sw = {k: v for k, v in m.get("settings", {}).items() if v not in (None, False)}
        switches = ", ".join(f"{k} {v}" for k, v in sw.items()) or "defaults (full view)"
        pm = pool_mean(m)
        print(
            f"| v2:{m['layout']} | {switches} | {m['algo']} | {m['env_steps'] / 1e6:.0f} M | {m['wall_s'] / 60:.1f} min | "
            f"{m['rollout_steps_per_s']:,.0f} | {m['update_samples_per_s']:,.0f} | "
            f"{m['self_play']['mean']:.1f} ± {m['self_play']['se']:.1f} | " + (f"{pm:.1f}" if pm is not None else "—") + " |"
        )


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "data/rl"
    # A wrong directory would otherwise print a table of "not trained" rows.
    if not os.path.isdir(d) or not any(f.endswith(".json") for f in os.listdir(d)):
        sys.exit(f"rl_results: {d}: no model .json files (the shipped ones are in data/rl)")
    if len(sys.argv) > 2 and not os.path.isdir(sys.argv[2]):
        sys.exit(f"rl_results: {sys.argv[2]}: no such directory (scripts/rl_crossplay.sh writes it)")
    self_play_table(d)
    print()
    training_table(d)
    print()
    v2_table(d)
    if len(sys.argv) > 2:
        print()
        crossplay_table(sys.argv[2])


if __name__ == "__main__":
    main()
