"""Hanabi, CollabCapture and CollabEscape from Python: the native GameEnv, PettingZoo's
checks on the AEC and parallel environments, the Gymnasium ids, seeds and rendering."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.test.parallel_test import parallel_api_test as _  # noqa: F401

import proagent
from proagent import games

HANABI = [f"hanabi:{n}p" for n in range(2, 6)]
MAZES = [f"capture:{k}" for k in range(1, 5)] + ["escape:1", "escape:2"]


def _random_episode(spec, seed, partners=None):
    """Plays one episode with random legal moves drawn from `seed`; returns the moves,
    rewards and observations seen."""
    env = proagent.GameEnv(spec, partners=partners)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    while env.movers():
        joint = [None] * env.num_players
        for p in env.movers():
            if p in env.partner_players:
                continue
            legal = env.legal_actions(p)
            assert legal, (spec, p)
            joint[p] = int(rng.choice(legal))
            assert env.action_mask(p)[joint[p]] == 1
        r, term, trunc, info = env.step(joint)
        assert info["refused"] == []
        trace.append((tuple(joint), r, term, trunc, env.observe(0).tobytes(), tuple(info["partner_moves"])))
    return trace, env


@pytest.mark.parametrize("spec", HANABI + MAZES)
def test_same_seed_same_episode_and_a_game_ends(spec):
    a, env = _random_episode(spec, 5)
    b, _ = _random_episode(spec, 5)
    c, _ = _random_episode(spec, 6)
    assert a == b
    assert a != c or spec.startswith("capture")  # the thief is deterministic; Hanabi deals and the killer wanders
    assert env.terminated or env.truncated
    assert env.time <= env.max_steps


def test_hanabi_deals_from_the_seed_and_hides_the_own_hand():
    env = proagent.GameEnv("hanabi:2p")
    env.reset(seed=1)
    hands1 = env.state["hands"]
    env.reset(seed=2)
    assert env.state["hands"] != hands1
    env.reset(seed=1)
    assert env.state["hands"] == hands1
    assert env.obs_len == 658 and env.num_actions == 20  # HLE's 2-player sizes
    assert env.movers() == [0]
    obs = env.observe(0)
    assert obs.dtype == np.float32 and set(np.unique(obs)) <= {0.0, 1.0}
    # Discarding at 8 information tokens is illegal: refused, nothing changes.
    before = env.state
    r, term, trunc, info = env.step([0, None])
    assert info["refused"] == [0] and env.state == before and r == 0


def test_partners_play_their_turns_inside_rust():
    env = proagent.GameEnv("hanabi:3p", partners={1: "simple", 2: "convention"})
    info = env.reset(seed=3)
    assert info["partner_moves"] == [] and env.movers() == [0]
    legal = env.legal_actions(0)
    r, term, trunc, info = env.step([legal[-1], None, None])
    assert [p for p, _ in info["partner_moves"]] == [1, 2]
    assert env.movers() == [0] or term
    with pytest.raises(ValueError, match="unknown partner"):
        proagent.GameEnv("capture:1", partners={1: "simple"})
    with pytest.raises(ValueError, match="has 2 players"):
        proagent.GameEnv("escape:1", partners={2: "fixer"})


def test_bad_specs_and_actions_are_ordinary_errors():
    with pytest.raises(ValueError):
        proagent.GameEnv("/dev/zero")
    # A name that is neither built in nor a file is not found, as `Env` always said.
    for bad in ["hanabi:1p", "hanabi:6p", "hanabi:x", "capture:9", ""]:
        with pytest.raises(FileNotFoundError, match="unknown"):
            proagent.GameEnv(bad)
    env = proagent.GameEnv("capture:1")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="not an action"):
        env.step([10_000, 0])
    with pytest.raises(ValueError):
        env.step([-1, 0])
    with pytest.raises(TypeError):
        env.step([0.5, 0])
    with pytest.raises(ValueError, match="takes 2 entries"):
        env.step([0])
    with pytest.raises(ValueError, match="give its action"):
        env.step([0, None])


@pytest.mark.parametrize("spec", ["hanabi:2p", "hanabi:4p", "capture:1", "capture:4", "escape:1", "escape:2"])
def test_pettingzoo_aec_api(spec):
    api_test(games.env(game=spec), num_cycles=300)


@pytest.mark.parametrize("spec", ["hanabi:2p", "hanabi:5p", "capture:2", "escape:2"])
def test_pettingzoo_seed_and_render(spec):
    seed_test(lambda **kw: games.env(game=spec, **kw), num_cycles=50)
    render_test(lambda render_mode=None, **kw: games.env(game=spec, render_mode=render_mode, **kw))


@pytest.mark.parametrize("spec", ["capture:3", "escape:1"])
def test_pettingzoo_parallel_api(spec):
    parallel_api_test(games.parallel_env(game=spec), num_cycles=300)


def test_families_and_rgb():
    e = games.env(game="hanabi", players=3)
    assert len(e.possible_agents) == 3
    e = games.parallel_env(game="escape", scenario=2, render_mode="rgb_array")
    e.reset(seed=0)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.std() > 0
    h = proagent.GameEnv("hanabi:2p")
    h.reset(seed=0)
    assert h.rgb().ndim == 3
    with pytest.raises(ValueError, match="turn-based"):
        games.parallel_env(game="hanabi:2p")


@pytest.mark.parametrize("env_id", ["proagent/Hanabi-2p-v0", "proagent/Hanabi-5p-v0", "proagent/CollabCapture-1-v0",
                                    "proagent/CollabCapture-4-v0", "proagent/CollabEscape-2-v0"])
def test_gymnasium_ids_pass_check_env(env_id):
    env = gymnasium.make(env_id, render_mode="rgb_array")
    check_env(env.unwrapped)
    obs, info = env.reset(seed=4)
    assert obs.shape == env.observation_space.shape and info["action_mask"].sum() > 0
    # A whole episode with legal random moves ends, and the same seed repeats it.
    def run(seed):
        o, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total, steps = 0.0, 0
        while True:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            o, r, term, trunc, info = env.step(a)
            total += r
            steps += 1
            if term or trunc:
                return total, steps, o.tobytes()
    assert run(9) == run(9)


def test_gym_partner_and_seat():
    env = games.GameGymEnv("hanabi", players=2, partner="convention", seat=1)
    obs, info = env.reset(seed=0)
    # The partner (player 0) has already moved: it is the learner's turn.
    assert env.native.movers() == [1] and env.native.time == 1
    with pytest.raises(ValueError, match="seat"):
        games.GameGymEnv("capture:1", seat=2)


@pytest.mark.parametrize("spec,partners", [("hanabi:3p", {2: "random"}), ("escape:2", {1: "runner"}),
                                           ("capture:1", None)])
def test_pickle_and_deepcopy_give_an_exact_copy(spec, partners):
    import copy
    import pickle

    env = proagent.GameEnv(spec, partners=partners)
    fresh = pickle.loads(pickle.dumps(env))
    assert fresh.spec == spec and fresh.movers() == env.movers()
    env.reset(seed=11)
    rng = np.random.default_rng(0)

    def move(e, rng):
        joint = [None] * e.num_players
        for p in e.movers():
            if p not in e.partner_players:
                joint[p] = int(rng.choice(e.legal_actions(p)))
        return joint

    for _ in range(6):
        if not env.movers():
            break
        env.step(move(env, rng))
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert twin.state == env.state and twin.seed == env.seed and twin.score == env.score
        a, b = np.random.default_rng(5), np.random.default_rng(5)
        e1, e2 = copy.deepcopy(env), twin
        while e1.movers():
            r1 = e1.step(move(e1, a))
            r2 = e2.step(move(e2, b))
            assert r1[:3] == r2[:3] and e1.observe(0).tobytes() == e2.observe(0).tobytes()
        assert not e2.movers()


@pytest.mark.parametrize("spec", ["capture:1", "escape:1"])
def test_pettingzoo_parallel_seed_and_max_cycles(spec):
    from pettingzoo.test import parallel_seed_test

    parallel_seed_test(lambda **kw: games.parallel_env(game=spec, **kw), num_cycles=50)
    # With seed 0, three turns of staying put end neither game: max_cycles rounds, then truncation.
    par = games.parallel_env(game=spec, max_cycles=3)
    par.reset(seed=0)
    for t in range(3):
        _, _, terms, truncs, _ = par.step({a: 0 for a in par.agents})
    assert all(truncs.values()) and not any(terms.values()) and par.agents == []
    aec = games.env(game=spec, max_cycles=3)
    aec.reset(seed=0)
    counts = {a: 0 for a in aec.possible_agents}
    for agent in aec.agent_iter():
        _, _, term, trunc, _ = aec.last()
        counts[agent] += 1
        aec.step(None if term or trunc else 0)
    assert counts == {a: 4 for a in aec.possible_agents}  # 3 moves and the dead step
