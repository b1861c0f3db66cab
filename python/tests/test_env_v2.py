"""Env on OvercookedV2 layouts: the same seed and actions give what `proagent play --layout v2:...`
gives, the view radius shapes and hides, and bad input is refused."""

import json
import subprocess

import numpy as np
import pytest

import proagent

LETTERS = {"N": 0, "S": 1, "E": 2, "W": 3, "X": 4, "I": 5}


def test_replays_a_cli_episode_step_for_step(tmp_path, binary):
    traj = tmp_path / "traj.jsonl"
    out = subprocess.run(
        [
            str(binary), "play", "--layout", "v2:grounded_coord_simple", "--agent", "scripted",
            "--partner", "scripted", "--view-radius", "2", "--resample-recipe", "--negative-rewards",
            "--random-starts", "--horizon", "150", "--seed", "7", "--trajectory", str(traj), "--json",
        ],
        check=True, capture_output=True, text=True, cwd=tmp_path,
    )
    summary = json.loads(out.stdout)
    rec = json.loads(traj.read_text().splitlines()[0])
    env = proagent.Env(
        "v2:grounded_coord_simple", horizon=150, view_radius=2, resample_recipe=True,
        negative_rewards=True, random_starts=True,
    )
    obs = env.reset(seed=7)
    assert env.n_agents == 2 and len(obs) == 2
    score = 0
    for step in rec["steps"]:
        actions = [LETTERS[a] if a in LETTERS else a for a in step["actions"]]
        obs, reward, done, info = env.step(actions)
        assert reward == step["reward"], step["t"]
        assert info["shaped_r_by_agent"] == step["shaped"], step["t"]
        assert [e is not None for e in info["events"]] == [e is not None for e in step["events"]], step["t"]
        score += reward
    assert done and env.done
    assert score == summary["score"] == env.score
    assert env.deliveries == (summary["deliveries"], summary["wrong_deliveries"])


def test_same_seed_same_start_other_seed_other_draws():
    a = proagent.Env("v2:grounded_coord_ring", random_starts=True)
    b = proagent.Env("v2:grounded_coord_ring", random_starts=True)
    starts = set()
    for seed in range(8):
        oa, ob = a.reset(seed=seed), b.reset(seed=seed)
        assert a.positions() == b.positions() and a.recipe == b.recipe
        assert all(np.array_equal(x, y) for x, y in zip(oa, ob))
        starts.add((tuple(a.positions()), a.recipe))
    assert len(starts) > 1


def test_view_radius_shapes_the_window_and_hides_far_cells():
    full = proagent.Env("v2:demo_cook_wide")
    h, w, c = full.observation_shape
    o = full.reset(seed=0)
    assert o[0].shape == (h, w, c) and o[0].dtype == np.int32
    narrow = proagent.Env("v2:demo_cook_wide", view_radius=1)
    o = narrow.reset(seed=0)
    assert narrow.observation_shape == (3, 3, c) and o[0].shape == (3, 3, c)
    x, y = narrow.positions()[0]
    assert narrow.visible(0, x, y)
    assert not narrow.visible(0, (x + 3) % w, y)
    assert full.visible(0, (x + 3) % w, y)


def test_bad_input_is_refused():
    with pytest.raises(FileNotFoundError, match="unknown OvercookedV2 layout"):
        proagent.Env("v2:nowhere")
    with pytest.raises(ValueError, match="view_radius"):
        proagent.Env("v2:cramped_room_v2", view_radius=99)
    env = proagent.Env("v2:cramped_room_v2", horizon=1)
    env.reset()
    with pytest.raises(ValueError, match="takes 2 action"):
        env.step([0])
    with pytest.raises(ValueError):
        env.step([0, "fly"])
    env.step(["stay", "interact"])
    with pytest.raises(ValueError, match="over"):
        env.step([4, 4])
    assert "v2:cramped_room_v2" in repr(env) and env.render()
