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

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, cast

import msgspec

from tally.core import registry
from tally.core.engine import Played, Table, judge
from tally.core.model import Event, GameSpec, GameStarted, NotationError, Noted, Ruling, Voided, illegal
from tally.core.model import Outcome as GameOutcome
from tally.core.notation import read_count, seat_named
from tally.core.text import quote

from . import cache
from . import log as logfile

if TYPE_CHECKING:
    import random

Mode = Literal["open", "table"]
STALE = "core.append.stale"  # the ruling id of an append whose caller saw an older log


class UsageError(Exception):
    """Bad arguments (exit code 2)."""

    rule = "core.usage"


class IllegalLog(Exception):
    """The log itself holds an event that a rule forbids (exit code 1): nothing is appended to it."""

    def __init__(self, path: str, seq: int, ruling: Ruling):
        self.path, self.seq, self.ruling = path, seq, ruling
        super().__init__(f"{path}:{seq}: the log already holds an illegal event: {ruling.render()}")


class MoveResult(msgspec.Struct):
    """What happened to a proposed move, undo or note: accepted (and appended, unless it was only a
    question) or not, with everything an interface shows of it."""

    accepted: bool
    text: str
    events: list[Event] = []
    rulings: list[Ruling] = []
    notation: NotationError | None = None
    fingerprint: str | None = None
    to_act: tuple[str, str] = ("", "")
    lines: list[str] = []  # each event in notation
    seq: int = 0  # where the move stands (or would stand) in the log; for a refusal, the refused part
    path: str = ""
    consequences: list[str] = []  # what followed without being an event: a noble's visit, the end of a round
    ending: GameOutcome | None = None  # the game's outcome when the move ended it

    @property
    def messages(self) -> list[str]:
        if self.notation is not None:
            return [self.notation.render()]
        return [r.render() for r in self.rulings]

    @property
    def notation_kind(self) -> str | None:
        """For a move that cannot be read: `invalid`, `ambiguous` or `unknown` (the notation error's kind)."""
        return None if self.notation is None else self.notation.kind

    @property
    def is_stale(self) -> bool:
        return not self.accepted and any(r.rule == STALE for r in self.rulings)


class Position(msgspec.Struct):
    """A log folded up to some seq: the table (fold) and the events that built it."""

    log: logfile.Log
    table: Any
    seq: int

    @property
    def spec(self) -> GameSpec:
        return self.log.spec


class Frame(msgspec.Struct):
    """One step of a replay: the event, who did it, what it said in notation, and the state after."""

    seq: int
    type: str
    text: str
    state: Any
    voided: bool = False


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def shuffler(rng: "random.Random") -> Callable[[list[str]], list[str]]:
    """A pile shuffled by `rng` in place: the engine's `shuffle` for the chance tally deals."""

    def shuffle(pile: list[str]) -> list[str]:
        rng.shuffle(pile)
        return pile

    return shuffle


def _fresh_shuffle() -> Callable[[list[str]], list[str]]:
    """A shuffle seeded by the OS (the deal it produces is what gets recorded), made on first use: most
    moves deal nothing, and `tally move` should not pay for `random` then."""
    rng: Any = None

    def shuffle(pile: list[str]) -> list[str]:
        nonlocal rng
        if rng is None:
            import random

            rng = random.Random()
        rng.shuffle(pile)
        return pile

    return shuffle


# --------------------------------------------------------------------------- a game's start


def start_event(
    game: str, players: list[str], options: dict[str, str], mode: str, manifest: str | dict[str, Any] | None = None
) -> tuple[GameSpec, GameStarted]:
    """The `game_started` of a new game, checked as the log reader will check it (`GameSpec.check_started`)."""
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
    )
    problems = spec.check_started(started)
    if problems:
        raise UsageError("; ".join(problems))
    return spec, started


def describe_start(started: GameStarted) -> str:
    options = " ".join(f"{k}={v}" for k, v in started.options.items())
    return f"{started.game} ({started.mode} mode, rules {started.rules}) for {', '.join(started.seats)}; {options}"


def describe(spec: GameSpec, event: Event) -> str:
    if isinstance(event, Voided):
        return f"void #{event.target}: {event.reason}"
    if isinstance(event, Noted):
        return f"note: {event.text}"
    return spec.format(event)


# --------------------------------------------------------------------------- reading a log


def judged(log: logfile.Log, events: list[Event] | None = None) -> Table:
    """The log (or its first `events`) judged event by event and folded; IllegalLog at the first illegal one."""
    judgement, table = judge(log.spec, log.events if events is None else events)
    if not judgement.ok:
        raise IllegalLog(log.path, judgement.failed_seq or 0, judgement.rulings[0])
    return table


