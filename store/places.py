"""Where a club's games live, a folder of logs or a PostgreSQL database, and which log store a name means there:
the one place that knows both kinds of store (`store/logstore.py`'s `JsonlStore`, `store/pgstore.py`'s
`PostgresStore`, imported only when a PostgreSQL URL is named)."""

from __future__ import annotations

from pathlib import Path

from . import log as logfile
from .logstore import JsonlStore, LogStore, check_game_id, is_database_url


def open_store(log: Path | str, store: str | None = None) -> LogStore:
    """The log the CLI names: LOG as a file (no `--store`), LOG as a game id of the database `--store URL`,
    or LOG as the file `LOG.jsonl` of the folder `--store DIR`."""
    if store is None:
        return JsonlStore(log)
    check_game_id(str(log).removesuffix(".jsonl"))
    if is_database_url(store):
        from .pgstore import PostgresStore

        return PostgresStore(store, str(log))
    name = str(log)
    return JsonlStore(Path(store) / (name if name.endswith(".jsonl") else name + ".jsonl"))


def import_log(path: Path | str, store: str, game: str | None = None) -> tuple[str, int, str]:
    """The JSONL log `path` copied into the store `store` (a database URL or a folder) as `game` (default: the
    file's name without `.jsonl`), line for line: verified first as `tally check` reads it, then stored as it
    is, so the chain, units and fingerprint stay the same. (game id, events, fingerprint)."""
    data = logfile.read_regular(path)
    log = logfile.parse_lines(str(path), data)
    game = game or Path(path).name.removesuffix(".jsonl")
    target = open_store(game, store)
    try:
        target.create_from(data.split(b"\n")[:-1])
    finally:
        close = getattr(target, "close", None)
        if close is not None:
            close()
    return game, len(log.events), log.last_hash
