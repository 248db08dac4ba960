"""Benchmarks of `tally serve`; run `python bench/bench_serve.py` (add --quick for a smoke run).

Every number is measured against a real `tally serve DIR --port 0` on loopback (a subprocess; the clients run in
this process, on the same cores), so on a loaded machine they are pessimistic.

1. start-up: from starting `tally serve` to its first answer.
2. a move's round trip (POST .../moves, 201) on a 300-event log: p50 and p99 (goal: under 5 ms and 20 ms). Each
   log takes 10 moves, then the next copy is used, so every move is judged at 300-310 events.
3. a move's arrival on another device's stream (GET .../stream of a seat): from sending the POST to reading the
   event (goal: p50 under 20 ms).
4. 50 tables with 4 devices each posting for 30 s (each device: read the listing, post a move against the seq it
   saw; a 409 is a device that lost the race, not an error): requests per second, errors (any status but 201 and
   409), and whether every table's log holds exactly the acknowledged events, each once (no loss, no duplicate).
   The server's CPU time per request is printed too: on a loaded machine it says more than requests/s.
5. memory per open game: what one more served game of 300 events holds (tracemalloc, in process).
6. the table's page (issue 19) in Debian's chromium through Playwright, on the 300-event log: its first load on a
   phone-sized page with an empty cache (bytes of every answer: the page's own files, then the API's answers and
   the board's picture; and the time until the board, the banner and the moves are drawn), and the time from a tap
   on the host's page to another device's page redrawn from its stream. Skipped without chromium.
7. idle streams: a seat's read (GET of its view, on a kept-alive connection) p50 and p99 with no stream open, then
   with 1,000 idle watcher streams open (10 from each of 100 loopback addresses, as many phones), as a ratio in the
   same run; and the server's CPU while those streams idle (an idle stream should cost nothing: no polling).
8. `tally serve --store URL` (with `--store`; skipped without a PostgreSQL server): 1 and then 2 server processes
   on one database (a throwaway cluster, tests/support/pg_cluster.py), the same 50 tables x 4 devices (device d talks to
   server d mod N), and a move posted to the first server arriving on a stream of the last (NOTIFY between them):
   moves acknowledged per second, p50 and p99 of the arrival, every log exact.
8. a seat's move and dispute against the host's (issue 32: a seat's move is judged on what that seat knows, then
   in full): a seated table-mode Splendor game cut at 250 events, the next moves of its transcript posted 10 a copy
   by the seat that makes them and, on other copies, by the host; each move's dispute (`POST .../rule`) asked by
   its seat and by the host: p50 and p99 of each, and seat / host as a ratio measured in the same run.
9. a club night (`--club`, `--club-only`; a small one with --quick): one table, then 100 tables of 4 phones (Splice,
   4 seats, open, played on), each phone with its own address, holding its seat's stream open and tapping every
   ~3 s (it reads its seat's moves and records one when it is its turn), then the same with 1,000 idle watcher
   streams (10 per table, read by a process of their own: other devices, not the phones' process), each against
   a fresh `tally serve` on a folder and (with --store) on a PostgreSQL database: the move's round trip and its
   arrival on the table's other phones, p50 and p99 against one table's (goal: p99 at most 3x), errors (a lost
   race, 409, and a refusal by the referee, 422, are answers), events lost or twice on any stream, every log
   exact, memory per open game (the server's RSS), the server's CPU per request, and the phones' own CPU and
   event-loop lag with the machine's load: on a shared machine the server may get a small share of a core,
   and the latencies say so more than they say what the server costs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import httpx
import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_spine import build_300_event_log  # noqa: E402

from tally.store.logs import log as logfile  # noqa: E402
from tally.store.recording.results import check  # noqa: E402


def start(
    folder: Path | str, token: str | None = None, *options: str, program: str | None = None, probe: str = "/api/games"
) -> tuple[subprocess.Popen[str], str, str, float]:
    """`tally serve` on a folder, or on a database URL (`--store`), with `options`; `token`: the host token it shares;
    `program`: another installation's `tally` (default: this one's); `probe`: the request that says it answers (the
    list of games opens every game: `/api/catalog` opens none)."""
    import os

    began = time.perf_counter()
    tally = program or Path(sys.executable).with_name("tally")
    where = ["--store", folder] if isinstance(folder, str) else [str(folder)]
    environment = {**os.environ, **({"TALLY_HOST_TOKEN": token} if token else {})}
    process = subprocess.Popen(
        [str(tally), "serve", *where, "--port", "0", "--json", *options],
        stdout=subprocess.PIPE,
        text=True,
        env=environment,
    )
    assert process.stdout is not None
    line = json.loads(process.stdout.readline())
    with httpx.Client(base_url=line["url"]) as http:
        while True:
            try:
                http.get(probe)
                break
            except httpx.TransportError:
                time.sleep(0.01)
    return process, line["url"], line["token"], time.perf_counter() - began


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time a process has used: what a request costs the server, whatever the load."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def bench_round_trip(url: str, token: str, folder: Path, source: Path, moves: int) -> dict[str, float]:
    auth = {"Authorization": f"Bearer {token}"}
    times: list[float] = []
    arrivals: list[float] = []
    with httpx.Client(base_url=url, headers=auth, timeout=30) as http:
        for copy in range((moves + 9) // 10):
            ident = f"rt{copy}"
            shutil.copy(source, folder / f"{ident}.jsonl")
            seat = http.post(f"/api/games/{ident}/join", json={"seat": "p2"}).json()["token"]
            seen: dict[int, float] = {}
            ready = threading.Event()

            def follow() -> None:
                with httpx.Client(base_url=url, timeout=None) as device:
                    with device.stream(
                        "GET", f"/api/games/{ident}/stream?after=300", headers={"Authorization": f"Bearer {seat}"}
                    ) as stream:
                        ready.set()
                        for text in stream.iter_lines():
                            if text.startswith("id: "):
                                seen[int(text[4:])] = time.perf_counter()
                                if len(seen) >= 10:
                                    return

            follower = threading.Thread(target=follow, daemon=True)
            follower.start()
            ready.wait(10)
            time.sleep(0.05)
            for _ in range(10):
                listing = http.get(f"/api/games/{ident}/moves").json()
                sent = time.perf_counter()
                answer = http.post(
                    f"/api/games/{ident}/moves", json={"move": listing["moves"][0], "expected_seq": listing["seq"]}
                )
                times.append(time.perf_counter() - sent)
                assert answer.status_code == 201, answer.text
                first = answer.json()["events"][0]["seq"]
                deadline = time.perf_counter() + 5
                while first not in seen and time.perf_counter() < deadline:
                    time.sleep(0.0005)
                if first in seen:
                    arrivals.append(seen[first] - sent)
            follower.join(5)
    return {
        "p50": percentile(times, 50),
        "p99": percentile(times, 99),
        "arrival p50": percentile(arrivals, 50),
        "arrival p99": percentile(arrivals, 99),
        "moves": len(times),
        "arrivals": len(arrivals),
    }


async def busy_tables(
    url: str | list[str], token: str, folder: Path | str, tables: int, devices: int, seconds: float
) -> dict[str, float]:
    """`url`: one server, or several serving one database (`folder` its URL), device d talking to server d mod N."""
    auth = {"Authorization": f"Bearer {token}"}
    counts = {"requests": 0, "201": 0, "409": 0, "errors": 0}
    acknowledged: dict[str, list[int]] = {}
    errors: list[str] = []
    urls = [url] if isinstance(url, str) else url
    limits = httpx.Limits(max_connections=tables * devices, max_keepalive_connections=tables * devices)
    clients = [httpx.AsyncClient(base_url=u, headers=auth, timeout=60, limits=limits) for u in urls]
    async with contextlib.AsyncExitStack() as opened:
        for one in clients:
            await opened.enter_async_context(one)
        http = clients[0]
        games = {}
        for t in range(tables):
            ident = f"busy{t}-0"
            made = await http.post(
                "/api/games",
                json={"id": ident, "game": "split", "players": ["ana", "ben", "cy", "dee"], "mode": "open", "seed": t},
            )
            assert made.status_code == 201, made.text
            games[t] = [ident]
        stop = time.perf_counter() + seconds

        async def device(t: int, d: int) -> None:
            rng = random.Random(f"{t}:{d}")
            http = clients[d % len(clients)]
            while time.perf_counter() < stop:
                ident = games[t][-1]
                listed = await http.get(f"/api/games/{ident}/moves")
                counts["requests"] += 1
                if listed.status_code != 200:
                    counts["errors"] += 1
                    errors.append(f"{listed.status_code} {listed.text[:200]}")
                    continue
                listing = listed.json()
                if not listing["moves"]:  # the game is over: the table starts the next one (one device wins)
                    nxt = f"busy{t}-{len(games[t])}"
                    made = await http.post(
                        "/api/games",
                        json={
                            "id": nxt,
                            "game": "split",
                            "mode": "open",
                            "seed": t,
                            "players": ["ana", "ben", "cy", "dee"],
                        },
                    )
                    counts["requests"] += 1
                    if made.status_code == 201:
                        games[t].append(nxt)
                    continue
                move = listing["moves"][rng.randrange(len(listing["moves"]))]
                answer = await http.post(
                    f"/api/games/{ident}/moves", json={"move": move, "expected_seq": listing["seq"]}
                )
                counts["requests"] += 1
                if answer.status_code == 201:
                    counts["201"] += 1
                    acknowledged.setdefault(ident, []).extend(e["seq"] for e in answer.json()["events"])
                elif answer.status_code == 409:
                    counts["409"] += 1
                else:
                    counts["errors"] += 1
                    errors.append(f"{answer.status_code} {answer.text[:200]}")

        began = time.perf_counter()
        await asyncio.gather(*(device(t, d) for t in range(tables) for d in range(devices)))
        elapsed = time.perf_counter() - began
    exact = True
    for t, idents in games.items():
        for ident in idents:
            if isinstance(folder, str):
                from tally.store.logs.pgstore import PostgresStore

                where: Path | PostgresStore = PostgresStore(folder, ident)
                log = where.read()
            else:
                where = folder / f"{ident}.jsonl"
                log = logfile.read(where)
            start = sum(1 for e in log.events if e.seq <= 2)  # game_started and the deal tally made at creation
            seqs = acknowledged.get(ident, [])
            exact &= sorted(seqs) == list(range(start + 1, len(log.events) + 1)) and check(where).ok
    if errors:
        print("errors:", *errors[:5], sep="\n  ")
    return {
        **counts,
        "requests/s": counts["requests"] / elapsed,
        "moves/s": counts["201"] / elapsed,
        "exact": exact,
        "games": sum(len(v) for v in games.values()),
    }


def build_seated_log(folder: Path) -> tuple[Path, list[Any]]:
    """A 4-player table-mode Splendor game in which every seat enters its own blind reserves, cut at 250 events,
    and the transcript's events after it (what the seats go on to enter)."""
    from tally.core.registry import get
    from tally.store.recording.simulate import playout

    spec = get("splendor")
    best: list[Any] = []
    for i in range(40):
        events, _ = playout("splendor", 4, random.Random(f"bench:{i}"))
        events = spec.table_transcript(events, seated=tuple(events[0].seats))
        if len(events) > len(best):
            best = events
    started = best[0]
    best[0] = type(started)(
        **{
            **{f: getattr(started, f) for f in started.__struct_fields__},
            "mode": "table",
            "seated": list(started.seats),
        }
    )
    path = folder / "seated-250.jsonl"
    logfile.create(path, best[:250])
    return path, best[250:]


