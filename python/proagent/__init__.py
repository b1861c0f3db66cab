"""proagent: the Overcooked-AI simulator (old dynamics), its partners and the ProAgent
LLM agent, implemented in Rust and driven from Python.

The Rust library is the single source of truth; this package is a thin layer over the
native module ``proagent._native``:

- :class:`Env` - one episode of any game of the catalog, with one convention for every
  game (:meth:`Env.act`, :meth:`Env.movers`, :meth:`Env.observe` of a player, ...; each
  game's action indices and encoding are the catalog's) and built-in partner seats. The
  Overcookeds keep their own API besides: on classic layouts ``reset``/``step``/``state``
  are overcooked_ai's (state dicts in ``OvercookedState.to_dict()`` shape, observations
  as numpy arrays: :meth:`Env.lossless`, :meth:`Env.features`); on OvercookedV2
  (``"v2:NAME"``, JaxMARL's dynamics) every agent's observation tensor, view radius,
  recipes, the button. :class:`GameEnv` is the same class under its older name.
- :class:`VecEnv` - n episodes of any game stepped in one call from numpy actions, with
  built-in partner seats, terminated/truncated and Gymnasium 1.x auto-reset.
- :func:`partner` / :func:`agent` - built-in partners and the ProAgent agent as policies
  with ``.act(state)``, on every game (one :class:`Policy` class).
- :func:`play` - one episode in the Rust runner (any seat may be a Python callable);
  returns the ``proagent play --json`` summary as a dict and can write the transcript.
- :func:`analyze` - interdependence (teamwork) metrics of a trajectory.
- :mod:`proagent.qa` - CoordinationQA questions and scoring.
- :mod:`proagent.gym` / :mod:`proagent.vector` / :mod:`proagent.pettingzoo` - Gymnasium
  (single-agent and vector) and PettingZoo adapters over every game
  (:class:`proagent.gym.GymEnv`, :func:`proagent.pettingzoo.env` /
  :func:`~proagent.pettingzoo.parallel_env`; imported on demand, so neither package is
  required).
- :func:`game_info` / :func:`default_partner` - what the game catalog knows of a spec
  (family, players, horizon, default partner). With gymnasium installed, ``import proagent`` registers the ids
  the game catalog lists (``gym_ids`` of :func:`proagent._native.catalog_games`):
  ``proagent/Overcooked-LAYOUT-v0``, ``proagent/OvercookedV2-LAYOUT-v0``, and one id per
  player count or scenario of the other games (:mod:`proagent.games`), such as
  ``proagent/CollabCapture-1-v0``.

Actions are ints 0..6 in the order north, south, east, west, stay, interact (the order of
overcooked_ai's ``Action.ALL_ACTIONS``); names ("north", "interact") and overcooked_ai's
``(dx, dy)`` tuples are accepted wherever a single action is.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Union

from ._native import Env, GameEnv, InternalError, ModelFailure, Policy, VecEnv, __version__, game_info
from ._native import analyze as _analyze
from ._native import partner as _partner
from ._native import play as _play

__all__ = [
    "ACTIONS",
    "Env",
    "GameEnv",
    "InternalError",
    "ModelFailure",
    "Policy",
    "VecEnv",
    "__version__",
    "agent",
    "analyze",
    "default_partner",
    "from_overcooked",
    "game_info",
    "partner",
    "play",
    "to_overcooked",
]

#: Action names by index, the order of every action array.
ACTIONS = ("north", "south", "east", "west", "stay", "interact")

#: The partner kinds ``partner()`` builds ("bc:PATH" loads a BC model file, "rl:PATH" a
#: PPO model file written by ``proagent rl train``).
PARTNERS = (
    "greedy", "random", "random4", "stay", "courier", "scripted", "bc", "bc:train",
    "sp", "pbt", "fcp", "mep", "proagent",
)


def default_partner(game: str) -> str:
    """The partner a game seats when none is named, from the game catalog (the partner
    ``proagent play`` seats and the Gymnasium environments default to), as each game of
    the catalog names it for the layout or scenario (``proagent play --help`` lists
    them)."""
    return game_info(game)["default_partner"]


def _int(name: str, v: Any, lo: int, hi: int) -> int:
    """An integer parameter, checked: floats, bools and out-of-range values name it."""
    import numbers

    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {v!r}")
    v = int(v)
    if v < lo:
        raise ValueError(f"{name} must be ≥ {lo}, got {v}")
    if v > hi:
        raise ValueError(f"{name} must be ≤ {hi}, got {v}")
    return v


_U64 = 2**64 - 1


def _proagent_options(
    model: str,
    base_url: Optional[str],
    temperature: float,
    top_p: float,
    max_tokens: int,
    memory_k: int,
    max_replans: int,
    verificator: str,
    belief: str,
    analysis: bool,
    intention: bool,
    align: str,
    prompts: Optional[str],
    wait_interrupt: bool,
    connect_timeout: float,
    request_timeout: float,
    retries: int,
    backoff_ms: int,
    backoff_max_ms: int,
    effort: Optional[str] = None,
    family: Optional[str] = None,
    token_param: Optional[str] = None,
) -> Dict[str, Any]:
    opts = {
        "model": model,
        "base_url": base_url,
        "temperature": float(temperature),
        "top_p": float(top_p),
        "max_tokens": int(max_tokens),
        "memory_k": int(memory_k),
        "max_replans": int(max_replans),
        "verificator": verificator,
        "belief": belief,
        "analysis": bool(analysis),
        "intention": bool(intention),
        "align": align,
        "prompts": None if prompts is None else str(prompts),
        "wait_interrupt": bool(wait_interrupt),
        "connect_timeout": float(connect_timeout),
        "request_timeout": float(request_timeout),
        "retries": int(retries),
        "backoff_ms": int(backoff_ms),
        "backoff_max_ms": int(backoff_max_ms),
    }
    # A reasoning model's request rules, sent only when given (docs/llm.md).
    for key, value in (("effort", effort), ("family", family), ("token_param", token_param)):
        if value is not None:
            opts[key] = value
    return opts


def partner(
    kind: str,
    seat: int = 1,
    seed: int = 0,
    layout: Union[str, Env] = "cramped_room",
    horizon: Optional[int] = None,
) -> Policy:
    """A built-in partner as a policy: ``greedy``, ``random``, ``stay``, ``courier``,
    ``scripted``, ``bc`` (the shipped BC model trained on the test split), ``bc:train``,
    ``bc:PATH`` (a model file), ``sp``, ``pbt``, ``fcp``, ``mep`` (the shipped PPO-trained
    partners of that algorithm for the layout), ``rl:PATH`` (a model file written by
    ``proagent rl train``), or ``proagent`` (the ProAgent agent with its defaults and
    the built-in scripted model; use :func:`agent` for other options).

    ``layout`` is a built-in name, a layout file path, or an :class:`Env` to share.
    On every other game of the catalog (``layout="v2:NAME"``, ``"capture:2"``,
    ``"escape:1"``, ... or an :class:`Env` of one) the kinds are those of
    ``proagent play --layout SPEC --partner KIND`` (on V2 ``scripted``, ``random``,
    ``stay``, ``proagent``; each game's own list in ``proagent play --help``), built by the same
    seat factory, and ``policy.act(env)`` takes the ``Env`` and returns an action index
    as :meth:`Env.act` takes it: the same :class:`Policy` class on every game.
    ``policy.act(state)`` takes an :class:`Env` (preferred: the agent also sees the last
    step's events) or a state dict, and returns the action index for ``seat``. ``horizon``
    defaults to the Env's, else 400.
    """
    return _partner(kind, seat=_int("seat", seat, 0, 63), seed=_int("seed", seed, 0, _U64), layout=layout,
                    horizon=_int("horizon", _horizon(layout, horizon), 1, 100_000))


def _horizon(layout: Union[str, Env], horizon: Optional[int]) -> int:
    if horizon is not None:
        return int(horizon)
    if isinstance(layout, Env):
        return layout.horizon
    return 400


def agent(
    layout: Union[str, Env] = "cramped_room",
    seat: int = 0,
    seed: int = 0,
    horizon: Optional[int] = None,
    *,
    model: str = "rule-based",
    base_url: Optional[str] = None,
    temperature: float = 0.0,
    top_p: float = 1.0,
    max_tokens: int = 256,
    memory_k: int = 1,
    max_replans: int = 3,
    verificator: str = "llm",
    belief: str = "replace",
    analysis: bool = True,
    intention: bool = True,
    align: str = "proagent",
    prompts: Optional[str] = None,
    wait_interrupt: bool = True,
    connect_timeout: float = 10.0,
    request_timeout: float = 120.0,
    retries: int = 4,
    backoff_ms: int = 500,
    backoff_max_ms: int = 30000,
    effort: Optional[str] = None,
    family: Optional[str] = None,
    token_param: Optional[str] = None,
    transcript: Optional[str] = None,
    no_wall_clock: bool = False,
    max_llm_failures: Optional[int] = 0,
) -> Policy:
    """The ProAgent agent as a policy, with the options of ``proagent play``:

    ``model`` ("rule-based" built in: a rule-based stand-in, not an LLM; "scripted" is its old name; "replay:FILE", or a served model's name with
    ``base_url``; the key comes from ``$OPENAI_API_KEY``), sampling (``temperature``,
    ``top_p``, ``max_tokens``), ``memory_k``, ``max_replans``, ``verificator``
    ("llm", "rules", "off"), ``belief`` ("replace", "annotate", "off"), ``analysis``,
    ``intention``, ``align`` ("proagent", "coordination"), ``prompts`` (a templates
    folder), ``wait_interrupt`` and the HTTP time-outs and retries; for reasoning models
    ``effort`` ("low", "medium", "high": sent as ``reasoning_effort``), ``family`` ("chat",
    "reasoning": overrides the name table of docs/llm.md) and ``token_param``
    ("max_tokens", "max_completion_tokens"), each sent only when given.

    ``transcript=PATH`` writes the episode's transcript from your own loop: pass the
    :class:`Env` to ``act`` (each call records the step that led to its state), then call
    ``policy.finish(env)``, which writes the last step and the footer and renames
    ``PATH.partial`` to ``PATH``. Its steps and model exchanges are those :func:`play` writes
    for the same episode; the header names the other seat ``python``, so ``proagent replay``
    cannot rebuild it. Without a transcript, ``policy.exchanges()`` returns the exchanges.

    ``act`` follows ``play``'s failure rules: a model that refuses the run raises
    :class:`proagent.ModelFailure`, and so does a call that fails after every retry once
    more than ``max_llm_failures`` have (default 0; ``None``: no limit, the agent's
    fallback plays on). Ctrl-C interrupts a model wait or a retry backoff at once.
    """
    opts = _proagent_options(
        model, base_url, temperature, top_p, max_tokens, memory_k, max_replans, verificator, belief,
        analysis, intention, align, prompts, wait_interrupt, connect_timeout, request_timeout, retries,
        backoff_ms, backoff_max_ms, effort, family, token_param,
    )
    return _partner(
        "proagent", seat=_int("seat", seat, 0, 1), seed=_int("seed", seed, 0, _U64), layout=layout,
        horizon=_int("horizon", _horizon(layout, horizon), 1, 100_000), options=opts,
        transcript=None if transcript is None else str(transcript), no_wall_clock=no_wall_clock,
        max_llm_failures=-1 if max_llm_failures is None else _int("max_llm_failures", max_llm_failures, 0, 2**62),
    )


SeatLike = Union[str, Policy, Callable[[Dict[str, Any], int], Any]]


def play(
    layout: Union[str, Env] = "cramped_room",
    agent: SeatLike = "proagent",
    partner: Optional[SeatLike] = None,
    seat: int = 0,
    seed: int = 0,
    horizon: int = 400,
    *,
    transcript: Optional[str] = None,
    no_wall_clock: bool = False,
    trajectory: bool = False,
    model: str = "rule-based",
    base_url: Optional[str] = None,
    temperature: float = 0.0,
    top_p: float = 1.0,
    max_tokens: int = 256,
    memory_k: int = 1,
    max_replans: int = 3,
    verificator: str = "llm",
    belief: str = "replace",
    analysis: bool = True,
    intention: bool = True,
    align: str = "proagent",
    prompts: Optional[str] = None,
    wait_interrupt: bool = True,
    connect_timeout: float = 10.0,
    request_timeout: float = 120.0,
    retries: int = 4,
    backoff_ms: int = 500,
    backoff_max_ms: int = 30000,
    effort: Optional[str] = None,
    family: Optional[str] = None,
    token_param: Optional[str] = None,
) -> Dict[str, Any]:
    """One seeded episode in the Rust runner; returns the summary ``proagent play --json``
    prints, as a dict (the same command and seed give the same summary).

    ``agent`` (player ``seat``) and ``partner`` (the other player) are each a spec string
    (as on the command line), a :class:`Policy`, or a Python callable ``f(state, seat)``
    returning an action (an object with an ``act(state, seat)`` method also works). The
    partner defaults to ``greedy`` on classic layouts and to the game's default partner
    elsewhere (``scripted`` on ``v2:NAME`` layouts). On OvercookedV2 (``"v2:NAME"``) both
    seats are spec strings and the episode is played by the library's entry point for
    every game, exactly as ``proagent play --layout v2:NAME`` plays it. The
    interpreter is released while Rust plays and re-taken only for Python seats; an
    exception raised by a Python seat is re-raised after the episode.

    ``transcript=PATH`` writes the episode's JSONL transcript (needs a ProAgent seat;
    ``no_wall_clock`` leaves times out so reruns are byte-identical). ``trajectory=True``
    adds the trajectory (reference-trace schema) under ``"trajectory"``; feed it to
    :func:`analyze`. The remaining keywords configure ``proagent`` seats, as in :func:`agent`.
    """
    opts = _proagent_options(
        model, base_url, temperature, top_p, max_tokens, memory_k, max_replans, verificator, belief,
        analysis, intention, align, prompts, wait_interrupt, connect_timeout, request_timeout, retries,
        backoff_ms, backoff_max_ms, effort, family, token_param,
    )
    return _play(
        layout=layout, agent=agent, partner=partner, seat=_int("seat", seat, 0, 1), seed=_int("seed", seed, 0, _U64),
        horizon=_int("horizon", horizon, 1, 100_000), options=opts,
        transcript=None if transcript is None else str(transcript), no_wall_clock=no_wall_clock,
        trajectory=trajectory,
    )


def analyze(trajectory: Union[Dict[str, Any], str], detail: bool = False) -> Any:
    """Interdependence (teamwork) metrics, as ``proagent analyze --json``.

    A trajectory dict (reference-trace schema, e.g. ``play(..., trajectory=True)["trajectory"]``)
    gives one report dict; a file path (reference traces, our episodes, human games; gzip
    or not) gives a list of reports. ``detail=True`` lists every interdependence.
    """
    if not isinstance(trajectory, dict):
        trajectory = str(trajectory)
    return _analyze(trajectory, detail=detail)


def to_overcooked(state: Dict[str, Any]) -> Any:
    """The overcooked_ai ``OvercookedState`` of a state dict (needs ``overcooked_ai``)."""
    from overcooked_ai_py.mdp.overcooked_mdp import OvercookedState, Recipe

    if not getattr(Recipe, "_configured", False):
        Recipe.configure({})
    return OvercookedState.from_dict(state)


def from_overcooked(state: Any) -> Dict[str, Any]:
    """The state dict of an overcooked_ai ``OvercookedState`` (or of its ``to_dict()``),
    ready for :meth:`Env.set_state`."""
    d = state if isinstance(state, dict) else state.to_dict()
    return d


def _register_gymnasium_ids() -> None:
    """Registers the Gymnasium ids when gymnasium is installed (entry points are strings,
    so nothing else is imported until ``gymnasium.make``)."""
    try:
        import gymnasium
    except ImportError:
        return
    from ._native import catalog_games

    # One entry point for every game; each id fixes the game and, where the id promises a
    # partner other than the game's default, that partner (the game catalog lists them).
    ids = [(env_id, dict(kwargs)) for e in catalog_games() for env_id, kwargs in e["gym_ids"]]
    for env_id, kwargs in ids:
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="proagent.gym:GymEnv", kwargs=kwargs)


_register_gymnasium_ids()
