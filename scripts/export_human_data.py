#!/usr/bin/env python3
"""Convert the 2019 Overcooked-AI human-human games into proagent's JSON Lines.

The games of Carroll et al. 2019 ship as two pickled pandas DataFrames,
`clean_train_trials.pickle` and `clean_test_trials.pickle`, inside the PyPI
source distribution of overcooked-ai 1.1.0 (src/overcooked_ai_py/data/human_data/).
Their terms forbid redistribution, so proagent does not ship them: this script
makes the files `proagent bc train` reads, on your machine.

    pip download overcooked-ai==1.1.0 --no-deps --no-binary :all:
    pip install pandas
    python3 scripts/export_human_data.py --sdist overcooked_ai-1.1.0.tar.gz --out human_data

It writes, for the five layouts and both splits,
    <layout>_<split>.jsonl.gz   one line per timestep (schema below)
    layouts.json                each layout's grid as the games recorded it
    trials.json                 one entry per game

Line schema (positions are [x, y], x the column, y the row from the top-left):
    {"trial":"hh2019_w10_cramped_room","layout":"cramped_room","t":413,
     "players":[{"pos":[3,2],"dir":"SOUTH","held":{"name":"soup","onions":3,"cook_time":24}},
                {"pos":[2,1],"dir":"NORTH","held":{"name":"onion"}}],
     "objects":[{"pos":[2,0],"name":"soup","onions":1,"cook_time":0}],
     "actions":["INTERACT","STAY"],"reward":5,"score":25}

`actions[i]` is what player i did in the state of its line; `reward` and `score`
keep the game's scale of 5 points per soup (overcooked_ai uses 20); `cook_time`
is kept as recorded (the game let it run on past 20; proagent reads min(c, 20)).

Only the Python standard library and pandas (to unpickle the DataFrames) are used.
"""

import argparse
import ast
import gzip
import hashlib
import io
import json
import os
import sys
import tarfile

# The names the games used for the layouts, and ours.
DATA_TO_OURS = {
    "cramped_room": "cramped_room",
    "asymmetric_advantages": "asymmetric_advantages",
    "coordination_ring": "coordination_ring",
    "random0": "forced_coordination",
    "random3": "counter_circuit",
}

PICKLES = {"train": "clean_train_trials.pickle", "test": "clean_test_trials.pickle"}

# sha256 of the pickles in overcooked_ai-1.1.0.tar.gz (also in human_aware_rl's neurips2019 branch).
KNOWN_SHA256 = {
    "train": "28659cfd09ee033d82b56bed905b239f078877e1b09d1f1b916e4bc0480ca4fa",
    "test": "59979552a053f1efe762de976f37dd83e269d70d19b67613c61e856c86705666",
}

DIRS = {(0, -1): "NORTH", (0, 1): "SOUTH", (1, 0): "EAST", (-1, 0): "WEST"}
ACTIONS = {(0, -1): "NORTH", (0, 1): "SOUTH", (1, 0): "EAST", (-1, 0): "WEST", (0, 0): "STAY"}


class ConversionError(Exception):
    pass


