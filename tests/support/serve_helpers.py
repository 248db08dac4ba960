"""Helpers of the `tally serve` tests: the app through httpx's ASGI transport, a raw ASGI call for the event
stream (the transport waits for a whole body, a stream never ends), and games to serve."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import httpx
import msgspec

from tally.core import registry
from tally.core.engine import play_out
from tally.serve.app import create_app
from tally.store.logs import log as logfile
from tally.store.recording.service import shuffler, start_event

HOST = "host-token-for-tests-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {HOST}"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def client(directory: Path) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(directory, HOST)), base_url="http://table")


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def transcript(game: str, seed: int, seats: int = 3, moves: int = 250) -> list[Any]:
    """A random legal game recorded in table mode with every seat entering its own hidden cards, where the game
    lets its seats do so (else with nobody seated): every event kind a table of phones writes."""
    spec = registry.get(game)
    seats = max(spec.min_seats, min(seats, spec.max_seats))
    names = [f"p{i + 1}" for i in range(seats)]
    rng = random.Random(seed)
    _, started = start_event(game, names, {}, "open")
    events, _ = play_out(spec, started, lambda legal: legal[rng.randrange(len(legal))], shuffler(rng), moves)
    table_started = msgspec.structs.replace(started, mode="table", seated=names)
    seated = tuple(names) if not spec.check_started(table_started) else ()
    return list(spec.table_transcript(events, seated=seated))


def seated(game: str, seed: int = 1) -> list[Any]:
    """A random game recorded by a table whose every seat names its own hidden cards, each its own dealt hand (the
    deals leave the hands to their seats where the game lets them), numbered from 1."""
    from support import array_helpers, splice_helpers, split_helpers

    by_seat = {
        "split": split_helpers.hands_by_seat,
        "array": array_helpers.hands_by_seat,
        "splice": splice_helpers.hands_by_seat,
    }
    events = transcript(game, seed=seed)
    if game in by_seat:
        events = by_seat[game](events)
    return [msgspec.structs.replace(event, seq=i) for i, event in enumerate(events, 1)]


def write_log(path: Path, events: list[Any]) -> None:
    logfile.create(path, [msgspec.structs.replace(e, seq=i) for i, e in enumerate(events, 1)])


class Stream:
    """`GET PATH` of the app as a raw ASGI call, read until `count` events came (or `timeout`), then dropped."""

    def __init__(self, app: Any, path: str, headers: dict[str, str] | None = None, client: str = "127.0.0.1"):
        self.app, self.path, self.headers, self.client = app, path, headers or {}, client

    async def read(self, count: int, timeout: float = 10.0, during: Any = None) -> tuple[int, list[dict[str, str]]]:
        events: list[dict[str, str]] = []
        status = 0
        buffer = b""
        done = asyncio.Event()
        path, _, query = self.path.partition("?")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(k.lower().encode(), v.encode()) for k, v in self.headers.items()],
            "client": (self.client, 1),
            "server": ("table", 80),
        }

        async def receive() -> dict[str, Any]:
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, buffer
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                buffer += message.get("body", b"")
                while b"\r\n\r\n" in buffer:
                    block, buffer = buffer.split(b"\r\n\r\n", 1)
                    fields = dict(
                        line.split(": ", 1)
                        for line in block.decode().splitlines()
                        if ": " in line and not line.startswith(":")
                    )
                    if "id" in fields:
                        events.append(fields)
                if len(events) >= count:
                    done.set()
                if not message.get("more_body", False):
                    done.set()

        task = asyncio.create_task(self.app(scope, receive, send))
        if during is not None:
            await during()
        try:
            await asyncio.wait_for(done.wait(), timeout)
        except asyncio.TimeoutError:
            done.set()
        await asyncio.wait_for(task, 10)
        return status, events


@contextlib.contextmanager
def serving(folder: Path, *options: str, files: int | None = None) -> Iterator[tuple[str, int, str]]:
    """`tally serve FOLDER --port 0 --json OPTIONS` as a real process (under `ulimit -n FILES`): its url, port and host
    token; killed afterwards."""

    def limited() -> None:
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    said = open(folder / "server.err", "w+")  # a file, not a pipe: a server that writes much never blocks on it
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "tally"), "serve", str(folder), "--port", "0", "--json", *options],
        stdout=subprocess.PIPE,
        stderr=said,
        text=True,
        preexec_fn=limited,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, said.seek(0) or said.read()
        started = json.loads(line)
        url = str(started["url"])
        yield url, int(url.rsplit(":", 1)[1]), str(started["token"])
    finally:
        process.kill()
        process.wait(30)
        said.close()
        if process.stdout is not None:
            process.stdout.close()
