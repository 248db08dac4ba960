"""Benchmark: staging the history library's `events` rows with Arrow (what `tally ingest` does) against DuckDB's own
Python relations and Parquet writer, and against DuckDB reading the log files itself (issue 36: could pyarrow, 170 MB
of the install, go?). Run `python bench/bench_staging.py` (add --quick for a smoke run).

The rows are those of random Splice games (tests/support/long_games.py). Each way is timed as an ingest's worker and
its parent would run it: what the worker stages (and sends), then the parent's insert into a library file.

- arrow: `pyarrow` tables of the columns, the lines zero-copy from the files' bytes (`store/library/folding.py`),
  pickled as a worker's result is, registered and inserted (`store/library/writer.py`).
- duckdb relations + Parquet: the worker's own in-memory DuckDB takes the columns as list parameters (`unnest`), the
  lines as Python strings, and writes them with DuckDB's Parquet writer; the parent inserts from `read_parquet`.
- duckdb reads the files: DuckDB's CSV reader takes the lines from the log files themselves (never Python strings),
  the other columns as list parameters, joined by row number.

CPU time is this process's, every thread included; the machine is shared, so each way runs three times, alternately.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.long_games import write_long_game  # noqa: E402
from tally.store.logs import log as logfile  # noqa: E402

SCHEMA = "game_id VARCHAR, seq INTEGER, type VARCHAR, player VARCHAR, recorded_at VARCHAR, line VARCHAR, voided BOOLEAN"


class Rows:
    """The events table's columns as an ingest's worker gathers them, and the log files' bytes."""

    def __init__(self, paths: list[Path]):
        self.paths = paths
        self.columns: dict[str, list[Any]] = {
            name: [] for name in ("game_id", "seq", "type", "player", "recorded_at", "voided")
        }
        self.line_bytes: list[bytes] = []
        self.line_ends = [0]
        for index, path in enumerate(paths):
            data = path.read_bytes()
            events = logfile.parse_lines(str(path), data).events
            count = len(events)
            self.columns["game_id"] += [f"{index:016x}"] * count
            self.columns["seq"] += list(range(1, count + 1))
            self.columns["type"] += [str(type(e).__struct_config__.tag) for e in events]
            self.columns["player"] += [getattr(e, "player", None) for e in events]
            self.columns["recorded_at"] += [e.at for e in events]
            self.columns["voided"] += [False] * count
            end = self.line_ends[-1]
            for line in data.split(b"\n")[:-1]:
                end += len(line)
                self.line_ends.append(end)
            self.line_bytes.append(data.replace(b"\n", b""))
        self.count = len(self.line_ends) - 1
        self.size = sum(len(b) for b in self.line_bytes)


def arrow(rows: Rows, con: duckdb.DuckDBPyConnection, scratch: Path) -> tuple[float, float]:
    import pyarrow as pa

    began = time.perf_counter()
    schema = pa.schema(
        [
            ("game_id", pa.string()),
            ("seq", pa.int32()),
            ("type", pa.string()),
            ("player", pa.string()),
            ("recorded_at", pa.string()),
            ("voided", pa.bool_()),
        ]
    )
    table = pa.Table.from_pydict(rows.columns, schema=schema)
    offsets = pa.array(rows.line_ends, pa.int32())
    data = pa.py_buffer(b"".join(rows.line_bytes))
    lines = pa.Array.from_buffers(pa.binary(), rows.count, [None, offsets.buffers()[1], data]).cast(pa.string())
    staged = pickle.loads(pickle.dumps(table.append_column("line", lines), protocol=5))  # a worker's result, sent
    staging = time.perf_counter() - began
    con.register("_stage", staged)
    con.execute("INSERT INTO events SELECT game_id, seq, type, player, recorded_at, line, voided FROM _stage")
    con.unregister("_stage")
    return staging, time.perf_counter() - began - staging


