"""`proagent.Env` (also named `proagent.GameEnv`) is one class and one environment API
over every game of the catalog: the same calls, the same step convention (`act`) and exact
copies for the Overcookeds as for the turn and maze games, with each game's action indices
and encoding chosen by the catalog; the Overcookeds keep their own `step` besides."""

import copy
import pickle

import numpy as np
import pytest

import proagent
from proagent._native import catalog_games

SPECS = [e["builtin"][0] for e in catalog_games()]


@pytest.mark.parametrize("spec", SPECS)
def test_one_convention_for_every_game(spec):
    env = proagent.GameEnv(spec)
    assert env.kind == proagent.game_info(spec)["kind"]
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps = 0
    while env.movers() and steps < 12:
        movers = env.movers()
        for p in movers:
            obs = env.observe(p)
            assert obs.dtype == np.float32 and obs.shape == (env.obs_len,)
            mask = env.action_mask(p)
            assert mask.shape == (env.num_actions,) and mask.sum() == len(env.legal_actions(p)) > 0
        actions = [int(rng.choice(env.legal_actions(p))) if p in movers else None for p in range(env.num_players)]
        reward, terminated, truncated, info = env.act(actions)
        assert isinstance(reward, int) and isinstance(terminated, bool) and isinstance(truncated, bool)
        assert set(info) >= {"refused", "partner_moves"}
        steps += 1
    assert steps > 0
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert twin.render() == env.render() and twin.score == env.score and twin.time == env.time
        for p in range(env.num_players):
            np.testing.assert_array_equal(twin.observe(p), env.observe(p))
    env.reset(seed=2)
    with pytest.raises(TypeError):
        env.act([0.5] * env.num_players)
    with pytest.raises(TypeError):
        env.step([0.5] * env.num_players)


def test_one_class_under_both_names():
    assert proagent.GameEnv is proagent.Env
    from proagent import _native

    assert _native.GameEnv is _native.Env
    assert not [n for n in dir(_native) if n.endswith("Env") and n not in ("Env", "GameEnv", "VecEnv")]


@pytest.mark.parametrize("spec", SPECS)
def test_every_game_is_built_by_env(spec):
    env = proagent.Env(spec)
    assert env.kind == proagent.game_info(spec)["kind"] and env.num_players == env.n_agents
    assert env.horizon == env.max_steps and env.spec == spec
    env.reset(seed=5)
    mover = env.movers()[0]
    assert env.observe(mover).shape == (env.obs_len,)
    assert isinstance(env.state, dict) and isinstance(env.render(), str)
    assert env.rgb(cell=8).shape[2] == 3


def test_the_overcookeds_keep_their_own_step_beside_act():
    classic = proagent.Env("cramped_room", horizon=3)
    classic.reset(seed=0)
    state, reward, done, info = classic.step([4, 5])
    assert isinstance(state, dict) and set(info) == {"sparse_r_by_agent", "shaped_r_by_agent"}
    reward, terminated, truncated, info = classic.act([4, 4])
    assert (reward, terminated, truncated) == (0, False, False) and info == {"refused": [], "partner_moves": []}
    assert classic.timestep == 2 and classic.time == 2
    classic.act([4, 4])
    assert classic.truncated and classic.done and classic.movers() == []
    with pytest.raises(ValueError, match="over"):
        classic.act([4, 4])
    # The classic Env's own observations are still there, by kind.
    assert classic.observe().shape[0] == 2 and classic.observe("featurize", seat=1).shape == (96,)
    twin = pickle.loads(pickle.dumps(classic))
    assert twin.state == classic.state and twin.score == classic.score
    # Built-in partners make an Overcooked Env of the one convention only.
    partnered = proagent.Env("cramped_room", partners={1: "greedy"})
    partnered.reset(seed=0)
    reward, terminated, truncated, info = partnered.step([4, None])
    assert [p for p, _ in info["partner_moves"]] == [1]
    with pytest.raises(TypeError, match="classic"):
        partnered.lossless()
    copy.deepcopy(partnered)


def test_classic_overcooked_observations_are_overcooked_ais_featurize():
    one = proagent.GameEnv("cramped_room")
    own = proagent.Env("cramped_room")
    one.reset(seed=0)
    own.reset(seed=0)
    assert one.num_actions == 6 and one.obs_len == 96
    rng = np.random.default_rng(3)
    for _ in range(40):
        for p in (0, 1):
            np.testing.assert_array_equal(one.observe(p), own.observe("featurize", seat=p))
        a0, a1 = (int(x) for x in rng.integers(6, size=2))
        one.step([a0, a1])
        own.step_fast(a0, a1)
    assert one.score == own.score


def test_overcooked_v2_observations_are_jaxmarls_tensor():
    spec = next(s for e in catalog_games() if e["kind"] == "overcooked_v2" for s in e["builtin"])
    one = proagent.GameEnv(spec)
    own = proagent.Env(spec)
    one.reset(seed=0)
    own.reset(seed=0)
    rng = np.random.default_rng(4)
    for _ in range(20):
        for p, tensor in enumerate(own.observations_now()):
            np.testing.assert_array_equal(one.observe(p), np.asarray(tensor, dtype=np.float32).ravel())
        actions = [int(x) for x in rng.integers(6, size=one.num_players)]
        one.step(actions)
        own.step(actions)
