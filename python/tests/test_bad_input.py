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
        proagent.EnvV2("cramped_room_v2", horizon=10**12)
    with pytest.raises(ValueError, match="n must be in"):
        proagent.VecEnv("cramped_room", n=-3)
    with pytest.raises(ValueError, match="view_radius must be ≥ 0"):
        proagent.VecEnv("v2:cramped_room_v2", view_radius=-1)
    with pytest.raises(ValueError, match="seed must be ≥ 0"):
        proagent.partner("greedy", seed=-2)
    with pytest.raises(ValueError, match="seat must be ≤ 1"):
        proagent.partner("greedy", seat=7)
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
    v2 = proagent.EnvV2("cramped_room_v2")
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
    # In a child process with its address space capped at 2 GiB: a batch that needs far
    # more raises MemoryError (and the interpreter lives on to say so).
    code = (
        "import resource, proagent\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "try:\n"
        "    proagent.VecEnv('counter_circuit', n=1 << 20, obs='overcooked_ai')\n"
        "except MemoryError as e:\n"
        "    print('MemoryError', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("MemoryError"), (out.stdout, out.stderr[-2000:])


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
    for make in (lambda: proagent.Env(str(path)), lambda: proagent.EnvV2(f"v2:{path}"),
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
    threading.Timer(0.5, _thread.interrupt_main).start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        pa.act(env)
    assert time.monotonic() - start < 1.5


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
    ["cramped_room", "v2:cramped_room_v2", "nope", "", "v2:", "/dev/null", "v2:/dev/zero"]))
def test_hostile_values_give_ordinary_errors(horizon, seed, a, b, n, layout):
    def attempt(f):
        try:
            f()
        except proagent.InternalError:  # a Rust panic caught at the boundary: a bug
            raise
        except ORDINARY:
            pass

    attempt(lambda: proagent.Env(layout, horizon=horizon).reset(seed=seed))
    attempt(lambda: proagent.EnvV2(layout, horizon=horizon, view_radius=n).reset(seed=seed))

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
    attempt(lambda: proagent.partner("greedy", seat=a, seed=seed, horizon=horizon))
