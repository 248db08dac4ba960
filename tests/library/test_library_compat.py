"""The history library opens in DuckDB clients of the 1.4 LTS line, not only in the DuckDB tally pins.

tally creates the file with `storage_compatibility_version` set (store/library/__init__.py), and this test has a
real DuckDB 1.4 read it, in another Python: `.ci/run` installs one into a second virtual environment and
names its interpreter in TALLY_OLD_DUCKDB_PYTHON. In CI the test fails when that interpreter is missing;
elsewhere it is skipped unless the variable is set.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import duckdb
import pytest

from tally.store import library
from tally.store.recording.simulate import simulate

OLD_PYTHON = os.environ.get("TALLY_OLD_DUCKDB_PYTHON")

READER = r"""
import json, sys
import duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
out = {"version": duckdb.__version__}
out["tables"] = {name: con.execute(f'SELECT count(*) FROM "{name}"').fetchall()[0][0] for name in json.loads(sys.argv[2])}
out["lines"] = [row[0] for row in con.execute("SELECT line FROM events ORDER BY game_id, seq").fetchall()]
out["payload"] = con.execute("SELECT payload::VARCHAR FROM events ORDER BY game_id, seq LIMIT 3").fetchall()
out["games"] = con.execute(
    "SELECT game_id, players, started_at::VARCHAR, options->>'target' FROM games ORDER BY game_id").fetchall()
print(json.dumps(out))
"""


def _read(python: str, db: Path) -> dict:
    ran = subprocess.run(
        [python, "-c", READER, str(db), json.dumps(list(library.all_tables()))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def test_duckdb_1_4_reads_a_library_tally_created(tmp_path: Path) -> None:
    if not OLD_PYTHON:
        if os.environ.get("CI") == "true":
            pytest.fail(
                "TALLY_OLD_DUCKDB_PYTHON is not set: .ci/run installs DuckDB 1.4 into a second virtual "
                "environment for this test, and CI must run it"
            )
        pytest.skip("set TALLY_OLD_DUCKDB_PYTHON to a Python with DuckDB 1.4 installed (see .ci/run)")
    assert Path(OLD_PYTHON).exists(), OLD_PYTHON
    simulate("splendor", 6, 11, tmp_path / "logs", players=3)
    db = tmp_path / "library.duckdb"
    summary = library.ingest(db, [tmp_path / "logs"])
    assert summary.games_added == 6 and not summary.rejected

    old = _read(OLD_PYTHON, db)
    assert old["version"].startswith("1.4."), old["version"]
    import sys

    new = _read(sys.executable, db)
    assert new["version"] == duckdb.__version__
    assert {key: value for key, value in old.items() if key != "version"} == {
        key: value for key, value in new.items() if key != "version"
    }
    assert old["tables"]["games"] == 6 and len(old["lines"]) == old["tables"]["events"] > 6
    logs = b"".join(sorted(path.read_bytes() for path in (tmp_path / "logs").glob("*.jsonl")))
    assert sorted(old["lines"]) == sorted(logs[:-1].decode().split("\n"))  # every line, exactly


def test_the_library_is_created_with_the_storage_compatibility_set(tmp_path: Path) -> None:
    db = tmp_path / "library.duckdb"
    library.connect(db).close()
    con = duckdb.connect(str(db), read_only=True)
    try:
        version = con.execute(
            "SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = 'library'"
        ).fetchall()
    finally:
        con.close()
    assert version and version[0][0] is not None and version[0][0].startswith("v1.4"), version
