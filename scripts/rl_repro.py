#!/usr/bin/env python3
"""Re-trains shipped RL models from the command stored in their .json and checks that the
new weights are byte-for-byte the shipped ones.

Each model's `.json` holds the full `proagent rl train ...` command that wrote it. This
script re-runs that command with `--out` pointed at OUT-dir (nothing under data/ is
touched), then compares the two `.safetensors` files byte for byte. Pool files a command
reads (`--pool ...`) must exist; the extra SP seeds some pools use come from
scripts/rl_train_all.sh.

Usage: python3 scripts/rl_repro.py [--bin target/release/proagent] [--out runs/repro]
                                   [--threads N] MODEL...
MODEL: a model's path (with or without .safetensors) or a glob of them (data/rl/cramped_room_sp,
'data/rl/*_sp', 'data/rl/v2/*'); the default is every shipped model (hours of CPU).
Exit status: 0 when every model checked is identical, 1 otherwise.
"""

import argparse
import filecmp
import glob
import json
import os
import shlex
import subprocess
import sys
import time


def models(patterns):
    found = []
    for p in patterns:
        if p.endswith(".safetensors"):
            p = p[: -len(".safetensors")]
        hits = sorted(glob.glob(p if p.endswith(".json") else p + ".json"))
        if not hits:
            sys.exit(f"rl_repro: no model matches {p!r}")
        found.extend(h[: -len(".json")] for h in hits)
    return found


def command(stem, binary, out):
    try:
        with open(stem + ".json") as fh:
            meta = json.load(fh)
    except OSError as e:
        sys.exit(f"rl_repro: {stem}.json: {e.strerror}")
    except json.JSONDecodeError as e:
        sys.exit(f"rl_repro: {stem}.json:{e.lineno}: not JSON ({e.msg})")
    if not isinstance(meta, dict):
        sys.exit(f"rl_repro: {stem}.json: not a model's metadata object")
    try:
        argv = shlex.split(meta["command"])
    except (KeyError, ValueError) as e:
        sys.exit(f"rl_repro: {stem}.json: no usable \"command\" field ({e})")
    if argv[:3] != ["proagent", "rl", "train"] or "--out" not in argv:
        sys.exit(f"rl_repro: {stem}.json: \"command\" is not an `rl train ... --out` command")
    argv[0] = binary
    argv[argv.index("--out") + 1] = out
    # The thread count does not change the weights; --quiet/--force only the console and
    # the existing-file check.
    argv = [a for a in argv if a not in ("--quiet", "--force")]
    if "--threads" in argv:
        i = argv.index("--threads")
        del argv[i : i + 2]
    return argv + ["--quiet", "--force"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="target/release/proagent")
    ap.add_argument("--out", default="runs/repro")
    ap.add_argument("--threads", default="1")
    ap.add_argument("model", nargs="*", default=["data/rl/*", "data/rl/v2/*"])
    a = ap.parse_args()
    if not os.path.isfile(a.bin):
        sys.exit(f"rl_repro: {a.bin}: no such binary (cargo build --release)")
    os.makedirs(a.out, exist_ok=True)
    # Every command and pool file is checked before the first (long) run starts.
    plan = []
    for stem in models(a.model):
        name = stem.replace("/", "_").removeprefix("data_rl_")
        out = os.path.join(a.out, name + ".safetensors")
        argv = command(stem, a.bin, out) + ["--threads", a.threads]
        for i, arg in enumerate(argv[:-1]):
            if arg == "--pool":
                missing = [p for p in argv[i + 1].split(",") if not os.path.isfile(p)]
                if missing:
                    sys.exit(f"rl_repro: {stem}: pool file(s) missing: {', '.join(missing)} (scripts/rl_train_all.sh trains them)")
        if not os.path.isfile(stem + ".safetensors"):
            sys.exit(f"rl_repro: {stem}.safetensors: no such file to compare with")
        plan.append((stem, out, argv))
    bad = 0
    print("| model | wall | identical |")
    print("|---|---|---|")
    for stem, out, argv in plan:
        t0 = time.time()
        r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.time() - t0
        if r.returncode != 0:
            print(f"| {stem} | {wall / 60:.1f} min | training failed: {r.stderr.strip()[-200:]} |")
            bad += 1
            continue
        same = filecmp.cmp(stem + ".safetensors", out, shallow=False)
        bad += not same
        print(f"| {stem} | {wall / 60:.1f} min | {'yes' if same else '**no**'} |", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
