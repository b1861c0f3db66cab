"""Gymnasium's env checker and PettingZoo's parallel API test."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pettingzoo = pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import parallel_api_test  # noqa: E402

from proagent.gym import OvercookedGymEnv  # noqa: E402
from proagent.pettingzoo import OvercookedParallelEnv  # noqa: E402


@pytest.mark.parametrize("obs", ["lossless", "features"])
def test_gymnasium_env_checker(obs):
    env = OvercookedGymEnv("cramped_room", partner="greedy", seat=0, horizon=50, obs=obs)
    check_env(env, skip_render_check=True)


def test_gym_episode_with_a_partner_scores_and_truncates():
    env = OvercookedGymEnv("cramped_room", partner="scripted", seat=1, horizon=400, shaped_coef=1.0)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (5, 4, 20)
    total, steps, truncated = 0.0, 0, False
    while not truncated:
        obs, r, terminated, truncated, info = env.step(4)  # the learner stays put
        assert not terminated
        total += r
        steps += 1
    assert steps == 400
    # The scripted partner cooks and serves alone on cramped_room.
    assert total > 0


def test_pettingzoo_parallel_api():
    env = OvercookedParallelEnv("cramped_room", horizon=60)
    parallel_api_test(env, num_cycles=200)


def test_pettingzoo_features_and_rewards():
    env = OvercookedParallelEnv("forced_coordination", horizon=5, obs="features", shaped_coef=0.5)
    obs, infos = env.reset(seed=1)
    assert set(obs) == {"player_0", "player_1"} and obs["player_0"].shape == (62,)
    for _ in range(5):
        obs, rew, term, trunc, infos = env.step({"player_0": 5, "player_1": 5})
    assert all(trunc.values()) and env.agents == []
    assert all(np.isfinite(list(rew.values())))
