"""`tally ingest`'s DuckDB side: which logs make a task, what the library knows of their games, and the
tasks' rows written in bulk, one transaction per task (the CPU side is `library_ingest`, in workers)."""

from __future__ import annotations

import os
import time
from collections import deque
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import duckdb
import msgspec
import pyarrow as pa

from tally.store.library.folding import (
    IngestBatch,
    Known,
    Rejected,
    die_with_parent,
    game_id_of,
    is_store_game,
    read_source,
    work,
)
from tally.store.library.schema import (
    INGEST_SETTINGS,
    PARALLEL_MIN_BYTES,
    TASK_BYTES,
    TASK_FILES,
    LibraryError,
    _duck_message,
    connect,
)
from tally.store.library.tables import every_table, insert_sql, projection_tables
from tally.store.logs import log as logfile
from tally.store.recording.record import UsageError

# tasks given to the workers beyond one each: queued, so that no worker waits while the writer writes or judges a
# task of its own (measured with one worker: with two queued, the writer and the worker spent about the same CPU;
# with one, the writer spent a quarter more than its worker)
QUEUED = 2


class Summary(msgspec.Struct):
    """What an ingest did. `games_stale`: logs that are an older copy of a stored game (nothing to add)."""

    db: str
    files: int = 0
    games_added: int = 0
    games_grown: int = 0
    games_unchanged: int = 0
    games_stale: int = 0
    events_added: int = 0
    rejected: list[Rejected] = []
    seconds: float = 0.0
    workers: int = 1
    apart: bool = False  # the workers are processes of their own (else the logs are judged in this process)
    tasks: int = 0
    tasks_here: int = 0  # tasks judged by this process, the writer (all of them when no worker is apart)


# --------------------------------------------------------------------------- ingest


def collect(paths: Iterable[Path | str]) -> list[Path]:
    """The logs named: files as given, folders searched recursively for *.jsonl, each file once, in order."""
    found: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        if is_store_game(raw):  # a game of a log store, `URL#GAME`: as it is (a Path would fold its '//')
            found.append(raw)  # type: ignore[arg-type]
            continue
        path = Path(raw)
        if path.is_dir():
            # every *.jsonl but folders: a FIFO, device or dangling link among the logs is reported, not skipped
            candidates = sorted(p for p in path.rglob("*.jsonl") if not p.is_dir())
        elif path.exists() or path.is_symlink():
            candidates = [path]
        else:
            raise UsageError(f"{path}: no such file or folder")
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return found


def _first_line(path: Path) -> tuple[str | None, int]:
    """(game id, file size) from the first line; (None, 0) when unreadable (the worker reports why)."""
    if is_store_game(path):
        from tally.store.logs.pgstore import first_line_url

        first, size = first_line_url(str(path))
        return (game_id_of(first) if first else None), size
    try:
        fd = logfile.open_regular(path, os.O_RDONLY)
    except (OSError, logfile.LogError):  # the worker reports why
        return None, 0
    with open(fd, "rb") as handle:
        first = handle.readline()
        size = os.fstat(fd).st_size
    if not first:
        return None, size
    return game_id_of(first[:-1] if first.endswith(b"\n") else first), size


def _tasks(files: list[Path], task_bytes: int) -> Iterator[list[tuple[Path, str | None]]]:
    """Files in tasks of about `task_bytes`; a task never holds two files of the same game."""
    task: list[tuple[Path, str | None]] = []
    ids: set[str] = set()
    size = 0
    for path in files:
        gid, length = _first_line(path)
        if gid is not None and gid in ids:
            yield task
            task, ids, size = [], set(), 0
        task.append((path, gid))
        if gid is not None:
            ids.add(gid)
        size += length
        if size >= task_bytes or len(task) >= TASK_FILES:
            yield task
            task, ids, size = [], set(), 0
    if task:
        yield task


def _size(path: Path) -> int:
    if is_store_game(path):
        return _first_line(path)[1]
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _workers(jobs: int | None, size: int) -> tuple[int, bool]:
    """(processes that read and judge the logs, whether they are worker processes apart from this one, the writer).

    `--jobs N`: N workers (1: in this process). Chosen: a small run in this process; a large one with a worker per
    CPU but one, so that the writer keeps a core of its own (measured: with as many workers as cores, the writer
    fought them and two workers on two cores were no faster than one process); with a single CPU, in this process.
    The writer's core is not left idle: whenever its workers have their next tasks queued and no batch is ready to
    be written, the writer judges a task itself (`ingest`)."""
    if jobs is not None:
        if jobs < 1:
            raise UsageError("--jobs must be at least 1")
        return jobs, jobs > 1
    if size < PARALLEL_MIN_BYTES or not _spawnable():
        return 1, False
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    if cpus < 2:
        return 1, False
    return max(1, min(cpus - 1, 8)), True


