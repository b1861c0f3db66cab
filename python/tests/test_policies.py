"""Partners and the ProAgent agent as policies, Python seats inside Rust episodes,
play/analyze/qa from Python, and a ProAgent run against `proagent mock-server`."""

import json
import pickle
import subprocess

import pytest

import proagent
import proagent.qa


def test_partners_act_on_an_env_and_on_a_dict():
    env = proagent.Env("cramped_room")
    env.reset()
    for kind in ["greedy", "scripted", "courier", "random", "stay", "bc", "proagent"]:
        p = proagent.partner(kind, seat=1, seed=3, layout=env)
        a = p.act(env)
        assert 0 <= a < 6, kind
        assert isinstance(p.name, str) and p.seat == 1
    g1 = proagent.partner("greedy", seat=1, layout=env)
    g2 = proagent.partner("greedy", seat=1, layout=env)
    assert g1.act(env) == g2.act(env.state)
    with pytest.raises(ValueError, match="unknown agent"):
        proagent.partner("telepath", layout=env)
    with pytest.raises(ValueError, match="seat must be 0 or 1, got 2"):
        proagent.partner("greedy", seat=2)


def test_greedy_partners_play_a_python_loop_like_the_runner():
    env = proagent.Env("cramped_room", horizon=200)
    env.reset()
    p0 = proagent.partner("scripted", seat=0, seed=0, layout=env)
    p1 = proagent.partner("greedy", seat=1, seed=0, layout=env)
    while not env.done:
        env.step((p0.act(env), p1.act(env)))
    summary = proagent.play("cramped_room", agent="scripted", partner="greedy", seed=0, horizon=200)
    assert env.score == summary["score"] > 0


def test_learned_partners_play_from_python():
    # The shipped self-play PPO model cooks with itself; a Python loop with two `sp`
    # policies plays the runner's episode, seeded the same way.
    summary = proagent.play("cramped_room", agent="sp", partner="sp", seed=5, horizon=400)
    assert summary["score"] >= 100 and summary["agent"].startswith("sp")
    env = proagent.Env("cramped_room", horizon=400)
    env.reset()
    p0 = proagent.partner("sp", seat=0, seed=5, layout=env)
    p1 = proagent.partner("sp", seat=1, seed=5, layout=env)
    while not env.done:
        env.step((p0.act(env), p1.act(env)))
    assert env.score == summary["score"]
    with pytest.raises(ValueError, match="reading RL model /no/such.safetensors"):
        proagent.partner("rl:/no/such.safetensors", layout=env)


def test_play_summary_matches_the_cli_shape_and_is_deterministic():
    a = proagent.play("cramped_room", agent="proagent", partner="greedy", seed=2, horizon=80)
    b = proagent.play("cramped_room", agent="proagent", partner="greedy", seed=2, horizon=80)
    assert a == b
    for key in ["layout", "agent", "partner", "seat", "seed", "score", "deliveries", "steps", "teamwork"]:
        assert key in a
    assert a["steps"] == 80 and a["agent"].startswith("proagent")


def test_the_summary_equals_play_json_of_the_binary(binary):
    out = subprocess.run(
        [str(binary), "play", "--agent", "scripted", "--partner", "greedy", "--seed", "4", "--horizon", "60", "--json"],
        check=True, capture_output=True, text=True,
    )
    cli = json.loads(out.stdout.splitlines()[0])
    py = proagent.play("cramped_room", agent="scripted", partner="greedy", seed=4, horizon=60)
    assert py == cli


def test_a_python_callable_plays_a_seat_in_a_rust_episode():
    calls = []

    def my_policy(state, seat):
        calls.append((state["timestep"], seat))
        assert set(state) >= {"players", "objects", "timestep"}
        return "interact" if state["timestep"] % 2 else 4

    s = proagent.play("cramped_room", agent="scripted", partner=my_policy, seat=0, seed=1, horizon=50)
    assert s["partner"] == "python:my_policy"
    assert calls == [(t, 1) for t in range(50)]

    class Obj:
        def act(self, state, seat):
            return 0

    s = proagent.play("cramped_room", agent=Obj(), partner="greedy", seat=1, horizon=10, trajectory=True)
    steps = s["trajectory"]["steps"]
    assert [st["actions"][1] for st in steps] == ["N"] * 10


