"""Where a club's games live, a folder of logs or a PostgreSQL database, and which log store a name means there:
the one place that knows both kinds of store (`store/logs/logstore.py`'s `JsonlStore`, `store/logs/pgstore.py`'s
`PostgresStore`, imported only when a PostgreSQL URL is named). `tally serve` serves a `Place`; the CLI's `--store`
picks a log with `open_store`; `tally import` copies one in with `import_log`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Protocol

from tally.store.errors import UsageError
from tally.store.logs import log as logfile
from tally.store.logs.logstore import JsonlStore, LogStore, check_game_id, is_database_url
from tally.store.serving.seats import FileSeats, Seats

ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # a served game's id: a log's name in the folder, without `.jsonl`


class Place(Protocol):
    """The games a server serves: a folder of logs (`ID.jsonl`, seats in `ID.seats.json`) or every game of a
    PostgreSQL database (seats in `tally_seats`)."""

    kind: str  # what messages call it: `folder` or `store`
    workers: int | None  # how many worker threads may hold its connections at once (None: no limit)

    def store_of(self, ident: str) -> LogStore: ...

    def ids(self) -> list[str]: ...

    def holds(self, store: LogStore) -> bool: ...

    def seats(self, store: LogStore) -> Seats: ...

    def on_append(self, heard: Callable[[str, int], None]) -> bool:
        """Call `heard(game, seq)` for every append any writer commits, when the place tells of them (a database's
        NOTIFY); False when it does not (a folder: a follower looks at its files)."""
        ...


def check_id(ident: str) -> None:
    """A served game's id: a name of the folder, never a path (UsageError otherwise)."""
    if not ID.fullmatch(ident) or ident.endswith((".seats", ".json")) or ".." in ident:
        raise UsageError(f"{ident!r} is not a game id: letters, digits, '_', '-' and '.', at most 64")


class Folder:
    kind: str = "folder"
    workers: int | None = None

    def __init__(self, directory: Path | str):
        self.directory = Path(directory)

    def store_of(self, ident: str) -> LogStore:
        check_id(ident)
        return JsonlStore(self.directory / f"{ident}.jsonl")

    def ids(self) -> list[str]:
        return sorted(
            p.name[: -len(".jsonl")]
            for p in self.directory.glob("*.jsonl")
            if p.is_file() and not p.is_symlink() and ID.fullmatch(p.name[: -len(".jsonl")])
        )

    def holds(self, store: LogStore) -> bool:
        path = Path(store.name)
        return path.is_file() and not path.is_symlink()

    def seats(self, store: LogStore) -> Seats:
        return FileSeats(store.name)

    def on_append(self, heard: Callable[[str, int], None]) -> bool:
        return False


class Database:
    kind: str = "store"
    workers: int | None = (
        16  # each worker thread holds 2 connections (reads, writes), so a server holds at most 2 * 16 + 1 (its
    )
    # listener), and a few servers fit PostgreSQL's max_connections

    def __init__(self, url: str):
        self.url = url

    def store_of(self, ident: str) -> LogStore:
        from tally.store.logs.pgstore import PostgresStore

        check_id(ident)
        return PostgresStore(self.url, ident)

    def ids(self) -> list[str]:
        from tally.store.logs.pgstore import game_ids

        return [ident for ident in game_ids(self.url) if ID.fullmatch(ident)]

    def holds(self, store: LogStore) -> bool:
        return store.identity() is not None

    def seats(self, store: LogStore) -> Seats:
        from tally.store.logs.pgstore import PostgresSeats

        return PostgresSeats(self.url, store.name)

    def on_append(self, heard: Callable[[str, int], None]) -> bool:
        from tally.store.logs.pgstore import Listener

        Listener.on_notify(self.url, heard)
        return True


def place_of(where: Path | str) -> Place:
    """A PostgreSQL URL's database, else a folder."""
    return Database(str(where)) if is_database_url(str(where)) else Folder(where)


def open_store(log: Path | str, store: str | None = None) -> LogStore:
    """The log the CLI names: LOG as a file (no `--store`), LOG as a game id of the database `--store URL`,
    or LOG as the file `LOG.jsonl` of the folder `--store DIR`."""
    if store is None:
        return JsonlStore(log)
    check_game_id(str(log).removesuffix(".jsonl"))
    if is_database_url(store):
        from tally.store.logs.pgstore import PostgresStore

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
