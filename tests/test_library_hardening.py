"""Issue 16's findings about the history library, each reproduced with real processes: workers that die with
their ingest, a library left without tables, a busy library, and the SQL sandbox as docs/sql.md states it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tally.store.recording.simulate import simulate

from support import ROOT

SQL_DOC = ROOT / "docs" / "sql.md"
TALLY = [sys.executable, "-c", "from tally.cli.main import main; main()"]


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TALLY, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1", **env})


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("logs")
    for game in ("splendor", "split", "array", "splice"):
        simulate(game, 30, 1, folder / game)
    return folder


def _ppid(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _session(pid: int) -> list[int]:
    """The processes of the session `pid` leads (every process an ingest started, however deep)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == pid and fields[0] != "Z":  # field 6 of stat: the session id
                found.append(int(entry.name))
    return found


# --------------------------------------------------------------------------- 3. workers die with their ingest


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")
def test_finding_3_kill_9_of_an_ingest_leaves_no_worker_and_no_open_output(tmp_path: Path, logs: Path) -> None:
    proc = subprocess.Popen([*TALLY, "ingest", str(logs), "--db", str(tmp_path / "lib.duckdb"), "--jobs", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the two workers are running
            workers = [pid for pid in _session(proc.pid) if pid != proc.pid and _ppid(pid) == proc.pid
                       and b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
            if len(workers) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.02)
        assert proc.poll() is None and len(workers) >= 2, "the ingest ended before its workers could be seen"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        ended: list[bytes] = []
        reader = threading.Thread(target=lambda: ended.append(proc.stdout.read() + proc.stderr.read()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(15)
        assert ended, "stdout/stderr stayed open after kill -9: a worker still holds them"
        deadline = time.monotonic() + 10
        while _session(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _session(proc.pid) == [], "processes of the killed ingest are still running"
    finally:
        for pid in _session(proc.pid):
            os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
    again = _run("ingest", str(logs), "--db", str(tmp_path / "lib.duckdb"))  # what was committed stays; it resumes
    assert again.returncode == 0, again
    counted = _run("sql", "--db", str(tmp_path / "lib.duckdb"), "--format", "csv", "SELECT count(*) FROM games")
    assert counted.returncode == 0 and counted.stdout.splitlines()[-1] == "120", counted


# --------------------------------------------------------------------------- 7. a library without tables


def test_finding_7_a_library_stopped_before_its_first_commit_says_so(tmp_path: Path, logs: Path) -> None:
    db = tmp_path / "lib.duckdb"
    duckdb.connect(str(db)).close()  # what an ingest killed before its first commit leaves: a file, no tables
    for command in (["sql", "--db", str(db), "SELECT count(*) FROM games"], ["stats", "--db", str(db)],
                    ["export", "--db", str(db), "--to", str(tmp_path / "out")]):
        result = _run(*command)
        assert result.returncode == 2 and "the library holds no tables yet" in result.stderr, (command, result)
        assert result.stderr.count("\n") == 1 and "Catalog Error" not in result.stderr
    assert _run("ingest", str(logs / "split"), "--db", str(db)).returncode == 0
    counted = _run("sql", "--db", str(db), "--format", "csv", "SELECT count(*) FROM games")
    assert counted.returncode == 0 and counted.stdout.splitlines()[-1] == "30", counted


# --------------------------------------------------------------------------- 8. a busy library


def _holder(db: Path, seconds: float) -> subprocess.Popen[str]:
    """A process holding the library's write lock, as a running ingest does."""
    code = f"import duckdb, time; con = duckdb.connect({str(db)!r}); print('held', flush=True); time.sleep({seconds})"
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_finding_8_a_busy_library_waits_then_exits_5(tmp_path: Path, logs: Path) -> None:
    db = tmp_path / "lib.duckdb"
    assert _run("ingest", str(logs / "splendor"), "--db", str(db)).returncode == 0
    game_id = _run("sql", "--db", str(db), "--format", "csv", "SELECT min(game_id) FROM games").stdout.splitlines()[-1]
    holder = _holder(db, 60)
    try:
        for command in (["sql", "--db", str(db), "SELECT count(*) FROM games"], ["stats", "--db", str(db)],
                        ["ingest", str(logs / "split"), "--db", str(db)], ["replay", game_id, "--db", str(db)]):
            began = time.monotonic()
            result = _run(*command, TALLY_BUSY_TIMEOUT="1")
            assert result.returncode == 5, (command, result)
            assert time.monotonic() - began >= 1.0  # it waited
            assert result.stderr.count("\n") == 1 and "the library is busy" in result.stderr, result
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()  # type: ignore[union-attr]


def test_finding_8_a_command_waits_for_the_ingest_to_finish(tmp_path: Path, logs: Path) -> None:
    db = tmp_path / "lib.duckdb"
    assert _run("ingest", str(logs / "splendor"), "--db", str(db)).returncode == 0
    holder = _holder(db, 1.5)
    try:
        result = _run("sql", "--db", str(db), "--format", "csv", "SELECT count(*) FROM games", TALLY_BUSY_TIMEOUT="30")
        assert result.returncode == 0 and result.stdout.splitlines()[-1] == "30", result
        grown = _run("ingest", str(logs / "split"), "--db", str(db), TALLY_BUSY_TIMEOUT="30")
        assert grown.returncode == 0, grown
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()  # type: ignore[union-attr]


# --------------------------------------------------------------------------- 9. the sandbox, as documented


def _documented(kind: str) -> list[str]:
    """The statements named in the **Refused** or **Accepted** item of docs/sql.md's `tally sql` section."""
    section = SQL_DOC.read_text(encoding="utf-8").split("## `tally sql`", 1)[1]
    item = section.split(f"- **{kind}**", 1)[1].split("\n- **", 1)[0].split("\n\n", 1)[0]
    statements = [text for text in re.findall(r"`([^`]+)`", " ".join(item.split())) if " " in text or text.isupper()]
    assert len(statements) >= 10, statements
    return statements


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, logs: Path) -> Path:
    db = tmp_path_factory.mktemp("lib") / "lib.duckdb"
    assert _run("ingest", str(logs / "splendor"), "--db", str(db)).returncode == 0
    return db


@pytest.mark.parametrize("statement", _documented("Refused"))
def test_finding_9_what_docs_sql_md_says_is_refused_is_refused(library: Path, statement: str, tmp_path: Path) -> None:
    before = library.read_bytes()
    result = subprocess.run([*TALLY, "sql", "--db", str(library), statement], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, (statement, result)
    assert library.read_bytes() == before and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("statement", _documented("Accepted"))
def test_finding_9_what_docs_sql_md_says_is_accepted_is_accepted(library: Path, statement: str, tmp_path: Path) -> None:
    before = library.read_bytes()
    result = subprocess.run([*TALLY, "sql", "--db", str(library), statement], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert result.returncode == 0, (statement, result)
    assert library.read_bytes() == before and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ["-- x", "--x", "-- SELECT 1"])
def test_finding_9_a_query_of_only_a_comment_is_a_query_not_an_option(library: Path, text: str) -> None:
    result = _run("sql", "--db", str(library), text)
    assert result.returncode == 2 and "empty query" in result.stderr and "No such option" not in result.stderr, result
    assert _run("sql", "--db", str(library), "--format", "csv", "-- a comment first\nSELECT 42").stdout.splitlines()[-1] == "42"
