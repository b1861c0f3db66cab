#!/usr/bin/env python3
"""Record OvercookedV2 reference trajectories from JaxMARL, for `proagent verify-trace --v2`.

OvercookedV2 (Gessler et al., ICLR 2025) ships with the JaxMARL package. This script
runs JaxMARL's own environment on every layout it ships and writes what happened, step
by step, so that the Rust simulator in `src/env_v2/` can be checked against it state for
state. It writes one JSON Lines file per layout into the output directory; the format is
described in tests/fixtures/v2_traces/SCHEMA.md.

    python3 -m venv /tmp/jaxv2 && /tmp/jaxv2/bin/pip install jaxmarl   # CPU is enough
    /tmp/jaxv2/bin/python scripts/record_v2_traces.py --out tests/fixtures/v2_traces

(about 12 minutes on two CPU cores, most of it compiling one jitted step per layout and
flag combination).

Two trajectories per layout:

* `random`   : every agent picks uniformly among the six actions, except that it
               interacts with probability 0.25. The episode starts from JaxMARL's
               `random_reset` (random starts, inventories, counters and pot contents),
               so rare combinations (wrong dishes, partly filled pots) turn up.
* `scripted` : a small task script of our own (fetch what the recipe still needs, fill a
               pot, start it when pots start on interaction, plate, deliver; hand items
               over on a shared counter when the next target is out of reach; sometimes
               press the button indicator), with probability `eps` of a random action
               instead. Agents start at random positions (`random_agent_positions`).

The environment settings (view radius, negative rewards, when pots start, recipe
resampling) alternate between layouts so that every flag is covered; each file's header
records them. Random draws the Rust side cannot reproduce (it does not implement
jax.random) are recorded: the start state in full, and each recipe drawn after a
delivery.

The script only uses JaxMARL's public environment API (reset, step_env, get_obs) and
numpy; the task script and the trace format are ours.
"""

import argparse
import hashlib
import json
import os
import sys
from collections import deque

import numpy as np

import jax
import jax.numpy as jnp

from jaxmarl.environments.overcooked_v2 import OvercookedV2, overcooked_v2_layouts
from jaxmarl.environments.overcooked_v2 import layouts as v2_layouts_module

SCHEMA = "proagent-v2-trace/1"

# JaxMARL cell codes (static channel) we need for the task script.
EMPTY, WALL, GOAL, POT, RECIPE, BUTTON, PLATE_PILE, PILE0 = 0, 1, 4, 5, 6, 7, 9, 10
PLATE, COOKED = 1, 2
# Action ids: right, down, left, up, stay, interact. Direction ids: up, down, right, left.
ACT_RIGHT, ACT_DOWN, ACT_LEFT, ACT_UP, ACT_STAY, ACT_INTERACT = range(6)
MOVES = [(ACT_RIGHT, 1, 0), (ACT_DOWN, 0, 1), (ACT_LEFT, -1, 0), (ACT_UP, 0, -1)]

# The layout strings JaxMARL builds its layouts from, by layout name.
LAYOUT_SOURCES = {
    "cramped_room": "cramped_room",
    "asymm_advantages": "asymm_advantages",
    "coord_ring": "coord_ring",
    "forced_coord": "forced_coord",
    "counter_circuit": "counter_circuit",
}


def layout_rows(name):
    """The ASCII grid of a layout, from the module-level string JaxMARL parsed."""
    var = LAYOUT_SOURCES.get(name, name)
    text = getattr(v2_layouts_module, var)
    rows = text.split("\n")
    if rows and rows[0] == "":
        rows = rows[1:]
    if rows and rows[-1] == "":
        rows = rows[:-1]
    return rows


def ingredient_counts(code, n):
    return [(int(code) >> (2 + 2 * i)) & 3 for i in range(n)]


def recipe_list(code, n):
    out = []
    for i, c in enumerate(ingredient_counts(code, n)):
        out += [i] * c
    return out


