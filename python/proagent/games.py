"""PettingZoo and Gymnasium environments of every game of the catalog but the
Overcookeds: Hanabi (2–5 players), CollabCapture (scenarios 1–4), CollabEscape
(scenarios 1–2), the lever game and any game the catalog gains, on the game crates' rules
and the built-in rule-based seats (no LLM anywhere).

- :class:`GameAECEnv` - PettingZoo AEC environment of any of the three games (Hanabi is
  turn-based: only the player to move acts; in the maze games players act in turn within
  a round and the joint action is applied when the last one has acted).
- :class:`MazeParallelEnv` - PettingZoo parallel environment of a maze game.
- :class:`GameGymEnv` - Gymnasium environment: one learner seat, the others played by a
  built-in seat inside Rust (``proagent/Hanabi-2p-v0``, ``proagent/CollabCapture-1-v0``,
  ``proagent/CollabEscape-1-v0``, ...).

These are the families' classes; the entry points over every game are
:class:`proagent.gym.GymEnv` and :func:`proagent.pettingzoo.env` /
:func:`proagent.pettingzoo.parallel_env` (:func:`env` and :func:`parallel_env` here are
the same functions, so both default to the same game).

Observations are dicts ``{"observation": float32 vector, "action_mask": int8 vector}``
(PettingZoo's convention; the Gymnasium env puts the mask in ``info["action_mask"]``).
Hanabi's vector is HLE's canonical encoding and its action indices are HLE's move uids; a
maze game's actions are ``0`` stay/wait, ``1`` press the button / fix the generator,
``1 + r`` move to room ``r``. Seeds: ``reset(seed=s)`` deals the deck / draws the killer's
wanders and seeds the partners from ``s`` as ``play_episode`` does; the same seed gives
the same episode.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from ._native import GameEnv, catalog_games, game_info

__all__ = ["GameAECEnv", "GameGymEnv", "MazeParallelEnv", "env", "parallel_env", "raw_env", "game_spec"]


def _family(game: str) -> Optional[Dict[str, Any]]:
    """The catalog entry a family name names: its ``kind`` (``collab_capture``) or the
    name its specs start with (``capture``, ``hanabi``)."""
    for entry in catalog_games():
        short = {b.split(":", 1)[0] for b in entry["builtin"] if ":" in b}
        if game == entry["kind"] or game in short:
            return entry
    return None


def game_spec(game: str = "hanabi", players: Optional[int] = None, scenario: Optional[int] = None) -> str:
    """The spec of a game, from the game catalog: a family name (``"hanabi"``,
    ``"capture"``, ``"collab_escape"``) stands for its first built-in game, ``players=N``
    for its built-in game of N players, ``scenario=K`` for its K-th built-in game
    (``game_spec("hanabi", players=3)`` is ``"hanabi:3p"``, ``game_spec("capture",
    scenario=2)`` ``"capture:2"``); a full spec (or a layout or maze file path) passes
    through."""
    g = game.strip()
    entry = _family(g)
    if entry is None:
        if players is not None or scenario is not None:
            raise ValueError(f"players/scenario take a game family's name (such as 'hanabi' or 'capture'), not {game!r}")
        return g
    builtin: List[str] = entry["builtin"]
    if players is not None and scenario is not None:
        raise ValueError("give players or scenario, not both")
    if players is not None:
        n = int(players)
        for spec in builtin:
            info = game_info(spec)
            if info["num_players"] == n:
                return info["name"]
        raise ValueError(f"{g} has no built-in game of {n} players")
    if scenario is not None:
        k = int(scenario)
        if not 1 <= k <= len(builtin):
            raise ValueError(f"{g} has scenarios 1..{len(builtin)}, got {k}")
        return game_info(builtin[k - 1])["name"]
    return game_info(builtin[0])["name"]


def _spaces(native: GameEnv) -> Tuple[spaces.Dict, spaces.Discrete]:
    obs = spaces.Dict({
        "observation": spaces.Box(0.0, 1.0, shape=(native.obs_len,), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, shape=(native.num_actions,), dtype=np.int8),
    })
    return obs, spaces.Discrete(native.num_actions)


def _render(native: GameEnv, mode: Optional[str]) -> Any:
    if mode == "ansi":
        return native.render()
    if mode == "human":
        print(native.render())
        return None
    if mode == "rgb_array":
        return native.rgb()
    return None


class _Seeds:
    """Episode seeds: ``reset(seed=s)`` plays episode ``s`` and reseeds the generator that
    draws the seeds of later ``reset()`` calls."""

    def __init__(self) -> None:
        self._rng = np.random.default_rng()

    def next(self, seed: Optional[int]) -> int:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            return int(seed)
        return int(self._rng.integers(0, 2**63 - 1))


try:
    from pettingzoo import AECEnv, ParallelEnv
    from pettingzoo.utils import wrappers
except ImportError:  # pragma: no cover - pettingzoo is optional
    AECEnv = object  # type: ignore[assignment,misc]
    ParallelEnv = object  # type: ignore[assignment,misc]
    wrappers = None


class GameAECEnv(AECEnv):  # type: ignore[misc]
    """One of the three games with every player a learner (PettingZoo AEC).

    ``game``: a spec (``"hanabi:2p"`` … ``"hanabi:5p"``, ``"capture:1"`` … ``"capture:4"``,
    ``"escape:1"``, ``"escape:2"``, a maze file) or a family with ``players`` /
    ``scenario``. ``max_cycles``: most joint steps per episode, refused moves included
    (default: the game's own limit, 256 Hanabi moves or the maze's turns). An illegal
    action is the game's business: Hanabi refuses it (nothing changes, the same player
    moves again; ``infos[agent]["refused"]`` is True); in a maze the player stays put.
    Every agent gets the team reward of each applied step.
    """

    metadata = {"name": "proagent_games_v0", "render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2,
                "is_parallelizable": False}

    def __init__(self, game: str = "hanabi", players: Optional[int] = None, scenario: Optional[int] = None,
                 max_cycles: Optional[int] = None, render_mode: Optional[str] = None) -> None:
        super().__init__()
        if render_mode not in (None, "human", "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}")
        self.game = game_spec(game, players, scenario)
        self.native = GameEnv(self.game)
        self.render_mode = render_mode
        self.max_cycles = int(max_cycles) if max_cycles is not None else self.native.max_steps
        if self.max_cycles < 1:
            raise ValueError(f"max_cycles must be ≥ 1, got {max_cycles}")
        self.metadata = dict(self.metadata, is_parallelizable=not self.native.turn_based)
        self.possible_agents = [f"player_{i}" for i in range(self.native.num_players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs, act = _spaces(self.native)
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: act for a in self.possible_agents}
        self._seeds = _Seeds()
        self._pending: List[int] = []
        self._joint: List[Optional[int]] = []
        self._cycles = 0
        self.agents: List[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        p = self._index[agent]
        mask = self.native.action_mask(p)
        if self._pending and self._pending[0] != p:
            mask = np.zeros_like(mask)
        return {"observation": self.native.observe(p), "action_mask": mask}

    def state(self) -> Dict[str, Any]:
        """The whole state as the game's trajectory record (Hanabi: every hand)."""
        return self.native.state

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        episode = self._seeds.next(seed)
        self.native.reset(seed=episode)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"episode_seed": episode} for a in self.agents}
        self._cycles = 0
        self._start_round()

    def _start_round(self) -> None:
        self._pending = list(self.native.movers())
        self._joint = [None] * self.native.num_players
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
        self._joint[p] = int_action(action, self.native.num_actions)
        self._pending.pop(0)
        if self._pending:
            self.agent_selection = self.possible_agents[self._pending[0]]
            self._clear_rewards()
            return
        reward, terminated, truncated, info = self.native.act(self._joint)
        self._cycles += 1
        truncated = truncated or (not terminated and self._cycles >= self.max_cycles)
        for a in self.agents:
            self.rewards[a] = float(reward)
            self.infos[a] = {"refused": self._index[a] in info["refused"], "score": self.native.score}
            self.terminations[a] = bool(terminated)
            self.truncations[a] = bool(truncated)
        self._accumulate_rewards()
        if terminated or truncated:
            self._pending = []
            self.agent_selection = self.agents[0]
        else:
            self._start_round()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        return _render(self.native, self.render_mode)

    def close(self) -> None:
        pass


