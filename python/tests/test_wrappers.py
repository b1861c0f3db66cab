"""The ecosystem's own checks: Gymnasium's env checker (render included), registered ids,
the vector adapter, PettingZoo's parallel and AEC API tests, seed, max_cycles and render
tests, a real state(); pickling and deep copies of the wrappers."""

import copy
import pickle

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pettingzoo = pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, render_test, seed_test  # noqa: E402

import proagent  # noqa: E402
import proagent.pettingzoo as ppz  # noqa: E402
from proagent.gym import OvercookedGymEnv  # noqa: E402
from proagent.pettingzoo import OvercookedParallelEnv  # noqa: E402
from proagent.vector import OvercookedVectorEnv  # noqa: E402


@pytest.mark.parametrize("obs", ["lossless", "overcooked_ai", "features", "featurize"])
@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_gymnasium_env_checker_with_render(obs, render_mode):
    env = OvercookedGymEnv("cramped_room", partner="greedy", seat=0, horizon=50, obs=obs, render_mode=render_mode)
    check_env(env)


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_gymnasium_env_checker_v2(render_mode):
    env = OvercookedGymEnv("v2:grounded_coord_simple", partner="scripted", seat=1, horizon=40, view_radius=2,
                           resample_recipe=True, random_starts=True, render_mode=render_mode)
    check_env(env)
    frame = env.render()
    assert (frame.shape[2] == 3 and frame.dtype == np.uint8) if render_mode == "rgb_array" else isinstance(frame, str)


def test_registered_ids_make_working_envs():
    # Made through its id, the env has a spec: check_env then also re-makes it in the
    # other render mode and checks that one too.
    check_env(gymnasium.make("proagent/Overcooked-cramped_room-v0", horizon=20, render_mode="rgb_array").unwrapped)
    check_env(gymnasium.make("proagent/OvercookedV2-cramped_room_v2-v0", horizon=20, render_mode="ansi").unwrapped)
    env = gymnasium.make("proagent/Overcooked-cramped_room-v0", partner="greedy", horizon=20)
    obs, info = env.reset(seed=0)
    assert obs.shape == (5, 4, 20) and "episode_seed" in info
    env2 = gymnasium.make("proagent/OvercookedV2-grounded_coord_simple-v0", horizon=20, view_radius=1)
    obs, _ = env2.reset(seed=0)
    assert obs.shape[:2] == (3, 3)
    for _ in range(20):
        obs, r, term, trunc, info = env2.step(env2.action_space.sample())
    assert trunc and not term


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


def test_gym_seeds_drive_the_partner_and_differ_between_episodes():
    env = OvercookedGymEnv("cramped_room", partner="random", horizon=30, obs="features")

    def episode(seed=None):
        env.reset(seed=seed)
        return [env.step(4)[4]["partner_action"] for _ in range(30)]

    a = episode(7)
    b, c = episode(), episode()
    assert a == episode(7) and b != c and a != b
    # The episode with seed s is `play --seed s`'s: same partner moves.
    summary = proagent.play("cramped_room", agent="stay", partner="random", seed=7, horizon=30, trajectory=True)
    letters = dict(zip("NSEWXI", range(6)))
    assert a == [letters[s["actions"][1]] for s in summary["trajectory"]["steps"]]


def test_sync_vector_env_sub_envs_get_different_partner_streams():
    vec = gymnasium.vector.SyncVectorEnv(
        [lambda: OvercookedGymEnv("cramped_room", partner="random", horizon=5, obs="features") for _ in range(3)],
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,
    )
    vec.reset(seed=1)
    moves = []
    for _ in range(12):  # crosses two auto-resets
        _, _, _, _, info = vec.step(np.full(3, 4))
        # On the step that ends the episodes, their infos are under `final_info`.
        pa = info["partner_action"] if "partner_action" in info else info["final_info"]["partner_action"]
        moves.append([int(x) for x in pa])
    m = np.array(moves)
    assert not np.array_equal(m[:, 0], m[:, 1]) and not np.array_equal(m[:, 1], m[:, 2])
    assert not np.array_equal(m[0:4, 0], m[6:10, 0])