def snapshot(state, n):
    """The whole dynamic state as plain JSON values."""
    grid = np.asarray(state.grid)
    ag = state.agents
    xs, ys = np.asarray(ag.pos.x), np.asarray(ag.pos.y)
    dirs, inv = np.asarray(ag.dir), np.asarray(ag.inventory)
    agents = [[int(xs[i]), int(ys[i]), int(dirs[i]), int(inv[i])] for i in range(len(xs))]
    cells = []
    h, w, _ = grid.shape
    for y in range(h):
        for x in range(w):
            ing, extra = int(grid[y, x, 1]), int(grid[y, x, 2])
            if ing != 0 or extra != 0:
                cells.append([x, y, ing, extra])
    return {
        "step": int(state.step),
        "done": bool(state.done),
        "agents": agents,
        "cells": cells,
        "recipe": recipe_list(int(state.recipe), n),
        "new_correct_delivery": bool(state.new_correct_delivery),
    }


def obs_digest(obs):
    """First 16 hex digits of the SHA-256 of the observation as int32, C order, little-endian."""
    arr = np.ascontiguousarray(np.asarray(obs, dtype="<i4"))
    return hashlib.sha256(arr.tobytes()).hexdigest()[:16]


class Planner:
    """Breadth-first paths over floor cells (the task script's navigation)."""

    def __init__(self, static):
        self.static = static
        self.h, self.w = static.shape

    def floor(self, x, y):
        return 0 <= x < self.w and 0 <= y < self.h and self.static[y, x] == EMPTY

    def region(self, start):
        seen = {start}
        todo = deque([start])
        while todo:
            x, y = todo.popleft()
            for _, dx, dy in MOVES:
                nxt = (x + dx, y + dy)
                if nxt not in seen and self.floor(*nxt):
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def touches(self, cell, region):
        x, y = cell
        return any((x + dx, y + dy) in region for _, dx, dy in MOVES)

    def first_action(self, pos, facing, targets, blocked):
        """The first action toward interacting with the nearest target tile, or None."""
        targets = set(targets)
        if not targets:
            return None
        prev = {pos: None}
        todo = deque([pos])
        goal = None
        while todo:
            cur = todo.popleft()
            x, y = cur
            if any((x + dx, y + dy) in targets for _, dx, dy in MOVES):
                goal = cur
                break
            for act, dx, dy in MOVES:
                nxt = (x + dx, y + dy)
                if nxt in prev or not self.floor(*nxt) or nxt in blocked:
                    continue
                prev[nxt] = (cur, act)
                todo.append(nxt)
        if goal is None:
            return None
        if goal == pos:
            x, y = pos
            fx, fy = x + facing[0], y + facing[1]
            if (fx, fy) in targets:
                return ACT_INTERACT
            for act, dx, dy in MOVES:
                if (x + dx, y + dy) in targets:
                    return act
        step = goal
        while prev[step][0] != pos:
            step = prev[step][0]
        return prev[step][1]


DIR_VEC = [(0, -1), (0, 1), (1, 0), (-1, 0)]


