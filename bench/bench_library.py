"""Benchmark: the history library's charts, its stats report and the library page of `tally serve`, on a large
library (issue 20 point 5: each chart and report under 100 ms inside DuckDB, the page under 300 ms on loopback).

    python bench/bench_library.py [--events 1000000] [--games 40] [--seed 1] [--db LIBRARY | --keep LIBRARY] [--runs 7]
                                  [--callgrind] [--json]
    python bench/bench_library.py --quick      (a smoke run: a small library, a few runs, no pause before a first request)

1. The library: `--db LIBRARY` as it is, or built here: `--games` simulated games of each of the four games,
   replicated (`bench_ingest.replicate`: every copy moved on in time and re-chained, so a distinct valid log) to
   about `--events` events in all, a quarter per game, and ingested (`library.ingest`). Every game is simulated,
   so every query here counts simulated games (`simulated=True`, the page's `simulated=all`).
2. Inside DuckDB, on one warm read-only connection: each library chart's query (`library_charts._queries`, as
   `library_charts` runs it) and each query of the stats report (`library.stats`, timed query by query), the best
   of `--runs`; beside them, as the yardstick of the same run, a full scan of the events table
   (`SELECT count(*), sum(length(line)) FROM events`): the ratio to it is what to compare across machines.
   Then `library_charts` and `library.stats` whole (each opening its connection as the commands do).
   The stats report reads each game's reports from `report_rows` where the last ingest kept them (a library
   built by an older tally has none: they are worked out there and then); beside it, each game's report worked
   out from its tables, as an ingest works it out, and the whole report on the warm connection (goal < 50 ms).
3. On loopback: `tally serve --db LIBRARY --port 0` in its own process, and each request the library page makes
   (its HTML and script, the list with and without filters, the charts, one game with its chart and replay, a
   step's picture), the first time (cold: the library opened, the replay folded) and the median of `--runs`
   after; beside them `GET /api/games` of the same server (an empty folder) as the yardstick.

4. The commands as a user runs them, a fresh process each: `tally sql "SELECT count(*) FROM games"` and `tally
   stats --simulated` (goals < 150 ms and < 200 ms), beside `python -c "import typer"`, the best of `--runs`;
   with `--callgrind`, each one's instructions counted by valgrind too (repeatable where times are not).

Only the standard library and tally itself are used. Times on a loaded machine are noisy: the ratios to the
yardsticks of the same run are what to compare.
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ingest import GAMES, replicate, run_ingest, simulate_logs  # noqa: E402

GOAL_QUERY_MS = 100.0
GOAL_PAGE_MS = 300.0
GOAL_REPORT_MS = 50.0
GOAL_COMMAND_MS = {"tally sql": 150.0, "tally stats": 200.0}


def best_ms(work: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        work()
        times.append((time.perf_counter() - began) * 1000)
    return min(times)


def build(events: int, games: int, seed: int, work: Path, db: Path) -> tuple[Path, dict[str, Any]]:
    logs, scaled = work / "logs", work / "scaled"
    began = time.perf_counter()
    simulate_logs(games, seed, logs)
    made = replicate(logs, scaled, events // len(GAMES))
    prepared = time.perf_counter() - began
    result = run_ingest(sorted(str(p) for p in scaled.glob("*.jsonl")), db, None)
    shutil.rmtree(scaled, ignore_errors=True)
    print(
        f"library: {result['events']:,} events, {result['games']:,} games ({made:,} events prepared in "
        f"{prepared:.0f} s, ingested in {result['seconds']:.0f} s), {result['db_mb']:.0f} MB"
    )
    return db, {"events": result["events"], "games": result["games"], "ingest_s": round(result["seconds"], 1)}


def inside_duckdb(db: Path, runs: int) -> dict[str, Any]:
    """Each chart's and each stats query's time on one warm connection, and the yardstick scan."""
    from tally.store.library import report as library_stats
    from tally.store.library import stats
    from tally.store.library.charts import LOWER_WINS, _lower_wins, _queries, library_charts
    from tally.store.library.report import Scope
    from tally.store.library.schema import connect_read_only, stored_reports

    con = connect_read_only(db)
    try:
        scan = best_ms(lambda: con.execute("SELECT count(*), sum(length(line)) FROM events").fetchall(), runs)
        scope = Scope(None, True)
        lower = _lower_wins(stored_reports(con))
        charts = {}
        for key, _, _, _, sql in _queries(scope.where()):
            query = sql.replace(LOWER_WINS, lower)
            charts[key] = best_ms(lambda: con.execute(query, scope.params()).fetchall(), runs)
        # the stats report's queries, each timed where the report runs it (rows_of, on the report's own connection)
        timed: dict[str, list[float]] = {}
        original = library_stats.rows_of

        def rows_of(connection: Any, sql: str, params: dict[str, Any]) -> Any:
            began = time.perf_counter()
            found = original(connection, sql, params)
            words = " ".join(sql.split())
            name = f"{len(timed_now) + 1:2d} {words[words.find('FROM') :][:40]}"
            timed_now.append(name)
            timed.setdefault(name, []).append((time.perf_counter() - began) * 1000)
            return found

        library_stats.rows_of = rows_of  # type: ignore[assignment]
        try:
            for _ in range(runs):
                timed_now: list[str] = []
                stats(db, simulated=True)
        finally:
            library_stats.rows_of = original  # type: ignore[assignment]
        report_queries = {name: min(values) for name, values in timed.items()}
        # each game's report worked out from its tables (what an ingest keeps, and what a library without kept
        # reports runs for every `tally stats`)
        worked_out = {}
        for spec in stored_reports(con):
            for report in spec["reports"]:
                query = report["sql"].format(where=scope.where(), limit=10)
                worked_out[f"{spec['game']} {report['key']}"] = best_ms(lambda: con.execute(query).fetchall(), runs)
        kept = con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'report_rows'"
        ).fetchall()[0][0]
        kept_rows = con.execute("SELECT count(*) FROM report_rows").fetchall()[0][0] if kept else 0
        # the library is held open by `con`: the report's own connection costs almost nothing, as on a warm server
        stats_report = best_ms(lambda: stats(db, simulated=True), runs)
        charts_whole = best_ms(lambda: library_charts(db, simulated=True), max(3, runs // 2))
    finally:
        con.close()
    stats_whole = best_ms(lambda: stats(db, simulated=True), max(3, runs // 2))
    return {
        "scan_ms": scan,
        "charts": charts,
        "stats_queries": report_queries,
        "reports_worked_out": worked_out,
        "kept_reports": kept_rows,
        "stats_report_ms": stats_report,
        "charts_whole_ms": charts_whole,
        "stats_whole_ms": stats_whole,
    }


def commands(db: Path, runs: int, callgrind: bool) -> dict[str, dict[str, float]]:
    """`tally sql` and `tally stats` as a user runs them (a fresh process each), beside `import typer`."""
    tally = [sys.executable, "-c", "from tally.cli.program import run; run()"]
    which = {
        "python -c 'import typer' (yardstick)": [sys.executable, "-c", "import typer"],
        "tally sql 'SELECT count(*) FROM games'": [*tally, "sql", "SELECT count(*) FROM games", "--db", str(db)],
        "tally stats --simulated": [*tally, "stats", "--db", str(db), "--simulated"],
    }
    found: dict[str, dict[str, float]] = {}
    for label, argv in which.items():

        def once() -> None:
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

        found[label] = {"best_ms": best_ms(once, runs)}
        if callgrind:
            done = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                check=True,
            )
            collected = [line for line in done.stderr.splitlines() if "Collected" in line]
            found[label]["instructions"] = float(collected[-1].split()[-1])
    return found


def request_ms(host: str, port: int, path: str, token: str) -> tuple[float, int, bytes]:
    """One request on a fresh loopback connection, as a browser's first request to a server."""
    began = time.perf_counter()
    connection = http.client.HTTPConnection(host, port, timeout=120)
    try:
        connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        answer = connection.getresponse()
        body = answer.read()
    finally:
        connection.close()
    return (time.perf_counter() - began) * 1000, answer.status, body


