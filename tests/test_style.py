"""The code is formatted and linted by the pinned ruff with pyproject.toml's [tool.ruff], as is: a change that
leaves code unformatted, an unsorted import block, an unused import or name, or a line past the hard limit fails
here. `ruff format .` and `ruff check --fix .` mend most of it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT


def ruff() -> list[str]:
    beside = Path(sys.executable).with_name("ruff")  # the environment's own, pinned in the lock
    if beside.exists():
        return [str(beside)]
    found = shutil.which("ruff")
    if found is None:
        pytest.fail("ruff is not installed: pip install -c requirements.lock '.[test]'")
    return [found]


def run_ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ruff(), *args, "--no-cache", str(ROOT)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_the_pinned_ruff_is_the_one_run() -> None:
    pinned = next(
        line.split("==")[1]
        for line in (ROOT / "requirements.lock").read_text().splitlines()
        if line.startswith("ruff==")
    )
    version = subprocess.run([*ruff(), "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
    assert version == pinned


def test_every_file_is_formatted() -> None:
    done = run_ruff("format", "--check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_linter_finds_nothing() -> None:
    done = run_ruff("check", "--output-format", "concise")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_linter_would_find_an_unused_import(tmp_path: Path) -> None:
    # the configuration is read and applied: the same check on a file with a fault fails
    faulty = tmp_path / "faulty.py"
    faulty.write_text("import os\n", encoding="utf-8")
    done = subprocess.run(
        [*ruff(), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(faulty)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "F401" in done.stdout, done.stdout + done.stderr
