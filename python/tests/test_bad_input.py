"""Bad input from Python: integers out of range name the parameter, floats / NaN / bools
are no actions, impossible states are refused, an impossible allocation is a MemoryError,
layout paths that are not regular files are refused at once, a failing model follows
play()'s rules, Ctrl-C interrupts a retry backoff, and a Hypothesis property test drives
the bindings with hostile values (only ordinary exceptions come back, never a crash or
an internal error)."""

import _thread
import math
import os
import subprocess
import sys
import signal
import threading
import time

import numpy as np
import pytest

import proagent

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def test_integers_name_the_parameter():
    with pytest.raises(ValueError, match="seed must be ≥ 0, got -1"):
        proagent.Env("cramped_room").reset(seed=-1)
    with pytest.raises(ValueError, match="seed must be in"):
        proagent.Env("cramped_room").reset(seed=2**80)
    with pytest.raises(ValueError, match="horizon must be in 1..=100000, got -5"):
        proagent.Env("cramped_room", horizon=-5)
    with pytest.raises(ValueError, match="horizon must be in"):
        proagent.Env("v2:cramped_room_v2", horizon=10**12)
    with pytest.raises(ValueError, match="n must be in"):
        proagent.VecEnv("cramped_room", n=-3)
    with pytest.raises(ValueError, match="view_radius must be ≥ 0"):
        proagent.VecEnv("v2:cramped_room_v2", view_radius=-1)
    with pytest.raises(ValueError, match="seed must be ≥ 0"):
        proagent.partner("greedy", seed=-2)
    with pytest.raises(ValueError, match="seat must be 0 or 1, got 7"):
        proagent.partner("greedy", seat=7)
    with pytest.raises(ValueError, match="seat must be in 0..3, got 3"):
        proagent.partner("simple", seat=3, layout="hanabi:3p")
    with pytest.raises(ValueError, match="seat must be ≤ 63"):
        proagent.partner("simple", seat=64, layout="hanabi:3p")
    with pytest.raises(TypeError, match="horizon must be an integer"):
        proagent.Env("cramped_room", horizon=3.5)
    with pytest.raises(ValueError, match="seed must be ≥ 0"):
        proagent.play("cramped_room", agent="stay", partner="stay", seed=-1)


def test_float_nan_and_bool_actions_are_refused():
    env = proagent.Env("cramped_room")
    env.reset()
    for bad in (0.0, 1.5, math.nan, True, np.float64(2.0)):
        with pytest.raises(TypeError):
            env.step((bad, 0))
    v2 = proagent.Env("v2:cramped_room_v2")
    v2.reset(seed=0)
    with pytest.raises(TypeError):
        v2.step([math.nan, 0])
    from proagent.gym import OvercookedGymEnv

    g = OvercookedGymEnv("cramped_room", partner="stay", horizon=5)
    g.reset(seed=0)
    for bad in (math.nan, 2.5, True):
        with pytest.raises(TypeError):
            g.step(bad)


def test_impossible_states_are_refused():
    env = proagent.Env("cramped_room")
    s = env.reset()
    both = dict(s, players=[s["players"][0], dict(s["players"][1], position=s["players"][0]["position"])])
    with pytest.raises(ValueError):
        env.set_state(both)
    too_full = dict(s, objects=[{"name": "soup", "position": (2, 0), "_ingredients": [{"name": "onion"}] * 5,
                                 "cooking_tick": -1}])
    with pytest.raises(ValueError):
        env.set_state(too_full)
    with pytest.raises(ValueError):
        env.set_state(dict(s, players=[dict(s["players"][0], orientation=(1, 1)), s["players"][1]]))
    with pytest.raises(ValueError):
        env.set_state(dict(s, players=s["players"][:1]))
    half = dict(s, objects=[{"name": "soup", "position": (2, 0), "_ingredients": [{"name": "onion"}] * 2,
                             "cooking_tick": 5}])
    with pytest.raises(ValueError, match="cannot be cooking"):
        env.set_state(half)
    with pytest.raises(ValueError, match="timestep"):
        env.set_state(dict(s, timestep=-4))


