#!/usr/bin/env python3
"""Record CollabCapture and CollabEscape reference rollouts from the LLM-Coordination
repository's own game code, for `proagent verify-trace` (format:
tests/fixtures/collab_traces/SCHEMA.md).

The games of the LLM-Coordination benchmark (Agashe et al.) live in the public repository
eric-ai-lab/llm_coordination. This script imports that code from a checkout outside ours
and runs the published game loops themselves:

* CollabCapture: `game_loop` of src/agentic_evals/collab_capture_benchmarking.py (the LLM
  benchmark loop) and `game_loop_greedy_agents` (the greedy-baseline loop), on the
  environment, agents and thief of src/llm_coordination_agents/collab_capture_action_manager.py;
* CollabEscape: `Game.play` of src/llm_coordination_agents/CollabEscapeMDP.py.

Only the language model is replaced: the LLM agent classes are stubbed by a policy of
ours (random, scripted, or the published GreedyAgent), and logging, sleeping and printing
are silenced. Where the published code fixes something per run that differs between
scenarios, the script sets it from outside:

* the door states of the four capture scenarios: both loops hard-code one setting, so the
  two `environment.doors_open[...] = ...` lines of the loop are rewritten in memory
  (the script stops if they are not found exactly once);
* the start rooms of escape scenario 2 (ours; the paper's second start is not published):
  set on the players after `Game()` builds the map;
* the published `GreedyAgent` calls its parent's constructor without the `model` argument
  the parent gained later (a TypeError as published); the script passes `model=None`,
  as in the commit where GreedyAgent was written;
* `Game.play` (escape) has no turn limit: a rollout is cut after --escape-cap turns.

The killer's random wandering (escape) goes through the module's `random.choice`, which
the script replaces with a seeded recorder: each draw is written to the trace as
[number of choices, index], and the Rust side replays it.

Setup (any checkout of the repository; the traces record the commit):

    git clone https://github.com/eric-ai-lab/llm_coordination /tmp/llm_coordination
    python3 -m venv /tmp/collab-ref && /tmp/collab-ref/bin/pip install numpy
    /tmp/collab-ref/bin/python scripts/collab_traces.py --src /tmp/llm_coordination/src \\
        --commit $(git -C /tmp/llm_coordination rev-parse HEAD) --out tests/fixtures/collab_traces

Nothing from the repository is copied into ours; only what its code did is recorded.
"""

import argparse
import contextlib
import importlib
import importlib.util
import io
import json
import os
import random
import re
import sys
import types
from collections import deque

SCHEMA = "proagent-collab-trace/1"

CAPTURE_SCENARIOS = {  # door 1-2 (button 9), door 3-4 (button 8)
    "capture:1": {1: True, 3: True},
    "capture:2": {1: False, 3: True},
    "capture:3": {1: True, 3: False},
    "capture:4": {1: False, 3: False},
}
ESCAPE_SCENARIOS = {  # Alice, Bob (the killer starts in room 6 in both)
    "escape:1": ("room 1", "room 2"),
    "escape:2": ("room 5", "room 10"),
}
ESCAPE_EXIT = 7  # hard-coded in Game.check_game_over
ESCAPE_FIXES = 2  # hard-coded in Room.fix_generator


class StopRollout(Exception):
    """Raised by a stub agent to end an uncapped escape rollout."""


# ---------------------------------------------------------------------------------------
# The stubbed language-model agents: they hand each decision to the current policy.

POLICY = {"fn": None}


class StubAgent:
    def __init__(self, player_id, model=None, *args, **kwargs):
        self.player_id = int(player_id)
        self.owner = None

    def get_next_move(self, *args):
        return POLICY["fn"](self, *args)


def install_stubs(src):
    sys.path.insert(0, src)
    importlib.import_module("llm_coordination_agents")
    for name in ("collab_capture_agent", "collab_escape_agent"):
        mod = types.ModuleType(f"llm_coordination_agents.{name}")
        mod.LLMAgent = StubAgent
        sys.modules[mod.__name__] = mod


def quiet_print(*args, **kwargs):
    pass


# ---------------------------------------------------------------------------------------
# CollabCapture


def load_capture(src):
    mgr = importlib.import_module("llm_coordination_agents.collab_capture_action_manager")
    path = os.path.join(src, "agentic_evals", "collab_capture_benchmarking.py")
    spec = importlib.util.spec_from_file_location("collab_capture_benchmarking", path)
    bench = importlib.util.module_from_spec(spec)
    argv = sys.argv
    sys.argv = [path, "stub-model"]  # the module parses its arguments on import
    with contextlib.redirect_stdout(io.StringIO()):
        spec.loader.exec_module(bench)
    sys.argv = argv
    mgr.print = quiet_print  # execute_move prints on a button press
    with open(path) as f:
        source = f.read()
    return mgr, bench, source


