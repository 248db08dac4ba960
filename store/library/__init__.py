"""The history library: every game log in one DuckDB file, queried with SQL (docs/sql.md).

The JSONL logs stay the truth; the library is derived and can always be rebuilt by ingesting them
again. It keeps each line's exact text (so an exported game is byte-identical to its log) plus
query-friendly tables: games, seats, events, round_results and each game's own tables (declared
by the game's `history` module in core, named after the game).

Ingest reads every log with the same verified decoding as `tally check` (`log.parse_lines`) and
folds it through the same checks and reducers (`engine.Table`); projections only read the states
of that fold (store/library/folding.py, which runs in worker processes on large runs). Rows are
gathered per task of many games as Arrow tables and inserted in bulk (`INSERT ... SELECT` from the
Arrow scan), one transaction per task, so a rejected log (whose rows never leave its task) is
never half-loaded and nothing already in the library is lost. A game's id is the first 16 hex
digits of the SHA-256 of its log's first line, so it keeps its id as the log grows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# the library's API in one place; each concern lives in its own module
from tally.store.library.read import (
    SQL_MEMORY,
    SQL_TIMEOUT,
    Exported,
    Query,
    export,
    game_bytes,
    is_empty_sql,
    memory_size,
    query,
    replay,
    replay_bytes,
)
from tally.store.library.report import Alias, Scope, alias, stats
from tally.store.library.schema import (
    DEFAULT_DB,
    INGEST_SETTINGS,
    PARALLEL_MIN_BYTES,
    SCHEMA_VERSION,
    STORAGE_COMPATIBILITY,
    TABLES,
    TASK_BYTES,
    TASK_FILES,
    LibraryBusy,
    LibraryError,
    all_tables,
    busy_timeout,
    connect,
    connect_read_only,
    resolve_db,
)

# what only an ingest needs (pyarrow, the process pool) is imported when first asked for: `tally sql` and
# `tally stats` never pay for it
_LATER = {"Rejected": "folding", "Summary": "writer", "collect": "writer", "ingest": "writer"}


def __getattr__(name: str) -> Any:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__package__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from tally.store.library.folding import Rejected
    from tally.store.library.writer import Summary, collect, ingest

__all__ = [
    "DEFAULT_DB",
    "INGEST_SETTINGS",
    "PARALLEL_MIN_BYTES",
    "SCHEMA_VERSION",
    "SQL_MEMORY",
    "SQL_TIMEOUT",
    "STORAGE_COMPATIBILITY",
    "TABLES",
    "TASK_BYTES",
    "TASK_FILES",
    "Alias",
    "Exported",
    "Scope",
    "LibraryBusy",
    "LibraryError",
    "Query",
    "Rejected",
    "Summary",
    "alias",
    "all_tables",
    "busy_timeout",
    "collect",
    "connect",
    "connect_read_only",
    "export",
    "game_bytes",
    "ingest",
    "is_empty_sql",
    "memory_size",
    "query",
    "replay",
    "replay_bytes",
    "resolve_db",
    "stats",
]
