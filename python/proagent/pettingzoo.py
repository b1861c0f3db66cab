"""PettingZoo environments of every game: every player learns. ``parallel_env(game=...)``
gives a ``ParallelEnv`` (all players act each step; for the games whose players act at
once: the Overcookeds, CollabCapture, CollabEscape), ``env(game=...)`` the AEC version
(players act in turn within a step; the joint action is applied when the last one has
acted; every game, Hanabi included). Both default to the same game (``cramped_room``) and
take the options of the game family's class: :class:`OvercookedParallelEnv` for the
Overcookeds, :class:`proagent.games.GameAECEnv` / :class:`proagent.games.MazeParallelEnv`
for the others (``players`` / ``scenario`` pick a Hanabi table or a maze scenario).

Conventions over every game: an action is an integer (a float, a bool or ``None``
raises), and the environments pickle and deep-copy at any point of an episode.

Agents are ``player_0``, ``player_1``, ... (``style="jaxmarl"``: ``agent_0``, ``agent_1``,
with ``(height, width, C)`` grids). ``state()`` is a full-information encoding of the
kitchen for centralised critics (``state_space``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import conversions, wrappers

from . import VecEnv
from .gym import _action_index, is_overcooked, observation_space

__all__ = ["DEFAULT_GAME", "OvercookedParallelEnv", "env", "parallel_env", "raw_env"]


class OvercookedParallelEnv(ParallelEnv):
    """Overcooked (classic, or ``"v2:NAME"``) with every player a learner.

    ``obs`` is any observation kind of the game (classic ``"lossless"``,
    ``"overcooked_ai"``, ``"features"``, ``"featurize"``; V2 ``"grid"``); ``order``
    ``"whc"``/``"hwc"``. Each agent's reward is the team reward plus ``shaped_coef`` × its
    own shaped reward. Episodes end by truncation after ``max_cycles`` steps (the
    horizon; ``horizon`` is its other name). ``reset(seed=s)`` plays the episode of seed
    ``s`` (V2 recipes and random starts); ``reset()`` draws the next seed from the
    environment's generator.
    """

    metadata = {
        "name": "proagent_overcooked_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "render_fps": 8,
        "is_parallelizable": True,
    }

    def __init__(
        self,
        game: str = "cramped_room",
        horizon: Optional[int] = None,
        obs: Optional[str] = None,
        shaped_coef: float = 0.0,
        render_mode: Optional[str] = None,
        max_cycles: Optional[int] = None,
        order: Optional[str] = None,
        style: Optional[str] = None,
        layout: Optional[str] = None,
        **v2: Any,
    ) -> None:
        layout = game if layout is None else layout
        self.game = layout
        if render_mode not in (None, "human", "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}")
        if style not in (None, "jaxmarl"):
            raise ValueError(f"style must be None or 'jaxmarl', got {style!r}")
        if horizon is not None and max_cycles is not None and horizon != max_cycles:
            raise ValueError(f"horizon ({horizon}) and max_cycles ({max_cycles}) name the same limit")
        horizon = max_cycles if max_cycles is not None else (400 if horizon is None else horizon)
        if style == "jaxmarl" and order is None:
            order = "hwc"
        self._vec = VecEnv(layout, 1, horizon=horizon, obs=obs, order=order, autoreset=False, **v2)
        self.horizon = horizon
        self.max_cycles = horizon
        self.shaped_coef = float(shaped_coef)
        self.render_mode = render_mode
        prefix = "agent" if style == "jaxmarl" else "player"
        self.possible_agents = [f"{prefix}_{i}" for i in range(self._vec.num_players)]
        self.agents: List[str] = []
        box = observation_space(self._vec, horizon)
        self._obs_spaces = {a: box for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(6) for a in self.possible_agents}
        self.state_space = spaces.Box(-64.0, float(max(horizon, 255)), shape=tuple(self._vec.state_shape), dtype=np.float32)
        self._rng = np.random.default_rng()
        self._episode_seed: Optional[int] = None

    @property
    def vec(self) -> VecEnv:
        """The underlying one-environment :class:`proagent.VecEnv`."""
        return self._vec

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def _observations(self, o: np.ndarray) -> Dict[str, np.ndarray]:
        return {a: o[0][i] for i, a in enumerate(self.possible_agents)}

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Dict[str, Any]]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            episode = int(seed)
        else:
            episode = int(self._rng.integers(0, 2**63 - 1))
        self._episode_seed = episode
        o = self._vec.reset(seed=episode)
        self.agents = list(self.possible_agents)
        return self._observations(o), {a: {"episode_seed": episode} for a in self.agents}

    def step(self, actions: Dict[str, Any]):
        if not self.agents:
            raise ValueError("the episode is over; call reset()")
        joint = [_action_index(actions.get(a, 4)) for a in self.possible_agents]
        o, reward, terminated, truncated, info = self._vec.step(np.array([joint], dtype=np.int64))
        shaped = info["shaped_r_by_agent"][0]
        sparse = info["sparse_r_by_agent"][0]
        rewards = {a: float(reward[0]) + self.shaped_coef * float(shaped[i]) for i, a in enumerate(self.possible_agents)}
        terms = {a: bool(terminated[0]) for a in self.possible_agents}
        truncs = {a: bool(truncated[0]) for a in self.possible_agents}
        infos = {
            a: {"sparse_r": float(sparse[i]), "shaped_r": float(shaped[i]), "score": float(info["score"][0])}
            for i, a in enumerate(self.possible_agents)
        }
        obs = self._observations(o)
        if terminated[0] or truncated[0]:
            self.agents = []
        if self.render_mode == "human":
            print(self._vec.render(0))
        return obs, rewards, terms, truncs, infos

    def state(self) -> np.ndarray:
        """The full-information state (classic: player 0's lossless grid; V2: the whole
        kitchen's tensor, whatever the view radius)."""
        return self._vec.global_state()[0]

    def render(self) -> Any:
        if self.render_mode in ("ansi", "human"):
            text = self._vec.render(0)
            if self.render_mode == "human":
                print(text)
                return None
            return text
        if self.render_mode == "rgb_array":
            return self._vec.rgb(0)
        return None

    def close(self) -> None:
        pass


def _game(kwargs: Dict[str, Any]) -> str:
    """The game a constructor's keywords name (``game`` or ``layout``, with ``players`` /
    ``scenario``), as a full spec for the catalog."""
    from .games import game_spec

    game = kwargs.get("game", kwargs.get("layout", DEFAULT_GAME))
    if not isinstance(game, str):
        raise TypeError(f"game must be a spec string, got {type(game).__name__}")
    return game_spec(game, kwargs.get("players"), kwargs.get("scenario"))


#: The game :func:`env` and :func:`parallel_env` play when none is named.
DEFAULT_GAME = "cramped_room"


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """PettingZoo's conventional constructor of the parallel environment of any game whose
    players act at once: ``parallel_env(game="cramped_room")``,
    ``parallel_env(game="escape", scenario=1)``."""
    game = _game(kwargs)
    if is_overcooked(game):
        return OvercookedParallelEnv(**kwargs)
    from .games import MazeParallelEnv

    kwargs = dict(kwargs, game=game)
    for k in ("layout", "players", "scenario"):
        kwargs.pop(k, None)
    return MazeParallelEnv(**kwargs)


def raw_env(**kwargs: Any) -> AECEnv:
    """The AEC environment of any game, without PettingZoo's wrappers."""
    game = _game(kwargs)
    if is_overcooked(game):
        return conversions.parallel_to_aec(OvercookedParallelEnv(**kwargs))
    from .games import GameAECEnv

    kwargs = dict(kwargs, game=game)
    for k in ("layout", "players", "scenario"):
        kwargs.pop(k, None)
    return GameAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """PettingZoo's conventional AEC constructor over every game (with its order-enforcing
    wrapper): ``env(game="cramped_room")``, ``env(game="hanabi", players=3)``."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
