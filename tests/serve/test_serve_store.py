"""`tally serve --store URL`: every game of a PostgreSQL store served, new games and seats kept in the database,
and two real server processes on one database (a move posted to one reaches the other's stream, a stale post to
either is 409, kill -9 of one mid-append loses no acknowledged move). Against the throwaway cluster."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import msgspec
import pytest

from support import ROOT
from support.serve_helpers import AUTH, HOST, Stream, bearer, run
from tally.serve.app import create_app
from tally.store.logs.pgstore import PostgresStore
from tally.store.recording.results import check
from tally.store.serving import seats as seating

NEW = {"id": "friday", "game": "split", "players": ["ana", "ben"], "mode": "open", "seed": 3}


def test_a_store_is_served_as_a_folder_is(pg_url: str, tmp_path: Path) -> None:
    """A game made over HTTP lives in the database; its seats too (a second app on the database honours a token
    the first handed out, and no file is written); the stream of a database game sends every event."""
    app = create_app(pg_url, HOST)

    async def scenario() -> str:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
            made = await http.post(
                "/api/games",
                json={"id": "g", "game": "splendor", "players": ["ana", "ben"], "mode": "open", "seed": 4},
                headers=AUTH,
            )
            assert made.status_code == 201, made.text
            again = await http.post(
                "/api/games", json={"id": "g", "game": "splendor", "players": ["ana", "ben"]}, headers=AUTH
            )
            assert again.status_code == 409 and again.json()["error"] == "serve.game.exists"
            listed = (await http.get("/api/games")).json()
            assert [g["id"] for g in listed] == ["g"]
            unknown = await http.get("/api/games/nope")
            assert unknown.status_code == 404 and "in this store" in unknown.json()["message"]
            code = (await http.post("/api/games/g/code", headers=AUTH)).json()["code"]
            joined = await http.post("/api/games/g/join", json={"seat": "ana", "code": code})
            assert joined.status_code == 201
            token = str(joined.json()["token"])
            listing = (await http.get("/api/games/g/moves", headers=bearer(token))).json()
            moved = await http.post(
                "/api/games/g/moves",
                json={"move": listing["moves"][0], "expected_seq": listing["seq"]},
                headers=bearer(token),
            )
            assert moved.status_code == 201, moved.text
            status, events = await Stream(app, "/api/games/g/stream", AUTH).read(listing["seq"] + 1)
            assert status == 200 and [int(e["id"]) for e in events] == list(range(1, listing["seq"] + 2))
            return token

    token = run(scenario())
    assert PostgresStore(pg_url, "g").read().last_hash == listed_fingerprint(pg_url)
    assert not list(tmp_path.iterdir())

    async def elsewhere() -> None:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=create_app(pg_url, HOST)), base_url="http://t"
        ) as http:
            shown = await http.get("/api/games/g", headers=bearer(token))
            assert shown.status_code == 200 and shown.json()["viewer"] == "ana"
            code = (await http.post("/api/games/g/code", headers=AUTH)).json()["code"]
            taken = await http.post("/api/games/g/join", json={"seat": "ana", "code": code})
            assert taken.status_code == 403 and taken.json()["error"] == "serve.join.code"  # as a wrong code

    run(elsewhere())
    rows = psycopg_rows(pg_url, "SELECT seats FROM tally_seats WHERE game = 'g'")
    kept = msgspec.json.decode(bytes(rows[0][0]), type=seating.SeatFile)
    assert kept.seats == {"ana": seating.digest(token)}  # the hash, never the token


def listed_fingerprint(url: str) -> str:
    return str(psycopg_rows(url, "SELECT fingerprint FROM tally_games WHERE game = 'g'")[0][0])


def psycopg_rows(url: str, query: str) -> list[Any]:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(query).fetchall()


class Server:
    """`tally serve --store URL --port 0 --json` as a real process on loopback, sharing the host token."""

    def __init__(self, url: str):
        environment = {**os.environ, "TALLY_HOST_TOKEN": HOST}
        self.process = subprocess.Popen(
            [str(Path(sys.executable).parent / "tally"), "serve", "--store", url, "--port", "0", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        assert self.process.stdout is not None
        started = json.loads(self.process.stdout.readline())
        assert started["token"] == HOST and started["url"].startswith("http://127.0.0.1:")
        self.url = str(started["url"])
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(30)
        self.http.close()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def two_servers(pg_url: str) -> Iterator[tuple[Server, Server]]:
    first = Server(pg_url)
    try:
        second = Server(pg_url)
    except BaseException:
        first.kill()
        raise
    try:
        yield first, second
    finally:
        first.kill()
        second.kill()


def stream_ids(server: Server, path: str, into: "queue.Queue[int]", ready: threading.Event) -> None:
    """The ids of a stream's events, put on `into` as they come (a daemon thread; ends with the server)."""
    try:
        with httpx.Client(base_url=server.url, timeout=httpx.Timeout(30, read=None)) as http:
            with http.stream("GET", path, headers=AUTH) as response:
                ready.set()
                for line in response.iter_lines():
                    if line.startswith("id:"):
                        into.put(int(line[3:].strip()))
    except httpx.HTTPError:
        pass


