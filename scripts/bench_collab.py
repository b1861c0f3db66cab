#!/usr/bin/env python3
"""Time the LLM-Coordination repository's own CollabCapture / CollabEscape game loops, for
`proagent bench env --game capture|escape --reference PYTHON --reference-src DIR`.

The loops are the published ones (`game_loop` of collab_capture_benchmarking.py with the
scenario's door states, and `Game.play` of CollabEscapeMDP.py with the scenario's start
rooms), loaded the way scripts/collab_traces.py loads them: the language model replaced
by a stub that picks a random option among those the game offers (random numbers drawn up
front), printing, logging and sleeping silenced. Episodes restart when they end or reach
the turn limit (30 capture, as published; 50 escape, our scenario files' limit, since the
published loop has none), like the Rust side. Prints one JSON line with wall time and CPU
time (`time.process_time`).

    /tmp/collab-ref/bin/python scripts/bench_collab.py --src /tmp/llm_coordination/src \\
        --game escape --scenario escape:1 --steps 200000
"""

import argparse
import json
import os
import random
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collab_traces as ct  # noqa: E402  (the loaders and stubs)

ESCAPE_LIMIT = 50


def bench_capture(src, scenario, steps, seed):
    mgr, bench, source = ct.load_capture(src)
    namespace = ct.loop_with_doors(bench, source, "game_loop", ct.CAPTURE_SCENARIOS[scenario])
    namespace["print"] = ct.quiet_print
    rng = random.Random(seed)
    table = [rng.getrandbits(32) for _ in range(1 << 16)]
    counter = [0]

    def act(stub, state_for_llm):
        options = state_for_llm["available_actions"][stub.owner_name]
        i = counter[0]
        counter[0] = i + 1
        return options[table[i & 0xFFFF] % len(options)]

    class Agent(mgr.Agent):
        def __init__(self, start_room, id, name, environment, model):
            super().__init__(start_room, id, name, environment, model)
            self.llm_agent.owner_name = name

    namespace["Agent"] = Agent
    ct.POLICY["fn"] = act
    turns = episodes = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while turns < steps:
        turns += namespace["game_loop"]("stub-model")
        episodes += 1
    return {"loop": "collab_capture_benchmarking.game_loop", "turns": turns, "episodes": episodes,
            "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}


def bench_escape(src, scenario, steps, seed):
    import importlib

    mdp = importlib.import_module("llm_coordination_agents.CollabEscapeMDP")
    mdp.random = random.Random(seed ^ 0x5EED)
    mdp.time = types.SimpleNamespace(sleep=lambda s: None)
    mdp.print = ct.quiet_print
    starts = ct.ESCAPE_SCENARIOS[scenario]
    rng = random.Random(seed)
    table = [rng.getrandbits(32) for _ in range(1 << 16)]
    counter = [0]
    names = ["Alice", "Bob"]
    game_ref = {}

    def act(stub, state, killer_info):
        game = game_ref["game"]
        if game.turn_count > ESCAPE_LIMIT:
            raise ct.StopRollout()
        me = state[names[stub.player_id]].current_room
        options = [f"move to {r.name}" for r in me.adjacent_rooms]
        if me.name in state["Generators"]:
            options.append(f"fix generator in {me.name}")
        options.append("wait")
        i = counter[0]
        counter[0] = i + 1
        return options[table[i & 0xFFFF] % len(options)]

    ct.POLICY["fn"] = act
    turns = episodes = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while turns < steps:
        game = mdp.Game()
        game.alice.current_room = game.rooms[starts[0]]
        game.bob.current_room = game.rooms[starts[1]]
        game.print_readable_state = lambda: None
        game_ref["game"] = game
        try:
            _, n = game.play("stub-model")
        except ct.StopRollout:
            n = ESCAPE_LIMIT
        turns += n
        episodes += 1
    return {"loop": "CollabEscapeMDP.Game.play", "turns": turns, "episodes": episodes,
            "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", required=True, help="the `src` folder of an llm_coordination checkout")
    ap.add_argument("--game", choices=["capture", "escape"], required=True)
    ap.add_argument("--scenario", default=None)
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    scenario = args.scenario or f"{args.game}:1"
    known = ct.CAPTURE_SCENARIOS if args.game == "capture" else ct.ESCAPE_SCENARIOS
    if scenario not in known:
        sys.exit(f"--scenario {scenario}: the reference runs the built-in scenarios only ({', '.join(known)})")
    ct.install_stubs(os.path.abspath(args.src))
    run = bench_capture if args.game == "capture" else bench_escape
    result = run(os.path.abspath(args.src), scenario, args.steps, args.seed)
    result["turns_per_sec"] = result["turns"] / result["seconds"]
    result["turns_per_cpu_sec"] = result["turns"] / result["cpu_seconds"]
    result.update({"game": args.game, "scenario": scenario, "python": sys.version.split()[0]})
    print(json.dumps(result))


if __name__ == "__main__":
    main()
