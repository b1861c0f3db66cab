"""A Gymnasium single-agent environment: the learner plays one seat, a partner policy
(any built-in partner, the ProAgent agent, or a Python callable) plays the other."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import Env, Policy
from . import partner as _make_partner

__all__ = ["OvercookedGymEnv"]


class OvercookedGymEnv(gymnasium.Env):
    """Overcooked for one learner.

    Parameters: ``layout`` (name or file), ``partner`` (a partner kind such as ``"greedy"``,
    a :class:`proagent.Policy` for the other seat, or a callable ``f(state, seat)``),
    ``seat`` (the learner's player index), ``horizon``, ``obs`` (``"lossless"``: float32
    (width, height, channels); ``"features"``: the 62 BC features), ``shaped_coef``
    (reward = sparse team reward + shaped_coef × the learner's shaped reward).

    The episode ends by truncation at the horizon (``terminated`` is always False).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        layout: str = "cramped_room",
        partner: Union[str, Policy, Callable[[Dict[str, Any], int], Any]] = "greedy",
        seat: int = 0,
        horizon: int = 400,
        obs: str = "lossless",
        shaped_coef: float = 0.0,
        partner_seed: int = 0,
        render_mode: Optional[str] = None,
    ) -> None:
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat}")
        if obs not in ("lossless", "features"):
            raise ValueError(f'obs must be "lossless" or "features", got {obs!r}')
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self._env = Env(layout, horizon)
        self.seat = seat
        self.obs_kind = obs
        self.shaped_coef = float(shaped_coef)
        self.render_mode = render_mode
        self._partner_seed = partner_seed
        if isinstance(partner, str):
            self.partner = _make_partner(partner, seat=1 - seat, seed=partner_seed, layout=self._env, horizon=horizon)
        else:
            if isinstance(partner, Policy) and partner.seat != 1 - seat:
                raise ValueError(f"the partner policy plays seat {partner.seat}; the learner has seat {seat}")
            self.partner = partner
        if obs == "lossless":
            self.observation_space = spaces.Box(0.0, float(max(horizon, 3)), shape=self._env.lossless_shape, dtype=np.float32)
        else:
            self.observation_space = spaces.Box(-float(max(self._env.width, self._env.height)), float(max(self._env.width, self._env.height)), shape=(62,), dtype=np.float32)
        self.action_space = spaces.Discrete(6)

    @property
    def env(self) -> Env:
        """The underlying :class:`proagent.Env`."""
        return self._env

    def _obs(self) -> np.ndarray:
        if self.obs_kind == "lossless":
            return self._env.lossless(self.seat)
        return self._env.features(self.seat)

    def _partner_action(self) -> int:
        p = self.partner
        if isinstance(p, Policy):
            return p.act(self._env)
        act = getattr(p, "act", None)
        f = act if (act is not None and not callable(p)) else p
        return f(self._env.state, 1 - self.seat)

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        self._env.reset()
        if isinstance(self.partner, Policy):
            self.partner.reset(self._partner_seed if seed is None else seed)
        return self._obs(), {}

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        other = self._partner_action()
        joint = (int(action), other) if self.seat == 0 else (other, int(action))
        _, reward, done, info = self._env.step(joint)
        shaped = info["shaped_r_by_agent"][self.seat]
        r = float(reward) + self.shaped_coef * float(shaped)
        info["partner_action"] = other
        return self._obs(), r, False, bool(done), info

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            return self._env.render()
        return None
