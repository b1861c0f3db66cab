"""overcooked_ai 1.x's encodings, value for value: the 26-layer lossless encoding and the
96 `featurize_state` features of states both simulators share (the reference traces'),
against the values overcooked-ai 1.1.0 itself computed (tests/fixtures/ai_encodings.json,
written by scripts/gen_ai_encoding_fixtures.py; overcooked-ai is not needed here)."""

import json

import numpy as np
import pytest

import proagent
from conftest import REPO

FIXTURE = json.loads((REPO / "tests" / "fixtures" / "ai_encodings.json").read_text())
CASES = [(lay, i) for lay in FIXTURE["layouts"] for i in range(len(lay["states"]))]


def env_for(lay, tmp_path):
    path = tmp_path / f"{lay['layout']}.layout"
    path.write_text("\n".join(lay["grid"]) + "\n")
    return proagent.VecEnv(str(path), 1, horizon=lay["horizon"], obs="overcooked_ai"), str(path)


@pytest.mark.parametrize("layout", FIXTURE["layouts"], ids=lambda lay: lay["layout"])
def test_lossless_and_featurize_match_overcooked_ai(layout, tmp_path):
    path = tmp_path / f"{layout['layout']}.layout"
    path.write_text("\n".join(layout["grid"]) + "\n")
    env = proagent.Env(str(path), horizon=layout["horizon"])
    w, h = env.width, env.height
    checked = 0
    for row in layout["states"]:
        env.set_state(row["state"])
        ours = env.observe("overcooked_ai")
        assert ours.shape == (2, w, h, 26)
        for p in range(2):
            want = np.zeros((w, h, 26), dtype=np.float32)
            for x, y, c, v in row["lossless"][p]:
                want[x, y, c] = v
            assert np.array_equal(ours[p], want), (layout["layout"], row["trace_step"], p,
                                                   np.argwhere(ours[p] != want)[:5].tolist())
        feats = env.observe("featurize")
        assert feats.shape == (2, 96)
        for p in range(2):
            assert feats[p].tolist() == row["features"][p], (layout["layout"], row["trace_step"], p,
                                                              np.nonzero(feats[p] != np.array(row["features"][p]))[0].tolist())
        with_counters = env.observe("featurize", counter_goals=True)
        for p in range(2):
            assert with_counters[p].tolist() == row["features_counter_goals"][p], (layout["layout"], row["trace_step"], p)
        checked += 1
    assert checked >= 20


def test_names_are_exposed():
    env = proagent.Env("cramped_room")
    assert len(env.obs_names("overcooked_ai")) == 26 and env.obs_names("overcooked_ai")[25] == "urgency"
    names = env.obs_names("featurize")
    assert len(names) == 96 and names[0] == "p0_orientation_north" and names[-1] == "p0_y"
    vec = proagent.VecEnv("cramped_room", 2, obs="featurize")
    assert vec.obs_names == names and vec.observation_shape == [2, 2, 96]
    hwc = proagent.VecEnv("cramped_room", 1, obs="overcooked_ai", order="hwc")
    whc = proagent.VecEnv("cramped_room", 1, obs="overcooked_ai")
    assert np.array_equal(hwc.reset()[0, 0], whc.reset()[0, 0].transpose(1, 0, 2))
