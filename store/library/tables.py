"""The history library's tables, each declared once as a list of columns (docs/sql.md documents every
column, and a test keeps them in step): from it come the table's DDL, the Arrow schema its rows are
staged in by an ingest, and the INSERT that moves the staged rows into it.

No DuckDB here: ingest workers import this module to stage their rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tally.core import registry

if TYPE_CHECKING:
    import pyarrow as pa

TIMESTAMP = "TIMESTAMP WITH TIME ZONE"


class Stored(NamedTuple):
    """One column of a library table.

    `kind`: its DuckDB type. It is staged as `staged_types()[kind]` and inserted as is, except that JSON is
    staged as text and parsed, and a time as its ISO-8601 text and read with TRY_CAST. `filled`: the
    column is not staged but filled by the insert with this SQL (`now()`); `generated`: a virtual column,
    computed from the stored row whenever it is read (neither staged nor inserted)."""

    name: str
    kind: str
    filled: str | None = None
    generated: str | None = None

    @property
    def is_staged(self) -> bool:
        return self.filled is None and self.generated is None

    def inserted(self) -> str:
        """The SQL of the value stored from the staged column."""
        if self.filled is not None:
            return self.filled
        if self.kind == "JSON":
            return f'"{self.name}"::JSON'
        if self.kind == TIMESTAMP:
            return f'TRY_CAST("{self.name}" AS TIMESTAMPTZ)'
        return f'"{self.name}"'


def staged_types() -> dict[str, pa.DataType]:
    """`STAGED`: the Arrow type each DuckDB type is staged as (pyarrow is imported only by what stages rows: a
    query or a report never pays for it)."""
    import pyarrow as pa

    return {
        "VARCHAR": pa.string(),
        "INTEGER": pa.int32(),
        "BIGINT": pa.int64(),
        "BOOLEAN": pa.bool_(),
        "VARCHAR[]": pa.list_(pa.string()),
        "JSON": pa.string(),
        TIMESTAMP: pa.string(),
    }


Declared = list[Stored]


def columns_of(declared: list[tuple[str, str]]) -> Declared:
    """A game's table as `core.history` declares it, [(column, DuckDB type)]."""
    return [Stored(name, kind) for name, kind in declared]


GAMES: Declared = [
    Stored("game_id", "VARCHAR"),
    Stored("game", "VARCHAR"),
    Stored("rules", "VARCHAR"),
    Stored("mode", "VARCHAR"),
    Stored("simulated", "BOOLEAN"),
    Stored("options", "JSON"),
    Stored("manifest", "VARCHAR"),
    Stored("players", "VARCHAR[]"),
    Stored("player_count", "INTEGER"),
    Stored("started_at", TIMESTAMP),
    Stored("ended_at", TIMESTAMP),
    Stored("events", "INTEGER"),
    Stored("turns", "INTEGER"),
    Stored("finished", "BOOLEAN"),
    Stored("winners", "VARCHAR[]"),
    Stored("winner", "VARCHAR"),
    Stored("result", "VARCHAR"),
    Stored("ended", "VARCHAR"),
    Stored("unverifiable", "INTEGER"),
    Stored("fingerprint", "VARCHAR"),
    Stored("size", "BIGINT"),
    Stored("digest", "VARCHAR"),
    Stored("source", "VARCHAR"),
    Stored("ingested_at", TIMESTAMP, filled="now()"),
]
EVENTS: Declared = [
    Stored("game_id", "VARCHAR"),
    Stored("seq", "INTEGER"),
    Stored("type", "VARCHAR"),
    Stored("player", "VARCHAR"),
    Stored("recorded_at", TIMESTAMP),
    # virtual: computed from the stored line when read, so it costs no space and no ingest time
    Stored("payload", "JSON", generated="""json_merge_patch(line, '{"type":null,"seq":null,"at":null,"prev":null}')"""),
    Stored("line", "VARCHAR"),
    Stored("voided", "BOOLEAN"),
]
SEATS: Declared = columns_of(
    [
        ("game_id", "VARCHAR"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("score", "INTEGER"),
        ("won", "BOOLEAN"),
    ]
)
ROUND_RESULTS: Declared = columns_of(
    [
        ("game_id", "VARCHAR"),
        ("round", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("score", "INTEGER"),
        ("total", "INTEGER"),
        ("won", "BOOLEAN"),
    ]
)
# not derived from the logs: what `tally alias NAME PERSON` says (one person's names merged in the reports)
ALIASES: Declared = columns_of([("name", "VARCHAR"), ("player", "VARCHAR"), ("said_at", TIMESTAMP)])
# derived from the tables above, not from the logs: each game's `tally stats` reports as the last ingest left them
# (`library_stats.keep_reports`), under the mark of what they were worked out from; no `game_id`, so not in TABLES
REPORT_ROWS: Declared = columns_of(
    [
        ("game", "VARCHAR"),
        ("report", "VARCHAR"),
        ("simulated", "BOOLEAN"),
        ("mark", "VARCHAR"),
        ("rows", "VARCHAR"),
    ]
)
TABLES: dict[str, Declared] = {
    "library_info": columns_of([("key", "VARCHAR"), ("value", "VARCHAR")]),
    "games": GAMES,
    "seats": SEATS,
    "events": EVENTS,
    "round_results": ROUND_RESULTS,
}


def projection_tables() -> dict[str, Declared]:
    """Every game's own tables (each game's `history.tables`), in registry order."""
    return {name: columns_of(declared) for spec in registry.specs() for name, declared in spec.history.tables.items()}


def every_table() -> dict[str, Declared]:
    return {**TABLES, **projection_tables()}


def stage_schema(table: Declared) -> pa.Schema:
    """The Arrow schema an ingest stages the table's rows in: its staged columns, in order."""
    import pyarrow as pa

    staged = staged_types()
    return pa.schema([(column.name, staged[column.kind]) for column in table if column.is_staged])


def create_sql(name: str, table: Declared) -> str:
    columns = [
        f'"{c.name}" {c.kind}' + (f" GENERATED ALWAYS AS ({c.generated}) VIRTUAL" if c.generated else "") for c in table
    ]
    return f"CREATE TABLE {name} ({', '.join(columns)})"


def insert_sql(name: str, table: Declared) -> str:
    """The INSERT of the rows staged as `_stage_<name>`."""
    stored = [column for column in table if column.generated is None]
    names = ", ".join(f'"{column.name}"' for column in stored)
    return f"INSERT INTO {name} ({names}) SELECT {', '.join(c.inserted() for c in stored)} FROM _stage_{name}"
