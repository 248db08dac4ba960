"""The record service: one game's log and its fold, the one API every interface calls.

`tally move`, `undo` and `note`, the recording session (`store/recording/session.py`) and whatever serves a table
of devices later all go through `GameRecord`: under the log's writer lock it brings its fold up to the
file (from the state cache when it can be trusted), refuses a stale append (`core.append.stale`: the
caller saw another seq or fingerprint), judges the move against the fold and applies it there once
(`core.engine.Table.take`), deals the chance an open game makes due, and appends in one write. Narration,
who acts next and the outcome are read off that one fold. A rejected input appends nothing and leaves
the fold as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Protocol, Sequence, cast

import msgspec

from tally.core import registry
from tally.core.engine import Played, Table, correction_refused, judge
from tally.core.model import Amended, Event, GameSpec, GameStarted, NotationError, Noted, Ruling, Voided, illegal
from tally.core.notation import seat_named
from tally.core.text import quote
from tally.store.errors import IllegalLog, StaleAppend, UsageError  # noqa: F401  (the service's names, as callers import them)
from tally.store.logs import log as logfile
from tally.store.logs import logstore
from tally.store.recording.corrections import Correction, is_own, last_own, whose
from tally.store.recording.judging import (  # noqa: F401  (re-exported: the service's names, as callers import them from here)
    MOVE_SEPARATOR,
    SEAT_AS_MADE,
    SEAT_CONFLICT,
    SEAT_OTHER,
    STALE,
    Listing,
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
from tally.store.recording.secrecy import hidden_text, known_to, listed_for, may_read, salted, seat_listing

if TYPE_CHECKING:
    import random

Mode = Literal["open", "table"]


Follower = Callable[[list[tuple[Event, Any, Any]], bool], None]  # (steps taken on, whether the log was replaced)


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


def conflict_refusal(text: str, seq: int) -> MoveResult:
    """What a seat is told of its move that another seat's entries forbid: the same words whatever they are."""
    ruling = illegal(
        SEAT_CONFLICT,
        "this contradicts what another seat entered (or tally dealt), which you cannot see: "
        "a card cannot be in two places, so one of you mistyped; nothing was recorded, and the host can see "
        "both entries",
    )
    return MoveResult(accepted=False, text=text, rulings=[ruling], seq=seq)


def shuffler(rng: "random.Random") -> Callable[[list[str]], list[str]]:
    """A pile shuffled by `rng` in place: the engine's `shuffle` for the chance tally deals."""

    def shuffle(pile: list[str]) -> list[str]:
        rng.shuffle(pile)
        return pile

    return shuffle


# --------------------------------------------------------------------------- a game's start


