"""Any position of a log folded from the checkpoint before it (`store/logs/checkpoints.py`), not from line 1: what
keeps the answers about a long game (its tail after a restart, a page of its events as a seat sees them, a step of
its replay) as cheap as about a short one.

`reach(lines, upto)` folds a log (any `logstore.Lines`: a file, a game of a PostgreSQL store, a game of the history
library) to line `upto` (its end by default): it takes the latest checkpoint at or before the first line asked for
whose line the log still holds (the next line's `prev` names it, or the log ends with it), verifies every line after
it as `tally check` does, and judges each (the events after a checkpoint are judged again, as a whole read judges
them, so a log edited after its checkpoint is still refused as `tally check` refuses it). A correction that reaches
before the checkpoint (a void of an event before it) takes an earlier checkpoint, down to line 1. Every checkpoint due
among the lines judged and not yet kept is kept.

A log whose end is not clean (a torn tail, a unit cut short) or whose lines do not verify raises `NotClean`: the
caller reads the whole log, which says exactly what is wrong (`log.parse_lines`).
"""

from __future__ import annotations

from typing import Any

from tally.core import registry
from tally.core.engine import Table, judge
from tally.core.model import Event, GameSpec, GameStarted, Ruling
from tally.store.errors import IllegalLog
from tally.store.logs import checkpoints
from tally.store.logs import log as logfile
from tally.store.logs.logstore import Lines

Step = tuple[Event, Any, Any]  # an event, the state before it and the state after it


class NotClean(Exception):
    """The log cannot be folded from a checkpoint (damaged, cut short, not a log): read it whole to say why."""


class Reached:
    """A log folded to line `seq`: the table (resumed at a checkpoint: its `floor`), the line's hash, where the line
    ends in the log's bytes and its length, the game's checkpoint key, and the steps judged from the checkpoint on."""

    __slots__ = ("table", "seq", "line_hash", "offset", "last_line", "key", "steps")

    def __init__(
        self, table: Table, seq: int, line_hash: str, offset: int, last_line: int, key: str, steps: list[Step]
    ):
        self.table, self.seq, self.line_hash, self.offset, self.last_line = table, seq, line_hash, offset, last_line
        self.key, self.steps = key, steps

    @property
    def spec(self) -> GameSpec:
        return self.table.spec

    @property
    def started(self) -> GameStarted:
        return self.table.started


class Work:
    """What folding from checkpoints read and judged, counted (what a test of its cost counts, not time)."""

    read = 0  # lines read and verified
    judged = 0  # events judged


def key_of(first_line: bytes) -> str:
    return checkpoints.key_of(logfile.sha256_hex(first_line))


def _start(lines: Lines) -> tuple[bytes, GameStarted, GameSpec]:
    first = lines.first_line()
    if not first:
        raise NotClean(lines.name)
    try:
        started, spec = logfile.start_of(lines.name, first)
    except logfile.LogError:
        raise NotClean(lines.name) from None
    return first, started, spec


def _from_start(first: bytes, started: GameStarted, spec: GameSpec) -> checkpoints.Resumable:
    size = len(first) + 1
    return checkpoints.Resumable(spec, started, None, 1, logfile.sha256_hex(first), size, size)


def reach(lines: Lines, upto: int | None = None, since: int | None = None) -> Reached:
    """The log folded to line `upto` (None: its last line), from the latest checkpoint at or before line `since`
    (default `upto`): the steps after `since` are among those returned. IllegalLog when an event judged is illegal;
    NotClean when the log cannot be folded so (the caller reads it whole); IndexError when it has no line `upto`."""
    first, started, spec = _start(lines)
    key = key_of(first)
    below = since if since is not None else upto
    tried: set[checkpoints.Kept] = set()
    while True:
        found = _try_points(lines, spec, key, first, started, upto, below, tried)
        if isinstance(found, Reached):
            return found
        below = found - 1  # a correction reached back to line `found`: resume before it


def _try_points(
    lines: Lines,
    spec: GameSpec,
    key: str,
    first: bytes,
    started: GameStarted,
    upto: int | None,
    below: int | None,
    tried: set[checkpoints.Kept],
) -> Reached | int:
    """The fold from the latest usable checkpoint at or before `below` (line 1 at the latest), or the seq a
    correction reached back to (try again below it)."""
    seqs, size = lines.extent()
    for kept in checkpoints.candidates(key, below, seqs, size):
        if kept in tried:
            continue
        tried.add(kept)
        point = checkpoints.load(key, kept, registry.get)
        if point is None or point.spec is not spec or point.started != started:
            continue
        try:
            return _fold_from(lines, point, key, upto, fresh=False)
        except _Unusable:
            continue
        except _Reaches as reaching:
            return reaching.seq
    try:
        return _fold_from(lines, _from_start(first, started, spec), key, upto, fresh=True)
    except _Unusable:
        raise NotClean(lines.name) from None
    except _Reaches:  # pragma: no cover - a fold from line 1 holds every event a correction may reach
        raise NotClean(lines.name) from None