def literal(value, what):
    """A DataFrame cell that may hold a JSON or Python-literal string, or the value itself."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        pass
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError) as e:
        raise ConversionError(f"{what}: cannot read {value[:80]!r}: {e}") from e


def action_name(a, what):
    if isinstance(a, str):
        if a.upper() == "INTERACT":
            return "INTERACT"
        raise ConversionError(f"{what}: unknown action {a!r}")
    key = tuple(a)
    if key not in ACTIONS:
        raise ConversionError(f"{what}: unknown action {a!r}")
    return ACTIONS[key]


def object_json(obj, what, with_pos):
    name = obj["name"]
    out = {}
    if with_pos:
        x, y = obj["position"]
        out["pos"] = [int(x), int(y)]
    out["name"] = name
    if name == "soup":
        soup_type, num_items, cook_time = obj["state"]
        if soup_type != "onion":
            raise ConversionError(f"{what}: soup of {soup_type!r} (the 2019 games only cook onion soup)")
        out["onions"] = int(num_items)
        out["cook_time"] = int(cook_time)
    elif name not in ("onion", "dish", "tomato"):
        raise ConversionError(f"{what}: unknown object {name!r}")
    return out


def state_json(state, what):
    players = []
    for k, p in enumerate(state["players"]):
        x, y = p["position"]
        orientation = tuple(p["orientation"])
        if orientation not in DIRS:
            raise ConversionError(f"{what}: player {k} has orientation {p['orientation']!r}")
        held = p.get("held_object")
        players.append({
            "pos": [int(x), int(y)],
            "dir": DIRS[orientation],
            "held": None if held is None else object_json(held, what, False),
        })
    objects = state.get("objects", [])
    if isinstance(objects, dict):
        objects = list(objects.values())
    objs = [object_json(o, what, True) for o in objects]
    objs.sort(key=lambda o: (o["pos"][1], o["pos"][0]))
    return players, objs


def grid_with_starts(terrain, first_players):
    rows = [list(r) if isinstance(r, str) else list(r) for r in terrain]
    for k, p in enumerate(first_players):
        x, y = p["pos"]
        rows[y][x] = str(k + 1)
    return ["".join(r) for r in rows]


def convert_trial(rows, split):
    """Rows of one game (dicts with the DataFrame's columns), sorted by cur_gameloop."""
    first = rows[0]
    data_layout = first["layout_name"]
    if data_layout not in DATA_TO_OURS:
        raise ConversionError(f"unknown layout {data_layout!r}")
    layout = DATA_TO_OURS[data_layout]
    worker = int(first["workerid_num"])
    trial = f"hh2019_w{worker}_{layout}"
    terrain = literal(first["layout"], f"{trial}: layout") if "layout" in first else None
    lines, score, players0 = [], 0, None
    for t, row in enumerate(rows):
        what = f"{trial} t={t}"
        if int(row["cur_gameloop"]) != t:
            raise ConversionError(f"{what}: cur_gameloop is {row['cur_gameloop']} (expected {t}: a gap)")
        players, objects = state_json(literal(row["state"], what), what)
        if players0 is None:
            players0 = players
        if terrain is not None:
            for k, p in enumerate(players):
                x, y = p["pos"]
                if terrain[y][x] != " ":
                    raise ConversionError(f"{what}: player {k} stands on {terrain[y][x]!r} at {p['pos']}")
        joint = literal(row["joint_action"], what)
        if len(joint) != 2:
            raise ConversionError(f"{what}: joint action {joint!r} does not have two entries")
        reward = int(row["reward"])
        score += reward
        if "score" in row and int(row["score"]) != score:
            raise ConversionError(f"{what}: score {row['score']} is not the running sum of rewards ({score})")
        lines.append({
            "trial": trial,
            "layout": layout,
            "t": t,
            "players": players,
            "objects": objects,
            "actions": [action_name(a, what) for a in joint],
            "reward": reward,
            "score": score,
        })
    info = {
        "trial": trial,
        "layout": layout,
        "data_layout_name": data_layout,
        "split": split,
        "worker_pair_id": worker,
        "run": first.get("run"),
        "round_num": None if first.get("round_num") is None else int(first["round_num"]),
        "steps": len(rows),
        "final_score": score,
        "soups_delivered": score // 5,
    }
    grid = grid_with_starts(terrain, players0) if terrain is not None else None
    return layout, lines, info, grid


def convert_frame(records, split):
    """All games of one split: {layout: [lines]}, trial infos, {layout: grid}."""
    games = {}
    for r in records:
        key = (int(r["workerid_num"]), r["layout_name"])
        games.setdefault(key, []).append(r)
    by_layout, infos, grids = {}, [], {}
    for key in sorted(games, key=lambda k: (k[0], k[1])):
        rows = sorted(games[key], key=lambda r: int(r["cur_gameloop"]))
        layout, lines, info, grid = convert_trial(rows, split)
        by_layout.setdefault(layout, []).extend(lines)
        infos.append(info)
        if grid is not None:
            grids.setdefault(layout, {"data_layout_name": info["data_layout_name"], "grid": grid})
    return by_layout, infos, grids


def read_pickle_bytes(data):
    try:
        import pandas as pd
    except ImportError:
        sys.exit("error: reading the pickled DataFrames needs pandas (pip install pandas)")
    frame = pd.read_pickle(io.BytesIO(data))
    return frame.to_dict("records")


def load_pickles(args):
    out = {}
    if args.sdist:
        with tarfile.open(args.sdist) as tar:
            for split, name in PICKLES.items():
                member = next((m for m in tar.getmembers() if m.name.endswith("human_data/" + name)), None)
                if member is None:
                    sys.exit(f"error: {args.sdist} has no .../human_data/{name}")
                out[split] = tar.extractfile(member).read()
    else:
        for split, name in PICKLES.items():
            path = os.path.join(args.pickles, name)
            with open(path, "rb") as f:
                out[split] = f.read()
    for split, data in out.items():
        digest = hashlib.sha256(data).hexdigest()
        if digest != KNOWN_SHA256[split]:
            print(f"warning: {PICKLES[split]} has sha256 {digest}, not the 1.1.0 release's", file=sys.stderr)
    return out


def write_outputs(out_dir, per_split):
    os.makedirs(out_dir, exist_ok=True)
    all_infos, all_grids = [], {}
    for split, (by_layout, infos, grids) in per_split.items():
        for layout, lines in sorted(by_layout.items()):
            path = os.path.join(out_dir, f"{layout}_{split}.jsonl.gz")
            text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
            # mtime=0 keeps the gzip bytes (and so the sha256 in model metadata) reproducible.
            with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
                gz.write(text.encode("utf-8"))
            print(f"wrote {path}: {len(lines)} steps")
        all_infos.extend(infos)
        for layout, g in grids.items():
            all_grids.setdefault(layout, g)
    with open(os.path.join(out_dir, "layouts.json"), "w") as f:
        json.dump(dict(sorted(all_grids.items())), f, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, "trials.json"), "w") as f:
        json.dump(all_infos, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--sdist", help="overcooked_ai-1.1.0.tar.gz from PyPI")
    src.add_argument("--pickles", help="a directory holding clean_train_trials.pickle and clean_test_trials.pickle")
    ap.add_argument("--out", default="human_data", help="output directory (default: human_data)")
    args = ap.parse_args()
    data = load_pickles(args)
    per_split = {}
    try:
        for split in ("train", "test"):
            per_split[split] = convert_frame(read_pickle_bytes(data[split]), split)
    except (ConversionError, KeyError, TypeError, ValueError) as e:
        sys.exit(f"error: {e}")
    write_outputs(args.out, per_split)


if __name__ == "__main__":
    main()
