"""The worked PPO example runs (a smoke test of a few hundred steps; the learning curve
in docs/python.md comes from the full run)."""

import subprocess
import sys

from conftest import REPO


def test_ppo_example_smoke(tmp_path):
    csv = tmp_path / "curve.csv"
    out = subprocess.run(
        [sys.executable, str(REPO / "python" / "examples" / "ppo_numpy.py"), "--updates", "2", "--envs", "4",
         "--steps", "40", "--horizon", "30", "--csv", str(csv)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    lines = csv.read_text().splitlines()
    assert lines[0].startswith("update,env_steps") and len(lines) == 3
    assert "update    2  steps       320" in out.stdout
