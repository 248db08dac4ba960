"""Shared test fixtures: an isolated state cache, and the CLI run in-process or as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bundled import TextSnapshot

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # the state cache is per user; tests must never read or leave entries outside their sandbox
    monkeypatch.setenv("TALLY_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


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


@pytest.fixture
def tally():
    """`tally(*args)` runs the CLI in a subprocess and returns exit_code, stdout, stderr."""
    return run_tally


@pytest.fixture
def text_snapshot(snapshot):  # type: ignore[no-untyped-def]
    """A syrupy snapshot kept as one plain text file per assertion (what a person sees, readable in a diff)."""
    return snapshot.use_extension(TextSnapshot)


@pytest.fixture(scope="session")
def pg_cluster():  # type: ignore[no-untyped-def]
    """A throwaway PostgreSQL cluster on a loopback port for this test process (tests/pg_cluster.py); skipped when
    no server is installed, except in CI, where .ci/run installs one."""
    from pg_cluster import Cluster, find_server

    server = find_server()
    if server is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no PostgreSQL server (initdb) found: .ci/run installs Debian's postgresql for these tests")
        pytest.skip("no PostgreSQL server installed (apt-get install postgresql)")
    with Cluster(server) as cluster:
        yield cluster


@pytest.fixture
def pg_url(pg_cluster) -> str:  # type: ignore[no-untyped-def]
    """The URL of a fresh, empty database of the throwaway cluster."""
    return str(pg_cluster.new_database())