def duckdb_parquet(rows: Rows, con: duckdb.DuckDBPyConnection, scratch: Path) -> tuple[float, float]:
    began = time.perf_counter()
    work = duckdb.connect()  # the worker's own, in memory
    text = b"".join(rows.line_bytes).decode()
    ends = rows.line_ends
    lines = [text[ends[i] : ends[i + 1]] for i in range(rows.count)]  # offsets of ASCII text: the lines are ASCII here
    c = rows.columns
    work.execute(f"CREATE TABLE s ({SCHEMA})")
    work.execute(
        "INSERT INTO s SELECT unnest($1::VARCHAR[]), unnest($2::INTEGER[]), unnest($3::VARCHAR[]), "
        "unnest($4::VARCHAR[]), unnest($5::VARCHAR[]), unnest($6::VARCHAR[]), unnest($7::BOOLEAN[])",
        [c["game_id"], c["seq"], c["type"], c["player"], c["recorded_at"], lines, c["voided"]],
    )
    target = scratch / "staged.parquet"
    work.execute(f"COPY s TO '{target}' (FORMAT parquet, COMPRESSION uncompressed)")
    work.close()
    staging = time.perf_counter() - began
    con.execute(f"INSERT INTO events SELECT * FROM read_parquet('{target}')")
    return staging, time.perf_counter() - began - staging


def duckdb_files(rows: Rows, con: duckdb.DuckDBPyConnection, scratch: Path) -> tuple[float, float]:
    began = time.perf_counter()
    files = ", ".join(f"'{p}'" for p in rows.paths)
    # \x01 never stands raw in a canonical JSON line (control characters are escaped): each line is one field
    con.execute(
        f"CREATE TEMP TABLE _lines AS SELECT row_number() OVER () AS n, line FROM read_csv([{files}], "
        "columns={'line': 'VARCHAR'}, delim='\x01', quote='', escape='', header=false, max_line_size=10000000, "
        "parallel=false)"
    )
    staging = time.perf_counter() - began
    c = rows.columns
    con.execute(
        "INSERT INTO events SELECT g, s, t, p, r, l.line, v FROM (SELECT unnest($1::VARCHAR[]) AS g, "
        "unnest($2::INTEGER[]) AS s, unnest($3::VARCHAR[]) AS t, unnest($4::VARCHAR[]) AS p, "
        "unnest($5::VARCHAR[]) AS r, unnest($6::BOOLEAN[]) AS v, generate_subscripts($1::VARCHAR[], 1) AS n) c "
        "JOIN _lines l USING (n)",
        [c["game_id"], c["seq"], c["type"], c["player"], c["recorded_at"], c["voided"]],
    )
    con.execute("DROP TABLE _lines")
    return staging, time.perf_counter() - began - staging


WAYS: dict[str, Callable[[Rows, duckdb.DuckDBPyConnection, Path], tuple[float, float]]] = {
    "arrow": arrow,
    "duckdb relations + Parquet": duckdb_parquet,
    "duckdb reads the files": duckdb_files,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 4 games, one round")
    options = parser.parse_args()
    games, rounds = (4, 1) if options.quick else (25, 3)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        rows = Rows([write_long_game(folder / f"g{i}.jsonl", 4000, seed=i + 1) for i in range(games)])
        print(
            f"{rows.count} event rows, {rows.size / 1e6:.1f} MB of lines; {rounds} round(s), median; the machine is shared"
        )
        found: dict[str, list[tuple[float, float, float]]] = {name: [] for name in WAYS}
        for round_ in range(rounds):
            for name, way in WAYS.items():
                library = folder / f"lib-{round_}-{len(found[name])}-{abs(hash(name))}.duckdb"
                con = duckdb.connect(str(library))
                con.execute(f"CREATE TABLE events ({SCHEMA})")
                cpu = time.process_time()
                staging, inserting = way(rows, con, folder)
                cpu = time.process_time() - cpu
                stored = con.execute("SELECT count(*) FROM events").fetchone()
                assert stored is not None and stored[0] == rows.count, (name, stored)
                con.close()
                found[name].append((staging, inserting, cpu))
        base = statistics.median(cpu for _, _, cpu in found["arrow"])
        for name, runs in found.items():
            staging, inserting, cpu = (statistics.median(run[i] for run in runs) for i in range(3))
            print(
                f"  {name:<28} stage {staging * 1000:7.0f} ms  insert {inserting * 1000:7.0f} ms  CPU {cpu * 1000:7.0f} ms"
                f"  (CPU x{cpu / base:.2f} Arrow's)"
            )


if __name__ == "__main__":
    main()
