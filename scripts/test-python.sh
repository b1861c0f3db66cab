#!/usr/bin/env bash
# The Python package's tests: a venv with maturin, pytest, numpy, gymnasium and pettingzoo
# from PyPI; the extension built in the dev profile into the same cargo target directory as
# `cargo test` (so the library and its dependencies are compiled once); then pytest.
#
# Usage: scripts/test-python.sh [pytest args...]
# Environment: CARGO_TARGET_DIR (default ./target), PROAGENT_VENV (default $CARGO_TARGET_DIR/pyvenv),
#              PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
export CARGO_TARGET_DIR="$TARGET"
VENV="${PROAGENT_VENV:-$TARGET/pyvenv}"
PY="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
# Already-satisfied requirements are not fetched again.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.9.4,<2" pytest hypothesis numpy gymnasium pettingzoo tqdm gym
# overcooked-ai 1.1.0 for the state-conversion test (python/tests/test_env.py). Its other
# declared requirements (ipython, ipywidgets, pygame) serve its own notebook and GUI, which
# the test does not import.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "overcooked-ai==1.1.0"

# The CLI binary, for the mock-server and replay tests (already built by `cargo test`).
cargo build --locked --quiet --bin proagent
export PROAGENT_BIN="$TARGET/debug/proagent"

# Build a wheel (dev profile) outside the source tree and install it: nothing is written
# into the repository.
WHEELS="$TARGET/python-wheels"
rm -rf "$WHEELS"
"$VENV/bin/maturin" build --locked --profile dev --quiet --strip --auditwheel skip \
    --manifest-path python/Cargo.toml --interpreter "$VENV/bin/python" --out "$WHEELS"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$WHEELS"/proagent-*.whl

# Run from outside python/ so the installed package (not the source folder) is imported.
cd "$ROOT"
set +e
PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/python" -m pytest -p no:cacheprovider python/tests "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure here" >&2
    exit 1
fi
exit "$rc"