def bench_seat_against_host(url: str, token: str, folder: Path, moves: int) -> dict[str, float]:
    """A seat's move and dispute, and the host's, on copies of one seated game (part 8)."""
    from tally.core.registry import get

    spec = get("splendor")
    source, later = build_seated_log(folder.parent)
    host = {"Authorization": f"Bearer {token}"}
    times: dict[str, list[float]] = {"seat move": [], "host move": [], "seat rule": [], "host rule": []}
    with httpx.Client(base_url=url, timeout=30) as http:
        for copy in range(2 * ((moves + 9) // 10)):
            caller = "seat" if copy % 2 else "host"
            ident = f"seated{copy}"
            shutil.copy(source, folder / f"{ident}.jsonl")
            tokens = {
                name: {
                    "Authorization": "Bearer "
                    + http.post(f"/api/games/{ident}/join", json={"seat": name}, headers=host).json()["token"]
                }
                for name in ("p1", "p2", "p3", "p4")
            }
            for event in later[:10]:
                text = spec.format(event)
                who = host if caller == "host" else tokens[getattr(event, "player", None) or "p1"]
                sent = time.perf_counter()
                ruled = http.post(f"/api/games/{ident}/rule", json={"move": text}, headers=who)
                times[f"{caller} rule"].append(time.perf_counter() - sent)
                assert ruled.status_code == 200, ruled.text
                seq = http.get(f"/api/games/{ident}", headers=who).json()["seq"]
                sent = time.perf_counter()
                answer = http.post(f"/api/games/{ident}/moves", json={"move": text, "expected_seq": seq}, headers=who)
                times[f"{caller} move"].append(time.perf_counter() - sent)
                assert answer.status_code == 201, answer.text
    found: dict[str, float] = {}
    for name, values in times.items():
        found[f"{name} p50"], found[f"{name} p99"] = percentile(values, 50), percentile(values, 99)
    return found


def salted_log_sizes() -> dict[str, tuple[int, int]]:
    """Per game, the bytes of one seated 3-player table-mode game (a random playout as a table of phones enters it,
    every seat naming its own hidden cards) as the record service writes it, every line that holds a secret salted,
    and of the same events unsalted."""
    from tally.core.engine import Table
    from tally.core.registry import get, names
    from tally.store.recording.secrecy import salted
    from tally.store.recording.simulate import playout

    sizes = {}
    for game in names():
        spec = get(game)
        events, _ = playout(game, 3, random.Random(f"salt:{game}"))
        seats = tuple(events[0].seats)  # type: ignore[attr-defined]
        events = spec.table_transcript(events, seated=seats)
        started = msgspec.structs.replace(events[0], mode="table", seated=list(seats))
        begun = Table(spec, started).state  # type: ignore[arg-type]
        plain = logfile.stamp([started, *events[1:]], 0, None, logfile.now())[1]
        salted_bytes = logfile.stamp([started, *salted(spec, seats, begun, events[1:])], 0, None, logfile.now())[1]
        sizes[game] = (len(salted_bytes), len(plain))
    return sizes


def seat_before_and_after(against: str, moves: int) -> None:
    """Part 8 against this installation and another (`--against`, say the last release's `tally`), alternately in
    one run: a seat's and the host's move and dispute, p50 and p99, and this / that."""
    found: dict[str, list[dict[str, float]]] = {"this": [], "that": []}
    for _ in range(3):
        for name, program in (("that", against), ("this", None)):
            with tempfile.TemporaryDirectory() as scratch:
                folder = Path(scratch) / "served"
                folder.mkdir()
                process, url, token, _ = start(folder, program=program)
                try:
                    found[name].append(bench_seat_against_host(url, token, folder, moves))
                finally:
                    process.terminate()
                    process.wait(30)
    for key in found["this"][0]:
        this = statistics.median(run[key] for run in found["this"])
        that = statistics.median(run[key] for run in found["that"])
        print(f"{key:16} this {this * 1000:7.2f} ms   --against {that * 1000:7.2f} ms   this/that {this / that:.2f}")


def memory_per_game(source: Path, games: int) -> float:
    from tally.store.serving.tables import Tables

    with tempfile.TemporaryDirectory() as scratch:
        for i in range(games):
            shutil.copy(source, Path(scratch) / f"m{i}.jsonl")
        tables = Tables(scratch)
        tables.game("m0")  # imports and first-use caches are not a game's
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(1, games):
            game = tables.game(f"m{i}")
            assert game is not None
            game.timeline.lines("p1")  # a seat's stream has been read
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    return (after - before) / (games - 1)


def shown(locator: Any) -> Any:
    """The element with every group folded around it opened."""
    # a redraw may take the group out of the page between finding it and opening it: its parent is then null
    locator.evaluate(
        "e => { for (let d = e.closest('details'); d; d = d.parentElement?.closest('details')) d.open = true; }"
    )
    return locator


def tap(locator: Any) -> None:
    """`locator` clicked with its folded groups opened; again if a redraw folded them between the two."""
    from playwright.sync_api import TimeoutError as Timeout

    for _ in range(2):
        try:
            shown(locator).click(timeout=5000)
            return
        except Timeout:
            continue
    shown(locator).click()


def tap_a_move(page: Any) -> bool:
    """A legal move tapped as a player would: its button, or a card picker's first cards and its Record (the clock
    runs from the last tap); False when there is none."""
    button = page.locator("#moves button[data-move]:not(.record)").first
    if button.count():
        tap(button)
        return True
    for _ in range(20):  # a card at a time until the picker makes a move
        record = page.locator("#moves .picker button.record[data-move]").first
        if record.count():
            tap(record)
            return True
        piece = page.locator("#moves .picker .pieces button[data-piece]").first
        if not piece.count():
            return False
        tap(piece)
    return False


def bench_page(url: str, token: str, folder: Path, source: Path, loads: int, taps: int) -> dict[str, float] | None:
    """The page's first load and a tap's arrival on another page, in a real browser (None without chromium)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        return None
    from playwright.sync_api import sync_playwright

    shutil.copy(source, folder / "page.jsonl")
    phone = {"width": 360, "height": 640}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        times, own, answers = [], [], []
        for _ in range(loads):
            context = browser.new_context(viewport=phone)  # a new context: nothing cached, a first load
            page = context.new_page()
            seen: list[Any] = []
            page.on("response", lambda response: seen.append(response) if "/stream" not in response.url else None)
            began = time.perf_counter()
            page.goto(f"{url}/games/page")
            page.locator("body[data-seq]").wait_for(state="attached")
            times.append(time.perf_counter() - began)
            static = sum(len(r.body()) for r in seen if "/api/" not in r.url and not r.url.endswith(".svg"))
            own.append(static)
            answers.append(sum(len(r.body()) for r in seen) - static)
            context.close()
        host = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        host.goto(f"{url}/games/page#token={token}")
        host.locator("body[data-seq]").wait_for(state="attached")
        code = httpx.post(f"{url}/api/games/page/code", headers={"Authorization": f"Bearer {token}"}).json()["code"]
        seat = host.locator("#join-seat option").first.get_attribute("value")
        other = browser.new_context(viewport=phone).new_page()
        other.goto(f"{url}/games/page")
        other.locator("body[data-seq]").wait_for(state="attached")
        other.select_option("#join-seat", seat)
        other.fill("#join-code", code)
        other.click("#join button[type=submit]")
        other.locator(f"body[data-viewer='{seat}']").wait_for(state="attached")
        # the pages' own clocks (one browser, one clock): the tap's click event on the host's page, the other
        # page's redraw done (its `data-seq` set once banner, moves and picture are drawn); Playwright's own
        # waiting is not counted
        host.evaluate("() => document.addEventListener('click', () => { window.tapped = Date.now(); }, true)")
        other.evaluate(
            "() => new MutationObserver(() => { window.redrawn = Date.now(); })"
            ".observe(document.body, {attributes: true, attributeFilter: ['data-seq']})"
        )
        arrivals = []
        for _ in range(taps):
            seq = host.locator("body").get_attribute("data-seq")
            other.locator(f"body[data-seq='{seq}']").wait_for(state="attached")
            if not tap_a_move(host):
                break  # the game is over
            other.locator(f"body:not([data-seq='{seq}'])").wait_for(state="attached")
            arrivals.append((other.evaluate("() => window.redrawn") - host.evaluate("() => window.tapped")) / 1000)
            # the other page may redraw from its stream before the host's page has its own answer: the next tap
            # reads the host's seq only once the host's page has moved on too
            host.locator(f"body:not([data-seq='{seq}'])").wait_for(state="attached")
        browser.close()
    return {
        "load p50": statistics.median(times),
        "own bytes": statistics.median(own),
        "answer bytes": statistics.median(answers),
        "tap p50": statistics.median(arrivals),
        "tap p99": percentile(arrivals, 99),
        "taps": len(arrivals),
    }


def bench_idle_streams(source: Path, reads: int, streams: int = 1000, watched: float = 5.0) -> dict[str, float]:
    """A seat's read with no stream open, then with `streams` idle watcher streams open (a fresh server)."""
    import resource
    import socket

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < streams + 256:  # this process holds every stream's socket
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, streams + 1024), hard))
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        shutil.copy(source, folder / "idle.jsonl")
        seq = len(logfile.read(folder / "idle.jsonl").events)
        process, url, token, _ = start(folder, None, "--max-streams", str(streams))
        port = int(url.rsplit(":", 1)[1])
        held: list[socket.socket] = []
        try:
            seat = httpx.post(
                f"{url}/api/games/idle/join", json={"seat": "p2"}, headers={"Authorization": f"Bearer {token}"}
            ).json()["token"]

            def seat_reads() -> list[float]:
                times = []
                with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {seat}"}, timeout=60) as http:
                    http.get("/api/games/idle")
                    for _ in range(reads):
                        began = time.perf_counter()
                        assert http.get("/api/games/idle").status_code == 200
                        times.append(time.perf_counter() - began)
                return times

            alone = seat_reads()
            request = f"GET /api/games/idle/stream?after={seq} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
            for number in range(streams):
                phone = f"127.0.{1 + number // 10 // 250}.{2 + number // 10 % 250}"
                connection = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(phone, 0))
                connection.sendall(request)
                head = b""
                while b"\r\n\r\n" not in head:
                    head += connection.recv(4096)
                assert head.startswith(b"HTTP/1.1 200"), head[:200]
                held.append(connection)
            time.sleep(1.0)
            used = cpu_seconds(process.pid)
            time.sleep(watched)
            idle_cpu = (cpu_seconds(process.pid) - used) / watched
            crowded = seat_reads()
        finally:
            for connection in held:
                connection.close()
            process.terminate()
            process.wait(30)
    return {
        "alone p50": percentile(alone, 50),
        "alone p99": percentile(alone, 99),
        "crowded p50": percentile(crowded, 50),
        "crowded p99": percentile(crowded, 99),
        "streams": len(held),
        "idle cpu": idle_cpu,
    }


