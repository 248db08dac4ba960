"""The CPU side of `tally ingest`: logs in, Arrow tables out (no DuckDB here, so it runs in worker processes).

For each log of a task: verify and decode it exactly like `tally check` (`log.parse_lines`), judge and
fold it through `engine.Table` (the same checks and reducers), let the game's projection watch the
states, and gather every table's rows. The library (store/library/__init__.py) then inserts a task's tables
in one transaction. A log that is damaged or breaks a rule adds no row at all.
"""

from __future__ import annotations

import gc
import hashlib
from itertools import accumulate
from typing import Any, Callable, NamedTuple

import msgspec
import pyarrow as pa

from tally.core.engine import Table, judge
from tally.core.history import History
from tally.core.model import Amended, Event, GameSpec, GameStarted, Voided
from tally.store.library.tables import EVENTS, GAMES, ROUND_RESULTS, SEATS, Declared, projection_tables, stage_schema
from tally.store.logs import log as logfile

EVENT_STAGE = stage_schema(EVENTS)
GAME_STAGE = stage_schema(GAMES)  # what an ingest stages; library_tables.insert_sql stores it


def die_with_parent(parent: int) -> None:
    """A worker's initializer: the worker ends when the ingest that started it does, however it ends (kill -9
    included), so that no worker keeps running or keeps the caller's stdout and stderr open.

    On Linux the kernel sends SIGKILL to the worker when its parent dies (`prctl(PR_SET_PDEATHSIG)`); everywhere,
    a daemon thread also polls the parent's pid twice a second (the portable fallback)."""
    import os
    import sys
    import threading

    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the request above was made
        os._exit(1)

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="tally-parent-watch", daemon=True).start()


def game_id_of(first_line: bytes) -> str:
    """A game's id: the first 16 hex digits of the SHA-256 of its first line (without the newline)."""
    return hashlib.sha256(first_line).hexdigest()[:16]


class Known(NamedTuple):
    """What the library holds of a game: its event count, byte size, SHA-256 of the bytes, fingerprint."""

    events: int
    size: int
    digest: str
    fingerprint: str


