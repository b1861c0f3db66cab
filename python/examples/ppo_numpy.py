"""PPO from scratch in NumPy (no deep-learning framework, nothing to install beyond numpy)
on proagent's Gymnasium vector adapter: one learner against a built-in partner that plays
inside Rust (``greedy`` by default; ``bc``, ``sp`` or ``random`` work the same).

    python python/examples/ppo_numpy.py --updates 150 --csv curve.csv   # the docs' curve
    python python/examples/ppo_numpy.py --updates 2                     # CI's smoke test

The policy and value function are two-layer tanh MLPs on overcooked_ai's 96 features;
advantages are GAE(λ) and bootstrap through time limits from ``infos["final_obs"]``
(Overcooked never terminates, it only truncates). Rewards are the team reward plus a
shaped reward that is annealed to zero. Each update prints the mean return of the
episodes that ended (sparse team reward) and writes it to ``--csv``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time

import numpy as np

from proagent.vector import OvercookedVectorEnv


class MLP:
    """A tanh MLP with hand-written backward pass and Adam."""

    def __init__(self, sizes, rng, out_scale=1.0):
        self.params = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            scale = out_scale if i == len(sizes) - 2 else 1.0
            w = rng.standard_normal((a, b)).astype(np.float32) * scale * np.sqrt(1.0 / a)
            self.params += [w, np.zeros(b, dtype=np.float32)]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def forward(self, x):
        acts = [x]
        n = len(self.params) // 2
        for i in range(n):
            x = x @ self.params[2 * i] + self.params[2 * i + 1]
            if i < n - 1:
                x = np.tanh(x)
            acts.append(x)
        return x, acts

    def backward(self, acts, grad_out):
        grads = [None] * len(self.params)
        g = grad_out
        n = len(self.params) // 2
        for i in reversed(range(n)):
            grads[2 * i] = acts[i].T @ g
            grads[2 * i + 1] = g.sum(0)
            if i > 0:
                g = (g @ self.params[2 * i].T) * (1 - acts[i] ** 2)
        return grads

    def adam(self, grads, lr, max_norm=0.5):
        norm = np.sqrt(sum(float((g ** 2).sum()) for g in grads))
        scale = min(1.0, max_norm / (norm + 1e-8))
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            g = g * scale
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= lr * (m / (1 - 0.9 ** self.t)) / (np.sqrt(v / (1 - 0.999 ** self.t)) + 1e-8)


def softmax(z):
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layout", default="cramped_room")
    ap.add_argument("--partner", default="greedy")
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=128, help="rollout length per update")
    ap.add_argument("--updates", type=int, default=150)
    ap.add_argument("--horizon", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--csv", default=None, help="write the learning curve here")
    args = ap.parse_args()

    gamma, lam, clip, epochs, minibatches, lr = 0.99, 0.95, 0.2, 4, 4, 3e-4
    rng = np.random.default_rng(args.seed)
    env = OvercookedVectorEnv(args.layout, num_envs=args.envs, partner=args.partner, seat=0, horizon=args.horizon,
                              obs="featurize")
    obs, _ = env.reset(seed=args.seed)
    dim = obs.shape[1]
    pi = MLP([dim, 128, 128, 6], rng, out_scale=0.01)
    vf = MLP([dim, 128, 128, 1], rng)
    returns_now = np.zeros(args.envs)
    rows = []
    start = time.time()
    total_steps = 0
    for update in range(args.updates):
        shaped_coef = max(0.0, 1.0 - update / max(1, 0.6 * args.updates))
        T, N = args.steps, args.envs
        b_obs = np.zeros((T, N, dim), np.float32)
        b_act = np.zeros((T, N), np.int64)
        b_logp = np.zeros((T, N), np.float32)
        b_rew = np.zeros((T, N), np.float32)
        b_val = np.zeros((T, N), np.float32)
        b_next_val = np.zeros((T, N), np.float32)
        b_done = np.zeros((T, N), np.float32)
        finished = []
        for t in range(T):
            logits, _ = pi.forward(obs)
            p = softmax(logits)
            a = (p.cumsum(1) > rng.random((N, 1))).argmax(1)
            v, _ = vf.forward(obs)
            nobs, r, term, trunc, info = env.step(a)
            shaped = info["shaped_r_by_agent"][:, 0]
            sparse = r
            b_obs[t], b_act[t], b_logp[t] = obs, a, np.log(p[np.arange(N), a] + 1e-8)
            b_rew[t] = sparse + shaped_coef * shaped
            b_val[t] = v[:, 0]
            # Bootstrap from the finished episode's last observation where it was truncated.
            boot = nobs.copy()
            if "final_obs" in info:
                for i in np.nonzero(info["_final_obs"])[0]:
                    boot[i] = info["final_obs"][i]
            nv, _ = vf.forward(boot)
            b_next_val[t] = nv[:, 0] * (1.0 - term)
            b_done[t] = np.logical_or(term, trunc)
            returns_now += sparse
            for i in np.nonzero(b_done[t])[0]:
                finished.append(returns_now[i])
                returns_now[i] = 0
            obs = nobs
        total_steps += T * N
        adv = np.zeros((T, N), np.float32)
        last = np.zeros(N, np.float32)
        for t in reversed(range(T)):
            delta = b_rew[t] + gamma * b_next_val[t] - b_val[t]
            last = delta + gamma * lam * (1.0 - b_done[t]) * last
            adv[t] = last
        ret = adv + b_val
        X, A, LP, ADV, RET = (x.reshape(T * N, *x.shape[2:]) for x in (b_obs, b_act, b_logp, adv, ret))
        ADV = (ADV - ADV.mean()) / (ADV.std() + 1e-8)
        idx = np.arange(T * N)
        for _ in range(epochs):
            rng.shuffle(idx)
            for mb in np.array_split(idx, minibatches):
                logits, acts = pi.forward(X[mb])
                p = softmax(logits)
                logp = np.log(p[np.arange(len(mb)), A[mb]] + 1e-8)
                ratio = np.exp(logp - LP[mb])
                adv_mb = ADV[mb]
                unclipped = ratio * adv_mb
                clipped = np.clip(ratio, 1 - clip, 1 + clip) * adv_mb
                use = (unclipped <= clipped).astype(np.float32)  # gradient flows where unclipped is the min
                dlogp = -(use * ratio * adv_mb) / len(mb)
                onehot = np.zeros_like(p)
                onehot[np.arange(len(mb)), A[mb]] = 1.0
                g_logits = dlogp[:, None] * (onehot - p)
                ent_coef = 0.01
                logp_all = np.log(p + 1e-8)
                ent = -(p * logp_all).sum(1)
                g_logits += ent_coef * p * (logp_all + ent[:, None]) / len(mb)
                pi.adam(pi.backward(acts, g_logits.astype(np.float32)), lr)
                v, vacts = vf.forward(X[mb])
                g_v = (v[:, 0] - RET[mb])[:, None] / len(mb)
                vf.adam(vf.backward(vacts, g_v.astype(np.float32)), lr)
        mean_ret = float(np.mean(finished)) if finished else float("nan")
        rows.append({"update": update + 1, "env_steps": total_steps, "episodes": len(finished),
                     "mean_return": mean_ret, "shaped_coef": shaped_coef, "seconds": time.time() - start})
        print(f"update {update + 1:4d}  steps {total_steps:9d}  episodes {len(finished):4d}  "
              f"mean return {mean_ret:7.1f}  ({time.time() - start:.0f} s)", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