def test_an_impossible_allocation_is_a_memory_error():
    # In a child process with its address space capped at 1 GiB: a batch under the size
    # cap that still needs far more raises MemoryError (and the interpreter lives on).
    code = (
        "import resource, proagent\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "try:\n"
        "    proagent.VecEnv('counter_circuit', n=100_000, obs='overcooked_ai')\n"
        "except MemoryError as e:\n"
        "    print('MemoryError', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("MemoryError"), (out.stdout, out.stderr[-2000:])


@pytest.mark.parametrize("obs", [None, "overcooked_ai", "featurize"])
def test_a_batch_over_the_size_cap_is_refused_up_front(obs):
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"n: 1048576 environments .* VecEnv limit of 4 GiB"):
        proagent.VecEnv("counter_circuit", 2**20, obs=obs)
    assert time.monotonic() - start < 2
    with pytest.raises(ValueError, match="n must be in"):
        proagent.VecEnv("counter_circuit", 2**20 + 1)


def test_a_rust_panic_is_an_ordinary_exception():
    from proagent import _native

    for call in (lambda: _native._PanicProbe().method(), _native._panic_probe):
        with pytest.raises(Exception) as info:
            call()
        assert isinstance(info.value, proagent.InternalError), type(info.value)
        assert "a panic raised on purpose" in str(info.value)
    try:
        _native._panic_probe()
    except Exception:  # noqa: BLE001 - the point: `except Exception` catches it
        pass


def test_every_binding_is_guarded():
    # Every #[pymethods] block and #[pyfunction] of the bindings is written inside the
    # guard macros, so no Python-facing method can let a panic through.
    import pathlib
    import re

    src = pathlib.Path(__file__).resolve().parents[1] / "src"
    if not src.is_dir():
        pytest.skip("the Rust sources are not beside the tests")
    unguarded, seen = [], 0
    for f in sorted(src.glob("*.rs")):
        lines = f.read_text().split("\n")
        for i, line in enumerate(lines):
            if line not in ("#[pymethods]", "#[pyfunction]"):
                continue
            seen += 1
            j = i - 1
            while j >= 0 and (lines[j].startswith("///") or lines[j].startswith("#[")):
                j -= 1
            want = "guarded_methods! {" if line == "#[pymethods]" else "guarded_fns! {"
            if j < 0 or lines[j] != want:
                unguarded.append(f"{f.name}:{i + 1}")
    assert seen > 15
    assert not unguarded, unguarded


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory", "too_big"])
def test_maze_paths_must_be_small_regular_files(tmp_path, kind):
    if kind == "fifo":
        path = tmp_path / "pipe.maze"
        os.mkfifo(path)
    elif kind == "dev_zero":
        path = "/dev/zero"
    elif kind == "directory":
        path = tmp_path
    else:
        path = tmp_path / "big.maze"
        path.write_text("#" * (2 << 20))
    start = time.monotonic()
    with pytest.raises(ValueError, match="regular file|limit"):
        proagent.GameEnv(str(path))
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory", "too_big"])
def test_layout_paths_must_be_small_regular_files(tmp_path, kind):
    if kind == "fifo":
        path = tmp_path / "pipe.layout"
        os.mkfifo(path)
    elif kind == "dev_zero":
        path = "/dev/zero"
    elif kind == "directory":
        path = tmp_path
    else:
        path = tmp_path / "big.layout"
        path.write_text("X" * (2 << 20))
    start = time.monotonic()
    for make in (lambda: proagent.Env(str(path)), lambda: proagent.Env(f"v2:{path}"),
                 lambda: proagent.VecEnv(str(path), 1)):
        with pytest.raises(ValueError, match="regular file|limit"):
            make()
    assert time.monotonic() - start < 5


def _closed_port() -> int:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: connections are refused at once
    return port


def test_agent_act_follows_plays_failure_rules():
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    env = proagent.Env("cramped_room")
    env.reset()
    strict = proagent.agent(env, model="some-model", base_url=url, retries=0, connect_timeout=1)
    with pytest.raises(proagent.ModelFailure, match="max_llm_failures"):
        strict.act(env)
    lenient = proagent.agent(env, model="some-model", base_url=url, retries=0, connect_timeout=1,
                             max_llm_failures=None)
    assert 0 <= lenient.act(env) < 6
    assert lenient.llm_usage()["failures"] >= 1


