"""`proagent.GameEnv` is one environment API over every game of the catalog: the same
calls, the same step convention and exact copies for the Overcookeds as for the turn and
maze games, with each game's action indices and encoding chosen by the catalog."""

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
        reward, terminated, truncated, info = env.step(actions)
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
        env.step([0.5] * env.num_players)


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
