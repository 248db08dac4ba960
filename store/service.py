"""The record service: one game's log and its fold, the one API every interface calls.

`tally move`, `undo` and `note`, the recording session (`store/session.py`) and whatever serves a table
of devices later all go through `GameRecord`: under the log's writer lock it brings its fold up to the
file (from the state cache when it can be trusted), refuses a stale append (`core.append.stale`: the
caller saw another seq or fingerprint), judges the move against the fold and applies it there once
(`core.engine.Table.take`), deals the chance an open game makes due, and appends in one write. Narration,
who acts next and the outcome are read off that one fold. A rejected input appends nothing and leaves
the fold as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, cast

import msgspec

from tally.core import registry
from tally.core.engine import Played, Table, correction_refused, judge
from tally.core.model import Amended, Event, GameSpec, GameStarted, NotationError, Noted, Ruling, Voided, illegal
from tally.core.notation import seat_named
from tally.core.text import quote

from . import log as logfile
from . import logstore
from .errors import IllegalLog, StaleAppend, UsageError  # noqa: F401  (the service's names, as callers import them)
from .secrecy import hidden_text, known_to, listed_for, may_read, salted, seat_listing
from .judging import (  # noqa: F401  (re-exported: the service's names, as callers import them from here)
    MOVE_SEPARATOR,
    STALE,
    SEAT_CONFLICT,
    SEAT_OTHER,
    MoveResult,
    Reading,
    describe,
    fresh_shuffle,
    is_move_number,
    listing_range,
    listing_refusal,
    parse_move,
    payload,
    play,
    propose,
    read_correction,
    stale_at,
)

if TYPE_CHECKING:
    import random

Mode = Literal["open", "table"]


class Position(msgspec.Struct):
    """A log folded up to some seq: the table (fold) and the events that built it."""

    log: logfile.Log
    table: Any
    seq: int

    @property
    def spec(self) -> GameSpec:
        return self.log.spec


class Frame(msgspec.Struct, gc=False):
    """One step of a replay: the event, who did it, what it said in notation, and the state after.

    `text` (the notation and what followed from it) is worked out when read: a replay that only looks at
    states, as the library's does, never pays for narration. A struct, so that a replay builds one per event
    without a call of Python (it refers to nothing that refers back to it: not tracked by the collector)."""

    seq: int
    event: Event | None
    state: Any
    voided: bool = False
    spec: GameSpec | None = None
    before: Any = None
    told: str | None = None  # `text`, once worked out (or given)

    @property
    def type(self) -> str:
        return "game_started" if self.event is None else str(type(self.event).__struct_config__.tag)

    @property
    def text(self) -> str:
        if self.told is None:
            assert self.spec is not None and self.event is not None
            text = describe(self.spec, self.event)
            consequences = self.spec.narrate(self.before, self.state)
            self.told = text + " -> " + "; ".join(consequences) if consequences else text
        return self.told

    def __repr__(self) -> str:
        return f"Frame(seq={self.seq}, type={self.type!r}, voided={self.voided})"


class Conflict(msgspec.Struct):
    """A seat's move that was legal on what that seat knows, but that what other seats entered forbids: someone
    mistyped. The seat is told only that (`core.seat.conflict`); the host is shown this, with the whole table's
    rulings, which name the other entry."""

    seat: str
    move: str
    seq: int  # the log's last seq when the move was refused
    rulings: list[Ruling]


CONFLICTS_KEPT = 100  # the newest conflicts a served game keeps for its host (they are refused input, not the log's)


def seat_reading(table: Table, seat: str, own: bool = True) -> Reading:
    """How a seat's text is read: numbers against the listing that seat is shown (`secrecy.seat_listing`); `own`: a
    move it makes (its own or the table's entry), else a question about anyone's."""
    return Reading(seat, seat_listing(table.spec, table.started.mode, seat), own)


def conflict_refusal(text: str, seq: int, to_act: tuple[str, str], path: str) -> MoveResult:
    """What a seat is told of its move that another seat's entries forbid: the same words whatever they are."""
    ruling = illegal(SEAT_CONFLICT, "this contradicts what another seat entered (or tally dealt), which you cannot see: "
                     "a card cannot be in two places, so one of you mistyped; nothing was recorded, and the host can see "
                     "both entries")
    return MoveResult(False, text, [], [ruling], None, None, to_act, seq=seq, path=path)


def shuffler(rng: "random.Random") -> Callable[[list[str]], list[str]]:
    """A pile shuffled by `rng` in place: the engine's `shuffle` for the chance tally deals."""

    def shuffle(pile: list[str]) -> list[str]:
        rng.shuffle(pile)
        return pile

    return shuffle


# --------------------------------------------------------------------------- a game's start


def start_event(
    game: str, players: list[str], options: dict[str, str], mode: str, manifest: str | dict[str, Any] | None = None,
    seated: Sequence[str] = (),
) -> tuple[GameSpec, GameStarted]:
    """The `game_started` of a new game, checked as the log reader will check it (`GameSpec.check_started`).
    `seated`: the seats that enter their own hidden cards (table mode), each a name of `players` in any case."""
    try:
        spec = registry.get(game)
    except registry.UnknownGame as error:
        raise UsageError(str(error)) from None
    if mode not in spec.modes:
        raise UsageError(f"unknown mode {quote(mode)}; expected one of {', '.join(spec.modes)}")
    problems = spec.check_options(options)  # unknown options first: resolving would silently drop them
    if problems:
        raise UsageError("; ".join(problems))
    started = GameStarted(
        game=spec.name,
        rules=spec.rules_version,
        seats=list(players),
        mode=cast(Mode, mode),  # checked against spec.modes above
        options=spec.resolved_options(options),
        manifest=spec.manifest if manifest is None else manifest,
        seated=[seat_named(name, list(players)) or name for name in seated],
    )
    problems = spec.check_started(started)
    if problems:
        raise UsageError("; ".join(problems))
    return spec, started


def seat_moves(spec: GameSpec, state: Any, viewer: str | None) -> list[Event]:
    """The legal moves now as `viewer` knows the table (the game's `conceal`: another seat's hidden cards
    unknown), less the table's entries that would name another seat's hidden component (`secrecy.listed_for`);
    None: every legal move, as the log knows the table."""
    if viewer is None:
        return spec.legal_moves(state)
    return listed_for(spec, spec.conceal(state, viewer), viewer)


def describe_start(started: GameStarted) -> str:
    options = " ".join(f"{k}={v}" for k, v in started.options.items())
    return f"{started.game} ({started.mode} mode, rules {started.rules}) for {', '.join(started.seats)}; {options}"


# --------------------------------------------------------------------------- reading a log


def judged(log: logfile.Log, events: list[Event] | None = None) -> Table:
    """The log (or its first `events`) judged event by event and folded; IllegalLog at the first illegal one."""
    judgement, table = judge(log.spec, log.events if events is None else events)
    if not judgement.ok:
        raise IllegalLog(log.path, judgement.failed_seq or 0, judgement.rulings[0])
    return table


def position(path: "Path | str | logstore.LogStore", at: int | None = None) -> Position:
    """The log (a file, or a game of a log store) folded up to `at` (default: the end). Raises LogError or IllegalLog."""
    log = logstore.read_log(path)
    events = log.events
    if at is not None:
        if not 1 <= at <= len(events):
            raise UsageError(f"--at {at}: the log has events 1..{len(events)}")
        events = events[:at]
    return Position(log, judged(log, events), events[-1].seq)


def replay_log(log: logfile.Log, to: int | None = None) -> tuple[Position, list[Frame]]:
    """Every event up to `to` with the state after it, for a log already read and verified (from a file,
    or from the history library). A log with an illegal event raises IllegalLog."""
    if to is not None and not 1 <= to <= len(log.events):
        raise UsageError(f"--to {to}: the log has events 1..{len(log.events)}")
    events = log.events if to is None else log.events[:to]
    spec = log.spec
    voided = {e.target for e in events if isinstance(e, (Voided, Amended))}
    kept: list[tuple[Event, Any, Any]] = []
    judgement, table = judge(spec, events, kept=kept)
    if not judgement.ok:
        first = next(r for r in judgement.rulings if r.verdict == "illegal")
        raise IllegalLog(log.path, judgement.failed_seq or 0, first)
    start = kept[0][1] if kept else Table(spec, log.started).state  # the state the fold began with
    frames = [Frame(1, None, start, told=describe_start(log.started))]
    frames += [Frame(event.seq, event, after, event.seq in voided, spec, before) for event, before, after in kept]
    return Position(log, table, events[-1].seq), frames


def _differs(table: Table, known: MoveResult, result: MoveResult) -> bool:
    """Whether a seat's move, read on the whole table, is other events than on the table as the seat knows it (in
    table mode, where nothing is dealt after it): then what the seat meant is not what would be recorded."""
    if table.started.mode != "table":
        return False
    strip = {"seq": 0, "at": "", "prev": None, "unit": 1}
    return [msgspec.structs.replace(e, **strip) for e in known.events] != \
        [msgspec.structs.replace(e, **strip) for e in result.events]


def stale(record: "GameRecord", text: str, seen: str) -> MoveResult:
    """The refusal of an append whose caller saw the log at `seen`, not where it is now."""
    table = record.fold
    return stale_at(record.path, table.spec, table.state, (table.last_seq, record.last_hash), text, seen)


# --------------------------------------------------------------------------- the service


def _refusing_stale(word: str | None) -> Callable[[Callable[..., MoveResult]], Callable[..., MoveResult]]:
    """An append that lost the race at the store (`StaleAppend`: another writer took the seq it wrote after)
    is refused as stale, like one whose caller saw an older seq; `word` None: the move's text is the first argument."""
    import functools

    def decorate(method: Callable[..., MoveResult]) -> Callable[..., MoveResult]:
        @functools.wraps(method)
        def refusing(record: "GameRecord", *args: Any, **kwargs: Any) -> MoveResult:
            try:
                return method(record, *args, **kwargs)
            except StaleAppend as error:
                return stale(record, word or str(args[0] if args else kwargs["text"]), f"#{error.seq}")

        return refusing

    return decorate


class GameRecord:
    """One game's log and its fold in memory: open, new, propose, append, undo, note, correct and the
    events after a seq (the listing, the board, replay frames and check are read from it by `results`). Every write takes the log's writer lock and brings the
    fold up to the file first, so two processes (or a session and a command) never judge against a
    table the other has moved on from; an append that names what its caller saw (`expect_seq`,
    `expect_fingerprint`) is refused as stale when the log is no longer there."""

    def __init__(self, path: "Path | str | logstore.LogStore"):
        self.store = logstore.store_for(path)  # a path is a JSONL file
        self.path = self.store.name
        self._table: Table | None = None
        self.last_hash = ""
        self.last_line = 0
        self.identity: Any = None
        self.complete = False  # the fold holds the undo history (judged from the log, not resumed from the cache)
        self.conflicts: list[Conflict] = []  # the newest seats' moves refused as `core.seat.conflict`, for the host
        self.conflicts_ever = 0  # how many there were, kept or not: what a host's stream watches

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: "Path | str | logstore.LogStore") -> "GameRecord":
        """The log read and judged in full, under the writer's lock (a write in between would pair an old
        fold with the new file)."""
        record = cls(path)
        record.reload()
        return record

    @classmethod
    def new(
        cls,
        path: "Path | str | logstore.LogStore",
        game: str,
        players: list[str],
        options: dict[str, str] | None = None,
        mode: str | None = None,
        seed: int | None = None,
        manifest: str | dict[str, Any] | None = None,
        seated: Sequence[str] = (),
    ) -> MoveResult:
        """Start a log. `table` mode (the default) waits for the setup to be revealed; `open` (or a seed)
        deals it. `manifest`: a manifest id the game knows, or an inline manifest; default: the game's own.
        `seated`: the seats that enter their own hidden cards (`tally new --as`), table mode only."""
        if mode is None:
            mode = "open" if seed is not None else "table"
        if mode == "table" and seed is not None:
            raise UsageError("--seed deals the setup, which needs --mode open (in table mode the recorder reveals it)")
        if seated and mode != "table":
            raise UsageError("--as: a seat enters its own hidden cards in table mode; in open mode tally deals them all")
        spec, started = start_event(game, players, options or {}, mode, manifest, seated)
        table = Table(spec, msgspec.structs.replace(started, seq=1))
        begun = table.state
        played = Played()
        if mode == "open":
            import random

            table.deal(shuffler(random.Random(seed)), played)  # no seed: the OS picks one
        dealt = salted(spec, started.seats, begun, played.events)  # the deal holds the piles' order
        try:
            stamped, fingerprint = logstore.store_for(path).create([table.started, *dealt])
        except UnicodeEncodeError:  # names are checked above; a manifest given to the Python API may still hold one
            raise UsageError("the start is not valid Unicode (it holds a lone surrogate), so it cannot be recorded") from None
        return MoveResult(True, "new", stamped, [], None, fingerprint, spec.to_act(table.state),
                          path=logstore.name_of(path))

    def reload(self) -> None:
        with self.store.writer() as locked:
            self._read(locked)

    def _read(self, locked: logstore.LogWriter) -> None:
        log = locked.read()
        self._table = judged(log)
        self.last_hash, self.last_line, self.complete = log.last_hash, log.last_line, True
        self.identity = locked.identity()
        locked.remember(log.started, self._table.last_seq, log.last_hash, log.last_line, self._table.state)

    def _sync(self, locked: logstore.LogWriter, history: bool) -> Table:
        """The fold at the log's tail: kept when the file is as this record last saw it, else from the cache
        when it can be trusted (and no undo history is needed), else by judging the whole log."""
        identity = locked.identity()
        if self._table is not None and identity == self.identity and (self.complete or not history):
            return self._table
        cached = None if history else locked.cached(registry.get)
        if cached is None:
            self._read(locked)
        else:
            spec, started, state, entry = cached
            self._table = Table.resume(spec, started, state, entry.last_seq)
            self.last_hash, self.last_line, self.complete, self.identity = entry.last_hash, entry.last_line, False, identity
        assert self._table is not None
        return self._table

    @property
    def fold(self) -> Table:
        if self._table is None:
            self.reload()
        assert self._table is not None
        return self._table

    @property
    def spec(self) -> GameSpec:
        return self.fold.spec

    @property
    def state(self) -> Any:
        return self.fold.state

    @property
    def seq(self) -> int:
        return self.fold.last_seq

    def changed(self) -> bool:
        """Whether the log is no longer what this record last read or wrote (another process wrote to it)."""
        identity = self.store.identity()
        return identity is None or identity != self.identity

    # ------------------------------------------------------------------ acting

    def propose(self, text: str, viewer: str | None = None) -> MoveResult:
        """A ruling on `text` against the fold in memory, recording nothing. `viewer` (a seat, or `secrecy.WATCHER`):
        judged on the table as that caller knows it (the game's `conceal`), its own moves as every other seat's, and
        a move number read against that caller's listing: the answer never rests on a card the caller cannot see
        (where a verdict would, it is unverifiable), so no question can find one out."""
        table = self.fold
        reading = None
        if viewer is not None:
            table = self._known_to(table, viewer)
            reading = seat_reading(table, viewer, own=False)
        result = propose(table.spec, table, text, reading)
        result.path = self.path
        return result

    @staticmethod
    def _known_to(table: Table, seat: str) -> Table:
        """The fold's table as `seat` knows it: every other seat's hidden cards unknown (the game's `conceal`)."""
        return Table.resume(table.spec, table.started, known_to(table.spec, table.state, seat), table.last_seq)

    def _as_seat(self, result: MoveResult, known: MoveResult, before: Any, table: Table, seat: str) -> MoveResult:
        """What a seat is answered of its move, recorded: the events as it may read them, and what the referee said
        judging it on the seat's own knowledge (`known`), never what it said with every seat's cards."""
        spec = table.spec
        readable = may_read(spec, before, list(result.events), seat)
        result.lines = [describe(spec, event) if shown else hidden_text(event)
                        for event, shown in zip(result.events, readable)]
        result.rulings, result.consequences = known.rulings, known.consequences
        seen = spec.conceal(table.state, seat)
        result.to_act, result.ending = spec.to_act(seen), spec.outcome(seen)
        return result

    def _conflict(self, seat: str, text: str, refused: MoveResult, table: Table) -> MoveResult:
        """A seat's move that the whole table forbids though the seat's own knowledge allows it: kept for the host,
        answered to the seat in words that name nothing (`core.seat.conflict`)."""
        self.conflicts.append(Conflict(seat, text, table.last_seq, list(refused.rulings)))
        del self.conflicts[:-CONFLICTS_KEPT]
        self.conflicts_ever += 1
        return conflict_refusal(text, table.last_seq + 1, table.spec.to_act(table.spec.conceal(table.state, seat)), self.path)

    def _is_stale(self, expect_seq: int | None, expect_fingerprint: str | None) -> str | None:
        """What the caller saw, in words, when it is not where the log is now; None when it is."""
        if expect_seq is not None and expect_seq != self.seq:
            return f"#{expect_seq}"
        # a prefix, as written down at the table (`tally check --expect` takes the same)
        if expect_fingerprint is not None and not self.last_hash.startswith(expect_fingerprint.lower()):
            return f"fingerprint {expect_fingerprint}"
        return None

    @_refusing_stale(None)
    def append(
        self,
        text: str,
        expect_seq: int | None = None,
        expect_fingerprint: str | None = None,
        as_listed: bool = False,
        history: bool = False,
        seat: str | None = None,
    ) -> MoveResult:
        """Judge the move(s) `text` against the fold at the log's tail and append them only if legal.

        In open mode, chance the move makes due (a new round's deal, say) is dealt by tally and appended in
        the same write, after the move. `as_listed`: a move number is resolved against the listing
        `moves()` last remembered for this log, refused as stale when the log has moved on since.

        `seat`: the move comes from that seat's device (`tally serve`), which may know only its own hidden cards.
        It is read as that seat's (its listing's numbers, its own moves and the table's entries only: `Reading`)
        and judged first on the table as the seat knows it; what that refuses is the answer. A move legal there is
        judged again with every seat's entries; refused then, it contradicts another seat's hidden card (someone
        mistyped): the seat is told so in words that name nothing (`core.seat.conflict`) and the host sees it
        (`conflicts`). So every answer a seat gets rests on what it knows, but for that one conflict."""
        with self.store.writer() as locked:
            table = self._sync(locked, history)
            parts = MOVE_SEPARATOR.split(text.strip())
            if as_listed and is_move_number(parts[0]):
                refused = self._check_listing(parts[0], text)
                if refused is not None:
                    return refused
            seen = self._is_stale(expect_seq, expect_fingerprint)
            if seen is not None:
                return stale(self, text, seen)
            known: MoveResult | None = None
            judged_text = text
            if seat is not None:
                reading = seat_reading(table, seat)
                known = propose(table.spec, self._known_to(table, seat), text, reading)
                known.path = self.path
                if not known.accepted:
                    return known
                judged_text = " + ".join(reading.read)
            before = table.snapshot()
            result = play(table, judged_text, fresh_shuffle())
            result.text, result.path = text, self.path
            if known is not None and (not result.accepted or _differs(table, known, result)):
                table.restore(before)
                assert seat is not None
                return self._conflict(seat, text, result, table)
            if not result.accepted:
                table.restore(before)
                result.to_act = table.spec.to_act(table.state)  # the real table's, not the parts' before the refusal
                return result
            appended = self._write(locked, table, before, result.events)
            result.events, result.fingerprint = appended.events, appended.fingerprint
            if known is not None and seat is not None:
                return self._as_seat(result, known, before[0], table, seat)
            return result

    def _check_listing(self, word: str, text: str) -> MoveResult | None:
        return listing_refusal(self.path, self.spec, self.state, (self.seq, self.last_hash), word, text)

    def _write(self, locked: logstore.LogWriter, table: Table, before: Any, events: list[Event]) -> logfile.Appended:
        """Append the events already applied to `table` in one write and keep the cache warm; on a failed
        write the table goes back to `before`."""
        try:
            written = salted(table.spec, table.started.seats, before[0], events)
            appended = locked.append(events[0].seq - 1, self.last_hash, written)
        except UnicodeEncodeError:  # a lone surrogate in text given to the Python API: nothing was written
            table.restore(before)
            raise UsageError("the text is not valid Unicode (it holds a lone surrogate), so it cannot be recorded") from None
        except StaleAppend:  # another writer got there first: judge again from the log next time
            table.restore(before)
            self._table = None
            raise
        except BaseException:
            table.restore(before)
            raise
        self.last_hash, self.last_line = appended.fingerprint, appended.last_line
        self.identity = locked.identity()
        locked.remember(table.started, table.last_seq, appended.fingerprint, appended.last_line, table.state)
        return appended

    def _seat_may_correct(self, table: Table, target: int, seat: str) -> Ruling | None:
        """A seat takes back or corrects only its own events, and the table's entries it could read (a deal that
        named other seats' hands is the host's to correct); None when it may, or when the kernel refuses anyway."""
        event = table.effective_event(target)
        if event is None:
            return None
        player = getattr(event, "player", None)
        if player == seat:
            return None
        if player is None:
            before, after = table.state_before(target), table.state_after(target)
            if may_read(table.spec, before, [event], seat)[0] and after is not None:
                return None
            whose = "a table's entry it cannot read"
        else:
            whose = f"{player}'s"
        return illegal(SEAT_OTHER, f"{seat} takes back or corrects only their own moves and the table's entries they "
                       f"saw, not #{target} ({whose}); the host can", seat=seat, target=target)

    @_refusing_stale("undo")
    def undo(
        self, reason: str, turn: bool = False, expect_seq: int | None = None, expect_fingerprint: str | None = None,
        seat: str | None = None,
    ) -> MoveResult:
        """Void the last effective event, or with `turn` every event of the last turn, newest first
        (append-only: the voided lines stay in the log). `seat`: asked from that seat's device, which takes back
        only its own events and the table's entries it saw (`core.seat.other`)."""
        if not reason.strip():
            raise UsageError("an undo must say why the event is voided (the reason is kept in the log)")
        with self.store.writer() as locked:
            table = self._sync(locked, history=True)
            seen = self._is_stale(expect_seq, expect_fingerprint)
            if seen is not None:
                return stale(self, "undo", seen)
            spec = table.spec
            before = table.snapshot()
            played = Played()
            lines: list[str] = []  # each voided event in notation
            for target in (table.last_turn() if turn else [table.last_effective_seq or 0]) or [0]:
                proposed = Voided(target=target, reason=reason)
                victim = table.last_effective_event
                refused = None if seat is None else self._seat_may_correct(table, target, seat)
                if refused is not None or not table.take(proposed, played):
                    table.restore(before)
                    return MoveResult(False, "undo", [proposed], [refused] if refused else played.refused,
                                      to_act=spec.to_act(table.state), seq=played.refused_seq or table.last_seq + 1,
                                      path=self.path)
                assert victim is not None  # a void is legal only when there is an effective event to take back
                lines.append(f"void #{target}: {describe(spec, victim)} ({reason})")
            appended = self._write(locked, table, before, played.events)
            return MoveResult(True, "undo", appended.events, played.rulings, None, appended.fingerprint,
                              spec.to_act(table.state), lines, appended.events[0].seq, self.path)

    @_refusing_stale("amend")
    def correct(
        self, target: int, reason: str, move: str | None = None, expect_seq: int | None = None,
        expect_fingerprint: str | None = None, seat: str | None = None,
    ) -> MoveResult:
        """Void the effective event `target` (any, not only the last), or with `move` replace it by the events
        of that move (read at the position before `target`). Appends an `amended` correction (a plain
        `voided` when the last effective event is voided); refused, appending nothing, when an event after
        `target` would become illegal (the ruling names the first one).

        `seat`: asked from that seat's device. It corrects only its own events and the table's entries it saw, the
        replacement is read and held as its move would be (`Reading`), and a refusal is judged again on what the
        seat knows: what that finds is the answer, else the correction contradicts another seat's hidden cards
        (`core.seat.conflict`, as a move's)."""
        if not reason.strip():
            raise UsageError("a correction must say why (the reason is kept in the log)")
        word = "undo" if move is None else "amend"
        with self.store.writer() as locked:
            table = self._sync(locked, history=True)
            seen = self._is_stale(expect_seq, expect_fingerprint)
            if seen is not None:
                return stale(self, word, seen)
            spec = table.spec
            seq = table.last_seq + 1
            victim = table.effective_event(target)
            refused = None if seat is None else self._seat_may_correct(table, target, seat)
            if refused is not None:
                return MoveResult(False, word, [], [refused], to_act=spec.to_act(table.state), seq=seq, path=self.path)
            proposed: Event
            if move is None and target == table.last_effective_seq:
                proposed = Voided(seq=seq, target=target, reason=reason)
            else:
                replacement: list[Event] = []
                before_target = table.state_before(target)
                if move is not None and before_target is not None:
                    if seat is None:
                        parsed = read_correction(spec, before_target, move)
                    else:
                        parsed = read_correction(spec, known_to(spec, before_target, seat), move, seat_reading(table, seat))
                    if isinstance(parsed, NotationError):
                        return MoveResult(False, move, notation=parsed, seq=target, to_act=spec.to_act(table.state),
                                          path=self.path)
                    if isinstance(parsed, Ruling):
                        return MoveResult(False, move, [], [parsed], seq=target, to_act=spec.to_act(table.state),
                                          path=self.path)
                    replacement = parsed
                proposed = Amended(seq=seq, target=target, reason=reason, events=[payload(e) for e in replacement])
            before = table.snapshot()
            played = Played()
            if not table.take(proposed, played):
                table.restore(before)
                if seat is not None and isinstance(proposed, Amended):
                    return self._correction_refused_as_known(table, proposed, word, seat, played.refused)
                return MoveResult(False, word, [proposed], played.refused, to_act=spec.to_act(table.state),
                                  seq=played.refused_seq, path=self.path)
            assert victim is not None  # a correction is legal only of an effective event
            line = f"void #{target}: {describe(spec, victim)}"
            if isinstance(proposed, Amended) and proposed.events:
                replaced = table.replacement(proposed)
                shown = "; ".join(describe(spec, e) for e in replaced) if isinstance(replaced, list) else ""
                line = f"amend #{target}: {describe(spec, victim)} -> {shown}"
            appended = self._write(locked, table, before, played.events)
            seen_table = table.state if seat is None else spec.conceal(table.state, seat)
            return MoveResult(True, word, appended.events, played.rulings, None, appended.fingerprint,
                              spec.to_act(seen_table), [f"{line} ({reason})"], appended.events[0].seq, self.path)

    def _correction_refused_as_known(self, table: Table, proposed: Amended, word: str, seat: str,
                                     rulings: list[Ruling]) -> MoveResult:
        """A seat's correction that the whole table refuses, judged again on what the seat knows: the replacement
        and each later event it may read, on the corrected table as the seat knows it. The first that knowledge
        forbids is the answer; when none, the correction contradicts another seat's hidden cards."""
        spec = table.spec
        for seq, state, event in table.correction_steps(proposed):
            later = None if seq == proposed.seq else seq
            if later is not None and not may_read(spec, table.state_before(seq), [event], seat)[0]:
                continue
            refused = [r for r in spec.check(known_to(spec, state, seat), event) if r.verdict == "illegal"]
            if refused:
                ruling = correction_refused(proposed.target, refused[0], later)
                return MoveResult(False, word, [proposed], [ruling], to_act=spec.to_act(spec.conceal(table.state, seat)),
                                  seq=proposed.seq, path=self.path)
        return self._conflict(seat, word, MoveResult(False, word, [proposed], rulings), table)

    @_refusing_stale("note")
    def note(
        self, text: str, player: str | None = None, expect_seq: int | None = None, expect_fingerprint: str | None = None
    ) -> MoveResult:
        """A free remark for the record; it changes nothing in the game."""
        with self.store.writer() as locked:
            table = self._sync(locked, history=False)
            if player is not None:
                named = seat_named(player, table.started.seats)
                if named is None:
                    raise UsageError(f"no player {quote(player)} in this game (players: {', '.join(table.started.seats)})")
                player = named
            seen = self._is_stale(expect_seq, expect_fingerprint)
            if seen is not None:
                return stale(self, "note", seen)
            before = table.snapshot()
            event = table.advance(Noted(text=text, player=player))
            appended = self._write(locked, table, before, [event])
            return MoveResult(True, "note", appended.events, [], None, appended.fingerprint, table.spec.to_act(table.state),
                              [describe(table.spec, appended.events[0])], appended.events[0].seq, self.path)

    # ------------------------------------------------------------------ following

    def events_after(self, seq: int) -> list[Event]:
        """The events recorded after `seq` (a reader that saw the log up to `seq` catches up)."""
        return self.store.events_after(seq)

    def wait_after(self, seq: int, timeout: float) -> list[Event]:
        """The events after `seq`, waiting up to `timeout` seconds for the first one (empty if none came):
        a file is looked at every 50 ms, a database game wakes on its NOTIFY."""
        return self.store.wait_after(seq, timeout)