def position(path: Path | str, at: int | None = None) -> Position:
    """The log folded up to `at` (default: the end). Raises LogError or IllegalLog."""
    log = logfile.read(path)
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
    voided = {e.target for e in events if isinstance(e, Voided)}
    frames: list[Frame] = []

    def framed(event: Event, before: Any, after: Any) -> None:
        text = describe(spec, event)
        consequences = spec.narrate(before, after)
        if consequences:
            text += " -> " + "; ".join(consequences)
        tag = type(event).__struct_config__.tag
        frames.append(Frame(event.seq, str(tag), text, after, event.seq in voided))

    judgement, table = judge(spec, events, framed)
    if not judgement.ok:
        first = next(r for r in judgement.rulings if r.verdict == "illegal")
        raise IllegalLog(log.path, judgement.failed_seq or 0, first)
    frames.insert(0, Frame(1, "game_started", describe_start(log.started), Table(spec, log.started).state))
    return Position(log, table, events[-1].seq), frames


# --------------------------------------------------------------------------- judging a move

# `buy 1k0-w1b1g1r1 + reveal 1g0-w2b1`: a move and the chance it makes due, on one line. The `+` stands
# between spaces, so a game's own notation may use a bare `+` (a match written `5HL+5SR`, say)
MOVE_SEPARATOR = re.compile(r"\s\+(?:\s|$)|^\+\s")


def is_move_number(text: str) -> bool:
    word = text.strip()
    return word.isascii() and word.isdigit()


def listing_range(spec: GameSpec, state: Any, count: int) -> str:
    """How `tally moves` numbers the listing now, for a message about a number that is not in it."""
    if count:
        return f"1-{count}"
    return "none: the game is over" if spec.outcome(state) is not None else "none: no move is legal now"


def parse_move(spec: GameSpec, state: Any, text: str) -> list[Event] | NotationError:
    """One move in the game's notation, or the number of a move in the `tally moves` listing (from 1)."""
    word = text.strip()
    if is_move_number(word):
        moves = spec.legal_moves(state)
        number = read_count(word, len(moves))
        if not number:
            shown = listing_range(spec, state, len(moves))
            return NotationError(word, f"there is no move number {quote(word)} in the listing (`tally moves`: {shown})")
        return [moves[number - 1]]
    return spec.parse(state, word)


def play(table: Table, text: str, deal: Callable[[list[str]], list[str]] | None) -> MoveResult:
    """Parse the move(s) `text` and judge and apply each event on `table`, in order: the one fold of a move.

    `text` may hold several moves separated by ` + ` (a move and the refill it makes due), each parsed and
    judged against the table the moves before it leave. In open mode the chance a part makes due is dealt
    before the next part is read, and with `deal` (an append) after the last one too. On a refusal the
    caller restores the table; the result names the seq of the part that was refused (its first event's)."""
    spec = table.spec
    first_seq = table.last_seq + 1
    played = Played()
    parts = MOVE_SEPARATOR.split(text.strip())
    is_open = table.started.mode == "open"
    for index, part in enumerate(parts):
        if not part.strip() and len(parts) > 1:
            notation = NotationError(text, "a ' + ' with no move on one side: write MOVE + MOVE")
            return MoveResult(False, text, notation=notation, seq=table.last_seq + 1)
        part_seq = table.last_seq + 1
        parsed = parse_move(spec, table.state, part)
        if isinstance(parsed, NotationError):
            return MoveResult(False, text, notation=parsed, seq=part_seq)
        for event in parsed:
            if not table.take(event, played):
                return MoveResult(False, text, [], played.refused, None, None, spec.to_act(table.state), seq=part_seq)
        last = index == len(parts) - 1
        if is_open and (not last or deal is not None):
            table.deal(deal or _fresh_shuffle(), played)
    events = played.events
    return MoveResult(True, text, events, played.rulings, None, None, spec.to_act(table.state),
                      [describe(spec, e) for e in events], first_seq, consequences=played.consequences,
                      ending=spec.outcome(table.state))


def propose(spec: GameSpec, table: Table, text: str) -> MoveResult:
    """Parse and judge a move against a fold, without changing it (a question: `tally rule`, `?MOVE`)."""
    before = table.snapshot()
    try:
        result = play(table, text, None)
    finally:
        table.restore(before)
    if result.notation is not None:
        result.to_act = spec.to_act(table.state)
    return result


def stale(record: "GameRecord", text: str, seen: str) -> MoveResult:
    """The refusal of an append whose caller saw the log at `seen`, not where it is now."""
    table = record.fold
    return stale_at(record.path, table.spec, table.state, (table.last_seq, record.last_hash), text, seen)


