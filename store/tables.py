"""The games served to the devices at many tables (a folder of logs, or a PostgreSQL store): which games it
holds, one record service per game, and what each caller may read of it.

A caller is the host (sees everything the log knows, as `tally state`), a seat (as `tally state --as SEAT`:
the game's `conceal` and its `--as` view) or a watcher (what every player sees: the game's `conceal` for a
name no seat has, so every seat's hidden cards are unknown). Every read and write of a log goes through its
`GameRecord`; the event lines a caller reads are the log's events in notation, except that an event holding
what the caller may not know is shown only by its seq, type and player (`is_known_to`).
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Annotated, Any, Optional

import msgspec

from tally.core.engine import Table
from tally.core.model import Event, GameStarted

from .results import Board, EventLine, ListingReport, board, board_at, numbered
from .logstore import JsonlStore, LogStore, is_database_url
from .seats import FileSeats, Seats
from .secrecy import WATCHER, hidden_text, is_known_to
from .service import GameRecord, MoveResult, UsageError, describe, describe_start, seat_moves

ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # a log's name in the folder, without `.jsonl`


def _(text: str) -> Any:
    return msgspec.Meta(description=text)


class Damage(msgspec.Struct):
    """What is wrong with a log that cannot be served."""

    error: str
    line: Optional[int]
    message: str


class GameSummary(msgspec.Struct):
    """One game of the folder, as `GET /api/games` lists it."""

    id: Annotated[str, _("the log's name in the folder, without `.jsonl`")]
    game: Annotated[str, _("the game's name")]
    seats: Annotated[list[str], _("the players, in turn order")]
    mode: Annotated[str, _("`open` or `table`")]
    seq: Annotated[int, _("the last event's seq")]
    fingerprint: Annotated[str, _("SHA-256 of the log's last line")]
    to_act: Annotated[str, _("who must act next: a player, `table` or `nobody`")]
    expected: Annotated[str, _("what is expected next, in words")]
    ended: Annotated[bool, _("true once the game is over")]
    damage: Annotated[Optional[Damage], _("null for a sound log; for a damaged one (a torn tail, a broken chain, an "
                                          "illegal event), what is wrong: `error` the stable id as `tally check` "
                                          "reports it (`log.*`, `core.log.illegal`), `line` the line (or null), `message` "
                                          "(the host's names the file and the fault; anyone else's only the id and the "
                                          "line); every other key is then empty")] = None


def damaged_summary(ident: str, damage: Damage) -> GameSummary:
    """A game whose log cannot be read, as the list shows it: its id and what is wrong, nothing else."""
    return GameSummary(ident, "", [], "", 0, "", "nobody", damage.message, False, damage)


class EventsReport(msgspec.Struct):
    """`GET /api/games/{id}/events`: the events after a seq, as the caller may see them."""

    seq: Annotated[int, _("the log's last seq")]
    events: Annotated[list[EventLine], _("`seq`, `type`, `text` (the event in notation; for an event holding what the caller may not know, only who did what kind of thing)")]


class Timeline:
    """The events of one log with the state after each, so that each caller's lines are worked out once.

    Whether the log grew is looked at cheaply: a file's inode, size and time of change (one `stat`), or for a game
    of a database what the process's NOTIFY listener last heard of it (memory only: no query until something was
    appended). A log that is no longer an extension of what was read (restored from a backup, rewritten: another
    file, a shorter one, or another line at the last seq read) is read again from its start, and `generation`
    counts each time, so that a reader following it (a stream) knows to start over."""

    def __init__(self, record: GameRecord, url: str | None = None):
        self.record = record
        self.url = url  # the database the game lives in; None: a file
        self.events: list[Event] = []
        self.states: list[Any] = []  # the state after each event of `events`
        self._table: Table | None = None
        self._lines: dict[str | None, list[EventLine]] = {}
        self.size: Any = -1  # a file's (inode, size, mtime), or a database game's (seq, fingerprint), at the last look
        self.fingerprint = ""  # the hash of the last line read: the next line's `prev` names it in an extension
        self.generation = 0  # how many times the log was found replaced

    def _look(self) -> Any:
        if self.url is not None:
            return self.record.store.identity()
        try:
            info = os.stat(self.record.path)
        except OSError:
            return None
        return info.st_ino, info.st_size, info.st_mtime_ns

    def marker(self, identity: Any) -> Any:
        """What `_look` would see, from the record's identity of its log right after its own write."""
        return identity if self.url is not None else tuple(identity[:3])

    def catch_up(self) -> bool:
        """Read what was appended since the last look (by this server or any other writer); True if anything
        changed, a log found replaced included (then read from its start, `generation` moved on)."""
        size = self._look()
        if size is None or size == self.size:
            return False
        self.size = size
        log = self.record.store.read()
        replaced = bool(self.events) and not self._extended_by(log.events, log.last_hash)
        if replaced:
            self.events, self.states, self._table, self._lines = [], [], None, {}
            self.generation += 1
        fresh = log.events[len(self.events):]
        for event in fresh:
            if self._table is None:
                assert isinstance(event, GameStarted)
                self._table = Table(self.record.spec, event)
            else:
                self._table.apply(event)
            self.events.append(event)
            self.states.append(self._table.state)
        self.fingerprint = log.last_hash
        return bool(fresh) or replaced

    def _extended_by(self, events: list[Event], last_hash: str) -> bool:
        """Whether a log of `events` ending in a line of hash `last_hash` holds what was read, line for line."""
        read = len(self.events)
        if len(events) < read:
            return False
        return (last_hash if len(events) == read else events[read].prev) == self.fingerprint

    def extend(self, events: list[Event], size: Any) -> None:
        """What this server just appended (`size`: `marker` of the log right after, under the writer's lock),
        without reading the log again; read again when another writer appended (or replaced it) in between."""
        if (not events or events[0].seq != len(self.events) + 1 or self._table is None
                or events[0].prev != self.fingerprint):
            self.size = -1
            self.catch_up()
            return
        for event in events:
            self._table.apply(event)
            self.events.append(event)
            self.states.append(self._table.state)
        self.size = size
        self.fingerprint = self.record.last_hash

    def is_behind(self) -> bool:
        """Whether the log changed since the last look: cheap enough for a server's watcher to ask often."""
        if self.url is not None:
            from .pgstore import Listener

            return Listener.of(self.url).heard(self.record.store.name) > len(self.events)
        try:
            info = os.stat(self.record.path)
        except OSError:
            return False
        return (info.st_ino, info.st_size, info.st_mtime_ns) != self.size

    @property
    def seq(self) -> int:
        return len(self.events)

    def lines(self, viewer: str | None, after: int = 0) -> list[EventLine]:
        """The event lines after seq `after` as `viewer` may see them (None: the host, everything)."""
        shown = self._lines.setdefault(viewer, [])
        spec = self.record.spec
        for index in range(len(shown), len(self.events)):
            event = self.events[index]
            if isinstance(event, GameStarted):  # the start is everyone's: the seats, the options, the box
                text = describe_start(event)
            elif viewer is None or is_known_to(spec, self.states[index - 1], self.states[index], event, viewer):
                text = describe(spec, event)
            else:
                text = hidden_text(event)
            shown.append(EventLine(event.seq, str(type(event).__struct_config__.tag), text))
        return [line for line in shown if line.seq > after]