def start_event(
    game: str,
    players: list[str],
    options: dict[str, str],
    mode: str,
    manifest: str | dict[str, Any] | None = None,
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


def judged(
    log: logfile.Log, events: list[Event] | None = None, kept: list[tuple[Event, Any, Any]] | None = None
) -> Table:
    """The log (or its first `events`) judged event by event and folded; IllegalLog at the first illegal one. `kept`:
    each event with the state before and after it appended (`engine.judge`)."""
    judgement, table = judge(log.spec, log.events if events is None else events, kept=kept)
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
    strip = {"seq": 0, "at": "", "prev": None, "unit": 1, "by": None}
    return [msgspec.structs.replace(e, **strip) for e in known.events] != [
        msgspec.structs.replace(e, **strip) for e in result.events
    ]


def stale(record: "GameRecord", text: str, seen: str) -> MoveResult:
    """The refusal of an append whose caller saw the log at `seen`, not where it is now."""
    table = record.fold
    return stale_at(record.path, table.spec, table.state, (table.last_seq, record.last_hash), text, seen)


# --------------------------------------------------------------------------- the service


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
        self.size = 0  # the log's bytes through its last line (where a file's next line begins)
        self.key: str | None = None  # the log's checkpoints (`checkpoints.key_of`), once known
        self.generation = 0  # how many times the fold was read again from a log that was not an extension of it
        self.follower: Follower | None = None  # told of every event the fold takes on (`follow`)
        self.conflicts: list[Conflict] = []  # the newest seats' moves refused as `core.seat.conflict`, for the host
        self.conflicts_ever = 0  # how many there were, kept or not: what a host's stream watches
        self.entered: dict[int, str] = {}  # seq -> the seat whose device entered that line (the envelope's `by`)

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
            raise UsageError(
                "--as: a seat enters its own hidden cards in table mode; in open mode tally deals them all"
            )
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
            raise UsageError(
                "the start is not valid Unicode (it holds a lone surrogate), so it cannot be recorded"
            ) from None
        return MoveResult(
            accepted=True,
            text="new",
            events=stamped,
            fingerprint=fingerprint,
            to_act=spec.to_act(table.state),
            path=logstore.name_of(path),
        )

    @classmethod
    def follow(cls, path: "Path | str | logstore.LogStore", follower: "Follower | None" = None) -> "GameRecord":
        """The log's fold at its tail, for a reader that stays (a server): from the state cache or the latest
        checkpoint (`positions`), judging only the lines after it; the whole log only when neither serves (then it
        leaves checkpoints behind). Its undo history begins there (a void or a correction reaching further back reads
        the log whole). `follower(steps, replaced)` is told of every event the fold takes on from then on."""
        record = cls(path)
        record.follower = follower
        with record.store.writer() as locked:
            record._resume(locked, None)
        return record

    def reload(self) -> None:
        with self.store.writer() as locked:
            self._read(locked)

    def _read(self, locked: logstore.LogWriter) -> None:
        """The whole log read and judged (the fold complete: its undo history from line 1)."""
        old = self._position()
        log = locked.read()
        kept: list[Any] | None = [] if self.follower is not None and old is not None else None
        table = self._table = judged(log, None, kept)
        self.last_hash, self.last_line, self.size, self.complete = log.last_hash, log.last_line, log.size, True
        self.entered = {event.seq: event.by for event in log.events if event.by is not None}
        self.identity = locked.identity()
        locked.remember(log.started, table.last_seq, log.last_hash, log.last_line, table.state)
        if old is not None and kept is not None:
            self._moved_on(old, log.events, kept, log.last_hash)

    def _resume(self, locked: logstore.LogWriter, since: int | None) -> None:
        """The fold at the log's tail from the latest checkpoint (at or before line `since`, when given), its undo
        history from there; the whole log read when that cannot be done (a damaged log: the read says why)."""
        old = self._position()
        if old is None and self._resumed_from_cache(locked):
            return
        from tally.store.recording import positions  # not on `tally move`'s path while the state cache serves

        try:
            reached = positions.reach(locked, since=since)
        except positions.NotClean:
            self._read(locked)
            return
        table = self._table = reached.table
        self.last_hash, self.last_line, self.size, self.complete = (
            reached.line_hash,
            reached.last_line,
            reached.offset,
            False,
        )
        self.key, self.identity = reached.key, locked.identity()
        locked.remember(table.started, table.last_seq, self.last_hash, self.last_line, table.state)
        if old is not None:
            self._moved_on(old, [step[0] for step in reached.steps], reached.steps, reached.line_hash)

    def _resumed_from_cache(self, locked: logstore.LogWriter) -> bool:
        """The fold at the tail from the state cache, when it can be trusted (a file's, written by its last writer)."""
        cached = locked.cached(registry.get)
        if cached is None:
            return False
        spec, started, state, entry = cached
        self._table = Table.resume(spec, started, state, entry.last_seq)
        self.last_hash, self.last_line, self.complete, self.identity = (
            entry.last_hash,
            entry.last_line,
            False,
            locked.identity(),
        )
        self.size = entry.size
        return True

    def _position(self) -> tuple[int, str] | None:
        return None if self._table is None else (self._table.last_seq, self.last_hash)

    def _moved_on(self, old: tuple[int, str], events: list[Event], steps: list[Any], last_hash: str) -> None:
        """The follower told of a fold read again: the steps after what it had (`old`: seq and hash) when the log is an
        extension of it (the line after it names it, or the log still ends with it), else that it was replaced."""
        if self.follower is None:
            return
        seq, line_hash = old
        after = [step for step in steps if step[0].seq > seq]
        following = next((event for event in events if event.seq == seq + 1), None)
        extends = following.prev == line_hash if following is not None else self.seq == seq and last_hash == line_hash
        if extends and (len(after) == self.seq - seq):
            if after:
                self.follower(after, False)
            return
        self.generation += 1
        self.follower([], True)

    def _sync(self, locked: logstore.LogWriter, history: bool) -> Table:
        """The fold at the log's tail: kept when the log is as this record last saw it; else the lines appended since
        read and judged on it; else from the cache when it can be trusted (and no undo history is needed), or a
        checkpoint; else by judging the whole log."""
        identity = locked.identity()
        table = self._table
        if table is not None and (self.complete or not history):
            if identity == self.identity or self._caught_up(locked, table, identity):
                return table
        if history:
            self._read(locked)
        elif self.follower is not None or self._table is not None:
            self._resume(locked, self.seq if self._table is not None else None)
        else:
            self._resume(locked, None)  # the state cache first, a command's usual case
        assert self._table is not None
        return self._table

    def _caught_up(self, locked: logstore.LogWriter, table: Table, identity: Any) -> bool:
        """The lines appended since this record last read or wrote the log, read and judged on its fold (work in
        proportion to them); False, the fold untouched, when the log is no longer an extension of what it read (or is
        damaged, or a correction reaches back before the fold's undo history): the caller reads it again."""
        from tally.store.recording import positions

        seq, line_hash = table.last_seq, self.last_hash
        data = locked.lines_after(seq, self.size)
        try:
            run = logfile.continued(self.path, data, table.spec, seq, line_hash, seats=tuple(table.started.seats))
        except logfile.LogError:
            return False
        positions.Work.read += len(run.events)
        if not run.clean or (not run.events and not locked.ends_at(seq, line_hash, self.size, self.last_line)):
            return False
        before = table.snapshot()
        steps: list[Any] = []
        judgement, _ = judge(table.spec, run.events, kept=steps, start=table)
        positions.Work.judged += len(steps)
        if not judgement.ok:
            table.restore(before)
            return False
        if run.events:
            self.last_hash, self.last_line = run.last_hash, run.last_line
        self.entered.update((event.seq, event.by) for event in run.events if event.by is not None)
        offset = self.size
        self.size += sum(run.sizes)
        self.identity = identity
        locked.remember(table.started, table.last_seq, self.last_hash, self.last_line, table.state)
        if self.key is not None:
            positions.keep_due_steps(self.key, table.started, seq, offset, steps, run.sizes, self.last_hash)
        if steps and self.follower is not None:
            self.follower(steps, False)
        return True

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

    def catch_up(self) -> bool:
        """The fold brought up to the log when another writer changed it: the lines appended since read and judged
        alone (work in proportion to them); a log replaced read again (from a checkpoint). True if it changed."""
        if self._table is not None and not self.changed():
            return False
        with self.store.writer() as locked:
            self._sync(locked, history=False)
        return True

    # ------------------------------------------------------------------ acting

    def propose(self, text: str, viewer: str | None = None) -> MoveResult:
        """A ruling on `text` against the fold in memory, recording nothing. `viewer` (a seat, or `secrecy.WATCHER`):
        judged on the table as that caller knows it (the game's `conceal`), its own moves as every other seat's, and
        a move number read against that caller's listing: the answer never rests on a card the caller cannot see
        (where a verdict would, it is unverifiable), so no question can find one out."""
        table = self.fold
        reading = None
        if viewer is not None:
            table = table_known_to(table, viewer)
            reading = seat_reading(table, viewer, own=False)
        result = propose(table.spec, table, text, reading)
        result.path = self.path
        return result

    def _is_stale(self, expect_seq: int | None, expect_fingerprint: str | None) -> str | None:
        """What the caller saw, in words, when it is not where the log is now; None when it is."""
        if expect_seq is not None and expect_seq != self.seq:
            return f"#{expect_seq}"
        # a prefix, as written down at the table (`tally check --expect` takes the same)
        if expect_fingerprint is not None and not self.last_hash.startswith(expect_fingerprint.lower()):
            return f"fingerprint {expect_fingerprint}"
        return None

    # ------------------------------------------------------------------ writing: one transaction

    def _transaction(
        self,
        word: str,
        seen: tuple[int | None, str | None],
        history: bool,
        act: "Act",
        first: Callable[[Table], MoveResult | None] | None = None,
        write: bool = True,
    ) -> MoveResult:
        """Every write of the log, a move, an undo, a correction or a note, as one transaction. Under the writer's
        lock the fold is brought to the log's tail (`history`: with its undo stack); `first` may refuse before
        anything else (a move number against a listing); a caller that saw another position (`seen`: its seq and
        fingerprint) is refused as stale (`word` names the write then); `act` judges the write on the fold and
        applies it there. A refusal leaves the fold as it was; what `act` applied is appended in one write, every
        line holding a secret salted, and the cache kept warm. An append that lost the race at the store (another
        server took the seq) is refused as stale too. `act.answer`, when given, words the result for its caller
        (a seat's: what it may read), refused or recorded. Every line a seat's act appends names that seat (`by`).
        `write` False: a preview, judged and answered exactly so, the fold put back and nothing appended."""
        try:
            with self.store.writer() as locked:
                table = self._sync(locked, history)
                early = first(table) if first is not None else None
                if early is not None:
                    return early
                stale_at_seen = self._is_stale(*seen)
                if stale_at_seen is not None:
                    return stale(self, word, stale_at_seen)
                before = table.snapshot()
                result = act(table)
                result.path = self.path
                if not result.accepted:
                    table.restore(before)
                elif not write:
                    result.preview = True
                    answered = getattr(act, "answer", None)
                    result = answered(result, before[0], table) if answered is not None else result
                    table.restore(before)
                    return result
                else:
                    appended = self._write(locked, table, before, result.events, getattr(act, "seat", None))
                    result.events, result.fingerprint = appended.events, appended.fingerprint
                    self._told(before[0], appended.events, result.states)
                answer = getattr(act, "answer", None)
                return answer(result, before[0], table) if answer is not None else result
        except StaleAppend as error:
            return stale(self, word, f"#{error.seq}")

    def _write(
        self, locked: logstore.LogWriter, table: Table, before: Any, events: list[Event], by: str | None = None
    ) -> logfile.Appended:
        """Append the events already applied to `table` in one write (each naming `by`, the seat whose device
        entered it, when one did) and keep the cache warm; on a failed write the table goes back to `before`."""
        if by is not None:
            events = [msgspec.structs.replace(event, by=by) for event in events]
        try:
            written = salted(table.spec, table.started.seats, before[0], events)
            appended = locked.append(events[0].seq - 1, self.last_hash, written)
        except UnicodeEncodeError:  # a lone surrogate in text given to the Python API: nothing was written
            table.restore(before)
            raise UsageError(
                "the text is not valid Unicode (it holds a lone surrogate), so it cannot be recorded"
            ) from None
        except StaleAppend:  # another writer got there first: judge again from the log next time
            table.restore(before)
            self._table = None
            raise
        except BaseException:
            table.restore(before)
            raise
        self.last_hash, self.last_line = appended.fingerprint, appended.last_line
        if by is not None:
            self.entered.update((event.seq, by) for event in appended.events)
        self.size += sum(appended.sizes)
        self.identity = locked.identity()
        locked.remember(table.started, table.last_seq, appended.fingerprint, appended.last_line, table.state)
        from tally.store.logs import checkpoints  # not on the path of a command that writes nothing (1 M instructions)

        if checkpoints.is_due(appended.events[0].seq, appended.events[-1].seq):
            checkpoints.save(
                self._key(locked),
                table.last_seq,
                appended.fingerprint,
                self.size,
                appended.last_line,
                table.started,
                table.state,
            )
        return appended

    def _key(self, locked: logstore.LogWriter) -> str:
        """The log's checkpoints' key (its first line's hash), read once."""
        if self.key is None:
            from tally.store.logs import checkpoints

            self.key = checkpoints.key_of(logfile.sha256_hex(locked.first_line()))
        return self.key

    def _told(self, before: Any, events: list[Event], states: list[Any]) -> None:
        """The follower told of the events this record just appended, with the state before and after each."""
        if self.follower is None:
            return
        if len(states) != len(events):  # pragma: no cover - every accepted write gives the state after each event
            self.generation += 1
            self.follower([], True)
            return
        self.follower(list(zip(events, [before, *states[:-1]], states)), False)

    # ------------------------------------------------------------------ the writes

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
        word = MOVE_SEPARATOR.split(text.strip())[0]

        def listed(table: Table) -> MoveResult | None:
            return listing_refusal(self.path, table.spec, table.state, (table.last_seq, self.last_hash), word, text)

        first = listed if as_listed and is_move_number(word) else None
        act = _Move(self, text) if seat is None else _SeatMove(self, text, seat)
        return self._transaction(text, (expect_seq, expect_fingerprint), history, act, first)

    def undo(
        self,
        reason: str,
        turn: bool = False,
        expect_seq: int | None = None,
        expect_fingerprint: str | None = None,
        seat: str | None = None,
        preview: bool = False,
    ) -> MoveResult:
        """Void the last effective event, or with `turn` every event of the last turn, newest first
        (append-only: the voided lines stay in the log). `seat`: asked from that seat's device, which takes back its
        own last event (its move, or an entry it entered: `corrections.is_own`), not whatever was recorded last;
        when other events came after it, as a correction that they must survive (`correct`), and refused
        (`core.seat.other`) when it has none. `preview`: judged and answered, nothing appended."""
        if not reason.strip():
            raise UsageError("an undo must say why the event is voided (the reason is kept in the log)")

        def act(table: Table) -> MoveResult:
            spec = table.spec
            if seat is not None and not turn:
                own = last_own([(event.seq, event) for event in table.effective], self.entered, seat)
                if own is None:
                    return self._nothing_own(table, seat)
                if own != table.last_effective_seq:
                    return self._corrected(table, own, reason, None, seat, "undo")
            played = Played()
            lines: list[str] = []  # each voided event in notation
            corrections: list[Correction] = []
            for target in (table.last_turn() if turn else [table.last_effective_seq or 0]) or [0]:
                proposed = Voided(target=target, reason=reason)
                victim = table.last_effective_event
                refused = None if seat is None else _seat_may_correct(table, target, seat, self.entered)
                if refused is not None or not table.take(proposed, played):
                    return MoveResult(
                        accepted=False,
                        text="undo",
                        events=[proposed],
                        rulings=[refused] if refused else played.refused,
                        seq=played.refused_seq or table.last_seq + 1,
                    )
                assert victim is not None  # a void is legal only when there is an effective event to take back
                lines.append(f"void #{target}: {describe(spec, victim)} ({reason})")
                corrections.append(
                    Correction(
                        target, describe(spec, victim), [], self.entered.get(target), getattr(victim, "player", None)
                    )
                )
            return MoveResult(
                accepted=True,
                text="undo",
                events=played.events,
                rulings=played.rulings,
                lines=lines,
                seq=played.events[0].seq,
                states=played.states,
                corrections=corrections,
            )

        return self._transaction("undo", (expect_seq, expect_fingerprint), True, _Acted(act, seat), write=not preview)

    def _nothing_own(self, table: Table, seat: str) -> MoveResult:
        """A seat's plain undo when no effective event is its own: refused, naming whose the last one is."""
        last, event = table.last_effective_seq, table.last_effective_event
        if last is None or event is None:  # nothing at all to take back: the kernel's words
            played = Played()
            table.take(Voided(target=0, reason="-"), played)
            return MoveResult(accepted=False, text="undo", rulings=played.refused, seq=table.last_seq + 1)
        ruling = illegal(
            SEAT_OTHER,
            f"{seat} has no move of their own to take back: the last, #{last}, is "
            f"{whose(event, self.entered.get(last))}; the host can",
            seat=seat,
            target=last,
        )
        return MoveResult(accepted=False, text="undo", rulings=[ruling], seq=table.last_seq + 1)

    def correct(
        self,
        target: int,
        reason: str,
        move: str | None = None,
        expect_seq: int | None = None,
        expect_fingerprint: str | None = None,
        seat: str | None = None,
        preview: bool = False,
    ) -> MoveResult:
        """Void the effective event `target` (any, not only the last), or with `move` replace it by the events
        of that move (read at the position before `target`). Appends an `amended` correction (a plain
        `voided` when the last effective event is voided); refused, appending nothing, when an event after
        `target` would become illegal (the ruling names the first one).

        `seat`: asked from that seat's device. It corrects only its own events (its moves and the entries it
        entered), the replacement is read and held as its move would be (`Reading`), and a refusal is judged again on
        what the seat knows: what that finds is the answer, else the correction contradicts another seat's hidden
        cards (`core.seat.conflict`, as a move's). `preview`: judged and answered, nothing appended."""
        if not reason.strip():
            raise UsageError("a correction must say why (the reason is kept in the log)")
        word = "undo" if move is None else "amend"
        return self._transaction(
            word,
            (expect_seq, expect_fingerprint),
            True,
            _Acted(lambda table: self._corrected(table, target, reason, move, seat, word), seat),
            write=not preview,
        )

    def _corrected(
        self, table: Table, target: int, reason: str, move: str | None, seat: str | None, word: str
    ) -> MoveResult:
        """A correction of `target` judged and applied on the fold (`correct`'s act)."""
        spec = table.spec
        seq = table.last_seq + 1
        victim = table.effective_event(target)
        refused = None if seat is None else _seat_may_correct(table, target, seat, self.entered)
        if refused is not None:
            return MoveResult(accepted=False, text=word, rulings=[refused], seq=seq)
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
                    known, reading = known_to(spec, before_target, seat), seat_reading(table, seat)
                    parsed = read_correction(spec, known, move, reading)
                    # an open game's seat corrects by what it can see, as it moves (else a preview would tell it)
                    if isinstance(parsed, list) and table.started.mode == "open":
                        if _names_unseen(spec, known, reading.listing, parsed):
                            return _as_made_refusal(move, target)
                if isinstance(parsed, NotationError):
                    return MoveResult(accepted=False, text=move, notation=parsed, seq=target)
                if isinstance(parsed, Ruling):
                    return MoveResult(accepted=False, text=move, rulings=[parsed], seq=target)
                replacement = parsed
            proposed = Amended(seq=seq, target=target, reason=reason, events=[payload(e) for e in replacement])
        played = Played()
        if not table.take(proposed, played):
            if seat is not None and isinstance(proposed, Amended):
                return self._correction_refused_as_known(table, proposed, word, seat, played.refused)
            return MoveResult(
                accepted=False, text=word, events=[proposed], rulings=played.refused, seq=played.refused_seq
            )
        assert victim is not None  # a correction is legal only of an effective event
        old, new = describe(spec, victim), []
        line = f"void #{target}: {old}"
        if isinstance(proposed, Amended) and proposed.events:
            replaced = table.replacement(proposed)
            new = [describe(spec, e) for e in replaced] if isinstance(replaced, list) else []
            line = f"amend #{target}: {old} -> {'; '.join(new)}"
        return MoveResult(
            accepted=True,
            text=word,
            events=played.events,
            rulings=played.rulings,
            lines=[f"{line} ({reason})"],
            seq=played.events[0].seq,
            states=played.states,
            corrections=[Correction(target, old, new, self.entered.get(target), getattr(victim, "player", None))],
        )

    def _correction_refused_as_known(
        self, table: Table, proposed: Amended, word: str, seat: str, rulings: list[Ruling]
    ) -> MoveResult:
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
                return MoveResult(
                    accepted=False,
                    text=word,
                    events=[proposed],
                    rulings=[correction_refused(proposed.target, refused[0], later)],
                    seq=proposed.seq,
                )
        return self._conflict(seat, word, rulings, table)

    def note(
        self,
        text: str,
        player: str | None = None,
        expect_seq: int | None = None,
        expect_fingerprint: str | None = None,
        seat: str | None = None,
    ) -> MoveResult:
        """A free remark for the record; it changes nothing in the game. `seat`: written from that seat's device."""

        def act(table: Table) -> MoveResult:
            named = player
            if named is not None:
                named = seat_named(named, table.started.seats)
                if named is None:
                    raise UsageError(
                        f"no player {quote(str(player))} in this game (players: {', '.join(table.started.seats)})"
                    )
            event = table.advance(Noted(text=text, player=named))
            return MoveResult(
                accepted=True,
                text="note",
                events=[event],
                lines=[describe(table.spec, event)],
                seq=event.seq,
                states=[table.state],
            )

        return self._transaction("note", (expect_seq, expect_fingerprint), False, _Acted(act, seat))

    def _conflict(self, seat: str, text: str, rulings: list[Ruling], table: Table) -> MoveResult:
        """A seat's move that the whole table forbids though the seat's own knowledge allows it: kept for the host,
        answered to the seat in words that name nothing (`core.seat.conflict`)."""
        self.conflicts.append(Conflict(seat, text, table.last_seq, list(rulings)))
        del self.conflicts[:-CONFLICTS_KEPT]
        self.conflicts_ever += 1
        return conflict_refusal(text, table.last_seq + 1)

    # ------------------------------------------------------------------ following

    def events_after(self, seq: int) -> list[Event]:
        """The events recorded after `seq` (a reader that saw the log up to `seq` catches up)."""
        return self.store.events_after(seq)

    def wait_after(self, seq: int, timeout: float) -> list[Event]:
        """The events after `seq`, waiting up to `timeout` seconds for the first one (empty if none came):
        a file is looked at every 50 ms, a database game wakes on its NOTIFY."""
        return self.store.wait_after(seq, timeout)


# --------------------------------------------------------------------------- what a write does on the fold


class Act(Protocol):
    """A write's work inside `GameRecord._transaction`: judge it on the fold at the log's tail and apply it there,
    returning the result (refused: the transaction puts the fold back). `answer`, when the act has one, words the
    result for its caller once the transaction is over (`before`: the state the write started from)."""

    def __call__(self, table: Table) -> MoveResult: ...


class _Acted:
    """An act from a function; `seat` None: the caller sees the whole table (the host, a terminal), else the result
    is answered as that seat may see it (who acts next on its table)."""

    def __init__(self, act: Callable[[Table], MoveResult], seat: str | None):
        self.act, self.seat = act, seat

    def __call__(self, table: Table) -> MoveResult:
        return self.act(table)

    def answer(self, result: MoveResult, before: Any, table: Table) -> MoveResult:
        shown = table.state if self.seat is None else table.spec.conceal(table.state, self.seat)
        result.to_act = table.spec.to_act(shown)
        return result


class _Move:
    """A move's text played on the fold as the log knows it (the host, a terminal): every part read, judged and
    applied in turn, and the chance an open game makes due dealt in the same write."""

    def __init__(self, record: "GameRecord", text: str):
        self.record, self.text = record, text

    def __call__(self, table: Table) -> MoveResult:
        return play(table, self.text, fresh_shuffle())

    def answer(self, result: MoveResult, before: Any, table: Table) -> MoveResult:
        if not result.accepted:  # who acts at the real table, not at the one the parts before the refusal left
            result.to_act = table.spec.to_act(table.state)
        return result


class _SeatMove(_Move):
    """A seat's move (`GameRecord.append(seat=...)`): read as that seat's and judged on the table as it knows it
    first (`known`); legal there, played on the whole table, where a refusal is a conflict; answered with what the
    seat may read."""

    def __init__(self, record: "GameRecord", text: str, seat: str):
        super().__init__(record, text)
        self.seat = seat
        self.known: MoveResult | None = None

    def __call__(self, table: Table) -> MoveResult:
        seen = table_known_to(table, self.seat)
        reading = seat_reading(table, self.seat)
        known = self.known = propose(table.spec, seen, self.text, reading)
        if not known.accepted and table.started.mode == "open" and len(MOVE_SEPARATOR.split(self.text.strip())) == 1:
            # a move whose whole the seat cannot name (`trade y`) is read on the whole table where every part of it
            # is what it reveals as it is made; taken only where the seat's own table then finds it legal, so that a
            # refusal stays the seat's own answer (a question, a preview or a refused move never shows what the
            # move would have revealed)
            revealing = seat_reading(table, self.seat)
            revealing.truth = table.state
            made = propose(table.spec, seen, self.text, revealing)
            if made.accepted:
                known = self.known = made
                reading = revealing
        elif known.accepted and table.started.mode == "open":
            if _names_unseen(table.spec, seen.state, reading.listing, known.events):
                return _as_made_refusal(self.text, table.last_seq + 1)
        if not known.accepted:
            return known
        result = play(table, " + ".join(reading.read), fresh_shuffle())
        result.text = self.text
        if not result.accepted or _differs(table, known, result):
            return self.record._conflict(self.seat, self.text, result.rulings, table)
        return result

    def answer(self, result: MoveResult, before: Any, table: Table) -> MoveResult:
        spec, seen = table.spec, table.spec.conceal(table.state, self.seat)
        result.to_act = spec.to_act(seen)
        if not result.accepted:
            return result
        assert self.known is not None
        readable = may_read(spec, before, list(result.events), self.seat)
        result.lines = [
            describe(spec, event) if shown else hidden_text(event) for event, shown in zip(result.events, readable)
        ]
        result.rulings, result.consequences = self.known.rulings, self.known.consequences
        result.ending = spec.outcome(seen)
        return result


def _names_unseen(spec: GameSpec, known: Any, listing: Listing, events: list[Event]) -> bool:
    """Whether a seat's own reading (an open game, on the table as it knows it: `known`) names what only the move
    itself shows the table (`GameSpec.is_revealed_as_made`) where its listing does not offer it so (`trade y with
    ben`, where it offers `trade y`): the seat named what it cannot see."""
    revealed = [event for event in events if spec.is_revealed_as_made(event)]
    if not revealed:
        return False
    offered = {spec.format(move) for move in listing(known)}
    return any(spec.format(event) not in offered for event in revealed)


def _as_made_refusal(text: str, seq: int) -> MoveResult:
    """The refusal of a seat's move that named what only the move shows the table: the same whether it was right."""
    ruling = illegal(
        SEAT_AS_MADE,
        "in an open game tally knows what this move shows the table: enter it as your moves list it, without naming "
        "what you cannot see (a trade: the colour alone)",
        move=text,
    )
    return MoveResult(accepted=False, text=text, rulings=[ruling], seq=seq)


def table_known_to(table: Table, seat: str) -> Table:
    """The fold's table as `seat` knows it (`secrecy.known_to`): every other seat's hidden cards unknown."""
    return Table.resume(table.spec, table.started, known_to(table.spec, table.state, seat), table.last_seq)


def _seat_may_correct(table: Table, target: int, seat: str, entered: dict[int, str]) -> Ruling | None:
    """A seat takes back or corrects only its own events: its moves, and the table's entries its device entered
    (`entered`: the envelope's `by`); None when it may, or when the kernel refuses anyway."""
    event = table.effective_event(target)
    if event is None:
        return None
    by = entered.get(target)
    if is_own(event, by, seat):
        return None
    return illegal(
        SEAT_OTHER,
        f"{seat} takes back or corrects only their own moves and the entries they entered, not "
        f"#{target} ({whose(event, by)}); the host can",
        seat=seat,
        target=target,
    )
