"""Shared fixtures: the repository's paths and the `proagent` binary (for mock-server)."""

import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
TRACES = REPO / "tests" / "fixtures" / "traces"


def proagent_binary() -> pathlib.Path:
    """The CLI binary: $PROAGENT_BIN, else the cargo target dir's debug build, else PATH."""
    env = os.environ.get("PROAGENT_BIN")
    if env:
        return pathlib.Path(env)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("debug", "release"):
        p = target / profile / "proagent"
        if p.exists():
            return p
    found = shutil.which("proagent")
    if found:
        return pathlib.Path(found)
    raise FileNotFoundError(
        "the proagent binary is needed to start the mock server: build it with "
        "`cargo build --bin proagent` or set PROAGENT_BIN"
    )


@pytest.fixture(scope="session")
def binary() -> pathlib.Path:
    return proagent_binary()
