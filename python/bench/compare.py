"""Steps per second from Python: proagent's VecEnv and Env against overcooked_ai (pip:
overcooked-ai) and JaxMARL's Overcooked (pip: jaxmarl, jitted and vmapped, on CPU), side
by side on one layout, at n = 1, 64, 1024 parallel environments.

A command, not a test:

    python python/bench/compare.py [--layout cramped_room] [--seconds 3] [--json]

Every system plays uniformly random joint actions, drawn before timing, with auto-reset
at the 400-step horizon. Two settings are timed:

- ``obs26``: each step also produces both players' 26-layer grid observation (proagent:
  ``obs="overcooked_ai"``, overcooked_ai 1.x's ``lossless_state_encoding`` value for value);
- ``obs``: the same with proagent's 20-channel 2019 encoding (overcooked_ai: its
  ``lossless_state_encoding``; JaxMARL: its 26-channel observation, computed in every step);
- ``state``: the step alone (proagent ``obs="none"``, overcooked_ai ``env.step``; JaxMARL
  has no step without observations); and overcooked_ai's bare transition function
  ``OvercookedGridworld.get_state_transition`` (one environment).

overcooked_ai has no batched step: n environments are n Python objects stepped in a loop,
as users of it do. A missing package is reported with its import error and skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings

import numpy as np

HORIZON = 400
NS = (1, 64, 1024)


def timed(step, seconds: float, per_call: int, min_calls: int = 3) -> float:
    """Steps/s of `step()` (which advances `per_call` environment steps), run for about `seconds`."""
    step()  # warm-up (and JIT compilation where there is one)
    calls, start = 0, time.perf_counter()
    while True:
        step()
        calls += 1
        el = time.perf_counter() - start
        if calls >= min_calls and el >= seconds:
            return calls * per_call / el


def bench_proagent(layout: str, n: int, obs: str, seconds: float, threads: int = 1) -> float:
    import proagent

    kind = {"obs": "lossless", "obs26": "overcooked_ai", "state": "none"}[obs]
    vec = proagent.VecEnv(layout, n, horizon=HORIZON, obs=kind, threads=threads)
    vec.reset()
    rng = np.random.default_rng(0)
    acts = [rng.integers(0, 6, size=(n, 2), dtype=np.int64) for _ in range(64)]
    i = [0]

    def step():
        vec.step(acts[i[0] & 63])
        i[0] += 1

    return timed(step, seconds, n)


def bench_proagent_env(layout: str, seconds: float) -> dict:
    """One Env from Python: microseconds per step, with and without the state dict."""
    import proagent

    env = proagent.Env(layout, horizon=HORIZON)
    env.reset()
    rng = np.random.default_rng(0)
    joints = [tuple(int(a) for a in rng.integers(0, 6, size=2)) for _ in range(4096)]
    out = {}
    for name in ("step", "step_fast"):
        k = [0]
        if name == "step":
            def one():
                if env.done:
                    env.reset()
                env.step(joints[k[0] & 4095])
                k[0] += 1
        else:
            def one():
                if env.done:
                    env.reset()
                a, b = joints[k[0] & 4095]
                env.step_fast(a, b)
                k[0] += 1

        def hundred():
            for _ in range(100):
                one()

        sps = timed(hundred, seconds, 100)
        out[name] = 1e6 / sps
    return out


def bench_overcooked_ai(layout: str, n: int, obs: str, seconds: float) -> float:
    # overcooked-ai 1.1.0 (PyPI's latest) still names np.Inf, which NumPy 2 removed.
    if "Inf" not in np.__dict__:
        np.Inf = np.inf
    from overcooked_ai_py.mdp.actions import Action
    from overcooked_ai_py.mdp.overcooked_env import OvercookedEnv
    from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld

    # PyPI's overcooked-ai (1.1.0) has no old-dynamics switch: its default dynamics are timed.
    mdp = OvercookedGridworld.from_layout_name(layout)
    envs = [OvercookedEnv.from_mdp(mdp, horizon=HORIZON, info_level=0) for _ in range(n)]
    for e in envs:
        e.reset()
    rng = np.random.default_rng(0)
    table = [
        [(Action.ALL_ACTIONS[a], Action.ALL_ACTIONS[b]) for a, b in rng.integers(0, 6, size=(n, 2))] for _ in range(8)
    ]
    i = [0]

    def step():
        row = table[i[0] & 7]
        for e, joint in zip(envs, row):
            state, _, done, _ = e.step(joint)
            if obs == "obs":
                mdp.lossless_state_encoding(state)
            if done:
                e.reset()
        i[0] += 1

    return timed(step, seconds, n, min_calls=1)


def bench_overcooked_ai_transition(layout: str, seconds: float) -> float:
    """overcooked_ai's own `OvercookedGridworld.get_state_transition`, the bare transition
    function (no env wrapper, no observation), from the start state with auto-reset."""
    if "Inf" not in np.__dict__:
        np.Inf = np.inf
    from overcooked_ai_py.mdp.actions import Action
    from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld

    mdp = OvercookedGridworld.from_layout_name(layout)
    start = mdp.get_standard_start_state()
    rng = np.random.default_rng(0)
    joints = [(Action.ALL_ACTIONS[a], Action.ALL_ACTIONS[b]) for a, b in rng.integers(0, 6, size=(4096, 2))]
    carry = {"state": start, "i": 0}

    def hundred():
        for _ in range(100):
            i = carry["i"]
            state, _ = mdp.get_state_transition(carry["state"], joints[i & 4095])
            carry["state"] = start if state.timestep >= HORIZON else state
            carry["i"] = i + 1

    return timed(hundred, seconds, 100)


def bench_jaxmarl(layout: str, n: int, seconds: float) -> float:
    import jax
    import jax.numpy as jnp
    from jaxmarl.environments.overcooked import Overcooked, overcooked_layouts

    names = {
        "cramped_room": "cramped_room",
        "asymmetric_advantages": "asymm_advantages",
        "coordination_ring": "coord_ring",
        "forced_coordination": "forced_coord",
        "counter_circuit": "counter_circuit",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = Overcooked(layout=overcooked_layouts[names[layout]], max_steps=HORIZON)
    keys = jax.random.split(jax.random.PRNGKey(0), n)
    _, state = jax.jit(jax.vmap(env.reset))(keys)
    vstep = jax.jit(jax.vmap(env.step))
    rng = np.random.default_rng(0)
    acts = [
        {
            "agent_0": jnp.asarray(rng.integers(0, 6, size=n), dtype=jnp.int32),
            "agent_1": jnp.asarray(rng.integers(0, 6, size=n), dtype=jnp.int32),
        }
        for _ in range(8)
    ]
    carry = {"state": state, "keys": keys, "i": 0}

    def step():
        step_keys = jax.random.split(carry["keys"][0], n)
        obs, st, rew, done, info = vstep(step_keys, carry["state"], acts[carry["i"] & 7])
        jax.block_until_ready(obs)
        carry["state"] = st
        carry["keys"] = step_keys
        carry["i"] += 1

    return timed(step, seconds, n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layout", default="cramped_room")
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = ap.parse_args()

    rows = []
    errors = {}

    def run(system, setting, n, fn, *a):
        try:
            sps = fn(*a)
        except ImportError as e:  # a package that is not installed is reported, not fatal
            errors[system] = f"{type(e).__name__}: {e}"
            return
        rows.append({"system": system, "setting": setting, "n": n, "steps_per_s": sps})
        print(f"  {system:<26} {setting:<6} n={n:<5} {sps:>14,.0f} steps/s", file=sys.stderr)

    run("overcooked_ai get_state_transition", "state", 1, bench_overcooked_ai_transition, args.layout, args.seconds)
    for n in NS:
        run("proagent.VecEnv", "obs26", n, bench_proagent, args.layout, n, "obs26", args.seconds)
        for setting in ("obs", "state"):
            run("proagent.VecEnv", setting, n, bench_proagent, args.layout, n, setting, args.seconds)
            if n >= 64:
                run("proagent.VecEnv threads=2", setting, n, bench_proagent, args.layout, n, setting, args.seconds, 2)
            if "overcooked_ai" not in errors:
                run("overcooked_ai", setting, n, bench_overcooked_ai, args.layout, n, setting, args.seconds)
        if "jaxmarl" not in errors:
            run("jaxmarl", "obs", n, bench_jaxmarl, args.layout, n, args.seconds)
    env_us = bench_proagent_env(args.layout, args.seconds)

    def get(system, setting, n):
        for r in rows:
            if (r["system"], r["setting"], r["n"]) == (system, setting, n):
                return r["steps_per_s"]
        return None

    ratios = []
    for n in NS:
        for setting in ("obs", "state"):
            ours = get("proagent.VecEnv", setting, n)
            ours2 = get("proagent.VecEnv threads=2", setting, n)
            oa = get("overcooked_ai", setting, n)
            jm = get("jaxmarl", "obs", n) if setting == "obs" else None
            ratios.append({
                "n": n, "setting": setting,
                "vs_overcooked_ai": None if not (ours and oa) else ours / oa,
                "vs_jaxmarl": None if not (ours and jm) else ours / jm,
                "threads2_vs_jaxmarl": None if not (ours2 and jm) else ours2 / jm,
            })
    import proagent

    transition = get("overcooked_ai get_state_transition", "state", 1)
    big = get("proagent.VecEnv", "obs26", 1024)
    result = {
        "build_profile": proagent._native.build_profile(),
        "vecenv1024_obs26_vs_get_state_transition": None if not (transition and big) else big / transition,
        "layout": args.layout,
        "horizon": HORIZON,
        "machine": {
            "cpus": os.cpu_count(),
            "load_avg_1min": os.getloadavg()[0],
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "results": rows,
        "ratios": ratios,
        "env_step_us": env_us,
        "unavailable": errors,
    }
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"build profile {result['build_profile']}, layout {args.layout}, horizon {HORIZON}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'system':<27}{'setting':<8}" + "".join(f"{'n=' + str(n):>15}" for n in NS))
    for system in ("proagent.VecEnv", "proagent.VecEnv threads=2", "overcooked_ai", "overcooked_ai get_state_transition", "jaxmarl"):
        for setting in ("obs26", "obs", "state"):
            vals = [get(system, setting, n) for n in NS]
            if any(v is not None for v in vals):
                print(f"{system:<27}{setting:<8}" + "".join(f"{v:>15,.0f}" if v else f"{'-':>15}" for v in vals))
    print("\nratios (proagent.VecEnv steps/s ÷ other):")
    for r in ratios:
        parts = []
        if r["vs_overcooked_ai"]:
            parts.append(f"×{r['vs_overcooked_ai']:,.0f} overcooked_ai")
        if r["vs_jaxmarl"]:
            t2 = r["threads2_vs_jaxmarl"]
            parts.append(f"×{r['vs_jaxmarl']:.2f} jaxmarl" + (f" (threads=2: ×{t2:.2f})" if t2 else ""))
        print(f"  n={r['n']:<5} {r['setting']:<6} " + ", ".join(parts))
    if result["vecenv1024_obs26_vs_get_state_transition"]:
        print(f"\nVecEnv(1024) with 26-layer observations ÷ overcooked_ai get_state_transition: "
              f"×{result['vecenv1024_obs26_vs_get_state_transition']:,.0f}")
    print(f"\nproagent.Env from Python: step() {env_us['step']:.2f} µs (state dict + info), "
          f"step_fast() {env_us['step_fast']:.2f} µs")
    for system, e in errors.items():
        print(f"{system} unavailable: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
