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

Inputs (one of):
    --sdist FILE         overcooked_ai-1.1.0.tar.gz (the pickles are read from inside it)
    --pickles DIR        a directory with clean_train_trials.pickle and clean_test_trials.pickle
                         (an installed overcooked_ai_py/data/human_data/ is one)
    --records SPLIT=FILE the rows of one split as JSON, a list of objects with the DataFrame's
                         columns (what `frame.to_dict("records")` gives); repeatable; needs no pandas

Two row schemas are read, each as it occurs:
    * the 1.1.0 pickles (old dynamics): columns `workerid_num`, `layout_name`, `cur_gameloop`,
      `layout`, `state`, `joint_action`, `reward`, `score`, ...; states are Python literals
      with `objects` a dict and a soup's `state` = [kind, items, cook_time]; the layout rows
      mark the players' start cells with `1` and `2` (floor);
    * overcooked_ai's later re-encoding (`trial_id`, `player_0_id`, ...; new state schema:
      `objects` a list, a soup's `_ingredients` and `cooking_tick`). The later dynamics need
      an extra INTERACT to start a full pot; a step that only does that (a full idle pot that
      cooks on the next line, players unchanged) is dropped, since the games were played
      under the old dynamics where cooking starts by itself. A full pot that waits longer is
      a game played under the new dynamics, which proagent's BC does not model: refused.

It writes, for the five layouts and both splits,
    <layout>_<split>.jsonl.gz   one line per timestep (schema below)
    layouts.json                each layout's grid as the games recorded it
    trials.json                 one entry per game
From the 1.1.0 pickles the output is byte for byte the same on every run (gzip mtime 0).

Line schema (positions are [x, y], x the column, y the row from the top-left):
    {"trial":"hh2019_w10_cramped_room","layout":"cramped_room","t":413,
     "players":[{"pos":[3,2],"dir":"SOUTH","held":{"name":"soup","onions":3,"cook_time":24}},
                {"pos":[2,1],"dir":"NORTH","held":{"name":"onion"}}],
     "objects":[{"pos":[2,0],"name":"soup","onions":1,"cook_time":0}],
     "actions":["INTERACT","STAY"],"reward":5,"score":25}

`actions[i]` is what player i did in the state of its line; `reward` and `score`
keep the game's scale of 5 points per soup (overcooked_ai uses 20); `cook_time`
is kept as recorded (the game let it run on past 20; proagent reads min(c, 20)).
Trials are named `hh2019_w<workerid_num>_<layout>` (1.1.0 pickles) or
`hh2019_t<trial_id>_<layout>` (the later re-encoding, which has no worker ids).

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

# Cells a player may stand on in a recorded layout: floor, and the start marks of players 1 and 2.
FLOOR = " 12"
# Items in a full pot under the 2019 recipe (three onions).
FULL_POT = 3


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


def soup_fields(obj, what):
    """(onions, cook_time, started) of a soup in either schema.

    `started` is False only for a pot soup of the later schema that has not begun cooking.
    """
    if "state" in obj:
        soup_type, num_items, cook_time = obj["state"]
        if soup_type != "onion":
            raise ConversionError(f"{what}: soup of {soup_type!r} (the 2019 games only cook onion soup)")
        return int(num_items), int(cook_time), True
    ingredients = obj.get("_ingredients", obj.get("ingredients"))
    tick = obj.get("cooking_tick", obj.get("_cooking_tick"))
    if ingredients is None or tick is None:
        raise ConversionError(f"{what}: soup {obj!r} has neither `state` nor `_ingredients` and `cooking_tick`")
    names = [i["name"] if isinstance(i, dict) else i for i in ingredients]
    if any(n != "onion" for n in names):
        raise ConversionError(f"{what}: soup of {names!r} (the 2019 games only cook onion soup)")
    tick = int(tick)
    return len(names), max(tick, 0), tick >= 0


def object_json(obj, what, with_pos):
    """The object in our schema, and whether it is a full pot that has not started cooking."""
    name = obj["name"]
    out = {}
    if with_pos:
        x, y = obj["position"]
        out["pos"] = [int(x), int(y)]
    out["name"] = name
    idle_full = False
    if name == "soup":
        onions, cook_time, started = soup_fields(obj, what)
        out["onions"] = onions
        out["cook_time"] = cook_time
        idle_full = onions >= FULL_POT and not started
    elif name not in ("onion", "dish", "tomato"):
        raise ConversionError(f"{what}: unknown object {name!r}")
    return out, idle_full


def state_json(state, what):
    """Players, objects (sorted by row, then column) and the positions of full idle pots."""
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
            "held": None if held is None else object_json(held, what, False)[0],
        })
    objects = state.get("objects", [])
    if isinstance(objects, dict):
        objects = list(objects.values())
    objs, idle_full = [], []
    for o in objects:
        out, idle = object_json(o, what, True)
        objs.append(out)
        if idle:
            idle_full.append(tuple(out["pos"]))
    objs.sort(key=lambda o: (o["pos"][1], o["pos"][0]))
    return players, objs, idle_full