def stale_at(path: str, spec: GameSpec, state: Any, tail: tuple[int, str], text: str, seen: str) -> MoveResult:
    """The stale refusal for a log whose tail is (seq, fingerprint)."""
    seq, fingerprint = tail
    ruling = illegal(
        STALE,
        f"the log moved on: you saw {seen}, it is now at #{seq} (fingerprint {fingerprint}); "
        "nothing was recorded, look at the table again",
        seq=seq,
        fingerprint=fingerprint,
    )
    return MoveResult(False, text, [], [ruling], None, None, spec.to_act(state), seq=seq + 1, path=path)


def listing_refusal(
    path: str, spec: GameSpec, state: Any, tail: tuple[int, str], word: str, text: str
) -> MoveResult | None:
    """A move number read against the listing it was shown in: not in it (a notation error), or shown
    at another position than the log's `tail` (seq, fingerprint): stale; None when the listing is the
    one of the tail (or none is remembered: then the number means the listing now)."""
    listed = cache.listed(path)
    if listed is None:
        return None
    number = read_count(word.strip(), listed.count)
    if not number:
        message = f"there is no move number {quote(word.strip())} in the listing (`tally moves`: {listed.shown})"
        return MoveResult(False, text, notation=NotationError(word.strip(), message), seq=tail[0] + 1,
                          to_act=spec.to_act(state), path=path)
    if (listed.seq, listed.fingerprint) != tail:
        return stale_at(path, spec, state, tail, text, f"the listing of `tally moves` at #{listed.seq}")
    return None


# --------------------------------------------------------------------------- the service