class _Unusable(Exception):
    """This checkpoint is not of this log (or the log is not clean after it)."""


class _Reaches(Exception):
    def __init__(self, seq: int):
        self.seq = seq


def _fold_from(lines: Lines, point: checkpoints.Resumable, key: str, upto: int | None, fresh: bool) -> Reached:
    """The fold from `point` (`fresh`: line 1, whose unit may hold the deal written with it) to line `upto`."""
    if upto is not None and upto < point.seq:
        raise _Unusable()
    unit_end = point.started.unit if fresh else point.seq
    data = lines.lines_after(point.seq, point.offset, None if upto is None else upto + 1)
    try:
        run = logfile.continued(
            lines.name, data, point.spec, point.seq, point.line_hash, unit_end, seats=tuple(point.started.seats)
        )
    except logfile.LogError:
        raise _Unusable() from None
    Work.read += len(run.events)
    events, sizes = run.events, run.sizes
    if upto is None:
        if not run.clean:
            raise _Unusable()
        if not events and not lines.ends_at(point.seq, point.line_hash, point.offset, point.last_line):
            raise _Unusable()
        last_hash = run.last_hash
    else:
        if not events and not lines.ends_at(point.seq, point.line_hash, point.offset, point.last_line):
            raise _Unusable()
        if events and events[-1].seq > upto:  # the line after `upto`, read to check `upto`'s hash: not folded
            last_hash = events[-1].prev or ""
            events, sizes = events[:-1], sizes[:-1]
        elif events:
            last_hash = run.last_hash
        else:
            last_hash = point.line_hash
        if (events[-1].seq if events else point.seq) < upto:
            raise IndexError(f"the log has no line {upto}")
    table = (
        Table(point.spec, point.started) if fresh else Table.resume(point.spec, point.started, point.state, point.seq)
    )
    kept: list[Step] = []
    judgement, table = judge(point.spec, events, kept=kept, start=table)
    Work.judged += len(kept)
    if judgement.reaches is not None:
        raise _Reaches(judgement.reaches)
    if not judgement.ok:
        raise IllegalLog(lines.name, judgement.failed_seq or 0, _first_illegal(judgement.rulings))
    offset = point.offset + sum(sizes)
    _keep_due(key, point, kept, sizes, last_hash, unit_end)
    return Reached(table, table.last_seq, last_hash, offset, sizes[-1] if sizes else point.last_line, key, kept)


def _first_illegal(rulings: list[Ruling]) -> Ruling:
    return next(r for r in rulings if r.verdict == "illegal")


def _keep_due(
    key: str, point: checkpoints.Resumable, steps: list[Step], sizes: list[int], last_hash: str, unit_end: int
) -> None:
    """Keep every checkpoint due among `steps` (after a unit that holds a multiple of `SPACING`) not kept yet;
    `unit_end`: the last line of the unit the checkpoint's line lies in."""
    if not steps or not checkpoints.is_due(steps[0][0].seq, steps[-1][0].seq):
        return
    kept = checkpoints.saved(key)
    offset = point.offset
    unit_first, unit_last = point.seq, unit_end
    for index, (event, _, after) in enumerate(steps):
        offset += sizes[index]
        seq = event.seq
        if event.unit > 1:
            unit_first, unit_last = seq, seq + event.unit - 1
        elif seq > unit_last:
            unit_first = unit_last = seq
        if seq != unit_last or not checkpoints.is_due(unit_first, seq):
            continue
        line_hash = steps[index + 1][0].prev if index + 1 < len(steps) else last_hash
        if line_hash is None or checkpoints.Kept(seq, line_hash[:16], offset) in kept:
            continue
        checkpoints.save(key, seq, line_hash, offset, sizes[index], point.started, after)


def keep_due_steps(
    key: str, started: GameStarted, seq: int, offset: int, steps: list[Step], sizes: list[int], last_hash: str
) -> None:
    """Keep the checkpoints due among `steps`, judged on a fold at line `seq` (ending a unit, `offset` bytes into
    the log)."""
    point = checkpoints.Resumable(None, started, None, seq, "", offset, 0)
    _keep_due(key, point, steps, sizes, last_hash, seq)


def steps(lines: Lines, after: int, upto: int) -> list[Step]:
    """The steps of the events after line `after` through line `upto` (folded from the checkpoint before `after`)."""
    if upto <= after:
        return []
    reached = reach(lines, upto, since=max(after, 1))
    return [step for step in reached.steps if step[0].seq > after]
