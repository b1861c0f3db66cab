"""A reasoning model's options through the Python API (``effort``, ``family``,
``token_param`` of :func:`proagent.play` and :func:`proagent.agent`): each reaches the
request the model server gets, shown against ``proagent mock-server`` refusing that
parameter; a bad value raises a ValueError naming the option."""

import json
import subprocess

import pytest

import proagent


@pytest.fixture
def mock(binary):
    """Starts ``proagent mock-server`` with extra flags; gives its base URL. Stopped after the test."""
    procs = []

    def start(*flags):
        proc = subprocess.Popen(
            [str(binary), "mock-server", "--addr", "127.0.0.1:0", *flags],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        procs.append(proc)
        line = proc.stdout.readline().strip()
        assert line.startswith("listening on http://127.0.0.1:"), line
        return line.removeprefix("listening on ") + "/v1"

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def _play(url, **kw):
    return proagent.play("cramped_room", agent="proagent", partner="greedy", horizon=8, base_url=url,
                         no_wall_clock=True, **kw)


def _faults(path):
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    return [f for x in lines if x["type"] == "exchange" for f in x["outcome"].get("faults", [])]


def test_effort_is_sent_as_reasoning_effort(mock):
    url = mock("--reject-params", "reasoning_effort")
    # Without it the server takes every request; with it the server's refusal of
    # `reasoning_effort` stops the seat (a parameter the user set is never dropped).
    s = _play(url, model="o4-mini")
    assert s["llm_calls"] > 0 and s["llm_failures"] == 0
    with pytest.raises(Exception, match="'reasoning_effort' is not supported"):
        _play(url, model="o4-mini", effort="high")
    # The agent as a Policy sends it too.
    a = proagent.agent("cramped_room", model="o4-mini", base_url=url, effort="low")
    env = proagent.Env("cramped_room")
    env.reset()
    with pytest.raises(Exception, match="'reasoning_effort' is not supported"):
        a.act(env)


def test_token_param_names_the_token_cap_sent(mock):
    url = mock("--reject-params", "max_tokens")
    # A chat model sends max_tokens by the table: the refusal is retried once without it
    # (a fault); a forced name the server refuses is the user's, and stops the seat.
    s = _play(url, model="gpt-4o", token_param="max_completion_tokens")
    assert s["llm_calls"] > 0 and s["llm_failures"] == 0
    with pytest.raises(Exception, match="'max_tokens' is not supported"):
        _play(url, model="gpt-4o", token_param="max_tokens")


def test_family_changes_what_the_request_carries(mock, tmp_path):
    url = mock("--reject-params", "max_tokens")
    # By the table qwen3 is a chat model: max_tokens is sent, refused once, and recorded.
    chat = tmp_path / "chat.jsonl"
    _play(url, model="qwen3:8b", transcript=str(chat))
    assert [f["kind"] for f in _faults(chat)] == ["unsupported_parameter"]
    # As a reasoning model it gets max_completion_tokens from the first request on.
    reasoning = tmp_path / "reasoning.jsonl"
    s = _play(url, model="qwen3:8b", family="reasoning", transcript=str(reasoning))
    assert _faults(reasoning) == [] and s["llm_calls"] > 0
    assert "family=reasoning" in s["agent"]


@pytest.mark.parametrize(
    "option, value",
    [("effort", "extreme"), ("effort", ""), ("family", "fast"), ("token_param", "max_length"), ("effort", 3)],
)
def test_a_bad_value_raises_a_value_error_naming_the_option(option, value):
    with pytest.raises(ValueError, match=option):
        proagent.play("cramped_room", horizon=4, model="o4-mini", **{option: value})
    with pytest.raises(ValueError, match=option):
        proagent.agent("cramped_room", model="o4-mini", **{option: value})


def test_an_effort_for_a_chat_model_is_refused_naming_both_options():
    with pytest.raises(ValueError, match="effort") as e:
        proagent.play("cramped_room", horizon=4, model="gpt-4o", base_url="http://127.0.0.1:9/v1", effort="high")
    assert "chat model" in str(e.value)