def test_an_exception_in_a_python_seat_is_raised_after_the_episode():
    def broken(state, seat):
        if state["timestep"] == 3:
            raise KeyError("boom")
        return 4

    with pytest.raises(KeyError, match="boom"):
        proagent.play("cramped_room", agent=broken, partner="greedy", horizon=20)

    def bad_action(state, seat):
        return 42

    with pytest.raises(ValueError, match="not in 0..6"):
        proagent.play("cramped_room", agent=bad_action, partner="greedy", horizon=5)


def test_a_policy_object_can_be_lent_to_play():
    pol = proagent.partner("greedy", seat=1, seed=0)
    s = proagent.play("cramped_room", agent="scripted", partner=pol, seed=0, horizon=60)
    t = proagent.play("cramped_room", agent="scripted", partner="greedy", seed=0, horizon=60)
    assert s["score"] == t["score"]


def test_analyze_a_played_trajectory_and_a_trace_file():
    s = proagent.play("forced_coordination", agent="scripted", partner="courier", horizon=200, trajectory=True)
    r = proagent.analyze(s["trajectory"])
    assert r["deliveries"] == s["deliveries"]
    assert r["constructive"] == s["teamwork"]["constructive"]
    from conftest import TRACES

    reports = proagent.analyze(TRACES / "forced_coordination.jsonl")
    assert len(reports) == 3


def test_qa_questions_and_scoring():
    qs = proagent.qa.questions(filter="game=Overcooked")
    assert qs and all(q["game"] == "Overcooked" for q in qs)
    assert qs[0]["messages"][-1]["content"]
    q = qs[0]
    right = q["accepted"][0]
    wrong = next(o["letter"] for o in q["options"] if o["letter"] not in q["accepted"])
    rep = proagent.qa.score({q["id"]: [f"Answer: {right}", f"Answer: {wrong}", None]}, filter="game=Overcooked")
    assert [x["correct"] for x in rep["exchanges"]] == [True, False, False]
    with pytest.raises(ValueError, match="no question"):
        proagent.qa.score({"nope": "A"})


def test_proagent_options_are_checked():
    with pytest.raises(ValueError, match="temperature"):
        proagent.agent(temperature=5.0)
    with pytest.raises(ValueError, match="belief"):
        proagent.agent(belief="sometimes")
    with pytest.raises(ValueError, match="max_replans"):
        proagent.agent(max_replans=99)
    a = proagent.agent(memory_k=3, belief="annotate", verificator="rules", seat=0)
    assert a.act(proagent.Env("cramped_room")) in range(6)


