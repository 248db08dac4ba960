"""The record service: the Python API that the CLI wraps (new, move, rule, undo, check, position, replay).

Every write goes through `log.Locked`: read and verify the log, fold it, judge the new events
against the fold, and append only if nothing forbids them. A rejection appends nothing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from tally.core import registry
from tally.core.engine import Table, judge
from tally.core.model import Event, GameSpec, GameStarted, NotationError, Noted, Ruling, Voided
from tally.core.model import Outcome as GameOutcome
from tally.core.notation import read_count, seat_named
from tally.core.text import quote

from . import cache
from . import log as logfile

if TYPE_CHECKING:
    import random


class UsageError(Exception):
    """Bad arguments (exit code 2)."""


class IllegalLog(Exception):
    """The log itself holds an event that a rule forbids (exit code 1): nothing is appended to it."""

    def __init__(self, path: str, seq: int, ruling: Ruling):
        self.path, self.seq, self.ruling = path, seq, ruling
        super().__init__(f"{path}:{seq}: the log already holds an illegal event: {ruling.render()}")


class Outcome(msgspec.Struct):
    """What happened to a proposed move: accepted (and appended, unless it was only a question) or not."""

    accepted: bool
    text: str
    events: list[Event] = []
    rulings: list[Ruling] = []
    notation: NotationError | None = None
    fingerprint: str | None = None
    to_act: tuple[str, str] = ("", "")
    lines: list[str] = []  # each event in notation
    seq: int = 0  # where the move stands (or would stand) in the log
    path: str = ""
    consequences: list[str] = []  # what followed without being an event: a noble's visit, the end of a round
    ending: GameOutcome | None = None  # the game's outcome when the move ended it

    @property
    def messages(self) -> list[str]:
        if self.notation is not None:
            return [self.notation.render()]
        return [r.render() for r in self.rulings]


class Position(msgspec.Struct):
    """A log folded up to some seq: the table (fold) and the events that built it."""

    log: logfile.Log
    table: Any
    seq: int

    @property
    def spec(self) -> GameSpec:
        return self.log.spec


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
        mode=mode,  # type: ignore[arg-type]
        options=spec.resolved_options(options),
        manifest=spec.manifest if manifest is None else manifest,
    )
    problems = spec.check_started(started)
    if problems:
        raise UsageError("; ".join(problems))
    return spec, started


def dealt(spec: GameSpec, state: Any, rng: "random.Random") -> tuple[list[Event], Any]:
    """Open mode: shuffle what chance decides now (here, outside core), as often as the game asks, and
    record the outcomes as events. Returns the events and the state after them (no events: nothing due)."""
    events: list[Event] = []
    while piles := spec.shuffles(state):
        shuffled = {}
        for name, pile in piles.items():
            pile = list(pile)
            rng.shuffle(pile)
            shuffled[name] = pile
        for event in spec.deal(state, shuffled):
            state = spec.apply(state, event)
            events.append(event)
    return events, state


MANIFEST_LIMIT = 1 << 20  # a manifest file describes one box of cards: a megabyte is far more than any needs


def read_manifest(path: Path | str) -> dict[str, Any]:
    """A component manifest file (`.toml`, else JSON) as the object `game_started` records inline.

    The game's `check_manifest` then says whether it describes usable components."""
    try:
        data = logfile.read_regular(path, MANIFEST_LIMIT + 1, "a manifest")
    except logfile.LogError as error:
        raise UsageError(f"--manifest {path}: {error.message}") from None
    except OSError as error:
        raise UsageError(f"--manifest {path}: cannot read it: {error.strerror or error}") from None
    if len(data) > MANIFEST_LIMIT:
        raise UsageError(f"--manifest {path}: larger than {MANIFEST_LIMIT} bytes; a manifest describes one box of cards")
    from tally.store import limits

    deep = f"--manifest {path}: {limits.too_deep(limits.MAX_MANIFEST_DEPTH).message}"  # measured before parsing: parsers recurse
    try:
        if str(path).endswith(".toml"):
            import tomllib

            text = data.decode("utf-8")
            if limits.toml_depth(text, limits.MAX_MANIFEST_DEPTH) > limits.MAX_MANIFEST_DEPTH:
                raise UsageError(deep)
            manifest: Any = tomllib.loads(text)
        else:
            if limits.json_depth(data, limits.MAX_MANIFEST_DEPTH) > limits.MAX_MANIFEST_DEPTH:
                raise UsageError(deep)
            manifest = msgspec.json.decode(data)
    except (UnicodeDecodeError, ValueError, msgspec.DecodeError) as error:
        raise UsageError(f"--manifest {path}: not a manifest file ({str(error).splitlines()[0]})") from None
    if limits.value_depth(manifest, limits.MAX_MANIFEST_DEPTH) > limits.MAX_MANIFEST_DEPTH:  # TOML's dotted keys
        raise UsageError(deep)
    if not isinstance(manifest, dict):
        raise UsageError(f"--manifest {path}: a manifest is an object (a TOML table or a JSON object)")
    return msgspec.json.decode(msgspec.json.encode(manifest))  # plain JSON values only, as the log will hold them