def test_ctrl_c_interrupts_a_retry_backoff_within_a_second():
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    env = proagent.Env("cramped_room")
    env.reset()
    pa = proagent.agent(env, model="some-model", base_url=url, retries=5, backoff_ms=60_000,
                        backoff_max_ms=60_000, connect_timeout=1)
    # A shell starts background jobs with SIGINT ignored, and then interrupt_main does
    # nothing: install Python's own handler for the length of the test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.5, _thread.interrupt_main).start()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            pa.act(env)
        assert time.monotonic() - start < 1.5
    finally:
        signal.signal(signal.SIGINT, previous)


HOSTILE_INTS = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from([0, 1, 2, 5, 6, -1, 2**63, 2**64]))
HOSTILE = st.one_of(
    HOSTILE_INTS,
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=12),
    st.lists(st.integers(-3, 9), max_size=3),
)
ORDINARY = (ValueError, TypeError, OverflowError, FileNotFoundError, OSError, KeyError, IndexError)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(horizon=HOSTILE, seed=HOSTILE, a=HOSTILE, b=HOSTILE, n=HOSTILE, layout=st.sampled_from(
    ["cramped_room", "v2:cramped_room_v2", "nope", "", "v2:", "/dev/null", "v2:/dev/zero", "hanabi:3p",
     "capture:2", "escape:1", "hanabi:0p"]))
def test_hostile_values_give_ordinary_errors(horizon, seed, a, b, n, layout):
    def attempt(f):
        try:
            f()
        except proagent.InternalError:  # a Rust panic caught at the boundary: a bug
            raise
        except ORDINARY:
            pass

    attempt(lambda: proagent.Env(layout, horizon=horizon).reset(seed=seed))
    attempt(lambda: proagent.Env(layout, horizon=horizon, view_radius=n).reset(seed=seed))

    def step_env():
        e = proagent.Env("cramped_room", horizon=3)
        e.reset(seed=0)
        e.step((a, b))

    attempt(step_env)

    def vec():
        v = proagent.VecEnv(layout, n=n if isinstance(n, int) and 0 < n < 8 else n, horizon=horizon, seed=seed)
        v.reset(seed=seed)
        v.step(np.array([[a, b]] * v.num_envs, dtype=object))

    attempt(vec)

    def game():
        g = proagent.GameEnv(layout if layout.startswith(("hanabi", "capture", "escape")) else "hanabi:2p",
                             partners={1: "simple"} if isinstance(a, int) else None)
        g.reset(seed=seed)
        g.step([a, b])
        g.observe(n)
        g.action_mask(n)

    attempt(game)
    attempt(lambda: proagent.partner("greedy", seat=a, seed=seed, horizon=horizon))


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory"])
def test_analyze_and_qa_paths_must_be_regular_files(tmp_path, kind):
    import proagent.qa

    if kind == "fifo":
        path = tmp_path / "pipe.jsonl"
        os.mkfifo(path)
    elif kind == "dev_zero":
        path = "/dev/zero"
    else:
        path = tmp_path
    start = time.monotonic()
    with pytest.raises(ValueError, match="not a regular file"):
        proagent.analyze(str(path))
    with pytest.raises(ValueError, match="not a regular file"):
        proagent.qa.questions(data=str(path))
    assert time.monotonic() - start < 5


def test_a_gzip_bomb_trajectory_stops_at_the_limit(tmp_path):
    import gzip

    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        chunk = b"\n" * (1 << 20)
        for _ in range(300):  # 300 MiB of newlines, past the 256 MiB limit
            f.write(chunk)
    with pytest.raises(ValueError, match="256 MiB"):
        proagent.analyze(str(bomb))


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory"])
def test_model_paths_in_seat_specs_must_be_regular_files(tmp_path, kind):
    if kind == "fifo":
        path = tmp_path / "model.safetensors"
        os.mkfifo(path)
    elif kind == "dev_zero":
        path = "/dev/zero"
    else:
        path = tmp_path
    start = time.monotonic()
    for spec in (f"bc:{path}", f"rl:{path}"):
        with pytest.raises(ValueError, match="not a regular file"):
            proagent.partner(spec, layout="cramped_room")
        with pytest.raises(ValueError, match="not a regular file"):
            proagent.play("cramped_room", agent="greedy", partner=spec, horizon=5)
        with pytest.raises(ValueError, match="not a regular file"):
            proagent.VecEnv("cramped_room", 2, partner=spec)
    assert time.monotonic() - start < 5