def grid_with_starts(terrain, first_players):
    rows = [list(r) for r in terrain]
    for k, p in enumerate(first_players):
        x, y = p["pos"]
        rows[y][x] = str(k + 1)
    return ["".join(r) for r in rows]


def row_schema(row):
    if "workerid_num" in row:
        return "1.1.0"
    if "trial_id" in row:
        return "later"
    raise ConversionError(f"a row with neither `workerid_num` nor `trial_id`: columns {sorted(row)}")


def trial_name(row, layout):
    if row_schema(row) == "1.1.0":
        return f"hh2019_w{int(row['workerid_num'])}_{layout}"
    return f"hh2019_t{int(row['trial_id'])}_{layout}"


def cooking_start_only(step, following):
    """True when `step` (a full idle pot) is the later dynamics' extra INTERACT that starts it."""
    players, _, idle_full, actions = step
    next_players, next_objects, next_idle, _ = following
    if next_idle or players != next_players:
        return False
    cooking = {tuple(o["pos"]): o for o in next_objects if o["name"] == "soup"}
    for pos in idle_full:
        soup = cooking.get(pos)
        if soup is None or soup["cook_time"] != 1:
            return False
        facing = [
            (p["pos"][0] + dx, p["pos"][1] + dy)
            for p in players
            for (dx, dy), d in DIRS.items()
            if d == p["dir"]
        ]
        if not any(f == pos and actions[k] == "INTERACT" for k, f in enumerate(facing)):
            return False
    return True


def convert_trial(rows, split):
    """Rows of one game (dicts with the DataFrame's columns), sorted by cur_gameloop."""
    first = rows[0]
    data_layout = first["layout_name"]
    if data_layout not in DATA_TO_OURS:
        raise ConversionError(f"unknown layout {data_layout!r}")
    layout = DATA_TO_OURS[data_layout]
    schema = row_schema(first)
    trial = trial_name(first, layout)
    terrain = literal(first["layout"], f"{trial}: layout") if "layout" in first else None
    steps = []
    for row in rows:
        what = f"{trial} cur_gameloop={row['cur_gameloop']}"
        players, objects, idle_full = state_json(literal(row["state"], what), what)
        if terrain is not None:
            for k, p in enumerate(players):
                x, y = p["pos"]
                if not (0 <= y < len(terrain) and 0 <= x < len(terrain[y])) or terrain[y][x] not in FLOOR:
                    cell = terrain[y][x] if 0 <= y < len(terrain) and 0 <= x < len(terrain[y]) else "outside"
                    raise ConversionError(f"{what}: player {k} stands on {cell!r} at {p['pos']}")
        joint = literal(row["joint_action"], what)
        if len(joint) != 2:
            raise ConversionError(f"{what}: joint action {joint!r} does not have two entries")
        steps.append((players, objects, idle_full, [action_name(a, what) for a in joint]))
    # Drop the later dynamics' cooking-start steps; refuse pots that wait to be started.
    keep = []
    for i, step in enumerate(steps):
        if step[2]:
            what = f"{trial} cur_gameloop={rows[i]['cur_gameloop']}"
            if i + 1 < len(steps) and cooking_start_only(step, steps[i + 1]) and float(rows[i]["reward"]) == 0:
                continue
            raise ConversionError(
                f"{what}: a full pot at {list(step[2][0])} has not started cooking: the game was played "
                "under the later dynamics (cooking starts on an INTERACT), which proagent's BC does not model"
            )
        keep.append(i)
    loops = [float(rows[i]["cur_gameloop"]) for i in keep]
    all_loops = [float(r["cur_gameloop"]) for r in rows]
    if loops != list(range(len(keep))) and all_loops != list(range(len(rows))):
        t = next(t for t, v in enumerate(loops) if v != t)
        raise ConversionError(f"{trial} t={t}: cur_gameloop is {loops[t]:g} (expected {t}: a gap)")
    lines, score = [], 0
    for t, i in enumerate(keep):
        row = rows[i]
        players, objects, _, actions = steps[i]
        reward = int(row["reward"])
        score += reward
        if "score" in row and int(row["score"]) != score:
            raise ConversionError(f"{trial} t={t}: score {row['score']} is not the running sum of rewards ({score})")
        lines.append({
            "trial": trial,
            "layout": layout,
            "t": t,
            "players": players,
            "objects": objects,
            "actions": actions,
            "reward": reward,
            "score": score,
        })
    legacy = schema == "1.1.0"
    info = {
        "trial": trial,
        "layout": layout,
        "data_layout_name": data_layout,
        "split": split,
        "worker_pair_id": int(first["workerid_num"]) if legacy else None,
        "run": first.get("run"),
        "round_num": None if first.get("round_num") is None else int(first["round_num"]),
        "steps": len(lines),
        "final_score": score,
        "soups_delivered": score // 5,
    }
    if not legacy:
        info["trial_id"] = int(first["trial_id"])
        info["cooking_start_steps_dropped"] = len(rows) - len(keep)
    grid = grid_with_starts(terrain, steps[keep[0]][0]) if terrain is not None and keep else None
    return layout, lines, info, grid


