"""The rules and the notation ship in the installed package (issue 17): the wheel is built from the sources,
installed into a fresh environment with its pinned dependencies, and `tally rules` reads every game's rules and
notation from a folder where no document of the project lies. Marked `wheel` (about a minute: a build and an
install); the normal suite runs it, `-m "not wheel"` leaves it out."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT
from tally.core import registry

pytestmark = pytest.mark.wheel


def run(*command: str | Path, cwd: Path, timeout: int = 240) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done


def test_the_installed_wheel_shows_every_games_rules_and_notation(tmp_path: Path) -> None:
    # build from a copy of the tracked files, so the checkout gets no build folder
    listed = run("git", "ls-files", "-z", cwd=ROOT).stdout.split("\0")
    source = tmp_path / "source"
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", source, cwd=tmp_path)
    [wheel] = (tmp_path / "dist").glob("tally-*.whl")
    run(sys.executable, "-m", "venv", tmp_path / "env", cwd=tmp_path)
    python = tmp_path / "env" / "bin" / "python"
    run(python, "-m", "pip", "install", "-q", "-c", ROOT / "requirements.lock", wheel, cwd=tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    tally = tmp_path / "env" / "bin" / "tally"
    where = run(python, "-c", "import tally.core; print(tally.core.__file__)", cwd=elsewhere).stdout
    assert str(tmp_path / "env") in where, "the installed package, not the checkout"
    page = "from importlib.resources import files; print(*sorted(p.name for p in files('tally.serve').joinpath('static').iterdir()))"
    assert run(python, "-c", page, cwd=elsewhere).stdout.split() == [
        "answers.js",
        "game.html",
        "history.js",
        "index.html",
        "library-game.html",
        "library.html",
        "library.js",
        "offline.js",
        "outline.js",
        "page.css",
        "page.js",
        "picker.js",
    ]
    for game in registry.names():
        spec = registry.get(game)
        rules = run(tally, "rules", game, cwd=elsewhere).stdout
        assert all(f"\n{rule.id}\n" in rules for rule in spec.rules), game
        assert " ".join(spec.rules[0].text.split()) in " ".join(rules.split())
        notation = run(tally, "rules", game, "--notation", cwd=elsewhere).stdout
        assert all(f"\n  {form.form}\n" in notation for form in spec.notation), game
