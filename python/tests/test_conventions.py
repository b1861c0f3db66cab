"""One set of conventions over every game, checked game by game: the native Env and the
Gymnasium and PettingZoo wrappers pickle and deep-copy at any point of an episode, refuse
an action of the wrong type, build with their defaults, and PettingZoo's two constructors
agree on their default game."""

import copy
import pickle

import numpy as np
import pytest

import proagent
from proagent import games
from proagent.gym import GymEnv
from proagent.pettingzoo import env as aec_env
from proagent.pettingzoo import parallel_env
from proagent.pettingzoo import raw_env as raw_aec_env

#: One spec of every game.
GAMES = ["cramped_room", "v2:cramped_room_v2", "hanabi:2p", "capture:1", "escape:1"]
#: The games whose players all act at every step (PettingZoo's parallel API).
SIMULTANEOUS = ["cramped_room", "v2:cramped_room_v2", "capture:1", "escape:1"]


def _legal(info, n):
    mask = info.get("action_mask")
    if mask is None:
        return list(range(n))
    return [i for i in range(n) if mask[i]]


def _native(game):
    """The native episode of a game and a function that steps it with a seeded choice."""
    if proagent.game_info(game)["kind"] == "overcooked_v2":
        env = proagent.Env(game)
        env.reset(seed=3)
        return env, lambda e, rng: e.step([int(rng.integers(6)) for _ in range(e.n_agents)])
    if proagent.game_info(game)["kind"] == "overcooked":
        env = proagent.Env(game)
        env.reset(seed=3)
        return env, lambda e, rng: e.step([int(rng.integers(6)), int(rng.integers(6))])[1:3]
    env = proagent.GameEnv(game)
    env.reset(seed=3)

    def step(e, rng):
        if not e.movers():  # the game is over (Hanabi's third misplay): nothing to step
            return None
        return e.step([int(rng.choice(e.legal_actions(p))) if p in e.movers() else None
                       for p in range(e.num_players)])[:3]
    return env, step


@pytest.mark.parametrize("game", GAMES)
def test_native_env_pickles_and_deep_copies_mid_episode(game):
    env, step = _native(game)
    rng = np.random.default_rng(0)
    for _ in range(5):
        step(env, rng)
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert twin.score == env.score and twin.render() == env.render()
        a, b = copy.deepcopy(env), twin
        r1, r2 = np.random.default_rng(9), np.random.default_rng(9)
        for _ in range(4):
            one, two = step(a, r1), step(b, r2)
            if isinstance(one, tuple) and isinstance(one[0], list):
                one, two = one[1:], two[1:]
            assert one == two
        assert a.render() == b.render()


@pytest.mark.parametrize("game", GAMES)
def test_gym_env_pickles_and_deep_copies_mid_episode(game):
    env = GymEnv(game)
    _, info = env.reset(seed=5)
    for _ in range(4):
        _, _, term, trunc, info = env.step(_legal(info, env.action_space.n)[-1])
        if term or trunc:  # a short Hanabi game: go on in the next episode
            _, info = env.reset()
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        a = _legal(info, env.action_space.n)[0]
        one, two = copy.deepcopy(env).step(a), twin.step(a)
        assert np.array_equal(one[0], two[0]) and one[1:4] == two[1:4]


@pytest.mark.parametrize("game", SIMULTANEOUS)
def test_parallel_env_pickles_and_deep_copies_mid_episode(game):
    env = parallel_env(game=game)
    obs, _ = env.reset(seed=2)
    for _ in range(3):
        obs, *_ = env.step({a: 0 for a in env.agents})
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        one = copy.deepcopy(env).step({a: 1 for a in env.agents})
        two = twin.step({a: 1 for a in twin.agents})
        assert one[1:4] == two[1:4]
        for a in one[0]:
            x, y = one[0][a], two[0][a]
            if isinstance(x, dict):
                x, y = x["observation"], y["observation"]
            assert np.array_equal(x, y)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", [1.0, 1.5, True, "1x", None])
