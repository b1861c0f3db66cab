"""Steps per second from Python for Hanabi, CollabCapture and CollabEscape: the native
``proagent.GameEnv`` (observation and legal mask of the mover read every step) and the
PettingZoo AEC wrapper (``proagent.games.env``), with uniformly random legal moves.

A command, not a test:

    python python/bench/games.py [--seconds 2] [--json]

Each row plays whole episodes (reset with successive seeds) for about ``--seconds`` and
reports steps per second: for GameEnv, moves (Hanabi) or joint turns (the mazes); for
the AEC env, agent steps (a maze turn is two).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import proagent
from proagent import games


def native(spec: str, seconds: float) -> float:
    env = proagent.GameEnv(spec)
    rng = np.random.default_rng(0)
    steps, seed, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        while True:
            movers = env.movers()
            if not movers:
                break
            joint = [None] * env.num_players
            for p in movers:
                env.observe(p)
                mask = env.action_mask(p)
                joint[p] = int(rng.choice(np.flatnonzero(mask)))
            env.step(joint)
            steps += 1
    return steps / (time.perf_counter() - start)


def aec(spec: str, seconds: float) -> float:
    env = games.env(game=spec)
    rng = np.random.default_rng(0)
    steps, seed, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = []
    for spec in ["hanabi:2p", "hanabi:5p", "capture:1", "escape:1"]:
        rows.append({"game": spec, "native_steps_per_s": native(spec, a.seconds), "aec_steps_per_s": aec(spec, a.seconds)})
    if a.json:
        print(json.dumps({"build": proagent._native.build_profile(), "rows": rows}))
        return
    print(f"build: {proagent._native.build_profile()}")
    print(f"{'game':<12} {'GameEnv steps/s':>16} {'AEC steps/s':>12}")
    for r in rows:
        print(f"{r['game']:<12} {r['native_steps_per_s']:>16,.0f} {r['aec_steps_per_s']:>12,.0f}")


if __name__ == "__main__":
    main()
