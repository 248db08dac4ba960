"""The history library (docs/sql.md) on real DuckDB files: ingest, growth, rejection, round trips, projections.

No mocks: every test ingests real logs (simulated games, the bundled fixture games, and logs built
through the record service) into a DuckDB file under tmp_path and reads it back with DuckDB.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import msgspec
import pytest

from support import ROOT
from support.logs import START, start_log, stderr_line
from tally.core import registry
from tally.core.engine import Table, judge
from tally.core.games.splendor import CARDS, SPLENDOR, CardBought, GemsTaken, default_payment, unlocated
from tally.core.model import Event, Voided
from tally.store import library
from tally.store.library import folding as library_ingest
from tally.store.library.folding import fold_judged, game_id_of
from tally.store.logs import log as logfile
from tally.store.recording import record
from tally.store.recording.simulate import simulate

FIXTURE_GAMES = sorted(
    (ROOT / "fixtures" / "games").glob("splendor-*.jsonl")
)  # the projections tested here are Splendor's
SQL_DOC = ROOT / "docs" / "sql.md"
PROJECTIONS = ("splendor_turns", "splendor_cards_bought", "splendor_reserves", "splendor_nobles")


# --------------------------------------------------------------------------- logs to ingest


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ten simulated games (2-4 players), in a folder of their own."""
    folder = tmp_path_factory.mktemp("sim")
    simulate("splendor", 10, 41, folder)
    return folder


def play(path: Path, moves: int, choose: Any = None) -> None:
    """Record `moves` legal moves through the record service (the first legal one unless `choose` picks)."""
    for _ in range(moves):
        pos = record.position(path)
        legal = SPLENDOR.legal_moves(pos.table.state)
        if not legal:
            return
        move = choose(legal) if choose else legal[0]
        assert record.move(path, SPLENDOR.format(move)).accepted


def first_buy(legal: list[Event]) -> Event:
    return next((m for m in legal if isinstance(m, CardBought)), legal[0])


@pytest.fixture(scope="module")
def voided_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An open-mode game with a bought card voided (undo), a note, and play after it."""
    path = tmp_path_factory.mktemp("void") / "voided.jsonl"
    record.new_game(path, "splendor", ["ann", "ben"], seed=11)
    for _ in range(80):
        play(path, 1, first_buy)
        if b'"card_bought"' in path.read_bytes():
            break
    assert record.undo(path, "misread the card").accepted
    record.note(path, "ben asked about gold")
    play(path, 12)
    return path


@pytest.fixture(scope="module")
def table_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table-mode game: the setup revealed card by card, a blind reserve never seen, then bought by name."""
    path = tmp_path_factory.mktemp("table") / "table.jsonl"
    record.new_game(path, "splendor", ["ann", "ben", "cy"], mode="table")
    reserved = bought = False
    for _ in range(70):
        state = record.position(path).table.state
        legal = SPLENDOR.legal_moves(state)
        if not legal:
            break
        text = SPLENDOR.format(first_buy(legal))
        if state.phase == "action" and state.player_name == "ann":
            seat = state.players[0]
            if not reserved:
                text, reserved = "ann: reserve deck 1", True
            elif not bought and "?1" in seat.reserved:
                affordable = [c for c in unlocated(state, 1) if default_payment(CARDS[c], seat) is not None]
                if affordable:
                    text, bought = f"ann: buy {affordable[0]}", True
        assert record.move(path, text).accepted, text
    assert reserved and bought, "the game should hold a blind reserve bought by name"
    return path


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def restamp(events: list[Event]) -> bytes:
    """Events as a log with a valid hash chain (whatever they say)."""
    return logfile.stamp(events, 0, None, "2026-02-02T10:00:00.000Z")[1]


def illegal_log(source: Path) -> bytes:
    """A log with an intact chain whose 8th event is out of turn."""
    events = logfile.read(source).events[:7]
    table = judge(SPLENDOR, events)[1]
    other = [s for s in table.started.seats if s != table.state.player_name][0]
    return restamp([*events, GemsTaken(player=other, gems=["w", "b", "g"])])


def counts(db: Path) -> dict[str, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {name: con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0] for name in library.all_tables()}


def rows(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def ingest(db: Path, *paths: Path | str, **options: Any) -> library.Summary:
    return library.ingest(db, list(paths), **options)


def gid(path: Path) -> str:
    return game_id_of(lines_of(path)[0])


# --------------------------------------------------------------------------- schema and docs


def documented_tables() -> dict[str, list[tuple[str, str]]]:
    """`### table` sections of docs/sql.md, each with its `| `column` | `TYPE` | ... |` rows, in order."""
    tables: dict[str, list[tuple[str, str]]] = {}
    current: str | None = None
    in_tables = False
    for line in SQL_DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_tables = line.strip() == "## Tables"
            current = None
        elif in_tables and line.startswith("### "):
            current = line[4:].strip()
            tables[current] = []
        elif current and (match := re.match(r"\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|", line)):
            tables[current].append((match.group(1), match.group(2)))
    return tables


def test_the_schema_is_exactly_what_docs_sql_md_documents(tmp_path: Path) -> None:
    db = tmp_path / "fresh.duckdb"
    library.connect(db).close()
    with duckdb.connect(str(db), read_only=True) as con:
        found: dict[str, list[tuple[str, str]]] = {}
        for table, column, kind in con.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
        ).fetchall():
            found.setdefault(table, []).append((column, kind))
    documented = documented_tables()
    assert sorted(documented) == sorted(found), "tables in docs/sql.md differ from the library's"
    for table in found:
        assert documented[table] == found[table], f"columns of {table}: docs/sql.md differs from the schema"


def test_the_schema_test_sees_a_difference(tmp_path: Path) -> None:
    # guard the guard: the parser reads every documented table and column
    documented = documented_tables()
    assert {"games", "seats", "events", "round_results", *PROJECTIONS, "library_info"} <= set(documented)
    assert ("payload", "JSON") in documented["events"] and ("players", "VARCHAR[]") in documented["games"]


