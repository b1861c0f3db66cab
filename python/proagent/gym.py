"""Gymnasium environments of every game: the learner plays one seat, built-in seats or a
Python partner play the others.

:class:`GymEnv` is the one class over every game of the catalog: ``GymEnv("cramped_room")``,
``GymEnv("v2:grounded_coord_simple")``, ``GymEnv("hanabi:3p")``, ``GymEnv("capture:2")``,
``GymEnv("escape:1")``. It is written once over the core the PettingZoo family shares
(:mod:`proagent._core`: the Overcookeds step on a one-environment :class:`proagent.VecEnv`
with their encodings and shaped rewards, other games on :class:`proagent.Env`).
``OvercookedGymEnv`` and :class:`proagent.games.GameGymEnv` are older names of the same
class. Conventions over every game:

- the partner defaults to the game's own default partner (``proagent.default_partner``:
  ``greedy`` on classic layouts, ``scripted`` on ``v2:`` layouts, ``simple`` in Hanabi,
  ``greedy_baseline`` in CollabCapture, ``fixer`` in CollabEscape);
- an action is an integer (numpy integers too); a float, a bool or ``None`` raises
  ``TypeError``, an index out of range ``ValueError``;
- the environment pickles and deep-copies at any point of an episode, and the copy
  plays on exactly as the original;
- ``info["action_mask"]`` marks the learner's legal actions and ``info["score"]`` is the
  episode's score so far.

The partner is a built-in seat spec (``"greedy"``, ``"bc"``, ``"sp"``, ... on classic
layouts; ``"scripted"``, ``"random"``, ``"stay"`` on OvercookedV2; the seats of
``proagent play --partner`` elsewhere), which then plays inside Rust, or a
:class:`proagent.Policy` (e.g. the ProAgent agent) or a Python callable ``f(state, seat)``
asked from Python whenever one of its players is to move.

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

from . import Policy, game_info
from ._core import Backends, Core, Seeds, game_spec, make_core
from ._core import int_action, is_overcooked, observation_space  # noqa: F401  (imported from here by other modules)
from ._core import overcooked_action as _action_index  # noqa: F401

__all__ = ["GymEnv", "OvercookedGymEnv", "observation_space", "register_envs"]

PartnerLike = Union[str, Policy, Callable[[Dict[str, Any], int], Any]]

from ._ids import CLASSIC_LAYOUTS, V2_LAYOUTS  # noqa: E402,F401

#: The game :class:`GymEnv` plays when none is named (the default of
#: :func:`proagent.pettingzoo.env` and :func:`proagent.pettingzoo.parallel_env` too).
DEFAULT_GAME = "cramped_room"


def _builtin(partner: Any) -> bool:
    """Whether a partner is a built-in seat spec (played inside Rust) rather than a Python
    policy: every spec string but the ProAgent agent's."""
    return isinstance(partner, str) and partner.strip() != "proagent" and not partner.strip().startswith("proagent[")


