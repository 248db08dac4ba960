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

from tally.core.model import Event, GameStarted
from tally.store.logs.logstore import LogStore
from tally.store.logs.places import place_of
from tally.store.recording import corrections
from tally.store.recording.corrections import HistoryReport
from tally.store.recording.picking import NamesReport, PiecesReport, names, pieces
from tally.store.recording.results import Board, EventLine, ListingReport, board, board_at, numbered
from tally.store.recording.secrecy import WATCHER, hidden_text, is_known_to
from tally.store.recording.service import GameRecord, MoveResult, describe, describe_start, seat_moves
from tally.store.serving.seats import Seats

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
    damage: Annotated[
        Optional[Damage],
        _(
            "null for a sound log; for a damaged one (a torn tail, a broken chain, an "
            "illegal event), what is wrong: `error` the stable id as `tally check` "
            "reports it (`log.*`, `core.log.illegal`), `line` the line (or null), `message` "
            "(the host's names the file and the fault; anyone else's only the id and the "
            "line); every other key is then empty"
        ),
    ] = None


def damaged_summary(ident: str, damage: Damage) -> GameSummary:
    """A game whose log cannot be read, as the list shows it: its id and what is wrong, nothing else."""
    return GameSummary(ident, "", [], "", 0, "", "nobody", damage.message, False, damage)


class EventsReport(msgspec.Struct):
    """`GET /api/games/{id}/events`: a page of the events after a seq, as the caller may see them."""

    seq: Annotated[int, _("the log's last seq")]
    events: Annotated[
        list[EventLine],
        _(
            "`seq`, `type`, `text` (the event in notation; for an event holding what the caller may not know, only who did what kind of thing)"
        ),
    ]
    next: Annotated[
        Optional[int],
        _("the `after` of the next page (the last seq of this one), or null when this page reaches the log's last seq"),
    ] = None


PAGE = 200  # events in a page of `GET .../events` unless asked for fewer (or more, up to `MOST`)
MOST = 1000
PAGE_BYTES = 192 * 1024  # a page ends before its lines' text passes this (a long note): every answer stays small
RECENT = 64  # the newest steps a timeline keeps in memory with each caller's lines (what its streams send next)

Step = tuple[Event, Any, Any]
FOLDED_KEPT = 1024  # the most steps `Timeline._folded` keeps (a page and a checkpoint's spacing fit)


