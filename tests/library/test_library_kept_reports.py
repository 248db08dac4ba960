"""The games' `tally stats` reports kept by ingest (`report_rows`, `library_stats.keep_reports`): the report read from
them is the report worked out from the tables, for every scope and `--top`; a kept report whose games changed behind
its back (another writer, an older tally) is not used; a library without the table answers as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from support import ROOT
from tally.core import registry
from tally.store import library
from tally.store.library import report as library_stats
from tally.store.library.schema import stored_reports
from tally.store.recording.simulate import simulate

FIXTURES = sorted((ROOT / "fixtures" / "games").glob("*.jsonl"))


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("logs")
    return FIXTURES + [Path(p) for game in registry.names() for p in simulate(game, 2, 11, folder / game).files]


@pytest.fixture()
def db(tmp_path: Path, logs: list[Path]) -> Path:
    path = tmp_path / "lib.duckdb"
    summary = library.ingest(path, logs, jobs=1)
    assert not summary.rejected
    return path


def worked_out(db: Path, monkeypatch: pytest.MonkeyPatch, **scope: Any) -> dict[str, Any]:
    """The report with every game's report worked out from the tables (nothing kept read)."""
    with monkeypatch.context() as patched:
        patched.setattr(library_stats, "_kept_rows", lambda *args: {})
        return library.stats(db, **scope)


def kept_reports(db: Path) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT game, report, simulated FROM report_rows ORDER BY ALL").fetchall()


def every_scope() -> list[dict[str, Any]]:
    return [
        {"game": game, "simulated": simulated, "top": top}
        for game in (None, *registry.names())
        for simulated in (False, True)
        for top in (0, 1, 3, 10)
    ]


def test_an_ingest_keeps_each_report_with_and_without_the_simulated_games(db: Path) -> None:
    declared = [(spec.name, report.key) for spec in registry.specs() for report in spec.history.reports]
    assert kept_reports(db) == sorted((game, key, simulated) for game, key in declared for simulated in (False, True))


def test_the_kept_reports_are_the_reports_worked_out_for_every_scope(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    original = library_stats.rows_of

    def counted(con: Any, sql: str, params: dict[str, Any]) -> Any:
        read.append(sql)
        return original(con, sql, params)

    monkeypatch.setattr(library_stats, "rows_of", counted)
    for scope in every_scope():
        read.clear()
        found = library.stats(db, **scope)
        assert len(read) == 3, scope  # games, players, seats: every game's report came from report_rows
        assert found == worked_out(db, monkeypatch, **scope), scope
    assert any(library.stats(db, "splendor", top=3, simulated=True)["most_bought"]["splendor"])


def test_a_kept_report_whose_games_changed_behind_its_back_is_worked_out_again(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = library.stats(db, simulated=True)
    with duckdb.connect(str(db)) as con:  # a writer that keeps no reports (an older tally) takes a Splendor game out
        (gone,) = con.execute("SELECT game_id FROM games WHERE game = 'splendor' AND simulated LIMIT 1").fetchone()
        for table in ["games", "seats", "round_results", *registry.get("splendor").history.tables]:
            con.execute(f"DELETE FROM {table} WHERE game_id = ?", [gone])
    after = library.stats(db, simulated=True)
    assert after == worked_out(db, monkeypatch, simulated=True)
    assert after["progression"]["splendor"] != before["progression"]["splendor"]  # the kept rows were stale: not used
    assert after["array_rounds"] == before["array_rounds"]  # the other games' kept reports still hold
    library.ingest(db, [], jobs=1)  # the next ingest keeps them again
    with duckdb.connect(str(db), read_only=True) as con:
        marks = dict(
            con.execute("SELECT report, mark FROM report_rows WHERE game = 'splendor' AND simulated").fetchall()
        )
    with duckdb.connect(str(db), read_only=True) as con:
        assert marks["progression"] == library_stats._mark(
            library_stats._game_marks(con)[("splendor", True)], registry.get("splendor").history.reports[0].sql
        )


def test_a_simulated_game_changed_leaves_the_reports_of_real_games_kept(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM games WHERE game = 'splendor' AND NOT simulated").fetchone() != (0,)
    with duckdb.connect(str(db)) as con:
        (gone,) = con.execute("SELECT game_id FROM games WHERE game = 'splendor' AND simulated LIMIT 1").fetchone()
        for table in ["games", "seats", "round_results", *registry.get("splendor").history.tables]:
            con.execute(f"DELETE FROM {table} WHERE game_id = ?", [gone])
    with duckdb.connect(str(db), read_only=True) as con:
        real = library_stats._kept_rows(con, stored_reports(con), False, 10)
        every = library_stats._kept_rows(con, stored_reports(con), True, 10)
    assert ("splendor", "progression") in real and ("splendor", "progression") not in every
    assert library.stats(db, simulated=True) == worked_out(db, monkeypatch, simulated=True)
    assert library.stats(db) == worked_out(db, monkeypatch)
    with duckdb.connect(str(db)) as con:  # only the reports counting simulated games are worked out again
        assert library_stats.keep_reports(con) == len(registry.get("splendor").history.reports)


def test_a_library_without_kept_reports_answers_and_gains_them_at_the_next_ingest(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with duckdb.connect(str(db)) as con:
        con.execute("DROP TABLE report_rows")
    assert library.stats(db, simulated=True) == worked_out(db, monkeypatch, simulated=True)
    library.ingest(db, [], jobs=1)
    assert len(kept_reports(db)) == 2 * sum(len(spec.history.reports) for spec in registry.specs())
    assert library.stats(db, simulated=True) == worked_out(db, monkeypatch, simulated=True)
