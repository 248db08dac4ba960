"""Reading the history library back: a stored game's bytes and its replay, exports (JSONL byte-identical to
the logs, or Parquet), `tally sql` in its sandbox and `tally stats`' canned report."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import _duckdb as duckdb  # the engine without the package's Python layer (library_schema says why)
import msgspec

from tally.core.text import quote
from tally.store.library.schema import LibraryError, _duck_message, _open, all_tables, connect_read_only, usage_error
from tally.store.logs import log as logfile

if TYPE_CHECKING:
    from tally.store.recording.record import Frame, Position

# --------------------------------------------------------------------------- reading back


def _resolve(con: duckdb.DuckDBPyConnection, db: Path | str, game_id: str) -> str:
    """A full game id from an id or a unique prefix of at least 4 characters."""
    key = game_id.strip().lower()
    if len(key) < 4:
        raise usage_error(f"game id {game_id!r} is too short: give at least 4 characters of it")
    rows = con.execute(
        "SELECT game_id FROM games WHERE starts_with(game_id, ?) ORDER BY game_id LIMIT 3", [key]
    ).fetchall()
    if not rows:
        raise usage_error(
            f'no game {game_id!r} in the library {db} (list them with: tally sql "SELECT game_id FROM games")'
        )
    if len(rows) > 1:
        raise usage_error(f"game id {game_id!r} is ambiguous: {', '.join(r[0] for r in rows)}...")
    return rows[0][0]


def game_bytes(db: Path | str, game_id: str) -> tuple[str, bytes]:
    """The exact bytes of a stored log."""
    con = connect_read_only(db)
    try:
        gid = _resolve(con, db, game_id)
        lines = [
            row[0] for row in con.execute("SELECT line FROM events WHERE game_id = ? ORDER BY seq", [gid]).fetchall()
        ]
    finally:
        con.close()
    return gid, ("\n".join(lines) + "\n").encode()


def replay(db: Path | str, game_id: str, to: int | None = None) -> tuple[Position, list[Frame]]:
    """`tally replay --db DB GAME_ID`: the stored lines, verified and replayed exactly like a log file."""
    gid, data = game_bytes(db, game_id)
    return replay_bytes(f"{db}#{gid}", data, to)


def replay_bytes(path: str, data: bytes, to: int | None = None) -> tuple[Position, list[Frame]]:
    """`record.replay` for a log's bytes: every event up to `to` with the state after it."""
    from tally.store.recording.record import replay_log

    return replay_log(logfile.parse_lines(path, data), to)


# --------------------------------------------------------------------------- export


class Exported(msgspec.Struct):
    db: str
    to: str
    format: str
    games: int
    events: int
    files: list[str]
    timezone: str | None = None  # bgstats: the zone the play dates are in
    skipped: list[Any] = []  # bgstats: the finished games that cannot be plays (`bgstats.Skipped`)


def _empty_target(to: Path) -> None:
    if to.exists() and (not to.is_dir() or any(to.iterdir())):
        raise usage_error(f"{to}: export needs a new or empty folder (nothing is overwritten)")
    to.mkdir(parents=True, exist_ok=True)


def export(
    db: Path | str, to: Path | str, format: str = "jsonl", game: str | None = None, zone: str | None = None
) -> Exported:
    """Write every game back as `<game id>.jsonl` (byte-identical logs), every table as hive-partitioned Parquet, or
    every finished game that was played (not simulated) as a BG Stats play, `<game id>.json`, and the link that logs
    it in BG Stats, `<game id>.link`, its date in the time zone `zone` (default: this machine's;
    store/library/bgstats.py)."""
    if format not in ("jsonl", "parquet", "bgstats"):
        raise usage_error(f"--format {format!r}: expected jsonl, parquet or bgstats")
    if zone is not None and format != "bgstats":
        raise usage_error("--timezone dates the plays of --format bgstats: give it with that format only")
    if format == "bgstats":
        return _export_plays(db, Path(to), game, zone)
    target = Path(to)
    con = connect_read_only(db)
    try:
        where, params = ("WHERE g.game = ?", [game]) if game else ("", [])
        games, events = con.execute(
            f"SELECT count(*), coalesce(sum(events), 0) FROM games g {where}", params
        ).fetchall()[0]
        _empty_target(target)
        if format == "jsonl":
            files = _export_jsonl(con, target, where, params)
        else:
            con.close()
            files = _export_parquet(db, target, game)
    finally:
        con.close()
    return Exported(str(db), str(target), format, games, int(events), files)


