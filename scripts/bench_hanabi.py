#!/usr/bin/env python3
"""Speed of DeepMind's Hanabi Learning Environment on one core, for
`proagent bench env --game hanabi --hle PYTHON` (which runs this script and prints the
ratios) or on its own.

Two measurements, both with uniformly random legal moves and a new game whenever one ends:
  pyhanabi  moves/s through HLE's low-level Python API: legal_moves(), random.choice,
            apply_move(), deal_random_card() for every draw
  rl_env    steps/s through HLE's `rl_env.HanabiEnv.step`, which applies the move, deals,
            and builds every player's observation (dicts, legal moves, and the canonical
            vectorized encoding)

Needs hanabi-learning-environment==0.0.4. Prints one JSON line.
Usage: python scripts/bench_hanabi.py --players 2 --moves 200000 --steps 20000
"""

import argparse
import json
import random
import time

from hanabi_learning_environment import pyhanabi, rl_env


def bench_pyhanabi(players, moves, seed):
    rng = random.Random(seed)
    game = pyhanabi.HanabiGame({"players": players, "seed": seed})
    done = 0
    score = 0
    games = 0
    t0 = time.perf_counter()
    while done < moves:
        state = game.new_initial_state()
        while not state.is_terminal() and done < moves:
            if state.cur_player() == pyhanabi.CHANCE_PLAYER_ID:
                state.deal_random_card()
                continue
            legal = state.legal_moves()
            state.apply_move(rng.choice(legal))
            done += 1
        score += state.score()
        games += 1
    secs = time.perf_counter() - t0
    return {"moves": done, "seconds": secs, "moves_per_sec": done / secs, "games": games}


def bench_rl_env(players, steps, seed):
    rng = random.Random(seed)
    env = rl_env.HanabiEnv(config={"players": players, "seed": seed})
    obs = env.reset()
    done_steps = 0
    check = 0
    t0 = time.perf_counter()
    while done_steps < steps:
        cur = obs["current_player"]
        legal = obs["player_observations"][cur]["legal_moves_as_int"]
        obs, reward, done, _ = env.step(rng.choice(legal))
        check += sum(obs["player_observations"][0]["vectorized"]) & 1
        done_steps += 1
        if done:
            obs = env.reset()
    secs = time.perf_counter() - t0
    return {"steps": done_steps, "seconds": secs, "steps_per_sec": done_steps / secs,
            "vector_len": len(obs["player_observations"][0]["vectorized"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--moves", type=int, default=200_000, help="pyhanabi moves to time")
    ap.add_argument("--steps", type=int, default=20_000, help="rl_env steps to time")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    out = {
        "players": a.players,
        "pyhanabi": bench_pyhanabi(a.players, a.moves, a.seed),
        "rl_env": bench_rl_env(a.players, a.steps, a.seed),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
