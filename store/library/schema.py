"""The history library's file: its tables (docs/sql.md), opening it for writing (creating the tables) or
read-only, and the errors it reports. The other library modules (`library_writer`, `library_read`) use it."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any

# DuckDB's engine module itself, without the `duckdb` package's Python layer (relations, expressions, its
# version read off the installed metadata) that no library command uses: `duckdb.connect`, the connection and
# the errors are this module's own objects, and importing it costs a sixth of the package (tally sql, stats)
import _duckdb as duckdb

from tally.core.text import visible
from tally.store.library.tables import ALIASES, REPORT_ROWS, create_sql, every_table
from tally.store.library.tables import TABLES as BASE_TABLES
from tally.store.logs import log as logfile

SCHEMA_VERSION = "3"  # 2: games.ended; 3: games.simulated and the aliases
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

# table -> [(column, DuckDB type)], as declared in library_tables (docs/sql.md documents every column)
TABLES: dict[str, list[tuple[str, str]]] = {
    name: [(c.name, c.kind) for c in table] for name, table in BASE_TABLES.items()
}


def usage_error(message: str) -> Exception:
    """The record service's UsageError (exit code 2), imported only when one is raised: a query or a report does
    not load the record service."""
    from tally.store.recording.service import UsageError

    return UsageError(message)


class LibraryError(logfile.LogError):
    """The library file cannot be opened or used (exit code 3)."""

    rule = "library.unusable"

    def __init__(self, db: Path | str, message: str):
        super().__init__(db, None, message)


class LibraryBusy(LibraryError):
    """Another process holds the library's write lock (an ingest) for longer than the busy timeout: not damage,
    so the CLI exits with a code of its own (5) and the command can simply be run again."""

    rule = "library.busy"


BUSY_TIMEOUT = (
    10.0  # seconds a command waits for another tally's ingest to release the library, like SQLite's busy timeout
)


def busy_timeout() -> float:
    """`$TALLY_BUSY_TIMEOUT` (seconds, 0: do not wait), else BUSY_TIMEOUT."""
    try:
        value = float(os.environ.get("TALLY_BUSY_TIMEOUT", BUSY_TIMEOUT))
    except ValueError:
        return BUSY_TIMEOUT
    return value if value >= 0 else BUSY_TIMEOUT


def _is_lock_conflict(error: duckdb.Error) -> bool:
    text = str(error).lower()
    return "lock" in text and ("conflicting" in text or "could not set lock" in text)


def _open(db: Path | str, **options: Any) -> duckdb.DuckDBPyConnection:
    """`duckdb.connect`, waiting (bounded by the busy timeout) while another process holds the file's lock.
    DuckDB has no busy timeout of its own: a second process fails at once, so this polls with a growing pause."""
    deadline = time.monotonic() + busy_timeout()
    pause = 0.02
    while True:
        try:
            return duckdb.connect(str(db), **options)
        except duckdb.Error as error:
            if not _is_lock_conflict(error):
                raise LibraryError(db, f"cannot open the library: {_duck_message(error)}") from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise LibraryBusy(
                    db,
                    f"the library is busy: another tally (an ingest) is writing it, and it was not "
                    f"released within {busy_timeout():g} s; run the command again when it has finished "
                    "(or set TALLY_BUSY_TIMEOUT to wait longer)",
                ) from None
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.5)


def resolve_db(db: Path | str | None) -> Path:
    """`--db`, else `$TALLY_DB`, else ./tally.duckdb."""
    path = Path(db or os.environ.get("TALLY_DB") or DEFAULT_DB)
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise usage_error(f"{visible(str(path))}: the library's path is not valid UTF-8 (check $TALLY_DB)") from None
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
    """Every table of the library, [(column, DuckDB type)]: the common ones and every game's own."""
    return {name: [(c.name, c.kind) for c in table] for name, table in every_table().items()}


# --------------------------------------------------------------------------- connections