def test_every_example_query_in_the_docs_runs(tmp_path: Path, sim: Path) -> None:
    db = tmp_path / "lib.duckdb"
    ingest(db, sim)
    for game in registry.names():  # the examples of every game's tables need that game's rows
        ingest(db, *simulate(game, 2, 43, tmp_path / game).files)
    examples = re.findall(r"```sql\n(.*?)```", SQL_DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(examples) >= 8
    for example in examples:
        result = library.query(db, example)
        assert list(result.rows()), f"no rows from:\n{example}"


# --------------------------------------------------------------------------- ingest: idempotent, incremental


def test_ingest_loads_every_table_and_the_same_logs_again_change_nothing(tmp_path: Path, sim: Path) -> None:
    db = tmp_path / "lib.duckdb"
    files = sorted(sim.glob("*.jsonl"))
    events = sum(len(lines_of(f)) for f in files)
    first = ingest(db, sim)
    assert (first.games_added, first.events_added, first.games_unchanged, first.rejected) == (10, events, 0, [])
    before = counts(db)
    assert before["games"] == 10 and before["events"] == events and before["seats"] == before["round_results"] > 0
    assert all(before[name] for name in ("splendor_turns", "splendor_cards_bought", "splendor_reserves"))
    digest = rows(db, "SELECT sum(hash(game_id, ingested_at)) FROM games")
    again = ingest(db, sim, *files)  # the folder and each file: still each log once
    assert (again.files, again.games_added, again.events_added, again.games_unchanged) == (10, 0, 0, 10)
    assert counts(db) == before
    assert rows(db, "SELECT sum(hash(game_id, ingested_at)) FROM games") == digest


def test_a_grown_log_adds_only_its_new_events_and_extends_the_projections(tmp_path: Path, sim: Path) -> None:
    source = sorted(sim.glob("*.jsonl"))[3]
    lines = lines_of(source)
    log = tmp_path / "logs" / "game.jsonl"
    log.parent.mkdir()
    log.write_bytes(b"\n".join(lines[:40]) + b"\n")
    db = tmp_path / "lib.duckdb"
    assert ingest(db, log).games_added == 1
    game = gid(source)
    assert rows(db, "SELECT events, finished FROM games") == [(40, False)]
    turns_before = rows(db, "SELECT count(*) FROM splendor_turns")[0][0]
    shutil.copyfile(source, log)
    grown = ingest(db, log)
    assert (grown.games_added, grown.games_grown, grown.events_added) == (0, 1, len(lines) - 40)
    assert rows(db, "SELECT count(*), min(seq), max(seq), count(DISTINCT seq) FROM events") == [
        (len(lines), 1, len(lines), len(lines))
    ]
    assert rows(db, "SELECT game_id, events, finished FROM games") == [(game, len(lines), True)]
    assert rows(db, "SELECT count(*) FROM seats")[0][0] == len(logfile.read(source).started.seats)
    assert rows(db, "SELECT count(*) FROM splendor_turns")[0][0] > turns_before
    assert_projections_match_a_fold(db, source)
    assert ingest(db, log).games_unchanged == 1


def test_growth_that_voids_a_stored_event_marks_it_and_drops_its_projection_rows(
    tmp_path: Path, voided_game: Path
) -> None:
    lines = lines_of(voided_game)
    events = logfile.read(voided_game).events
    void = next(e for e in events if isinstance(e, Voided))
    log = tmp_path / "game.jsonl"
    log.write_bytes(b"\n".join(lines[: void.seq - 1]) + b"\n")  # up to the buy, before its void
    db = tmp_path / "lib.duckdb"
    ingest(db, log)
    assert rows(db, "SELECT count(*) FROM splendor_cards_bought WHERE seq = ?", void.target) == [(1,)]
    shutil.copyfile(voided_game, log)
    assert ingest(db, log).games_grown == 1
    assert rows(db, "SELECT seq FROM events WHERE voided") == [(void.target,)]
    assert rows(db, "SELECT count(*) FROM splendor_cards_bought WHERE seq = ?", void.target) == [(0,)]
    assert rows(db, "SELECT type, player, payload->>'text' FROM events WHERE type = 'noted'") == [
        ("noted", None, "ben asked about gold")
    ]
    assert_projections_match_a_fold(db, voided_game)


def test_an_older_copy_adds_nothing_and_edited_history_is_rejected(tmp_path: Path, sim: Path) -> None:
    source = sorted(sim.glob("*.jsonl"))[0]
    lines = lines_of(source)
    db = tmp_path / "lib.duckdb"
    ingest(db, source)
    before = counts(db)
    older = tmp_path / "older.jsonl"
    older.write_bytes(b"\n".join(lines[:30]) + b"\n")
    stale = ingest(db, older)
    assert (stale.games_stale, stale.games_added, stale.rejected) == (1, 0, [])
    # the same game, another history from line 31 on: a legal branch with an intact chain
    prefix = logfile.read(older)
    table = judge(SPLENDOR, prefix.events)[1]
    original = logfile.read(source).events[30]
    other = next(
        m for m in SPLENDOR.legal_moves(table.state) if m != msgspec.structs.replace(original, seq=0, at="", prev=None)
    )
    _, extra = logfile.stamp([other], 30, prefix.last_hash, "2026-05-05T05:05:05.000Z")
    branch = tmp_path / "branch.jsonl"
    branch.write_bytes(older.read_bytes() + extra)
    assert logfile.read(branch).events[-1].seq == 31  # a valid log on its own
    edited = ingest(db, branch)
    assert [(r.kind, r.line) for r in edited.rejected] == [("diverged", 31)]
    assert "line 31 differs from the library's copy" in edited.rejected[0].message
    assert counts(db) == before


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_prefix_and_its_full_log_in_one_run_load_the_game_once(tmp_path: Path, sim: Path, jobs: int) -> None:
    source = sorted(sim.glob("*.jsonl"))[1]
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a-prefix.jsonl").write_bytes(b"\n".join(lines_of(source)[:25]) + b"\n")
    shutil.copyfile(source, folder / "b-full.jsonl")
    for other in sorted(sim.glob("*.jsonl"))[2:6]:  # other games around them, in the same tasks
        shutil.copyfile(other, folder / f"a-{other.name}")
    db = tmp_path / "lib.duckdb"
    summary = ingest(db, folder, jobs=jobs, task_bytes=30_000)
    assert (summary.games_added, summary.games_grown) == (5, 1)
    assert summary.events_added == sum(len(lines_of(p)) for p in folder.glob("*.jsonl")) - 25  # the prefix counted once
    game = gid(source)
    assert rows(db, "SELECT count(*), count(DISTINCT seq) FROM events WHERE game_id = ?", game) == [
        (len(lines_of(source)),) * 2
    ]
    assert rows(db, "SELECT count(*) FROM games WHERE game_id = ?", game) == [(1,)]


# --------------------------------------------------------------------------- rejection: nothing lost


def test_damaged_and_illegal_logs_are_rejected_and_nothing_is_lost(tmp_path: Path, sim: Path) -> None:
    files = sorted(sim.glob("*.jsonl"))
    db = tmp_path / "lib.duckdb"
    ingest(db, *files[:4])
    kept = counts(db)
    kept_rows = rows(db, "SELECT game_id, seq, line FROM events ORDER BY ALL")
    batch = tmp_path / "batch"
    batch.mkdir()
    for f in files[4:]:
        shutil.copyfile(f, batch / f.name)
    lines = lines_of(files[5])
    lines[9] = lines[9].replace(b'"seq":10', b'"seq":10,"x":1')  # an unknown field on line 10
    (batch / "damaged.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    torn = files[6].read_bytes()[:-40]
    (batch / "torn.jsonl").write_bytes(torn)
    (batch / "illegal.jsonl").write_bytes(illegal_log(files[7]))
    (batch / "empty.jsonl").write_bytes(b"")
    # a grown copy of an ingested game whose new part is damaged: the stored game must stay as it was
    (batch / "grown-damaged.jsonl").write_bytes(files[0].read_bytes() + b'{"type":"noted","seq":999}\n')
    summary = ingest(db, batch)
    rejected = {Path(r.path).name: (r.kind, r.line) for r in summary.rejected}
    assert rejected == {
        "damaged.jsonl": ("damaged", 10),
        "torn.jsonl": ("damaged", torn.count(b"\n") + 1),
        "illegal.jsonl": ("illegal", 8),
        "empty.jsonl": ("damaged", None),
        "grown-damaged.jsonl": ("damaged", len(lines_of(files[0])) + 1),
    }
    illegal = next(r for r in summary.rejected if r.kind == "illegal")
    assert illegal.rule == "splendor.turn.out-of-turn" and "[splendor.turn.out-of-turn]" in illegal.message
    assert summary.games_added == len(files) - 4
    after = counts(db)
    for name in kept:
        assert after[name] >= kept[name]
    assert set(kept_rows) <= set(rows(db, "SELECT game_id, seq, line FROM events ORDER BY ALL"))
    illegal_id = gid(batch / "illegal.jsonl")
    for name in library.all_tables():
        if name != "library_info":
            assert rows(db, f"SELECT count(*) FROM {name} WHERE game_id = ?", illegal_id) == [(0,)], name
    # damaged.jsonl is files[5] with line 10 spoiled (same first line, same game): only the intact copy is stored
    for source in (files[0], files[5]):
        stored = rows(
            db, "SELECT string_agg(line, chr(10) ORDER BY seq) || chr(10) FROM events WHERE game_id = ?", gid(source)
        )
        assert stored == [(source.read_text(encoding="utf-8"),)]


def test_ingest_exit_codes_and_json_summary(tmp_path: Path, sim: Path, tally: Any) -> None:
    files = sorted(sim.glob("*.jsonl"))
    db = tmp_path / "lib.duckdb"
    ok = tally("ingest", str(files[0]), str(files[1]), "--db", str(db), "--json")
    assert ok.exit_code == 0 and ok.stderr == "", ok
    document = json.loads(ok.stdout)
    assert document["ok"] is True and document["games_added"] == 2 and document["rejected"] == []
    illegal = tmp_path / "illegal.jsonl"
    illegal.write_bytes(illegal_log(files[2]))
    refused = tally("ingest", str(illegal), str(files[3]), "--db", str(db), "--json")
    assert refused.exit_code == 1, refused
    document = json.loads(refused.stdout)
    assert document["ok"] is False and document["games_added"] == 1
    assert [(r["kind"], r["line"], r["rule"]) for r in document["rejected"]] == [
        ("illegal", 8, "splendor.turn.out-of-turn")
    ]
    assert refused.stderr.count("\n") == 1 and f"{illegal}:8:" in refused.stderr and "Traceback" not in refused.stderr
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b"not json\n")
    text = tally("ingest", str(damaged), str(illegal), "--db", str(db))
    assert text.exit_code == 3, text
    assert "games added      0" in text.stdout and "logs rejected    2" in text.stdout
    assert f"{damaged}:1:" in text.stderr and "Traceback" not in text.stderr
    missing = tally("ingest", str(tmp_path / "nowhere"), "--db", str(db))
    assert missing.exit_code == 2 and "no such file or folder" in missing.stderr


def test_the_default_library_is_tally_db_or_tally_duckdb(
    tmp_path: Path, sim: Path, tally: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = sorted(sim.glob("*.jsonl"))[0]
    assert tally("ingest", str(log), cwd=tmp_path).exit_code == 0
    assert (tmp_path / "tally.duckdb").is_file()
    monkeypatch.setenv("TALLY_DB", str(tmp_path / "env.duckdb"))
    assert tally("ingest", str(log), "--json", cwd=tmp_path).exit_code == 0
    assert (tmp_path / "env.duckdb").is_file()
    assert json.loads(tally("sql", "SELECT count(*) AS n FROM games", "--json", cwd=tmp_path).stdout)["rows"] == [
        {"n": 1}
    ]


def test_a_library_of_another_schema_version_is_refused(tmp_path: Path, sim: Path) -> None:
    db = tmp_path / "lib.duckdb"
    library.connect(db).close()
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE library_info SET value = '0' WHERE key = 'schema_version'")
    with pytest.raises(library.LibraryError, match="schema version 0.*delete it and ingest the logs again"):
        ingest(db, sim)


def test_a_library_of_schema_version_2_is_brought_up_to_date_in_place(tmp_path: Path, sim: Path) -> None:
    """A club's library from before the simulated flag keeps its games: they are real (no log before format 5 is
    marked simulated), the aliases table is added, and ingest goes on from where it was."""
    db = tmp_path / "lib.duckdb"
    logs = sorted(sim.glob("*.jsonl"))
    ingest(db, logs[0].parent)
    with duckdb.connect(str(db)) as con:  # made as a version 2 library was: no simulated column, no aliases
        con.execute("ALTER TABLE games DROP COLUMN simulated")
        con.execute("DROP TABLE aliases")
        con.execute("UPDATE library_info SET value = '2' WHERE key = 'schema_version'")
        games = con.execute("SELECT count(*) FROM games").fetchone()
    library.connect(db).close()
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT value FROM library_info WHERE key = 'schema_version'").fetchone() == ("3",)
        assert con.execute("SELECT count(*), count(*) FILTER (WHERE NOT simulated) FROM games").fetchone() == (
            games[0],
            games[0],
        )
        assert con.execute("SELECT count(*) FROM aliases").fetchone() == (0,)


# --------------------------------------------------------------------------- lossless round trip


def all_logs(sim: Path, voided_game: Path, table_game: Path) -> list[Path]:
    return [*fixture_games(sim.parent), *sorted(sim.glob("*.jsonl")), voided_game, table_game]


def fixture_games(folder: Path) -> list[Path]:
    """A copy of the bundled fixture games (taken once: they may be re-recorded while the tests run)."""
    copies = folder / "fixture-games"
    if not copies.exists():
        copies.mkdir()
        for path in FIXTURE_GAMES:
            shutil.copyfile(path, copies / path.name)
    return sorted(copies.glob("*.jsonl"))


def test_export_jsonl_is_byte_identical_for_every_game(
    tmp_path: Path, sim: Path, voided_game: Path, table_game: Path, tally: Any
) -> None:
    logs = all_logs(sim, voided_game, table_game)
    db = tmp_path / "lib.duckdb"
    assert ingest(db, *logs).games_added == len(logs)
    out = tmp_path / "out"
    result = tally("export", "--db", str(db), "--to", str(out), "--json")
    assert result.exit_code == 0, result
    assert json.loads(result.stdout) == {
        "db": str(db),
        "to": str(out),
        "format": "jsonl",
        "games": len(logs),
        "events": sum(len(lines_of(p)) for p in logs),
        "files": len(logs),
    }
    for log in logs:
        exported = out / f"{gid(log)}.jsonl"
        assert exported.read_bytes() == log.read_bytes(), log.name
    again = tally("export", "--db", str(db), "--to", str(out))
    assert again.exit_code == 2 and "new or empty folder" in again.stderr
    # the exported logs are a library's source again
    rebuilt = tmp_path / "rebuilt.duckdb"
    assert ingest(rebuilt, out).games_added == len(logs)
    assert counts(rebuilt) == counts(db)


def test_export_parquet_is_hive_partitioned_by_game_and_readable(
    tmp_path: Path, sim: Path, voided_game: Path, table_game: Path
) -> None:
    logs = all_logs(sim, voided_game, table_game)
    db = tmp_path / "lib.duckdb"
    ingest(db, *logs)
    out = tmp_path / "lake"
    exported = library.export(db, out, "parquet")
    assert exported.games == len(logs) and exported.files
    assert (out / "events" / "game=splendor").is_dir()
    with duckdb.connect() as con:
        for name in library.all_tables():
            if name == "library_info":
                continue
            by_game = (
                "SELECT game, count(*) FROM games GROUP BY game"
                if name == "games"
                else (f"SELECT g.game, count(*) FROM {name} JOIN games g USING (game_id) GROUP BY g.game")
            )
            stored = sorted(rows(db, by_game))
            if not stored:  # a table no game in this library fills: nothing to export
                assert not (out / name).exists(), name
                continue
            found = con.execute(
                f"SELECT game, count(*) FROM read_parquet('{out}/{name}/**/*.parquet', hive_partitioning = true) GROUP BY game"
            ).fetchall()
            assert sorted(found) == stored, name
        for log in logs:
            text = con.execute(
                f"SELECT string_agg(line, chr(10) ORDER BY seq) || chr(10) FROM read_parquet('{out}/events/**/*.parquet', "
                "hive_partitioning = true) WHERE game_id = ?",
                [gid(log)],
            ).fetchall()[0][0]
            assert text.encode() == log.read_bytes(), log.name


# --------------------------------------------------------------------------- projections equal a fold


def effective(events: list[Event]) -> list[Event]:
    """The events that happened: voided ones (and the voids) removed."""
    kept: list[Event] = []
    for event in events:
        if isinstance(event, Voided):
            kept = [e for e in kept if e.seq != event.target]
        else:
            kept.append(event)
    return kept


def folded(path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Points after every turn and cards bought, straight from a fold of the log's effective events."""
    log = logfile.read(path)
    events = effective(log.events)
    table = Table(SPLENDOR, events[0])  # type: ignore[arg-type]
    seats = log.started.seats
    turns: list[tuple[Any, ...]] = []
    bought: list[tuple[Any, ...]] = []
    for event in events[1:]:
        before = table.state
        if isinstance(event, CardBought):
            on_board = any(event.card in row for row in before.board)
            bought.append((event.seq, before.turns + 1, event.player, event.card, not on_board))
        table.apply(event)
        after = table.state
        if after.turns > before.turns:
            player = seats[before.current]
            turns.append((after.turns, event.seq, player, after.players[before.current].points))
    return turns, bought


def assert_projections_match_a_fold(db: Path, path: Path) -> None:
    game = gid(path)
    turns, bought = folded(path)
    assert (
        rows(db, "SELECT turn, seq, player, points FROM splendor_turns WHERE game_id = ? ORDER BY turn", game) == turns
    )
    assert (
        rows(
            db,
            "SELECT seq, turn, player, card, from_reserve FROM splendor_cards_bought WHERE game_id = ? ORDER BY seq",
            game,
        )
        == bought
    )
    final = Table(SPLENDOR, logfile.read(path).events[0])  # type: ignore[arg-type]
    for event in logfile.read(path).events[1:]:
        final.apply(event)
    outcome = SPLENDOR.outcome(final.state)
    seats = rows(db, "SELECT player, score, won FROM seats WHERE game_id = ? ORDER BY seat", game)
    assert seats == [
        (name, seat.points, bool(outcome and name in outcome.winners))
        for name, seat in zip(final.state.seats, final.state.players)
    ]
    assert rows(db, "SELECT turns, finished FROM games WHERE game_id = ?", game) == [
        (final.state.turns, outcome is not None)
    ]


def splendor_only(logs: list[Path]) -> list[Path]:
    """The Splendor logs among `logs` (the fixtures hold other games too; these tests fold with Splendor's rules)."""
    return [log for log in logs if b'"game":"splendor"' in lines_of(log)[0]]


def test_projections_equal_a_fold_of_the_events(tmp_path: Path, sim: Path, voided_game: Path, table_game: Path) -> None:
    logs = splendor_only(all_logs(sim, voided_game, table_game))
    db = tmp_path / "lib.duckdb"
    ingest(db, *logs)
    for log in logs:
        assert_projections_match_a_fold(db, log)
    # nobles and reserves agree with the final state
    for log in logs:
        state = judge(SPLENDOR, logfile.read(log).events)[1].state
        nobles = rows(
            db,
            "SELECT player, list(noble ORDER BY seq) FROM splendor_nobles WHERE game_id = ? GROUP BY player",
            gid(log),
        )
        assert dict(nobles) == {n: list(s.nobles) for n, s in zip(state.seats, state.players) if s.nobles}
        reserves = rows(db, "SELECT count(*) FROM splendor_reserves WHERE game_id = ?", gid(log))[0][0]
        kept = sum(len(s.reserved) for s in state.players)
        from_reserve = rows(
            db, "SELECT count(*) FROM splendor_cards_bought WHERE game_id = ? AND from_reserve", gid(log)
        )[0][0]
        assert reserves == kept + from_reserve


def test_table_mode_games_keep_unseen_blind_reserves_as_null(tmp_path: Path, table_game: Path) -> None:
    games = [
        table_game,
        *(p for p in splendor_only(fixture_games(table_game.parent.parent)) if b'"mode":"table"' in lines_of(p)[0]),
    ]
    db = tmp_path / "lib.duckdb"
    ingest(db, *games)
    assert rows(db, "SELECT count(*) FROM games WHERE mode = 'table'") == [(len(games),)]
    for log in games:
        assert_projections_match_a_fold(db, log)
        unverifiable = len(judge(SPLENDOR, logfile.read(log).events)[0].warnings)
        assert rows(db, "SELECT unverifiable FROM games WHERE game_id = ?", gid(log)) == [(unverifiable,)]
    game = gid(table_game)
    assert rows(db, "SELECT player, card, level, blind FROM splendor_reserves WHERE game_id = ? AND blind", game) == [
        ("ann", None, 1, True)
    ]
    assert rows(
        db, "SELECT count(*) FROM splendor_cards_bought WHERE game_id = ? AND from_reserve AND level = 1", game
    ) == [(1,)]
    assert rows(db, "SELECT unverifiable > 0 FROM games WHERE game_id = ?", game) == [(True,)]


def test_fold_judged_agrees_with_engine_judge(sim: Path, tmp_path: Path, table_game: Path) -> None:
    illegal = tmp_path / "illegal.jsonl"
    illegal.write_bytes(illegal_log(sorted(sim.glob("*.jsonl"))[0]))
    for path in [*sorted(sim.glob("*.jsonl"))[:3], illegal, table_game, *fixture_games(sim.parent)]:
        events = logfile.read(path).events
        judgement, table = judge(SPLENDOR, events)
        mine, failed, ruling, unverifiable = fold_judged(SPLENDOR, events)
        assert failed == judgement.failed_seq
        assert (ruling is None) == judgement.ok and (ruling is None or ruling == judgement.rulings[0])
        assert unverifiable == len(judgement.warnings)
        assert mine.state == table.state


# --------------------------------------------------------------------------- parallel ingest


def test_worker_processes_load_exactly_what_one_process_does(
    tmp_path: Path, sim: Path, voided_game: Path, table_game: Path
) -> None:
    logs = all_logs(sim, voided_game, table_game)
    serial, parallel = tmp_path / "serial.duckdb", tmp_path / "parallel.duckdb"
    ingest(serial, *logs, jobs=1)
    summary = ingest(parallel, *logs, jobs=2, task_bytes=20_000)  # small tasks: several in flight at once
    assert summary.workers == 2 and summary.games_added == len(logs)
    assert summary.tasks_here < summary.tasks  # the workers judged some of them
    for name, columns in library.all_tables().items():
        if name == "library_info":
            continue
        listed = ", ".join(f'"{c}"' for c, _ in columns if c not in ("ingested_at", "source"))
        query = f"SELECT {listed} FROM {name} ORDER BY ALL"
        assert rows(serial, query) == rows(parallel, query), name


def test_the_writer_keeps_a_core_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    from tally.store.library import writer as library_writer

    large = library.PARALLEL_MIN_BYTES
    for cpus, chosen in ((1, (1, False)), (2, (1, True)), (4, (3, True)), (32, (8, True))):
        monkeypatch.setattr(library_writer.os, "sched_getaffinity", lambda _pid, n=cpus: set(range(n)))
        assert library_writer._workers(None, large) == chosen, cpus
    assert library_writer._workers(None, large - 1) == (1, False)  # a small run is judged in this process
    assert library_writer._workers(1, large) == (1, False) and library_writer._workers(3, 10) == (3, True)


def test_one_worker_beside_the_writer_loads_what_one_process_does(
    tmp_path: Path, sim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tally.store.library import writer as library_writer

    serial, apart = tmp_path / "serial.duckdb", tmp_path / "apart.duckdb"
    logs = sorted(sim.glob("*.jsonl"))
    ingest(serial, *logs, jobs=1)
    monkeypatch.setattr(library_writer, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(library_writer.os, "sched_getaffinity", lambda _pid: {0, 1})
    summary = library.ingest(apart, logs, task_bytes=20_000)
    assert (summary.workers, summary.apart) == (1, True) and summary.games_added == len(logs)
    # the worker is given the first tasks; the writer, rather than wait for it, judges some of the others itself
    assert 0 < summary.tasks_here < summary.tasks, (summary.tasks_here, summary.tasks)
    query = "SELECT game_id, seq, line, voided FROM events ORDER BY ALL"
    assert rows(serial, query) == rows(apart, query)
    assert rows(serial, "SELECT * EXCLUDE (ingested_at, source) FROM games ORDER BY ALL") == rows(
        apart, "SELECT * EXCLUDE (ingested_at, source) FROM games ORDER BY ALL"
    )


# --------------------------------------------------------------------------- tally sql: read-only


@pytest.fixture(scope="module")
def small_library(tmp_path_factory: pytest.TempPathFactory, sim: Path) -> Path:
    db = tmp_path_factory.mktemp("lib") / "lib.duckdb"
    library.ingest(db, sorted(sim.glob("*.jsonl"))[:3])
    return db


def fingerprint(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def test_a_per_turn_report_says_what_each_point_rests_on_and_stops_before_too_few(tmp_path: Path, tally: Any) -> None:
    """Fewer games last long: each row of the average points after the k-th turn says how many games it rests on,
    and the report stops after the last turn at least half of them reach (the averages past it stand on the
    longest games alone, and would read as if points went down)."""
    played = simulate("splendor", 24, 9, tmp_path / "sims", players=2)
    db = tmp_path / "lib.duckdb"
    library.ingest(db, played.files)
    reached = dict(
        library.query(
            db,
            "SELECT player_turn, count(DISTINCT game_id) FROM splendor_turns GROUP BY player_turn ORDER BY player_turn",
        ).rows()
    )
    most = max(reached.values())
    progression = library.stats(db, "splendor", simulated=True)["progression"]["splendor"]
    assert [(row["player_turn"], row["games"]) for row in progression] == [
        (turn, games) for turn, games in reached.items() if games * 2 >= most
    ]
    assert max(reached) > progression[-1]["player_turn"], "the sample has games longer than the report goes"
    text = tally("stats", "--db", str(db), "--simulated", "--game", "splendor").stdout
    heading = next(line for line in text.splitlines() if "k-th turn" in line)
    columns = text.splitlines()[text.splitlines().index(heading) + 1].split()
    assert columns[:2] == ["turn", "games"], columns


def test_sql_prints_a_table_csv_or_json(small_library: Path, tally: Any) -> None:
    query = "SELECT game_id, players, options, started_at, finished FROM games ORDER BY game_id"
    table = tally("sql", query, "--db", str(small_library))
    assert table.exit_code == 0 and "game_id" in table.stdout and "3 rows" in table.stdout, table
    csv = tally("sql", query, "--db", str(small_library), "--format", "csv")
    assert csv.exit_code == 0 and csv.stdout.splitlines()[0] == "game_id,players,options,started_at,finished"
    assert len(csv.stdout.splitlines()) == 4
    result = tally("sql", query, "--db", str(small_library), "--format", "json")
    assert result.exit_code == 0 and result.stdout.count("\n") == 1
    document = json.loads(result.stdout)
    assert document["count"] == 3 and document["columns"][0] == "game_id"
    first = document["rows"][0]
    assert isinstance(first["players"], list) and first["options"]["target"] == "15"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", first["started_at"])


@pytest.mark.parametrize(
    "statement, says",
    [
        ("DELETE FROM games", "a DELETE statement would change the library"),
        ("CREATE TABLE x (a INTEGER)", "a CREATE statement would change the library"),
        ("SELECT 1; DROP TABLE games", "read-only"),
        ("COPY games TO 'stolen.csv'", "reads only the library"),
        ("SELECT * FROM read_csv('/etc/passwd')", "reads only the library"),
        ("SET lock_configuration = false", "SQL error"),
        ("SELEC 1", "SQL error"),
    ],
)
def test_sql_refuses_writes_and_files_and_leaves_the_library_unchanged(
    small_library: Path, tally: Any, statement: str, says: str, tmp_path: Path
) -> None:
    before = fingerprint(small_library)
    result = tally("sql", statement, "--db", str(small_library), cwd=tmp_path)
    assert result.exit_code == 2, result
    assert says in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert fingerprint(small_library) == before
    assert not (tmp_path / "stolen.csv").exists()


def test_sql_on_a_missing_library_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(record.UsageError, match="no history library here"):
        library.query(tmp_path / "none.duckdb", "SELECT 1")


# --------------------------------------------------------------------------- replay and stats


def test_replay_from_the_library_equals_replay_of_the_file(tmp_path: Path, voided_game: Path, tally: Any) -> None:
    db = tmp_path / "lib.duckdb"
    ingest(db, voided_game)
    game = gid(voided_game)
    position, frames = library.replay(db, game[:6])
    expected_position, expected = record.replay(voided_game)
    assert [(f.seq, f.type, f.text, f.voided) for f in frames] == [(f.seq, f.type, f.text, f.voided) for f in expected]
    assert position.table.state == expected_position.table.state and position.seq == expected_position.seq
    short, _ = library.replay(db, game, 12)
    assert short.seq == 12
    from_db = tally("replay", game, "--db", str(db), "--json")
    from_file = tally("replay", str(voided_game), "--json")
    assert from_db.exit_code == 0 and json.loads(from_db.stdout) == json.loads(from_file.stdout)
    unknown = tally("replay", "ffffffff", "--db", str(db))
    assert unknown.exit_code == 2 and "no game 'ffffffff'" in unknown.stderr
    with pytest.raises(record.UsageError, match="--to 999"):
        library.replay(db, game, 999)


def test_stats_report(small_library: Path, tally: Any) -> None:
    left_out = library.stats(small_library)  # simulated games count only when asked for
    assert left_out["games"] == 0 and left_out["simulated_left_out"] == 3 and left_out["players"] == []
    report = library.stats(small_library, simulated=True)
    assert report["games"] == 3 and report["finished"] == 3 and report["simulated_left_out"] == 0
    assert report["rests_on"]["players"] == 3 and report["rests_on"]["most_bought"] == {
        "splendor": 3,
        **{name: 0 for name in report["rests_on"]["most_bought"] if name != "splendor"},
    }
    assert sum(p["wins"] for p in report["players"]) >= 3
    assert {(s["players"], s["seat"]) for s in report["seats"]} <= {(n, s) for n in (2, 3, 4) for s in range(1, n + 1)}
    progression = report["progression"]["splendor"]
    assert progression[0]["player_turn"] == 1 and progression[0]["games"] == 3
    bought = report["most_bought"]["splendor"]
    assert len(bought) == 10 and bought[0]["bought"] >= bought[-1]["bought"]
    assert library.stats(small_library, "splendor", simulated=True)["games"] == 3
    assert library.stats(small_library, "split", simulated=True)["games"] == 0
    as_json = tally("stats", "--db", str(small_library), "--json", "--simulated")
    assert as_json.exit_code == 0 and json.loads(as_json.stdout)["games"] == 3
    text = tally("stats", "--db", str(small_library), "--simulated")
    assert text.exit_code == 0, text
    for heading in (
        "win rate by player",
        "win rate by seat",
        "average points after each player's k-th turn",
        "most-bought cards",
    ):
        assert heading in text.stdout
    assert "█" in text.stdout


def test_ingest_shows_a_progress_bar_when_asked(tmp_path: Path, sim: Path, tally: Any) -> None:
    result = tally("ingest", str(sim), "--db", str(tmp_path / "lib.duckdb"), "--progress")
    assert result.exit_code == 0 and "games added      10" in result.stdout, result
    quiet = tally("ingest", str(sim), "--db", str(tmp_path / "lib.duckdb"))
    assert quiet.exit_code == 0 and quiet.stderr == "" and "games unchanged  10" in quiet.stdout


def test_the_ingest_benchmark_runs(tmp_path: Path) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_ingest.py"), "--games", "3", "--scale", "4000", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    for line in (
        "read_json baseline",
        "check only",
        "tally ingest",
        "ratio to read_json",
        "fresh process peaks",
        "scale (",
        "tally sql",
        "tally stats",
        "library charts",
    ):
        assert line in result.stdout, result.stdout
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(summary["games"]) == {"splendor", "split", "array", "splice"}  # every game, each measured alone
    for game in summary["games"].values():
        assert game["events"] > 0 and game["ingest_eps"] > 0 and game["ratio"] > 0
    assert summary["scale"]["events"] >= 4000 and summary["scale"]["charts"] == 7
    assert (
        summary["scale"]["sql_ms"] > 0 and summary["scale"]["stats_ms"] > 0 and summary["scale"]["stats_report_ms"] > 0
    )


# --------------------------------------------------------------------------- one bad log in an ingest (issue 7)


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("good")
    simulate("splendor", 30, 7, folder, players=2)
    return folder


BAD_STARTS = {
    "solo": ({"seats": ["solo"]}, "Splendor needs 2-4 players, got 1"),
    "no-seats": ({"seats": []}, "Splendor needs 2-4 players, got 0"),
    "nine-seats": ({"seats": [f"p{i}" for i in range(1, 10)]}, "Splendor needs 2-4 players, got 9"),
    "target-abc": ({"options": {**START["options"], "target": "abc"}}, "option target='abc'"),
}


@pytest.mark.parametrize("order", ["bad-first", "bad-last"])
def test_finding_1_one_bad_log_never_stops_an_ingest(tmp_path: Path, good: Path, tally: Any, order: str) -> None:
    bad = [start_log(tmp_path / f"{name}.jsonl", **changes) for name, (changes, _) in BAD_STARTS.items()]
    db = tmp_path / "library.duckdb"
    paths = [*map(str, bad), str(good)] if order == "bad-first" else [str(good), *map(str, bad)]
    result = tally("ingest", *paths, "--db", str(db), "--json")
    assert result.exit_code == 3, result
    doc = json.loads(result.stdout)
    assert doc["games_added"] == 30 and doc["files"] == 34
    assert {(r["path"], r["line"], r["kind"]) for r in doc["rejected"]} == {(str(p), 1, "damaged") for p in bad}
    for path, (_, why) in zip(bad, BAD_STARTS.values()):
        reported = [line for line in result.stderr.splitlines() if line.startswith(f"tally: rejected {path}:1: ")]
        assert len(reported) == 1 and why in reported[0], result.stderr
    assert library.query(db, "SELECT count(*) FROM games").rows().__next__()[0] == 30


def test_finding_1_a_log_tally_fails_on_is_set_aside_and_the_others_are_stored(
    tmp_path: Path, good: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond the damaged logs the reader refuses: should folding one log fail (a bug), or DuckDB refuse one
    log's rows, that log alone is rejected and every other log of the task is stored."""
    logs = sorted(good.glob("*.jsonl"))
    unlucky, refused = str(logs[3]), str(logs[17])
    real_one, real_game = library_ingest._one, library_ingest._game

    def failing_one(result: Any, rows: Any, path: str, gid: Any, known: Any) -> None:
        if path == unlucky:
            raise KeyError(1)  # what the campaign saw
        real_one(result, rows, path, gid, known)

    def unstorable_game(rows: Any, gid: str, log: Any, *rest: Any) -> None:
        real_game(rows, gid, log, *rest)
        if log.path == refused:
            rows.games["options"][-1] = "{not json"  # DuckDB refuses the cast to JSON

    monkeypatch.setattr(library_ingest, "_one", failing_one)
    monkeypatch.setattr(library_ingest, "_game", unstorable_game)
    summary = library.ingest(tmp_path / "library.duckdb", [good], jobs=1)
    assert summary.games_added == 28
    rejected = {r.path: r for r in summary.rejected}
    assert set(rejected) == {unlucky, refused}
    assert rejected[unlucky].kind == "error" and "KeyError: 1" in rejected[unlucky].message
    assert rejected[refused].kind == "error" and "the library refused its rows" in rejected[refused].message


# --------------------------------------------------------------------------- ingest killed, empty or busy (issue 16)


TALLY = [sys.executable, "-c", "from tally.cli.main import main; main()"]


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TALLY, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1", **env},
    )


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


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")
def test_finding_3_kill_9_of_an_ingest_leaves_no_worker_and_no_open_output(tmp_path: Path, logs: Path) -> None:
    proc = subprocess.Popen(
        [*TALLY, "ingest", str(logs), "--db", str(tmp_path / "lib.duckdb"), "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the two workers are running
            workers = [
                pid
                for pid in _session(proc.pid)
                if pid != proc.pid
                and _ppid(pid) == proc.pid
                and b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
            ]
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


def test_finding_7_a_library_stopped_before_its_first_commit_says_so(tmp_path: Path, logs: Path) -> None:
    db = tmp_path / "lib.duckdb"
    duckdb.connect(str(db)).close()  # what an ingest killed before its first commit leaves: a file, no tables
    for command in (
        ["sql", "--db", str(db), "SELECT count(*) FROM games"],
        ["stats", "--db", str(db)],
        ["export", "--db", str(db), "--to", str(tmp_path / "out")],
    ):
        result = _run(*command)
        assert result.returncode == 2 and "the library holds no tables yet" in result.stderr, (command, result)
        assert result.stderr.count("\n") == 1 and "Catalog Error" not in result.stderr
    assert _run("ingest", str(logs / "split"), "--db", str(db)).returncode == 0
    counted = _run("sql", "--db", str(db), "--format", "csv", "SELECT count(*) FROM games")
    assert counted.returncode == 0 and counted.stdout.splitlines()[-1] == "30", counted


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
        for command in (
            ["sql", "--db", str(db), "SELECT count(*) FROM games"],
            ["stats", "--db", str(db)],
            ["ingest", str(logs / "split"), "--db", str(db)],
            ["replay", game_id, "--db", str(db)],
        ):
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


# --------------------------------------------------------------------------- tally sql: limits, sandbox (issues 7, 16)


def test_finding_6_sql_empty_queries_and_limits(tmp_path: Path, good: Path, tally: Any) -> None:
    db = tmp_path / "library.duckdb"
    library.ingest(db, [good])
    for empty in ("", " ", ";"):
        result = tally("sql", empty, "--db", str(db))
        assert result.exit_code == 2 and "empty query" in stderr_line(result), result
    began = time.perf_counter()
    endless = tally("sql", "SELECT count(*) FROM range(100000000000)", "--db", str(db), "--timeout", "1")
    assert endless.exit_code == 2 and "stopped after the time limit of 1 s" in stderr_line(endless)
    assert time.perf_counter() - began < 60
    limit = tally("sql", "SELECT current_setting('memory_limit') AS m", "--db", str(db), "--format", "csv")
    assert limit.exit_code == 0 and limit.stdout.splitlines()[1] in ("1.8 GiB", "1.9 GiB", "2.0 GiB"), limit.stdout
    hungry = tally(
        "sql",
        "SELECT string_agg(x::VARCHAR, ',') FROM range(20000000) t(x)",
        "--db",
        str(db),
        "--memory-limit",
        "40MB",
        "--format",
        "csv",
    )
    assert hungry.exit_code == 2 and "more memory than its limit of 40MB" in stderr_line(hungry), hungry
    lifted = tally("sql", "SET memory_limit = '100GB'", "--db", str(db))
    assert lifted.exit_code == 2 and "locked" in stderr_line(lifted)


def test_finding_6_the_cli_defaults_are_the_documented_limits() -> None:
    from tally.cli import docs

    text = docs.render()
    assert f"| `{library.SQL_TIMEOUT}` |" in text.split("`--timeout <float>`")[1].splitlines()[0]
    assert f"| `{library.SQL_MEMORY}` |" in text.split("`--memory-limit <str>`")[1].splitlines()[0]
    assert "60 seconds" in (ROOT / "docs" / "sql.md").read_text() and "2GB" in (ROOT / "docs" / "sql.md").read_text()


def _documented(kind: str) -> list[str]:
    """The statements named in the **Refused** or **Accepted** item of docs/sql.md's `tally sql` section."""
    section = SQL_DOC.read_text(encoding="utf-8").split("## `tally sql`", 1)[1]
    item = section.split(f"- **{kind}**", 1)[1].split("\n- **", 1)[0].split("\n\n", 1)[0]
    statements = [text for text in re.findall(r"`([^`]+)`", " ".join(item.split())) if " " in text or text.isupper()]
    assert len(statements) >= 10, statements
    return statements


@pytest.fixture(scope="module")
def sql_library(tmp_path_factory: pytest.TempPathFactory, logs: Path) -> Path:
    db = tmp_path_factory.mktemp("lib") / "lib.duckdb"
    assert _run("ingest", str(logs / "splendor"), "--db", str(db)).returncode == 0
    return db


@pytest.mark.parametrize("statement", _documented("Refused"))
def test_finding_9_what_docs_sql_md_says_is_refused_is_refused(
    sql_library: Path, statement: str, tmp_path: Path
) -> None:
    before = sql_library.read_bytes()
    result = subprocess.run(
        [*TALLY, "sql", "--db", str(sql_library), statement], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, (statement, result)
    assert sql_library.read_bytes() == before and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("statement", _documented("Accepted"))
def test_finding_9_what_docs_sql_md_says_is_accepted_is_accepted(
    sql_library: Path, statement: str, tmp_path: Path
) -> None:
    before = sql_library.read_bytes()
    result = subprocess.run(
        [*TALLY, "sql", "--db", str(sql_library), statement], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert result.returncode == 0, (statement, result)
    assert sql_library.read_bytes() == before and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ["-- x", "--x", "-- SELECT 1"])
def test_finding_9_a_query_of_only_a_comment_is_a_query_not_an_option(sql_library: Path, text: str) -> None:
    result = _run("sql", "--db", str(sql_library), text)
    assert result.returncode == 2 and "empty query" in result.stderr and "No such option" not in result.stderr, result
    assert (
        _run("sql", "--db", str(sql_library), "--format", "csv", "-- a comment first\nSELECT 42").stdout.splitlines()[
            -1
        ]
        == "42"
    )
