"""Benchmark: what an answer about a game costs against the game's length (issue 36); run
`python bench/bench_length.py` (add --quick for a smoke run, --svg FILE for the chart as a picture).

Random Splice games under house rules that let a game run on (tests/support/long_games.py), of 100 to 20,000 events, are
served by a real `tally serve FOLDER --db LIBRARY --port 0` on loopback (its own process; the client runs here, on
the same cores) and ingested into its history library. For each answer a table or the library page asks, the server
is started afresh and each game is asked once, shortest first, after one request about a small other game (the
server's imports paid): the first request about that game after start, which opens it. That is repeated (`--rounds`)
and the median taken. The answers:

- view: `GET /api/games/{id}` as the host (the game opened: its state cache or latest checkpoint, the lines after it)
- moves: `GET .../moves`, the legal moves now
- move: `POST .../moves`, the first legal move recorded (the log copied back before the next round)
- events first page / latest page: `GET .../events?after=0` and `?after=SEQ-200`
- stream resume: `GET .../stream` with `Last-Event-ID: SEQ-3`, until the 3 events after it arrive
- library game page: `GET /api/library/games/{id}` (row, chart, first page of steps, result)
- library step: `GET /api/library/games/{id}/steps/{SEQ/2}` (the board in the middle of the replay)
- library steps page: `GET /api/library/games/{id}/steps?after=SEQ/2`
- history: `GET .../history`, the table's history, its newest page; history, next page: the older page after it
  (`?before=` the first page's `before`), as the page's "Older" asks

Before them, one round with an empty cache (`TALLY_CACHE_DIR` new): the first read of each game on this machine,
which folds it whole once (and keeps its checkpoints), reported apart: that cost grows with the length, once.

It prints, per answer, the time at each length, the ratio of the 14,000-event game (and the longest) to the
400-event one (goal: at most 2x), the largest answer in bytes (goal: under 256 KB), and a chart of time against
length. The machine is shared: every figure is noisy, the ratios are measured in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from bench_serve import start  # noqa: E402

from support.long_games import write_long_game  # noqa: E402

LENGTHS = [100, 200, 400, 800, 1600, 3200, 6400, 14000, 20000]
QUICK = [100, 400, 1600]
BASE, LONG = 400, 14000


def games_of(folder: Path, lengths: list[int]) -> dict[int, str]:
    """A log of each length (distinct games: their seeds differ), and a small other one to warm a server up."""
    made = {}
    for index, length in enumerate(lengths):
        write_long_game(folder / f"len{length}.jsonl", length, seed=index + 1)
        made[length] = f"len{length}"
    write_long_game(folder / "warm.jsonl", 60, seed=999)
    return made


def library_ids(db: Path) -> dict[str, str]:
    """Each served game's id in the library, by its file's stem."""
    from tally.store import library

    found = {}
    for gid, source in library.query(db, "SELECT game_id, source FROM games").rows():
        found[Path(str(source)).stem] = str(gid)
    return found


def seq_of(url: str, token: str, ident: str) -> int:
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as http:
        return int(http.get(f"/api/games/{ident}").json()["seq"])


def server_cpu(pid: int) -> float:
    """The CPU time the server's threads have used, in seconds, to the nanosecond (`/proc/PID/task/*/schedstat`): on a
    shared machine what a request costs the server says more than the time its answer took to come."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return total / 1e9


def timed(call: Callable[[], httpx.Response]) -> tuple[float, int]:
    began = time.perf_counter()
    answer = call()
    spent = time.perf_counter() - began
    if answer.status_code not in (200, 201):
        raise SystemExit(f"{answer.request.url}: {answer.status_code} {answer.text[:300]}")
    return spent, len(answer.content)


def costed(pid: int, call: Callable[[], tuple[float, int]]) -> tuple[float, float, int]:
    """(time to the answer, the server's CPU time meanwhile, the answer's bytes)."""
    before = server_cpu(pid)
    spent, size = call()
    return spent, server_cpu(pid) - before, size