@pytest.fixture
def mock_server(binary):
    proc = subprocess.Popen(
        [str(binary), "mock-server", "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("listening on http://127.0.0.1:"), line
        yield line.removeprefix("listening on ") + "/v1"
    finally:
        proc.kill()
        proc.wait()


def test_proagent_against_the_mock_server_writes_a_transcript(mock_server, tmp_path, binary):
    path = tmp_path / "run.jsonl"
    s = proagent.play(
        "cramped_room", agent="proagent", partner="greedy", seed=0, horizon=40,
        model="mock-model", base_url=mock_server, memory_k=2, transcript=str(path), no_wall_clock=True,
    )
    # Named as the CLI names a seat: its model and every option that differs from the defaults.
    assert s["agent"] == "proagent[mock-model,memory_k=2]"
    assert s["llm_calls"] > 0 and s["llm_failures"] == 0
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    header, footer = lines[0], lines[-1]
    assert header["type"] == "header" and footer["type"] == "footer"
    assert header["config"]["model"]["model"] == "mock-model"
    assert header["config"]["model"]["base_url"] == mock_server
    assert header["config"]["proagent"]["memory_k"] == 2
    assert sum(1 for x in lines if x["type"] == "step") == 40
    assert sum(1 for x in lines if x["type"] == "exchange") == s["llm_calls"]
    assert footer["data"]["score"] == s["score"]
    # The binary replays the Python-written transcript offline and finds no divergence.
    out = subprocess.run([str(binary), "replay", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    # The agent as a Policy object talks to the server too.
    agent = proagent.agent("cramped_room", seat=0, model="mock-model", base_url=mock_server)
    env = proagent.Env("cramped_room")
    env.reset()
    assert agent.act(env) in range(6)
    ex = agent.exchanges()
    assert ex and ex[0]["kind"] == "planner" and ex[0]["outcome"]["status"] == "reply"
    assert agent.llm_usage()["calls"] >= 1


def test_a_proagent_policy_writes_the_runners_transcript_from_a_python_loop(tmp_path):
    path = tmp_path / "loop.jsonl"
    env = proagent.Env("cramped_room", horizon=60)
    env.reset()
    pa = proagent.agent(env, seat=0, seed=5, transcript=str(path), no_wall_clock=True)
    mate = proagent.partner("greedy", seat=1, seed=5, layout=env)
    while not env.done:
        env.step((pa.act(env), mate.act(env)))
    assert not path.exists() and (tmp_path / "loop.jsonl.partial").exists()
    assert str(pa.finish(env)) == str(path)
    loop = [json.loads(x) for x in path.read_text().splitlines()]
    assert loop[-1]["type"] == "footer" and loop[-1]["data"]["score"] == env.score
    with pytest.raises(ValueError, match="no transcript"):
        pa.finish(env)

    ran = tmp_path / "play.jsonl"
    proagent.play("cramped_room", agent="proagent", partner="greedy", seed=5, horizon=60,
                  transcript=str(ran), no_wall_clock=True)
    run = [json.loads(x) for x in ran.read_text().splitlines()]
    body = lambda lines: [x for x in lines if x["type"] in ("step", "exchange")]  # noqa: E731
    assert len(body(loop)) > 60
    assert body(loop) == body(run)


@pytest.mark.parametrize("kind", ["greedy", "random", "bc", "sp", "proagent"])
def test_partners_pickle_and_deepcopy_mid_episode(kind):
    import copy
    import pickle

    env = proagent.Env("cramped_room", horizon=60)
    env.reset()
    p0 = proagent.partner("scripted", seat=0, seed=1, layout=env)
    p1 = proagent.partner(kind, seat=1, seed=1, layout=env)
    for _ in range(20):
        env.step((p0.act(env), p1.act(env)))
    twins = [pickle.loads(pickle.dumps(p1)), copy.deepcopy(p1)]
    for _ in range(25):
        a = p1.act(env)
        assert all(t.act(env) == a for t in twins)
        env.step((p0.act(env), a))


@pytest.mark.parametrize("layout,agent,partner", [("v2:grounded_coord_simple", "scripted", "random"),
                                                  ("v2:cramped_room_v2", "proagent", "scripted")])
def test_play_on_v2_equals_play_json_of_the_binary(binary, layout, agent, partner):
    out = subprocess.run(
        [str(binary), "play", "--layout", layout, "--agent", agent, "--partner", partner, "--seed", "3",
         "--horizon", "40", "--json", "--no-transcript"],
        check=True, capture_output=True, text=True,
    )
    cli = json.loads(out.stdout.splitlines()[0])
    py = proagent.play(layout, agent=agent, partner=partner, seed=3, horizon=40)
    assert py == cli
    assert py["layout"] == layout and py["game"] == "overcooked_v2" and py["steps"] == 40
    traj = proagent.play(layout, agent=agent, partner=partner, seed=3, horizon=40, trajectory=True)["trajectory"]
    assert len(traj["steps"]) == 40


@pytest.mark.parametrize("layout,partner", [("hanabi", "convention"), ("capture:2", "greedy_baseline"),
                                            ("escape:1", "fixer")])
def test_play_on_the_llm_coordination_games_equals_play_json_of_the_binary(binary, layout, partner):
    out = subprocess.run(
        [str(binary), "play", "--layout", layout, "--agent", "llmco", "--partner", partner, "--seed", "2",
         "--horizon", "200", "--json", "--no-transcript"],
        check=True, capture_output=True, text=True,
    )
    cli = json.loads(out.stdout.splitlines()[0])
    py = proagent.play(layout, agent="llmco", partner=partner, seed=2, horizon=200)
    assert py == cli
    assert py["agent"] == "llmco[rule-based]" and py["layout"] == layout


def test_play_on_v2_takes_spec_seats_only():
    with pytest.raises(TypeError, match="spec string"):
        proagent.play("v2:grounded_coord_simple", agent=lambda s, p: 0, partner="scripted")
    with pytest.raises(ValueError, match="partner"):
        proagent.play("v2:grounded_coord_simple", agent="scripted", partner="greedy")


@pytest.mark.parametrize("layout", ["v2:cramped_room_v2", "v2:grounded_coord_simple"])
def test_v2_partners_in_a_python_loop_play_the_episode_play_plays(layout):
    ref = proagent.play(layout, agent="scripted", partner="random", seed=3, horizon=40, trajectory=True)
    want = [st["actions"] for st in ref["trajectory"]["steps"]]
    env = proagent.Env(layout, horizon=40)
    env.reset(seed=3)
    a = proagent.partner("scripted", seat=0, seed=3, layout=env)
    b = proagent.partner("random", seat=1, seed=3, layout=layout)
    letters = "NSEWXI"
    got = []
    for _ in range(40):
        joint = [a.act(env), b.act(env)]
        got.append([letters[i] for i in joint])
        env.step(joint)
    assert got == want
    assert env.score == ref["score"]


def test_v2_partner_refuses_what_it_cannot_play():
    with pytest.raises(ValueError, match="greedy"):
        proagent.partner("greedy", layout="v2:cramped_room_v2")
    p = proagent.partner("stay", layout="v2:cramped_room_v2")
    with pytest.raises(TypeError, match="OvercookedV2"):
        p.act(proagent.Env("cramped_room"))
    with pytest.raises(ValueError, match="this policy plays"):
        p.act(proagent.Env("v2:grounded_coord_simple"))
    pa = proagent.agent("v2:cramped_room_v2", seat=0, seed=1)
    env = proagent.Env("v2:cramped_room_v2")
    env.reset(seed=1)
    assert 0 <= pa.act(env) < 6


def test_one_policy_class_plays_every_game_as_the_built_in_seat_does():
    """A Hanabi partner made by `partner()` and driven from a Python loop makes the moves
    the same seat makes inside `Env(..., partners=...)` for the same seed."""
    seed = 11
    inside = proagent.Env("hanabi:2p", partners={1: "simple"})
    inside.reset(seed=seed)
    outside = proagent.Env("hanabi:2p")
    outside.reset(seed=seed)
    policy = proagent.partner("simple", seat=1, seed=seed, layout="hanabi:2p")
    assert type(policy) is proagent.Policy and policy.seat == 1
    policy.reset(seed)
    moves_inside, moves_outside = [], []
    while inside.movers():
        a = inside.legal_actions(0)[0]
        _, _, _, info = inside.act([a, None])
        moves_inside += [m for _, m in info["partner_moves"]]
        outside.act([a, None])
        if outside.movers() == [1]:
            m = policy.act(outside)
            moves_outside.append(m)
            outside.act([None, m])
    assert moves_inside and moves_inside == moves_outside
    assert inside.score == outside.score
    with pytest.raises(TypeError, match="Hanabi"):
        policy.act(proagent.Env("capture:1"))
    with pytest.raises(TypeError, match="pickled"):
        pickle.dumps(policy)
def test_every_model_option_goes_through_the_one_parser(mock_server):
    # The option dict takes every model option of a seat spec (effort, family, token_param,
    # structured) and the preset, and names the seat as the CLI does.
    from proagent import _native
    opts = {
        "model": "mock-model", "base_url": mock_server, "preset": "paper", "effort": "low",
        "family": "reasoning", "token_param": "max_completion_tokens",
    }
    s = _native.play("cramped_room", agent="proagent", partner="greedy", horizon=4, options=opts, no_wall_clock=True)
    assert s["agent"] == "proagent[mock-model,preset=paper,effort=low,family=reasoning,token_param=max_completion_tokens]"
    for bad, want in [
        ({"effort": "extreme"}, "effort"),
        ({"structured": "maybe"}, "structured"),
        ({"base_url": 3}, "base_url"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"colour": 1}, "unknown ProAgent option"),
    ]:
        with pytest.raises(ValueError, match=want):
            _native.partner("proagent", options=bad)
