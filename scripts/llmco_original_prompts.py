#!/usr/bin/env python3
"""Tokens per LLM-Coordination call: the released agent's fixed messages beside ours.

Given a checkout of the released LLM-Coordination code (github.com/eric-ai-lab/llm_coordination),
this reads the fixed prompt strings its agents build in `__init__` (system prompts, game
descriptions, the Theory-of-Mind and verifier primers, "Got it!") without running the
agents: each string assignment is evaluated in source order with the players named Alice
and Bob (seat 0) and the Overcooked layout cramped_room. What the released agent appends
at every turn (the state, the history, the available actions) is built from a live game
and is NOT measured here: the original column is the fixed part of each request only.

Ours comes from one default-length episode of each game played with `proagent play`
(default preset, the offline rule-based stand-in in the model's place, seat 0): the fixed
part (every message before the turn's state message) and the whole request, averaged
per call kind, and the whole prompt tokens per decision.

Every count is made by the repository's own counter, the one `--dry-run` uses
(`cargo run -p proagent-llm --example count_tokens`, o200k_base for gpt-4o).

    python3 scripts/llmco_original_prompts.py PATH/TO/llm_coordination [--proagent BIN] [--model gpt-4o]
"""

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
from types import SimpleNamespace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The released agent's files, and for each call kind the attributes that make its fixed
# messages (role, attribute), as the OpenAI branch of each agent's __init__ sends them.
ORIGINAL = {
    "overcooked": (
        "overcooked_agent.py",
        {
            "action": [("system", "llm_system_prompt"), ("user", "base_prompt"), ("assistant", "assistant_response_initial")],
        },
    ),
    "hanabi": (
        "hanabi_agent.py",
        {
            "action": [("system", "llm_system_prompt"), ("user", "base_prompt"), ("assistant", "assistant_response_initial")],
            "tom": [("user", "epistemologist_base_prompt"), ("assistant", "assistant_response_initial")],
            "verify": [
                ("system", "verifier_system_prompt"),
                ("user", "verifier_base_prompt"),
                ("assistant", "assistant_response_initial"),
            ],
        },
    ),
    "capture": (
        "collab_capture_agent.py",
        {
            "action": [("system", "llm_system_prompt"), ("user", "base_prompt"), ("assistant", "assistant_response_initial")],
        },
    ),
    "escape": (
        "collab_escape_agent.py",
        {
            "action": [("system", "llm_system_prompt"), ("user", "generator_prompt"), ("assistant", "assistant_response_initial")],
            "tom": [
                ("system", "llm_system_prompt"),
                ("user", "partner_interpreter_base_prompt"),
                ("assistant", "assistant_response_initial"),
            ],
        },
    ),
}

# Our games: (the `play --layout` value, the key above). The lever game has no released agent.
OURS = [("cramped_room", "overcooked"), ("hanabi", "hanabi"), ("capture:1", "capture"), ("escape:1", "escape"), ("lever", None)]


def fixed_strings(path):
    """The string attributes `__init__` assigns, evaluated in source order."""
    tree = ast.parse(open(path, encoding="utf-8").read(), filename=path)
    module = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                module[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    me = SimpleNamespace(
        player_id=0,
        other_player_id=1,
        player_names=["Alice", "Bob"],
        player_name="Alice",
        other_player_name="Bob",
        layout_name="cramped_room",
    )
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"):
            assigns = [
                n
                for n in ast.walk(fn)
                if isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Attribute)
                and isinstance(n.targets[0].value, ast.Name)
                and n.targets[0].value.id == "self"
            ]
            for node in sorted(assigns, key=lambda n: n.lineno):
                try:
                    value = eval(compile(ast.Expression(node.value), path, "eval"), {"__builtins__": {}}, {"self": me, **module})
                except Exception:  # an expression that needs a live game or the model: not a fixed string
                    continue
                if isinstance(value, str):
                    setattr(me, node.targets[0].attr, value)
    return me


