"""The games served to the devices at many tables (a folder of logs, or a PostgreSQL store): which games it
holds, one record service per game, and what each caller may read of it.

A caller is the host (sees everything the log knows, as `tally state`), a seat (as `tally state --as SEAT`:
the game's `conceal` and its `--as` view) or a watcher (what every player sees: the game's `conceal` for a
name no seat has, so every seat's hidden cards are unknown). Every read and write of a log goes through its
`GameRecord`; the event lines a caller reads are the log's events in notation, except that an event holding
what the caller may not know is shown only by its seq, type and player (`is_known_to`).
"""

from __future__ import annotations

import threading
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import msgspec

from tally.core.engine import Table
from tally.core.model import Event, GameStarted

from tally.store.recording.results import Board, EventLine, ListingReport, board, board_at, numbered
from tally.store.logs.logstore import LogStore
from tally.store.logs.places import place_of
from tally.store.recording import corrections
from tally.store.recording.corrections import HistoryReport
from tally.store.serving.seats import Seats
from tally.store.recording.secrecy import WATCHER, hidden_text, is_known_to
from tally.store.recording.service import GameRecord, MoveResult, describe, describe_start, seat_moves

if TYPE_CHECKING:
    from tally.store.library.bgstats import Pushed, Skipped



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

    def __init__(self, record: GameRecord):
        self.record = record
        self.events: list[Event] = []
        self.states: list[Any] = []  # the state after each event of `events`
        self._table: Table | None = None
        self._lines: dict[str | None, list[EventLine]] = {}
        self.size: Any = -1  # a file's (inode, size, mtime), or a database game's (seq, fingerprint), at the last look
        self.fingerprint = ""  # the hash of the last line read: the next line's `prev` names it in an extension
        self.generation = 0  # how many times the log was found replaced

    def catch_up(self) -> bool:
        """Read what was appended since the last look (by this server or any other writer); True if anything
        changed, a log found replaced included (then read from its start, `generation` moved on)."""
        size = self.record.store.look()
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

    def extend(self, events: list[Event], states: list[Any], snapshot: Any, size: Any) -> None:
        """What this server just appended, without reading the log again or applying the events a second time: the
        record service's fold gave the state after each (`states`) and its table (`snapshot`, with the undo history
        a later void takes back from); `size` is what `look` sees right after the write. Read again when another
        writer appended (or replaced the log) in between."""
        if (not events or events[0].seq != len(self.events) + 1 or self._table is None
                or events[0].prev != self.fingerprint or len(states) != len(events) or not self.record.complete):
            self.size = -1
            self.catch_up()
            return
        self._table.restore(snapshot)
        self.events.extend(events)
        self.states.extend(states)
        self.size = size
        self.fingerprint = self.record.last_hash

    def is_behind(self) -> bool:
        """Whether the log changed since the last look: cheap enough for a server's watcher to ask often."""
        return self.record.store.has_moved(self.size, len(self.events))

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

    def __init__(self, ident: str, store: LogStore, seats: Seats):
        self.id = ident
        self.record = GameRecord.open(store)
        self.seats = seats
        self.timeline = Timeline(self.record)
        self.lock = threading.Lock()
        self.timeline.catch_up()

    def sync(self) -> None:
        """The record and the timeline brought up to the file (another writer may have appended)."""
        if self.record.changed():
            self.record.reload()
        self.timeline.catch_up()

    def recorded(self, result: MoveResult) -> None:
        """A write of this server's record service, told to the timeline (the streams read it from there)."""
        if result.accepted and result.events and not result.preview:
            record = self.record
            self.timeline.extend(list(result.events), list(result.states), record.fold.snapshot(),
                                 record.store.look_after(record.identity))

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
        return numbered(record.spec, record.state, record.seq, seat_moves(record.spec, record.state, viewer), viewer)

    def event_lines(self, viewer: str | None, after: int) -> EventsReport:
        return EventsReport(self.timeline.seq, self.timeline.lines(viewer, after))

    def play(self, zone: tzinfo) -> Pushed | Skipped | None:
        """The game as a BG Stats play and the link that logs it, dated in `zone` (`store/library/bgstats.py`, as
        the export makes it); Skipped when its start has no valid time; None while the game is not over."""
        from tally.store.library import bgstats

        record = self.record
        if record.spec.outcome(record.state) is None:
            return None
        done = bgstats.finished_of_log(record.store.read(), record.state)
        return None if done is None else bgstats.pushed(done, zone)

    def history(self, viewer: str | None, before: int | None, limit: int) -> HistoryReport:
        """The table's history as `viewer` may read it (None: the host), newest first, a page of it."""
        texts = [line.text for line in self.timeline.lines(viewer)]
        seat = None if viewer in (None, WATCHER) else viewer
        return corrections.history(self.record.spec, self.timeline.events, texts, seat, viewer is None, before, limit)


class Tables:
    """The games one server serves (its `Place`: a folder of logs, or every game of a PostgreSQL database), each
    opened once and kept."""

    def __init__(self, where: Path | str):
        self.place = place_of(where)
        self._games: dict[str, Game] = {}
        self._lock = threading.Lock()

    @property
    def kind(self) -> str:
        """What messages call the place the games live."""
        return self.place.kind

    def store_of(self, ident: str) -> LogStore:
        """The log an id names (UsageError for an id that is no name)."""
        return self.place.store_of(ident)

    def ids(self) -> list[str]:
        return self.place.ids()

    def free_id(self, game: str) -> str:
        """A new game's id when the host gives none: the game's name and the first number no game here has."""
        taken = set(self.ids())
        return next(f"{game}-{n}" for n in range(1, len(taken) + 2) if f"{game}-{n}" not in taken)

    def game(self, ident: str) -> Game | None:
        """The game of that id, opened on first use; None when there is no such game."""
        store = self.store_of(ident)
        with self._lock:
            game = self._games.get(ident)
            if game is not None:
                return game
            if not self.place.holds(store):
                return None
            game = self._games[ident] = Game(ident, store, self.place.seats(store))
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
    from tally.store.recording.results import seat_for

    return seat_for(list(game.record.fold.started.seats), name)