class MazeParallelEnv(ParallelEnv):  # type: ignore[misc]
    """CollabCapture or CollabEscape with both players learners, acting at once
    (PettingZoo parallel). Options as :class:`GameAECEnv`; observations carry the mask."""

    metadata = {"name": "proagent_mazes_v0", "render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2,
                "is_parallelizable": True}

    def __init__(self, game: str = "capture", scenario: Optional[int] = None, max_cycles: Optional[int] = None,
                 render_mode: Optional[str] = None) -> None:
        if render_mode not in (None, "human", "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}")
        self.game = game_spec(game, None, scenario)
        self.native = GameEnv(self.game)
        if self.native.turn_based:
            raise ValueError(f"{self.native.spec} is turn-based: use the AEC env()")
        self.render_mode = render_mode
        self.max_cycles = int(max_cycles) if max_cycles is not None else self.native.max_steps
        self.possible_agents = [f"player_{i}" for i in range(self.native.num_players)]
        obs, act = _spaces(self.native)
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: act for a in self.possible_agents}
        self._seeds = _Seeds()
        self._cycles = 0
        self.agents: List[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _obs(self) -> Dict[str, Dict[str, np.ndarray]]:
        return {a: {"observation": self.native.observe(i), "action_mask": self.native.action_mask(i)}
                for i, a in enumerate(self.possible_agents)}

    def state(self) -> Dict[str, Any]:
        return self.native.state

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        episode = self._seeds.next(seed)
        self.native.reset(seed=episode)
        self.agents = list(self.possible_agents)
        self._cycles = 0
        return self._obs(), {a: {"episode_seed": episode} for a in self.agents}

    def step(self, actions: Dict[str, Any]):
        if not self.agents:
            raise ValueError("the episode is over; call reset()")
        joint = [int_action(actions.get(a, 0), self.native.num_actions) for a in self.possible_agents]
        reward, terminated, truncated, info = self.native.act(joint)
        self._cycles += 1
        truncated = truncated or (not terminated and self._cycles >= self.max_cycles)
        obs = self._obs()
        rewards = {a: float(reward) for a in self.possible_agents}
        terms = {a: bool(terminated) for a in self.possible_agents}
        truncs = {a: bool(truncated) for a in self.possible_agents}
        infos = {a: {"refused": i in info["refused"], "score": self.native.score}
                 for i, a in enumerate(self.possible_agents)}
        if terminated or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos

    def render(self) -> Any:
        return _render(self.native, self.render_mode)

    def close(self) -> None:
        pass


def raw_env(**kwargs: Any) -> Any:
    """:func:`proagent.pettingzoo.raw_env`: the AEC environment of any game without
    PettingZoo's wrappers."""
    from .pettingzoo import raw_env as make

    return make(**kwargs)


def env(**kwargs: Any) -> Any:
    """:func:`proagent.pettingzoo.env`: PettingZoo's conventional AEC constructor, over
    every game: ``env(game="hanabi", players=3)``, ``env(game="capture", scenario=2)``."""
    from .pettingzoo import env as make

    return make(**kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """:func:`proagent.pettingzoo.parallel_env`: the parallel environment of any game whose
    players act at once: ``parallel_env(game="escape", scenario=1)``."""
    from .pettingzoo import parallel_env as make

    return make(**kwargs)


from .gym import GymEnv, int_action  # noqa: E402


class GameGymEnv(GymEnv):
    """One learner seat (``seat``) against built-in seats in every other (``partner``:
    Hanabi ``random``, ``simple`` (default), ``convention``; CollabCapture ``random``,
    ``chaser``, ``door_operator``, ``greedy_baseline`` (default); CollabEscape ``random``,
    ``runner``, ``fixer`` (default), ``greedy_baseline``), played inside Rust. The default
    is the game's own (``proagent.default_partner``).

    The observation is the learner's float32 vector; ``info["action_mask"]`` marks its
    legal actions. An illegal action is the game's business (Hanabi refuses it and asks
    again, ``info["refused"]``); ``max_cycles`` (default: the game's limit) bounds the
    learner's steps, so an episode always ends.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(self, game: str = "hanabi", players: Optional[int] = None, scenario: Optional[int] = None,
                 partner: Optional[str] = None, seat: int = 0, max_cycles: Optional[int] = None,
                 render_mode: Optional[str] = None) -> None:
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        spec = game_spec(game, players, scenario)
        probe = GameEnv(spec)
        n = probe.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= int(seat) < n:
            raise ValueError(f"seat must be an integer in 0..{n}, got {seat!r}")
        self.seat = int(seat)
        self.game = spec
        self.partner = partner if partner is not None else game_info(spec)["default_partner"]
        self.partner_spec = self.partner
        self.native = GameEnv(spec, partners={p: self.partner for p in range(n) if p != self.seat})
        self.render_mode = render_mode
        self.max_cycles = int(max_cycles) if max_cycles is not None else self.native.max_steps
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.native.obs_len,), dtype=np.float32)
        self.action_space = spaces.Discrete(self.native.num_actions)
        self._seeds = _Seeds()
        self._cycles = 0

    def _info(self, extra: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        info = {"action_mask": self.native.action_mask(self.seat), "score": self.native.score,
                "episode_seed": self.native.seed}
        if extra:
            info.update(extra)
        return info

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        super().reset(seed=seed)
        self.native.reset(seed=self._seeds.next(seed))
        self._cycles = 0
        return self.native.observe(self.seat), self._info()

    def step(self, action: Any):
        if not self.native.movers():
            raise ValueError("the episode is over; call reset()")
        joint: List[Optional[int]] = [None] * self.native.num_players
        joint[self.seat] = int_action(action, self.native.num_actions)
        reward, terminated, truncated, info = self.native.act(joint)
        self._cycles += 1
        truncated = truncated or (not terminated and self._cycles >= self.max_cycles)
        extra = {"refused": self.seat in info["refused"], "partner_moves": info["partner_moves"]}
        return self.native.observe(self.seat), float(reward), bool(terminated), bool(truncated), self._info(extra)

    def render(self) -> Any:
        return _render(self.native, self.render_mode)