def function_source(source, name):
    m = re.search(rf"^def {name}\(.*?(?=^\S)", source, re.S | re.M)
    if not m:
        sys.exit(f"collab_capture_benchmarking.py: no function {name}")
    return m.group(0)


def loop_with_doors(bench, source, name, doors):
    """The published loop `name`, its hard-coded door settings replaced by `doors`."""
    text = function_source(source, name)
    for door, is_open in doors.items():
        pattern = rf"environment\.doors_open\[{door}\] = (True|False)[ \t]*\n"
        found = re.findall(pattern, text)
        if len(found) != 1:
            sys.exit(f"{name}: expected one setting of door {door}, found {len(found)}")
        text = re.sub(pattern, f"environment.doors_open[{door}] = {is_open}\n", text)
    namespace = dict(vars(bench))
    exec(compile(text, bench.__file__, "exec"), namespace)
    return namespace


class CaptureRun:
    """Records one capture rollout through the published loop."""

    def __init__(self, mgr):
        self.mgr = mgr
        self.env = None
        self.agents = []
        self.thief = None
        self.start = None
        self.turn_actions = [None, None]
        self.steps = []
        self.result = None

    def classes(self, greedy_loop):
        run = self
        mgr = self.mgr

        class Environment(mgr.Environment):
            def __init__(self):
                super().__init__()
                run.env = self

        class LoopAgent(mgr.GreedyAgent):
            def __init__(self, start_room, id, name, environment, model=None):
                mgr.Agent.__init__(self, start_room, id, name, environment, model)
                self.llm_agent.owner = self
                run.agents.append(self)

            def decide_next_action(self, thief_location):
                run.note_start()
                super().decide_next_action(thief_location)
                run.turn_actions[self.id] = run.planned_action(self)

        class Thief(mgr.Thief):
            def __init__(self, *args):
                super().__init__(*args)
                run.thief = self

        def record_print(*args, **kwargs):
            text = " ".join(str(a) for a in args)
            if text.startswith("Alice is in Room"):
                run.note_turn()
            elif "has been caught" in text:
                run.result = "caught"
                run.steps[-1]["result"] = "caught"
            elif "could not be caught" in text:
                run.result = "timeout"

        return {"Environment": Environment, "Agent": LoopAgent, "GreedyAgent": LoopAgent, "Thief": Thief,
                "print": record_print}

    def doors(self):
        return [bool(self.env.doors_open[d]) for d in sorted(self.env.door_controls)]

    def state(self):
        a, b = self.agents
        return {"players": [a.current_room, b.current_room], "thief": self.thief.current_room,
                "doors": self.doors()}

    def note_start(self):
        if self.start is None:
            self.start = self.state()

    def note_turn(self):
        s = self.state()
        self.steps.append({"kind": "step", "t": len(self.steps), "actions": list(self.turn_actions), "state": s,
                           "result": "continue"})
        self.turn_actions = [None, None]

    @staticmethod
    def planned_action(agent):
        if agent.press_button_next:
            return f"Press button in room {agent.current_room}"
        if agent.next_room != agent.current_room:
            return agent.next_room
        return "Stay in current room"

    def maze(self):
        env = self.env
        return {
            "rooms": {str(r): list(exits) for r, exits in env.rooms.items()},
            "doors": [{"rooms": [d, d + 1], "button": env.door_controls[d]} for d in sorted(env.door_controls)],
        }


def bfs_first_step(start, goal, neighbours):
    """First move of a shortest path (neighbours in their listed order), or None."""
    if start == goal:
        return None
    seen = {start: None}
    queue = deque([start])
    while queue:
        r = queue.popleft()
        for n in neighbours(r):
            if n not in seen:
                seen[n] = r
                if n == goal:
                    while seen[n] != start:
                        n = seen[n]
                    return n
                queue.append(n)
    return None