def arrivals_between(first: str, last: str, token: str, moves: int) -> dict[str, float]:
    """A move posted to server `first`, read on a stream of server `last` (one database): the time from sending
    the POST to reading the event, p50 and p99."""
    auth = {"Authorization": f"Bearer {token}"}
    seen: dict[int, float] = {}
    arrivals: list[float] = []
    with httpx.Client(base_url=first, headers=auth, timeout=30) as http:
        made = http.post(
            "/api/games",
            json={"id": "arrivals", "game": "splendor", "players": ["ana", "ben"], "mode": "open", "seed": 1},
        )
        assert made.status_code == 201, made.text
        after = http.get("/api/games/arrivals/moves").json()["seq"]
        ready = threading.Event()

        def follow() -> None:
            with httpx.Client(base_url=last, timeout=None) as device:
                with device.stream("GET", f"/api/games/arrivals/stream?after={after}", headers=auth) as stream:
                    ready.set()
                    for text in stream.iter_lines():
                        if text.startswith("id: "):
                            seen[int(text[4:])] = time.perf_counter()
                            if len(seen) >= moves:
                                return

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        ready.wait(10)
        time.sleep(0.05)
        for _ in range(moves):
            listing = http.get("/api/games/arrivals/moves").json()
            if not listing["moves"]:
                break
            sent = time.perf_counter()
            answer = http.post(
                "/api/games/arrivals/moves", json={"move": listing["moves"][0], "expected_seq": listing["seq"]}
            )
            assert answer.status_code == 201, answer.text
            first_seq = answer.json()["events"][0]["seq"]
            deadline = time.perf_counter() + 5
            while first_seq not in seen and time.perf_counter() < deadline:
                time.sleep(0.0005)
            if first_seq in seen:
                arrivals.append(seen[first_seq] - sent)
        follower.join(5)
    return {"p50": percentile(arrivals, 50), "p99": percentile(arrivals, 99), "arrivals": len(arrivals), "moves": moves}


