"""Where a game's log lives: the interface the record service and the readers go through, and its JSONL form.

A log store holds one game's lines, exactly the bytes of docs/format.md (the hash chain, units and
fingerprints are the same whatever holds them). What the record service needs of it:

- `read()`: every line, verified as `tally check` verifies a file (`log.parse_lines`), as a `log.Log`;
  `events_after(seq)`: the events after `seq` (a reader catching up).
- `writer()`: the writer's exclusion, as a context manager; inside it `read()`, then at most one
  `append(after_seq, after_hash, events)`, all or nothing, acknowledged (durable) when it returns. An
  append whose `after_seq` is no longer the tail raises `StaleAppend` (nothing is appended); the
  service turns it into the `core.append.stale` refusal.
- `identity()`: a value that changes whenever the log does (another process appended).
- `wait_after(seq, timeout)`: the events after `seq`, blocking up to `timeout` seconds for the first.
- `create(events)`: a new log; `FileExistsError` when the game already exists (a log is never overwritten);
  `create_from(lines)`: likewise, of lines already stamped and verified (an import).
- `raw()`: the log's exact bytes, as the JSONL file holds them (export).

Two implementations: `JsonlStore` (one file, the embedded default: `store/logs/log.py` under its flock) and
`store/logs/pgstore.py`'s `PostgresStore` (one game of a PostgreSQL database). `store/logs/places.py` picks one
(`open_store(LOG, STORE)` for the CLI's `--store`); psycopg is imported only when a PostgreSQL URL is named.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Hashable, Protocol

from tally.core.model import Event, GameStarted
from tally.store.errors import StaleAppend, UsageError
from tally.store.logs import cache
from tally.store.logs import log as logfile


class Lines(Protocol):
    """A log's lines read from a known position on (`store/recording/positions.py` folds from checkpoints through
    it): its first line, the lines after one, and whether it ends at one. Every log store and its writer offer it."""

    name: str

    def first_line(self) -> bytes:
        """Line 1's bytes, without the newline (empty when the log has no whole first line)."""
        ...

    def lines_after(self, seq: int, offset: int, upto: int | None = None) -> bytes:
        """The bytes of the lines after line `seq` (which ends `offset` bytes into the log), through line `upto`
        (None: to the end, bytes after the last newline included): unverified, the caller checks their chain."""
        ...

    def ends_at(self, seq: int, line_hash: str, offset: int, last_line: int) -> bool:
        """Whether the log's last line is line `seq`, ending `offset` bytes in, `last_line` bytes long with its newline,
        and hashing to `line_hash`."""
        ...

    def extent(self) -> tuple[int | None, int | None]:
        """What is known cheaply of the log's length: its last seq and its size in bytes (None: not known so)."""
        ...


class LogWriter(Lines, Protocol):
    def read(self) -> logfile.Log: ...

    def append(self, after_seq: int, after_hash: str, events: list[Event]) -> logfile.Appended: ...

    def identity(self) -> Hashable: ...

    def cached(self, spec_for: Callable[[str], Any]) -> Any: ...

    def remember(self, started: GameStarted, last_seq: int, last_hash: str, last_line: int, state: Any) -> None: ...

    def __enter__(self) -> "LogWriter": ...

    def __exit__(self, *exc: object) -> None: ...


class LogStore(Lines, Protocol):
    name: str  # what messages name the log by: its path, or its game id in a database

    def read(self) -> logfile.Log: ...

    def events_after(self, seq: int) -> list[Event]: ...

    def writer(self) -> LogWriter: ...

    def identity(self) -> Hashable: ...

    def look(self) -> Hashable | None:
        """What a follower compares to see whether the log changed (None: it is gone): cheaper than `identity`."""
        ...

    def look_after(self, identity: Hashable) -> Hashable:
        """What `look` sees right after a write whose writer's `identity` this is (no second look needed)."""
        ...

    def has_moved(self, seen: Hashable, seq: int) -> bool:
        """Whether the log changed since a follower's `look` gave `seen` (it had read up to `seq`): cheap enough for
        a server to ask of every followed game several times a second."""
        ...

    def wait_after(self, seq: int, timeout: float) -> list[Event]: ...

    def create(self, events: list[Event]) -> tuple[list[Event], str]: ...

    def create_from(self, lines: list[bytes]) -> None: ...

    def raw(self) -> bytes: ...