def _duck_message(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def connect(db: Path | str) -> duckdb.DuckDBPyConnection:
    """Open the library for writing, creating it (and its tables) when needed."""
    _check_file(db)
    # a new library is written in a storage format DuckDB 1.4 (the LTS line) reads, not just this DuckDB's
    con = _open(db, config={"storage_compatibility_version": STORAGE_COMPATIBILITY})
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
        if row is not None and row[0] in MIGRATIONS:
            _migrate(con, row[0])
            row = (SCHEMA_VERSION,)
        if row is None or row[0] != SCHEMA_VERSION:
            found = row[0] if row else "unknown"
            raise LibraryError(
                db,
                f"the library has schema version {found}, this tally writes version {SCHEMA_VERSION}: "
                "it is derived from the logs, so delete it and ingest the logs again",
            )
    # the aliases are said, not derived: no ingest writes them; the kept reports are derived from the other tables
    tables = {**every_table(), "aliases": ALIASES, "report_rows": REPORT_ROWS}
    missing = [name for name in tables if name not in existing]
    con.execute("BEGIN TRANSACTION")
    for name in missing:
        con.execute(create_sql(name, tables[name]))
    if "library_info" in missing:
        con.execute(
            "INSERT INTO library_info VALUES ('schema_version', ?), ('created_at', strftime(now(), '%Y-%m-%dT%H:%M:%SZ'))",
            [SCHEMA_VERSION],
        )
    _declare_reports(con)
    con.execute("COMMIT")


# A library of an older schema brought up to this one in place, when what it lacks can be told from what it holds:
# version 2 had no simulated flag, and no log before format 5 says it was simulated, so every game it holds is real.
# (The aliases table is created below like any missing table.)
MIGRATIONS = {"2": ["ALTER TABLE games ADD COLUMN simulated BOOLEAN DEFAULT false"]}


def _migrate(con: duckdb.DuckDBPyConnection, found: str) -> None:
    con.execute("BEGIN TRANSACTION")
    for statement in MIGRATIONS[found]:
        con.execute(statement)
    con.execute("UPDATE library_info SET value = ? WHERE key = 'schema_version'", [SCHEMA_VERSION])
    con.execute("COMMIT")


REPORTS_KEY = "reports"  # library_info: the games' reports as this tally declares them (JSON)


def declared_reports() -> list[dict[str, Any]]:
    """Every game's `tally stats` reports and how its scores rank, from the registry (the games' history modules):
    [{game, title, lower_wins, reports: [{key, title, sql, columns, chart}]}] in registry order."""
    import msgspec

    from tally.core import registry

    return [
        {
            "game": spec.name,
            "title": spec.title,
            "lower_wins": spec.history.lower_wins,
            "score_label": spec.history.score_label,
            "reports": [msgspec.to_builtins(report) for report in spec.history.reports],
        }
        for spec in registry.specs()
    ]


def _declare_reports(con: duckdb.DuckDBPyConnection) -> None:
    """Keep the reports in the library, refreshed by every tally that writes it: `tally stats` then reads them
    there instead of loading every game (most of its start-up)."""
    import msgspec

    text = msgspec.json.encode(declared_reports()).decode()
    if con.execute("SELECT value FROM library_info WHERE key = ?", [REPORTS_KEY]).fetchall() == [(text,)]:
        return  # as this tally declares them already: nothing written
    con.execute("DELETE FROM library_info WHERE key = ?", [REPORTS_KEY])
    con.execute("INSERT INTO library_info VALUES (?, ?)", [REPORTS_KEY, text])


def stored_reports(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The reports a library holds (what `declared_reports` said when it was last written), else this tally's."""
    import msgspec

    rows = con.execute("SELECT value FROM library_info WHERE key = ?", [REPORTS_KEY]).fetchall()
    return msgspec.json.decode(rows[0][0]) if rows else declared_reports()


def connect_read_only(db: Path | str, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """Open the library read-only, without access to other files (what `tally sql` runs in). The settings
    are locked once made, so a query cannot lift them (nor the memory limit, when one is given)."""
    if not _check_file(db):
        raise usage_error(f"{db}: no history library here; create one with `tally ingest LOGS... --db {db}`")
    con = _open(db, read_only=True, config={"enable_external_access": False})
    try:
        # asked of the table itself, not of information_schema: binding its views costs more than opening the file
        try:
            con.execute("SELECT 1 FROM library_info LIMIT 0")
        except duckdb.CatalogException:
            raise usage_error(
                f"{db}: the library holds no tables yet (an ingest was stopped before its first commit); "
                f"create them with `tally ingest LOGS... --db {db}`"
            ) from None
        try:
            con.execute("SET TimeZone = 'UTC'")
            if memory_limit is not None:
                con.execute(f"SET memory_limit = '{memory_limit}'")  # checked by memory_size: digits and a unit only
            con.execute("SET lock_configuration = true")
        except duckdb.InvalidInputException as error:
            # a second connection of this process to the same file shares the first one's database, settings
            # locked and all (a page serving several readers at once): it reads under them as they are
            if "configuration has been locked" not in str(error):
                raise
    except duckdb.Error as error:
        con.close()
        raise LibraryError(db, f"cannot open the library: {_duck_message(error)}") from None
    except BaseException:
        con.close()
        raise
    return con
