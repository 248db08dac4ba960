"""Benchmark: ingesting simulated games of every game into the history library, against DuckDB's own read_json,
and the library's commands on a large library.

    python bench/bench_ingest.py [--games 200] [--seed 1] [--jobs N] [--scale EVENTS] [--logs DIR] [--json]

1. Simulates N games of each game (`tally.store.recording.simulate.simulate`: Splendor, Split, Array and Splice) into a
   temporary folder (or uses `--logs DIR`).
2. Baseline, in the same run: DuckDB's `read_json` loading the same files into a bare on-disk table
   (`CREATE TABLE t AS SELECT * FROM read_json('DIR/*.jsonl')`), in rows per second.
3. For reference, the floor under any ingest: what `tally check` does to each log (verified decoding,
   every event judged), in one process, storing nothing.
   Then `tally.store.library.folding` of the same files into a new library, in events per second (every line
   verified, every event judged and folded, projections built), and the ratio to the baseline: for the mix of
   all four games, and for each game alone.
4. Memory: the RSS of this process (and of each worker) sampled after every task of the run (flat
   means it does not grow with the games ingested), the peak RSS of the ingest, and the peak RSS of an
   ingest of N/5 games against one of N games, each in a fresh single process.

Without `--jobs`, the mix is ingested twice: with the automatic choice of workers and in one process. With workers,
the CPU seconds of the writer (this process) and of its workers, and how many tasks the writer judged itself, say
how the work was shared whatever else the machine was running.
5. `--scale EVENTS`: an ingest of about EVENTS events (e.g. 1000000), a quarter of them from each game. Simulating
   them would take longer than ingesting them, so the simulated games are replicated with their times moved on
   by years per copy (each copy re-chained, so every copy is a distinct, valid log with its own game id; the
   moves repeat). On that library: `tally sql` and `tally stats` per command (a fresh process each, the median
   of several, beside `python -c "import typer"` in the same run), the stats report's queries inside DuckDB
   (one warm connection), and each chart's query (`store/library/charts.py`).

`--json` prints one JSON summary at the end. Only the standard library and tally itself (with its own
dependencies) are used. Figures depend on the machine and on what else runs on it; the ratio to read_json in
the same run is what to compare.
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


GAMES = ("splendor", "split", "array", "splice")


def simulate_logs(games: int, seed: int, folder: Path) -> float:
    from tally.store.recording.simulate import simulate

    began = time.perf_counter()
    for game in GAMES:
        simulate(game, games, seed, folder)
    return time.perf_counter() - began


def of_game(files: list[str], game: str) -> list[str]:
    return [f for f in files if Path(f).name.split("-", 1)[0] == game or f"-{game}-" in Path(f).name]


def read_json_baseline(folder: Path, db: Path, pattern: str = "*.jsonl") -> tuple[int, float]:
    import duckdb

    if db.exists():
        db.unlink()
    con = duckdb.connect(str(db))
    began = time.perf_counter()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_json('{folder}/{pattern}')")
    seconds = time.perf_counter() - began
    rows = con.execute("SELECT count(*) FROM t").fetchall()[0][0]
    con.close()
    return rows, seconds


def check_only(paths: list[str]) -> tuple[int, float]:
    """The floor under any ingest: what `tally check` does to every log (verified decoding, every event
    judged), in one process, storing nothing."""
    from tally.core.engine import judge
    from tally.store.logs import log as logfile

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
    mine, theirs = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    summary = library.ingest(db, paths, progress, jobs)
    seconds = time.perf_counter() - began
    mine_after, theirs_after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    assert not summary.rejected, summary.rejected[:3]
    cpu = lambda a, b: b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime  # noqa: E731
    return {
        "events": summary.events_added,
        "games": summary.games_added,
        "seconds": seconds,
        "workers": summary.workers if summary.apart else 0,
        "tasks": summary.tasks,
        "tasks_here": summary.tasks_here,
        "writer_cpu_s": cpu(mine, mine_after),
        "workers_cpu_s": cpu(theirs, theirs_after),
        "rss_samples": samples[1:],
        "worker_rss": workers,
        "peak_mb": peak_mb(),
        "db_mb": size_mb(db),
    }


def report(label: str, result: dict, baseline_rate: float) -> None:
    rate = result["events"] / result["seconds"]
    workers = result["workers"]
    how = "1 process" if not workers else f"{workers} worker process{'es' if workers > 1 else ''} and the writer"
    print(
        f"{label:19s}: {result['events']:,} events in {result['seconds']:.2f} s = {rate:,.0f} events/s "
        f"({how}), ratio to read_json {rate / baseline_rate:.2f}"
    )
    samples = result["rss_samples"]
    if len(samples) >= 4:
        quarter = max(1, len(samples) // 4)
        print(
            f"{'':19s}  RSS after each of {len(samples)} tasks {min(samples):.0f}-{max(samples):.0f} MB "
            f"(first quarter peak {max(samples[:quarter]):.0f} MB, last quarter {max(samples[-quarter:]):.0f} MB); "
            f"peak {result['peak_mb']:.0f} MB"
            + (f"; workers {max(result['worker_rss']):.0f} MB at most" if result["worker_rss"] else "")
        )
    print(f"{'':19s}  library {result['db_mb']:.0f} MB ({result['db_mb'] * 1e6 / result['events']:.0f} bytes/event)")
    if workers:
        print(
            f"{'':19s}  the writer judged {result['tasks_here']} of {result['tasks']} tasks itself; CPU: the writer "
            f"{result['writer_cpu_s']:.1f} s, the workers {result['workers_cpu_s']:.1f} s"
        )


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
    out = subprocess.run(
        [sys.executable, str(script), str(folder), str(count), str(db)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _later(line: bytes, years: int) -> bytes:
    """The line with the year of its `at` moved on."""
    a = line.index(b'"at":"') + 6
    return line[:a] + str(int(line[a : a + 4]) + years).encode() + line[a + 4 :]


def replicate(source: Path, target: Path, events_per_game: int) -> int:
    """Copies of each game's source logs until that game has about `events_per_game` events: every `at` moved
    on, every `prev` re-chained."""
    target.mkdir(parents=True, exist_ok=True)
    events = 0
    for game in GAMES:
        files = sorted(source.glob(f"{game}-*.jsonl"))
        if not files:
            continue
        step = len(files) // 8760 + 2  # simulated games start an hour apart: copies must not overlap in time
        copy = done = 0
        while done < events_per_game:
            copy += 1
            for path in files:
                if done >= events_per_game:
                    break
                lines = path.read_bytes().split(b"\n")[:-1]
                lines[0] = _later(lines[0], step * copy)
                prev = hashlib.sha256(lines[0]).hexdigest().encode()
                for i in range(1, len(lines)):
                    line = _later(lines[i], step * copy)
                    p = line.index(b'"prev":"') + 8
                    line = line[:p] + prev + line[p + 64 :]
                    lines[i] = line
                    prev = hashlib.sha256(line).hexdigest().encode()
                (target / f"{game}-copy{copy:03d}-{path.name}").write_bytes(b"\n".join(lines) + b"\n")
                done += len(lines)
        events += done
    return events


def command_ms(arguments: list[str], runs: int = 5) -> float:
    """The median wall time of a fresh process running `arguments`, in ms."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(arguments, capture_output=True, check=True)
        times.append((time.perf_counter() - began) * 1000)
    return sorted(times)[len(times) // 2]


def library_commands(db: Path) -> dict:
    """`tally sql` and `tally stats --simulated` (the scaled games are all simulated: without it the report would
    rest on none) per command against `import typer`, measured alternately in one run; the stats report and the
    library's charts inside one process (best of five and of three)."""
    from tally.store import library
    from tally.store.library.charts import library_charts

    tally = [sys.executable, "-m", "tally.cli.main"] if not shutil.which("tally") else [shutil.which("tally")]
    env_db = ["--db", str(db)]
    typer_ms: list[float] = []
    sql_ms: list[float] = []
    stats_ms: list[float] = []
    for _ in range(5):  # alternately, so that a change in the machine's load touches all three alike
        typer_ms.append(command_ms([sys.executable, "-c", "import typer"], 1))
        sql_ms.append(command_ms([*tally, "sql", "SELECT game, count(*) FROM games GROUP BY game", *env_db], 1))
        stats_ms.append(command_ms([*tally, "stats", "--simulated", *env_db], 1))  # every game here was simulated
    median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
    inside = []
    for _ in range(5):
        began = time.perf_counter()
        library.stats(db, simulated=True)
        inside.append((time.perf_counter() - began) * 1000)
    charts = []
    for _ in range(3):
        began = time.perf_counter()
        drawn = library_charts(db, simulated=True)
        charts.append((time.perf_counter() - began) * 1000)
    return {
        "import_typer_ms": median(typer_ms),
        "sql_ms": median(sql_ms),
        "stats_ms": median(stats_ms),
        "stats_report_ms": min(inside),
        "charts_ms": min(charts),
        "charts": len(drawn),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games simulated of each game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="ingest worker processes (default: measure both the automatic choice and 1 process)",
    )
    parser.add_argument("--scale", type=int, default=0, help="also ingest about this many events (e.g. 1000000)")
    parser.add_argument("--logs", type=Path, default=None, help="use these simulated logs instead of simulating")
    parser.add_argument("--no-memory", action="store_true", help="skip the fresh-process memory comparison")
    parser.add_argument("--json", action="store_true", help="print one JSON summary at the end")
    args = parser.parse_args()

    summary: dict = {"games": {}}
    work = Path(tempfile.mkdtemp(prefix="tally-bench-"))
    try:
        if args.logs:
            folder = args.logs
            print(f"logs: {folder} ({len(list(folder.glob('*.jsonl')))} files)")
        else:
            folder = work / "logs"
            seconds = simulate_logs(args.games, args.seed, folder)
            print(f"simulated {args.games} games of each of {', '.join(GAMES)} in {seconds:.1f} s")
        files = sorted(str(p) for p in folder.glob("*.jsonl"))
        size = sum(os.path.getsize(f) for f in files) / 1e6
        print(
            f"{len(files)} logs, {size:.0f} MB, cpus available: {len(os.sched_getaffinity(0))}, "
            f"load average {os.getloadavg()[0]:.1f}"
        )

        rows, baseline = read_json_baseline(folder, work / "read_json.duckdb")
        baseline_rate = rows / baseline
        print(f"read_json baseline : {rows:,} rows in {baseline:.2f} s = {baseline_rate:,.0f} rows/s (every game)")
        events, seconds = check_only(files)
        print(
            f"check only         : {events:,} events in {seconds:.2f} s = {events / seconds:,.0f} events/s "
            f"(verify + judge every event, 1 process, nothing stored: the floor under ingest)"
        )
        summary.update(read_json_rps=round(baseline_rate), check_eps=round(events / seconds))
        runs = [args.jobs] if args.jobs else [None, 1]
        for jobs in runs:
            result = run_ingest(files, work / "library.duckdb", jobs)
            report("tally ingest", result, baseline_rate)
            key = "ingest_auto" if jobs is None else f"ingest_{jobs}"
            rate = result["events"] / result["seconds"]
            summary[key] = {
                "eps": round(rate),
                "ratio": round(rate / baseline_rate, 3),
                "workers": result["workers"],
                "tasks": result["tasks"],
                "tasks_here": result["tasks_here"],
                "writer_cpu_s": round(result["writer_cpu_s"], 2),
                "workers_cpu_s": round(result["workers_cpu_s"], 2),
                "rss_mb": [round(min(result["rss_samples"] or [0])), round(max(result["rss_samples"] or [0]))],
            }
        for game in GAMES:  # each game alone: its own read_json baseline, check floor and ingest, one process each
            mine = of_game(files, game)
            if not mine:
                continue
            rows, seconds = read_json_baseline(folder, work / "read_json.duckdb", f"{game}-*.jsonl")
            checked, check_seconds = check_only(mine)
            result = run_ingest(mine, work / "library.duckdb", args.jobs)
            rate = result["events"] / result["seconds"]
            print(
                f"{game:19s}: {result['events']:,} events; read_json {rows / seconds:,.0f} rows/s, check "
                f"{checked / check_seconds:,.0f} events/s, ingest {rate:,.0f} events/s "
                f"({result['workers'] or 1} process{'es' if result['workers'] > 1 else ''}), ratio to read_json "
                f"{rate / (rows / seconds):.2f}"
            )
            summary["games"][game] = {
                "events": result["events"],
                "read_json_rps": round(rows / seconds),
                "check_eps": round(checked / check_seconds),
                "ingest_eps": round(rate),
                "ratio": round(rate / (rows / seconds), 3),
            }

        if not args.no_memory and len(files) >= 10:
            small = max(1, len(files) // 5)
            a = child_peak(folder, small, work / "small.duckdb")
            b = child_peak(folder, len(files), work / "full.duckdb")
            print(
                f"fresh process peaks: {small} games {a['peak_mb']:.0f} MB, {len(files)} games {b['peak_mb']:.0f} MB "
                f"(x{b['peak_mb'] / a['peak_mb']:.2f} memory for x{len(files) / small:.0f} games; one process, no workers)"
            )
            summary["memory"] = {
                "small_mb": round(a["peak_mb"]),
                "full_mb": round(b["peak_mb"]),
                "games_ratio": len(files) / small,
            }

        if args.scale:
            scaled = work / "scale"
            began = time.perf_counter()
            events = replicate(folder, scaled, args.scale // len(GAMES))
            print(f"scale: {events:,} events of {len(GAMES)} games prepared in {time.perf_counter() - began:.0f} s")
            for name in ("library.duckdb", "full.duckdb", "small.duckdb", "read_json.duckdb"):
                (work / name).unlink(missing_ok=True)
            rows, seconds = read_json_baseline(scaled, work / "read_json.duckdb")
            (work / "read_json.duckdb").unlink(missing_ok=True)
            result = run_ingest(sorted(str(p) for p in scaled.glob("*.jsonl")), work / "scale.duckdb", args.jobs)
            report(f"scale ({events:,})", result, rows / seconds)
            print(
                f"{'':19s}  {result['games']:,} games in {result['seconds']:.0f} s; read_json {rows / seconds:,.0f} rows/s"
            )
            rate = result["events"] / result["seconds"]
            summary["scale"] = {
                "events": result["events"],
                "games": result["games"],
                "eps": round(rate),
                "ratio": round(rate / (rows / seconds), 3),
                "workers": result["workers"],
            }
            shutil.rmtree(scaled, ignore_errors=True)
            timed = library_commands(work / "scale.duckdb")
            print(
                f"on {result['events']:,} events: tally sql {timed['sql_ms']:.0f} ms, tally stats {timed['stats_ms']:.0f} ms "
                f"per command (python -c 'import typer' {timed['import_typer_ms']:.0f} ms in the same run); the stats "
                f"report {timed['stats_report_ms']:.0f} ms and the {timed['charts']} library charts {timed['charts_ms']:.0f} ms "
                "inside one process"
            )
            summary["scale"].update(timed)
        if args.json:
            print(json.dumps(summary))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