def new_game(
    path: Path | str,
    game: str,
    players: list[str],
    options: dict[str, str] | None = None,
    mode: str | None = None,
    seed: int | None = None,
    manifest: str | dict[str, Any] | None = None,
) -> Outcome:
    """Start a log. `table` mode (the default) waits for the setup to be revealed; `open` (or a seed) deals it.

    `manifest`: a manifest id the game knows, or an inline manifest (`read_manifest`); default: the game's own."""
    if mode is None:
        mode = "open" if seed is not None else "table"
    if mode == "table" and seed is not None:
        raise UsageError("--seed deals the setup, which needs --mode open (in table mode the recorder reveals it)")
    spec, started = start_event(game, players, options or {}, mode, manifest)
    events: list[Event] = [started]
    if mode == "open":
        import random

        rng = random.Random(seed)  # no seed: the OS picks one, and the deal it produced is what gets recorded
        events.extend(dealt(spec, spec.start(started), rng)[0])
    try:
        stamped, fingerprint = logfile.create(path, events)
    except UnicodeEncodeError:  # names are checked above; a manifest given to the Python API may still hold one
        raise UsageError("the start is not valid Unicode (it holds a lone surrogate), so it cannot be recorded") from None
    table = Table(spec, stamped[0])
    for event in stamped[1:]:
        table.apply(event)
    return Outcome(True, "new", stamped, [], None, fingerprint, spec.to_act(table.state))


def fold(log: logfile.Log, events: list[Event] | None = None) -> Table:
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
    return Position(log, fold(log, events), events[-1].seq)


# `buy 1k0-w1b1g1r1 + reveal 1g0-w2b1`: a move and the chance it makes due, on one line. The `+` stands
# between spaces, so a game's own notation may use a bare `+` (a match written `5HL+5SR`, say)
MOVE_SEPARATOR = re.compile(r"\s\+(?:\s|$)|^\+\s")


def parse_move(spec: GameSpec, state: Any, text: str) -> list[Event] | NotationError:
    """One move in the game's notation, or the number of a move in the `tally moves` listing (from 1)."""
    word = text.strip()
    if word.isascii() and word.isdigit():
        moves = spec.legal_moves(state)
        number = read_count(word, len(moves))
        if not number:
            if moves:
                listing = f"1-{len(moves)}"
            else:
                listing = "none: the game is over" if spec.outcome(state) is not None else "none: no move is legal now"
            return NotationError(word, f"there is no move number {quote(word)} in the listing (`tally moves`: {listing})")
        return [moves[number - 1]]
    return spec.parse(state, word)


def propose(spec: GameSpec, table: Table, text: str) -> Outcome:
    """Parse and judge a move against a fold, without changing it.

    `text` may hold several moves separated by ` + ` (a move and the refill it makes due), each parsed and
    judged against the table the moves before it leave; all are accepted or none."""
    return _judge_text(spec, table, text)[0]


def _judge_text(spec: GameSpec, table: Table, text: str) -> tuple[Outcome, Any]:
    """`propose`, and the state the move(s) would leave (None when refused)."""
    seq = table.last_seq + 1
    before = table.snapshot()
    events: list[Event] = []
    rulings: list[Ruling] = []
    consequences: list[str] = []
    accepted = True
    notation = None
    try:
        parts = MOVE_SEPARATOR.split(text.strip())
        for part in parts:
            if not part.strip() and len(parts) > 1:
                notation = NotationError(text, "a ' + ' with no move on one side: write MOVE + MOVE")
                break
            parsed = parse_move(spec, table.state, part)
            if isinstance(parsed, NotationError):
                notation = parsed
                break
            for event in parsed:
                found = table.check(event)
                if any(r.verdict == "illegal" for r in found):
                    rulings = [r for r in found if r.verdict == "illegal"]
                    accepted = False
                    break
                rulings.extend(found)
                rulings.append(table.permit(event))
                previous = table.state
                table.apply(msgspec.structs.replace(event, seq=table.last_seq + 1))
                events.append(event)
                consequences.extend(spec.narrate(previous, table.state))
            if not accepted:
                break
        if notation is not None:
            return Outcome(False, text, notation=notation, to_act=spec.to_act(before[0]), seq=seq), None
        ended = spec.outcome(table.state)
        result = Outcome(accepted, text, events, rulings, None, None, spec.to_act(table.state),
                         [describe(spec, e) for e in events], seq, consequences=consequences if accepted else [],
                         ending=ended if accepted else None)
        return result, table.state if accepted else None
    finally:
        table.restore(before)  # judging changes nothing: the caller decides whether to record