def test_gym_env_refuses_an_action_of_the_wrong_type(game, bad):
    env = GymEnv(game)
    env.reset(seed=0)
    with pytest.raises((TypeError, ValueError)):
        env.step(bad)


@pytest.mark.parametrize("game", SIMULTANEOUS)
def test_parallel_env_refuses_a_float_action(game):
    env = parallel_env(game=game)
    env.reset(seed=0)
    with pytest.raises(TypeError):
        env.step({a: 1.0 for a in env.agents})


@pytest.mark.parametrize("game", GAMES)
def test_aec_env_refuses_a_float_action(game):
    env = aec_env(game=game)
    env.reset(seed=0)
    # PettingZoo's out-of-bounds wrapper refuses it first (AssertionError); unwrapped, the
    # environment itself raises TypeError.
    with pytest.raises((TypeError, AssertionError)):
        env.step(1.0)
    raw = raw_aec_env(game=game)
    raw.reset(seed=0)
    with pytest.raises(TypeError):
        for _ in raw.possible_agents:  # the Overcookeds apply the joint action at the last
            raw.step(1.0)


@pytest.mark.parametrize("game", GAMES + ["v2:grounded_coord_simple"])
def test_default_partner_exists_for_every_game(game):
    env = GymEnv(game)
    _, info = env.reset(seed=1)
    for _ in range(3):
        _, _, term, trunc, info = env.step(_legal(info, env.action_space.n)[0])
        if term or trunc:
            break
    assert env.partner_spec == proagent.default_partner(game)


@pytest.mark.parametrize("layout", ["v2:cramped_room_v2", "v2:grounded_coord_simple"])
def test_overcooked_gym_env_takes_the_v2_default_partner(layout):
    from proagent.gym import OvercookedGymEnv

    env = OvercookedGymEnv(layout)
    env.reset(seed=0)
    env.step(4)
    assert env.partner_spec == "scripted"


def test_env_and_parallel_env_agree_on_the_default_game():
    assert aec_env().unwrapped.game == parallel_env().game
    assert games.env().unwrapped.game == games.parallel_env().game


@pytest.mark.parametrize("layout", ["cramped_room", "v2:cramped_room_v2"])
def test_one_policy_class_on_both_overcookeds(layout):
    from proagent import _native

    assert not hasattr(_native, "PolicyV2") and not hasattr(_native, "partner_v2")
    env = proagent.Env(layout)
    env.reset(seed=0)
    policy = proagent.partner(proagent.default_partner(layout), seat=1, layout=env)
    assert type(policy) is proagent.Policy and policy.seat == 1
    assert 0 <= policy.act(env) < 6
    policy.metrics()
    assert policy.exchanges() == []


@pytest.mark.parametrize("layout,kind", [("cramped_room", "overcooked"), ("v2:cramped_room_v2", "overcooked_v2")])
def test_one_env_class_on_both_overcookeds(layout, kind):
    from proagent import _native

    assert not hasattr(_native, "EnvV2")
    env = proagent.Env(layout, horizon=5)
    assert type(env) is proagent.Env and env.kind == kind and env.n_agents == 2 and env.horizon == 5
    env.reset(seed=1)
    for _ in range(5):
        env.step([4, 5])
    assert env.done and env.timestep == 5 and isinstance(env.render(), str)
    # A method of the other game names the game instead of failing obscurely.
    with pytest.raises(TypeError, match="OvercookedV2" if kind == "overcooked" else "classic"):
        env.recipe if kind == "overcooked" else env.lossless()


def test_env_refuses_v2_switches_on_a_classic_layout_and_other_games():
    with pytest.raises(ValueError, match="OvercookedV2 switches"):
        proagent.Env("cramped_room", view_radius=2)
    with pytest.raises(ValueError, match="OvercookedV2 switches"):
        proagent.Env("hanabi:2p", negative_rewards=True)