class GameRecord:
    """One game's log and its fold in memory: open, new, propose, append, undo, note, moves, replay
    frames, check and the events after a seq. Every write takes the log's writer lock and brings the
    fold up to the file first, so two processes (or a session and a command) never judge against a
    table the other has moved on from; an append that names what its caller saw (`expect_seq`,
    `expect_fingerprint`) is refused as stale when the log is no longer there."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        self._table: Table | None = None
        self.last_hash = ""
        self.last_line = 0
        self.identity: tuple[int, int, int, int] = (0, 0, 0, 0)
        self.complete = False  # the fold holds the undo history (judged from the log, not resumed from the cache)

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: Path | str) -> "GameRecord":
        """The log read and judged in full, under the writer's lock (a write in between would pair an old
        fold with the new file)."""
        record = cls(path)
        record.reload()
        return record

    @classmethod
    def new(
        cls,
        path: Path | str,
        game: str,
        players: list[str],
        options: dict[str, str] | None = None,
        mode: str | None = None,
        seed: int | None = None,
        manifest: str | dict[str, Any] | None = None,
    ) -> MoveResult:
        """Start a log. `table` mode (the default) waits for the setup to be revealed; `open` (or a seed)
        deals it. `manifest`: a manifest id the game knows, or an inline manifest; default: the game's own."""
        if mode is None:
            mode = "open" if seed is not None else "table"
        if mode == "table" and seed is not None:
            raise UsageError("--seed deals the setup, which needs --mode open (in table mode the recorder reveals it)")
        spec, started = start_event(game, players, options or {}, mode, manifest)
        table = Table(spec, msgspec.structs.replace(started, seq=1))
        played = Played()
        if mode == "open":
            import random

            table.deal(shuffler(random.Random(seed)), played)  # no seed: the OS picks one
        try:
            stamped, fingerprint = logfile.create(path, [table.started, *played.events])
        except UnicodeEncodeError:  # names are checked above; a manifest given to the Python API may still hold one
            raise UsageError("the start is not valid Unicode (it holds a lone surrogate), so it cannot be recorded") from None
        return MoveResult(True, "new", stamped, [], None, fingerprint, spec.to_act(table.state), path=str(path))

    def reload(self) -> None:
        with logfile.Locked(self.path) as locked:
            self._read(locked)

    def _read(self, locked: logfile.Locked) -> None:
        log = locked.read()
        self._table = judged(log)
        self.last_hash, self.last_line, self.complete = log.last_hash, log.last_line, True
        self.identity = _identity(os.fstat(locked.fd))
        cache.save(locked.path, locked.fd, log.started, self._table.last_seq, log.last_hash, log.last_line, self._table.state)

    def _sync(self, locked: logfile.Locked, history: bool) -> Table:
        """The fold at the log's tail: kept when the file is as this record last saw it, else from the cache
        when it can be trusted (and no undo history is needed), else by judging the whole log."""
        identity = _identity(os.fstat(locked.fd))
        if self._table is not None and identity == self.identity and (self.complete or not history):
            return self._table
        cached = None if history else cache.load(locked.path, locked.fd, registry.get)
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
        """Whether the file is no longer what this record last read or wrote (another process wrote to it)."""
        try:
            return _identity(os.stat(self.path)) != self.identity
        except OSError:
            return True

    # ------------------------------------------------------------------ acting

    def propose(self, text: str) -> MoveResult:
        """A ruling on `text` against the fold in memory, recording nothing."""
        result = propose(self.spec, self.fold, text)
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

    def append(
        self,
        text: str,
        expect_seq: int | None = None,
        expect_fingerprint: str | None = None,
        as_listed: bool = False,
        history: bool = False,
    ) -> MoveResult:
        """Judge the move(s) `text` against the fold at the log's tail and append them only if legal.

        In open mode, chance the move makes due (a new round's deal, say) is dealt by tally and appended in
        the same write, after the move. `as_listed`: a move number is resolved against the listing
        `moves()` last remembered for this log, refused as stale when the log has moved on since."""
        with logfile.Locked(self.path) as locked:
            table = self._sync(locked, history)
            parts = MOVE_SEPARATOR.split(text.strip())
            if as_listed and is_move_number(parts[0]):
                refused = self._check_listing(parts[0], text)
                if refused is not None:
                    return refused
            seen = self._is_stale(expect_seq, expect_fingerprint)
            if seen is not None:
                return stale(self, text, seen)
            before = table.snapshot()
            result = play(table, text, _fresh_shuffle())
            result.path = self.path
            if not result.accepted:
                table.restore(before)
                if result.notation is not None:
                    result.to_act = table.spec.to_act(table.state)
                return result
            appended = self._write(locked, table, before, result.events)
            result.events, result.fingerprint = appended.events, appended.fingerprint
            return result

    def _check_listing(self, word: str, text: str) -> MoveResult | None:
        return listing_refusal(self.path, self.spec, self.state, (self.seq, self.last_hash), word, text)

    def _write(self, locked: logfile.Locked, table: Table, before: Any, events: list[Event]) -> logfile.Appended:
        """Append the events already applied to `table` in one write and keep the cache warm; on a failed
        write the table goes back to `before`."""
        try:
            appended = locked.append(events[0].seq - 1, self.last_hash, events)
        except UnicodeEncodeError:  # a lone surrogate in text given to the Python API: nothing was written
            table.restore(before)
            raise UsageError("the text is not valid Unicode (it holds a lone surrogate), so it cannot be recorded") from None
        except BaseException:
            table.restore(before)
            raise
        self.last_hash, self.last_line = appended.fingerprint, appended.last_line
        self.identity = _identity(os.fstat(locked.fd))
        cache.save(locked.path, locked.fd, table.started, table.last_seq, appended.fingerprint, appended.last_line, table.state)
        return appended

    def undo(
        self, reason: str, turn: bool = False, expect_seq: int | None = None, expect_fingerprint: str | None = None
    ) -> MoveResult:
        """Void the last effective event, or with `turn` every event of the last turn, newest first
        (append-only: the voided lines stay in the log)."""
        if not reason.strip():
            raise UsageError("an undo must say why the event is voided (the reason is kept in the log)")
        with logfile.Locked(self.path) as locked:
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
                if not table.take(proposed, played):
                    table.restore(before)
                    return MoveResult(False, "undo", [proposed], played.refused, to_act=spec.to_act(table.state),
                                      seq=played.refused_seq, path=self.path)
                assert victim is not None  # a void is legal only when there is an effective event to take back
                lines.append(f"void #{target}: {describe(spec, victim)} ({reason})")
            appended = self._write(locked, table, before, played.events)
            return MoveResult(True, "undo", appended.events, played.rulings, None, appended.fingerprint,
                              spec.to_act(table.state), lines, appended.events[0].seq, self.path)

    def note(
        self, text: str, player: str | None = None, expect_seq: int | None = None, expect_fingerprint: str | None = None
    ) -> MoveResult:
        """A free remark for the record; it changes nothing in the game."""
        with logfile.Locked(self.path) as locked:
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
        return [event for event in logfile.read(self.path).events if event.seq > seq]

    def wait_after(self, seq: int, timeout: float, poll: float = 0.05) -> list[Event]:
        """The events after `seq`, waiting up to `timeout` seconds for the first one (empty if none came).

        The file's size tells cheaply whether anything was appended since the last look."""
        import time

        deadline = time.monotonic() + timeout
        size = -1
        while True:
            try:
                now = os.stat(self.path).st_size
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
