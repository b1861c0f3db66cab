"""VecEnv equals n independent Envs, including auto-reset at the horizon."""

import numpy as np
import pytest

import proagent


@pytest.mark.parametrize("obs", ["lossless", "features", "none"])
@pytest.mark.parametrize("threads", [1, 2])
def test_vec_env_matches_independent_envs(obs, threads):
    n, horizon, steps = 7, 15, 40  # crosses two horizons: auto-reset is exercised
    vec = proagent.VecEnv("coordination_ring", n, horizon=horizon, obs=obs, threads=threads)
    envs = [proagent.Env("coordination_ring", horizon=horizon) for _ in range(n)]
    first = vec.reset()
    for e in envs:
        e.reset()
    if obs == "lossless":
        assert np.array_equal(first, np.stack([e.lossless() for e in envs]))
    rng = np.random.default_rng(3)
    scores = np.zeros(n)
    for t in range(steps):
        # Biased towards interact so that soups get cooked and served.
        actions = rng.choice(6, size=(n, 2), p=[0.15, 0.15, 0.15, 0.15, 0.1, 0.3])
        o, r, d, info = vec.step(actions)
        assert o.shape == tuple(vec.observation_shape)
        for i, e in enumerate(envs):
            state, reward, done, einfo = e.step(tuple(int(a) for a in actions[i]))
            scores[i] += reward
            assert r[i] == reward and d[i] == done
            assert list(info["sparse_r_by_agent"][i]) == einfo["sparse_r_by_agent"]
            assert list(info["shaped_r_by_agent"][i]) == einfo["shaped_r_by_agent"]
            assert info["score"][i] == scores[i]
            if done:
                e.reset()
                scores[i] = 0
            if obs == "lossless":
                assert np.array_equal(o[i], e.lossless()), (t, i)
            elif obs == "features":
                assert np.array_equal(o[i], e.features()), (t, i)
            assert vec.state(i) == e.state


def test_vec_env_rejects_bad_actions():
    vec = proagent.VecEnv("cramped_room", 4)
    vec.reset()
    with pytest.raises(ValueError, match=r"shape \(4, 2\)"):
        vec.step(np.zeros((3, 2), dtype=np.int64))
    a = np.zeros((4, 2), dtype=np.int64)
    a[2, 1] = 9
    with pytest.raises(ValueError, match=r"actions\[2\] holds 9"):
        vec.step(a)
    with pytest.raises(ValueError, match="obs must be"):
        proagent.VecEnv("cramped_room", 2, obs="pixels")
    with pytest.raises(ValueError, match="n must be"):
        proagent.VecEnv("cramped_room", 0)


def test_vec_env_accepts_lists_and_int32():
    vec = proagent.VecEnv("cramped_room", 2, obs="none")
    vec.reset()
    _, r, d, _ = vec.step([[0, 1], [5, 4]])
    assert r.shape == (2,) and not d.any()
    vec.step(np.array([[2, 3], [4, 4]], dtype=np.int32))
    assert vec.state(0)["timestep"] == 2
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        vec.step([1, 2, 3])
