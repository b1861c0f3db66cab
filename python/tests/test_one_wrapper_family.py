"""One Gymnasium class and one PettingZoo family over every game of the catalog: each
game (as the native catalog lists it, so a game the catalog gains is checked here without
edits) builds the same classes, passes Gymnasium's check_env and PettingZoo's api_test
(and parallel_api_test where its players act at once), refuses a float action in every
wrapper, and the AEC and the parallel constructor give the same agents, spaces and
observations. The older names are the same classes."""

import copy
import pickle

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test  # noqa: E402

import proagent  # noqa: E402
from proagent import games, pettingzoo  # noqa: E402
from proagent._native import catalog_games  # noqa: E402
from proagent.gym import GymEnv, OvercookedGymEnv  # noqa: E402


def _cases():
    return [pytest.param(e["builtin"][0], id=e["kind"]) for e in catalog_games()]


def _simultaneous(spec):
    return not proagent.GameEnv(spec).turn_based


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(a, b)


def test_the_older_names_are_the_one_classes():
    assert OvercookedGymEnv is GymEnv and games.GameGymEnv is GymEnv
    assert pettingzoo.OvercookedParallelEnv is pettingzoo.GameParallelEnv
    assert games.MazeParallelEnv is pettingzoo.GameParallelEnv
    assert games.GameAECEnv is pettingzoo.GameAECEnv
    assert games.env is pettingzoo.env and games.parallel_env is pettingzoo.parallel_env
    import gymnasium

    for env_id in ("proagent/Overcooked-cramped_room-v0", "proagent/Hanabi-2p-v0", "proagent/CollabEscape-1-v0"):
        assert type(gymnasium.make(env_id).unwrapped) is GymEnv


@pytest.mark.parametrize("spec", _cases())
def test_every_game_is_one_gymnasium_class_that_passes_check_env(spec):
    env = GymEnv(spec, max_cycles=40)
    assert type(env) is GymEnv
    check_env(env, skip_render_check=True)
    env.reset(seed=0)
    with pytest.raises(TypeError):
        env.step(1.0)
    twin = pickle.loads(pickle.dumps(env))
    assert type(twin) is GymEnv and type(copy.deepcopy(env)) is GymEnv


@pytest.mark.parametrize("spec", _cases())
def test_every_game_is_one_aec_class_that_passes_api_test(spec):
    raw = pettingzoo.raw_env(game=spec, max_cycles=30)
    assert type(raw) is pettingzoo.GameAECEnv
    api_test(pettingzoo.env(game=spec, max_cycles=30), num_cycles=60)
    raw.reset(seed=0)
    with pytest.raises(TypeError):
        raw.step(0.0)


@pytest.mark.parametrize("spec", _cases())
def test_every_simultaneous_game_is_one_parallel_class_that_passes_parallel_api_test(spec):
    if not _simultaneous(spec):
        with pytest.raises(ValueError, match="turn-based"):
            pettingzoo.parallel_env(game=spec)
        return
    par = pettingzoo.parallel_env(game=spec, max_cycles=30)
    assert type(par) is pettingzoo.GameParallelEnv
    parallel_api_test(par, num_cycles=60)
    par.reset(seed=0)
    with pytest.raises(TypeError):
        par.step({a: 1.5 for a in par.agents})


@pytest.mark.parametrize("spec", _cases())
def test_env_and_parallel_env_agree_on_every_game(spec):
    aec = pettingzoo.raw_env(game=spec)
    aec.reset(seed=5)
    assert aec.possible_agents
    for a in aec.possible_agents:
        assert aec.action_space(a).n > 0
    if not _simultaneous(spec):
        return
    par = pettingzoo.parallel_env(game=spec)
    obs, _ = par.reset(seed=5)
    assert par.possible_agents == aec.possible_agents
    for a in par.possible_agents:
        assert par.action_space(a) == aec.action_space(a)
        assert par.observation_space(a) == aec.observation_space(a)
        mine = aec.observe(a)
        if isinstance(mine, dict):  # a player waiting for its turn in the AEC sees no legal action
            assert np.array_equal(obs[a]["observation"], mine["observation"])
            if a == aec.agent_selection:
                assert np.array_equal(obs[a]["action_mask"], mine["action_mask"])
        else:
            assert _same(obs[a], mine)


def test_env_and_parallel_env_default_to_the_same_game():
    assert pettingzoo.raw_env().game == pettingzoo.parallel_env().game == GymEnv().game


def test_a_python_policy_partner_plays_as_its_builtin_seat_on_a_turn_based_game():
    # The Policy is asked whenever its player is to move; the episode is the one the same
    # seat plays inside Rust.
    rng = np.random.default_rng(4)
    mine = GymEnv("hanabi:2p", partner=proagent.partner("simple", seat=1, layout="hanabi:2p"), seat=0)
    ref = GymEnv("hanabi:2p", partner="simple", seat=0)
    (o1, i1), (o2, i2) = mine.reset(seed=9), ref.reset(seed=9)
    assert np.array_equal(o1, o2)
    for _ in range(400):
        a = int(rng.choice(np.flatnonzero(i1["action_mask"])))
        o1, r1, t1, u1, i1 = mine.step(a)
        o2, r2, t2, u2, i2 = ref.step(a)
        assert np.array_equal(o1, o2) and (r1, t1, u1) == (r2, t2, u2) and i1["score"] == i2["score"]
        if t1 or u1:
            break
    assert t1 or u1


@pytest.mark.parametrize("make", [lambda **k: GymEnv("hanabi", **k), lambda **k: pettingzoo.raw_env(game="hanabi", **k)])
def test_players_and_scenario_are_strict_integers(make):
    assert make(players=3).game == "hanabi:3p"
    for bad in (2.5, 3.0, True):
        with pytest.raises(TypeError):
            make(players=bad)
    with pytest.raises(TypeError):
        make(scenario=1.0)