class GymEnv(Backends, gymnasium.Env):
    """Any game of the catalog for one learner (see the module doc).

    Parameters: ``game`` (a spec: ``"cramped_room"``, ``"v2:NAME"``, ``"hanabi:3p"``,
    ``"capture:2"``, ... or a family name with ``players`` / ``scenario``; ``layout`` is its
    other name), ``partner`` (default: the game's own default partner), ``seat`` (the
    learner's player), ``max_cycles`` (most learner steps per episode; default: the
    game's limit), ``render_mode`` (``"ansi"`` or ``"rgb_array"``), and on the Overcookeds
    ``horizon`` (default 400), ``obs`` (classic: ``"lossless"``, ``"overcooked_ai"``,
    ``"features"``, ``"featurize"``; V2: ``"grid"``), ``order`` (``"whc"`` or ``"hwc"``;
    ``style="jaxmarl"`` picks ``"hwc"``), ``shaped_coef`` (reward = team reward +
    shaped_coef × the learner's shaped reward) and the OvercookedV2 settings
    (``view_radius``, ...); other games refuse the Overcooked settings.

    The observation is the learner's: the Overcookeds' encoding (a float32 Box), other
    games' float32 vector with ``info["action_mask"]`` marking the legal actions (every
    game's info has it). An illegal action is the game's business (Hanabi refuses it and
    asks again, ``info["refused"]``).

    Seeds: ``reset(seed=s)`` plays the episode ``proagent play --seed s`` plays (the
    partner's randomness, V2 recipes, Hanabi's deck, the mazes' wanders are all drawn from
    it); ``reset()`` draws the next episode's seed from the environment's generator, so
    successive episodes differ and a seeded sequence repeats.
    """

    metadata: Dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 8}

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        partner: Optional[PartnerLike] = None,
        seat: int = 0,
        horizon: Optional[int] = None,
        obs: Optional[str] = None,
        shaped_coef: float = 0.0,
        render_mode: Optional[str] = None,
        order: Optional[str] = None,
        style: Optional[str] = None,
        layout: Optional[str] = None,
        players: Optional[int] = None,
        scenario: Optional[int] = None,
        max_cycles: Optional[int] = None,
        **options: Any,
    ) -> None:
        spec = game_spec(game if layout is None else layout, players, scenario)
        self.game = spec
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        if style not in (None, "jaxmarl"):
            raise ValueError(f"style must be None or 'jaxmarl', got {style!r}")
        if style == "jaxmarl" and order is None:
            order = "hwc"
        info = game_info(spec)
        n = int(info["num_players"])
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= int(seat) < n:
            raise ValueError(f"seat must be an integer in 0..{n - 1}, got {seat!r}")
        seat = int(seat)
        if partner is None:
            partner = info["default_partner"]
        builtin = _builtin(partner)
        self.core: Core = make_core(spec, horizon=horizon, obs=obs, order=order, partner=partner if builtin else None,
                                    seat=seat, options=options)
        self.seat = seat
        self.shaped_coef = float(shaped_coef)
        self.render_mode = render_mode
        self.horizon = self.core.limit
        if builtin:
            self.partner: Any = None
            self.partner_spec: Optional[str] = partner
        else:
            if isinstance(partner, str):
                from . import partner as make_partner

                partner = make_partner(partner, seat=1 - seat, layout=spec, horizon=self.core.limit)
            if isinstance(partner, Policy) and partner.seat == seat:
                raise ValueError(f"the partner policy plays seat {partner.seat}, the learner's seat")
            if n != 2 and not callable(partner):
                raise ValueError("a Python partner on a game of more than two players must be a callable f(state, seat)")
            self.partner = partner
            self.partner_spec = None
        self.max_cycles = int(max_cycles) if max_cycles is not None else self.core.limit
        if self.max_cycles < 1:
            raise ValueError(f"max_cycles must be ≥ 1, got {max_cycles}")
        self.observation_space = self.core.obs_space
        self.action_space = spaces.Discrete(self.core.num_actions)
        self._seeds = Seeds()
        self._cycles = 0
        self._episode_seed: Optional[int] = None

    @property
    def episode_seed(self) -> Optional[int]:
        """The seed of the episode being played."""
        return self._episode_seed

    @property
    def obs_names(self) -> List[str]:
        """The observation's channel or feature names (the Overcookeds)."""
        return self.vec.obs_names

    def _partner_moves(self, joint: List[Optional[int]]) -> None:
        """The Python partner's actions of the players to move but the learner."""
        for p in self.core.movers():
            if p == self.seat:
                continue
            q = self.partner
            if isinstance(q, Policy):
                joint[p] = self.core.action(q.act(self.core.partner_view()))
            else:
                f = q.act if (not callable(q) and hasattr(q, "act")) else q
                joint[p] = self.core.action(f(self.core.state(), p))

    def _info(self, extra: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        info: Dict[str, Any] = dict(extra or {})
        info["score"] = self.core.score()
        info["action_mask"] = self.core.action_mask(self.seat)
        info["episode_seed"] = self._episode_seed
        joint = info.get("joint_action")
        if joint is not None:
            info["partner_action"] = joint[1 - self.seat] if len(joint) == 2 else [x for i, x in enumerate(joint) if i != self.seat]
        return info

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        super().reset(seed=seed)
        self._episode_seed = self._seeds.next(seed)
        self.core.reset(self._episode_seed)
        self._cycles = 0
        if isinstance(self.partner, Policy):
            self.partner.reset(self._episode_seed)
        if self.partner is not None and self.seat not in self.core.movers():
            self._advance(0.0)
        return self.core.observe(self.seat), self._info()

    def _advance(self, reward: float) -> Tuple[float, bool, bool, Dict[str, Any]]:
        """Python partners move until the learner is to move or the episode ends."""
        terminated = truncated = False
        extra: Dict[str, Any] = {}
        while self.core.movers() and self.seat not in self.core.movers():
            joint: List[Optional[int]] = [None] * self.core.num_players
            self._partner_moves(joint)
            r, _, terminated, truncated, extra = self.core.step(joint)
            reward += r
        return reward, terminated, truncated, extra

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        a = self.core.action(action)
        if not self.core.movers():
            raise ValueError("the episode is over; call reset()")
        joint: List[Optional[int]] = [None] * self.core.num_players
        joint[self.seat] = a
        if self.partner is not None:
            self._partner_moves(joint)
        reward, shaped, terminated, truncated, extra = self.core.step(joint)
        reward += self.shaped_coef * shaped[self.seat]
        if self.partner is not None and not (terminated or truncated):
            reward, terminated, truncated, _ = self._advance(reward)
        self._cycles += 1
        truncated = truncated or (not terminated and self._cycles >= self.max_cycles)
        if "refused" in extra:
            extra["refused"] = self.seat in extra["refused"]
        return self.core.observe(self.seat), float(reward), bool(terminated), bool(truncated), self._info(extra)

    def state(self) -> Dict[str, Any]:
        """The current state as a dict (classic: overcooked_ai's ``to_dict()`` shape; other
        games: the trajectory record)."""
        return self.core.state()

    def render(self) -> Any:
        if self.render_mode == "ansi":
            return self.core.render()
        if self.render_mode == "rgb_array":
            return self.core.rgb()
        return None

    def close(self) -> None:
        pass

    def __getstate__(self) -> Dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, d: Dict[str, Any]) -> None:
        self.__dict__.update(d)


#: The older name of :class:`GymEnv` on the Overcookeds: the same class.
OvercookedGymEnv = GymEnv


def register_envs() -> None:
    """Registers the ids (``import proagent`` already does; kept for explicit callers)."""
    from . import _register_gymnasium_ids

    _register_gymnasium_ids()