def our_requests(proagent, layout):
    """(exchanges, decisions) of one default-preset stand-in episode of `layout`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.jsonl")
        played = subprocess.run(
            [proagent, "play", "--layout", layout, "--agent", "llmco", "--no-wall-clock", "--transcript", out],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if played.returncode != 0:
            sys.exit(f"{proagent} play --layout {layout}: {played.stderr.strip()}")
        rows = [json.loads(line) for line in open(out, encoding="utf-8")]
    exchanges = [r for r in rows if r.get("type") == "exchange" and r.get("seat", 0) == 0]
    decisions = rows[-1].get("data", {}).get("decisions") or 0
    return exchanges, decisions


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("original", help="a checkout of eric-ai-lab/llm_coordination")
    ap.add_argument("--proagent", default=os.path.join(ROOT, "target", "debug", "proagent"), help="the proagent binary")
    ap.add_argument("--model", default="gpt-4o", help="whose tokenizer counts (default gpt-4o: o200k_base)")
    a = ap.parse_args()
    agents = os.path.join(a.original, "src", "llm_coordination_agents")
    if not os.path.isdir(agents):
        sys.exit(f"{a.original}: no src/llm_coordination_agents/ (not a checkout of eric-ai-lab/llm_coordination)")

    requests = []  # (label, messages)
    for game, (name, kinds) in ORIGINAL.items():
        me = fixed_strings(os.path.join(agents, name))
        for kind, parts in kinds.items():
            messages = []
            for role, attr in parts:
                if not hasattr(me, attr):
                    sys.exit(f"{name}: no fixed string self.{attr} (the released code changed?)")
                messages.append({"role": role, "content": getattr(me, attr)})
            requests.append((f"original/{game}/{kind}", messages))
    per_decision = {}
    for layout, game in OURS:
        exchanges, decisions = our_requests(a.proagent, layout)
        key = game or layout
        seen = set()
        # A transcript writes a message's text once; later copies carry only its sha256.
        texts = {}
        for i, x in enumerate(exchanges):
            messages = []
            for m in x["request"]["messages"]:
                if "content" in m and "sha256" in m:
                    texts[m["sha256"]] = m["content"]
                messages.append({"role": m["role"], "content": m["content"] if "content" in m else texts[m["sha256"]]})
            kind = x["kind"]
            requests.append((f"ours/{key}/{kind}/whole/{i}", messages))
            if kind not in seen:
                seen.add(kind)
                last_user = max(j for j, m in enumerate(messages) if m["role"] == "user")
                requests.append((f"ours/{key}/{kind}/fixed", messages[:last_user]))
        per_decision[key] = decisions

    counter = subprocess.run(
        ["cargo", "run", "-q", "-p", "proagent-llm", "--example", "count_tokens", "--", a.model],
        input="".join(json.dumps({"label": l, "messages": m}) + "\n" for l, m in requests),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    tokens = {}
    for line in counter.stdout.splitlines():
        label, n = line.rsplit("\t", 1)
        tokens[label] = int(n)

    print(f"Prompt tokens ({counter.stderr.strip().splitlines()[-1]}); original: the fixed messages only, before the turn's state")
    print()
    print("| game | step | original: fixed messages | ours: fixed messages | ours: whole request (mean) | ours: per decision |")
    print("|---|---|---:|---:|---:|---:|")
    for layout, game in OURS:
        key = game or layout
        kinds = sorted({l.split("/")[2] for l in tokens if l.startswith(f"ours/{key}/")}, key=["tom", "action", "retry", "verify"].index)
        whole_all = [n for l, n in tokens.items() if l.startswith(f"ours/{key}/") and "/whole/" in l]
        decision = round(sum(whole_all) / per_decision[key]) if per_decision[key] else 0
        for k, kind in enumerate(kinds):
            whole = [n for l, n in tokens.items() if l.startswith(f"ours/{key}/{kind}/whole/")]
            orig = tokens.get(f"original/{game}/{kind}")
            orig = f"{orig:,}" if orig is not None else ("no released agent" if game is None else "no such step")
            print(
                f"| {layout} | {kind} | {orig} | {tokens[f'ours/{key}/{kind}/fixed']:,} | {round(sum(whole) / len(whole)):,} "
                f"| {f'{decision:,}' if k == 0 else ''} |"
            )


if __name__ == "__main__":
    main()
