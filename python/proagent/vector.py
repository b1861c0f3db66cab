"""A Gymnasium ``VectorEnv`` over :class:`proagent.VecEnv`: one learner per environment,
a built-in partner (``greedy``, ``bc``, ``sp``, ... or V2's ``scripted``) in every other
seat, all stepped in Rust in one call.

Auto-reset follows Gymnasium 1.x's ``AutoresetMode.SAME_STEP``: the step that ends an
episode returns the *next* episode's first observation, with the finished episode's last
observation in ``infos["final_obs"]`` (an object array, ``None`` where no episode ended)
and the mask ``infos["_final_obs"]``. ``terminated`` and ``truncated`` are separate
(Overcooked only truncates, at the horizon), so a learner bootstraps from
``final_obs`` where ``truncated`` and never where ``terminated``.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from . import VecEnv
from .gym import observation_space

__all__ = ["OvercookedVectorEnv"]

try:  # Gymnasium >= 1.1
    from gymnasium.vector import AutoresetMode

    _SAME_STEP: Any = AutoresetMode.SAME_STEP
except ImportError:  # pragma: no cover - older Gymnasium
    _SAME_STEP = "SameStep"


class OvercookedVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` copies of one layout for one learner seat (see the module doc).

    ``reset(seed=s)`` seeds environment i with ``s + i`` (Gymnasium's convention); each
    environment's episode with seed ``e`` is the episode ``proagent play --seed e`` plays,
    and auto-reset episodes take new seeds derived from it, so sub-environments and
    successive episodes all get different partner streams. ``reset()`` without a seed
    goes on to every environment's next episode.
    """

    metadata = {"autoreset_mode": _SAME_STEP, "render_modes": ["ansi", "rgb_array"], "render_fps": 8}

    def __init__(
        self,
        layout: str = "cramped_room",
        num_envs: int = 8,
        partner: str = "greedy",
        seat: int = 0,
        horizon: int = 400,
        obs: Optional[str] = None,
        shaped_coef: float = 0.0,
        threads: int = 1,
        order: Optional[str] = None,
        render_mode: Optional[str] = None,
        **v2: Any,
    ) -> None:
        if not isinstance(partner, str):
            raise TypeError("partner must be a built-in partner spec (it plays inside Rust)")
        self.vec = VecEnv(layout, num_envs, horizon=horizon, obs=obs, threads=threads, partner=partner, seat=seat,
                          order=order, autoreset=True, **v2)
        self.num_envs = self.vec.num_envs
        self.seat = seat
        self.shaped_coef = float(shaped_coef)
        self.render_mode = render_mode
        self.single_observation_space = observation_space(self.vec, horizon)
        self.single_action_space = spaces.Discrete(6)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(
        self, *, seed: Optional[Union[int, Sequence[int]]] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        if seed is not None and not isinstance(seed, (int, np.integer)):
            seeds = list(seed)
            if len(seeds) != self.num_envs or any(s != seeds[0] + i for i, s in enumerate(seeds)):
                raise ValueError("seed must be an int (environment i gets seed + i) or that list")
            seed = seeds[0]
        obs = self.vec.reset(seed=seed)
        return obs, {"episode_seed": np.array(self.vec.episode_seeds(), dtype=np.uint64)}

    def step(self, actions: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.vec.step(actions)
        r = reward + self.shaped_coef * info["shaped_r_by_agent"][:, self.seat]
        infos: Dict[str, Any] = {
            "sparse_r_by_agent": info["sparse_r_by_agent"],
            "shaped_r_by_agent": info["shaped_r_by_agent"],
            "joint_actions": info["joint_actions"],
            "score": info["score"],
        }
        if "final_obs" in info:
            mask = info["_final_obs"]
            fin = np.empty(self.num_envs, dtype=object)
            for i in range(self.num_envs):
                fin[i] = info["final_obs"][i] if mask[i] else None
            infos["final_obs"] = fin
            infos["_final_obs"] = mask
        return obs, r.astype(np.float32), terminated, truncated, infos

    def render(self) -> Any:
        if self.render_mode == "ansi":
            return tuple(self.vec.render(i) for i in range(self.num_envs))
        if self.render_mode == "rgb_array":
            return tuple(self.vec.rgb(i) for i in range(self.num_envs))
        return None

    def close_extras(self, **kwargs: Any) -> None:
        pass
