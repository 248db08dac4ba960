"""`tally serve` when a log or the database is not what it should be: a damaged log among sound ones, a log replaced
while served (restored from a backup, rewritten), a body cut short or sent too slowly, a database restarted under
it. Every answer is JSON with a stable id, never a 500, and a seat or a watcher is told nothing of a line's content."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from support import ROOT
from support.serve_helpers import AUTH, HOST, Stream, bearer, client, run, transcript
from tally.serve.app import create_app
from tally.store.logs import log as logfile

FIXTURE = ROOT / "fixtures" / "games" / "splendor-2p.jsonl"


def torn(path: Path) -> None:
    """What a writer killed mid-line leaves: part of a line, no newline."""
    with open(path, "ab") as out:
        out.write(b'{"seq":999,"type":"gems_ta')


def broken_chain(source: Path, target: Path) -> None:
    """A log whose line 5 was edited by hand (its time of recording): line 6 names the old line's hash."""
    lines = source.read_bytes().splitlines(keepends=True)
    line = msgspec.json.decode(lines[4])
    line["at"] = "2020-01-01T00:00:00.000Z"
    lines[4] = msgspec.json.encode(line) + b"\n"
    target.write_bytes(b"".join(lines))


def test_a_damaged_log_is_listed_with_its_damage_and_hides_no_other_game(tmp_path: Path) -> None:
    """Reproduction: a folder with a sound log, one with a torn tail (a writer killed mid-line) and one with a broken
    chain: `GET /api/games` answered 500 for every table. Now the sound game is listed as before and each damaged one
    with `damage` (the log error's stable id and line); each route of a damaged game, the board's picture included,
    answers a JSON 503 with that id; the host is told the file and the fault, a watcher or a seat only the id and the
    line (a line may hold a seat's hidden card)."""
    shutil.copy(FIXTURE, tmp_path / "good.jsonl")
    shutil.copy(FIXTURE, tmp_path / "torn.jsonl")
    torn(tmp_path / "torn.jsonl")
    broken_chain(FIXTURE, tmp_path / "chain.jsonl")

    async def scenario() -> None:
        async with client(tmp_path) as http:
            for headers in (AUTH, {}):
                listed = await http.get("/api/games", headers=headers)
                assert listed.status_code == 200, listed.text
                games = {game["id"]: game for game in listed.json()}
                assert sorted(games) == ["chain", "good", "torn"]
                assert games["good"]["damage"] is None and games["good"]["seq"] == 61
                assert games["torn"]["damage"]["error"] == "log.torn-tail"
                assert games["chain"]["damage"]["error"].startswith("log.")
                if headers:
                    assert str(tmp_path) in games["torn"]["damage"]["message"]
                else:
                    assert str(tmp_path) not in listed.text and "gems_ta" not in listed.text
            seat = bearer((await http.post("/api/games/good/join", json={"seat": "ana"}, headers=AUTH)).json()["token"])
            for path in (
                "/api/games/torn",
                "/api/games/torn/moves",
                "/api/games/torn/events",
                "/games/torn/picture.svg",
                "/games/torn/notation",
            ):
                for headers in (AUTH, {}, seat):
                    answer = await http.get(path, headers=headers)
                    assert answer.status_code == 503, (path, answer.status_code, answer.text)
                    assert answer.json()["error"] == "log.torn-tail"
                    if headers is not AUTH:
                        assert str(tmp_path) not in answer.text
            moved = await http.post("/api/games/torn/moves", json={"move": "pass", "expected_seq": 61}, headers=AUTH)
            assert moved.status_code == 503 and moved.json()["error"] == "log.torn-tail"

    run(scenario())


