"""The core under the Gymnasium and PettingZoo wrappers: one episode of any catalog game
with one convention, whatever simulator steps it.

:func:`make_core` picks the stepping engine from the game catalog: the Overcookeds run on
a one-environment :class:`proagent.VecEnv` (their observation kinds, which match
overcooked-ai 1.1.0 and JaxMARL exactly, and their shaped rewards), every other game on
:class:`proagent.Env`. Both cores answer the same calls (``reset``, ``movers``,
``observe``, ``action_mask``, ``step`` of a joint action, ``action``, ``render``, ``rgb``,
``state``), so :class:`proagent.gym.GymEnv`, :class:`proagent.pettingzoo.AECEnv` and
:class:`proagent.pettingzoo.ParallelEnv` are each written once. Cores pickle and
deep-copy at any point of an episode.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from gymnasium import spaces

from . import ACTIONS, Env, VecEnv, game_info

#: What :meth:`Core.step` returns: the team reward, each player's shaped reward, whether
#: the episode terminated, whether it was truncated, and the game's step information.
StepResult = Tuple[float, List[float], bool, bool, Dict[str, Any]]


def is_overcooked(game: str) -> bool:
    """Whether the game catalog files ``game`` under one of the two Overcooked families
    (the games :class:`proagent.VecEnv` steps)."""
    return game_info(game)["kind"] in ("overcooked", "overcooked_v2")


def observation_space(vec: VecEnv, horizon: int) -> spaces.Box:
    """The Box of one player's observation of ``vec`` (bounds cover every value the
    encoding can take on its layout)."""
    shape = tuple(vec.single_observation_shape)
    kind = vec.obs_kind
    if kind in ("features", "featurize"):
        lo, hi = -64.0, 64.0
    elif kind == "grid":
        lo, hi = -1.0, float(max(horizon, 255))
    else:
        lo, hi = -64.0, float(max(horizon, 64))
    return spaces.Box(lo, hi, shape=shape, dtype=np.float32)


def int_action(a: Any, n: int) -> int:
    """An action index of a game with ``n`` actions: an int (numpy ints and 0-d integer
    arrays too) in ``0..n``. Floats, bools, ``None`` and other types raise ``TypeError``
    (nothing is truncated), an index out of range ``ValueError``."""
    if isinstance(a, np.ndarray) and a.shape == () and a.dtype.kind in "iu":
        a = a.item()
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise TypeError(f"an action is an int 0..{n - 1}, got {type(a).__name__} {a!r}")
    i = int(a)
    if not 0 <= i < n:
        raise ValueError(f"action {i} is not in 0..{n - 1}")
    return i


def overcooked_action(a: Any) -> int:
    """An Overcooked action: an int 0..6 (numpy ints too), a name (``"north"``, ``"N"``)
    or overcooked_ai's ``(dx, dy)`` tuple. Floats, NaN, bools and ``None`` raise
    ``TypeError``."""
    if isinstance(a, str):
        s = a.strip()
        names = {n: i for i, n in enumerate(ACTIONS)}
        if s.lower() in names:
            return names[s.lower()]
        letters = dict(zip("NSEWXI", range(6)))
        if len(s) == 1 and s.upper() in letters:
            return letters[s.upper()]
        raise ValueError(f"unknown action {a!r}")
    if isinstance(a, tuple):
        deltas = {(0, -1): 0, (0, 1): 1, (1, 0): 2, (-1, 0): 3, (0, 0): 4}
        if a in deltas:
            return deltas[a]
        raise ValueError(f"{a!r} is not a direction")
    return int_action(a, 6)


class Backends:
    """The ``vec`` and ``native`` properties of every wrapper written on a core: the
    wrapper's ``core`` and ``game`` attributes name the backend and the game."""

    core: "Core"
    game: str

    @property
    def vec(self) -> VecEnv:
        """The underlying one-environment :class:`proagent.VecEnv` (the Overcookeds)."""
        vec = getattr(self.core, "vec", None)
        if vec is None:
            raise AttributeError(f"{self.game} is not stepped by a VecEnv (see .native)")
        return vec

    @property
    def native(self) -> Any:
        """The underlying :class:`proagent.Env` (every game but the Overcookeds)."""
        native = getattr(self.core, "native", None)
        if native is None:
            raise AttributeError(f"{self.game} is stepped by a VecEnv (see .vec)")
        return native


class Seeds:
    """Episode seeds: ``next(s)`` plays episode ``s`` and reseeds the generator that draws
    the seeds of later ``next(None)`` calls (the same stream Gymnasium's ``np_random``
    gives for the seed)."""

    def __init__(self) -> None:
        self._rng = np.random.default_rng()

    def next(self, seed: Optional[int]) -> int:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            return int(seed)
        return int(self._rng.integers(0, 2**63 - 1))


