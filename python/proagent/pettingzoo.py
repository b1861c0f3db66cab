"""A PettingZoo ``ParallelEnv``: both players act each step (agents ``player_0``, ``player_1``)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from . import Env

__all__ = ["OvercookedParallelEnv", "parallel_env"]

AGENTS = ["player_0", "player_1"]


class OvercookedParallelEnv(ParallelEnv):
    """Overcooked with two learners. ``obs`` is ``"lossless"`` (float32 (width, height,
    channels) from each player's point of view) or ``"features"`` (the 62 BC features).
    Each agent's reward is the sparse team reward plus ``shaped_coef`` × its own shaped
    reward. Episodes end by truncation at the horizon."""

    metadata = {"name": "proagent_overcooked_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(
        self,
        layout: str = "cramped_room",
        horizon: int = 400,
        obs: str = "lossless",
        shaped_coef: float = 0.0,
        render_mode: Optional[str] = None,
    ) -> None:
        if obs not in ("lossless", "features"):
            raise ValueError(f'obs must be "lossless" or "features", got {obs!r}')
        self._env = Env(layout, horizon)
        self.obs_kind = obs
        self.shaped_coef = float(shaped_coef)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        if obs == "lossless":
            box = spaces.Box(0.0, float(max(horizon, 3)), shape=self._env.lossless_shape, dtype=np.float32)
        else:
            box = spaces.Box(-float(max(self._env.width, self._env.height)), float(max(self._env.width, self._env.height)), shape=(62,), dtype=np.float32)
        self._obs_spaces = {a: box for a in AGENTS}
        self._act_spaces = {a: spaces.Discrete(6) for a in AGENTS}

    @property
    def env(self) -> Env:
        """The underlying :class:`proagent.Env`."""
        return self._env

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def _observations(self) -> Dict[str, np.ndarray]:
        o = self._env.lossless() if self.obs_kind == "lossless" else self._env.features()
        return {a: o[i] for i, a in enumerate(AGENTS)}

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Dict[str, Any]]]:
        self._env.reset(seed)
        self.agents = list(AGENTS)
        return self._observations(), {a: {} for a in AGENTS}

    def step(self, actions: Dict[str, Any]):
        joint = (int(actions[AGENTS[0]]), int(actions[AGENTS[1]]))
        _, reward, done, info = self._env.step(joint)
        obs = self._observations()
        rewards = {a: float(reward) + self.shaped_coef * float(info["shaped_r_by_agent"][i]) for i, a in enumerate(AGENTS)}
        terminations = {a: False for a in AGENTS}
        truncations = {a: bool(done) for a in AGENTS}
        infos = {a: {"sparse_r_by_agent": info["sparse_r_by_agent"], "shaped_r_by_agent": info["shaped_r_by_agent"]} for a in AGENTS}
        if done:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            return self._env.render()
        return None

    def close(self) -> None:
        pass


def parallel_env(**kwargs: Any) -> OvercookedParallelEnv:
    """PettingZoo's conventional constructor."""
    return OvercookedParallelEnv(**kwargs)
