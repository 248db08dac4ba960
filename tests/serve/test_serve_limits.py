"""`tally serve` under clients that hold connections: idle or half-sent connections, slow bodies, many event streams.
Real sockets on loopback (a `tally serve` process), each flood from its own loopback addresses (127.0.0.2, ...), the
seat that must still be answered from 127.0.0.1; and, in process, what an idle stream costs."""

from __future__ import annotations

import asyncio
import os
import resource
import select
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from support import ROOT
from support.serve_helpers import AUTH, HOST, Stream, bearer, run, serving
from tally.serve.app import create_app

FIXTURE = ROOT / "fixtures" / "games" / "splendor-2p.jsonl"


def enough_files(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            pytest.skip(f"this test opens {wanted} sockets: ulimit -Hn is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def seat_of(url: str, token: str) -> dict[str, str]:
    joined = httpx.post(f"{url}/api/games/g/join", json={"seat": "ana"}, headers=bearer(token), timeout=30)
    assert joined.status_code == 201, joined.text
    return bearer(joined.json()["token"])


def is_closed(connection: socket.socket, patience: float) -> bool:
    """Whether the server closed `connection` within `patience` seconds (an answer it sent first is read past)."""
    deadline = time.monotonic() + patience
    poller = select.poll()  # not select(): the flood's sockets have numbers past 1024
    poller.register(connection, select.POLLIN)
    while time.monotonic() < deadline:
        if not poller.poll(max(0.0, deadline - time.monotonic()) * 1000):
            return False
        try:
            if connection.recv(65536) == b"":
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


def test_a_flood_of_idle_and_half_sent_connections_locks_no_seat_out(tmp_path: Path) -> None:
    """Reproduction: under `ulimit -n 1024`, 1,100 connections that sent nothing, or half their headers (a watcher
    needs no token), took every file the server could open: it accepted no other connection and a seat's read
    waited for ever. Now the server holds at most its limit of files less a reserve; a new connection pushes out the
    one that has sent nothing for longest, so the seat's read is answered during the flood; and every flood
    connection is cut off, at the latest after the request timeout."""
    enough_files(4096)
    shutil.copy(FIXTURE, tmp_path / "g.jsonl")
    with serving(tmp_path, "--request-timeout", "3", files=1024) as (url, port, token):
        seat = seat_of(url, token)
        flood = []
        try:
            for number in range(1100):
                connection = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.2", 0))
                if number % 2:
                    connection.sendall(b"GET /api/games/g/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                flood.append(connection)
            with httpx.Client(base_url=url, timeout=20) as http:
                for _ in range(3):
                    shown = http.get("/api/games/g", headers=seat)
                    assert shown.status_code == 200 and shown.json()["viewer"] == "ana"
            assert all(is_closed(connection, 20) for connection in flood)
        finally:
            for connection in flood:
                connection.close()


def test_headers_or_a_body_sent_slowly_are_cut_off(tmp_path: Path) -> None:
    """Reproduction: a client that sent nothing, or its headers a byte at a time, or a body slower than it declared,
    held its connection for ever (uvicorn arms its keep-alive timer only after an answer, and any byte disarms it).
    Now headers must be whole within the request timeout (from the connection, or from the last answer), a body
    within as long again: the slow body is answered 408 `serve.body.timeout` and the connection closed."""
    shutil.copy(FIXTURE, tmp_path / "g.jsonl")
    with serving(tmp_path, "--request-timeout", "1") as (url, port, token):
        idle = socket.create_connection(("127.0.0.1", port), timeout=10)
        dripping = socket.create_connection(("127.0.0.1", port), timeout=10)
        slow_body = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            dripping.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow_body.sendall(
                b"POST /api/games/g/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\nAuthorization: Bearer " + token.encode() + b'\r\n\r\n{"text": "x'
            )
            cut = None
            for drip in range(40):  # a header line every 0.25 s: 10 s in all, ten times the timeout
                try:
                    dripping.sendall(b"X-Slow: a\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    cut = drip
                    break
                if is_closed(dripping, 0.25):
                    cut = drip
                    break
            assert cut is not None and cut < 40
            status, body = read_answer(slow_body)
            assert (status, body["error"]) == (408, "serve.body.timeout")
            assert is_closed(slow_body, 10) and is_closed(idle, 10)
        finally:
            for connection in (idle, dripping, slow_body):
                connection.close()
        with httpx.Client(base_url=url, timeout=20) as http:
            assert len(http.get("/api/games/g/events", headers=AUTH | bearer(token)).json()["events"]) == 61  # no note


def read_answer(connection: socket.socket) -> tuple[int, Any]:
    """An answer's status and, when it is not a stream, its JSON body (read to its Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        assert chunk, data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    if b"text/event-stream" in head:
        return status, None
    length = int(
        next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    )
    while len(rest) < length:
        chunk = connection.recv(65536)
        assert chunk, rest
        rest += chunk
    return status, msgspec.json.decode(rest)


def open_stream(port: int, source: str) -> tuple[socket.socket, int, Any]:
    """A watcher's stream from `source`: the socket, the status and (for a refusal) its JSON body."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    connection.sendall(b"GET /api/games/g/stream?after=61 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    status, body = read_answer(connection)
    if status != 200:
        connection.close()
    return connection, status, body


def test_streams_are_capped_per_client_and_in_all_and_a_seat_is_still_answered(tmp_path: Path) -> None:
    """Reproduction: any device could open event streams without end (a watcher needs no token), each one held for
    good. Now one client address holds at most `--max-streams-per-client` (one more: 429 `serve.stream.per-client`),
    the server at most `--max-streams` (503 `serve.stream.full`), each refusal JSON with `Retry-After`; a stream
    closed gives its place back; a seat is answered throughout."""
    shutil.copy(FIXTURE, tmp_path / "g.jsonl")
    with serving(tmp_path, "--max-streams", "5", "--max-streams-per-client", "2") as (url, port, token):
        seat = seat_of(url, token)
        held = [open_stream(port, "127.0.0.2"), open_stream(port, "127.0.0.2")]
        assert [status for _, status, _ in held] == [200, 200]
        _, status, refused = open_stream(port, "127.0.0.2")
        assert (status, refused["error"]) == (429, "serve.stream.per-client")
        held += [open_stream(port, "127.0.0.3"), open_stream(port, "127.0.0.3"), open_stream(port, "127.0.0.4")]
        assert [status for _, status, _ in held] == [200] * 5
        _, status, refused = open_stream(port, "127.0.0.5")
        assert (status, refused["error"]) == (503, "serve.stream.full")
        with httpx.Client(base_url=url, timeout=20) as http:
            assert http.get("/api/games/g", headers=seat).status_code == 200
        held.pop(0)[0].close()
        for _ in range(100):  # the server hears the stream close at once; a place is free from then on
            again, status, _ = open_stream(port, "127.0.0.5")
            if status == 200:
                break
            time.sleep(0.05)
        assert status == 200
        again.close()
        for connection, _, _ in held:
            connection.close()


def test_idle_streams_cost_nothing_until_the_log_moves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reproduction: each open stream looked at its log's size every 0.1 s (`POLL`), so the server's work grew with
    its idle streams (1,000 idle watcher streams took 40% of a core and slowed a seat's read a hundredfold). Now an
    idle stream waits on an event: one watcher looks at each followed log, so the looks at the log in a second are
    as many for 60 streams as for one; and an event still reaches every stream."""
    log = tmp_path / "g.jsonl"
    shutil.copy(FIXTURE, log)
    looked = [0]
    real_stat = os.stat

    def counting(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path) == str(log):
            looked[0] += 1
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)

    def looks_in_a_second(streams: int) -> int:
        app = create_app(tmp_path, HOST)
        seen: list[int] = []

        async def idle_then_move() -> None:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
                await asyncio.sleep(0.5)  # every stream open and waiting
                looked[0] = 0
                await asyncio.sleep(1.0)
                seen.append(looked[0])
                moved = await http.post(
                    "/api/games/g/notes", json={"text": "a spilled drink", "expected_seq": 61}, headers=AUTH
                )
                assert moved.status_code == 201, moved.text

        async def scenario() -> list[Any]:
            return await asyncio.gather(
                *(
                    Stream(app, "/api/games/g/stream?after=61", client=f"10.0.0.{number}").read(1, timeout=20)
                    for number in range(streams)
                ),
                idle_then_move(),
            )  # a phone each

        answers = run(scenario())
        assert all(status == 200 and [e["id"] for e in events] == ["62"] for status, events in answers[:-1]), answers[
            :3
        ]
        log.write_bytes(FIXTURE.read_bytes())
        return seen[0]

    one, many = looks_in_a_second(1), looks_in_a_second(60)
    assert many <= 2 * one + 10, (one, many)


def test_a_request_naming_another_host_is_refused(tmp_path: Path) -> None:
    """Reproduction: a page of another site whose name the attacker points at the server's address (DNS rebinding)
    read and wrote the API as if it were the server's own page: any `Host` was served. Now a `Host` that is neither an
    IP address (loopback, or the one the client connected to), localhost, `--host`, an `--allow-host` name nor the
    machine's name is refused: 421 `serve.host.unknown`."""
    shutil.copy(FIXTURE, tmp_path / "g.jsonl")
    with serving(tmp_path, "--allow-host", "tally.lan") as (url, port, token):
        with httpx.Client(base_url=url, timeout=20) as http:
            for host in (
                "evil.example",
                f"evil.example:{port}",
                "127.0.0.1.evil.example",
                "tally.lan.evil.example",
                "",
            ):
                refused = http.get("/api/games/g", headers={"Host": host})
                assert refused.status_code == 421 and refused.json()["error"] == "serve.host.unknown", host
                posted = http.post(
                    "/api/games/g/notes",
                    json={"text": "x", "expected_seq": 61},
                    headers={"Host": host, **bearer(token)},
                )
                assert posted.status_code == 421, host
            for host in (
                f"127.0.0.1:{port}",
                f"localhost:{port}",
                "LOCALHOST",
                f"tally.lan:{port}",
                "127.0.0.9",
                f"[::1]:{port}",
            ):
                assert http.get("/api/games/g", headers={"Host": host}).status_code == 200, host
    assert len(logfile_events(tmp_path / "g.jsonl")) == 61


def logfile_events(path: Path) -> list[Any]:
    from tally.store.logs import log as logfile

    return logfile.read(path).events
