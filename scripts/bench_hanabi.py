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

With --selfplay N it instead plays N self-play games of HLE's own SimpleAgent and of
uniformly random legal moves through rl_env and prints their mean scores (HLE's score and
cards played), to stand beside `proagent bench hanabi-bots`.

Needs hanabi-learning-environment==0.0.4. Prints one JSON line.
Usage: python scripts/bench_hanabi.py --players 2 --moves 200000 --steps 20000
       python scripts/bench_hanabi.py --players 2 --selfplay 1000
"""

import argparse
import json
import random
import time

from hanabi_learning_environment import pyhanabi, rl_env
from hanabi_learning_environment.agents.simple_agent import SimpleAgent


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


def selfplay(players, games, seed, policy):
    rng = random.Random(seed)
    scores, played = [], []
    for g in range(games):
        env = rl_env.HanabiEnv(config={"players": players, "seed": seed + g})
        agents = [SimpleAgent({"players": players}) for _ in range(players)]
        obs = env.reset()
        done = False
        while not done:
            cur = obs["current_player"]
            po = obs["player_observations"][cur]
            if policy == "simple":
                action = agents[cur].act(po)
            else:
                action = rng.choice(po["legal_moves_as_int"])
            obs, _, done, _ = env.step(action)
        scores.append(env.state.score())
        played.append(sum(env.state.fireworks()))
    mean = lambda xs: sum(xs) / len(xs)
    return {"policy": policy, "games": games, "mean_score": mean(scores), "mean_cards_played": mean(played)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--moves", type=int, default=200_000, help="pyhanabi moves to time")
    ap.add_argument("--steps", type=int, default=20_000, help="rl_env steps to time")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--selfplay", type=int, default=0, help="self-play games of SimpleAgent and random instead")
    a = ap.parse_args()
    if a.selfplay:
        print(json.dumps({"players": a.players,
                          "selfplay": [selfplay(a.players, a.selfplay, a.seed, p) for p in ("random", "simple")]}))
        return
    out = {
        "players": a.players,
        "pyhanabi": bench_pyhanabi(a.players, a.moves, a.seed),
        "rl_env": bench_rl_env(a.players, a.steps, a.seed),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