class Game:
    """One served game: its record service, its seats and its timeline, used by one thread at a time."""

    def __init__(self, ident: str, store: LogStore, seats: Seats, url: str | None = None):
        self.id = ident
        self.record = GameRecord.open(store)
        self.seats = seats
        self.timeline = Timeline(self.record, url)
        self.lock = threading.Lock()
        self.timeline.catch_up()

    def sync(self) -> None:
        """The record and the timeline brought up to the file (another writer may have appended)."""
        if self.record.changed():
            self.record.reload()
        self.timeline.catch_up()

    def recorded(self, result: MoveResult) -> None:
        """A write of this server's record service, told to the timeline (the streams read it from there)."""
        if result.accepted and result.events:
            self.timeline.extend(list(result.events), self.timeline.marker(self.record.identity))

    def summary(self) -> GameSummary:
        record = self.record
        who, what = record.spec.to_act(record.state)
        started = record.fold.started
        return GameSummary(self.id, record.spec.name, list(started.seats), started.mode, record.seq, record.last_hash,
                           who, what, record.spec.outcome(record.state) is not None)

    def board(self, viewer: str | None) -> Board:
        record = self.record
        if viewer == WATCHER:
            spec = record.spec
            return board_at(spec, spec.conceal(record.state, WATCHER), record.seq, record.last_hash, WATCHER)
        return board(record, viewer)

    def listing(self, viewer: str | None) -> ListingReport:
        record = self.record
        return numbered(record.spec, record.state, record.seq, seat_moves(record.spec, record.state, viewer))

    def event_lines(self, viewer: str | None, after: int) -> EventsReport:
        return EventsReport(self.timeline.seq, self.timeline.lines(viewer, after))


