"""Gymnasium environments of every game: the learner plays one seat, built-in seats or a
Python partner play the others.

:class:`GymEnv` is the one entry point: ``GymEnv("cramped_room")``,
``GymEnv("v2:grounded_coord_simple")``, ``GymEnv("hanabi:3p")``, ``GymEnv("capture:2")``,
``GymEnv("escape:1")``. It builds the environment of the game's family (an instance of
:class:`OvercookedGymEnv` for the two Overcookeds, of :class:`proagent.games.GameGymEnv`
for the others; both are ``GymEnv`` subclasses with the same conventions):

- the partner defaults to the game's own default partner (``proagent.default_partner``:
  ``greedy`` on classic layouts, ``scripted`` on ``v2:`` layouts, ``simple`` in Hanabi,
  ``greedy_baseline`` in CollabCapture, ``fixer`` in CollabEscape);
- an action is an integer (numpy integers too); a float, a bool or ``None`` raises
  ``TypeError``, an index out of range ``ValueError``;
- the environment pickles and deep-copies at any point of an episode, and the copy
  plays on exactly as the original.

On Overcooked the partner is a built-in spec (``"greedy"``, ``"bc"``, ``"sp"``, ... on
classic layouts; ``"scripted"``, ``"random"``, ``"stay"`` on OvercookedV2), which then
plays inside Rust, or a :class:`proagent.Policy` (e.g. the ProAgent agent) or a Python
callable ``f(state, seat)`` asked from Python each step.

Registered ids (``import proagent`` registers them; ``gymnasium.make`` finds them
through the ``proagent`` namespace)::

    gymnasium.make("proagent/Overcooked-cramped_room-v0", partner="greedy")
    gymnasium.make("proagent/OvercookedV2-grounded_coord_simple-v0")
    gymnasium.make("proagent/Hanabi-2p-v0")
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import Policy, VecEnv, game_info

__all__ = ["GymEnv", "OvercookedGymEnv", "observation_space", "register_envs"]

PartnerLike = Union[str, Policy, Callable[[Dict[str, Any], int], Any]]

from ._ids import CLASSIC_LAYOUTS, V2_LAYOUTS  # noqa: E402,F401


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


def is_overcooked(game: str) -> bool:
    """Whether the game catalog files ``game`` under one of the two Overcooked families
    (the games :class:`proagent.VecEnv` steps)."""
    return game_info(game)["kind"] in ("overcooked", "overcooked_v2")


class GymEnv(gymnasium.Env):
    """Any game for one learner: ``GymEnv(game, partner=None, seat=0, ...)``.

    Constructing ``GymEnv`` gives the environment of the game's family (see the module
    doc): :class:`OvercookedGymEnv` for the Overcookeds (VecEnv-backed, with their
    observation kinds and shaped rewards) or :class:`proagent.games.GameGymEnv` for the
    others (Hanabi, CollabCapture, CollabEscape); the keyword arguments are the family's.
    """

    #: The render modes of every family (``gymnasium.make`` reads them from the entry
    #: point, this class); each family's class states its own frame rate.
    metadata: Dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 8}

    def __new__(cls, *args: Any, **kwargs: Any) -> "GymEnv":
        if cls is GymEnv:
            from .games import game_spec

            game = args[0] if args else kwargs.get("game", kwargs.get("layout", "cramped_room"))
            if not isinstance(game, str):
                raise TypeError(f"game must be a spec string, got {type(game).__name__}")
            if is_overcooked(game_spec(game, kwargs.get("players"), kwargs.get("scenario"))):
                cls = OvercookedGymEnv
            else:
                from .games import GameGymEnv

                cls = GameGymEnv
        return super().__new__(cls)


class OvercookedGymEnv(GymEnv):
    """Overcooked (classic or ``"v2:NAME"``) for one learner.

    Parameters: ``game`` (the layout; ``layout`` is its other name), ``partner`` (see the
    module doc; default: the layout's default partner), ``seat`` (the learner's
    player), ``horizon``, ``obs`` (classic: ``"lossless"``, ``"overcooked_ai"``,
    ``"features"``, ``"featurize"``; V2: ``"grid"``), ``order`` (``"whc"`` or ``"hwc"``;
    ``style="jaxmarl"`` picks ``"hwc"``), ``shaped_coef`` (reward = team reward +
    shaped_coef × the learner's shaped reward), ``render_mode`` (``"ansi"`` or
    ``"rgb_array"``) and the OvercookedV2 switches (``view_radius``, ...).

    Seeds: ``reset(seed=s)`` plays the episode ``proagent play --seed s`` plays (the
    partner's randomness, V2 recipes and random starts are all drawn from it);
    ``reset()`` draws the next episode's seed from the environment's generator, so
    successive episodes differ and a seeded sequence repeats. Episodes end by truncation
    at the horizon (``terminated`` is always False: Overcooked never ends by itself).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 8}

    def __init__(
        self,
        game: str = "cramped_room",
        partner: Optional[PartnerLike] = None,
        seat: int = 0,
        horizon: int = 400,
        obs: Optional[str] = None,
        shaped_coef: float = 0.0,
        render_mode: Optional[str] = None,
        order: Optional[str] = None,
        style: Optional[str] = None,
        layout: Optional[str] = None,
        **v2: Any,
    ) -> None:
        layout = game if layout is None else layout
        self.game = layout
        if partner is None:
            partner = game_info(layout)["default_partner"]
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        if style not in (None, "jaxmarl"):
            raise ValueError(f"style must be None or 'jaxmarl', got {style!r}")
        if style == "jaxmarl" and order is None:
            order = "hwc"
        builtin = isinstance(partner, str) and partner.strip() not in ("proagent",) and not partner.strip().startswith("proagent[")
        self._args = dict(layout=layout, partner=partner, seat=seat, horizon=horizon, obs=obs, shaped_coef=shaped_coef,
                          render_mode=render_mode, order=order, style=style, **v2)
        self._vec = VecEnv(layout, 1, horizon=horizon, obs=obs, partner=partner if builtin else None,
                           seat=seat if builtin else 0, order=order, autoreset=False, **v2)
        players = self._vec.num_players
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
            raise ValueError(f"seat must be in 0..{players - 1}, got {seat!r}")
        self.seat = seat
        self.shaped_coef = float(shaped_coef)
        self.render_mode = render_mode
        self.horizon = horizon
        if builtin:
            self.partner: Any = None
            self.partner_spec: Optional[str] = partner
        else:
            if isinstance(partner, str):
                from . import partner as make_partner

                partner = make_partner(partner, seat=1 - seat, layout=layout, horizon=horizon)
            if isinstance(partner, Policy) and partner.seat == seat:
                raise ValueError(f"the partner policy plays seat {partner.seat}, the learner's seat")
            if players != 2 and not callable(partner):
                raise ValueError("a Python partner on a game of more than two players must be a callable f(state, seat)")
            self.partner = partner
            self.partner_spec = None
        self.observation_space = observation_space(self._vec, horizon)
        self.action_space = spaces.Discrete(6)
        self._episode_seed: Optional[int] = None

    @property
    def vec(self) -> VecEnv:
        """The underlying one-environment :class:`proagent.VecEnv`."""
        return self._vec

    @property
    def episode_seed(self) -> Optional[int]:
        """The seed of the episode being played."""
        return self._episode_seed

    @property
    def obs_names(self) -> List[str]:
        """The observation's channel or feature names."""
        return self._vec.obs_names

    def _one(self, o: np.ndarray) -> np.ndarray:
        o = o[0]
        return o if self.partner is None else o[self.seat]

    def _python_partner_actions(self) -> List[int]:
        acts = []
        for p in range(self._vec.num_players):
            if p == self.seat:
                continue
            q = self.partner
            if isinstance(q, Policy):
                acts.append(int(q.act(self._vec)))
            else:
                f = q.act if (not callable(q) and hasattr(q, "act")) else q
                from ._native import Env as _Env  # noqa: F401  (documented: callables get the state dict)

                acts.append(_action_index(f(self._vec.state(0), p)))
        return acts

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63 - 1))
        self._episode_seed = int(seed)
        obs = self._vec.reset(seed=self._episode_seed)
        if isinstance(self.partner, Policy):
            self.partner.reset(self._episode_seed)
        return self._one(obs), {"episode_seed": self._episode_seed}

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        a = _action_index(action)
        if self.partner is None:
            acts = np.array([[a]], dtype=np.int64)
        else:
            others = self._python_partner_actions()
            joint = others[: self.seat] + [a] + others[self.seat:]
            acts = np.array([joint], dtype=np.int64)
        obs, reward, terminated, truncated, info = self._vec.step(acts)
        shaped = float(info["shaped_r_by_agent"][0][self.seat])
        r = float(reward[0]) + self.shaped_coef * shaped
        joint = [int(x) for x in info["joint_actions"][0]]
        out = {
            "sparse_r_by_agent": [float(x) for x in info["sparse_r_by_agent"][0]],
            "shaped_r_by_agent": [float(x) for x in info["shaped_r_by_agent"][0]],
            "joint_action": joint,
            "partner_action": joint[1 - self.seat] if len(joint) == 2 else [x for i, x in enumerate(joint) if i != self.seat],
            "score": float(info["score"][0]),
            "episode_seed": self._episode_seed,
        }
        return self._one(obs), r, bool(terminated[0]), bool(truncated[0]), out

    def state(self) -> Dict[str, Any]:
        """The current state as a dict (classic: overcooked_ai's ``to_dict()`` shape)."""
        return self._vec.state(0)

    def render(self) -> Any:
        if self.render_mode == "ansi":
            return self._vec.render(0)
        if self.render_mode == "rgb_array":
            return self._vec.rgb(0)
        return None

    def close(self) -> None:
        pass

    def __getstate__(self) -> Dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, d: Dict[str, Any]) -> None:
        self.__dict__.update(d)


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


