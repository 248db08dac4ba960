"""Benchmark: ingesting simulated Splendor games into the history library, against DuckDB's own read_json.

    python bench/bench_ingest.py [--games 10000] [--seed 1] [--jobs N] [--scale 100000] [--logs DIR]

1. Simulates N games (`tally.store.simulate.simulate`) into a temporary folder (or uses `--logs DIR`).
2. Baseline, in the same run: DuckDB's `read_json` loading the same files into a bare on-disk table
   (`CREATE TABLE t AS SELECT * FROM read_json('DIR/*.jsonl')`), in rows per second.
3. For reference, the floor under any ingest: what `tally check` does to each log (verified decoding,
   every event judged), in one process, storing nothing.
   Then `tally.store.library.ingest` of the same files into a new library, in events per second (every line
   verified, every event judged and folded, projections built), and the ratio to the baseline.
4. Memory: the RSS of this process (and of each worker) sampled after every task of the run (flat
   means it does not grow with the games ingested), the peak RSS of the ingest, and the peak RSS of an
   ingest of N/5 games against one of N games, each in a fresh single process.

Without `--jobs`, the ingest is measured twice: with the automatic choice (one worker process per CPU
for a run this size) and in one process.
5. `--scale M`: an ingest of M games (time, events/s, library size). Simulating M games would take
   longer than ingesting them, so the N simulated games are replicated with their times moved on by
   two years per copy (each copy re-chained, so every copy is a distinct, valid log with its own game
   id; the moves repeat).

Only the standard library and tally itself (with its own dependencies) are used. Figures depend on
the machine and on what else runs on it; the ratio to read_json in the same run is what to compare.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _status(pid: str, field: str) -> float:
    """A memory figure of a process in MB from /proc/PID/status (Linux; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rss_mb(pid: str = "self") -> float:
    return _status(pid, "VmRSS")


def reset_peak() -> None:
    """Reset this process's peak RSS (VmHWM), so that it measures what follows (Linux)."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def peak_mb() -> float:
    return _status("self", "VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in [path, Path(f"{path}.wal")] if p.exists()) / 1e6


def simulate_logs(games: int, seed: int, folder: Path) -> float:
    from tally.store.simulate import simulate

    began = time.perf_counter()
    simulate("splendor", games, seed, folder)
    return time.perf_counter() - began


def read_json_baseline(folder: Path, db: Path) -> tuple[int, float]:
    import duckdb

    if db.exists():
        db.unlink()
    con = duckdb.connect(str(db))
    began = time.perf_counter()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_json('{folder}/*.jsonl')")
    seconds = time.perf_counter() - began
    rows = con.execute("SELECT count(*) FROM t").fetchall()[0][0]
    con.close()
    return rows, seconds


def check_only(paths: list[str]) -> tuple[int, float]:
    """The floor under any ingest: what `tally check` does to every log (verified decoding, every event
    judged), in one process, storing nothing."""
    from tally.core.engine import judge
    from tally.store import log as logfile

    began = time.perf_counter()
    events = 0
    for path in paths:
        log = logfile.read(path)
        judge(log.spec, log.events)
        events += len(log.events)
    return events, time.perf_counter() - began


def run_ingest(paths: list[str], db: Path, jobs: int | None) -> dict:
    """Ingest into a new library; RSS of this process and of each worker sampled after every task."""
    import multiprocessing

    from tally.store import library

    if db.exists():
        db.unlink()
    samples: list[float] = []
    workers: list[float] = []

    def progress(done: int, total: int, events: int) -> None:
        samples.append(rss_mb())
        workers.extend(rss_mb(str(p.pid)) for p in multiprocessing.active_children())

    reset_peak()
    began = time.perf_counter()
    summary = library.ingest(db, paths, progress, jobs)
    seconds = time.perf_counter() - began
    assert not summary.rejected, summary.rejected[:3]
    return {"events": summary.events_added, "games": summary.games_added, "seconds": seconds, "workers": summary.workers,
            "rss_samples": samples[1:], "worker_rss": workers, "peak_mb": peak_mb(), "db_mb": size_mb(db)}


def report(label: str, result: dict, baseline_rate: float) -> None:
    rate = result["events"] / result["seconds"]
    workers = result["workers"]
    print(f"{label:19s}: {result['events']:,} events in {result['seconds']:.2f} s = {rate:,.0f} events/s "
          f"({'1 process' if workers == 1 else f'{workers} worker processes'}), ratio to read_json {rate / baseline_rate:.2f}")
    samples = result["rss_samples"]
    if len(samples) >= 4:
        quarter = max(1, len(samples) // 4)
        print(f"{'':19s}  RSS after each of {len(samples)} tasks {min(samples):.0f}-{max(samples):.0f} MB "
              f"(first quarter peak {max(samples[:quarter]):.0f} MB, last quarter {max(samples[-quarter:]):.0f} MB); "
              f"peak {result['peak_mb']:.0f} MB" + (f"; workers {max(result['worker_rss']):.0f} MB at most"
                                                      if result["worker_rss"] else ""))
    print(f"{'':19s}  library {result['db_mb']:.0f} MB ({result['db_mb'] * 1e6 / result['events']:.0f} bytes/event)")


def child_peak(folder: Path, count: int, db: Path) -> dict:
    """Ingest the first `count` logs in a fresh single process (no workers): its peak RSS."""
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from tally.store import library\n"
        "if __name__ == '__main__':\n"
        "    files = sorted(Path(sys.argv[1]).glob('*.jsonl'))[: int(sys.argv[2])]\n"
        "    s = library.ingest(sys.argv[3], files, None, 1)\n"
        "    with open('/proc/self/status') as f:\n"
        "        peak = [int(l.split()[1]) / 1024 for l in f if l.startswith('VmHWM:')]\n"
        "    print(json.dumps({'games': s.games_added, 'events': s.events_added, 'seconds': s.seconds,\n"
        "                      'peak_mb': peak[0] if peak else 0}))\n"
    )
    script = db.parent / "child_ingest.py"
    script.write_text(code)
    if db.exists():
        db.unlink()
    out = subprocess.run([sys.executable, str(script), str(folder), str(count), str(db)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _later(line: bytes, years: int) -> bytes:
    """The line with the year of its `at` moved on."""
    a = line.index(b'"at":"') + 6
    return line[:a] + str(int(line[a:a + 4]) + years).encode() + line[a + 4:]


def replicate(source: Path, target: Path, total: int) -> int:
    """Copies of the source logs until `total` games: every `at` moved on, every `prev` re-chained."""
    files = sorted(source.glob("*.jsonl"))
    target.mkdir(parents=True, exist_ok=True)
    step = len(files) // 8760 + 2  # simulated games start an hour apart: copies must not overlap in time
    made = events = 0
    copy = 0
    while made < total:
        copy += 1
        for path in files:
            if made >= total:
                break
            lines = path.read_bytes().split(b"\n")[:-1]
            lines[0] = _later(lines[0], step * copy)
            prev = hashlib.sha256(lines[0]).hexdigest().encode()
            for i in range(1, len(lines)):
                line = _later(lines[i], step * copy)
                p = line.index(b'"prev":"') + 8
                line = line[:p] + prev + line[p + 64:]
                lines[i] = line
                prev = hashlib.sha256(line).hexdigest().encode()
            (target / f"copy{copy:03d}-{path.name}").write_bytes(b"\n".join(lines) + b"\n")
            made += 1
            events += len(lines)
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=None,
                        help="ingest worker processes (default: measure both the automatic choice and 1 process)")
    parser.add_argument("--scale", type=int, default=0, help="also ingest this many games (e.g. 100000)")
    parser.add_argument("--logs", type=Path, default=None, help="use these simulated logs instead of simulating")
    parser.add_argument("--no-memory", action="store_true", help="skip the fresh-process memory comparison")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="tally-bench-"))
    try:
        if args.logs:
            folder = args.logs
            print(f"logs: {folder} ({len(list(folder.glob('*.jsonl')))} files)")
        else:
            folder = work / "logs"
            seconds = simulate_logs(args.games, args.seed, folder)
            print(f"simulated {args.games} Splendor games in {seconds:.1f} s")
        files = sorted(str(p) for p in folder.glob("*.jsonl"))
        size = sum(os.path.getsize(f) for f in files) / 1e6
        print(f"{len(files)} logs, {size:.0f} MB, cpus available: {len(os.sched_getaffinity(0))}, "
              f"load average {os.getloadavg()[0]:.1f}")

        rows, baseline = read_json_baseline(folder, work / "read_json.duckdb")
        baseline_rate = rows / baseline
        print(f"read_json baseline : {rows:,} rows in {baseline:.2f} s = {baseline_rate:,.0f} rows/s")
        events, seconds = check_only(files)
        print(f"check only         : {events:,} events in {seconds:.2f} s = {events / seconds:,.0f} events/s "
              f"(verify + judge every event, 1 process, nothing stored: the floor under ingest)")
        runs = [args.jobs] if args.jobs else [None, 1]
        for jobs in runs:
            result = run_ingest(files, work / "library.duckdb", jobs)
            report("tally ingest", result, baseline_rate)

        if not args.no_memory and len(files) >= 10:
            small = max(1, len(files) // 5)
            a = child_peak(folder, small, work / "small.duckdb")
            b = child_peak(folder, len(files), work / "full.duckdb")
            print(f"fresh process peaks: {small} games {a['peak_mb']:.0f} MB, {len(files)} games {b['peak_mb']:.0f} MB "
                  f"(x{b['peak_mb'] / a['peak_mb']:.2f} memory for x{len(files) / small:.0f} games; one process, no workers)")

        if args.scale:
            scaled = work / "scale"
            began = time.perf_counter()
            events = replicate(folder, scaled, args.scale)
            print(f"scale: {args.scale} games ({events:,} events) prepared in {time.perf_counter() - began:.0f} s")
            for name in ("library.duckdb", "full.duckdb", "small.duckdb", "read_json.duckdb"):
                (work / name).unlink(missing_ok=True)
            result = run_ingest(sorted(str(p) for p in scaled.glob("*.jsonl")), work / "scale.duckdb", args.jobs)
            report(f"scale ({args.scale:,})", result, baseline_rate)
            print(f"{'':19s}  {result['games']:,} games in {result['seconds']:.0f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
