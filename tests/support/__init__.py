"""What tests share beyond fixtures: the repository's root, and the CLI run as a real process.

The test folders are not packages; `tests/` is on `sys.path` (pyproject's `pythonpath`), so a test imports
`support.harness`, `support.splendor_helpers`, ... whatever folder it lives in and wherever pytest is run from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


class Result:
    def __init__(self, code: int, stdout: str, stderr: str):
        self.exit_code, self.stdout, self.stderr = code, stdout, stderr

    def __repr__(self) -> str:
        return f"Result(exit={self.exit_code}, stdout={self.stdout!r}, stderr={self.stderr!r})"


def run_tally(*args: str, cwd: Path | None = None) -> Result:
    """Run `tally ARGS` as a real process (the way users do), with this interpreter."""
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    proc = subprocess.run(
        [sys.executable, "-c", "from tally.cli.main import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def invoke(*args: str) -> Result:
    """The CLI in-process (faster than a process; the JSON test runs the real process)."""
    from typer.testing import CliRunner

    from tally.cli.main import app

    outcome = CliRunner().invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise outcome.exception
    return Result(outcome.exit_code, outcome.stdout, outcome.stderr)