def scripted_actions(state, planner, n, start_on_interact, rng, eps, button_p, memory):
    """One joint action of the task script. `memory` keeps each agent's last position and
    action, so that an agent whose move was blocked (both walking into the same cell) steps
    aside at random instead of trying again forever."""
    grid = np.asarray(state.grid)
    static, items, extra = grid[:, :, 0], grid[:, :, 1], grid[:, :, 2]
    ag = state.agents
    xs, ys = np.asarray(ag.pos.x), np.asarray(ag.pos.y)
    dirs, inv = np.asarray(ag.dir), np.asarray(ag.inventory)
    recipe = ingredient_counts(int(state.recipe), n)
    h, w = static.shape
    cells = [(x, y) for y in range(h) for x in range(w)]
    pots = [c for c in cells if static[c[1], c[0]] == POT]
    counters = [c for c in cells if static[c[1], c[0]] == WALL]
    positions = [(int(xs[i]), int(ys[i])) for i in range(len(xs))]
    acts = []
    for i, pos in enumerate(positions):
        last = memory.get(i)
        stuck = last is not None and last[0] == pos and last[1] < ACT_STAY
        if rng.random() < (0.5 if stuck else eps):
            acts.append(int(rng.integers(0, 6)))
            continue
        region = planner.region(pos)
        mine = lambda c: planner.touches(c, region)  # noqa: E731
        held = int(inv[i])

        def pot_idle(c):
            return extra[c[1], c[0]] == 0 and (items[c[1], c[0]] & COOKED) == 0

        def pot_needs(c, ing):
            have = ingredient_counts(items[c[1], c[0]], n)
            return pot_idle(c) and sum(have) < 3 and have[ing] < recipe[ing]

        def counter_with(pred):
            return [c for c in counters if items[c[1], c[0]] != 0 and pred(int(items[c[1], c[0]]))]

        others = [planner.region(p) for j, p in enumerate(positions) if j != i]

        def free_counters():
            """Empty counters this agent can reach, those a teammate in another room
            can also reach first (the hand-over spots)."""
            free = [c for c in counters if items[c[1], c[0]] == 0 and mine(c)]
            shared = [c for c in free if any(planner.touches(c, r) and r != region for r in others)]
            return shared or free

        targets = []
        if held == 0:
            ready = [p for p in pots if items[p[1], p[0]] & COOKED]
            busy = [p for p in pots if extra[p[1], p[0]] > 0]
            # A full pot that waits for an interaction is started even when it holds the
            # wrong soup: nothing else would ever empty it.
            full_idle = [p for p in pots if pot_idle(p) and sum(ingredient_counts(items[p[1], p[0]], n)) == 3]
            if start_on_interact and any(mine(p) for p in full_idle):
                targets = [p for p in full_idle if mine(p)]
            elif rng.random() < button_p:
                targets = [c for c in cells if static[c[1], c[0]] == BUTTON and mine(c)]
            if not targets:
                dishes = counter_with(lambda v: v & COOKED)
                targets = [c for c in dishes if mine(c)]
            if not targets and (ready or busy) and not any(int(v) == PLATE for v in inv):
                targets = [c for c in cells if static[c[1], c[0]] == PLATE_PILE and mine(c)]
                targets += [c for c in counter_with(lambda v: v == PLATE) if mine(c)]
            if not targets:
                for ing in range(n):
                    if any(pot_needs(p, ing) for p in pots):
                        targets += [c for c in cells if static[c[1], c[0]] == PILE0 + ing and mine(c)]
                        targets += [c for c in counter_with(lambda v, b=4 << (2 * ing): v == b) if mine(c)]
        elif held & COOKED:
            targets = [c for c in cells if static[c[1], c[0]] == GOAL and mine(c)]
            if not targets:
                targets = free_counters()
        elif held == PLATE:
            targets = [p for p in pots if (extra[p[1], p[0]] > 0 or items[p[1], p[0]] & COOKED) and mine(p)]
            if not targets:
                targets = free_counters()
        else:
            ing = next(k for k, c in enumerate(ingredient_counts(held, n)) if c)
            targets = [p for p in pots if pot_needs(p, ing) and mine(p)]
            if not targets:
                targets = free_counters()
        blocked = {p for j, p in enumerate(positions) if j != i}
        act = planner.first_action(pos, DIR_VEC[int(dirs[i])], targets, blocked)
        if act is None:
            act = int(rng.integers(0, 6))
        acts.append(int(act))
    for i, pos in enumerate(positions):
        memory[i] = (pos, acts[i])
    return acts


def settings_for(index, policy):
    """The environment flags of one trajectory: alternate so every flag is covered."""
    odd = index % 2 == 1
    if policy == "random":
        return {
            "max_steps": 400,
            "agent_view_size": 2 if odd else None,
            "random_reset": True,
            "random_agent_positions": False,
            "start_cooking_interaction": odd,
            "negative_rewards": True,
            "sample_recipe_on_delivery": not odd,
            "indicate_successful_delivery": odd,
        }
    return {
        "max_steps": 400,
        "agent_view_size": None if odd else (1 if index % 4 == 0 else 3),
        "random_reset": False,
        "random_agent_positions": True,
        "start_cooking_interaction": not odd,
        "negative_rewards": not odd,
        "sample_recipe_on_delivery": True,
        "indicate_successful_delivery": not odd,
    }