def test_a_log_damaged_while_served_is_told_not_a_500(tmp_path: Path) -> None:
    """Reproduction: a served game whose log gets a torn tail (a `tally move` killed mid-write) answered 500 on its
    routes and on the list of games. Now: 503 `log.torn-tail` on its routes, listed with its damage, the other game
    as before."""
    shutil.copy(FIXTURE, tmp_path / "g.jsonl")
    shutil.copy(FIXTURE, tmp_path / "other.jsonl")

    async def scenario() -> None:
        async with client(tmp_path) as http:
            assert (await http.get("/api/games/g", headers=AUTH)).status_code == 200
            torn(tmp_path / "g.jsonl")
            shown = await http.get("/api/games/g", headers=AUTH)
            assert shown.status_code == 503 and shown.json()["error"] == "log.torn-tail"
            listed = (await http.get("/api/games")).json()
            assert [(game["id"], (game["damage"] or {}).get("error")) for game in listed] == [
                ("g", "log.torn-tail"),
                ("other", None),
            ]

    run(scenario())


def write_each(path: Path, events: list[Any]) -> None:
    """A log of `events` appended one at a time (as a table records them: any prefix of it is a whole log)."""
    numbered = [msgspec.structs.replace(event, seq=seq) for seq, event in enumerate(events, 1)]
    logfile.create(path, numbered[:1])
    for event in numbered[1:]:
        with logfile.Locked(path) as locked:
            locked.append(event.seq - 1, locked.read().last_hash, [event])


def test_a_log_replaced_while_served_is_read_again_and_its_streams_resync(tmp_path: Path) -> None:
    """Reproduction: a served log replaced by another history, restored from an older backup (shorter) or rewritten in
    place (the same file, longer, other lines): `/events` went on listing the old lines (with the new file's tail after
    them) and the stream sent nothing, only the view followed. Now `/events` lists the new log's lines exactly as a
    server that never saw the old one does, and an open stream gets a `resync` event naming the new seq and
    fingerprint, then the events after it."""
    first = transcript("splendor", seed=1)[:30]
    second = transcript("splendor", seed=2)[:45]
    log = tmp_path / "g.jsonl"
    write_each(log, first)
    backup = tmp_path / "backup"
    backup.mkdir()
    lines = log.read_bytes().splitlines(keepends=True)
    (backup / "g.jsonl").write_bytes(b"".join(lines[:12]))
    other = tmp_path / "other"
    other.mkdir()
    write_each(other / "g.jsonl", second)
    app = create_app(tmp_path, HOST)

    async def fresh_events(folder: Path) -> Any:
        async with client(folder) as http:
            return (await http.get("/api/games/g/events?after=0")).json()

    async def scenario() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
            assert (await http.get("/api/games/g/events?after=0")).json()["seq"] == 30
            assert logfile.read(backup / "g.jsonl").events[-1].seq == 12
            shutil.copy(backup / "g.jsonl", tmp_path / "restored.tmp")
            os.replace(tmp_path / "restored.tmp", log)  # restored from the backup: another file, shorter
            assert (await http.get("/api/games/g/events?after=0")).json() == await fresh_events(backup)
            assert (await http.get("/api/games/g", headers=AUTH)).json()["seq"] == 12

            async def rewrite() -> None:
                await asyncio.sleep(0.3)
                with open(log, "r+b") as out:  # rewritten in place: the same file, longer, other lines
                    out.write((other / "g.jsonl").read_bytes())

            status, events = await Stream(app, "/api/games/g/stream?after=12").read(1, timeout=10, during=rewrite)
            assert status == 200 and events[0]["event"] == "resync", events
            told = msgspec.json.decode(events[0]["data"])
            assert told == {"seq": 45, "fingerprint": logfile.read(log).fingerprint} and events[0]["id"] == "45"
            assert (await http.get("/api/games/g/events?after=0")).json() == await fresh_events(other)
            # a device that saw more of the old log than the new one holds is told at once
            status, events = await Stream(app, "/api/games/g/stream", {"Last-Event-ID": "50"}).read(1, timeout=10)
            assert [e["event"] for e in events] == ["resync"] and events[0]["id"] == "45"

    run(scenario())