def resume(http: httpx.Client, ident: str, seq: int) -> tuple[float, int]:
    """The stream opened after SEQ-3: the time until the 3 events after it arrived, and their bytes (`http`: a client
    made before, whose making is not the server's cost)."""
    got, size = 0, 0
    began = time.perf_counter()
    with http.stream("GET", f"/api/games/{ident}/stream", headers={"Last-Event-ID": str(seq - 3)}) as stream:
        for text in stream.iter_lines():
            size += len(text) + 1
            if text.startswith("id: "):
                got += 1
                if got == 3:
                    break
    return time.perf_counter() - began, size


ANSWERS = [
    "view",
    "moves",
    "move",
    "events first page",
    "events latest page",
    "stream resume",
    "library game page",
    "library step",
    "library steps page",
    "history",
    "history, next page",
]


def prepared(
    answer: str, http: httpx.Client, url: str, token: str, ident: str, gid: str, seq: int
) -> Callable[[], tuple[float, int]]:
    """One request of kind `answer` about a game (`ident` served, `gid` in the library, `seq` its last event), ready to
    send: what it needs first (a move's listing) asked before."""
    game = f"/api/games/{ident}"
    if answer == "view":
        return lambda: timed(lambda: http.get(game))
    if answer == "moves":
        return lambda: timed(lambda: http.get(game + "/moves"))
    if answer == "move":
        listing = http.get(game + "/moves").json()  # the move is then the first write
        return lambda: timed(
            lambda: http.post(game + "/moves", json={"move": listing["moves"][0], "expected_seq": listing["seq"]})
        )
    if answer == "events first page":
        return lambda: timed(lambda: http.get(game + "/events?after=0"))
    if answer == "events latest page":
        return lambda: timed(lambda: http.get(game + f"/events?after={max(0, seq - 200)}"))
    if answer == "stream resume":
        return lambda: resume(http, ident, seq)
    if answer == "library game page":
        return lambda: timed(lambda: http.get(f"/api/library/games/{gid}"))
    if answer == "library step":
        return lambda: timed(lambda: http.get(f"/api/library/games/{gid}/steps/{max(1, seq // 2)}"))
    if answer == "history":  # the newest page: the log's tail, read back from the checkpoint before it
        return lambda: timed(lambda: http.get(game + "/history"))
    if answer == "history, next page":  # the older page the page's "Older" asks for next
        older = http.get(game + "/history").json()["before"]
        return lambda: timed(lambda: http.get(game + f"/history?before={older}"))
    return lambda: timed(lambda: http.get(f"/api/library/games/{gid}/steps?after={seq // 2}"))


Cost = tuple[float, float, int]  # time to the answer, the server's CPU time for it, its bytes


def one_round(
    folder: Path,
    db: Path,
    answers: list[str],
    games: dict[int, str],
    ids: dict[str, str],
    seqs: dict[int, int],
    pristine: Path,
) -> dict[str, dict[int, Cost]]:
    """Each answer asked of each game as its first request after a fresh start of the server."""
    found: dict[str, dict[int, Cost]] = {}
    for answer in answers:
        process, url, token, _ = start(folder, None, "--db", str(db), probe="/api/catalog")  # no game opened
        try:
            with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
                http.get("/api/games/warm")  # the server's own first request (its imports) is not a game's
                http.get(f"/api/library/games/{ids['warm']}/steps/2")
                found[answer] = {}
                for length, ident in games.items():
                    call = prepared(answer, http, url, token, ident, ids[ident], seqs[length])
                    found[answer][length] = costed(process.pid, call)
        finally:
            process.terminate()
            process.wait(10)
        if answer == "move":  # the logs as they were, for the next round
            for ident in games.values():
                shutil.copy(pristine / f"{ident}.jsonl", folder / f"{ident}.jsonl")
    return found


def text_chart(rows: dict[str, dict[int, float]], lengths: list[int], width: int = 40) -> list[str]:
    """Each answer's time against the length, as a bar per length (a text chart: every terminal draws it)."""
    out = []
    top = max(max(values.values()) for values in rows.values()) or 1.0
    for answer, values in rows.items():
        out.append(f"  {answer}")
        for length in lengths:
            bar = "#" * max(1, round(values[length] / top * width))
            out.append(f"    {length:>6} events {values[length] * 1000:8.1f} ms {bar}")
    return out


