"""Records overcooked_ai 1.1.0's own encodings of states both simulators share, so the
Python tests can check ours value for value without overcooked-ai installed.

The states are those of the reference traces (tests/fixtures/traces/*.jsonl, played with
overcooked_ai's old dynamics): every one is also a state of overcooked-ai 1.1.0 (a soup
that cooks was started, an idle soup holds fewer than three ingredients). For each
sampled state the script writes overcooked-ai 1.1.0's

- ``lossless_state_encoding(state, horizon)`` of both players (26 layers, sparse: the
  non-zero cells as ``[x, y, layer, value]``), and
- ``featurize_state(state, mlam, num_pots=2)`` of both players (96 numbers), once with the
  motion planner of ``OvercookedEnv`` (``NO_COUNTERS_PARAMS``: no counter goals) and once
  with every counter a goal.

Run it in a virtualenv of its own (overcooked-ai is never a dependency of this repository):

    python3 -m venv /tmp/oai && /tmp/oai/bin/pip install overcooked-ai==1.1.0
    /tmp/oai/bin/python scripts/gen_ai_encoding_fixtures.py   # writes tests/fixtures/ai_encodings.json

The output is deterministic (fixed sampling, no randomness).
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

if "Inf" not in np.__dict__:  # overcooked-ai 1.1.0 still names np.Inf (removed in NumPy 2)
    np.Inf = np.inf

from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld, OvercookedState, Recipe  # noqa: E402
from overcooked_ai_py.planning.planners import NO_COUNTERS_PARAMS, MotionPlanner  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]
TRACES = REPO / "tests" / "fixtures" / "traces"
OUT = REPO / "tests" / "fixtures" / "ai_encodings.json"
STATES_PER_LAYOUT = 30
COOK_TIME = 20  # the old dynamics' cook time of every soup


class Planners:
    """The part of a MediumLevelActionManager that featurize_state uses."""

    def __init__(self, motion_planner):
        self.motion_planner = motion_planner


def obj_dict(o, pos):
    """A trace object as overcooked_ai's ``ObjectState``/``SoupState.to_dict()``."""
    pos = tuple(pos)
    d = {"name": o["name"], "position": pos}
    if o["name"] == "soup":
        tick = o.get("cooking_tick", -1)
        d["_ingredients"] = [{"name": i, "position": pos} for i in o["ingredients"]]
        d["cooking_tick"] = tick
        d["cook_time"] = -1 if tick < 0 else COOK_TIME
    return d


def state_dict(s):
    players = []
    for p in s["players"]:
        held = p.get("held")
        players.append({
            "position": tuple(p["pos"]),
            "orientation": tuple(p["or"]),
            "held_object": None if held is None else obj_dict(held, p["pos"]),
        })
    objects = [obj_dict(o, o["pos"]) for o in s["objects"]]
    return {"players": players, "objects": objects, "bonus_orders": [],
            "all_orders": [{"ingredients": ["onion", "onion", "onion"]}], "timestep": s["timestep"]}


def interesting(step):
    """States with soups or held objects first: they exercise the most layers."""
    s = step["state"]
    soups = sum(o["name"] == "soup" for o in s["objects"])
    held = sum(p.get("held") is not None for p in s["players"])
    return (soups, held, len(s["objects"]))


def pick(steps, n):
    ranked = sorted(range(len(steps)), key=lambda i: (interesting(steps[i]), -i), reverse=True)
    chosen = sorted(set(ranked[: n // 2]) | set(range(0, len(steps), max(1, len(steps) // (n - n // 2)))))
    return chosen[:n]


def main() -> int:
    Recipe.configure({})
    out = {"generator": {"package": "overcooked-ai", "version": "1.1.0", "script": "scripts/gen_ai_encoding_fixtures.py"},
           "layouts": []}
    for path in sorted(TRACES.glob("*.jsonl")):
        traj = json.loads(path.read_text().splitlines()[0])
        grid = traj["grid"]
        mdp = OvercookedGridworld.from_grid(grid)
        # featurize_state reads only `mlam.motion_planner`; building the whole
        # MediumLevelActionManager (its joint planner) would take minutes and change nothing.
        plain = Planners(MotionPlanner(mdp, NO_COUNTERS_PARAMS["counter_goals"]))
        with_counters = Planners(MotionPlanner(mdp, mdp.get_counter_locations()))
        horizon = traj["horizon"]
        rows = []
        for i in pick(traj["steps"], STATES_PER_LAYOUT):
            d = state_dict(traj["steps"][i]["state"])
            st = OvercookedState.from_dict(d)
            loss = mdp.lossless_state_encoding(st, horizon=horizon)
            sparse = [[[int(x), int(y), int(c), float(v[x, y, c])] for x, y, c in zip(*np.nonzero(v))] for v in loss]
            feats = [[float(f) for f in v] for v in mdp.featurize_state(st, plain, num_pots=2)]
            feats_c = [[float(f) for f in v] for v in mdp.featurize_state(st, with_counters, num_pots=2)]
            rows.append({"trace_step": i, "state": d, "lossless": sparse, "features": feats,
                         "features_counter_goals": feats_c})
        out["layouts"].append({"layout": traj["layout"], "grid": grid, "horizon": horizon, "states": rows})
        print(f"{traj['layout']}: {len(rows)} states", file=sys.stderr)
    OUT.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {OUT.relative_to(REPO)} ({OUT.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
