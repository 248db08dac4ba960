"""Shared test fixtures: an isolated state cache, and the CLI run in-process or as a real process."""

from __future__ import annotations

import os

import pytest

from support import run_tally
from support.bundled import TextSnapshot


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # the state cache is per user; tests must never read or leave entries outside their sandbox
    monkeypatch.setenv("TALLY_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


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
    """A throwaway PostgreSQL cluster on a loopback port for this test process (tests/support/pg_cluster.py); skipped when
    no server is installed, except in CI, where .ci/run installs one."""
    from support.pg_cluster import Cluster, find_server

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