def rule(path: Path | str, text: str, at: int | None = None) -> Outcome:
    """Answer a dispute about `text` at `at` (default: now) without recording anything."""
    pos = position(path, at)
    result = propose(pos.spec, pos.table, text)
    result.path = str(path)
    return result


def _open_fold(locked: logfile.Locked) -> tuple[GameSpec, Table, str, int]:
    """The fold at the log's tail: from the cache when it can be trusted, else by judging the whole log."""
    cached = cache.load(locked.path, locked.fd, registry.get)
    if cached is not None:
        spec, started, state, entry = cached
        return spec, Table.resume(spec, started, state, entry.last_seq), entry.last_hash, entry.last_line
    log = locked.read()
    table = fold(log)
    cache.save(locked.path, locked.fd, log.started, table.last_seq, log.last_hash, log.last_line, table.state)
    return log.spec, table, log.last_hash, log.last_line


def _record(locked: logfile.Locked, table: Table, last_hash: str, events: list[Event]) -> tuple[logfile.Appended, list[str]]:
    """Append `events` in one write, fold them in, keep the cache warm; also what followed from them."""
    try:
        appended = locked.append(table.last_seq, last_hash, events)
    except UnicodeEncodeError:  # a lone surrogate in text given to the Python API: nothing was written
        raise UsageError("the text is not valid Unicode (it holds a lone surrogate), so it cannot be recorded") from None
    spec = table.spec
    consequences: list[str] = []
    for event in appended.events:
        previous = table.state
        table.apply(event)
        if previous is not table.state:
            consequences.extend(spec.narrate(previous, table.state))
    cache.save(locked.path, locked.fd, table.started, table.last_seq, appended.fingerprint, appended.last_line, table.state)
    return appended, consequences


def submit(locked: logfile.Locked, table: Table, last_hash: str, text: str) -> Outcome:
    """Judge the move(s) `text` against the fold at the log's tail and append them only if legal.

    In open mode, chance the move makes due (a new round's deal, say) is dealt by tally and appended in
    the same write, after the move."""
    spec = table.spec
    result, after = _judge_text(spec, table, text)
    result.path = locked.path
    if not result.accepted:
        return result
    events = result.events + _chance_after(spec, table.started, after)
    appended, result.consequences = _record(locked, table, last_hash, events)
    result.events = appended.events
    result.lines = [describe(spec, e) for e in appended.events]
    result.to_act = spec.to_act(table.state)
    result.fingerprint = appended.fingerprint
    result.ending = spec.outcome(table.state)
    return result


def move(path: Path | str, text: str) -> Outcome:
    """Append the move(s) `text` only if legal; otherwise return the ruling and append nothing.

    In open mode, chance the move makes due (a new round's deal, say) is dealt by tally and appended in
    the same write, after the move."""
    with logfile.Locked(path) as locked:
        _, table, last_hash, _ = _open_fold(locked)
        return submit(locked, table, last_hash, text)


def _chance_after(spec: GameSpec, started: GameStarted, state: Any) -> list[Event]:
    """Open mode: the chance that tally deals in `state` (nothing in table mode)."""
    if started.mode != "open" or not spec.shuffles(state):
        return []
    import random

    return dealt(spec, state, random.Random())[0]


def undo(path: Path | str, reason: str, turn: bool = False) -> Outcome:
    """Void the last effective event, or with `turn` every event of the last turn (append-only: the
    voided lines stay in the log)."""
    with logfile.Locked(path) as locked:
        log = locked.read()
        return void(locked, fold(log), log.last_hash, reason, turn)


def void(locked: logfile.Locked, table: Table, last_hash: str, reason: str, turn: bool = False) -> Outcome:
    """Void the last effective event (or the last turn's events, newest first) of a fold with its undo history."""
    if not reason.strip():
        raise UsageError("an undo must say why the event is voided (the reason is kept in the log)")
    spec = table.spec
    targets = table.last_turn() if turn else [table.last_effective_seq or 0]
    before = table.snapshot()
    voids: list[Event] = []
    rulings: list[Ruling] = []
    voided: list[str] = []  # each voided event in notation
    try:
        for target in targets or [0]:
            proposed = Voided(target=target, reason=reason)
            found = table.check(proposed)
            if found:
                return Outcome(False, "undo", [proposed], found, to_act=spec.to_act(table.state), seq=table.last_seq + 1,
                               path=locked.path)
            rulings.append(table.permit(proposed))
            voided.append(describe(spec, table.last_effective_event))  # type: ignore[arg-type]
            table.apply(msgspec.structs.replace(proposed, seq=table.last_seq + 1))
            voids.append(proposed)
    finally:
        table.restore(before)
    appended, _ = _record(locked, table, last_hash, voids)
    lines = [f"void #{e.target}: {text} ({reason})" for e, text in zip(appended.events, voided)]  # type: ignore[attr-defined]
    return Outcome(True, "undo", appended.events, rulings, None, appended.fingerprint, spec.to_act(table.state),
                   lines, appended.events[0].seq, locked.path)