def bench_database(tables: int, seconds: float, moves: int) -> None:
    """Part 6: 1 and 2 servers on one database of a throwaway cluster."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from support.pg_cluster import Cluster, find_server

    server = find_server()
    if server is None:
        print("--store: no PostgreSQL server installed (apt-get install postgresql): skipped")
        return
    from tally.store.serving.seats import new_token

    token = new_token()
    with Cluster(server) as cluster:
        for count in (1, 2):
            url = cluster.new_database()
            processes = [start(url, token) for _ in range(count)]
            urls = [p[1] for p in processes]
            try:
                trip = arrivals_between(urls[0], urls[-1], token, moves)
                busy = asyncio.run(busy_tables(urls, token, url, tables, 4, seconds))
            finally:
                for process in processes:
                    process[0].terminate()
                    process[0].wait(30)
            label = f"--store, {count} server{'s' if count > 1 else ''}"
            print(
                f"{label}: arrival on another server's stream p50 {trip['p50'] * 1000:.2f} ms, p99 "
                f"{trip['p99'] * 1000:.2f} ms ({trip['arrivals']:.0f} of {trip['moves']:.0f} moves)"
            )
            print(
                f"{label}: {tables} tables x 4 devices, {seconds:.0f} s: {busy['moves/s']:.0f} moves/s, "
                f"{busy['requests/s']:.0f} requests/s, {busy['409']:.0f} lost races (409), {busy['errors']:.0f} errors, "
                f"logs exact: {busy['exact']}"
            )


# --------------------------------------------------------------------------- a club night


LONG = {"stall-rounds": 999, "all-bought": "play-on"}  # Splice played on: no table's game ends during the night


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Phone:
    """One seat's phone: its token, its stream's arrivals (seq: when it came, and how many times) and its source
    address (each phone its own, as phones are: the server caps streams per address)."""

    def __init__(self, table: int, seat: str, token: str, address: str):
        self.table, self.seat, self.token, self.address = table, seat, token, address
        self.arrived: dict[int, float] = {}
        self.counted: dict[int, int] = {}
        self.broken: list[str] = []


class Line:
    """A phone's one kept-alive HTTP/1.1 connection from its own address, spoken plainly (a tap is a few hundred
    bytes each way: a general client's own work per request would crowd out the server it measures on two cores)."""

    def __init__(self, port: int, address: str, token: str):
        self.port, self.address, self.token = port, address, token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def ask(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """(status, the JSON answer); a connection the server closed while idle is opened again once (the request
        never reached it: a server closes only a connection waiting for one)."""
        payload = b"" if body is None else msgspec.json.encode(body)
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {self.token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        ).encode()
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(
                    "127.0.0.1", self.port, local_addr=(self.address, 0)
                )
            assert self.reader is not None and self.writer is not None
            self.writer.write(head + payload)
            status = await self.reader.readline()
            if not status:
                self.close()
                if attempt == 1:
                    continue
                raise ConnectionError("the server closed the connection")
            length, closing = 0, False
            while (line := await self.reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                elif name.lower() == "connection" and value.strip().lower() == "close":
                    closing = True
            data = await self.reader.readexactly(length)
            if closing:
                self.close()
            return int(status.split()[1]), msgspec.json.decode(data) if data else None
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def follow_stream(
    port: int,
    path: str,
    token: str | None,
    after: int,
    address: str,
    arrived: dict[int, float] | None,
    counted: dict[int, int] | None,
    broken: list[str],
    ready: asyncio.Event,
    stop: asyncio.Event,
) -> None:
    """A stream read over a plain socket from `address` (cheap enough for 1,400 in this process): each `id:` line's
    arrival noted; anything but a 200 or a cut before `stop` noted as broken."""
    writer = None
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Last-Event-ID: {after}\r\n\r\n".encode())
        status = await reader.readline()
        if not status.startswith(b"HTTP/1.1 200"):
            broken.append(status.decode(errors="replace").strip())
            ready.set()
            return
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        ready.set()
        while not stop.is_set():
            line = await reader.readline()
            if not line:
                if not stop.is_set():
                    broken.append("the stream ended")
                return
            if line.startswith(b"id: ") and arrived is not None and counted is not None:
                seq = int(line[4:])
                arrived.setdefault(seq, time.perf_counter())
                counted[seq] = counted.get(seq, 0) + 1
    except (OSError, ValueError) as error:
        broken.append(f"{type(error).__name__}: {error}")
        ready.set()
    finally:
        if writer is not None:
            writer.close()


class Watchers:
    """`count` idle watcher streams of the club's tables (10 per loopback address), read in a child process; `stop`
    closes them and gives what broke."""

    def __init__(self, port: int, prefix: str, tables: int, starts: dict[int, int], count: int):
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.pipe, child = context.Pipe()
        self.process = context.Process(target=_watch, args=(child, port, prefix, tables, starts, count), daemon=True)
        self.process.start()
        assert self.pipe.recv() == "ready"

    def stop(self) -> list[str]:
        self.pipe.send("stop")
        broken: list[str] = self.pipe.recv()
        self.process.join(30)
        return broken


def _watch(pipe: Any, port: int, prefix: str, tables: int, starts: dict[int, int], count: int) -> None:
    async def main() -> list[str]:
        broken: list[str] = []
        stop = asyncio.Event()
        followers = []
        for number in range(count):
            ready = asyncio.Event()
            address = f"127.2.{number // 10 // 250}.{number // 10 % 250 + 1}"
            path = f"/api/games/{prefix}{number % tables}/stream"
            stream = follow_stream(port, path, None, starts[number % tables], address, None, None, broken, ready, stop)
            followers.append(asyncio.create_task(stream))
            await ready.wait()
        pipe.send("ready")
        await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
        stop.set()
        for task in followers:
            task.cancel()
        await asyncio.gather(*followers, return_exceptions=True)
        return broken

    pipe.send(asyncio.run(main()))


async def club_night(
    url: str,
    token: str,
    where: Path | str,
    tables: int,
    seconds: float,
    tap: float,
    watchers: int,
    pid: int,
    prefix: str,
) -> dict[str, Any]:
    """`tables` tables of 4 phones (Splice, 4 seats, open), every phone holding its seat's stream open and tapping
    every `tap` seconds or so (±50%): it reads its seat's moves and, when it has one (its turn), records it. Also
    `watchers` idle watcher streams (10 per address). What each move's round trip took, when it arrived on each
    of the table's other phones, the errors, and whether every phone's stream and every log holds exactly the
    acknowledged events, each once."""
    port = int(url.rsplit(":", 1)[1])
    auth = {"Authorization": f"Bearer {token}"}
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    errors: list[str] = []
    trips: list[float] = []
    arrivals: list[float] = []
    acknowledged: dict[str, list[int]] = {}
    sent: dict[tuple[int, int], tuple[float, str]] = {}  # (table, seq): when its POST was sent, by which seat
    refused = [0]  # moves the referee refused (422): a seat's move that another seat's hidden cards forbid
    requests = [0]
    stop = asyncio.Event()
    async with httpx.AsyncClient(base_url=url, headers=auth, timeout=60, limits=limits) as http:
        phones: list[Phone] = []
        starts: dict[int, int] = {}
        memory_before = 0
        for t in range(tables):
            if t == 1:
                memory_before = rss_kib(pid)  # after the first table: the game's modules imported
            ident = f"{prefix}{t}"
            made = await http.post(
                "/api/games",
                json={
                    "id": ident,
                    "game": "splice",
                    "players": ["p1", "p2", "p3", "p4"],
                    "mode": "open",
                    "seed": t,
                    "options": LONG,
                },
            )
            assert made.status_code == 201, made.text
            starts[t] = int((await http.get(f"/api/games/{ident}")).json()["seq"])
            for number, seat in enumerate(["p1", "p2", "p3", "p4"]):
                given = (await http.post(f"/api/games/{ident}/join", json={"seat": seat})).json()["token"]
                phones.append(Phone(t, seat, given, f"127.1.{t // 60}.{(t % 60) * 4 + number + 1}"))
        followers = []
        for phone in phones:
            ready = asyncio.Event()
            followers.append(
                asyncio.create_task(
                    follow_stream(
                        port,
                        f"/api/games/{prefix}{phone.table}/stream",
                        phone.token,
                        starts[phone.table],
                        phone.address,
                        phone.arrived,
                        phone.counted,
                        phone.broken,
                        ready,
                        stop,
                    )
                )
            )
            await ready.wait()
        watching: list[str] = []
        # the watchers are other devices: read in a process of their own, so that their reading does not delay this
        # process's phones (whose arrivals are what is measured)
        watched = Watchers(port, prefix, tables, starts, watchers) if watchers else None
        memory_open = rss_kib(pid)
        used, mine_used = cpu_seconds(pid), time.process_time()
        until = time.perf_counter() + seconds
        lags: list[float] = []

        async def lagging() -> None:  # how late this process's event loop wakes: the clients' own delay
            while time.perf_counter() < until:
                began = time.perf_counter()
                await asyncio.sleep(0.01)
                lags.append(time.perf_counter() - began - 0.01)

        lag_task = asyncio.create_task(lagging())

        async def tapping(phone: Phone) -> None:
            rng = random.Random(f"{phone.table}:{phone.seat}")
            line = Line(port, phone.address, phone.token)
            ident = f"{prefix}{phone.table}"
            await asyncio.sleep(rng.uniform(0, tap))
            try:
                while time.perf_counter() < until:
                    try:
                        await tap_once(phone, rng, line, ident)
                    except (OSError, ValueError, asyncio.IncompleteReadError) as error:
                        errors.append(f"{type(error).__name__}: {error}")
                        line.close()
                    await asyncio.sleep(tap * rng.uniform(0.5, 1.5))
            finally:
                line.close()

        async def tap_once(phone: Phone, rng: random.Random, line: Line, ident: str) -> None:
            requests[0] += 1
            status, listing = await line.ask("GET", f"/api/games/{ident}/moves")
            if status != 200:
                errors.append(f"moves {status} {str(listing)[:120]}")
                return
            own = [m for m in listing["moves"] if m.startswith(f"{phone.seat}: ")]  # its turn: its own moves
            if not own:
                return
            began = time.perf_counter()
            requests[0] += 1
            status, answer = await line.ask(
                "POST",
                f"/api/games/{ident}/moves",
                {"move": own[rng.randrange(len(own))], "expected_seq": listing["seq"]},
            )
            if status == 201:
                trips.append(time.perf_counter() - began)
                for event in answer["events"]:
                    sent[(phone.table, event["seq"])] = (began, phone.seat)
                    acknowledged.setdefault(ident, []).append(event["seq"])
            elif status == 422:  # refused by the referee: an answer, not an error
                refused[0] += 1
            elif status != 409:  # a lost race is a phone's, not an error
                errors.append(f"move {status} {str(answer)[:120]}")

        await asyncio.gather(*(tapping(phone) for phone in phones))
        cpu, client_cpu = cpu_seconds(pid) - used, time.process_time() - mine_used
        await lag_task
        await asyncio.sleep(2.0)  # the last moves reach every stream
        stop.set()
        if watched is not None:
            watching.extend(watched.stop())
        for task in followers:
            task.cancel()
        await asyncio.gather(*followers, return_exceptions=True)
    for phone in phones:
        errors.extend(f"stream of {prefix}{phone.table}/{phone.seat}: {b}" for b in phone.broken)
        for seq, arrived in phone.arrived.items():
            origin = sent.get((phone.table, seq))
            if origin is not None and origin[1] != phone.seat:
                arrivals.append(arrived - origin[0])
    errors.extend(f"a watcher's stream: {b}" for b in watching)
    exact, lost, twice = True, 0, 0
    for t in range(tables):
        ident = f"{prefix}{t}"
        if isinstance(where, Path):
            events = logfile.read(where / f"{ident}.jsonl").events
        else:
            from tally.store.logs.pgstore import PostgresStore

            events = PostgresStore(where, ident).read().events
        logged = [e.seq for e in events if e.seq > starts[t]]
        if sorted(acknowledged.get(ident, [])) != [s for s in logged if s in set(acknowledged.get(ident, []))] or len(
            set(acknowledged.get(ident, []))
        ) != len(acknowledged.get(ident, [])):
            exact = False
        for phone in phones:
            if phone.table == t:
                lost += len(set(logged) - set(phone.counted))
                twice += sum(1 for count in phone.counted.values() if count > 1)
    moves = len(trips)
    return {
        "tables": tables,
        "moves": moves,
        "trip p50": percentile(trips, 50) if trips else 0.0,
        "trip p99": percentile(trips, 99) if trips else 0.0,
        "arrival p50": percentile(arrivals, 50) if arrivals else 0.0,
        "arrival p99": percentile(arrivals, 99) if arrivals else 0.0,
        "arrivals": len(arrivals),
        "errors": len(errors),
        "first errors": errors[:3],
        "exact": exact,
        "lost": lost,
        "twice": twice,
        "streams": len(phones) + watchers,
        "memory per game KiB": (memory_open - memory_before) / max(1, tables - 1),
        "cpu": cpu / seconds,
        "client cpu": client_cpu / seconds,
        "cpu per request": cpu / max(1, requests[0]),
        "load": os.getloadavg()[0],
        "lag p99": percentile(lags, 99) if lags else 0.0,
        "refused": refused[0],
    }


def bench_club(where: str | None, tables: int, seconds: float, tap: float, watchers: int) -> None:
    """Part 9: one table, then `tables` tables, then `tables` tables with `watchers` idle watchers, against one fresh
    `tally serve` each (a folder, or the PostgreSQL database `where`), each figure against the one table's."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < tables * 4 + watchers + 512:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, tables * 4 + watchers + 2048), hard))
    label = "PostgreSQL" if where else "folder"
    results = []
    for count, watching in ((1, 0), (tables, 0), (tables, watchers)):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TALLY_BENCH_DIR")) as scratch:
            served: Path | str = where if where else Path(scratch)
            process, url, token, _ = start(
                served,
                None,
                "--max-streams",
                str(tables * 4 + watchers + 64),
                "--max-streams-per-client",
                "10",
                probe="/api/catalog",
            )
            try:
                prefix = f"club{len(results)}-"
                results.append(
                    asyncio.run(club_night(url, token, served, count, seconds, tap, watching, process.pid, prefix))
                )
            finally:
                process.terminate()
                process.wait(30)
    one = results[0]
    for result in results:
        name = f"{result['tables']} table{'s' if result['tables'] > 1 else ''}"
        if result["streams"] > result["tables"] * 4:
            name += f" + {result['streams'] - result['tables'] * 4} watchers"
        print(
            f"club night, {label}, {name}, {seconds:.0f} s, a tap every ~{tap:.0f} s: {result['moves']} moves, "
            f"{result['errors']} errors, {result['lost']} events lost on a stream, {result['twice']} twice, "
            f"logs exact: {result['exact']}, {result['refused']} refused by the referee (422); server CPU "
            f"{result['cpu'] * 100:.0f} % of a core, the phones' (this process) {result['client cpu'] * 100:.0f} %, "
            f"their event loop late by {result['lag p99'] * 1000:.0f} ms at p99; the machine's load "
            f"{result['load']:.1f} on {os.cpu_count()} cores"
        )
        print(
            f"  server CPU per request (the taps' reads and moves, and what the streams send): "
            f"{result['cpu per request'] * 1000:.2f} ms (x{result['cpu per request'] / max(one['cpu per request'], 1e-9):.2f} "
            f"one table's)"
        )
        for key in ("trip", "arrival"):
            what = "move round trip" if key == "trip" else "arrival on the other phones"
            print(
                f"  {what:<28} p50 {result[f'{key} p50'] * 1000:7.1f} ms  p99 {result[f'{key} p99'] * 1000:7.1f} ms"
                f"  (p99 x{result[f'{key} p99'] / max(one[f'{key} p99'], 1e-9):.2f} one table's; goal <= 3x)"
            )
        if result["tables"] > 1 and result["streams"] == result["tables"] * 4:
            print(
                f"  memory per open game (the server's RSS: its record, its timeline, 4 seats' streams): "
                f"{result['memory per game KiB']:.0f} KiB"
            )
        if result["first errors"]:
            print(f"  first errors: {result['first errors']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer moves, 5 tables for 3 s")
    parser.add_argument("--store", action="store_true", help="also part 7: 1 and 2 servers on one PostgreSQL database")
    parser.add_argument("--store-only", action="store_true", help="only part 7")
    parser.add_argument("--club", action="store_true", help="also part 9: a club night (100 tables, 4 phones each)")
    parser.add_argument("--club-only", action="store_true", help="only part 9 (with --store: on PostgreSQL too)")
    parser.add_argument(
        "--against",
        metavar="TALLY",
        help="only part 8, against another installation's `tally` (before and after a change, alternately in one run)",
    )
    args = parser.parse_args()
    moves, tables, seconds = (20, 5, 3.0) if args.quick else (200, 50, 30.0)
    if args.against:
        seat_before_and_after(args.against, moves)
        return
    if args.store_only:
        bench_database(tables, seconds, moves)
        return
    club = (3, 4.0, 1.0, 30) if args.quick else (100, 20.0, 3.0, 1000)
    if args.club_only:
        clubs(args.store, *club)
        return
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "served"
        folder.mkdir()
        source = build_300_event_log(Path(scratch))
        process, url, token, startup = start(folder)
        try:
            print(f"start-up to first answer          {startup * 1000:8.0f} ms")
            trip = bench_round_trip(url, token, folder, source, moves)
            print(f"move round trip at 300 events p50 {trip['p50'] * 1000:8.2f} ms   (goal < 5 ms)")
            print(f"move round trip at 300 events p99 {trip['p99'] * 1000:8.2f} ms   (goal < 20 ms)")
            print(f"arrival on another stream p50     {trip['arrival p50'] * 1000:8.2f} ms   (goal < 20 ms)")
            print(
                f"arrival on another stream p99     {trip['arrival p99'] * 1000:8.2f} ms   ({trip['arrivals']:.0f} of {trip['moves']:.0f} moves)"
            )
            used = cpu_seconds(process.pid)
            busy = asyncio.run(busy_tables(url, token, folder, tables, 4, seconds))
            used = cpu_seconds(process.pid) - used
            print(
                f"{tables} tables x 4 devices, {seconds:.0f} s: {busy['requests/s']:.0f} requests/s, {busy['201']:.0f} moves "
                f"recorded, {busy['409']:.0f} lost races (409), {busy['errors']:.0f} errors, {busy['games']:.0f} games, "
                f"logs exact: {busy['exact']}"
            )
            print(
                f"server CPU per request            {used / busy['requests'] * 1000:8.2f} ms   (a bound on requests/s per core)"
            )
            seated = bench_seat_against_host(url, token, folder, moves)
            for what in ("move", "rule"):
                for p in ("p50", "p99"):
                    seat, host = seated[f"seat {what} {p}"], seated[f"host {what} {p}"]
                    print(
                        f"a seat's {what:4} {p} (host's)          {seat * 1000:8.2f} ms ({host * 1000:.2f} ms)   seat/host {seat / host:.2f}"
                    )
            for game, (salted, plain) in salted_log_sizes().items():
                print(
                    f"a seated {game:8} log, salted       {salted / 1024:8.1f} KiB ({plain / 1024:.1f} KiB unsalted: x{salted / plain:.3f})"
                )
            page = bench_page(url, token, folder, source, 3 if args.quick else 10, 5 if args.quick else 30)
            if page is None:
                print("the table's page: skipped (no chromium)")
            else:
                print(
                    f"page first load, phone, 300 events {page['load p50'] * 1000:7.0f} ms   ({page['own bytes'] / 1024:.1f} KiB "
                    f"of the page's files + {page['answer bytes'] / 1024:.1f} KiB of answers and picture)"
                )
                print(f"tap to another page's redraw p50  {page['tap p50'] * 1000:8.0f} ms")
                print(f"tap to another page's redraw p99  {page['tap p99'] * 1000:8.0f} ms   ({page['taps']:.0f} taps)")
        finally:
            process.terminate()
            process.wait(30)
        print(f"memory per open game (300 events) {memory_per_game(source, 3 if args.quick else 21) / 1024:8.0f} KiB")
        idle = bench_idle_streams(
            source, 100 if args.quick else 1000, 200 if args.quick else 1000, 1.0 if args.quick else 5.0
        )
        streams = f"{idle['streams']:.0f} idle streams"
        print(
            f"seat read, no stream open   p50 {idle['alone p50'] * 1000:8.2f} ms   p99 {idle['alone p99'] * 1000:8.2f} ms"
        )
        print(
            f"seat read, {streams:<17}p50 {idle['crowded p50'] * 1000:8.2f} ms   p99 {idle['crowded p99'] * 1000:8.2f} ms"
            f"   (x{idle['crowded p50'] / idle['alone p50']:.2f} p50, x{idle['crowded p99'] / idle['alone p99']:.2f} p99)"
        )
        print(f"server CPU with {streams} idling  {idle['idle cpu'] * 100:6.1f} % of a core")
    if args.store:
        bench_database(tables, seconds, moves)
    if args.club or args.quick:
        clubs(args.store, *club)


def clubs(store: bool, tables: int, seconds: float, tap: float, watchers: int) -> None:
    """Part 9 on a folder, and (`store`) on a throwaway PostgreSQL cluster."""
    bench_club(None, tables, seconds, tap, watchers)
    if not store:
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from support.pg_cluster import Cluster, find_server

    server = find_server()
    if server is None:
        print("club night on PostgreSQL: no server installed, skipped")
        return
    with Cluster(server) as cluster:
        bench_club(cluster.new_database(), tables, seconds, tap, watchers)


if __name__ == "__main__":
    main()