def _spawnable() -> bool:
    """Whether worker processes can be spawned: they re-import the main script, which must be a real file."""
    import sys

    main = getattr(sys.modules.get("__main__"), "__file__", None)
    return main is None or os.path.exists(main)


class _Writer:
    """The DuckDB side of an ingest: what the library knows of a game, and the tasks' rows, written in bulk."""

    def __init__(self, con: duckdb.DuckDBPyConnection, summary: Summary):
        self.con = con
        self.summary = summary
        self.projections = list(projection_tables())
        self.inserts = {name: insert_sql(name, table) for name, table in every_table().items()}

    def known(self, ids: list[str]) -> dict[str, Known]:
        if not ids:
            return {}
        self.con.register("_stage_ids", pa.table({"game_id": pa.array(ids, pa.string())}))
        try:
            rows = self.con.execute(
                "SELECT g.game_id, g.events, g.size, g.digest, g.fingerprint FROM games g JOIN _stage_ids USING (game_id)"
            ).fetchall()
        finally:
            self.con.unregister("_stage_ids")
        return {gid: Known(events, size, digest, fingerprint) for gid, events, size, digest, fingerprint in rows}

    def compare(self, path: str, gid: str) -> None:
        """A known game whose file is not its stored log plus new lines: an older copy, or edited history."""
        old = [
            row[0].encode()
            for row in self.con.execute("SELECT line FROM events WHERE game_id = ? ORDER BY seq", [gid]).fetchall()
        ]
        try:
            new = read_source(path).split(b"\n")[:-1]
        except (OSError, logfile.LogError) as error:
            self.summary.rejected.append(Rejected(path, None, "damaged", f"cannot read it again: {error}"))
            return
        for seq, (a, b) in enumerate(zip(old, new), 1):
            if a != b:
                self.summary.rejected.append(
                    Rejected(
                        path,
                        seq,
                        "diverged",
                        f"line {seq} differs from the library's copy of game {gid}, which has the same first line: "
                        "either this log's history was edited after it was ingested, or it is another game that "
                        "began with an identical first line; the library keeps its copy",
                    )
                )
                return
        if len(new) <= len(old):
            self.summary.games_stale += 1
        else:  # pragma: no cover - a file that changed between the worker's read and this one
            self.summary.rejected.append(
                Rejected(path, None, "diverged", "the file changed while it was being ingested")
            )

    def write(self, results: list[IngestBatch]) -> None:
        """Insert the results' rows in one transaction, then count them (nothing is counted if it rolls back)."""
        summary = self.summary
        replace = [gid for result in results for gid in result.replace]
        voids = [void for result in results for void in result.voids]
        tables: dict[str, list[pa.Table]] = {}
        for result in results:
            for name, table in result.tables.items():
                tables.setdefault(name, []).append(table)
        con = self.con
        staged: list[str] = []
        con.execute("BEGIN TRANSACTION")
        try:
            if replace:
                con.register("_stage_replace", pa.table({"game_id": pa.array(replace, pa.string())}))
                staged.append("_stage_replace")
                for name in ["games", "seats", "round_results", *self.projections]:
                    con.execute(f"DELETE FROM {name} WHERE game_id IN (SELECT game_id FROM _stage_replace)")
            if voids:
                ids, seqs = zip(*voids)
                con.register(
                    "_stage_voids", pa.table({"game_id": pa.array(ids, pa.string()), "seq": pa.array(seqs, pa.int32())})
                )
                staged.append("_stage_voids")
                con.execute(
                    "UPDATE events SET voided = true FROM _stage_voids v "
                    "WHERE events.game_id = v.game_id AND events.seq = v.seq"
                )
            for name, parts in tables.items():
                con.register(f"_stage_{name}", parts[0] if len(parts) == 1 else pa.concat_tables(parts))
                staged.append(f"_stage_{name}")
                con.execute(self.inserts[name])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        finally:
            for name in staged:
                con.unregister(name)
        for result in results:
            summary.games_added += result.added
            summary.games_grown += result.grown
            summary.games_unchanged += result.unchanged
            summary.events_added += result.events
            summary.rejected.extend(result.rejected)
            for path, gid in result.compare:
                self.compare(path, gid)

    def write_task(self, result: IngestBatch, payload: list[tuple[str, str | None, Known | None]]) -> None:
        """Write one task's rows; if DuckDB refuses them, write its logs one at a time, so that the one
        log whose rows it refuses is rejected and every other log of the task is still stored."""
        try:
            self.write([result])
            return
        except duckdb.Error as error:
            if len(payload) == 1:
                self.summary.rejected.append(
                    Rejected(payload[0][0], None, "error", f"the library refused its rows: {_duck_message(error)}")
                )
                return
        for one in payload:
            self.write_task(work([one]), [one])