class Report(msgspec.Struct):
    """`tally check`: integrity, then every event judged."""

    ok: bool
    events: int
    fingerprint: str
    game: str
    seq: int | None = None
    rule: str | None = None
    message: str | None = None
    warnings: list[dict[str, Any]] = []
    outcome: dict[str, Any] | None = None


def check(path: Path | str) -> Report:
    log = logfile.read(path)
    judgement, table = judge(log.spec, log.events)
    warnings = [{"seq": seq, "rule": r.rule, "message": r.message} for seq, r in judgement.warnings]
    if not judgement.ok:
        first = judgement.rulings[0]
        return Report(False, len(log.events), log.fingerprint, log.spec.name, judgement.failed_seq, first.rule, first.message, warnings)
    result = log.spec.outcome(table.state)
    return Report(True, len(log.events), log.fingerprint, log.spec.name, warnings=warnings,
                  outcome=msgspec.to_builtins(result) if result else None)


class Frame(msgspec.Struct):
    """One step of a replay: the event, who did it, what it said in notation, and the state after."""

    seq: int
    type: str
    text: str
    state: Any
    voided: bool = False


def replay(path: Path | str, to: int | None = None) -> tuple[Position, list[Frame]]:
    """Every event up to `to` with the state after it. A log with an illegal event raises IllegalLog."""
    return replay_log(logfile.read(path), to)


def replay_log(log: logfile.Log, to: int | None = None) -> tuple[Position, list[Frame]]:
    """`replay` for a log already read and verified (from a file, or from the history library)."""
    events = log.events if to is None else log.events[:to]
    if to is not None and not 1 <= to <= len(log.events):
        raise UsageError(f"--to {to}: the log has events 1..{len(log.events)}")
    spec = log.spec
    table = Table(spec, events[0])  # type: ignore[arg-type]
    frames = [Frame(1, "game_started", describe_start(events[0]), table.state)]  # type: ignore[arg-type]
    voided = {e.target for e in events if isinstance(e, Voided)}
    for event in events[1:]:
        rulings = table.check(event)
        bad = [r for r in rulings if r.verdict == "illegal"]
        if bad:
            raise IllegalLog(log.path, event.seq, bad[0])
        before = table.state
        table.apply(event)
        text = describe(spec, event)
        consequences = spec.narrate(before, table.state)
        if consequences:
            text += " -> " + "; ".join(consequences)
        frames.append(Frame(event.seq, type(event).__struct_config__.tag, text, table.state, event.seq in voided))  # type: ignore[attr-defined]
    return Position(log, table, events[-1].seq), frames


def describe_start(started: GameStarted) -> str:
    options = " ".join(f"{k}={v}" for k, v in started.options.items())
    return f"{started.game} ({started.mode} mode, rules {started.rules}) for {', '.join(started.seats)}; {options}"


def describe(spec: GameSpec, event: Event) -> str:
    if isinstance(event, Voided):
        return f"void #{event.target}: {event.reason}"
    tag = type(event).__struct_config__.tag  # type: ignore[attr-defined]
    if tag == "noted":
        return f"note: {event.text}"  # type: ignore[attr-defined]
    return spec.format(event)


def note(path: Path | str, text: str, player: str | None = None) -> Outcome:
    with logfile.Locked(path) as locked:
        _, table, last_hash, _ = _open_fold(locked)
        return write_note(locked, table, last_hash, text, player)


def write_note(locked: logfile.Locked, table: Table, last_hash: str, text: str, player: str | None = None) -> Outcome:
    if player is not None:
        named = seat_named(player, table.started.seats)
        if named is None:
            raise UsageError(f"no player {quote(player)} in this game (players: {', '.join(table.started.seats)})")
        player = named
    appended, _ = _record(locked, table, last_hash, [Noted(text=text, player=player)])
    return Outcome(True, "note", appended.events, [], None, appended.fingerprint, table.spec.to_act(table.state),
                   [describe(table.spec, appended.events[0])], appended.events[0].seq, locked.path)