def _export_plays(db: Path | str, target: Path, game: str | None, zone: str | None) -> Exported:
    """Every finished game played at a table (not simulated) as a BG Stats play and its link; a game without a
    valid start time is skipped (`skipped` says which and why)."""
    from tally.store.library import bgstats

    try:
        tz, named = bgstats.time_zone(zone)
    except bgstats.UnknownZone as error:
        raise usage_error(f"--timezone {error}") from None
    finished = bgstats.finished_in_library(db, game)
    _empty_target(target)
    made = [bgstats.pushed(done, tz) for done in finished]
    plays = [one for one in made if isinstance(one, bgstats.Pushed)]
    skipped = [one for one in made if isinstance(one, bgstats.Skipped)]
    files = bgstats.write(plays, target)
    return Exported(str(db), str(target), "bgstats", len(plays), 0, files, named, skipped)


def _export_jsonl(con: duckdb.DuckDBPyConnection, target: Path, where: str, params: list[Any]) -> list[str]:
    import duckdb as package  # noqa: F401  (importing the package gives connections `sql` and its relations)

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
    con = _open(db, read_only=True)
    try:
        for name in all_tables():
            if name == "library_info":
                continue
            folder = target / name
            if name == "games":
                query = "SELECT * FROM games" + (" WHERE game = $game" if game else "")
            else:
                query = f"SELECT t.*, g.game FROM {name} t JOIN games g USING (game_id)" + (
                    " WHERE g.game = $game" if game else ""
                )
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
        raise usage_error(f"--memory-limit {quote(text)}: expected a size such as 500MB, 2GB or 1.5GiB")
    return f"{found.group(1)}{found.group(2).upper().replace('I', 'i')}"


def is_empty_sql(sql: str) -> bool:
    """Only blanks and semicolons: no statement at all (comments alone DuckDB answers with nothing, too)."""
    return not sql.replace(";", " ").strip()


def query(
    db: Path | str,
    sql: str,
    chunk: int = 10_000,
    timeout: float | None = SQL_TIMEOUT,
    memory_limit: str | None = SQL_MEMORY,
) -> Query:
    """Run one SQL text read-only, within a time limit (seconds; None or 0: none) and a memory limit.
    An empty query, a write statement, a file access, a bad query or a limit reached raises UsageError."""
    if is_empty_sql(sql):
        raise usage_error(
            'empty query: give one SQL statement, e.g. "SELECT count(*) FROM games" (tables: docs/sql.md)'
        )
    if timeout is not None and (timeout != timeout or timeout < 0):
        raise usage_error(f"--timeout {timeout}: expected a number of seconds, 0 for no limit")
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
        raise usage_error(watch.explain(error, limit)) from None
    except BaseException:
        watch.cancel()
        con.close()
        raise
    if cursor is None:  # comments only: DuckDB ran nothing
        watch.cancel()
        con.close()
        raise usage_error("empty query: it holds no statement, only comments")
    description = cursor.description or []
    columns = [d[0] for d in description]
    types = [str(d[1]) for d in description]

    def chunks() -> Iterator[list[tuple[Any, ...]]]:
        try:
            while True:
                try:
                    rows = cursor.fetchmany(chunk)
                except duckdb.Error as error:
                    raise usage_error(watch.explain(error, limit)) from None
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
            return (
                f"the query was stopped after the time limit of {self.seconds:g} s "
                "(give more with --timeout SECONDS, or 0 for no limit)"
            )
        if isinstance(error, duckdb.OutOfMemoryException) and memory_limit:
            return (
                f"the query needs more memory than its limit of {memory_limit} "
                f"(give more with --memory-limit SIZE): {_duck_message(error)}"
            )
        return _sql_refusal(error)


def _sql_refusal(error: Exception) -> str:
    message = _duck_message(error)
    if "read-only mode" in message:
        kind = message.split("statement of type", 1)[-1].split('"')[1] if 'statement of type "' in message else "write"
        return (
            f"tally sql is read-only: a {kind} statement would change the library, so it was refused "
            "(the library is rebuilt from the logs with `tally ingest`)"
        )
    if isinstance(error, duckdb.PermissionException):
        return f"tally sql reads only the library, not other files: {message}"
    return f"SQL error: {message}"