def test_policy_and_callable_partners():
    env = OvercookedGymEnv("cramped_room", partner=proagent.partner("greedy", seat=1), horizon=10)
    env.reset(seed=0)
    env.step(0)
    seen = []

    def mine(state, seat):
        seen.append((state["timestep"], seat))
        return "interact"

    env = OvercookedGymEnv("cramped_room", partner=mine, seat=1, horizon=10)
    env.reset(seed=0)
    _, _, _, _, info = env.step(4)
    assert seen == [(0, 0)] and info["partner_action"] == 5


def test_vector_adapter_same_step_autoreset():
    env = OvercookedVectorEnv("cramped_room", num_envs=4, partner="greedy", horizon=6, obs="features", shaped_coef=1.0)
    obs, info = env.reset(seed=3)
    assert obs.shape == (4, 62) and env.single_observation_space.contains(obs[0])
    assert list(info["episode_seed"]) == [3, 4, 5, 6]
    for t in range(6):
        obs, r, term, trunc, infos = env.step(env.action_space.sample())
    assert trunc.all() and not term.any()
    assert infos["_final_obs"].all() and infos["final_obs"][0].shape == (62,)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert obs.shape == (4, 62)


def test_pettingzoo_parallel_and_aec_api():
    parallel_api_test(OvercookedParallelEnv("cramped_room", horizon=60), num_cycles=200)
    parallel_api_test(OvercookedParallelEnv("v2:grounded_coord_simple", horizon=30, obs="grid"), num_cycles=60)
    api_test(ppz.env(layout="cramped_room", horizon=30, obs="features"), num_cycles=60)


def test_pettingzoo_seed_max_cycles_and_render_tests():
    seed_test(lambda: ppz.env(layout="v2:grounded_coord_simple", horizon=40, random_starts=True), num_cycles=40)
    max_cycles_test(ppz)
    render_test(lambda render_mode=None: ppz.env(layout="cramped_room", horizon=8, render_mode=render_mode))


def test_pettingzoo_state_and_jaxmarl_style():
    env = OvercookedParallelEnv("forced_coordination", horizon=5, obs="overcooked_ai", style="jaxmarl", shaped_coef=0.5)
    obs, infos = env.reset(seed=1)
    assert set(obs) == {"agent_0", "agent_1"}
    w, h = 5, 5
    assert obs["agent_0"].shape == (h, w, 26)
    s = env.state()
    assert env.state_space.contains(s) and s.shape == env.state_space.shape
    for _ in range(5):
        obs, rew, term, trunc, infos = env.step({"agent_0": 1, "agent_1": 1})
    assert all(trunc.values()) and env.agents == []
    assert not np.array_equal(s, env.state())  # the state follows the game
    v2 = OvercookedParallelEnv("v2:grounded_coord_simple", view_radius=1)
    v2.reset(seed=0)
    assert v2.observation_space("player_0").shape[:2] == (3, 3) and v2.state().shape[:2] != (3, 3)


@pytest.mark.parametrize("make", [
    lambda: OvercookedGymEnv("cramped_room", partner="greedy", horizon=30),
    lambda: OvercookedGymEnv("v2:cramped_room_v2", partner="scripted", horizon=30),
    lambda: OvercookedParallelEnv("cramped_room", horizon=30),
])
def test_wrappers_pickle_and_deepcopy(make):
    env = make()
    env.reset(seed=4)
    step = (lambda e: e.step(2)) if isinstance(env, OvercookedGymEnv) else (lambda e: e.step({a: 2 for a in e.agents}))
    for _ in range(7):
        step(env)
    for make_twin in (lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy):
        twin = make_twin(env)
        a, b = step(env), step(twin)
        assert np.array_equal(a[0] if not isinstance(a[0], dict) else a[0]["player_0"],
                              b[0] if not isinstance(b[0], dict) else b[0]["player_0"])
        assert twin.vec.state(0) == env.vec.state(0)