class Timeline:
    """A served log's newest events with the state before and after each, so that each caller's lines of what was
    just recorded are worked out once (the streams send them); older events are folded again on demand from the
    checkpoint before them (`positions.steps`), a page at a time, so that neither memory nor an answer grows with
    the game's length.

    The record (`GameRecord.follow`) tells it of every event its fold takes on (`took`): this server's writes and
    what another writer appended (read and judged alone). Whether the log changed is looked at cheaply (`size`: a
    file's inode, size and time of change, one `stat`, or for a game of a database what the process's NOTIFY listener
    last heard of it). A log that is no longer an extension of what was read (restored from a backup, rewritten) is
    read again from a checkpoint, and `generation` counts each time, so that a reader following it (a stream) knows
    to start over."""

    def __init__(self) -> None:
        self.record: GameRecord | None = None
        self.recent: list[Step] = []
        self._lines: dict[str | None, list[EventLine]] = {}  # each caller's lines of `recent`, as far as worked out
        self.size: Any = -1  # a file's (inode, size, mtime), or a database game's (seq, fingerprint), at the last look
        self.generation = 0  # how many times the log was found replaced
        self._standing: corrections.Standing | None = None  # the history's index, once a caller asked for it
        self._last_folded: tuple[tuple[int, int, int], list[Step]] | None = None  # `_folded`'s last range

    @property
    def _record(self) -> GameRecord:
        assert self.record is not None
        return self.record

    def took(self, steps: list[Step], replaced: bool) -> None:
        """The record's follower: the steps its fold took on, or (`replaced`) that it was read again from a log that
        is not an extension of what it had."""
        if replaced:
            self.recent, self._lines = [], {}
            self.generation += 1
            self._standing = None
            return
        kept = self._standing
        if kept is not None and steps:
            if steps[0][0].seq == kept.seq + 1:
                kept.add(step[0] for step in steps)
            else:  # not the events after those it holds: read whole again when next asked
                self._standing = None
        self.recent.extend(steps)
        dropped = len(self.recent) - RECENT
        if dropped > 0:
            del self.recent[:dropped]
            for shown in self._lines.values():
                del shown[:dropped]

    def standing(self) -> corrections.Standing:
        """The history's index of this log (`corrections.Standing`): read from the log's tail back as far as pages
        ask, then kept up by every event the record takes on (made afresh after the log was replaced)."""
        kept = self._standing
        if kept is None or kept.seq != self.seq:
            kept = self._standing = corrections.Standing(self._record.spec, self.seq, self._events)
        return kept

    def _events(self, first: int, last: int) -> list[Event]:
        """The log's events from seq `first` to `last`: the newest from memory, older ones folded again from the
        checkpoint before them (the whole log read only when it cannot be folded so)."""
        oldest = self.recent[0][0].seq if self.recent else self.seq + 1
        if first >= oldest:
            return [step[0] for step in self.recent[first - oldest : last - oldest + 1]]
        from tally.store.recording import positions

        record = self._record
        try:
            events = [record.fold.started] if first == 1 else []
            return events + [step[0] for step in self._folded(max(first - 1, 1), last)]
        except (positions.NotClean, IndexError):
            return record.store.read().events[first - 1 : last]

    def _folded(self, after: int, upto: int) -> list[Step]:
        """`positions.steps` of the lines after `after` through `upto`, the last range folded kept: a page of the
        history asks for its lines and then its events (those it does not hold yet), and folds them once."""
        from tally.store.recording import positions

        kept = self._last_folded
        if kept is not None and kept[0][0] == self.generation and kept[0][1] <= after and upto <= kept[0][2]:
            return [step for step in kept[1] if after < step[0].seq <= upto]
        steps = positions.steps(self._record.store, after, upto)
        # a page's range is kept; a far `before`'s whole walk back is not held in memory after its answer
        self._last_folded = ((self.generation, after, upto), steps) if len(steps) <= FOLDED_KEPT else None
        return steps

    def texts(self, viewer: str | None, first: int, last: int) -> list[str]:
        """The texts of the event lines from seq `first` to `last` as `viewer` may read them."""
        texts: list[str] = []
        while first + len(texts) <= last:
            page = self.lines(viewer, first - 1 + len(texts), last - first + 1 - len(texts))
            if not page:
                break
            texts += [line.text for line in page]
        return texts

    def is_behind(self) -> bool:
        """Whether the log changed since the last look: cheap enough for a server's watcher to ask often."""
        return self._record.store.has_moved(self.size, self.seq)

    @property
    def seq(self) -> int:
        return self._record.seq

    @property
    def fingerprint(self) -> str:
        return self._record.last_hash

    def lines(self, viewer: str | None, after: int = 0, limit: int = PAGE) -> list[EventLine]:
        """At most `limit` event lines after seq `after` as `viewer` may see them (None: the host, everything), fewer
        when their text passes `PAGE_BYTES` (never none when there are any)."""
        seq = self.seq
        upto = min(seq, after + limit)
        if upto <= after:
            return []
        oldest = self.recent[0][0].seq if self.recent else seq + 1
        shown = self._older(viewer, after, min(upto, oldest - 1)) if after + 1 < oldest else []
        if upto >= oldest:
            shown += [line for line in self._recent_lines(viewer) if after < line.seq <= upto]
        return _within_bytes(shown)

    def _recent_lines(self, viewer: str | None) -> list[EventLine]:
        shown = self._lines.setdefault(viewer, [])
        for step in self.recent[len(shown) :]:
            shown.append(self._line(viewer, step))
        return shown

    def _older(self, viewer: str | None, after: int, upto: int) -> list[EventLine]:
        """The lines of events no longer in memory, folded again from the checkpoint before them."""
        from tally.store.recording import positions

        record = self._record
        shown = [EventLine(1, "game_started", describe_start(record.fold.started))] if after == 0 else []
        try:
            steps = self._folded(max(after, 1), upto)
        except (positions.NotClean, IndexError):
            return shown  # the log changed under the page: the next look reads it again
        return shown + [self._line(viewer, step) for step in steps]

    def _line(self, viewer: str | None, step: Step) -> EventLine:
        event, before, after = step
        spec = self._record.spec
        if isinstance(event, GameStarted):  # the start is everyone's: the seats, the options, the box
            text = describe_start(event)
        elif viewer is None or is_known_to(spec, before, after, event, viewer):
            text = describe(spec, event)
        else:
            text = hidden_text(event)
        return EventLine(event.seq, str(type(event).__struct_config__.tag), text)


