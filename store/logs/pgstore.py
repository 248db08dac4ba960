"""A log store in PostgreSQL: every game of a club in one database, the same lines as the JSONL files.

Three tables (created on first use): `tally_games` (game id, its last seq and fingerprint), `tally_lines`
(game, seq, the line's exact bytes), keyed by (game, seq), and `tally_seats` (a served game's seat token
and join code hashes, `store/serving/seats.py`'s `SeatFile` as JSON: every server on the database shares them).
The bytes are the ones `store/logs/log.py` stamps for a file (envelope, `prev` chain, units), so reading a game is
`log.parse_lines` over them and exporting it writes a byte-identical JSONL file.

An append is one transaction: the writer locks its game's row (`SELECT ... FOR UPDATE`, the exclusion a
file's flock gives), inserts the lines and moves the row on from the seq it read. A writer that did not
hold the lock and lost the race hits the (game, seq) key and gets `StaleAppend`: nothing is appended.
The commit is the acknowledgement, and it carries a `NOTIFY tally` (`game seq`), which `wait_after`
listens for: a reader in another process or on another machine learns of the lines at once, no polling.
A change of a game's seats carries a `NOTIFY tally_seats` (`game`) the same way, so that a server may keep the
seats it read and ask the database again only after a change (`PostgresSeats`).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator

import msgspec
import psycopg
from psycopg import errors, sql

from tally.core.model import Event, GameStarted
from tally.store.errors import StaleAppend
from tally.store.logs import log as logfile
from tally.store.logs.logstore import check_game_id, safe_url
from tally.store.serving.seats import SeatFile, Seats, T

CHANNEL = "tally"
SEATS_CHANNEL = "tally_seats"  # a game's seats changed (`game`): every server drops what it keeps of them
_SCHEMA_LOCK = 0x7A11  # an advisory lock: two first users never create the tables at once

SCHEMA = """
CREATE TABLE IF NOT EXISTS tally_games (
    game text PRIMARY KEY,
    seq integer NOT NULL CHECK (seq >= 1),
    fingerprint text NOT NULL
);
CREATE TABLE IF NOT EXISTS tally_lines (
    game text NOT NULL REFERENCES tally_games (game),
    seq integer NOT NULL CHECK (seq >= 1),
    line bytea NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE TABLE IF NOT EXISTS tally_seats (
    game text PRIMARY KEY REFERENCES tally_games (game),
    seats bytea NOT NULL
);
"""


def _unreachable(url: str, error: Exception) -> logfile.LogError:
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return logfile.LogError(safe_url(url), None, f"cannot use the database: {first}", "store.unreachable")


@contextlib.contextmanager
def reaching(url: str) -> Iterator[None]:
    """A database that went away (or never answered) mid-operation is a LogError naming it, exit 3, not a crash."""
    try:
        yield
    except (psycopg.OperationalError, psycopg.InterfaceError) as error:
        raise _unreachable(url, error) from None


def password_of(url: str) -> str | None:
    from urllib.parse import unquote, urlsplit

    password = urlsplit(url).password
    return None if password is None else unquote(password)


def connect(url: str, autocommit: bool = False) -> psycopg.Connection[Any]:
    """A connection with the tables in place; a database that cannot be reached is a LogError (exit 3)."""
    try:
        conn = psycopg.connect(url, autocommit=autocommit, connect_timeout=10)
        ensure_schema(conn)
    except psycopg.Error as error:
        raise _unreachable(url, error) from None
    return conn


def ensure_schema(conn: psycopg.Connection[Any]) -> None:
    row = conn.execute("SELECT to_regclass('tally_seats') IS NOT NULL").fetchone()  # the table added last
    if row is None or not row[0]:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            conn.execute(SCHEMA)
    if not conn.autocommit:
        conn.commit()


def _lines_of(payload: bytes) -> list[bytes]:
    return payload.split(b"\n")[:-1]


def _insert(conn: psycopg.Connection[Any], game: str, first_seq: int, lines: list[bytes]) -> None:
    conn.execute(
        "INSERT INTO tally_lines (game, seq, line) SELECT %s, s, l FROM unnest(%s::integer[], %s::bytea[]) AS t(s, l)",
        (game, list(range(first_seq, first_seq + len(lines))), lines),
    )


def _notify(conn: psycopg.Connection[Any], game: str, seq: int) -> None:
    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{game} {seq}"))


def _read(conn: psycopg.Connection[Any], name: str, game: str, after: int = 0, upto: int | None = None) -> list[bytes]:
    if upto is None:
        rows = conn.execute(
            "SELECT line FROM tally_lines WHERE game = %s AND seq > %s ORDER BY seq", (game, after)
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT line FROM tally_lines WHERE game = %s AND seq > %s AND seq <= %s ORDER BY seq", (game, after, upto)
        ).fetchall()
    return [bytes(row[0]) for row in rows]


def _first(conn: psycopg.Connection[Any], game: str) -> bytes:
    row = conn.execute("SELECT line FROM tally_lines WHERE game = %s AND seq = 1", (game,)).fetchone()
    return b"" if row is None else bytes(row[0])


def _joined(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


_pool: dict[tuple[str, int, bool], psycopg.Connection[Any]] = {}
_pool_lock = threading.Lock()


def pooled(url: str, autocommit: bool) -> psycopg.Connection[Any]:
    """The calling thread's connection to `url` (reads: autocommit; writes: one transaction at a time). Kept
    until the process ends: a server's threads, and a command's many games, reuse them."""
    key = (url, threading.get_ident(), autocommit)
    conn = _pool.get(key)
    if conn is None or conn.closed or conn.broken:
        conn = connect(url, autocommit=autocommit)
        with _pool_lock:
            if not _pool:
                import atexit

                atexit.register(_hang_up_all)
            _pool[key] = conn
    return conn


def hang_up(url: str) -> None:
    ident = threading.get_ident()
    with _pool_lock:
        for key in [key for key in _pool if key[0] == url and key[1] == ident]:
            _pool.pop(key).close()


def _hang_up_all() -> None:
    with _pool_lock:
        for conn in _pool.values():
            conn.close()
        _pool.clear()


class Listener:
    """One `LISTEN tally` connection per database in a process, read by a daemon thread: every game's waiters
    wait on it (a server with many open streams holds one listening connection, not one per stream)."""

    _all: dict[str, "Listener"] = {}
    _hooks: dict[str, list[Callable[[str, int], None]]] = {}  # url: called on the listening thread for each NOTIFY
    _lock = threading.Lock()

    def __init__(self, url: str):
        self.url = url
        self.changed = threading.Condition()
        self.latest: dict[str, int] = {}  # game: the last seq a NOTIFY announced
        self.seat_changes: dict[str, int] = {}  # game: how many changes of its seats were announced
        self.broken: Exception | None = None
        self.conn = connect(url, autocommit=True)
        with reaching(url):
            self.conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL)))
            self.conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(SEATS_CHANNEL)))
        threading.Thread(target=self._listen, name="tally-pg-listener", daemon=True).start()

    @classmethod
    def of(cls, url: str) -> "Listener":
        with cls._lock:
            listener = cls._all.get(url)
            if listener is None or listener.broken is not None:
                listener = cls._all[url] = cls(url)
            return listener

    @classmethod
    def on_notify(cls, url: str, hook: Callable[[str, int], None]) -> "Listener":
        """`hook(game, seq)` called for every NOTIFY of the database from now on (a server wakes its streams so,
        without polling the database); it must be quick and thread-safe. The listener itself, started if need be."""
        with cls._lock:
            cls._hooks.setdefault(url, []).append(hook)
        return cls.of(url)

    def _listen(self) -> None:
        try:
            for notice in self.conn.notifies():
                if notice.channel == SEATS_CHANNEL:
                    with self.changed:
                        self.seat_changes[notice.payload] = self.seat_changes.get(notice.payload, 0) + 1
                    continue
                game, _, seq = notice.payload.rpartition(" ")
                with self.changed:
                    self.latest[game] = max(self.latest.get(game, 0), int(seq) if seq.isdigit() else 0)
                    self.changed.notify_all()
                for hook in list(self._hooks.get(self.url, ())):
                    hook(game, self.latest[game])
        except Exception as error:  # the connection went away: waiters are told, the next wait reconnects
            with self.changed:
                self.broken = error
                self.changed.notify_all()

    def seats_heard(self, game: str) -> int:
        with self.changed:
            return self.seat_changes.get(game, 0)

    def heard(self, game: str) -> int:
        with self.changed:
            return self.latest.get(game, 0)

    def wait(self, game: str, heard: int, timeout: float) -> bool:
        """Whether a NOTIFY of `game` past `heard` came within `timeout` seconds (a LogError if the listener broke)."""
        with self.changed:
            self.changed.wait_for(lambda: self.latest.get(game, 0) != heard or self.broken is not None, timeout)
            if self.broken is not None:
                raise _unreachable(self.url, self.broken)
            return self.latest.get(game, 0) != heard


def _roll_back(conn: psycopg.Connection[Any]) -> None:
    """The transaction given up, if the connection is still there to hear it: after a database restart the
    rollback itself fails, and the error that matters is the one that made it needed."""
    if conn.broken or conn.closed:
        return
    try:
        conn.rollback()
    except psycopg.Error:
        pass


class PostgresWriter:
    """One game's row locked for the read-check-append: the transaction is the writer's exclusion."""

    def __init__(self, store: "PostgresStore"):
        self.store = store
        self.name = store.name
        self.conn = store.connection()
        try:
            row = self.conn.execute(
                "SELECT seq, fingerprint FROM tally_games WHERE game = %s FOR UPDATE", (store.game,)
            ).fetchone()
        except psycopg.Error as error:
            _roll_back(self.conn)
            raise _unreachable(store.url, error) from None
        if row is None:
            self.conn.rollback()
            raise store.missing()
        self.seq, self.fingerprint = int(row[0]), str(row[1])

    def read(self) -> logfile.Log:
        with reaching(self.store.url):
            lines = _read(self.conn, self.store.name, self.store.game)
        return logfile.parse_lines(self.store.name, b"".join(line + b"\n" for line in lines))

    def first_line(self) -> bytes:
        with reaching(self.store.url):
            return _first(self.conn, self.store.game)

    def lines_after(self, seq: int, offset: int, upto: int | None = None) -> bytes:
        with reaching(self.store.url):
            return _joined(_read(self.conn, self.store.name, self.store.game, seq, upto))

    def ends_at(self, seq: int, line_hash: str, offset: int, last_line: int) -> bool:
        return (self.seq, self.fingerprint) == (seq, line_hash)  # the row locked: the game's last seq and fingerprint

    def extent(self) -> tuple[int | None, int | None]:
        return self.seq, None

    def append(self, after_seq: int, after_hash: str, events: list[Event]) -> logfile.Appended:
        """The events stamped after (after_seq, after_hash) and committed in one transaction; StaleAppend when
        the game has moved on from there."""
        if (after_seq, after_hash) != (self.seq, self.fingerprint):
            self.conn.rollback()
            raise StaleAppend(self.store.name, after_seq)
        stamped, payload = logfile.stamp(events, after_seq, after_hash, logfile.now())
        lines = _lines_of(payload)
        fingerprint = logfile.sha256_hex(lines[-1])
        game = self.store.game
        try:
            with reaching(self.store.url):
                self._commit(game, after_seq, after_hash, lines, fingerprint)
        except StaleAppend:
            raise
        except BaseException:
            _roll_back(self.conn)
            raise
        self.seq, self.fingerprint = after_seq + len(lines), fingerprint
        return logfile.Appended(stamped, fingerprint, len(lines[-1]) + 1, [len(line) + 1 for line in lines])

    def _commit(self, game: str, after_seq: int, after_hash: str, lines: list[bytes], fingerprint: str) -> None:
        try:
            _insert(self.conn, game, after_seq + 1, lines)
            moved = self.conn.execute(
                "UPDATE tally_games SET seq = %s, fingerprint = %s WHERE game = %s AND seq = %s AND fingerprint = %s",
                (after_seq + len(lines), fingerprint, game, after_seq, after_hash),
            ).rowcount
            if moved != 1:
                raise StaleAppend(self.store.name, after_seq)
            _notify(self.conn, game, after_seq + len(lines))
            self.conn.commit()
        except (errors.UniqueViolation, StaleAppend):
            self.conn.rollback()
            raise StaleAppend(self.store.name, after_seq) from None

    def identity(self) -> Hashable:
        return self.seq, self.fingerprint

    def cached(self, spec_for: Callable[[str], Any]) -> Any:
        return None  # the state cache is keyed by a file's inode: a database game is judged from its lines

    def remember(self, started: GameStarted, last_seq: int, last_hash: str, last_line: int, state: Any) -> None:
        pass

    def __enter__(self) -> "PostgresWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.conn.broken and self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            _roll_back(self.conn)


class PostgresStore:
    """One game (`game`, its id) of the database at `url`. Its connections are the calling thread's for that
    database (`pooled`: one for reads, one for writes, whatever number of games the thread opens), and waits
    share the process's `Listener`: a store may move between threads, one call at a time."""

    def __init__(self, url: str, game: str):
        check_game_id(game)
        self.url, self.game = url, game
        self.name = game

    def connection(self) -> psycopg.Connection[Any]:
        """The thread's connection for writes (a transaction each: the writer's, or a new game's)."""
        return pooled(self.url, autocommit=False)

    def close(self) -> None:
        """Hang up this thread's connections to the database (the next call opens new ones)."""
        hang_up(self.url)

    def __enter__(self) -> "PostgresStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def missing(self) -> logfile.LogError:
        return logfile.LogError(
            self.name, None, f"no game {self.game!r} in the store {safe_url(self.url)}", "store.no-game"
        )

    def _lines(self, after: int = 0) -> list[bytes]:
        with reaching(self.url):
            return self._read_lines(after)

    def _read_lines(self, after: int) -> list[bytes]:
        lines = _read(pooled(self.url, autocommit=True), self.name, self.game, after)  # one statement: one snapshot
        if not lines and after == 0:
            raise self.missing()
        return lines

    def read(self) -> logfile.Log:
        return logfile.parse_lines(self.name, b"".join(line + b"\n" for line in self._lines()))

    def raw(self) -> bytes:
        return b"".join(line + b"\n" for line in self._lines())

    def first_line(self) -> bytes:
        with reaching(self.url):
            return _first(pooled(self.url, autocommit=True), self.game)

    def lines_after(self, seq: int, offset: int, upto: int | None = None) -> bytes:
        with reaching(self.url):
            return _joined(_read(pooled(self.url, autocommit=True), self.name, self.game, seq, upto))

    def ends_at(self, seq: int, line_hash: str, offset: int, last_line: int) -> bool:
        return self.identity() == (seq, line_hash)

    def extent(self) -> tuple[int | None, int | None]:
        seen = self.identity()
        return (None if seen is None else seen[0]), None

    def events_after(self, seq: int) -> list[Event]:
        return [event for event in self.read().events if event.seq > seq]

    def writer(self) -> PostgresWriter:
        return PostgresWriter(self)

    def look(self) -> tuple[int, str] | None:
        """Its row's seq and fingerprint (one query)."""
        return self.identity()

    def look_after(self, identity: Hashable) -> Hashable:
        return identity

    def has_moved(self, seen: Hashable, seq: int) -> bool:
        """What the process's NOTIFY listener last heard of this game: memory only, no query until something was
        appended."""
        return Listener.of(self.url).heard(self.game) > seq

    def identity(self) -> tuple[int, str] | None:
        with reaching(self.url):
            row = (
                pooled(self.url, autocommit=True)
                .execute("SELECT seq, fingerprint FROM tally_games WHERE game = %s", (self.game,))
                .fetchone()
            )
        return None if row is None else (int(row[0]), str(row[1]))

    def wait_after(self, seq: int, timeout: float) -> list[Event]:
        """The events after `seq`, waiting up to `timeout` seconds for the NOTIFY of this game's next commit.

        The process's listener (one connection per database, however many games wait) is subscribed before the
        lines are looked at, and what it last heard of this game is read before that look: a commit in between
        wakes the wait at once."""
        import time

        listener = Listener.of(self.url)
        deadline = time.monotonic() + timeout
        while True:
            heard = listener.heard(self.game)
            seen = self.identity()
            if seen is not None and seen[0] > seq:
                return self.events_after(seq)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not listener.wait(self.game, heard, remaining):
                return []

    def create(self, events: list[Event]) -> tuple[list[Event], str]:
        stamped, payload = logfile.stamp(events, 0, None, logfile.now())
        self.create_from(_lines_of(payload))
        return stamped, logfile.sha256_hex(_lines_of(payload)[-1])

    def create_from(self, lines: list[bytes]) -> None:
        """A new game of these exact lines (already verified); FileExistsError when the id is taken."""
        conn = self.connection()
        fingerprint = logfile.sha256_hex(lines[-1])
        with reaching(self.url):
            self._create(conn, lines, fingerprint)

    def _create(self, conn: psycopg.Connection[Any], lines: list[bytes], fingerprint: str) -> None:
        try:
            conn.execute(
                "INSERT INTO tally_games (game, seq, fingerprint) VALUES (%s, %s, %s)",
                (self.game, len(lines), fingerprint),
            )
            _insert(conn, self.game, 1, lines)
            _notify(conn, self.game, len(lines))
            conn.commit()
        except errors.UniqueViolation:
            conn.rollback()
            raise FileExistsError(f"{self.name}: already exists in the store; a log is never overwritten") from None
        except BaseException:
            _roll_back(conn)
            raise

    def __str__(self) -> str:
        return self.name  # what the CLI's messages name it by, as a file by its path

    def __repr__(self) -> str:
        return f"PostgresStore({safe_url(self.url)!r}, {self.game!r})"


class PostgresSeats(Seats):
    """The seats of one game of the database, in its row of `tally_seats`: a change is one transaction holding
    the row (`FOR UPDATE`), so two servers never hand out one seat twice nor lose each other's tokens.

    Every request of a seat asks whose token it holds, so the seats read are kept, tagged with the process's
    `LISTEN` connection and the count of this game's seat changes it had heard before the read. They are used
    only while the same connection is listening, unbroken, and has heard no change since: a change made by any
    server (a seat given again, a link opened, a new code) is committed with a `NOTIFY tally_seats`, and from the
    moment this process hears it, the next request reads the row again. A token revoked by another server may so
    be taken for the time a notice needs to cross the database (the same as a request that raced the change)."""

    def __init__(self, url: str, game: str):
        super().__init__()
        self.url, self.game = url, game
        self._kept: tuple[Listener, int, SeatFile] | None = None

    def _load(self) -> SeatFile:
        with reaching(self.url):
            listener = Listener.of(self.url)
        heard = listener.seats_heard(self.game)
        kept = self._kept
        if kept is not None and kept[0] is listener and kept[1] == heard and listener.broken is None:
            return kept[2]
        with reaching(self.url):
            row = (
                pooled(self.url, autocommit=True)
                .execute("SELECT seats FROM tally_seats WHERE game = %s", (self.game,))
                .fetchone()
            )
        data = SeatFile() if row is None else msgspec.json.decode(bytes(row[0]), type=SeatFile)
        self._kept = (listener, heard, data)  # tagged with what was heard before the read: a later change drops it
        return data

    def _change(self, change: Callable[[SeatFile], T]) -> T:
        conn = pooled(self.url, autocommit=False)
        with reaching(self.url):
            try:
                conn.execute(
                    "INSERT INTO tally_seats (game, seats) VALUES (%s, %s) ON CONFLICT (game) DO NOTHING",
                    (self.game, msgspec.json.encode(SeatFile())),
                )
                row = conn.execute("SELECT seats FROM tally_seats WHERE game = %s FOR UPDATE", (self.game,)).fetchone()
                assert row is not None
                data = msgspec.json.decode(bytes(row[0]), type=SeatFile)
                result = change(data)
                conn.execute(
                    "UPDATE tally_seats SET seats = %s WHERE game = %s", (msgspec.json.encode(data), self.game)
                )
                conn.execute("SELECT pg_notify(%s, %s)", (SEATS_CHANNEL, self.game))  # sent at the commit
                conn.commit()
            except BaseException:
                _roll_back(conn)
                raise
        self._kept = None  # this process's own change: read again, not waiting for its notice
        return result


def game_ids(url: str) -> list[str]:
    """Every game id of the database, by id, on the calling thread's connection (a server lists them often)."""
    with reaching(url):
        rows = pooled(url, autocommit=True).execute("SELECT game FROM tally_games ORDER BY game").fetchall()
    return [str(row[0]) for row in rows]


# --------------------------------------------------------------------------- the whole database


def games(url: str) -> list[tuple[str, int, str]]:
    """Every game of the database: (id, last seq, fingerprint), by id."""
    with connect(url) as conn, reaching(url):
        rows = conn.execute("SELECT game, seq, fingerprint FROM tally_games ORDER BY game").fetchall()
    return [(str(game), int(seq), str(fingerprint)) for game, seq, fingerprint in rows]


def export(url: str, to: Path | str, only: list[str] | None = None) -> Iterator[tuple[str, Path, int]]:
    """Every game (or those `only` names) written to `to/<id>.jsonl`, byte for byte, all as of one moment (one
    repeatable-read transaction, while tables go on recording): (id, file, events) each. A file is written whole
    under a temporary name, then renamed: an export cut short leaves no half log."""
    import os

    folder = Path(to)
    folder.mkdir(parents=True, exist_ok=True)
    with connect(url) as conn, reaching(url):
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ  # every game as of one moment
        ids = [row[0] for row in conn.execute("SELECT game FROM tally_games ORDER BY game").fetchall()]
        for game in ids if only is None else [g for g in ids if g in set(only)]:
            lines = _read(conn, game, game)
            target = folder / f"{game}.jsonl"
            temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            temporary.write_bytes(b"".join(line + b"\n" for line in lines))
            os.replace(temporary, target)
            yield game, target, len(lines)


# --------------------------------------------------------------------------- a game named by one string (ingest)


def game_url(url: str, game: str) -> str:
    """One game of a database as one string, `URL#GAME` (the password left out: give it in PGPASSWORD or
    ~/.pgpass), what the history library records as the game's path."""
    return f"{safe_url(url)}#{game}"


def read_game_url(path: str) -> bytes:
    """The exact bytes of the game `URL#GAME` (a LogError when it is not there)."""
    url, _, game = path.rpartition("#")
    with reaching(url):
        lines = _read(pooled(url, autocommit=True), game, game)
    if not lines:
        raise logfile.LogError(path, None, "no such game in the store", "store.no-game")
    return b"".join(line + b"\n" for line in lines)


def first_line_url(path: str) -> tuple[bytes, int]:
    """The first line of the game `URL#GAME` and the size of its log in bytes ((b"", 0) when it is not there)."""
    url, _, game = path.rpartition("#")
    with reaching(url):
        return _first_line(pooled(url, autocommit=True), game)


def _first_line(conn: psycopg.Connection[Any], game: str) -> tuple[bytes, int]:
    row = conn.execute(
        "SELECT (SELECT line FROM tally_lines WHERE game = %s AND seq = 1), "
        "(SELECT coalesce(sum(length(line) + 1), 0) FROM tally_lines WHERE game = %s)",
        (game, game),
    ).fetchone()
    if row is None or row[0] is None:
        return b"", 0
    return bytes(row[0]), int(row[1])
