"""Every game of the catalog, as the catalog lists it, through the package's one
Gymnasium entry point and PettingZoo's AEC constructor: built, reset, played to the end
with legal actions, pickled and deep-copied mid-episode (the copies go on as the
original), and drawn as one RGB frame. The list comes from the native catalog, so a game
the catalog gains is checked here without edits."""

import copy
import pickle

import numpy as np
import pytest

import proagent
from proagent import games
from proagent._native import catalog_games
from proagent.gym import GymEnv
from proagent.pettingzoo import env as aec_env

def _cases():
    out = []
    for entry in catalog_games():
        assert entry["builtin"], f"{entry['kind']} lists no built-in game"
        out.append(pytest.param(entry["builtin"][0], id=entry["kind"]))
    return out


def test_the_catalog_lists_every_game_once():
    kinds = [e["kind"] for e in catalog_games()]
    assert len(kinds) == len(set(kinds))
    for e in catalog_games():
        for spec in e["builtin"]:
            assert proagent.game_info(spec)["kind"] == e["kind"], spec


def _legal(info, n):
    mask = info.get("action_mask")
    return list(range(n)) if mask is None else [i for i in range(n) if mask[i]]


@pytest.mark.parametrize("spec", _cases())
def test_every_catalog_game_plays_pickles_and_renders_in_gymnasium(spec):
    env = GymEnv(spec, render_mode="rgb_array")
    _, info = env.reset(seed=7)
    rng = np.random.default_rng(0)
    steps, copied = 0, False
    while True:
        if steps == 3 and not copied:
            copied = True
            twins = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
            a = int(rng.choice(_legal(info, env.action_space.n)))
            want = env.step(a)
            for twin in twins:
                got = twin.step(a)
                assert got[1:4] == want[1:4]
                assert np.array_equal(got[0], want[0])
            _, reward, term, trunc, info = want
        else:
            _, reward, term, trunc, info = env.step(int(rng.choice(_legal(info, env.action_space.n))))
        steps += 1
        if term or trunc:
            break
        assert steps <= 100_000
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.dtype == np.uint8 and frame.size > 0


@pytest.mark.parametrize("spec", _cases())
def test_every_catalog_game_builds_in_pettingzoo(spec):
    e = aec_env(game=spec)
    e.reset(seed=1)
    assert e.agents
    agent = e.agent_selection
    assert e.action_space(agent).n > 0


@pytest.mark.parametrize("family", sorted({e["kind"] for e in catalog_games()}))
def test_game_spec_names_each_family_from_the_catalog(family):
    spec = games.game_spec(family)
    assert proagent.game_info(spec)["kind"] == family


def test_game_spec_keeps_its_answers():
    assert games.game_spec("hanabi") == games.game_spec("hanabi", players=2) == "hanabi"
    assert games.game_spec("hanabi", players=3) == "hanabi:3p"
    assert games.game_spec("capture", scenario=2) == "capture:2"
    assert games.game_spec("escape") == "escape:1"
    assert games.game_spec("capture:3") == "capture:3"
    assert games.game_spec("cramped_room") == "cramped_room"
    with pytest.raises(ValueError):
        games.game_spec("cramped_room", players=2)