def test_two_servers_serve_one_game(two_servers: tuple[Server, Server], pg_url: str) -> None:
    """Made on one, listed, joined and moved on the other; a move posted to one reaches the other's open stream
    (it wakes on the database's NOTIFY); a stale post to either is 409 `core.append.stale`, appending nothing."""
    first, second = two_servers
    made = first.http.post("/api/games", json=NEW, headers=AUTH)
    assert made.status_code == 201, made.text
    listed = second.http.get("/api/games").json()
    assert [g["id"] for g in listed] == ["friday"]
    code = first.http.post("/api/games/friday/code", headers=AUTH).json()["code"]
    ben = second.http.post("/api/games/friday/join", json={"seat": "ben", "code": code}).json()["token"]
    assert first.http.get("/api/games/friday", headers=bearer(ben)).json()["viewer"] == "ben"  # seats are shared

    arrived: "queue.Queue[int]" = queue.Queue()
    ready = threading.Event()
    threading.Thread(target=stream_ids, args=(second, "/api/games/friday/stream", arrived, ready), daemon=True).start()
    assert ready.wait(30)
    seq = listed[0]["seq"]
    assert [arrived.get(timeout=30) for _ in range(seq)] == list(range(1, seq + 1))
    for turn in range(3):
        poster = (first, second)[turn % 2]
        listing = poster.http.get("/api/games/friday/moves", headers=AUTH).json()
        assert listing["seq"] == seq
        moved = poster.http.post(
            "/api/games/friday/moves", json={"move": listing["moves"][0], "expected_seq": seq}, headers=AUTH
        )
        assert moved.status_code == 201, moved.text
        for other in (first, second):  # the move just recorded on either: both refuse a post made before it
            stale = other.http.post(
                "/api/games/friday/moves", json={"move": listing["moves"][0], "expected_seq": seq}, headers=AUTH
            )
            assert stale.status_code == 409 and stale.json()["error"] == "core.append.stale", stale.text
        new_seq = moved.json()["events"][-1]["seq"]
        assert [arrived.get(timeout=30) for _ in range(new_seq - seq)] == list(range(seq + 1, new_seq + 1))
        seq = new_seq
    assert arrived.empty()
    log = PostgresStore(pg_url, "friday").read()
    assert len(log.events) == seq


def settled_log(url: str, game: str) -> Any:
    """The game's log once it stops growing: a COMMIT the killed server had already sent is finished by PostgreSQL
    after the server is gone (the move was never acknowledged, and may or may not be in the log)."""
    log = PostgresStore(url, game).read()
    for _ in range(50):
        threading.Event().wait(0.2)
        again = PostgresStore(url, game).read()
        if len(again.events) == len(log.events):
            return again
        log = again
    raise AssertionError("the log kept growing after its server was killed")


def test_kill_9_of_a_server_mid_appends_loses_no_acknowledged_move(
    two_servers: tuple[Server, Server], pg_url: str, tmp_path: Path
) -> None:
    """One server killed while a device posts move after move to it: every move it acknowledged is in the
    database, the log checks, and the other server goes on from there."""
    first, second = two_servers
    assert (
        first.http.post(
            "/api/games",
            json={"id": "g", "game": "splendor", "players": ["ana", "ben"], "mode": "open", "seed": 8},
            headers=AUTH,
        ).status_code
        == 201
    )
    acknowledged: list[str] = []

    def post_moves() -> None:
        try:
            while True:
                listing = first.http.get("/api/games/g/moves", headers=AUTH).json()
                moved = first.http.post(
                    "/api/games/g/moves",
                    json={"move": listing["moves"][0], "expected_seq": listing["seq"]},
                    headers=AUTH,
                )
                if moved.status_code == 201:
                    acknowledged.append(moved.json()["fingerprint"])
        except (httpx.HTTPError, ValueError, KeyError, IndexError):
            pass  # the server is gone (or the game ended)

    poster = threading.Thread(target=post_moves, daemon=True)
    poster.start()
    while len(acknowledged) < 5 and poster.is_alive():
        threading.Event().wait(0.01)
    first.kill()
    poster.join(30)
    assert len(acknowledged) >= 5
    log = settled_log(pg_url, "g")
    fingerprints = set(fingerprints_of(pg_url, "g"))
    assert set(acknowledged) <= fingerprints
    listing = second.http.get("/api/games/g/moves", headers=AUTH).json()
    assert listing["seq"] == len(log.events)
    assert (
        second.http.post(
            "/api/games/g/moves", json={"move": listing["moves"][0], "expected_seq": listing["seq"]}, headers=AUTH
        ).status_code
        == 201
    )
    exported = tmp_path / "g.jsonl"
    exported.write_bytes(PostgresStore(pg_url, "g").raw())
    assert check(exported).ok