def _action_index(a: Any) -> int:
    """An action from Python: an int 0..6 (numpy ints too), a name, or overcooked_ai's tuple.
    Floats, NaN and bools are refused."""
    if isinstance(a, (bool, np.bool_)):
        raise TypeError(f"an action is an int 0..6, not a bool ({a!r})")
    if isinstance(a, (int, np.integer)):
        i = int(a)
        if not 0 <= i < 6:
            raise ValueError(f"action {i} is not in 0..6")
        return i
    if isinstance(a, np.ndarray) and a.shape == () and a.dtype.kind in "iu":
        return _action_index(int(a))
    if isinstance(a, str) or isinstance(a, tuple):
        from . import ACTIONS

        names = {n: i for i, n in enumerate(ACTIONS)}
        letters = dict(zip("NSEWXI", range(6)))
        if isinstance(a, str):
            s = a.strip()
            if s.lower() in names:
                return names[s.lower()]
            if s.upper() in letters and len(s) == 1:
                return letters[s.upper()]
            raise ValueError(f"unknown action {a!r}")
        deltas = {(0, -1): 0, (0, 1): 1, (1, 0): 2, (-1, 0): 3, (0, 0): 4}
        if a in deltas:
            return deltas[a]
        raise ValueError(f"{a!r} is not a direction")
    raise TypeError(f"an action is an int 0..6, got {type(a).__name__} {a!r}")


def register_envs() -> None:
    """Registers the ids (``import proagent`` already does; kept for explicit callers)."""
    from . import _register_gymnasium_ids

    _register_gymnasium_ids()