def record(name, index, policy, seed, steps, eps):
    settings = settings_for(index, policy)
    env = OvercookedV2(layout=name, **settings)
    layout = env.layout
    n = layout.num_ingredients
    possible = [list(map(int, r)) for r in layout.possible_recipes]
    encodings = [sum(4 << (2 * i) for i in r) for r in possible]
    key = jax.random.PRNGKey(seed)
    key, reset_key = jax.random.split(key)
    obs, state = env.reset(reset_key)
    step_fn = jax.jit(env.step_env)
    rng = np.random.default_rng(seed)
    memory = {}
    planner = Planner(np.asarray(layout.static_objects))
    start = snapshot(state, n)
    start["recipe_index"] = encodings.index(int(state.recipe))
    header = {
        "kind": "header",
        "schema": SCHEMA,
        "layout": name,
        "grid": layout_rows(name),
        "agent_order": [list(map(int, p)) for p in layout.agent_positions],
        "num_ingredients": n,
        "possible_recipes": possible,
        "settings": settings,
        "policy": {"kind": policy, "seed": seed, **({"eps": eps, "button_p": 0.05} if policy == "scripted" else {"p_interact": 0.25})},
        "steps": steps,
        "generator": {
            "package": "jaxmarl",
            "version": _version("jaxmarl"),
            "jax": jax.__version__,
            "script": "scripts/record_v2_traces.py",
        },
        "start": start,
        "start_obs": [obs_digest(obs[f"agent_{i}"]) for i in range(env.num_agents)],
    }
    lines = [header]
    total, deliveries = 0, 0
    for t in range(steps):
        if policy == "random":
            acts = [ACT_INTERACT if rng.random() < 0.25 else int(rng.integers(0, 5)) for _ in range(env.num_agents)]
        else:
            acts = scripted_actions(state, planner, n, settings["start_cooking_interaction"], rng, eps, 0.05, memory)
        key, step_key = jax.random.split(key)
        obs, state, rewards, dones, info = step_fn(step_key, state, {f"agent_{i}": a for i, a in enumerate(acts)})
        reward = float(rewards["agent_0"])
        shaped = [float(info["shaped_reward"][f"agent_{i}"]) for i in range(env.num_agents)]
        snap = snapshot(state, n)
        line = {
            "kind": "step",
            "t": t,
            "actions": acts,
            "reward": _num(reward),
            "shaped": [_num(s) for s in shaped],
            "state": snap,
            "obs": [obs_digest(obs[f"agent_{i}"]) for i in range(env.num_agents)],
        }
        if snap["new_correct_delivery"] and settings["sample_recipe_on_delivery"]:
            line["draw"] = encodings.index(int(state.recipe))
        lines.append(line)
        total += reward
        deliveries += int(snap["new_correct_delivery"])
    lines.append({
        "kind": "end",
        "steps": steps,
        "total_reward": _num(total),
        "correct_deliveries": deliveries,
    })
    return lines


def _num(v):
    return int(v) if float(v).is_integer() else v


def _version(pkg):
    try:
        from importlib.metadata import version
        return version(pkg)
    except Exception:  # pragma: no cover - informational only
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory (one <layout>.jsonl per layout)")
    ap.add_argument("--steps", type=int, default=300, help="steps of each scripted trajectory (default 300)")
    ap.add_argument("--random-steps", type=int, default=200, help="steps of each random trajectory (default 200)")
    ap.add_argument("--layouts", nargs="*", help="only these layouts (default: all JaxMARL ships)")
    args = ap.parse_args()
    names = list(overcooked_v2_layouts.keys())
    if args.layouts:
        unknown = [n for n in args.layouts if n not in names]
        if unknown:
            sys.exit(f"unknown layout(s): {unknown}; known: {names}")
    os.makedirs(args.out, exist_ok=True)
    for index, name in enumerate(names):
        if args.layouts and name not in args.layouts:
            continue
        out = []
        for k, policy in enumerate(["random", "scripted"]):
            seed = 1000 + 10 * index + k
            steps = args.random_steps if policy == "random" else args.steps
            out += record(name, index, policy, seed, steps, eps=0.1)
        path = os.path.join(args.out, f"{name}.jsonl")
        with open(path, "w") as f:
            for line in out:
                f.write(json.dumps(line, separators=(",", ":")) + "\n")
        ends = [line for line in out if line["kind"] == "end"]
        summary = ", ".join(f"{e['correct_deliveries']} correct / total {e['total_reward']}" for e in ends)
        print(f"{name}: {summary}", file=sys.stderr)


if __name__ == "__main__":
    main()