def svg_chart(rows: dict[str, dict[int, float]], title: str) -> str:
    """The same as a picture, drawn by tally's own chart of lines (each answer a line: x the length, y ms)."""
    from tally.core import charts

    points = [
        (answer, length, round(seconds * 1000, 2))
        for answer, values in rows.items()
        for length, seconds in values.items()
    ]
    return charts.score_lines(points, title, y_label="ms", x_label="events in the game")


def catch_up(where: str, lengths: list[int], folder: Path, repeats: int) -> dict[int, tuple[float, int, int]]:
    """Part 2: a server (in this process) following a game that another writer moves on by one move, at each length:
    the CPU time of its catching up (median of `repeats` moves) and the lines it read and judged for the last. `where`:
    a folder (`tally move` writes the same file) or a PostgreSQL URL (another server's append)."""
    from tally.core import registry
    from tally.store.logs.places import import_log
    from tally.store.recording import positions, record
    from tally.store.serving.tables import Tables

    spec = registry.get("splice")
    found = {}
    for length in lengths:
        ident = f"catch{length}"
        path = write_long_game(folder / f"{ident}.jsonl", length, seed=length)
        served, writer = Tables(where), Tables(where)
        if where != str(folder):
            import_log(path, where, ident)
        game = served.game(ident)
        assert game is not None
        other = writer.game(ident) if where != str(folder) else None
        spent = []
        for _ in range(repeats):
            state = game.record.state if other is None else other.record.state
            move = spec.format(spec.legal_moves(state)[0])
            if other is None:
                assert record.move(path, move).accepted  # as `tally move` does: another process's write
            else:
                assert other.record.append(move).accepted  # another server's append, told by NOTIFY
            positions.Work.read = positions.Work.judged = 0
            began = time.process_time()
            game.sync()
            spent.append(time.process_time() - began)
        found[length] = (statistics.median(spent), positions.Work.read, positions.Work.judged)
    return found


def report_catch_up(label: str, found: dict[int, tuple[float, int, int]]) -> None:
    lengths = sorted(found)
    print(f"{label}: catching up on one move, by the game's length (CPU ms, lines read and judged for it):")
    for length in lengths:
        cpu, read, judged = found[length]
        print(f"  {length:>6} events  {cpu * 1000:7.2f} ms  read {read}  judged {judged}")
    first, last = found[lengths[0]], found[lengths[-1]]
    print(
        f"  {lengths[-1]} / {lengths[0]}: CPU {last[0] / max(first[0], 1e-9):.2f}x, work "
        f"{(last[1] + last[2]) / max(1, first[1] + first[2]):.2f}x (goal: at most 2x)"
    )