class OvercookedCore:
    """Classic Overcooked or OvercookedV2 on a one-environment :class:`VecEnv`; a built-in
    ``partner`` spec plays every seat but ``seat`` inside Rust."""

    has_mask = False
    turn_based = False
    noop = 4

    def __init__(self, spec: str, horizon: Optional[int], obs: Optional[str], order: Optional[str],
                 partner: Optional[str], seat: int, options: Dict[str, Any]) -> None:
        self.horizon = 400 if horizon is None else horizon
        self.vec = VecEnv(spec, 1, horizon=self.horizon, obs=obs, partner=partner,
                          seat=seat if partner is not None else 0, order=order, autoreset=False, **options)
        self.num_players = self.vec.num_players
        self.num_actions = 6
        self.limit = self.horizon
        self.builtin_partner = partner is not None
        self.seat = seat
        self.obs_space = observation_space(self.vec, self.horizon)
        self._obs: Optional[np.ndarray] = None
        self._done = True

    def action(self, a: Any) -> int:
        return overcooked_action(a)

    def reset(self, seed: int) -> None:
        self._obs = self.vec.reset(seed=seed)[0]
        self._done = False

    def movers(self) -> List[int]:
        if self._done:
            return []
        return [self.seat] if self.builtin_partner else list(range(self.num_players))

    def observe(self, p: int) -> np.ndarray:
        assert self._obs is not None
        return self._obs if self.builtin_partner else self._obs[p]

    def action_mask(self, p: int) -> np.ndarray:
        return np.ones(6, dtype=np.int8)

    def step(self, joint: Sequence[Optional[int]]) -> StepResult:
        acts = [self.noop if a is None else a for a in joint]
        row = [acts[self.seat]] if self.builtin_partner else acts
        o, reward, terminated, truncated, info = self.vec.step(np.array([row], dtype=np.int64))
        self._obs = o[0]
        self._done = bool(terminated[0] or truncated[0])
        shaped = [float(x) for x in info["shaped_r_by_agent"][0]]
        extra = {
            "sparse_r_by_agent": [float(x) for x in info["sparse_r_by_agent"][0]],
            "shaped_r_by_agent": shaped,
            "joint_action": [int(x) for x in info["joint_actions"][0]],
            "score": float(info["score"][0]),
        }
        return float(reward[0]), shaped, bool(terminated[0]), bool(truncated[0]), extra

    def partner_view(self) -> Any:
        """What a Python partner policy acts on (``Policy.act`` takes it)."""
        return self.vec

    def score(self) -> float:
        """The episode's score so far."""
        return float(self.vec.scores()[0])

    def state(self) -> Dict[str, Any]:
        """The state dict (classic: overcooked_ai's ``to_dict()`` shape)."""
        return self.vec.state(0)

    def global_state(self) -> np.ndarray:
        """The full-information state tensor (classic: player 0's lossless grid; V2: the
        whole kitchen, whatever the view radius)."""
        return self.vec.global_state()[0]

    def state_space(self) -> spaces.Space:
        return spaces.Box(-64.0, float(max(self.horizon, 255)), shape=tuple(self.vec.state_shape), dtype=np.float32)

    def render(self) -> str:
        return self.vec.render(0)

    def rgb(self) -> np.ndarray:
        return self.vec.rgb(0)


class GameCore:
    """Every other game of the catalog on :class:`proagent.Env`; ``partners`` are built-in seat specs played inside Rust."""

    has_mask = True
    noop = 0

    def __init__(self, spec: str, partners: Dict[int, str]) -> None:
        self.native = Env(spec, partners=partners or None)
        self.num_players = self.native.num_players
        self.num_actions = self.native.num_actions
        self.limit = self.native.max_steps
        self.turn_based = self.native.turn_based
        self.obs_space = spaces.Box(0.0, 1.0, shape=(self.native.obs_len,), dtype=np.float32)

    def action(self, a: Any) -> int:
        return int_action(a, self.num_actions)

    def reset(self, seed: int) -> None:
        self.native.reset(seed=seed)

    def movers(self) -> List[int]:
        return list(self.native.movers())

    def observe(self, p: int) -> np.ndarray:
        return self.native.observe(p)

    def action_mask(self, p: int) -> np.ndarray:
        return self.native.action_mask(p)

    def step(self, joint: Sequence[Optional[int]]) -> StepResult:
        reward, terminated, truncated, info = self.native.act(list(joint))
        extra = {"refused": list(info["refused"]), "partner_moves": info["partner_moves"],
                 "score": self.native.score}
        return float(reward), [0.0] * self.num_players, bool(terminated), bool(truncated), extra

    def partner_view(self) -> Any:
        return self.native

    def score(self) -> int:
        return self.native.score

    def state(self) -> Dict[str, Any]:
        """The whole state as the game's trajectory record (with every hidden card or position)."""
        return self.native.state

    def global_state(self) -> Dict[str, Any]:
        return self.native.state

    def state_space(self) -> Optional[spaces.Space]:
        return None

    def render(self) -> str:
        return self.native.render()

    def rgb(self) -> np.ndarray:
        return self.native.rgb()


Core = Any


def game_spec(game: Any, players: Optional[int], scenario: Optional[int]) -> str:
    """The full spec of ``game`` (see :func:`proagent.games.game_spec`); a non-string
    raises ``TypeError``."""
    if not isinstance(game, str):
        raise TypeError(f"game must be a spec string, got {type(game).__name__}")
    from .games import game_spec as spec_of

    return spec_of(game, players, scenario)


def make_core(spec: str, *, horizon: Optional[int] = None, obs: Optional[str] = None, order: Optional[str] = None,
              partner: Optional[str] = None, seat: int = 0, options: Optional[Dict[str, Any]] = None) -> Core:
    """The core of ``spec``: a built-in ``partner`` spec, when given, plays every seat but
    ``seat``. The Overcookeds take ``horizon``, ``obs``, ``order`` and their settings
    (``options``: ``view_radius``, ...); other games refuse them."""
    options = dict(options or {})
    if is_overcooked(spec):
        return OvercookedCore(spec, horizon, obs, order, partner, seat, options)
    given = {k: v for k, v in dict(obs=obs, order=order, horizon=horizon, **options).items() if v is not None}
    if given:
        raise TypeError(f"{spec} takes no {', '.join(sorted(given))} (Overcooked settings; use max_cycles for the step limit)")
    n = int(game_info(spec)["num_players"])
    partners = {p: partner for p in range(n) if p != seat} if partner is not None else {}
    return GameCore(spec, partners)
