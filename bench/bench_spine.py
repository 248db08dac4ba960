"""Benchmarks of the record keeper's spine; run `python bench/bench_spine.py` (add --quick for a smoke run).

1. `tally move` on a 300-event log, against `python -c "import typer"` in the same run
   (target: at most 1.3x), with the state cache warm (the usual case) and cold (first move).
2. Replay + full check (integrity, then every event judged) over 1,000 simulated games
   (target: at least 100,000 events/s).
3. a move inside `tally record` at 300 events (target: well under 5 ms).
4. `tally simulate GAME` including writing the logs (target: at least 20,000 moves/s), for every game
   (`--game NAME` for one); 2. is measured per game too, beside the read-only floor of check (reading a log
   with every integrity check, judging nothing).

`--json` prints one JSON document instead of the table: `move_ratio` (warm `tally move` over `import typer`),
`session_move_ms` and, per game, `read_eps`, `check_eps`, `replay_eps` and `simulate_mps`.

Numbers are ratios against baselines measured in the same run where a baseline exists.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tally.core.registry import get, names
from tally.store.logs import log as logfile
from tally.store.recording import record
from tally.store.recording.simulate import playout, simulate


def _timed(command: list[str], prepare=None) -> float:
    if prepare:
        prepare()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.decode()}")
    return elapsed


def _tally_command() -> list[str]:
    script = Path(sys.executable).with_name("tally")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from tally.cli.main import main; main()"]


def build_300_event_log(folder: Path) -> Path:
    """A real table-mode 4-player game in progress, cut at 300 events.

    Random games of Splendor end in ~200-270 events, so the longest of a few playouts is taken and
    padded the way real tables pad logs: corrections (a move voided, then entered again).
    """
    spec = get("splendor")
    best: list = []
    for i in range(40):
        events, _ = playout("splendor", 4, random.Random(f"bench:{i}"))
        events = spec.table_transcript(events)
        if len(events) > len(best):
            best = events
    path = folder / "game-300.jsonl"
    body = best[: min(len(best) - 20, 250)]
    logfile.create(path, body)
    while (count := len(logfile.read(path).events)) < 300:
        if count == 299:
            record.note(path, "coffee break")
            continue
        record.undo(path, "entered by mistake")
        pos = record.position(path)
        record.move(path, spec.format(spec.legal_moves(pos.table.state)[0]))
    pos = record.position(path)
    assert len(pos.log.events) == 300 and pos.table.state.phase != "over", "the bench log must be a game in progress"
    return path


def bench_move(rounds: int) -> dict[str, float]:
    # pip compiles bytecode on a normal install; make sure an editable or no-bytecode setup does not skew this
    for name in ("core", "store", "cli"):
        module = __import__(f"tally.{name}", fromlist=["_"])
        compileall.compile_dir(os.path.dirname(module.__file__), quiet=1)
    folder = Path(tempfile.mkdtemp(prefix="tally-bench-"))
    cache = folder / "cache"
    os.environ["TALLY_CACHE_DIR"] = str(cache)
    try:
        source = build_300_event_log(folder)
        pos = record.position(source)
        spec = pos.spec
        move = spec.format(spec.legal_moves(pos.table.state)[0])
        work = folder / "work.jsonl"
        tally = _tally_command()

        def fresh(warm: bool):
            def prepare() -> None:
                shutil.copyfile(source, work)
                shutil.rmtree(cache, ignore_errors=True)
                if warm:  # the previous move left a valid cache entry
                    record.position(work)
                    record.note(work, "warm")

            return prepare

        baseline, warm, cold = [], [], []
        for _ in range(rounds):  # interleaved so that machine noise hits all three alike
            baseline.append(_timed([sys.executable, "-c", "import typer"]))
            warm.append(_timed([*tally, "move", str(work), move], fresh(True)))
            cold.append(_timed([*tally, "move", str(work), move], fresh(False)))
        typer_ms = statistics.median(baseline) * 1000
        warm_ms = statistics.median(warm) * 1000
        cold_ms = statistics.median(cold) * 1000
        return {
            "import typer (ms)": typer_ms,
            "tally move, warm cache (ms)": warm_ms,
            "tally move, cold (ms)": cold_ms,
            "ratio warm / typer": warm_ms / typer_ms,
            "ratio cold / typer": cold_ms / typer_ms,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def bench_session(moves: int) -> dict[str, float]:
    """`tally record`: a move inside the session (judged against the fold in memory, appended, fsynced) at 300
    events (target: well under 5 ms); each move is voided right after, so the table stays the same."""
    from tally.store.recording.session import Session

    folder = Path(tempfile.mkdtemp(prefix="tally-bench-"))
    os.environ["TALLY_CACHE_DIR"] = str(folder / "cache")
    try:
        path = build_300_event_log(folder)
        session = Session(path)
        move = session.spec.format(session.spec.legal_moves(session.state)[0])
        timings, undos = [], []
        for _ in range(moves):
            start = time.perf_counter()
            assert session.move(move).accepted
            timings.append(time.perf_counter() - start)
            start = time.perf_counter()
            assert session.undo("bench").accepted
            undos.append(time.perf_counter() - start)
        return {
            "session move at 300 events (ms, incl. fsync)": statistics.median(timings) * 1000,
            "session undo (ms, incl. fsync)": statistics.median(undos) * 1000,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def bench_check_and_simulate(game: str, games: int) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="tally-bench-"))
    try:
        start = time.perf_counter()
        summary = simulate(game, games, 2026, folder)
        sim_seconds = time.perf_counter() - start
        start = time.perf_counter()
        read = 0
        for path in summary.files:  # the floor: decode, SHA-256 chain and canonical form, nothing judged
            read += len(logfile.read(path).events)
        read_seconds = time.perf_counter() - start
        start = time.perf_counter()
        events = 0
        for path in summary.files:
            report = record.check(path)
            assert report.ok, report
            events += report.events
        check_seconds = time.perf_counter() - start
        start = time.perf_counter()
        replayed = 0
        for path in summary.files:
            _, frames = record.replay(path)
            replayed += len(frames)
        replay_seconds = time.perf_counter() - start
        return {
            f"{game}: simulated games": games,
            f"{game}: simulate moves/s (incl. writing logs)": summary.moves / sim_seconds,
            f"{game}: read events/s (integrity only: the floor of check)": read / read_seconds,
            f"{game}: check events/s (integrity + every event judged)": events / check_seconds,
            f"{game}: replay events/s (every event judged, state kept per step)": replayed / replay_seconds,
            f"{game}: events": events,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def summary(results: dict[str, float], games: list[str], installed: str) -> dict[str, object]:
    """The machine-readable summary of one run: every figure measured in it, rates per second."""
    rates = {
        "read_eps": "read events/s (integrity only: the floor of check)",
        "check_eps": "check events/s (integrity + every event judged)",
        "replay_eps": "replay events/s (every event judged, state kept per step)",
        "simulate_mps": "simulate moves/s (incl. writing logs)",
    }
    per_game = {}
    for game in games:
        figures = {key: round(results[f"{game}: {label}"], 1) for key, label in rates.items()}
        figures["check_over_read"] = round(figures["check_eps"] / figures["read_eps"], 3)
        figures["events"] = results[f"{game}: events"]
        per_game[game] = figures
    return {
        "move_ratio": round(results["ratio warm / typer"], 3),
        "move_cold_ratio": round(results["ratio cold / typer"], 3),
        "typer_import_ms": round(results["import typer (ms)"], 2),
        "move_ms": round(results["tally move, warm cache (ms)"], 2),
        "session_move_ms": round(results["session move at 300 events (ms, incl. fsync)"], 3),
        "games": per_game,
        "installed": installed,
        "python": sys.version.split()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer rounds and games")
    parser.add_argument(
        "--game", action="append", help="simulate and check only this game (repeat; default: every game)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON summary (move_ratio, session_move_ms, per game read/check/replay/simulate "
        "rates) instead of the table",
    )
    args = parser.parse_args()
    rounds, games = (5, 20) if args.quick else (25, 1000)  # a smoke run: a few games of each (Splice games are long)
    import tally.cli

    installed = (
        "editable (slower imports: the editable finder)" if "site-packages" not in tally.cli.__file__ else "regular"
    )
    if not args.json:
        print(f"tally installed: {installed}; python {sys.version.split()[0]}")
    results = bench_move(rounds)
    results.update(bench_session(rounds * 4))
    for game in args.game or names():
        results.update(bench_check_and_simulate(game, games))
    if args.json:
        print(json.dumps(summary(results, args.game or names(), installed)))
        return
    width = max(len(k) for k in results)
    for key, value in results.items():
        shown = f"{value:,.2f}" if isinstance(value, float) else f"{value:,}"
        print(f"{key:<{width}}  {shown}")


if __name__ == "__main__":
    main()