def _within_bytes(lines: list[EventLine]) -> list[EventLine]:
    """The first lines whose text stays within `PAGE_BYTES` (the first line always)."""
    total = 0
    for count, line in enumerate(lines):
        total += len(line.text) + 48
        if total > PAGE_BYTES and count:
            return lines[:count]
    return lines


class Game:
    """One served game: its record service, its seats and its timeline, used by one thread at a time."""

    def __init__(self, ident: str, store: LogStore, seats: Seats):
        self.id = ident
        self.seats = seats
        self.timeline = Timeline()
        look = store.look()
        self.record = GameRecord.follow(store, self.timeline.took)
        self.timeline.record = self.record
        self.timeline.size = look
        self.lock = threading.Lock()

    def sync(self) -> None:
        """The record (and its timeline) brought up to the log: what another writer appended is read and judged
        alone; a log replaced is read again from a checkpoint."""
        look = self.record.store.look()
        if look is not None and look == self.timeline.size:
            return
        self.record.catch_up()
        self.timeline.size = look

    def recorded(self, result: MoveResult) -> None:
        """A write of this server's record service (the timeline took its events from the record): what `look` sees
        now, without a second look."""
        if result.accepted and result.events and not result.preview:
            record = self.record
            self.timeline.size = record.store.look_after(record.identity)

    def summary(self) -> GameSummary:
        record = self.record
        who, what = record.spec.to_act(record.state)
        started = record.fold.started
        return GameSummary(
            self.id,
            record.spec.name,
            list(started.seats),
            started.mode,
            record.seq,
            record.last_hash,
            who,
            what,
            record.spec.outcome(record.state) is not None,
        )

    def board(self, viewer: str | None) -> Board:
        record = self.record
        if viewer == WATCHER:
            spec = record.spec
            return board_at(spec, spec.conceal(record.state, WATCHER), record.seq, record.last_hash, WATCHER)
        return board(record, viewer)

    def listing(self, viewer: str | None) -> ListingReport:
        record = self.record
        return numbered(record.spec, record.state, record.seq, seat_moves(record.spec, record.state, viewer), viewer)

    def names(self, viewer: str | None) -> NamesReport:
        """What `viewer` may name now by tapping pieces, on the table as it knows it (`picking.names`)."""
        record = self.record
        return names(record.spec, record.state, record.seq, viewer)

    def pieces(self) -> PiecesReport:
        """The pieces of the game's box, drawn (the same for every caller)."""
        return pieces(self.record.spec, self.record.state)

    def event_lines(self, viewer: str | None, after: int, limit: int = PAGE) -> EventsReport:
        """A page of the event lines after `after`, with the `after` of the next one."""
        lines = self.timeline.lines(viewer, after, limit)
        seq = self.timeline.seq
        last = lines[-1].seq if lines else seq
        return EventsReport(seq, lines, last if last < seq else None)

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
        seat = None if viewer in (None, WATCHER) else viewer
        timeline = self.timeline
        texts = lambda first, last: timeline.texts(viewer, first, last)  # noqa: E731
        return corrections.history(timeline.standing(), texts, seat, viewer is None, before, limit)


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
