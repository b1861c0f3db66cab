#!/usr/bin/env python3
"""JaxMARL's OvercookedV2 speed on this machine, for `proagent bench env --layout v2:NAME`.

Uniformly random joint actions are drawn inside the compiled code, and JaxMARL's
`env.step` auto-resets at the end of each 400-step episode:

* single:  one environment, the whole rollout one `jax.jit`-compiled `lax.scan`;
* vmapped: `--batch` environments side by side (`jax.vmap`) inside the same kind of scan.

Each is measured twice: with the observations consumed (summed into the result, as a
learner would use them) and without (XLA then drops the observation code as dead).
Compilation is excluded (each function runs once before it is timed). Prints one JSON
object with environment steps per second for each, plus the settings.

    /tmp/jaxv2/bin/python scripts/bench_jaxmarl_v2.py --layout cramped_room_v2 --steps 20000 --batch 1024
"""

import argparse
import json
import os
import sys
import time

import jax
import jax.numpy as jnp

from jaxmarl.environments.overcooked_v2 import OvercookedV2, overcooked_v2_layouts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layout", required=True, help="a JaxMARL OvercookedV2 layout name")
    ap.add_argument("--steps", type=int, default=20000, help="steps of the single-environment rollout")
    ap.add_argument("--batch", type=int, default=1024, help="environments in the vmapped rollout")
    ap.add_argument("--batch-steps", type=int, default=200, help="steps of the vmapped rollout")
    ap.add_argument("--view-radius", type=int, default=None, help="agent_view_size (default: full view)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.layout not in overcooked_v2_layouts:
        sys.exit(f"unknown layout {args.layout!r}; known: {sorted(overcooked_v2_layouts)}")
    env = OvercookedV2(layout=args.layout, max_steps=400, agent_view_size=args.view_radius)
    agents = env.agents

    def make_rollout(with_obs):
        def rollout(key, steps):
            key, reset_key = jax.random.split(key)
            _, state = env.reset(reset_key)

            def body(carry, _):
                state, key, total = carry
                key, k_act, k_step = jax.random.split(key, 3)
                acts = jax.random.randint(k_act, (len(agents),), 0, 6)
                obs, state, rewards, _, _ = env.step(k_step, state, {a: acts[i] for i, a in enumerate(agents)})
                total = total + rewards[agents[0]]
                if with_obs:
                    total = total + sum(jnp.sum(obs[a]) for a in agents).astype(jnp.float32) * 1e-9
                return (state, key, total), None

            (state, key, total), _ = jax.lax.scan(body, (state, key, jnp.float32(0)), None, length=steps)
            return total

        return rollout

    def timed(fn, *a):
        t0 = time.perf_counter()
        fn(*a).block_until_ready()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        fn(*a).block_until_ready()
        return time.perf_counter() - t0, first

    key = jax.random.PRNGKey(args.seed)
    keys = jax.random.split(key, args.batch)
    out = {
        "layout": args.layout,
        "jax": jax.__version__,
        "devices": [str(d) for d in jax.devices()],
        "cpu_count": os.cpu_count(),
        "single_steps": args.steps,
        "batch": args.batch,
        "batch_steps": args.batch_steps,
        "view_radius": args.view_radius,
    }
    for with_obs in (False, True):
        tag = "obs" if with_obs else "state"
        rollout = make_rollout(with_obs)
        single = jax.jit(rollout, static_argnums=1)
        batched = jax.jit(jax.vmap(rollout, in_axes=(0, None)), static_argnums=1)
        t, first = timed(single, key, args.steps)
        out[f"single_{tag}_steps_per_sec"] = args.steps / t
        out[f"single_{tag}_first_call_seconds"] = first
        t, first = timed(batched, keys, args.batch_steps)
        out[f"batch_{tag}_env_steps_per_sec"] = args.batch * args.batch_steps / t
        out[f"batch_{tag}_first_call_seconds"] = first
    print(json.dumps(out))


if __name__ == "__main__":
    main()