def catching(work: Path, lengths: list[int], store: bool, repeats: int) -> None:
    """Part 2 on a folder, and (`store`) on a database of a throwaway PostgreSQL cluster."""
    folder = work / "catch"
    folder.mkdir(exist_ok=True)
    report_catch_up("a folder, `tally move` on the served file", catch_up(str(folder), lengths, folder, repeats))
    if not store:
        return
    from support.pg_cluster import Cluster, find_server

    server = find_server()
    if server is None:
        print("--store: no PostgreSQL server installed: skipped")
        return
    with Cluster(server) as cluster:
        url = cluster.new_database()
        report_catch_up("PostgreSQL, another server's append", catch_up(url, lengths, work / "catch", repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 lengths, one round, fewer answers")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of fresh starts (the median is reported)")
    parser.add_argument("--svg", metavar="FILE", help="also write the chart as an SVG picture")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the tables")
    parser.add_argument("--catch-up-only", action="store_true", help="only part 2: catching up on another writer")
    parser.add_argument("--store", action="store_true", help="part 2 on a throwaway PostgreSQL cluster too")
    options = parser.parse_args()
    lengths = QUICK if options.quick else LENGTHS
    base = BASE
    long = LONG if LONG in lengths else lengths[-1]
    rounds = 1 if options.quick else options.rounds
    answers = ANSWERS
    work = Path(tempfile.mkdtemp(prefix="tally-length-"))
    if options.catch_up_only:
        try:
            os.environ["TALLY_CACHE_DIR"] = str(work / "cache")
            catching(
                work, [100, 10_000] if not options.quick else [100, 1000], options.store, 3 if options.quick else 9
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    try:
        folder, pristine, db = work / "games", work / "pristine", work / "club.duckdb"
        folder.mkdir()
        os.environ["TALLY_CACHE_DIR"] = str(work / "cache")  # what this run's servers keep: new, empty
        games = games_of(folder, lengths)
        shutil.copytree(folder, pristine)
        from tally.store import library

        library.ingest(db, sorted(folder.glob("*.jsonl")), jobs=1)
        ids = library_ids(db)
        process, url, token, _ = start(folder, None, "--db", str(db))
        try:
            seqs = {length: seq_of(url, token, ident) for length, ident in games.items()}
        finally:
            process.terminate()
            process.wait(10)
        shutil.rmtree(work / "cache", ignore_errors=True)  # the first read of each game on this machine, measured
        cold = one_round(folder, db, ["view", "library game page"], games, ids, seqs, pristine)
        measured = [one_round(folder, db, answers, games, ids, seqs, pristine) for _ in range(rounds)]
        times = {
            answer: {n: statistics.median(r[answer][n][0] for r in measured) for n in lengths} for answer in answers
        }
        cpus = {
            answer: {n: statistics.median(r[answer][n][1] for r in measured) for n in lengths} for answer in answers
        }
        sizes = {answer: max(r[answer][n][2] for r in measured for n in lengths) for answer in answers}

        def ratio(table: dict[str, dict[int, float]], answer: str, length: int) -> float:
            return table[answer][length] / max(table[answer][base], 1e-6)

        if options.svg:
            Path(options.svg).write_text(
                svg_chart(
                    cpus,
                    "tally serve: the server's CPU time for a game's first answer after start, by the game's length",
                ),
                encoding="utf-8",
            )
        if options.json:
            print(
                json.dumps(
                    {
                        "lengths": lengths,
                        "time_ms": {a: {str(n): round(t * 1000, 3) for n, t in v.items()} for a, v in times.items()},
                        "cpu_ms": {a: {str(n): round(t * 1000, 3) for n, t in v.items()} for a, v in cpus.items()},
                        "cpu_ratio": {a: round(ratio(cpus, a, long), 2) for a in answers},
                        "time_ratio": {a: round(ratio(times, a, long), 2) for a in answers},
                        "largest_bytes": sizes,
                        "cold_cpu_ms": {
                            a: {str(n): round(v[n][1] * 1000, 1) for n in lengths} for a, v in cold.items()
                        },
                    }
                )
            )
            return
        print(
            f"games of {', '.join(map(str, lengths))} events (Splice, random, run on); {rounds} round(s) of fresh "
            f"starts, median; the machine is shared: figures are noisy, ratios are of one run"
        )
        for name, table in (
            ("the server's CPU time", cpus),
            ("time to the answer (loopback, client in this process)", times),
        ):
            print()
            print(f"{name}, ms, for the first request about a game after start:")
            print(f"  {'answer':<22}" + "".join(f"{n:>8}" for n in lengths) + f"  {long}/{base} {lengths[-1]}/{base}")
            for answer in answers:
                print(
                    f"  {answer:<22}"
                    + "".join(f"{table[answer][n] * 1000:8.1f}" for n in lengths)
                    + f"  {ratio(table, answer, long):8.2f}x {ratio(table, answer, lengths[-1]):8.2f}x"
                )
        worst = max(max(ratio(cpus, a, long), ratio(cpus, a, lengths[-1])) for a in answers)
        print()
        print("largest answer, KB: " + ", ".join(f"{a} {sizes[a] / 1024:.1f}" for a in answers))
        print(
            f"goal: every answer about a game of {long}+ events at most 2x the same about {base} events (CPU time: worst "
            f"{worst:.2f}x), none over 256 KB (largest {max(sizes.values()) / 1024:.1f} KB): "
            f"{'met' if worst <= 2 and max(sizes.values()) < 256 * 1024 else 'NOT met'}"
        )
        print()
        print(
            "first read of each game on this machine (no checkpoint yet: the game folded whole, once), server CPU ms:"
        )
        for answer, values in cold.items():
            print(f"  {answer:<22}" + "".join(f"{values[n][1] * 1000:8.1f}" for n in lengths))
        print()
        print("the server's CPU time against the game's length (first request about a game after a start):")
        for line in text_chart(cpus, lengths):
            print(line)
        print()
        catching(work, [100, 1000] if options.quick else [100, 10_000], options.store, 3 if options.quick else 9)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