def fingerprints_of(url: str, game: str) -> list[str]:
    """The fingerprint the log had after each of its lines."""
    from tally.store.logs.log import sha256_hex

    return [
        sha256_hex(bytes(row[0]))
        for row in psycopg_rows(url, f"SELECT line FROM tally_lines WHERE game = '{game}' ORDER BY seq")
    ]


def test_tally_serve_refuses_a_folder_and_a_store_at_once(tmp_path: Path, tally: Any) -> None:
    both = tally("serve", str(tmp_path), "--store", "postgresql://nobody@127.0.0.1:1/none")
    assert both.exit_code == 2 and "one of them" in both.stderr
    neither = tally("serve")
    assert neither.exit_code == 2
    folder = tally("serve", "--store", str(tmp_path))
    assert folder.exit_code == 2 and "PostgreSQL URL" in folder.stderr
    unreachable = tally("serve", "--store", "postgresql://nobody@127.0.0.1:1/none")
    assert unreachable.exit_code == 3 and len(unreachable.stderr.strip().splitlines()) == 1


def test_the_serve_benchmark_runs_on_a_store(pg_cluster: Any, tmp_path: Path) -> None:
    """Part 6 of bench/bench_serve.py, a smoke run: 1 and 2 servers on one database, every log exact."""
    root = ROOT
    done = subprocess.run(
        [sys.executable, str(root / "bench" / "bench_serve.py"), "--quick", "--store-only"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for servers in ("1 server:", "2 servers:"):
        lines = [line for line in done.stdout.splitlines() if servers in line]
        assert len(lines) == 2 and "(20 of 20 moves)" in lines[0], done.stdout
        assert "0 errors" in lines[1] and "logs exact: True" in lines[1], done.stdout


def test_a_seat_given_again_on_one_server_is_refused_on_the_other(
    two_servers: tuple[Server, Server], pg_url: str
) -> None:
    """The second server keeps the seats it read (no query per request); the host gives ben's seat again on the
    first (a new link, opened by a new phone): the old token is refused on the second as soon as the database's
    notice of the change reaches it, and the new one is ben's there."""
    first, second = two_servers
    assert first.http.post("/api/games", json=NEW, headers=AUTH).status_code == 201
    code = first.http.post("/api/games/friday/code", headers=AUTH).json()["code"]
    old = first.http.post("/api/games/friday/join", json={"seat": "ben", "code": code}).json()["token"]
    for _ in range(3):  # read and kept by the second server
        assert second.http.get("/api/games/friday", headers=bearer(old)).json()["viewer"] == "ben"
    link = first.http.post("/api/games/friday/seats/ben/link", headers=AUTH).json()["link"]
    new = first.http.post("/api/games/friday/claim", json={"link": link.split("#seat=")[1]}).json()["token"]
    assert first.http.get("/api/games/friday", headers=bearer(old)).status_code == 401  # its own change: at once
    deadline = time.monotonic() + 30
    while second.http.get("/api/games/friday", headers=bearer(old)).status_code != 401:
        assert time.monotonic() < deadline, "the second server still takes a revoked token"
        time.sleep(0.05)
    refused = second.http.get("/api/games/friday", headers=bearer(old)).json()
    assert refused["error"] == "serve.token.unknown"
    assert second.http.get("/api/games/friday", headers=bearer(new)).json()["viewer"] == "ben"


def test_the_seats_read_are_kept_until_a_change_is_heard(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`PostgresSeats` asks the database once for any number of lookups, and again after any server's change."""
    from tally.store.logs import pgstore

    with PostgresStore(pg_url, "g") as store:
        store.create_from((ROOT / "fixtures" / "games" / "split-3p.jsonl").read_bytes().split(b"\n")[:-1])
    one, other = pgstore.PostgresSeats(pg_url, "g"), pgstore.PostgresSeats(pg_url, "g")  # two servers' views
    token = other.give("ana")
    reads: list[str] = []
    real = pgstore.pooled

    def counted(url: str, autocommit: bool = True) -> Any:
        conn = real(url, autocommit=autocommit)

        class Counting:
            def execute(self, query: str, *args: Any) -> Any:
                reads.append(query)
                return conn.execute(query, *args)

            def __getattr__(self, name: str) -> Any:
                return getattr(conn, name)

        return Counting()

    monkeypatch.setattr(pgstore, "pooled", counted)
    assert [one.seat_of(token) for _ in range(20)] == ["ana"] * 20
    assert len([q for q in reads if q.startswith("SELECT seats")]) == 1
    given = other.give("ana")  # another server's change
    deadline = time.monotonic() + 30
    while one.seat_of(token) is not None:
        assert time.monotonic() < deadline, "the change was never heard"
        time.sleep(0.02)
    assert one.seat_of(given) == "ana"
    assert one.held() == ["ana"]