# --------------------------------------------------------------------------- the JSONL file


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _last_line_hash(fd: int) -> str | None:
    """The SHA-256 of the file's last complete line, reading back from its end only as far as that line."""
    end = os.fstat(fd).st_size
    if end == 0 or os.pread(fd, 1, end - 1) != b"\n":
        return None  # empty, or a torn tail: no append is after it
    start, chunk = end - 1, 4096
    while True:
        begin = max(0, start - chunk)
        piece = os.pread(fd, start - begin, begin)
        newline = piece.rfind(b"\n")
        if newline >= 0 or begin == 0:
            first = begin + newline + 1 if newline >= 0 else 0
            return logfile.sha256_hex(os.pread(fd, end - 1 - first, first))
        chunk *= 2


def _first_line(fd: int) -> bytes:
    """The file's first line without its newline, read a block at a time (empty when it has no whole line)."""
    data, chunk = b"", 4096
    while True:
        piece = os.pread(fd, chunk, len(data))
        if not piece:
            return b""
        data += piece
        end = data.find(b"\n")
        if end >= 0:
            return data[:end]
        chunk *= 2


def _lines_after(fd: int, offset: int, count: int | None) -> bytes:
    """The bytes from `offset` on: to the end (`count` None), or through the `count`-th newline, read a block at a time."""
    if count is None:
        return os.pread(fd, max(0, os.fstat(fd).st_size - offset), offset)
    data, chunk, seen = b"", 65536, 0
    while True:
        piece = os.pread(fd, chunk, offset + len(data))
        if not piece:
            return data
        start = len(data)
        data += piece
        seen += piece.count(b"\n")
        if seen >= count:
            end = start
            for _ in range(count - (seen - piece.count(b"\n"))):
                end = data.index(b"\n", end) + 1
            return data[:end]
        chunk *= 2


def _ends_at(fd: int, line_hash: str, offset: int, last_line: int) -> bool:
    if os.fstat(fd).st_size != offset or last_line < 1 or offset < last_line:
        return False
    line = os.pread(fd, last_line, offset - last_line)
    return line.endswith(b"\n") and logfile.sha256_hex(line[:-1]) == line_hash


class JsonlWriter:
    """`log.Locked` (the file's exclusive flock) with the state cache beside it."""

    def __init__(self, path: str):
        self.locked = logfile.Locked(path)
        self.path = self.name = self.locked.path

    def read(self) -> logfile.Log:
        return self.locked.read()

    def append(self, after_seq: int, after_hash: str, events: list[Event]) -> logfile.Appended:
        """Appended only after the line whose hash is `after_hash` (it holds `after_seq`, so the hash names both):
        the lock makes this hold for the service, and a caller that decided on an older read gets StaleAppend."""
        if _last_line_hash(self.locked.fd) != after_hash:
            raise StaleAppend(self.path, after_seq)
        return self.locked.append(after_seq, after_hash, events)

    def identity(self) -> Hashable:
        return _identity(os.fstat(self.locked.fd))

    def cached(self, spec_for: Callable[[str], Any]) -> Any:
        return cache.load(self.path, self.locked.fd, spec_for)

    def first_line(self) -> bytes:
        return _first_line(self.locked.fd)

    def lines_after(self, seq: int, offset: int, upto: int | None = None) -> bytes:
        return _lines_after(self.locked.fd, offset, None if upto is None else upto - seq)

    def ends_at(self, seq: int, line_hash: str, offset: int, last_line: int) -> bool:
        return _ends_at(self.locked.fd, line_hash, offset, last_line)

    def extent(self) -> tuple[int | None, int | None]:
        return None, os.fstat(self.locked.fd).st_size

    def remember(self, started: GameStarted, last_seq: int, last_hash: str, last_line: int, state: Any) -> None:
        cache.save(self.path, self.locked.fd, started, last_seq, last_hash, last_line, state)

    def __enter__(self) -> "JsonlWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.locked.close()