class Tables:
    """The games one server serves, each opened once and kept: the logs of a folder (`ID.jsonl`, seats in
    `ID.seats.json`) or every game of a PostgreSQL database (`where` its URL; seats in `tally_seats`)."""

    def __init__(self, where: Path | str):
        self.url = str(where) if is_database_url(str(where)) else None
        self.directory = Path(where) if self.url is None else None
        self._games: dict[str, Game] = {}
        self._lock = threading.Lock()

    @property
    def kind(self) -> str:
        """What messages call the place the games live."""
        return "folder" if self.url is None else "store"

    def check_id(self, ident: str) -> None:
        """A game id: a name of the folder, never a path (UsageError otherwise)."""
        if not ID.fullmatch(ident) or ident.endswith((".seats", ".json")) or ".." in ident:
            raise UsageError(f"{ident!r} is not a game id: letters, digits, '_', '-' and '.', at most 64")

    def store_of(self, ident: str) -> LogStore:
        """The log an id names (UsageError for an id that is no name)."""
        self.check_id(ident)
        if self.url is not None:
            from .pgstore import PostgresStore

            return PostgresStore(self.url, ident)
        assert self.directory is not None
        return JsonlStore(self.directory / f"{ident}.jsonl")

    def ids(self) -> list[str]:
        if self.url is not None:
            from .pgstore import game_ids

            return [ident for ident in game_ids(self.url) if ID.fullmatch(ident)]
        assert self.directory is not None
        return sorted(p.name[: -len(".jsonl")] for p in self.directory.glob("*.jsonl")
                      if p.is_file() and not p.is_symlink() and ID.fullmatch(p.name[: -len(".jsonl")]))

    def _exists(self, store: LogStore) -> bool:
        if self.url is not None:
            return store.identity() is not None
        path = Path(store.name)
        return path.is_file() and not path.is_symlink()

    def _seats(self, store: LogStore) -> Seats:
        if self.url is not None:
            from .pgstore import PostgresSeats

            return PostgresSeats(self.url, store.name)
        return FileSeats(store.name)

    def game(self, ident: str) -> Game | None:
        """The game of that id, opened on first use; None when there is no such game."""
        store = self.store_of(ident)
        with self._lock:
            game = self._games.get(ident)
            if game is not None:
                return game
            if not self._exists(store):
                return None
            game = self._games[ident] = Game(ident, store, self._seats(store), self.url)
            return game

    def opened(self) -> list[Game]:
        with self._lock:
            return list(self._games.values())

    def opened_game(self, ident: str) -> Game | None:
        """The game of that id if it is open already (no file or database is touched)."""
        with self._lock:
            return self._games.get(ident)


def seat_of_name(game: Game, name: str) -> str:
    """The seat a name means at this game (any case when only one player has it); UsageError when none."""
    from .results import seat_for

    return seat_for(list(game.record.fold.started.seats), name)
