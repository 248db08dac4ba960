"""Benchmark: the two log stores, the JSONL folder and PostgreSQL, side by side in one run.

    python bench/bench_store.py [--tables 50] [--appends 20] [--waits 40] [--games 200] [--url URL] [--quick]

1. Appends per second through the record service (`GameRecord.note`, each one acknowledged: fsync for a file,
   a committed transaction for PostgreSQL), over `--tables` games, with 1 and then 2 writer processes
   (each process appends `--appends` times to every game, round robin).
2. Stream latency: one process blocks in `wait_after` (a file is looked at every 50 ms; PostgreSQL wakes on
   the commit's NOTIFY), another appends; the time from the append's acknowledgement to the waiter's wake-up,
   p50 and p99 over `--waits` appends (CLOCK_MONOTONIC is shared by the processes).
3. Ingest: `--games` simulated Splendor games ingested into a new history library from their files, and from
   PostgreSQL after `tally import` (events per second), then each ingested again (nothing changed: the files
   are all read and hashed again, while the store's ingest reads only its fingerprints).

Without `--url`, a throwaway cluster of the installed PostgreSQL server is started (tests/support/pg_cluster.py) and
stopped at the end. Figures depend on the machine and what else runs on it: compare the stores within a run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
RUN = f"r{os.getpid()}-"  # this run's game ids: a database given with --url may hold an earlier run's

APPENDER = """
import sys, time
from tally.store.logs.places import open_store
from tally.store.recording.service import GameRecord
where, tables, appends, name, run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
records = [GameRecord(open_store(f"{run}t{n}", where)) for n in range(tables)]
for record in records:
    record.fold
print("ready", flush=True)
sys.stdin.readline()
began = time.monotonic()
for round in range(appends):
    for record in records:
        assert record.note(f"{name} {round}").accepted
print(time.monotonic() - began, flush=True)
"""

WAITER = """
import sys, time
from tally.store.logs.places import open_store
store = open_store(sys.argv[4] + "w", sys.argv[1])
seq, count = int(sys.argv[2]), int(sys.argv[3])
store.wait_after(seq, 0.01)  # connected and listening before the first append
print("ready", flush=True)
for _ in range(count):
    events = store.wait_after(seq, 30)
    woke = time.monotonic()
    seq = events[-1].seq
    print(seq, woke, flush=True)
"""


def start_games(where: str, names: list[str]) -> None:
    from tally.store.logs.places import open_store
    from tally.store.recording.service import GameRecord

    for name in names:
        GameRecord.new(open_store(name, where), "splendor", ["ana", "ben", "cy", "di"], seed=len(name))


def appends_per_second(where: str, tables: int, appends: int, processes: int) -> float:
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", APPENDER, where, str(tables), str(appends), f"p{n}", RUN],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(processes)
    ]
    for writer in writers:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
    began = time.monotonic()
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    for writer in writers:
        writer.communicate(timeout=600)
        assert writer.returncode == 0
    return processes * tables * appends / (time.monotonic() - began)


def stream_latency(where: str, waits: int) -> tuple[float, float]:
    """(p50, p99) in ms from an append's acknowledgement to the waiting process waking with it."""
    from tally.store.logs.places import open_store
    from tally.store.recording.service import GameRecord

    start_games(where, [RUN + "w"])
    record = GameRecord.open(open_store(RUN + "w", where))
    waiter = subprocess.Popen(
        [sys.executable, "-c", WAITER, where, str(record.seq), str(waits), RUN], stdout=subprocess.PIPE, text=True
    )
    assert waiter.stdout is not None and waiter.stdout.readline().strip() == "ready"
    delays = []
    for _ in range(waits):
        time.sleep(0.07)  # not in step with a file's 50 ms look
        result = record.note("latency")
        acknowledged = time.monotonic()
        seq, woke = waiter.stdout.readline().split()
        assert int(seq) == result.events[0].seq
        delays.append((float(woke) - acknowledged) * 1000)
    waiter.wait(timeout=60)
    delays.sort()
    return statistics.median(delays), delays[min(len(delays) - 1, int(len(delays) * 0.99))]


def run_tally(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", "from tally.cli.main import main; main()", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def ingest_comparison(url: str, games: int, work: Path) -> dict[str, float]:
    from tally.store.recording.simulate import simulate

    logs = work / "sim"
    simulate("splendor", games, os.getpid(), logs)  # its ids (splendor-sSEED-N) are new in a reused database
    files = sorted(logs.glob("*.jsonl"))
    for start in range(0, len(files), 200):
        run_tally("import", "--store", url, *map(str, files[start : start + 200]))
    figures: dict[str, float] = {}
    for label, args in (("files", [str(logs)]), ("postgresql", ["--store", url])):
        began = time.monotonic()
        first = run_tally("ingest", *args, "--db", str(work / f"{label}.duckdb"), "--jobs", "1")
        figures[f"{label} ingest s"] = time.monotonic() - began
        figures[f"{label} events/s"] = first["events_added"] / figures[f"{label} ingest s"]
        began = time.monotonic()
        again = run_tally("ingest", *args, "--db", str(work / f"{label}.duckdb"), "--jobs", "1")
        assert again["events_added"] == 0 and again["games_added"] == 0
        figures[f"{label} unchanged re-ingest s"] = time.monotonic() - began
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--appends", type=int, default=20)
    parser.add_argument("--waits", type=int, default=40)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--url", help="an existing PostgreSQL database (its tally tables are created if missing)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: few tables, appends and games")
    options = parser.parse_args()
    if options.quick:
        options.tables, options.appends, options.waits, options.games = 3, 3, 5, 6
    cluster = None
    url = options.url
    if url is None:
        from support.pg_cluster import Cluster, find_server

        server = find_server()
        if server is None:
            sys.exit("no PostgreSQL server installed (apt-get install postgresql), and no --url given")
        cluster = Cluster(server).start()
    try:
        with tempfile.TemporaryDirectory(prefix="tally-bench-store-") as folder:
            work = Path(folder)
            stores = {"jsonl": str(work / "logs")}
            (work / "logs").mkdir()
            stores["postgresql"] = url if url is not None else cluster.new_database()  # type: ignore[union-attr]
            names = [f"{RUN}t{n}" for n in range(options.tables)]
            for kind, where in stores.items():
                start_games(where, names)
                for processes in (1, 2):
                    rate = appends_per_second(where, options.tables, options.appends, processes)
                    print(
                        f"{kind:10} appends/s, {processes} process{'es' if processes > 1 else ''}, "
                        f"{options.tables} tables: {rate:,.0f}"
                    )
            for kind, where in stores.items():
                p50, p99 = stream_latency(where, options.waits)
                print(f"{kind:10} stream latency ms: p50 {p50:.1f}, p99 {p99:.1f}")
            ingest_url = url if url is not None else cluster.new_database()  # type: ignore[union-attr]
            for label, value in ingest_comparison(ingest_url, options.games, work).items():
                print(f"ingest of {options.games} games, {label}: {value:,.2f}")
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
