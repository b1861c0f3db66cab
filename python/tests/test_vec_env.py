"""VecEnv: equal to n independent Envs (classic) and V2 Envs, terminated/truncated and
the final observation on auto-reset, built-in partners that play the runner's episodes,
seeds that mean something, pickling, and bad actions refused."""

import copy
import pickle

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
        o, r, term, trunc, info = vec.step(actions)
        assert o.shape == tuple(vec.observation_shape)
        assert not term.any()
        for i, e in enumerate(envs):
            state, reward, done, einfo = e.step(tuple(int(a) for a in actions[i]))
            scores[i] += reward
            assert r[i] == reward and trunc[i] == done
            assert list(info["sparse_r_by_agent"][i]) == einfo["sparse_r_by_agent"]
            assert list(info["shaped_r_by_agent"][i]) == einfo["shaped_r_by_agent"]
            assert info["score"][i] == scores[i]
            if done:
                # The final observation is the finished episode's last one.
                if obs == "lossless":
                    assert info["_final_obs"][i] and np.array_equal(info["final_obs"][i], e.lossless())
                e.reset()
                scores[i] = 0
            if obs == "lossless":
                assert np.array_equal(o[i], e.lossless()), (t, i)
            elif obs == "features":
                assert np.array_equal(o[i], e.features()), (t, i)
            assert vec.state(i) == e.state
        if not trunc.any():
            assert "final_obs" not in info


def test_v2_vec_env_matches_env_v2():
    kw = dict(view_radius=2, resample_recipe=True, random_starts=True)
    vec = proagent.VecEnv("v2:grounded_coord_simple", 3, horizon=30, **kw)
    assert vec.game_kind == "overcooked_v2" and vec.obs_kind == "grid"
    obs = vec.reset(seed=11)
    envs = [proagent.Env("v2:grounded_coord_simple", horizon=30, **kw) for _ in range(3)]
    for i, e in enumerate(envs):
        o = e.reset(seed=11 + i)
        assert np.array_equal(obs[i], np.stack(o).astype(np.float32))
    rng = np.random.default_rng(0)
    for t in range(45):
        a = rng.integers(0, 6, size=(3, 2))
        obs, r, term, trunc, info = vec.step(a)
        for i, e in enumerate(envs):
            o, reward, done, _ = e.step([int(x) for x in a[i]])
            assert r[i] == reward and trunc[i] == done, (t, i)
            if done:
                assert np.array_equal(info["final_obs"][i], np.stack(o).astype(np.float32))
                o = e.reset(seed=int(vec.episode_seeds()[i]))
            assert np.array_equal(obs[i], np.stack(o).astype(np.float32)), (t, i)


def test_a_built_in_partner_plays_the_runners_episode():
    # The learner replays the agent's actions of `play`; the partner seat (greedy, seed s)
    # then makes the same moves as in `play --seed s`, so the scores agree.
    summary = proagent.play("cramped_room", agent="scripted", partner="random", seed=9, horizon=60, trajectory=True)
    learner = [step["actions"][0] for step in summary["trajectory"]["steps"]]
    vec = proagent.VecEnv("cramped_room", 1, horizon=60, partner="random", seat=0, obs="none")
    vec.reset(seed=9)
    letters = dict(zip("NSEWXI", range(6)))
    total = 0.0
    for a in learner:
        _, r, _, trunc, info = vec.step(np.array([letters[a]]))
        total += r[0]
    assert trunc[0] and total == summary["score"]


def test_partner_streams_differ_across_envs_and_episodes_and_repeat_by_seed():
    def partner_moves(seed, n=4, steps=30):
        vec = proagent.VecEnv("cramped_room", n, horizon=15, partner="random", seat=0, obs="none")
        vec.reset(seed=seed)
        moves = []
        for _ in range(steps):
            _, _, _, _, info = vec.step(np.full(n, 4))
            moves.append(info["joint_actions"][:, 1].copy())
        return np.array(moves)  # (steps, n)

    a, b = partner_moves(5), partner_moves(5)
    assert np.array_equal(a, b)  # same seed, same episodes
    assert not np.array_equal(a[:, 0], a[:, 1])  # sub-envs differ
    assert not np.array_equal(a[:15, 0], a[15:, 0])  # the auto-reset episode differs
    assert not np.array_equal(a, partner_moves(6))


def test_terminated_and_truncated_without_autoreset():
    vec = proagent.VecEnv("cramped_room", 2, horizon=3, autoreset=False, obs="none")
    vec.reset(seed=0)
    for _ in range(2):
        _, _, term, trunc, _ = vec.step(np.zeros((2, 2), dtype=np.int64))
        assert not term.any() and not trunc.any()
    _, _, term, trunc, info = vec.step(np.zeros((2, 2), dtype=np.int64))
    assert trunc.all() and not term.any() and "final_obs" not in info
    assert vec.is_done(0)
    with pytest.raises(ValueError, match="episode is over"):
        vec.step(np.zeros((2, 2), dtype=np.int64))
    vec.reset()
    assert vec.timesteps() == [0, 0]


@pytest.mark.parametrize("layout,partner", [("cramped_room", "greedy"), ("v2:cramped_room_v2", "scripted")])
def test_pickle_and_deepcopy_continue_the_same_episode(layout, partner):
    vec = proagent.VecEnv(layout, 3, horizon=20, partner=partner, seat=1)
    vec.reset(seed=3)
    rng = np.random.default_rng(1)
    for _ in range(27):
        vec.step(rng.integers(0, 6, size=3))
    for make in (lambda v: pickle.loads(pickle.dumps(v)), copy.deepcopy):
        twin = make(vec)
        acts = rng.integers(0, 6, size=(10, 3))
        outs = []
        for env in (vec, twin):
            env_out = []
            for a in acts:
                o, r, te, tr, info = env.step(a)
                env_out.append((o, r, tr, info["joint_actions"]))
            outs.append(env_out)
        for x, y in zip(*outs):
            assert all(np.array_equal(p, q) for p, q in zip(x, y))


def test_vec_env_rejects_bad_actions():
    vec = proagent.VecEnv("cramped_room", 4)
    vec.reset()
    with pytest.raises(ValueError, match=r"shape \(4, 2\)"):
        vec.step(np.zeros((3, 2), dtype=np.int64))
    a = np.zeros((4, 2), dtype=np.int64)
    a[2, 1] = 9
    with pytest.raises(ValueError, match=r"actions\[2\]\[1\] holds 9"):
        vec.step(a)
    with pytest.raises(TypeError, match="integers"):
        vec.step(np.full((4, 2), np.nan))
    with pytest.raises(TypeError, match="integers"):
        vec.step(np.zeros((4, 2), dtype=bool))
    with pytest.raises(ValueError, match="obs must be"):
        proagent.VecEnv("cramped_room", 2, obs="pixels")
    with pytest.raises(ValueError, match="n must be in"):
        proagent.VecEnv("cramped_room", 0)
    with pytest.raises(ValueError, match="seed must be ≥ 0"):
        vec.reset(seed=-1)
    with pytest.raises(ValueError, match="partner"):
        proagent.VecEnv("cramped_room", 2, partner="proagent")


def test_vec_env_accepts_lists_and_int32():
    vec = proagent.VecEnv("cramped_room", 2, obs="none")
    vec.reset()
    _, r, term, trunc, _ = vec.step([[0, 1], [5, 4]])
    assert r.shape == (2,) and not trunc.any()
    vec.step(np.array([[2, 3], [4, 4]], dtype=np.int32))
    assert vec.state(0)["timestep"] == 2
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        vec.step([1, 2, 3])