class JsonlStore:
    """One game's log as a JSONL file (the default): `store/logs/log.py`, unchanged."""

    def __init__(self, path: Path | str):
        self.name = str(path)

    def look(self) -> Hashable | None:
        """The file's inode, size and time of change: one `stat`, no read."""
        try:
            info = os.stat(self.name)
        except OSError:
            return None
        return info.st_ino, info.st_size, info.st_mtime_ns

    def look_after(self, identity: Hashable) -> Hashable:
        return tuple(identity[:3])  # type: ignore[index]  # the writer's `_identity` of the file

    def has_moved(self, seen: Hashable, seq: int) -> bool:
        now = self.look()
        return now is not None and now != seen

    def read(self) -> logfile.Log:
        return logfile.read(self.name)

    def _shared(self, read: Callable[[int], Any]) -> Any:
        """`read(fd)` of the file under a shared lock (a writer appends under the exclusive one)."""
        import fcntl

        try:
            fd = logfile.open_regular(self.name, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_SH)
                return read(fd)
            finally:
                os.close(fd)
        except logfile.LogError:
            raise
        except OSError as error:
            raise logfile.LogError(
                self.name, None, f"cannot read it: {error.strerror or error}", "log.unreadable"
            ) from None

    def first_line(self) -> bytes:
        found: bytes = self._shared(_first_line)
        return found

    def lines_after(self, seq: int, offset: int, upto: int | None = None) -> bytes:
        found: bytes = self._shared(lambda fd: _lines_after(fd, offset, None if upto is None else upto - seq))
        return found

    def ends_at(self, seq: int, line_hash: str, offset: int, last_line: int) -> bool:
        found: bool = self._shared(lambda fd: _ends_at(fd, line_hash, offset, last_line))
        return found

    def extent(self) -> tuple[int | None, int | None]:
        try:
            return None, os.stat(self.name).st_size
        except OSError:
            return None, None

    def events_after(self, seq: int) -> list[Event]:
        return [event for event in logfile.read(self.name).events if event.seq > seq]

    def writer(self) -> JsonlWriter:
        return JsonlWriter(self.name)

    def identity(self) -> Hashable:
        try:
            return _identity(os.stat(self.name))
        except OSError:
            return None

    def wait_after(self, seq: int, timeout: float, poll: float = 0.05) -> list[Event]:
        """A file has no notification here: its size tells cheaply whether anything was appended since the last look."""
        import time

        deadline = time.monotonic() + timeout
        size = -1
        while True:
            try:
                now = os.stat(self.name).st_size
            except OSError:
                now = -2
            if now != size:
                size = now
                events = self.events_after(seq)
                if events:
                    return events
            if time.monotonic() >= deadline:
                return []
            time.sleep(poll)

    def create(self, events: list[Event]) -> tuple[list[Event], str]:
        return logfile.create(self.name, events)

    def create_from(self, lines: list[bytes]) -> None:
        """A new file of these exact lines, in one write, synced with its folder (never over an existing file)."""
        payload = b"".join(line + b"\n" for line in lines)
        try:
            fd = os.open(self.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise FileExistsError(f"{self.name}: already exists; a log is never overwritten") from None
        try:
            if os.write(fd, payload) != len(payload):
                os.ftruncate(fd, 0)
                raise OSError("short write: the disk is full; nothing was imported")
            os.fsync(fd)
        finally:
            os.close(fd)
        folder = os.open(os.path.dirname(os.path.abspath(self.name)), os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def raw(self) -> bytes:
        return logfile.read_regular(self.name)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"JsonlStore({self.name!r})"


# --------------------------------------------------------------------------- choosing one


def safe_url(url: str) -> str:
    """A store's URL without its password, for messages and reports (a folder is as it is)."""
    import re

    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1@", url)


GAME_ID = r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"  # a file name too (a folder store, an export): no path in it


def check_game_id(game: str) -> None:
    import re

    if not re.fullmatch(GAME_ID, game):
        raise UsageError(
            f"{game!r} is not a game id of a store: letters, digits, '.', '_' and '-', "
            "100 at most, starting with a letter or digit"
        )


def is_database_url(text: str) -> bool:
    return text.startswith(("postgresql://", "postgres://"))


def store_for(target: "Path | str | LogStore") -> LogStore:
    """A path is a JSONL file; a log store is itself."""
    if isinstance(target, (str, Path)):
        return JsonlStore(target)
    return target


def read_log(target: "Path | str | LogStore") -> logfile.Log:
    """The log read and verified, from a file path or any log store."""
    if isinstance(target, (str, Path)):
        return logfile.read(target)
    return target.read()


def name_of(target: "Path | str | LogStore") -> str:
    return str(target) if isinstance(target, (str, Path)) else target.name