def ingest(
    db: Path | str,
    paths: Iterable[Path | str],
    progress: Callable[[int, int, int], None] | None = None,
    jobs: int | None = None,
    task_bytes: int | None = None,
) -> Summary:
    """Load logs into the library: idempotent (the same log again changes nothing) and incremental (a grown
    log adds only its new events). Damaged, illegal or edited logs are reported in `Summary.rejected`."""
    began = time.perf_counter()
    files = collect(paths)
    size = sum(_size(path) for path in files)
    workers, apart = _workers(jobs, size)
    if task_bytes is None:  # several tasks per process, so that none waits for the last big one; at most
        # TASK_BYTES, so that memory stays flat however many logs there are
        task_bytes = max(1 << 20, min(TASK_BYTES, size // (4 * (workers + apart)) + 1))
    summary = Summary(str(db), files=len(files), rejected=[], workers=workers, apart=apart)
    con = connect(db)
    try:
        for setting in INGEST_SETTINGS:
            con.execute(setting)
        if apart:  # every other core has a worker: DuckDB's own threads would only take turns with them
            con.execute("SET threads = 1")
    except BaseException:
        con.close()
        raise
    pool = None
    try:
        writer = _Writer(con, summary)
        if apart:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # spawn, not fork: this process runs DuckDB's threads, and a forked child could inherit a held lock
            pool = ProcessPoolExecutor(
                workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            )
        # tasks in the order they are written: a worker's future, or a batch this process judged itself
        pending: deque[tuple[Any, set[str], list[tuple[str, str | None, Known | None]]]] = deque()
        in_flight: set[str] = set()
        at_workers = 0  # futures among them
        done = 0
        if progress is not None:
            progress(0, len(files), 0)

        def is_ready() -> bool:
            future = pending[0][0]
            return not isinstance(future, Future) or future.done()

        def finish() -> None:
            """Write the oldest task's rows in one transaction (measured: gathering several tasks into one
            bulk insert is no faster, and leaves a file 50% larger unless it holds ~600,000 rows)."""
            nonlocal done, at_workers
            future, ids, payload = pending.popleft()
            if isinstance(future, Future):
                at_workers -= 1
                try:
                    result = future.result()
                except BrokenProcessPool:
                    raise LibraryError(
                        db,
                        "ingest stopped: a worker process died (out of memory?); what was stored "
                        "so far is kept, and ingesting again resumes",
                    ) from None
            else:
                result = future
            writer.write_task(result, payload)
            in_flight.difference_update(ids)
            done += len(payload)
            if progress is not None:
                progress(done, len(files), summary.events_added)

        def take_back() -> bool:
            """The last tasks: one that no worker has begun is judged here instead, rather than waiting for it."""
            nonlocal at_workers
            for at in range(len(pending) - 1, -1, -1):
                future, ids, payload = pending[at]
                if isinstance(future, Future) and future.cancel():
                    pending[at] = (work(payload), ids, payload)
                    at_workers -= 1
                    summary.tasks_here += 1
                    return True
            return False

        for task in _tasks(files, task_bytes):
            ids = {gid for _, gid in task if gid}
            while pending and ids & in_flight:  # a game already on its way in: let it land first
                finish()
            known = writer.known(sorted(ids))
            payload = [(str(path), gid, known.get(gid) if gid else None) for path, gid in task]
            summary.tasks += 1
            if pool is not None and at_workers < workers + QUEUED:
                pending.append((pool.submit(work, payload), ids, payload))
                at_workers += 1
            else:
                # the workers have their next tasks queued: rather than wait for them, the writer judges this task
                # itself (measured: a writer that only writes is idle more than half of the time beside one worker)
                pending.append((work(payload), ids, payload))
                summary.tasks_here += 1
            in_flight.update(ids)
            while pending and is_ready():
                finish()
            while len(pending) > workers + QUEUED + 1:
                finish()
        while pending:
            if not is_ready() and take_back():
                continue
            finish()
        from tally.store.library.report import keep_reports

        keep_reports(con)  # the games' `tally stats` reports worked out again where their games changed
    except duckdb.Error as error:
        raise LibraryError(
            db, f"ingest stopped; the task in progress was rolled back: {_duck_message(error)}"
        ) from None
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        con.close()
    summary.seconds = round(time.perf_counter() - began, 3)
    return summary