async def raw_post(app: Any, path: str, chunks: list[bytes], declared: int, then_wait: bool = False) -> tuple[int, Any]:
    """POST `path` as a raw ASGI call: the body in `chunks` (more to come after the last), then the client gone
    (`then_wait`: it sends nothing more and stays)."""
    status, body = 0, b""
    queue = [{"type": "http.request", "body": chunk, "more_body": True} for chunk in chunks]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(declared).encode())],
        "client": ("127.0.0.1", 1),
        "server": ("t", 80),
    }

    async def receive() -> dict[str, Any]:
        if queue:
            return queue.pop(0)
        if then_wait:
            await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status, body
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body += message.get("body", b"")

    await asyncio.wait_for(app(scope, receive, send), 30)
    return status, msgspec.json.decode(body) if body else None


def test_a_body_cut_short_or_too_slow_is_refused_with_an_id(tmp_path: Path) -> None:
    """Reproduction: a client that declared 60 bytes and left after 10 got a 500 "please report it" (the app met the
    disconnect as an internal error); one that sent 10 and then nothing held its request forever. Now: 400
    `serve.body.incomplete`, and 408 `serve.body.timeout` after the request timeout; nothing is appended."""
    from tally.serve.http import Limits

    shutil.copy(FIXTURE, tmp_path / "g.jsonl")
    before = (tmp_path / "g.jsonl").read_bytes()
    app = create_app(tmp_path, HOST, limits=Limits(request_timeout=0.5))

    async def scenario() -> None:
        status, body = await raw_post(app, "/api/games/g/join", [b'{"seat": "a'], 60)
        assert (status, body["error"]) == (400, "serve.body.incomplete")
        status, body = await raw_post(app, "/api/games/g/notes", [b'{"text": "x'], 60, then_wait=True)
        assert (status, body["error"]) == (408, "serve.body.timeout")

    run(scenario())
    assert (tmp_path / "g.jsonl").read_bytes() == before


def test_a_database_restart_is_503_with_a_retry_hint_never_a_500(tmp_path: Path) -> None:
    """Reproduction: requests to `tally serve --store URL` while its PostgreSQL restarted answered 500 "please report
    it" (a rollback on the dead connection raised out of the writer, `store/logs/pgstore.py`) or 500 `store.unreachable`.
    Now every one is 503 `store.unreachable` with `Retry-After`, nothing is appended, and once the database is back
    the same server answers as before."""
    from support.pg_cluster import Cluster, find_server

    server = find_server()
    if server is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no PostgreSQL server (initdb) found")
        pytest.skip("no PostgreSQL server installed")
    with Cluster(server) as cluster:
        url = cluster.new_database()
        app = create_app(url, HOST)

        async def scenario() -> None:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
                made = await http.post(
                    "/api/games",
                    json={"id": "g", "game": "splendor", "players": ["ana", "ben"], "mode": "open", "seed": 4},
                    headers=AUTH,
                )
                assert made.status_code == 201, made.text
                listing = (await http.get("/api/games/g/moves", headers=AUTH)).json()
                await asyncio.to_thread(cluster.halt)
                try:
                    asked = [
                        await http.post(
                            "/api/games/g/moves",
                            json={"move": listing["moves"][0], "expected_seq": listing["seq"]},
                            headers=AUTH,
                        ),
                        await http.get("/api/games"),
                        await http.get("/api/games/g", headers=AUTH),
                        await http.post("/api/games/g/code", headers=AUTH),
                        await http.post("/api/games/g/join", json={"seat": "ana", "code": "AAAA-AAAA-AAAA"}),
                        await http.post(
                            "/api/games", json={"id": "h", "game": "splendor", "players": ["a", "b"]}, headers=AUTH
                        ),
                    ]
                finally:
                    await asyncio.to_thread(cluster.resume)
                for answer in asked:
                    assert answer.status_code < 500 or (
                        answer.status_code == 503
                        and answer.json()["error"] == "store.unreachable"
                        and answer.headers["retry-after"].isdigit()
                    ), answer.text
                assert any(answer.status_code == 503 for answer in asked)
                for _ in range(2):  # a connection dropped by the restart is told once, then made again
                    again = await http.post(
                        "/api/games/g/moves",
                        json={"move": listing["moves"][0], "expected_seq": listing["seq"]},
                        headers=AUTH,
                    )
                    if again.status_code != 503:
                        break
                assert again.status_code == 201, again.text

        run(scenario())