def distance(start, goal, neighbours):
    """Moves on a shortest path (a large number when there is none)."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        r = queue.popleft()
        if r == goal:
            return seen[r]
        for n in neighbours(r):
            if n not in seen:
                seen[n] = seen[r] + 1
                queue.append(n)
    return 1 << 20


def capture_policy(kind, rng, run):
    """A decision function for the stubbed capture agents."""
    mode = {0: "chase", 1: "doors"}

    def act(stub, state_for_llm):
        run.note_start()
        agent = stub.owner
        name = agent.name
        options = state_for_llm["available_actions"][name]
        thief = state_for_llm["player_locs"]["Thief"]
        env = run.env
        if kind == "greedy":
            agent.decide_next_action(thief)
            choice = CaptureRun.planned_action(agent)
        elif kind == "random" or rng.random() < 0.1:
            if rng.random() < 0.15:  # something the loop must cope with
                choice = rng.choice([rng.randint(1, 9), f"Press button in room {rng.randint(1, 9)}",
                                     "Stay in current room", "Dance"])
            else:
                choice = rng.choice(options)
        else:
            here = agent.current_room
            buttons = sorted(env.door_controls.values())
            if mode[stub.player_id] == "doors" and here in buttons and rng.random() < 0.5:
                choice = f"Press button in room {here}"
            elif mode[stub.player_id] == "doors" and rng.random() < 0.5:
                goal = min(buttons, key=lambda b: abs(b - here))
                step = bfs_first_step(here, goal, env.get_accessible_rooms)
                choice = step if step is not None else "Stay in current room"
            else:
                step = bfs_first_step(here, thief, env.get_accessible_rooms)
                choice = step if step is not None else "Stay in current room"
        run.turn_actions[stub.player_id] = choice
        return choice

    return act


def record_capture(mgr, bench, source, scenario, doors, kind, seed, greedy_loop):
    run = CaptureRun(mgr)
    loop_name = "game_loop_greedy_agents" if greedy_loop else "game_loop"
    namespace = loop_with_doors(bench, source, loop_name, doors)
    namespace.update(run.classes(greedy_loop))
    rng = random.Random(f"{scenario}/{kind}/{seed}")
    POLICY["fn"] = capture_policy(kind, rng, run)
    if greedy_loop:
        turns = namespace[loop_name]()
        if run.result is None:
            run.result = "timeout" if turns >= 30 else "unknown"
    else:
        turns = namespace[loop_name]("stub-model")
    header = {
        "kind": "header", "schema": SCHEMA, "game": "capture", "scenario": scenario,
        "policy": {"kind": kind, "seed": seed},
        "loop": loop_name,
        "catch": "same_room" if greedy_loop else "same_room_or_swap",
        "turns": 30,
        "maze": dict(run.maze(), players=run.start["players"], adversary=run.start["thief"],
                     doors_open=run.start["doors"]),
        "start": run.start,
    }
    end = {"kind": "end", "turns": turns, "result": run.result}
    return [header] + run.steps + [end]


# ---------------------------------------------------------------------------------------
# CollabEscape


class DrawRecorder:
    """Stands in for the `random` module inside CollabEscapeMDP: seeded, and it records."""

    def __init__(self, rng):
        self.rng = rng
        self.draws = []

    def choice(self, seq):
        i = self.rng.randrange(len(seq))
        self.draws.append([len(seq), i])
        return seq[i]


def room_number(room):
    return int(room.name.split()[-1])


def escape_state(game):
    adv = game.adversary
    gens = [r for r in game.rooms.values() if r.has_generator]
    target = {"": None, "Alice": 0, "Bob": 1}[adv.target_name]
    return {
        "players": [room_number(game.alice.current_room), room_number(game.bob.current_room)],
        "adversary": room_number(adv.current_room),
        "target": target,
        "seen": [bool(adv.can_see["Alice"]), bool(adv.can_see["Bob"])],
        "fix_counts": [r.fix_count for r in gens],
        "fixed": [bool(r.generator_fixed) for r in gens],
        "gate": bool(game.state["exit gate"]),
        "last_fixing": [bool(game.alice.last_action_is_fixing), bool(game.bob.last_action_is_fixing)],
    }


def escape_policy(kind, rng, game, actions, cap):
    names = ["Alice", "Bob"]

    def neighbours(r):
        return [room_number(x) for x in game.rooms[f"room {r}"].adjacent_rooms]

    def act(stub, state, killer_info):
        if game.turns_seen >= cap:
            raise StopRollout()
        me = state[names[stub.player_id]].current_room
        here = room_number(me)
        options = [f"move to {r.name}" for r in me.adjacent_rooms]
        if me.has_generator:
            options.append(f"fix generator in {me.name}")
        options.append("wait")
        if kind == "random" or rng.random() < 0.1:
            if rng.random() < 0.15:
                choice = rng.choice([f"move to room {rng.randint(1, 10)}", "fix generator in room 1", "wait"])
            else:
                choice = rng.choice(options)
        else:
            # A generator fixer of ours: the nearest unrepaired generator (in moves), fix
            # it, then the exit; never into a room the killer may end this turn in.
            adv = game.adversary
            if adv.target_name:
                danger = {room_number(state[adv.target_name].current_room)}
            else:
                danger = {room_number(r) for r in adv.current_room.adjacent_rooms}
            unfixed = [room_number(r) for r in game.rooms.values() if r.has_generator and not r.generator_fixed]
            if state["exit gate"]:
                goal = ESCAPE_EXIT
            else:
                goal = min(unfixed, key=lambda g: (distance(here, g, neighbours), g), default=here)
            step = bfs_first_step(here, goal, neighbours)
            if here in danger:
                safe = [r for r in neighbours(here) if r not in danger]
                safe.sort(key=lambda r: r != step)
                choice = f"move to room {safe[0]}" if safe else "wait"
            elif here == goal and here in unfixed:
                choice = f"fix generator in room {here}"
            elif step is not None and step not in danger:
                choice = f"move to room {step}"
            else:
                choice = "wait"
        actions[stub.player_id] = choice
        return choice

    return act


def record_escape(mdp, scenario, starts, kind, seed, cap):
    rng = random.Random(f"{scenario}/{kind}/{seed}")
    recorder = DrawRecorder(random.Random(f"{scenario}/{kind}/{seed}/killer"))
    mdp.random = recorder
    mdp.time = types.SimpleNamespace(sleep=lambda s: None)
    mdp.print = quiet_print
    game = mdp.Game()
    game.alice.current_room = game.rooms[starts[0]]
    game.bob.current_room = game.rooms[starts[1]]
    game.turns_seen = 0
    start = escape_state(game)
    steps = []
    actions = [None, None]
    drawn = [0]

    def snapshot():
        game.turns_seen += 1
        draws = recorder.draws[drawn[0]:]
        drawn[0] = len(recorder.draws)
        step = {"kind": "step", "t": len(steps), "actions": list(actions), "state": escape_state(game),
                "result": "continue"}
        if draws:
            step["draws"] = draws
        steps.append(step)

    game.print_readable_state = snapshot
    POLICY["fn"] = escape_policy(kind, rng, game, actions, cap)
    try:
        outcome, turns = game.play("stub-model")
        steps[-1]["result"] = outcome
        result = outcome
    except StopRollout:
        turns, result = len(steps), "cap"
    gens = [r for r in game.rooms.values() if r.has_generator]
    header = {
        "kind": "header", "schema": SCHEMA, "game": "escape", "scenario": scenario,
        "policy": {"kind": kind, "seed": seed},
        "loop": "CollabEscapeMDP.Game.play",
        "cap": cap,
        "maze": {
            "rooms": {str(room_number(r)): [room_number(x) for x in r.adjacent_rooms] for r in game.rooms.values()},
            "generators": [room_number(r) for r in gens],
            "fixes": ESCAPE_FIXES,
            "exit": ESCAPE_EXIT,
            "players": start["players"],
            "adversary": start["adversary"],
        },
        "start": start,
    }
    return [header] + steps + [{"kind": "end", "turns": turns, "result": result}]


# ---------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", required=True, help="the `src` folder of an llm_coordination checkout")
    ap.add_argument("--commit", default="unknown", help="the checkout's commit, written into every header")
    ap.add_argument("--out", default="tests/fixtures/collab_traces")
    ap.add_argument("--random-seeds", type=int, default=5)
    ap.add_argument("--scripted-seeds", type=int, default=4)
    ap.add_argument("--escape-cap", type=int, default=60)
    args = ap.parse_args()
    src = os.path.abspath(args.src)
    install_stubs(src)
    generator = {"repo": "eric-ai-lab/llm_coordination", "commit": args.commit,
                 "script": "scripts/collab_traces.py", "python": sys.version.split()[0]}
    os.makedirs(args.out, exist_ok=True)
    files = {}

    mgr, bench, source = load_capture(src)
    for scenario, doors in CAPTURE_SCENARIOS.items():
        runs = []
        for seed in range(args.random_seeds):
            runs.append(record_capture(mgr, bench, source, scenario, doors, "random", seed, False))
        for seed in range(args.scripted_seeds):
            runs.append(record_capture(mgr, bench, source, scenario, doors, "scripted", seed, False))
        runs.append(record_capture(mgr, bench, source, scenario, doors, "greedy", 0, False))
        runs.append(record_capture(mgr, bench, source, scenario, doors, "greedy", 0, True))
        files[scenario] = runs

    mdp = importlib.import_module("llm_coordination_agents.CollabEscapeMDP")
    for scenario, starts in ESCAPE_SCENARIOS.items():
        runs = []
        for seed in range(args.random_seeds + 1):
            runs.append(record_escape(mdp, scenario, starts, "random", seed, args.escape_cap))
        for seed in range(args.scripted_seeds + 2):
            runs.append(record_escape(mdp, scenario, starts, "scripted", seed, args.escape_cap))
        files[scenario] = runs

    for scenario, runs in files.items():
        path = os.path.join(args.out, scenario.replace(":", "_") + ".jsonl")
        with open(path, "w") as f:
            for run in runs:
                run[0]["generator"] = generator
                for record in run:
                    f.write(json.dumps(record) + "\n")
        results = [run[-1]["result"] for run in runs]
        print(f"{path}: {len(runs)} rollouts, {sum(len(r) - 2 for r in runs)} turns, results {results}")


if __name__ == "__main__":
    main()
