"""Every game of the catalog beyond the Overcookeds: Hanabi (2–5 players), CollabCapture
(scenarios 1–4), CollabEscape (scenarios 1–2), the lever game and any game the catalog
gains, on the game crates' rules and the built-in rule-based seats (no LLM anywhere).

The wrappers are those of every game (one Gymnasium class, one PettingZoo family); the
names here are their older names, kept importable:

- :class:`GameGymEnv` - :class:`proagent.gym.GymEnv` (``proagent/Hanabi-2p-v0``,
  ``proagent/CollabCapture-1-v0``, ``proagent/CollabEscape-1-v0``, ...).
- :class:`GameAECEnv` - :class:`proagent.pettingzoo.GameAECEnv`;
  :class:`MazeParallelEnv` - :class:`proagent.pettingzoo.GameParallelEnv`.
- :func:`env`, :func:`parallel_env`, :func:`raw_env` - the same functions as
  :mod:`proagent.pettingzoo`'s (so both default to the same game).

:func:`game_spec` turns a family name with ``players`` / ``scenario`` into a catalog
spec. Observations are ``{"observation": float32 vector, "action_mask": int8 vector}``
(PettingZoo's convention; the Gymnasium env puts the mask in ``info["action_mask"]``).
Seeds: ``reset(seed=s)`` deals the deck / draws the killer's wanders and seeds the
partners from ``s`` as ``play_episode`` does; the same seed gives the same episode.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ._native import catalog_games, game_info
from .gym import GymEnv

__all__ = ["GameAECEnv", "GameGymEnv", "MazeParallelEnv", "env", "parallel_env", "raw_env", "game_spec"]

#: The older name of :class:`proagent.gym.GymEnv` on the games beyond the Overcookeds:
#: the same class.
GameGymEnv = GymEnv

#: Names served from :mod:`proagent.pettingzoo` (imported on first use: PettingZoo is
#: optional).
_PETTINGZOO = {"GameAECEnv": "GameAECEnv", "MazeParallelEnv": "GameParallelEnv", "env": "env",
               "parallel_env": "parallel_env", "raw_env": "raw_env"}


def __getattr__(name: str) -> Any:
    if name in _PETTINGZOO:
        from . import pettingzoo

        return getattr(pettingzoo, _PETTINGZOO[name])
    raise AttributeError(f"module 'proagent.games' has no attribute {name!r}")


def _family(game: str) -> Optional[Dict[str, Any]]:
    """The catalog entry a family name names: its ``kind`` (``collab_capture``) or the
    name its specs start with (``capture``, ``hanabi``)."""
    for entry in catalog_games():
        short = {b.split(":", 1)[0] for b in entry["builtin"] if ":" in b}
        if game == entry["kind"] or game in short:
            return entry
    return None


def _count(name: str, v: Any) -> int:
    """An integer keyword, strictly: a float or a bool raises ``TypeError`` (never truncated)."""
    import numbers

    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {v!r}")
    return int(v)


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
        n = _count("players", players)
        for spec in builtin:
            info = game_info(spec)
            if info["num_players"] == n:
                return info["name"]
        raise ValueError(f"{g} has no built-in game of {n} players")
    if scenario is not None:
        k = _count("scenario", scenario)
        if not 1 <= k <= len(builtin):
            raise ValueError(f"{g} has scenarios 1..{len(builtin)}, got {k}")
        return game_info(builtin[k - 1])["name"]
    return game_info(builtin[0])["name"]