class Rejected(msgspec.Struct):
    """A log that was not loaded: `kind` is damaged (unreadable), illegal (a rule forbids an event), diverged
    (not the library's copy of its game), or error (tally failed on it: a bug, reported, never a stop)."""

    path: str
    line: int | None
    kind: str
    message: str
    rule: str | None = None

    def render(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class IngestBatch(msgspec.Struct):
    """One task's outcome: counts, rejections, logs the library must compare with its copy, and the rows."""

    added: int = 0
    grown: int = 0
    unchanged: int = 0
    events: int = 0
    rejected: list[Rejected] = []
    compare: list[tuple[str, str]] = []  # (path, game id): a known game whose log is not its copy plus new lines
    replace: list[str] = []  # known games whose derived rows are rewritten (grown logs)
    voids: list[tuple[str, int]] = []  # (game id, seq) of stored events voided by a grown log's new lines
    tables: dict[str, Any] = {}  # table name -> pyarrow.Table of staged rows


class _Tags(dict[type, str]):
    """Each event class's tag, looked up once per class (an event row reads it with one dict lookup)."""

    def __missing__(self, kind: type) -> str:
        name = self[kind] = kind.__struct_config__.tag  # type: ignore[attr-defined]
        return name


_TAGS = _Tags()


def fold_judged(spec: GameSpec, events: list[Event], watch: Callable[[Event, Any, Any], None] | None = None):
    """`engine.judge` shaped for ingest: (table, failed seq or None, the forbidding ruling or None, unverifiable count).
    The table is undoable only when the log has a void or a correction (a correction being the only case in which
    ingest reads its effective events): until then the fold lets each state go once the next is made."""
    judgement, table = judge(spec, events, watch, undoable=False)
    if not judgement.ok:
        first = next(r for r in judgement.rulings if r.verdict == "illegal")
        return table, judgement.failed_seq, first, len(judgement.warnings)
    return table, None, None, len(judgement.warnings)


class _Rows:
    def __init__(self, projections: dict[str, Declared]):
        self.events: dict[str, list[Any]] = {name: [] for name in EVENT_STAGE.names if name != "line"}
        # the lines' exact bytes, file by file without their newlines, and where each line ends in them
        self.line_bytes: list[bytes] = []
        self.line_ends: list[int] = [0]
        self.games: dict[str, list[Any]] = {name: [] for name in GAME_STAGE.names}
        self.seats: list[tuple[Any, ...]] = []
        self.rounds: list[tuple[Any, ...]] = []
        self.projections: dict[str, list[tuple[Any, ...]]] = {name: [] for name in projections}


def work(files: list[tuple[str, str | None, Known | None]]) -> IngestBatch:
    """Read, verify, judge and fold each log `(path, game id, what the library holds of it)`.

    One log can never stop the others: should anything fail unexpectedly while a task is read, folded
    or converted (a bug in tally, not a damaged log: those are rejected as such), the task is done again
    one log at a time, and the log that fails alone is rejected with the reason."""
    try:
        return _work(files)
    except Exception as error:
        if len(files) == 1:
            path = files[0][0]
            return IngestBatch(rejected=[Rejected(path, None, "error", _failure(error))])
    return merge([work([one]) for one in files])


def _failure(error: BaseException) -> str:
    text = str(error).splitlines()[0][:200] if str(error) else ""
    return (
        f"tally could not ingest this log ({type(error).__name__}{': ' if text else ''}{text}); "
        "the other logs are not affected; please report it"
    )


def merge(results: list[IngestBatch]) -> IngestBatch:
    """One batch holding several: counts added, lists joined, each table's parts concatenated."""
    merged = IngestBatch(rejected=[], compare=[], replace=[], voids=[])
    parts: dict[str, list[pa.Table]] = {}
    for one in results:
        merged.added += one.added
        merged.grown += one.grown
        merged.unchanged += one.unchanged
        merged.events += one.events
        merged.rejected.extend(one.rejected)
        merged.compare.extend(one.compare)
        merged.replace.extend(one.replace)
        merged.voids.extend(one.voids)
        for name, table in one.tables.items():
            parts.setdefault(name, []).append(table)
    merged.tables = {name: found[0] if len(found) == 1 else pa.concat_tables(found) for name, found in parts.items()}
    return merged


def _work(files: list[tuple[str, str | None, Known | None]]) -> IngestBatch:
    projections = projection_tables()
    rows = _Rows(projections)
    result = IngestBatch(rejected=[], compare=[], replace=[], voids=[])
    # folding allocates many short-lived states that refcounting frees (no cycles): the cyclic collector
    # would only re-scan the rows gathered so far, again and again, so it rests while a task runs
    collecting = gc.isenabled()
    gc.disable()
    try:
        for path, gid, known in files:
            _one(result, rows, path, gid, known)
        result.tables = _arrow(rows, projections)
    finally:
        if collecting:
            gc.enable()
    return result


def read_source(path: str) -> bytes:
    """A log's bytes: a file, or a game of a PostgreSQL log store named `URL#GAME` (`pgstore.game_url`)."""
    if is_store_game(path):
        from tally.store.logs.pgstore import read_game_url

        return read_game_url(path)
    return logfile.read_regular(path)


def is_store_game(path: str | object) -> bool:
    return isinstance(path, str) and path.startswith(("postgresql://", "postgres://"))


def _one(result: IngestBatch, rows: _Rows, path: str, gid: str | None, known: Known | None) -> None:
    try:
        data = read_source(path)
    except logfile.LogError as problem:
        result.rejected.append(Rejected(path, None, "damaged", problem.message))
        return
    except OSError as problem:
        result.rejected.append(Rejected(path, None, "damaged", f"cannot read: {problem.strerror or problem}"))
        return
    digest = hashlib.sha256(data).hexdigest()
    if known is not None and known.size == len(data) and known.digest == digest:
        result.unchanged += 1
        return
    try:
        log = logfile.parse_lines(path, data)
    except logfile.LogError as problem:
        result.rejected.append(Rejected(path, problem.line, "damaged", problem.message))
        return
    if gid != game_id_of(data[: data.find(b"\n")]):
        result.rejected.append(
            Rejected(path, 1, "damaged", "the file changed while it was being ingested; ingest it again")
        )
        return
    assert gid is not None
    events = log.events
    stored = 0
    if known is not None:
        stored = known.events
        if (
            len(events) <= stored
            or events[stored].prev != known.fingerprint
            or hashlib.sha256(data[: known.size]).hexdigest() != known.digest
        ):
            result.compare.append((path, gid))
            return
    spec = log.spec
    history: History = spec.history
    marks = {name: len(table) for name, table in rows.projections.items()}
    watch = history.watcher(gid, log.started, rows.projections, voids=Voided in set(map(type, events)))
    table, failed, ruling, unverifiable = fold_judged(spec, events, watch)
    if failed is not None:
        for name, table_rows in rows.projections.items():
            del table_rows[marks[name] :]
        result.rejected.append(Rejected(path, failed, "illegal", f"{ruling.message} [{ruling.rule}]", ruling.rule))
        return
    if any(type(event) is Amended for event in events):
        _watch_effective(rows, marks, history, gid, log, table)
    _events(result, rows, gid, events, data[known.size :] if known is not None else data, stored)
    _game(rows, gid, log, table, history, unverifiable, digest, path)
    if stored:
        result.replace.append(gid)
        result.grown += 1
    else:
        result.added += 1
    result.events += len(events) - stored


def _events(result: IngestBatch, rows: _Rows, gid: str, events: list[Event], tail: bytes, stored: int) -> None:
    """The new events' rows; `tail` is the log's bytes after the stored lines (its new lines, each ending in a newline)."""
    columns = rows.events
    lines = tail.split(b"\n")
    lines.pop()
    ends = accumulate(map(len, lines), initial=rows.line_ends[-1])
    next(ends)
    rows.line_ends.extend(ends)
    rows.line_bytes.append(tail.replace(b"\n", b""))
    new = events[stored:] if stored else events
    count = len(new)
    kinds = list(map(type, new))
    columns["game_id"].extend([gid] * count)
    columns["seq"].extend(range(stored + 1, stored + count + 1))
    columns["type"].extend(map(_TAGS.__getitem__, kinds))
    columns["player"].extend([getattr(e, "player", None) for e in new])
    columns["recorded_at"].extend([e.at for e in new])
    voided = [False] * count
    if Voided in kinds or Amended in kinds:  # most logs have no correction: no loop over their events in Python
        for event in new:
            if type(event) is Voided or type(event) is Amended:
                target = event.target
                if target > stored:
                    voided[target - stored - 1] = True
                else:
                    result.voids.append((gid, target))
    columns["voided"].extend(voided)


def _watch_effective(
    rows: _Rows, marks: dict[str, int], history: History, gid: str, log: logfile.Log, table: Table
) -> None:
    """A log with corrections: its projections are the effective events watched in order (each correction's
    events in place of its target), not the lines as they came, which the watcher saw as one step each."""
    for name, table_rows in rows.projections.items():
        del table_rows[marks[name] :]
    watch = history.watcher(gid, log.started, rows.projections)
    judge(log.spec, [log.started, *table.effective], watch)


def _game(
    rows: _Rows, gid: str, log: logfile.Log, table: Table, history: History, unverifiable: int, digest: str, path: str
) -> None:
    started: GameStarted = log.started
    state = table.state
    outcome = log.spec.outcome(state)
    scores = outcome.scores if outcome else history.scores(state)
    winners = list(outcome.winners) if outcome else []
    values = (
        gid,
        started.game,
        started.rules,
        started.mode,
        started.simulated,
        msgspec.json.encode(started.options).decode(),
        started.manifest if isinstance(started.manifest, str) else msgspec.json.encode(started.manifest).decode(),
        list(started.seats),
        len(started.seats),
        started.at,
        log.events[-1].at,
        len(log.events),
        history.turns(state),
        outcome is not None,
        winners,
        winners[0] if len(winners) == 1 else None,
        outcome.reason if outcome else None,
        (outcome.ended or None) if outcome else None,
        unverifiable,
        log.fingerprint,
        log.size,
        digest,
        path,
    )
    for column, value in zip(rows.games.values(), values):
        column.append(value)
    for index, name in enumerate(started.seats):
        rows.seats.append((gid, index + 1, name, scores.get(name), name in winners))
    rows.rounds.extend((gid, *row) for row in history.rounds(state, outcome))


def _table(columns: Declared, rows: list[tuple[Any, ...]]) -> pa.Table:
    """Row tuples to a table: converted as one struct array, in C (no transposing in Python)."""
    kind = pa.struct(list(stage_schema(columns)))
    return pa.Table.from_struct_array(pa.array(rows, kind))


def _lines(rows: _Rows) -> pa.Array:
    """The lines' exact bytes as one string array, built from the files' bytes (UTF-8 checked in C)."""
    data = b"".join(rows.line_bytes)
    count = len(rows.line_ends) - 1
    if len(data) < 1 << 31:
        offsets = pa.array(rows.line_ends, pa.int32())
        return pa.Array.from_buffers(pa.binary(), count, [None, offsets.buffers()[1], pa.py_buffer(data)]).cast(
            pa.string()
        )
    ends = rows.line_ends
    return pa.array([data[ends[i] : ends[i + 1]] for i in range(count)], pa.binary()).cast(pa.string())


def _arrow(rows: _Rows, projections: dict[str, Declared]) -> dict[str, pa.Table]:
    tables: dict[str, pa.Table] = {}
    if rows.events["game_id"]:
        columns = dict(rows.events)
        columns["line"] = _lines(rows)
        tables["events"] = pa.Table.from_pydict(columns, schema=EVENT_STAGE)
    if rows.games["game_id"]:
        tables["games"] = pa.Table.from_pydict(rows.games, schema=GAME_STAGE)
    if rows.seats:
        tables["seats"] = _table(SEATS, rows.seats)
    if rows.rounds:
        tables["round_results"] = _table(ROUND_RESULTS, rows.rounds)
    for name, declared in projections.items():
        if rows.projections[name]:
            tables[name] = _table(declared, rows.projections[name])
    return tables