def on_loopback(db: Path, work: Path, runs: int, idle: float) -> dict[str, Any]:
    tables = work / "tables"
    tables.mkdir(exist_ok=True)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tally.cli.main import main; main()",
            "serve",
            str(tables),
            "--db",
            str(db),
            "--port",
            "0",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline())
        host, port = started["url"].removeprefix("http://").rsplit(":", 1)
        token = started["token"]
        for _ in range(200):
            try:
                request_ms(host, int(port), "/api/games", token)
                break
            except OSError:
                time.sleep(0.05)
        _, status, body = request_ms(host, int(port), "/api/library/games?simulated=all&limit=1&game=array", token)
        assert status == 200, body
        game = json.loads(body)["shown"]["games"][0]
        person = game["players"][0]
        paths = {
            "GET /api/games (yardstick)": "/api/games",
            "GET /library (HTML)": "/library",
            "GET /static/library.js": "/static/library.js",
            "list: every game": "/api/library/games?simulated=all",
            "list: a game, a player, a month": f"/api/library/games?simulated=all&game=array&player={person}"
            f"&since={game['started_at'][:8]}01&until={game['started_at'][:10]}",
            "list: real games (none here)": "/api/library/games",
            "charts: every game": "/api/library/charts?simulated=all",
            "charts: one game": "/api/library/charts?simulated=all&game=splendor",
            "a game: chart and replay": f"/api/library/games/{game['game_id']}",
            "a step's picture": f"/api/library/games/{game['game_id']}/steps/{max(1, game['events'] // 2)}",
        }
        found: dict[str, dict[str, float]] = {}
        for label, path in paths.items():
            time.sleep(
                idle
            )  # the library let go (after library_page.KEEP_OPEN): the first request opens it, as a first visit does
            first, status, body = request_ms(host, int(port), path, token)
            assert status == 200, (path, status, body[:200])
            warm = sorted(request_ms(host, int(port), path, token)[0] for _ in range(runs))
            found[label] = {"first_ms": first, "median_ms": warm[len(warm) // 2], "bytes": len(body)}
        return found
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000, help="events of the library built (about)")
    parser.add_argument("--games", type=int, default=40, help="games simulated of each game, then replicated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", type=Path, default=None, help="measure this library instead of building one")
    parser.add_argument("--keep", type=Path, default=None, help="build the library at this path and keep it (for --db)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="a smoke run: about 20,000 events, 3 runs")
    parser.add_argument("--json", action="store_true", help="print one JSON summary at the end")
    parser.add_argument("--callgrind", action="store_true", help="count the commands' instructions with valgrind too")
    args = parser.parse_args()
    if args.quick:
        args.events, args.games, args.runs = 20_000, 4, 3

    work = Path(tempfile.mkdtemp(prefix="tally-bench-library-"))
    summary: dict[str, Any] = {}
    try:
        if args.db is not None:
            db = args.db
            from tally.store import library

            counted = list(library.query(db, "SELECT count(*) FROM events").rows())[0][0]
            print(f"library: {db} ({counted:,} events)")
            summary["library"] = {"events": counted}
        else:
            db, summary["library"] = build(
                args.events, args.games, args.seed, work, args.keep or work / "library.duckdb"
            )

        inside = inside_duckdb(db, args.runs)
        scan = inside["scan_ms"]
        print(
            f"\ninside DuckDB (best of {args.runs}, one warm connection); yardstick: a full scan of events "
            f"{scan:.1f} ms"
        )
        for group, label in (("charts", "chart"), ("stats_queries", "stats report")):
            for key, ms in inside[group].items():
                mark = "ok" if ms < GOAL_QUERY_MS else "OVER"
                print(
                    f"  {label:12s} {key:26s} {ms:7.1f} ms  x{ms / scan:5.2f} the scan  {mark} (goal < {GOAL_QUERY_MS:.0f} ms)"
                )
        for key, ms in inside["reports_worked_out"].items():
            print(f"  worked out   {key:26s} {ms:7.1f} ms  x{ms / scan:5.2f} the scan  (kept by ingest in report_rows)")
        kept = inside["kept_reports"]
        print(
            f"  the stats report on the warm connection: {inside['stats_report_ms']:.1f} ms "
            f"({f'every game report read from {kept} kept rows' if kept else 'no kept reports: each worked out'}) "
            f"{'ok' if inside['stats_report_ms'] < GOAL_REPORT_MS else 'OVER'} (goal < {GOAL_REPORT_MS:.0f} ms)"
        )
        print(
            f"  library_charts whole (7 charts, its own connection): {inside['charts_whole_ms']:.0f} ms; "
            f"library.stats whole (its own connection): {inside['stats_whole_ms']:.0f} ms"
        )
        summary["inside"] = inside

        page = on_loopback(db, work, args.runs, 0.0 if args.quick else 2.5)
        yard = page["GET /api/games (yardstick)"]["median_ms"]
        print(
            f"\ntally serve on loopback (a fresh connection per request; median of {args.runs} after the first); "
            f"yardstick GET /api/games {yard:.1f} ms"
        )
        for label, found in page.items():
            worst = max(found["first_ms"], found["median_ms"])
            mark = "ok" if worst < GOAL_PAGE_MS else "OVER"
            print(
                f"  {label:34s} first {found['first_ms']:7.1f} ms  then {found['median_ms']:7.1f} ms  "
                f"x{found['median_ms'] / yard:5.1f} the yardstick  {found['bytes']:>9,} bytes  {mark} "
                f"(goal < {GOAL_PAGE_MS:.0f} ms)"
            )
        summary["page"] = page
        ran = commands(db, args.runs, args.callgrind)
        yard_ms = ran["python -c 'import typer' (yardstick)"]
        print(f"\nthe commands, a fresh process each (best of {args.runs})")
        for label, found in ran.items():
            goal = GOAL_COMMAND_MS.get(label.split(" '")[0].split(" --")[0])
            counted = (
                f"  {found['instructions'] / 1e6:6.0f} M instructions  x{found['instructions'] / yard_ms['instructions']:4.2f}"
                if "instructions" in found
                else ""
            )
            mark = "" if goal is None else f"  {'ok' if found['best_ms'] < goal else 'OVER'} (goal < {goal:.0f} ms)"
            print(
                f"  {label:42s} {found['best_ms']:7.1f} ms  x{found['best_ms'] / yard_ms['best_ms']:4.2f} the yardstick"
                f"{counted}{mark}"
            )
        summary["commands"] = ran
        if args.json:
            print(json.dumps(summary))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
