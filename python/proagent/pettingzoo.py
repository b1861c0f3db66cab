"""PettingZoo environments of every game: every player learns. One family over the game
catalog, on the core every wrapper shares (:mod:`proagent._core`):

- :class:`GameParallelEnv` - ``parallel_env(game=...)``: all players act each step (for
  the games whose players act at once: the Overcookeds, CollabCapture, CollabEscape, ...;
  a turn-based game such as Hanabi raises ``ValueError`` and points to :func:`env`).
- :class:`GameAECEnv` - ``env(game=...)`` (with PettingZoo's order-enforcing wrapper) /
  ``raw_env(game=...)``: players act in turn (within a step in the simultaneous games; the
  joint action is applied when the last one has acted); every game, Hanabi included.

Both default to the same game (``cramped_room``, :data:`DEFAULT_GAME`), take the same
options and give the same agents, spaces and observations: ``game`` (a spec, or a family
name with ``players`` / ``scenario``; ``layout`` is its other name), ``max_cycles`` (most
joint steps per episode; default: the game's limit; on the Overcookeds ``horizon`` is its
other name, default 400), ``render_mode`` (``"human"``, ``"ansi"``, ``"rgb_array"``), and
on the Overcookeds ``obs``, ``order``, ``style``, ``shaped_coef`` and the OvercookedV2
settings (other games refuse them). ``OvercookedParallelEnv`` and ``MazeParallelEnv`` are
older names of :class:`GameParallelEnv`.

Conventions over every game: an action is an integer (a float, a bool or ``None``
raises), the environments pickle and deep-copy at any point of an episode, and
``reset(seed=s)`` plays episode ``s`` while ``reset()`` draws the next seed from the
environment's generator.

Observations: on the Overcookeds the player's encoding (a float32 Box); on the other games
``{"observation": float32 vector, "action_mask": int8 vector}`` (Hanabi's vector is HLE's
canonical encoding and its action indices are HLE's move uids; a maze game's actions are
``0`` stay/wait, ``1`` press the button / fix the generator, ``1 + r`` move to room
``r``). Every agent gets the team reward of each applied step (plus ``shaped_coef`` × its
own shaped reward on the Overcookeds).

Agents are ``player_0``, ``player_1``, ... (``style="jaxmarl"``: ``agent_0``, ``agent_1``,
with ``(height, width, C)`` grids). ``state()`` is the full-information state: on the
Overcookeds a tensor of the kitchen for centralised critics (``state_space``), elsewhere
the game's trajectory record (Hanabi: every hand).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from ._core import Backends, Core, Seeds, game_spec, make_core
from .gym import DEFAULT_GAME

__all__ = ["DEFAULT_GAME", "GameAECEnv", "GameParallelEnv", "MazeParallelEnv", "OvercookedParallelEnv", "env",
           "parallel_env", "raw_env"]

_RENDER_MODES = (None, "human", "ansi", "rgb_array")


class _Game(Backends):
    """What the AEC and the parallel environment share: the core, the agents, the spaces,
    seeds, rewards, infos and rendering."""

    metadata: Dict[str, Any] = {"name": "proagent_v0", "render_modes": ["human", "ansi", "rgb_array"],
                                "render_fps": 8, "is_parallelizable": True}

    def _setup(self, game: str, horizon: Optional[int], obs: Optional[str], shaped_coef: float,
               render_mode: Optional[str], max_cycles: Optional[int], order: Optional[str], style: Optional[str],
               layout: Optional[str], players: Optional[int], scenario: Optional[int], options: Dict[str, Any]) -> None:
        spec = game_spec(game if layout is None else layout, players, scenario)
        self.game = spec
        if render_mode not in _RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}")
        if style not in (None, "jaxmarl"):
            raise ValueError(f"style must be None or 'jaxmarl', got {style!r}")
        if style == "jaxmarl" and order is None:
            order = "hwc"
        from ._core import is_overcooked

        if is_overcooked(spec):
            if horizon is not None and max_cycles is not None and horizon != max_cycles:
                raise ValueError(f"horizon ({horizon}) and max_cycles ({max_cycles}) name the same limit")
            horizon = max_cycles if max_cycles is not None else horizon
        self.core: Core = make_core(spec, horizon=horizon, obs=obs, order=order, options=options)
        self.max_cycles = int(max_cycles) if max_cycles is not None else self.core.limit
        if self.max_cycles < 1:
            raise ValueError(f"max_cycles must be ≥ 1, got {max_cycles}")
        self.horizon = self.core.limit
        self.shaped_coef = float(shaped_coef)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, is_parallelizable=not self.core.turn_based,
                             render_fps=8 if not self.core.has_mask else 2)
        prefix = "agent" if style == "jaxmarl" else "player"
        self.possible_agents = [f"{prefix}_{i}" for i in range(self.core.num_players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        box = self.core.obs_space
        if self.core.has_mask:
            obs_space: spaces.Space = spaces.Dict({
                "observation": box,
                "action_mask": spaces.Box(0, 1, shape=(self.core.num_actions,), dtype=np.int8),
            })
        else:
            obs_space = box
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.core.num_actions) for a in self.possible_agents}
        state_space = self.core.state_space()
        if state_space is not None:
            self.state_space = state_space
        self._seeds = Seeds()
        self._cycles = 0
        self._episode_seed: Optional[int] = None
        self.agents: List[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _observe(self, p: int, to_move: bool = True) -> Any:
        o = self.core.observe(p)
        if not self.core.has_mask:
            return o
        mask = self.core.action_mask(p)
        return {"observation": o, "action_mask": mask if to_move else np.zeros_like(mask)}

    def _begin(self, seed: Optional[int]) -> int:
        self._episode_seed = self._seeds.next(seed)
        self.core.reset(self._episode_seed)
        self.agents = list(self.possible_agents)
        self._cycles = 0
        return self._episode_seed

    def _apply(self, joint: List[Optional[int]]) -> Tuple[Dict[str, float], bool, bool, Dict[str, Dict[str, Any]]]:
        reward, shaped, terminated, truncated, extra = self.core.step(joint)
        self._cycles += 1
        truncated = truncated or (not terminated and self._cycles >= self.max_cycles)
        rewards = {a: reward + self.shaped_coef * shaped[i] for i, a in enumerate(self.possible_agents)}
        score = self.core.score()
        infos: Dict[str, Dict[str, Any]] = {}
        for i, a in enumerate(self.possible_agents):
            info: Dict[str, Any] = {"score": score}
            if "refused" in extra:
                info["refused"] = i in extra["refused"]
            if "sparse_r_by_agent" in extra:
                info["sparse_r"] = extra["sparse_r_by_agent"][i]
                info["shaped_r"] = extra["shaped_r_by_agent"][i]
            infos[a] = info
        return rewards, bool(terminated), bool(truncated), infos

    def state(self) -> Any:
        """The full-information state (the Overcookeds: classic player 0's lossless grid,
        V2 the whole kitchen's tensor whatever the view radius; other games: the
        trajectory record)."""
        return self.core.global_state()

    def render(self) -> Any:
        if self.render_mode in ("ansi", "human"):
            text = self.core.render()
            if self.render_mode == "human":
                print(text)
                return None
            return text
        if self.render_mode == "rgb_array":
            return self.core.rgb()
        return None

    def close(self) -> None:
        pass


class GameParallelEnv(_Game, ParallelEnv):
    """Any game whose players act at once, with every player a learner (PettingZoo
    parallel; options in the module doc). A player missing from the actions stays put."""

    def __init__(self, game: str = DEFAULT_GAME, horizon: Optional[int] = None, obs: Optional[str] = None,
                 shaped_coef: float = 0.0, render_mode: Optional[str] = None, max_cycles: Optional[int] = None,
                 order: Optional[str] = None, style: Optional[str] = None, layout: Optional[str] = None,
                 players: Optional[int] = None, scenario: Optional[int] = None, **options: Any) -> None:
        self._setup(game, horizon, obs, shaped_coef, render_mode, max_cycles, order, style, layout, players, scenario,
                    options)
        if self.core.turn_based:
            raise ValueError(f"{self.game} is turn-based: use the AEC env()")

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        episode = self._begin(seed)
        return ({a: self._observe(i) for i, a in enumerate(self.possible_agents)},
                {a: {"episode_seed": episode} for a in self.agents})

    def step(self, actions: Dict[str, Any]):
        if not self.agents:
            raise ValueError("the episode is over; call reset()")
        joint: List[Optional[int]] = [self.core.action(actions[a]) if a in actions else self.core.noop
                                      for a in self.possible_agents]
        rewards, terminated, truncated, infos = self._apply(joint)
        obs = {a: self._observe(i) for i, a in enumerate(self.possible_agents)}
        terms = {a: terminated for a in self.possible_agents}
        truncs = {a: truncated for a in self.possible_agents}
        if terminated or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos


class GameAECEnv(_Game, AECEnv):
    """Any game with every player a learner, acting in turn (PettingZoo AEC; options in the
    module doc). In a turn-based game only the player to move acts; in the others players
    act in turn within a step and the joint action is applied when the last one has acted.
    An illegal action is the game's business: Hanabi refuses it (nothing changes, the same
    player moves again; ``infos[agent]["refused"]`` is True); in a maze the player stays
    put. A player waiting for its turn sees an all-zero action mask."""

    def __init__(self, game: str = DEFAULT_GAME, horizon: Optional[int] = None, obs: Optional[str] = None,
                 shaped_coef: float = 0.0, render_mode: Optional[str] = None, max_cycles: Optional[int] = None,
                 order: Optional[str] = None, style: Optional[str] = None, layout: Optional[str] = None,
                 players: Optional[int] = None, scenario: Optional[int] = None, **options: Any) -> None:
        AECEnv.__init__(self)
        self._setup(game, horizon, obs, shaped_coef, render_mode, max_cycles, order, style, layout, players, scenario,
                    options)
        self._pending: List[int] = []
        self._joint: List[Optional[int]] = []

    def observe(self, agent: str) -> Any:
        p = self._index[agent]
        return self._observe(p, not self._pending or self._pending[0] == p)

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        episode = self._begin(seed)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"episode_seed": episode} for a in self.agents}
        self._start_round()

    def _start_round(self) -> None:
        self._pending = list(self.core.movers())
        self._joint = [None] * self.core.num_players
        if self._pending:
            self.agent_selection = self.possible_agents[self._pending[0]]
        else:
            self.agent_selection = self.agents[0] if self.agents else self.possible_agents[0]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        p = self._index[agent]
        self._cumulative_rewards[agent] = 0.0
        self._joint[p] = self.core.action(action)
        self._pending.pop(0)
        if self._pending:
            self.agent_selection = self.possible_agents[self._pending[0]]
            self._clear_rewards()
            return
        rewards, terminated, truncated, infos = self._apply(self._joint)
        for a in self.agents:
            self.rewards[a] = rewards[a]
            self.infos[a] = infos[a]
            self.terminations[a] = terminated
            self.truncations[a] = truncated
        self._accumulate_rewards()
        if terminated or truncated:
            self._pending = []
            self.agent_selection = self.agents[0]
        else:
            self._start_round()
        if self.render_mode == "human":
            self.render()


#: Older names of :class:`GameParallelEnv` (the Overcookeds' and the mazes' parallel
#: environments before there was one class).
OvercookedParallelEnv = GameParallelEnv
MazeParallelEnv = GameParallelEnv


def parallel_env(**kwargs: Any) -> GameParallelEnv:
    """PettingZoo's conventional constructor of the parallel environment of any game whose
    players act at once: ``parallel_env(game="cramped_room")``,
    ``parallel_env(game="escape", scenario=1)``."""
    return GameParallelEnv(**kwargs)


def raw_env(**kwargs: Any) -> GameAECEnv:
    """The AEC environment of any game, without PettingZoo's wrappers."""
    return GameAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """PettingZoo's conventional AEC constructor over every game (with its order-enforcing
    wrapper): ``env(game="cramped_room")``, ``env(game="hanabi", players=3)``."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