def trial_key(row):
    if row_schema(row) == "1.1.0":
        return (row["layout_name"], int(row["workerid_num"]))
    return (row["layout_name"], int(row["trial_id"]))


def convert_frame(records, split):
    """All games of one split: {layout: [lines]}, trial infos, {data layout name: (layout, grid)}.

    Games are ordered by the data's layout name, then by worker pair (or trial id).
    """
    games = {}
    for r in records:
        games.setdefault(trial_key(r), []).append(r)
    by_layout, infos, grids = {}, [], {}
    for key in sorted(games):
        rows = sorted(games[key], key=lambda r: float(r["cur_gameloop"]))
        layout, lines, info, grid = convert_trial(rows, split)
        by_layout.setdefault(layout, []).extend(lines)
        infos.append(info)
        if grid is not None:
            grids.setdefault(info["data_layout_name"], (layout, grid))
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
            try:
                with open(path, "rb") as f:
                    out[split] = f.read()
            except OSError as e:
                sys.exit(f"error: {path}: {e.strerror}")
    for split, data in out.items():
        digest = hashlib.sha256(data).hexdigest()
        if digest != KNOWN_SHA256[split]:
            print(f"warning: {PICKLES[split]} has sha256 {digest}, not the 1.1.0 release's", file=sys.stderr)
    return {split: read_pickle_bytes(data) for split, data in out.items()}


def load_records(specs):
    out = {}
    for spec in specs:
        split, sep, path = spec.partition("=")
        if not sep or split not in PICKLES:
            sys.exit(f"error: --records {spec!r}: expected train=FILE or test=FILE")
        try:
            with open(path, encoding="utf-8") as f:
                rows = json.load(f)
        except OSError as e:
            sys.exit(f"error: {path}: {e.strerror}")
        except ValueError as e:
            sys.exit(f"error: {path}: not JSON: {e}")
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            sys.exit(f"error: {path}: expected a JSON list of row objects")
        out.setdefault(split, []).extend(rows)
    return out


def write_outputs(out_dir, per_split):
    os.makedirs(out_dir, exist_ok=True)
    all_infos, all_grids = [], {}
    for split in ("train", "test"):
        if split not in per_split:
            continue
        by_layout, infos, grids = per_split[split]
        for layout, lines in sorted(by_layout.items()):
            name = f"{layout}_{split}.jsonl"
            path = os.path.join(out_dir, name + ".gz")
            text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
            # mtime=0 keeps the gzip bytes (and so the sha256 in model metadata) reproducible.
            with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename=name) as gz:
                gz.write(text.encode("utf-8"))
            print(f"wrote {path}: {len(lines)} steps")
        all_infos.extend(infos)
        for data_layout, g in grids.items():
            all_grids.setdefault(data_layout, g)
    layouts = {
        layout: {"data_layout_name": data_layout, "grid": grid}
        for data_layout, (layout, grid) in sorted(all_grids.items())
    }
    with open(os.path.join(out_dir, "layouts.json"), "w") as f:
        json.dump(layouts, f, indent=1)
    with open(os.path.join(out_dir, "trials.json"), "w") as f:
        json.dump(all_infos, f, indent=1)
    dropped = sum(i.get("cooking_start_steps_dropped", 0) for i in all_infos)
    if dropped:
        print(f"dropped {dropped} cooking-start steps of the later dynamics (see --help)")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--sdist", help="overcooked_ai-1.1.0.tar.gz from PyPI")
    src.add_argument("--pickles", help="a directory holding clean_train_trials.pickle and clean_test_trials.pickle")
    src.add_argument("--records", action="append", metavar="SPLIT=FILE",
                     help="one split's rows as a JSON list of objects (repeatable; no pandas needed)")
    ap.add_argument("--out", default="human_data", help="output directory (default: human_data)")
    args = ap.parse_args()
    data = load_records(args.records) if args.records else load_pickles(args)
    per_split = {}
    try:
        for split in ("train", "test"):
            if split in data:
                per_split[split] = convert_frame(data[split], split)
    except (ConversionError, KeyError, TypeError, ValueError, IndexError) as e:
        sys.exit(f"error: {e}")
    write_outputs(args.out, per_split)


if __name__ == "__main__":
    main()
