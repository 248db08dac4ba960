"""The history library: every game log in one DuckDB file, queried with SQL (docs/sql.md).

The JSONL logs stay the truth; the library is derived and can always be rebuilt by ingesting them
again. It keeps each line's exact text (so an exported game is byte-identical to its log) plus
query-friendly tables: games, seats, events, round_results and each game's own tables (declared
by the game's `history` module in core, named after the game).

Ingest reads every log with the same verified decoding as `tally check` (`log.parse_lines`) and
folds it through the same checks and reducers (`engine.Table`); projections only read the states
of that fold (store/library_ingest.py, which runs in worker processes on large runs). Rows are
gathered per task of many games as Arrow tables and inserted in bulk (`INSERT ... SELECT` from the
Arrow scan), one transaction per task, so a rejected log (whose rows never leave its task) is
never half-loaded and nothing already in the library is lost. A game's id is the first 16 hex
digits of the SHA-256 of its log's first line, so it keeps its id as the log grows.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections import deque
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import duckdb
import msgspec
import pyarrow as pa


from . import log as logfile
from tally.core import registry
from tally.core.text import quote, visible

from .library_ingest import (
    ROUND_RESULTS,
    SEATS,
    Known,
    Rejected,
    Result,
    game_id_of,
    projection_tables,
    work,
)
from .record import Frame, Position, UsageError, replay_log

__all__ = ["ingest", "export", "query", "stats", "replay", "replay_bytes", "Rejected", "Summary", "LibraryError"]

SCHEMA_VERSION = "2"  # 2: games.ended
# the oldest DuckDB whose clients must open the library: the 1.4 LTS line (docs/sql.md); DuckDB uses this
# storage version when it creates the file (an existing file keeps the version it was created with)
STORAGE_COMPATIBILITY = "v1.4.0"
DEFAULT_DB = "tally.duckdb"
TASK_BYTES = 8 << 20  # log bytes per task at most (one bulk insert, one transaction): ~40,000 events of a card game
TASK_FILES = 2_000
PARALLEL_MIN_BYTES = 16 << 20  # smaller runs are ingested in-process (starting workers costs ~0.5 s of CPU each)
# while ingesting: DuckDB's buffer pool is capped, so memory stays flat however many games (it spills to disk),
# and the write-ahead log is checkpointed every 64 MB rather than 16: fewer rewrites of the open row groups
# (measured: 10% less CPU, 17% smaller file than the defaults)
INGEST_SETTINGS = ("SET memory_limit = '128MB'", "SET checkpoint_threshold = '64MB'")

# table -> [(column, DuckDB type)]; docs/sql.md documents every column (a test keeps them in step)
TABLES: dict[str, list[tuple[str, str]]] = {
    "library_info": [("key", "VARCHAR"), ("value", "VARCHAR")],
    "games": [
        ("game_id", "VARCHAR"),
        ("game", "VARCHAR"),
        ("rules", "VARCHAR"),
        ("mode", "VARCHAR"),
        ("options", "JSON"),
        ("manifest", "VARCHAR"),
        ("players", "VARCHAR[]"),
        ("player_count", "INTEGER"),
        ("started_at", "TIMESTAMP WITH TIME ZONE"),
        ("ended_at", "TIMESTAMP WITH TIME ZONE"),
        ("events", "INTEGER"),
        ("turns", "INTEGER"),
        ("finished", "BOOLEAN"),
        ("winners", "VARCHAR[]"),
        ("winner", "VARCHAR"),
        ("result", "VARCHAR"),
        ("ended", "VARCHAR"),
        ("unverifiable", "INTEGER"),
        ("fingerprint", "VARCHAR"),
        ("size", "BIGINT"),
        ("digest", "VARCHAR"),
        ("source", "VARCHAR"),
        ("ingested_at", "TIMESTAMP WITH TIME ZONE"),
    ],
    "seats": SEATS,
    "events": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("type", "VARCHAR"),
        ("player", "VARCHAR"),
        ("recorded_at", "TIMESTAMP WITH TIME ZONE"),
        ("payload", "JSON"),
        ("line", "VARCHAR"),
        ("voided", "BOOLEAN"),
    ],
    "round_results": ROUND_RESULTS,
}

# virtual columns: computed from the stored line when read, so they cost no space and no ingest time
GENERATED = {("events", "payload"): """json_merge_patch(line, '{"type":null,"seq":null,"at":null,"prev":null}')"""}

_INSERT = {
    "events": """
        INSERT INTO events (game_id, seq, type, player, recorded_at, line, voided)
        SELECT game_id, seq, type, player, TRY_CAST("at" AS TIMESTAMPTZ), line, voided FROM _stage_events""",
    "games": """
        INSERT INTO games
        SELECT game_id, game, rules, mode, options::JSON, manifest, players, player_count,
               TRY_CAST(started_at AS TIMESTAMPTZ), TRY_CAST(ended_at AS TIMESTAMPTZ), events, turns, finished,
               winners, winner, result, ended, unverifiable, fingerprint, size, digest, source, now()
        FROM _stage_games""",
}


class LibraryError(logfile.LogError):
    """The library file cannot be opened or used (exit code 3)."""

    def __init__(self, db: Path | str, message: str):
        super().__init__(db, None, message)


class Summary(msgspec.Struct):
    """What an ingest did. `games_stale`: logs that are an older copy of a stored game (nothing to add)."""

    db: str
    files: int = 0
    games_added: int = 0
    games_grown: int = 0
    games_unchanged: int = 0
    games_stale: int = 0
    events_added: int = 0
    rejected: list[Rejected] = []
    seconds: float = 0.0
    workers: int = 1


def resolve_db(db: Path | str | None) -> Path:
    """`--db`, else `$TALLY_DB`, else ./tally.duckdb."""
    path = Path(db or os.environ.get("TALLY_DB") or DEFAULT_DB)
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{visible(str(path))}: the library's path is not valid UTF-8 (check $TALLY_DB)") from None
    return path


def _check_file(db: Path | str) -> bool:
    """Whether the library exists. It is a regular file: DuckDB must never be handed a FIFO (it would wait)
    or a device."""
    try:
        mode = os.stat(db).st_mode
    except OSError:
        return False  # not there yet (ingest creates it), or DuckDB says why
    if not stat.S_ISREG(mode):
        raise logfile.NotRegular(db, mode, "a history library")
    return True


def all_tables() -> dict[str, list[tuple[str, str]]]:
    return {**TABLES, **projection_tables()}


# --------------------------------------------------------------------------- connections


def _duck_message(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _busy(error: Exception) -> str:
    message = _duck_message(error)
    if "lock" in message.lower():
        return f"{message} (another tally is using the library; try again when it has finished)"
    return message


def connect(db: Path | str) -> duckdb.DuckDBPyConnection:
    """Open the library for writing, creating it (and its tables) when needed."""
    _check_file(db)
    try:
        # a new library is written in a storage format DuckDB 1.4 (the LTS line) reads, not just this DuckDB's
        con = duckdb.connect(str(db), config={"storage_compatibility_version": STORAGE_COMPATIBILITY})
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot open the library: {_busy(error)}") from None
    try:
        _create(con, db)
    except duckdb.Error as error:
        con.close()
        raise LibraryError(db, f"cannot use the library: {_duck_message(error)}") from None
    except BaseException:
        con.close()
        raise
    return con


def _create(con: duckdb.DuckDBPyConnection, db: Path | str) -> None:
    existing = {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if "library_info" in existing:
        rows = con.execute("SELECT value FROM library_info WHERE key = 'schema_version'").fetchall()
        row = rows[0] if rows else None
        if row is None or row[0] != SCHEMA_VERSION:
            found = row[0] if row else "unknown"
            raise LibraryError(
                db,
                f"the library has schema version {found}, this tally writes version {SCHEMA_VERSION}: "
                "it is derived from the logs, so delete it and ingest the logs again",
            )
    missing = [name for name in all_tables() if name not in existing]
    if not missing:
        return
    con.execute("BEGIN TRANSACTION")
    for name in missing:
        columns = []
        for column, kind in all_tables()[name]:
            generated = GENERATED.get((name, column))
            columns.append(f'"{column}" {kind}' + (f" GENERATED ALWAYS AS ({generated}) VIRTUAL" if generated else ""))
        con.execute(f"CREATE TABLE {name} ({', '.join(columns)})")
    if "library_info" in missing:
        con.execute(
            "INSERT INTO library_info VALUES ('schema_version', ?), ('created_at', strftime(now(), '%Y-%m-%dT%H:%M:%SZ'))",
            [SCHEMA_VERSION],
        )
    con.execute("COMMIT")


def connect_read_only(db: Path | str, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """Open the library read-only, without access to other files (what `tally sql` runs in). The settings
    are locked once made, so a query cannot lift them (nor the memory limit, when one is given)."""
    if not _check_file(db):
        raise UsageError(f"{db}: no history library here; create one with `tally ingest LOGS... --db {db}`")
    try:
        con = duckdb.connect(str(db), read_only=True, config={"enable_external_access": False})
        con.execute("SET TimeZone = 'UTC'")
        if memory_limit is not None:
            con.execute(f"SET memory_limit = '{memory_limit}'")  # checked by memory_size: digits and a unit only
        con.execute("SET lock_configuration = true")
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot open the library: {_busy(error)}") from None
    return con


# --------------------------------------------------------------------------- ingest


def collect(paths: Iterable[Path | str]) -> list[Path]:
    """The logs named: files as given, folders searched recursively for *.jsonl, each file once, in order."""
    found: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            # every *.jsonl but folders: a FIFO, device or dangling link among the logs is reported, not skipped
            candidates = sorted(p for p in path.rglob("*.jsonl") if not p.is_dir())
        elif path.exists() or path.is_symlink():
            candidates = [path]
        else:
            raise UsageError(f"{path}: no such file or folder")
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return found


def _first_line(path: Path) -> tuple[str | None, int]:
    """(game id, file size) from the first line; (None, 0) when unreadable (the worker reports why)."""
    try:
        fd = logfile.open_regular(path, os.O_RDONLY)
    except (OSError, logfile.LogError):  # the worker reports why
        return None, 0
    with open(fd, "rb") as handle:
        first = handle.readline()
        size = os.fstat(fd).st_size
    if not first:
        return None, size
    return game_id_of(first[:-1] if first.endswith(b"\n") else first), size


def _tasks(files: list[Path], task_bytes: int) -> Iterator[list[tuple[Path, str | None]]]:
    """Files in tasks of about `task_bytes`; a task never holds two files of the same game."""
    task: list[tuple[Path, str | None]] = []
    ids: set[str] = set()
    size = 0
    for path in files:
        gid, length = _first_line(path)
        if gid is not None and gid in ids:
            yield task
            task, ids, size = [], set(), 0
        task.append((path, gid))
        if gid is not None:
            ids.add(gid)
        size += length
        if size >= task_bytes or len(task) >= TASK_FILES:
            yield task
            task, ids, size = [], set(), 0
    if task:
        yield task


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _workers(jobs: int | None, size: int) -> int:
    if jobs is not None:
        if jobs < 1:
            raise UsageError("--jobs must be at least 1")
        return jobs
    if size < PARALLEL_MIN_BYTES or not _spawnable():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


def _spawnable() -> bool:
    """Whether worker processes can be spawned: they re-import the main script, which must be a real file."""
    import sys

    main = getattr(sys.modules.get("__main__"), "__file__", None)
    return main is None or os.path.exists(main)


class _Writer:
    """The DuckDB side of an ingest: what the library knows of a game, and the tasks' rows, written in bulk."""

    def __init__(self, con: duckdb.DuckDBPyConnection, summary: Summary):
        self.con = con
        self.summary = summary
        self.projections = list(projection_tables())

    def known(self, ids: list[str]) -> dict[str, Known]:
        if not ids:
            return {}
        self.con.register("_stage_ids", pa.table({"game_id": pa.array(ids, pa.string())}))
        try:
            rows = self.con.execute(
                "SELECT g.game_id, g.events, g.size, g.digest, g.fingerprint FROM games g JOIN _stage_ids USING (game_id)"
            ).fetchall()
        finally:
            self.con.unregister("_stage_ids")
        return {gid: Known(events, size, digest, fingerprint) for gid, events, size, digest, fingerprint in rows}

    def compare(self, path: str, gid: str) -> None:
        """A known game whose file is not its stored log plus new lines: an older copy, or edited history."""
        old = [row[0].encode() for row in self.con.execute(
            "SELECT line FROM events WHERE game_id = ? ORDER BY seq", [gid]).fetchall()]
        try:
            new = logfile.read_regular(path).split(b"\n")[:-1]
        except (OSError, logfile.LogError) as error:
            self.summary.rejected.append(Rejected(path, None, "damaged", f"cannot read it again: {error}"))
            return
        for seq, (a, b) in enumerate(zip(old, new), 1):
            if a != b:
                self.summary.rejected.append(Rejected(
                    path, seq, "diverged",
                    f"line {seq} differs from the library's copy of game {gid}, which has the same first line: "
                    "either this log's history was edited after it was ingested, or it is another game that "
                    "began with an identical first line; the library keeps its copy",
                ))
                return
        if len(new) <= len(old):
            self.summary.games_stale += 1
        else:  # pragma: no cover - a file that changed between the worker's read and this one
            self.summary.rejected.append(Rejected(path, None, "diverged", "the file changed while it was being ingested"))

    def write(self, results: list[Result]) -> None:
        """Insert the results' rows in one transaction, then count them (nothing is counted if it rolls back)."""
        summary = self.summary
        replace = [gid for result in results for gid in result.replace]
        voids = [void for result in results for void in result.voids]
        tables: dict[str, list[pa.Table]] = {}
        for result in results:
            for name, table in result.tables.items():
                tables.setdefault(name, []).append(table)
        con = self.con
        staged: list[str] = []
        con.execute("BEGIN TRANSACTION")
        try:
            if replace:
                con.register("_stage_replace", pa.table({"game_id": pa.array(replace, pa.string())}))
                staged.append("_stage_replace")
                for name in ["games", "seats", "round_results", *self.projections]:
                    con.execute(f"DELETE FROM {name} WHERE game_id IN (SELECT game_id FROM _stage_replace)")
            if voids:
                ids, seqs = zip(*voids)
                con.register("_stage_voids", pa.table({"game_id": pa.array(ids, pa.string()), "seq": pa.array(seqs, pa.int32())}))
                staged.append("_stage_voids")
                con.execute("UPDATE events SET voided = true FROM _stage_voids v "
                            "WHERE events.game_id = v.game_id AND events.seq = v.seq")
            for name, parts in tables.items():
                con.register(f"_stage_{name}", parts[0] if len(parts) == 1 else pa.concat_tables(parts))
                staged.append(f"_stage_{name}")
                con.execute(_INSERT.get(name) or f"INSERT INTO {name} SELECT * FROM _stage_{name}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        finally:
            for name in staged:
                con.unregister(name)
        for result in results:
            summary.games_added += result.added
            summary.games_grown += result.grown
            summary.games_unchanged += result.unchanged
            summary.events_added += result.events
            summary.rejected.extend(result.rejected)
            for path, gid in result.compare:
                self.compare(path, gid)

    def write_task(self, result: Result, payload: list[tuple[str, str | None, Known | None]]) -> None:
        """Write one task's rows; if DuckDB refuses them, write its logs one at a time, so that the one
        log whose rows it refuses is rejected and every other log of the task is still stored."""
        try:
            self.write([result])
            return
        except duckdb.Error as error:
            if len(payload) == 1:
                self.summary.rejected.append(Rejected(payload[0][0], None, "error",
                                                      f"the library refused its rows: {_duck_message(error)}"))
                return
        for one in payload:
            self.write_task(work([one]), [one])


def ingest(
    db: Path | str,
    paths: Iterable[Path | str],
    progress: Callable[[int, int, int], None] | None = None,
    jobs: int | None = None,
    task_bytes: int | None = None,
) -> Summary:
    """Load logs into the library: idempotent (the same log again changes nothing) and incremental (a grown
    log adds only its new events). Damaged, illegal or edited logs are reported in `Summary.rejected`."""
    began = time.perf_counter()
    files = collect(paths)
    size = sum(_size(path) for path in files)
    workers = _workers(jobs, size)
    if task_bytes is None:  # several tasks per worker, so that none waits for the last big one
        task_bytes = max(1 << 20, min(TASK_BYTES, size // (4 * workers) + 1))
    summary = Summary(str(db), files=len(files), rejected=[], workers=workers)
    con = connect(db)
    try:
        for setting in INGEST_SETTINGS:
            con.execute(setting)
    except BaseException:
        con.close()
        raise
    pool = None
    try:
        writer = _Writer(con, summary)
        if workers > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # spawn, not fork: this process runs DuckDB's threads, and a forked child could inherit a held lock
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        pending: deque[tuple[Any, set[str], list[tuple[str, str | None, Known | None]]]] = deque()
        in_flight: set[str] = set()
        done = 0
        if progress is not None:
            progress(0, len(files), 0)

        def finish() -> None:
            """Write the oldest task's rows in one transaction (measured: gathering several tasks into one
            bulk insert is no faster, and leaves a file 50% larger unless it holds ~600,000 rows)."""
            nonlocal done
            future, ids, payload = pending.popleft()
            try:
                result = future.result() if pool is not None else future
            except BrokenProcessPool:
                raise LibraryError(db, "ingest stopped: a worker process died (out of memory?); what was stored "
                                       "so far is kept, and ingesting again resumes") from None
            writer.write_task(result, payload)
            in_flight.difference_update(ids)
            done += len(payload)
            if progress is not None:
                progress(done, len(files), summary.events_added)

        for task in _tasks(files, task_bytes):
            ids = {gid for _, gid in task if gid}
            while pending and ids & in_flight:  # a game already on its way in: let it land first
                finish()
            known = writer.known(sorted(ids))
            payload = [(str(path), gid, known.get(gid) if gid else None) for path, gid in task]
            if pool is None:
                pending.append((work(payload), ids, payload))
            else:
                pending.append((pool.submit(work, payload), ids, payload))
            in_flight.update(ids)
            while len(pending) > (workers if pool is not None else 0):
                finish()
        while pending:
            finish()
    except duckdb.Error as error:
        raise LibraryError(db, f"ingest stopped; the task in progress was rolled back: {_duck_message(error)}") from None
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        con.close()
    summary.seconds = round(time.perf_counter() - began, 3)
    return summary


# --------------------------------------------------------------------------- reading back


def _resolve(con: duckdb.DuckDBPyConnection, db: Path | str, game_id: str) -> str:
    """A full game id from an id or a unique prefix of at least 4 characters."""
    key = game_id.strip().lower()
    if len(key) < 4:
        raise UsageError(f"game id {game_id!r} is too short: give at least 4 characters of it")
    rows = con.execute("SELECT game_id FROM games WHERE starts_with(game_id, ?) ORDER BY game_id LIMIT 3", [key]).fetchall()
    if not rows:
        raise UsageError(f"no game {game_id!r} in the library {db} (list them with: tally sql \"SELECT game_id FROM games\")")
    if len(rows) > 1:
        raise UsageError(f"game id {game_id!r} is ambiguous: {', '.join(r[0] for r in rows)}...")
    return rows[0][0]


def game_bytes(db: Path | str, game_id: str) -> tuple[str, bytes]:
    """The exact bytes of a stored log."""
    con = connect_read_only(db)
    try:
        gid = _resolve(con, db, game_id)
        lines = [row[0] for row in con.execute("SELECT line FROM events WHERE game_id = ? ORDER BY seq", [gid]).fetchall()]
    finally:
        con.close()
    return gid, ("\n".join(lines) + "\n").encode()


def replay(db: Path | str, game_id: str, to: int | None = None) -> tuple[Position, list[Frame]]:
    """`tally replay --db DB GAME_ID`: the stored lines, verified and replayed exactly like a log file."""
    gid, data = game_bytes(db, game_id)
    return replay_bytes(f"{db}#{gid}", data, to)


def replay_bytes(path: str, data: bytes, to: int | None = None) -> tuple[Position, list[Frame]]:
    """`record.replay` for a log's bytes: every event up to `to` with the state after it."""
    return replay_log(logfile.parse_lines(path, data), to)


# --------------------------------------------------------------------------- export


class Exported(msgspec.Struct):
    db: str
    to: str
    format: str
    games: int
    events: int
    files: list[str]


def _empty_target(to: Path) -> None:
    if to.exists() and (not to.is_dir() or any(to.iterdir())):
        raise UsageError(f"{to}: export needs a new or empty folder (nothing is overwritten)")
    to.mkdir(parents=True, exist_ok=True)


def export(db: Path | str, to: Path | str, format: str = "jsonl", game: str | None = None) -> Exported:
    """Write every game back as `<game id>.jsonl` (byte-identical logs), or every table as hive-partitioned Parquet."""
    if format not in ("jsonl", "parquet"):
        raise UsageError(f"--format {format!r}: expected jsonl or parquet")
    target = Path(to)
    con = connect_read_only(db)
    try:
        where, params = ("WHERE g.game = ?", [game]) if game else ("", [])
        games, events = con.execute(f"SELECT count(*), coalesce(sum(events), 0) FROM games g {where}", params).fetchall()[0]
        _empty_target(target)
        if format == "jsonl":
            files = _export_jsonl(con, target, where, params)
        else:
            con.close()
            files = _export_parquet(db, target, game)
    finally:
        con.close()
    return Exported(str(db), str(target), format, games, int(events), files)


def _export_jsonl(con: duckdb.DuckDBPyConnection, target: Path, where: str, params: list[Any]) -> list[str]:
    files: list[str] = []
    reader = con.sql(
        f"SELECT e.game_id, e.line FROM events e JOIN games g USING (game_id) {where} ORDER BY e.game_id, e.seq",
        params=params,
    ).to_arrow_reader(100_000)
    current: str | None = None
    handle = None
    try:
        for record_batch in reader:
            ids = record_batch.column(0).to_pylist()
            lines = record_batch.column(1).to_pylist()
            start = 0
            while start < len(ids):
                gid = ids[start]
                end = start
                while end < len(ids) and ids[end] == gid:
                    end += 1
                if gid != current:
                    if handle is not None:
                        handle.close()
                    path = target / f"{gid}.jsonl"
                    handle = open(path, "xb")
                    files.append(str(path))
                    current = gid
                handle.write(("\n".join(lines[start:end]) + "\n").encode())  # type: ignore[union-attr]
                start = end
    finally:
        if handle is not None:
            handle.close()
    return files


def _export_parquet(db: Path | str, target: Path, game: str | None) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        for name in all_tables():
            if name == "library_info":
                continue
            folder = target / name
            if name == "games":
                query = "SELECT * FROM games" + (" WHERE game = $game" if game else "")
            else:
                query = f"SELECT t.*, g.game FROM {name} t JOIN games g USING (game_id)" + (" WHERE g.game = $game" if game else "")
            if not con.execute(f"SELECT count(*) FROM ({query})", {"game": game} if game else {}).fetchall()[0][0]:
                continue
            con.execute(
                f"COPY ({query}) TO '{_quote(folder)}' (FORMAT parquet, PARTITION_BY (game), OVERWRITE_OR_IGNORE)",
                {"game": game} if game else {},
            )
    except duckdb.Error as error:
        raise LibraryError(db, f"export failed: {_duck_message(error)}") from None
    finally:
        con.close()
    return sorted(str(p) for p in target.rglob("*.parquet"))


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")


# --------------------------------------------------------------------------- tally sql


class Query(msgspec.Struct):
    """A read-only query's result: column names, DuckDB types, and the rows (fetched in chunks)."""

    columns: list[str]
    types: list[str]
    chunks: Any  # iterator of row lists

    def rows(self) -> Iterator[tuple[Any, ...]]:
        for chunk in self.chunks:
            yield from chunk


SQL_TIMEOUT = 60.0  # seconds: a query (running and fetching its rows) that takes longer is stopped
SQL_MEMORY = "2GB"  # DuckDB's memory limit for one query (its default is 80% of the machine)
_SIZE = re.compile(r"(?i)\s*(\d{1,9}(?:\.\d{1,3})?)\s*(b|kb|mb|gb|tb|kib|mib|gib|tib)\s*")


def memory_size(text: str) -> str:
    """A memory size as DuckDB takes it (`500MB`, `2GB`, `1.5GiB`), or UsageError."""
    found = _SIZE.fullmatch(text)
    if not found or float(found.group(1)) <= 0:
        raise UsageError(f"--memory-limit {quote(text)}: expected a size such as 500MB, 2GB or 1.5GiB")
    return f"{found.group(1)}{found.group(2).upper().replace('I', 'i')}"


def is_empty_sql(sql: str) -> bool:
    """Only blanks and semicolons: no statement at all (comments alone DuckDB answers with nothing, too)."""
    return not sql.replace(";", " ").strip()


def query(db: Path | str, sql: str, chunk: int = 10_000, timeout: float | None = SQL_TIMEOUT,
          memory_limit: str | None = SQL_MEMORY) -> Query:
    """Run one SQL text read-only, within a time limit (seconds; None or 0: none) and a memory limit.
    An empty query, a write statement, a file access, a bad query or a limit reached raises UsageError."""
    if is_empty_sql(sql):
        raise UsageError("empty query: give one SQL statement, e.g. \"SELECT count(*) FROM games\" (tables: docs/sql.md)")
    if timeout is not None and (timeout != timeout or timeout < 0):
        raise UsageError(f"--timeout {timeout}: expected a number of seconds, 0 for no limit")
    limit = memory_size(memory_limit) if memory_limit is not None else None
    if timeout is not None and timeout > 1e7:  # beyond a hundred days is no limit (and beyond a timer's range)
        timeout = None
    con = connect_read_only(db, limit)
    watch = _Stopwatch(con, timeout or None)
    try:
        cursor = con.execute(sql)
    except duckdb.Error as error:
        watch.cancel()
        con.close()
        raise UsageError(watch.explain(error, limit)) from None
    except BaseException:
        watch.cancel()
        con.close()
        raise
    if cursor is None:  # comments only: DuckDB ran nothing
        watch.cancel()
        con.close()
        raise UsageError("empty query: it holds no statement, only comments")
    description = cursor.description or []
    columns = [d[0] for d in description]
    types = [str(d[1]) for d in description]

    def chunks() -> Iterator[list[tuple[Any, ...]]]:
        try:
            while True:
                try:
                    rows = cursor.fetchmany(chunk)
                except duckdb.Error as error:
                    raise UsageError(watch.explain(error, limit)) from None
                if not rows:
                    return
                yield rows
        finally:
            watch.cancel()
            con.close()

    return Query(columns, types, chunks())


class _Stopwatch:
    """Interrupts a connection's query once `seconds` have passed (DuckDB has no statement timeout)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, seconds: float | None):
        import threading

        self.seconds = seconds
        self.fired = False
        self.timer = None
        if seconds is not None:
            self.timer = threading.Timer(seconds, self._fire, (con,))
            self.timer.daemon = True
            self.timer.start()

    def _fire(self, con: duckdb.DuckDBPyConnection) -> None:
        self.fired = True
        con.interrupt()

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()

    def explain(self, error: Exception, memory_limit: str | None) -> str:
        if self.fired:
            return (f"the query was stopped after the time limit of {self.seconds:g} s "
                    "(give more with --timeout SECONDS, or 0 for no limit)")
        if isinstance(error, duckdb.OutOfMemoryException) and memory_limit:
            return (f"the query needs more memory than its limit of {memory_limit} "
                    f"(give more with --memory-limit SIZE): {_duck_message(error)}")
        return _sql_refusal(error)


def _sql_refusal(error: Exception) -> str:
    message = _duck_message(error)
    if "read-only mode" in message:
        kind = message.split("statement of type", 1)[-1].split('"')[1] if 'statement of type "' in message else "write"
        return f"tally sql is read-only: a {kind} statement would change the library, so it was refused (the library is rebuilt from the logs with `tally ingest`)"
    if isinstance(error, duckdb.PermissionException):
        return f"tally sql reads only the library, not other files: {message}"
    return f"SQL error: {message}"


# --------------------------------------------------------------------------- tally stats


def stats(db: Path | str, game: str | None = None, top: int = 10) -> dict[str, Any]:
    """The canned report behind `tally stats` (see docs/sql.md for the queries)."""
    con = connect_read_only(db)
    try:
        where = "AND g.game = $game" if game else ""
        params: dict[str, Any] = {"game": game} if game else {}

        def rows(sql: str) -> list[dict[str, Any]]:
            cursor = con.execute(sql, params)
            names = [d[0] for d in cursor.description or []]
            return [dict(zip(names, row)) for row in cursor.fetchall()]

        games = rows(f"""
            SELECT g.game, count(*) AS games, sum(CASE WHEN g.finished THEN 1 ELSE 0 END) AS finished,
                   sum(g.events) AS events, avg(g.events) AS avg_events, avg(g.turns) AS avg_turns,
                   min(g.started_at) AS first, max(g.ended_at) AS last
            FROM games g WHERE TRUE {where} GROUP BY g.game ORDER BY g.game""")
        players = rows(f"""
            SELECT s.player, count(*) AS games, sum(CASE WHEN s.won THEN 1 ELSE 0 END) AS wins,
                   avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END) AS win_rate, avg(s.score) AS avg_score
            FROM seats s JOIN games g USING (game_id)
            WHERE g.finished {where} GROUP BY s.player ORDER BY win_rate DESC, games DESC, s.player""")
        seats = rows(f"""
            SELECT g.player_count AS players, s.seat, count(*) AS games,
                   sum(CASE WHEN s.won THEN 1 ELSE 0 END) AS wins,
                   avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END) AS win_rate
            FROM seats s JOIN games g USING (game_id)
            WHERE g.finished {where} GROUP BY g.player_count, s.seat ORDER BY g.player_count, s.seat""")
        reports: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for spec in registry.specs():  # every report key is always present, so the document's shape is stable
            for report in spec.history.reports:
                found = reports.setdefault(report.key, {})
                if not game or spec.name == game:
                    found[spec.name] = rows(report.sql.format(where=where, limit=int(top)))
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot read the library: {_duck_message(error)}") from None
    finally:
        con.close()
    total = sum(r["games"] for r in games)
    return {
        "db": str(db),
        "game": game,
        "games": total,
        "finished": sum(int(r["finished"] or 0) for r in games),
        "by_game": [_plain(r) for r in games],
        "players": [_plain(r) for r in players],
        "seats": [_plain(r) for r in seats],
        **{key: {name: [_plain(r) for r in found] for name, found in by_game.items()} for key, by_game in reports.items()},
    }


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """JSON-ready values: rounded floats, ISO times, plain ints."""
    out = {}
    for key, value in row.items():
        if isinstance(value, float):
            value = round(value, 4)
        elif hasattr(value, "isoformat"):
            value = value.isoformat().replace("+00:00", "Z")
        elif value is not None and type(value).__name__ in ("Decimal", "int64"):
            value = float(value) if type(value).__name__ == "Decimal" else int(value)
        out[key] = value
    return out
