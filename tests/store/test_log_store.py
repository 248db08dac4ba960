"""The log store contract, one test class run against both stores: the JSONL file and PostgreSQL.

The PostgreSQL runs use a throwaway cluster (tests/support/pg_cluster.py): skipped where no server is installed, a
failure in CI (CI=true), where .ci/run installs Debian's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from support import ROOT
from tally.core.model import Noted
from tally.store.errors import StaleAppend
from tally.store.logs import log as logfile
from tally.store.logs.logstore import JsonlStore, LogStore
from tally.store.logs.places import import_log, open_store
from tally.store.logs.repair import repair as repair_log
from tally.store.recording.service import GameRecord, UsageError

FIXTURES = ROOT / "fixtures" / "games"

Maker = Callable[[str], LogStore]


@pytest.fixture(params=["jsonl", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """(kind, where, make): `make(game)` a store of one game; `where` what `open_store` takes as --store."""
    if request.param == "jsonl":
        folder = tmp_path / "logs"
        folder.mkdir()
        yield "jsonl", str(folder), lambda game: JsonlStore(folder / f"{game}.jsonl")
        return
    url = request.getfixturevalue("pg_url")
    from tally.store.logs.pgstore import PostgresStore

    made: list[PostgresStore] = []

    def make(game: str) -> LogStore:
        made.append(PostgresStore(url, game))
        return made[-1]

    yield "postgresql", url, make
    for store in made:
        store.close()


def new_game(store: LogStore, seed: int = 5) -> GameRecord:
    assert GameRecord.new(store, "splendor", ["ana", "ben"], seed=seed).accepted
    return GameRecord.open(store)


def lines_of(store: LogStore) -> list[bytes]:
    return store.raw().split(b"\n")[:-1]


class TestLogStoreContract:
    def test_a_new_game_reads_back_as_it_was_stamped(self, backend: Any) -> None:
        _, _, make = backend
        store = make("g1")
        result = GameRecord.new(store, "splendor", ["ana", "ben"], seed=5)
        log = store.read()
        assert [e.seq for e in log.events] == [e.seq for e in result.events]
        assert log.fingerprint == result.fingerprint == logfile.sha256_hex(lines_of(store)[-1])
        assert logfile.parse_lines("again", store.raw()).fingerprint == log.fingerprint

    def test_an_existing_game_is_never_overwritten(self, backend: Any) -> None:
        _, _, make = backend
        new_game(make("g1"))
        with pytest.raises(FileExistsError):
            GameRecord.new(make("g1"), "splendor", ["ana", "ben"], seed=6)

    def test_a_missing_game_is_a_log_error(self, backend: Any) -> None:
        _, _, make = backend
        with pytest.raises(logfile.LogError):
            make("nothing").read()
        with pytest.raises(logfile.LogError):
            GameRecord.open(make("nothing"))

    def test_appends_extend_the_chain_and_change_the_identity(self, backend: Any) -> None:
        _, _, make = backend
        record = new_game(make("g1"))
        before = record.store.identity()
        assert record.append("1").accepted and record.note("a remark").accepted
        assert record.store.identity() != before and not record.changed()
        lines = lines_of(make("g1"))
        log = make("g1").read()
        assert len(lines) == len(log.events) == record.seq
        for line, event in zip(lines, log.events[1:]):
            assert event.prev == logfile.sha256_hex(line)

    def test_a_stale_append_is_refused_and_appends_nothing(self, backend: Any) -> None:
        _, _, make = backend
        mine, theirs = new_game(make("g1")), GameRecord.open(make("g1"))
        seen = mine.seq
        assert theirs.append("1").accepted
        assert mine.changed()
        refused = mine.append("1", expect_seq=seen)
        assert not refused.accepted and refused.rulings[0].rule == "core.append.stale"
        assert len(make("g1").read().events) == seen + 1
        # without an expectation the record catches up with the log and judges there
        assert mine.note("after theirs").accepted and mine.seq == seen + 2

    def test_a_writer_appending_after_an_old_tail_gets_stale_append(self, backend: Any) -> None:
        _, _, make = backend
        store = make("g1")
        record = new_game(store)
        old_seq, old_hash = record.seq, record.last_hash
        assert record.note("moves the tail").accepted
        with store.writer() as writer:
            with pytest.raises(StaleAppend):
                writer.append(old_seq, old_hash, [record.fold.started])
        assert len(store.read().events) == old_seq + 1

    def test_a_unit_is_all_or_nothing(self, backend: Any) -> None:
        _, _, make = backend
        store = make("g1")
        record = new_game(store)
        seq = record.seq
        refused = record.append("take w b g + take r r")  # its second part is refused: nothing of it is appended
        assert not refused.accepted and len(store.read().events) == seq
        with store.writer() as writer:
            log = writer.read()
            writer.append(len(log.events), log.last_hash, [Noted(text="one"), Noted(text="two")])
        assert [e.unit for e in store.read().events[seq:]] == [2, 1]
        assert GameRecord.open(store).seq == seq + 2

    def test_the_stale_refusal_through_the_cli(self, backend: Any, tally: Any) -> None:
        _, where, make = backend
        new_game(make("g1"))
        seq = len(make("g1").read().events)
        assert tally("move", "--store", where, "g1", "1", "--expect-seq", str(seq)).exit_code == 0
        stale = tally("move", "--store", where, "g1", "1", "--expect-seq", str(seq))
        assert stale.exit_code == 1 and "core.append.stale" in stale.stderr
        checked = tally("check", "--store", where, "g1", "--json")
        assert checked.exit_code == 0 and f'"events": {seq + 1}' in checked.stdout

    def test_wait_after_returns_what_another_writer_appends(self, backend: Any) -> None:
        _, _, make = backend
        record = new_game(make("g1"))
        seq = record.seq
        follower = make("g1")
        assert follower.wait_after(seq, 0.05) == []

        def later() -> None:
            time.sleep(0.3)
            other = GameRecord.open(make("g1"))
            other.note("from elsewhere")

        writer = threading.Thread(target=later)
        writer.start()
        try:
            events = follower.wait_after(seq, 20)
        finally:
            writer.join()
        assert [e.seq for e in events] == [seq + 1]
        assert [e.seq for e in GameRecord(make("g1")).events_after(seq - 1)] == [seq, seq + 1]

    def test_two_processes_appending_to_one_game(self, backend: Any) -> None:
        kind, where, make = backend
        new_game(make("g1"))
        start = len(make("g1").read().events)
        script = textwrap.dedent(f"""
            import sys
            from tally.store.logs.places import open_store
            from tally.store.recording.service import GameRecord
            record = GameRecord(open_store("g1", {where!r}))
            accepted = stale = 0
            for n in range(25):
                result = record.note(f"{{sys.argv[1]}} {{n}}", expect_seq=record.seq if n % 2 else None)
                if result.accepted:
                    accepted += 1
                else:
                    assert result.rulings[0].rule == "core.append.stale", result
                    stale += 1
            print(accepted, stale)
        """)
        writers = [
            subprocess.Popen([sys.executable, "-c", script, name], stdout=subprocess.PIPE, text=True)
            for name in ("left", "right")
        ]
        counts = [tuple(map(int, w.communicate(timeout=180)[0].split())) for w in writers]
        assert all(w.returncode == 0 for w in writers)
        accepted = sum(a for a, _ in counts)
        log = make("g1").read()  # verified: one chain, seq by seq
        assert len(log.events) == start + accepted
        assert accepted >= 25  # every append without an expectation lands
        notes = [e.text for e in log.events[start:]]  # type: ignore[attr-defined]
        assert len(set(notes)) == len(notes)

    def test_kill_9_of_a_writer_loses_no_acknowledged_event(self, backend: Any) -> None:
        kind, where, make = backend
        new_game(make("g1"))
        script = textwrap.dedent(f"""
            import sys
            from tally.store.logs.places import open_store
            from tally.store.recording.service import GameRecord
            record = GameRecord(open_store("g1", {where!r}))
            for n in range(100000):
                result = record.note(f"note {{n}}")
                print(result.events[0].seq, result.fingerprint, flush=True)
        """)
        writer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        acknowledged: list[tuple[int, str]] = []
        assert writer.stdout is not None
        for line in writer.stdout:
            seq, fingerprint = line.split()
            acknowledged.append((int(seq), fingerprint))
            if len(acknowledged) == 40:
                os.kill(writer.pid, signal.SIGKILL)
                break
        writer.wait(timeout=60)
        writer.stdout.close()
        if kind == "jsonl":
            try:
                log = make("g1").read()
            except logfile.Torn:  # killed in the middle of its one write: repair keeps every whole line
                repair_log(make("g1").name)
                log = make("g1").read()
        else:
            log = make("g1").read()
        for seq, fingerprint in acknowledged:
            assert log.fingerprint_at(seq) == fingerprint
        assert GameRecord.open(make("g1")).note("after the kill").accepted

    def test_an_imported_log_keeps_every_byte(self, backend: Any) -> None:
        _, where, make = backend
        fixture = sorted(FIXTURES.glob("*.jsonl"))[0]
        game, events, fingerprint = import_log(fixture, where, "imported")
        store = make("imported")
        assert store.raw() == fixture.read_bytes()
        assert (len(store.read().events), store.read().fingerprint) == (events, fingerprint)
        with pytest.raises(FileExistsError):
            import_log(fixture, where, "imported")
        with pytest.raises(UsageError):
            open_store("../outside", where)


class TestPostgresOnly:
    def test_import_then_export_is_byte_identical_and_checks(self, pg_url: str, tmp_path: Path, tally: Any) -> None:
        logs = sorted(FIXTURES.glob("*.jsonl"))[:4]
        for log in logs:
            done = tally("import", "--store", pg_url, str(log))
            assert done.exit_code == 0, done
        again = tally("import", "--store", pg_url, str(logs[0]))
        assert again.exit_code == 2 and "never overwritten" in again.stderr
        exported = tally("export", "--store", pg_url, "--to", str(tmp_path / "out"), "--json")
        assert exported.exit_code == 0, exported
        for log in logs:
            copy = tmp_path / "out" / log.name
            assert copy.read_bytes() == log.read_bytes()
            assert tally("check", str(copy)).exit_code == 0

    def test_a_stale_key_refuses_a_writer_that_skipped_the_lock(self, pg_url: str) -> None:
        import psycopg

        from tally.store.logs.pgstore import PostgresStore

        with PostgresStore(pg_url, "g1") as store:
            record = new_game(store)
            seq = record.seq
            with psycopg.connect(pg_url, autocommit=True) as other:  # a line at seq+1 written behind the lock's back
                other.execute("INSERT INTO tally_lines (game, seq, line) VALUES ('g1', %s, 'x')", (seq + 1,))
            with pytest.raises(StaleAppend):
                with store.writer() as writer:
                    writer.append(seq, record.last_hash, [record.fold.started])

    def test_ingest_from_the_store_matches_ingest_from_files_and_is_incremental(
        self, pg_url: str, tmp_path: Path, tally: Any
    ) -> None:
        import duckdb

        logs = sorted(FIXTURES.glob("*.jsonl"))[:5]
        for log in logs:
            assert tally("import", "--store", pg_url, str(log)).exit_code == 0
        from_store, from_files = tmp_path / "store.duckdb", tmp_path / "files.duckdb"
        first = tally("ingest", "--store", pg_url, "--db", str(from_store), "--json")
        assert first.exit_code == 0 and '"games_added": 5' in first.stdout, first
        assert tally("ingest", *map(str, logs), "--db", str(from_files)).exit_code == 0
        query = "SELECT game_id, seq, line FROM events ORDER BY ALL"
        games = "SELECT game_id, game, events, fingerprint, digest FROM games ORDER BY ALL"
        with duckdb.connect(str(from_store), read_only=True) as a, duckdb.connect(str(from_files), read_only=True) as b:
            assert a.execute(query).fetchall() == b.execute(query).fetchall()
            assert a.execute(games).fetchall() == b.execute(games).fetchall()
        again = tally("ingest", "--store", pg_url, "--db", str(from_store), "--json")
        assert '"games_unchanged": 5' in again.stdout and '"events_added": 0' in again.stdout
        grown = logs[0].name.removesuffix(".jsonl")
        assert tally("note", "--store", pg_url, grown, "one more line").exit_code == 0
        third = tally("ingest", "--store", pg_url, "--db", str(from_store), "--json")
        assert '"games_grown": 1' in third.stdout and '"events_added": 1' in third.stdout, third

    def test_one_listener_wakes_only_the_game_that_moved(self, pg_url: str) -> None:
        from tally.store.logs.pgstore import Listener, PostgresStore

        first, second = new_game(PostgresStore(pg_url, "first")), new_game(PostgresStore(pg_url, "second"))
        results: dict[str, list[Any]] = {}

        def wait(game: str, seq: int, timeout: float) -> None:
            results[game] = PostgresStore(pg_url, game).wait_after(seq, timeout)

        waiters = [
            threading.Thread(target=wait, args=("first", first.seq, 1.5)),
            threading.Thread(target=wait, args=("second", second.seq, 20)),
        ]
        for waiter in waiters:
            waiter.start()
        time.sleep(0.3)
        assert second.note("only the second moves").accepted
        for waiter in waiters:
            waiter.join()
        assert results["first"] == [] and [e.seq for e in results["second"]] == [second.seq]
        assert Listener.of(pg_url) is Listener.of(pg_url)  # one listening connection per database and process

    def test_cli_new_replay_and_check_of_a_game_in_the_store(self, pg_url: str, tally: Any) -> None:
        assert (
            tally("new", "splendor", "club-1", "-p", "ana", "-p", "ben", "--seed", "3", "--store", pg_url).exit_code
            == 0
        )
        assert tally("move", "--store", pg_url, "club-1", "1").exit_code == 0
        replayed = tally("replay", "--store", pg_url, "club-1")
        assert replayed.exit_code == 0 and "take" in replayed.stdout
        assert "--store" in tally("check", "--help").stdout
        missing = tally("check", "--store", pg_url, "club-2")
        assert missing.exit_code == 3 and "no game 'club-2'" in missing.stderr
        bad = tally("move", "--store", pg_url, "../etc", "1")
        assert bad.exit_code == 2


def test_open_store_picks_the_store(tmp_path: Path) -> None:
    assert isinstance(open_store(tmp_path / "a.jsonl"), JsonlStore)
    assert open_store("a", str(tmp_path)).name == str(tmp_path / "a.jsonl")
    assert open_store("a.jsonl", str(tmp_path)).name == str(tmp_path / "a.jsonl")


def test_the_store_benchmark_runs(pg_url: str, tmp_path: Path) -> None:
    """A smoke run of bench/bench_store.py: behaviour only, never a timing assertion."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_store.py"), "--quick", "--url", pg_url],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for line in ("jsonl      appends/s, 2 processes", "postgresql stream latency ms", "postgresql events/s"):
        assert line in done.stdout
