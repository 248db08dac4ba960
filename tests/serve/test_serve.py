"""`tally serve`'s API over every game (ASGI transport, no sockets): every endpoint, the answers the CLI gives
through the same store code, stale appends under 16 clients at once, the event stream and its resume."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from support import ROOT
from support.serve_helpers import AUTH, HOST, Stream, bearer, client, run
from tally.core import registry
from tally.serve.app import create_app
from tally.store.logs import log as logfile
from tally.store.recording import record
from tally.store.recording.results import board, check

GAMES = registry.names()


async def new_open_game(http: Any, game: str, ident: str = "g") -> dict[str, Any]:
    spec = registry.get(game)
    players = ["ana", "ben", "cy"][: max(spec.min_seats, 2)]
    made = await http.post(
        "/api/games", json={"id": ident, "game": game, "players": players, "mode": "open", "seed": 5}, headers=AUTH
    )
    assert made.status_code == 201, made.text
    return made.json()


@pytest.mark.parametrize("game", GAMES)
def test_every_endpoint_answers_as_the_cli_does(tmp_path: Path, game: str) -> None:
    log = tmp_path / "g.jsonl"

    async def scenario() -> None:
        async with client(tmp_path) as http:
            made = await new_open_game(http, game)
            assert made["log"] == "g.jsonl" and made["game"] == game
            listed = (await http.get("/api/games")).json()
            assert (
                [g["id"] for g in listed] == ["g"]
                and listed[0]["seq"] == made["events"]
                and listed[0]["ended"] is False
            )
            seq = listed[0]["seq"]
            shown = (await http.get("/api/games/g", headers=AUTH)).json()
            assert shown == msgspec.to_builtins(board(record.position(log)).view)  # `tally state --json`
            moves = (await http.get("/api/games/g/moves", headers=AUTH)).json()
            assert moves == msgspec.to_builtins(record.moves(log))  # `tally moves --json`
            first = moves["moves"][0]
            ruled = await http.post("/api/games/g/rule", json={"move": first}, headers=AUTH)
            assert ruled.status_code == 200 and ruled.json()["verdict"] in ("legal", "unverifiable")
            unreadable = await http.post(
                "/api/games/g/moves", json={"move": "zz qq 99", "expected_seq": seq}, headers=AUTH
            )
            assert unreadable.status_code == 400 and unreadable.json()["notation_error"], unreadable.text
            moved = await http.post("/api/games/g/moves", json={"move": first, "expected_seq": seq}, headers=AUTH)
            assert moved.status_code == 201, moved.text
            report = moved.json()
            assert report["accepted"] and report["events"][0]["seq"] == seq + 1
            now = (await http.get("/api/games")).json()[0]
            assert now["fingerprint"] == report["fingerprint"] == logfile.read(log).fingerprint
            again = await http.post("/api/games/g/moves", json={"move": first, "expected_seq": seq}, headers=AUTH)
            assert again.status_code == 409 and again.json()["seq"] == now["seq"], again.text
            assert again.json()["error"] == "core.append.stale" and again.json()["fingerprint"] == now["fingerprint"]
            if ":" in first:  # the same player's move again, now out of turn or spent
                illegal = await http.post(
                    "/api/games/g/moves", json={"move": first, "expected_seq": now["seq"]}, headers=AUTH
                )
                assert illegal.status_code in (422, 400), illegal.text
                if illegal.status_code == 422:
                    assert illegal.json()["verdict"] == "illegal" and illegal.json()["rulings"]
            assert (await http.get("/api/games")).json()[0]["seq"] == now["seq"]  # refusals appended nothing
            noted = await http.post(
                "/api/games/g/notes", json={"text": "a spilled drink", "expected_seq": now["seq"]}, headers=AUTH
            )
            assert noted.status_code == 201 and noted.json()["seq"] == now["seq"] + 1
            undone = await http.post(
                "/api/games/g/undo", json={"reason": "misread", "expected_seq": now["seq"] + 1}, headers=AUTH
            )
            assert undone.status_code == 201, undone.text
            after = undone.json()["events"][0]["seq"]
            amended = await http.post(
                "/api/games/g/amend", json={"target": after, "reason": "x", "expected_seq": after}, headers=AUTH
            )
            assert amended.status_code in (201, 422), amended.text
            events = (await http.get("/api/games/g/events?after=0", headers=AUTH)).json()
            listed = events["events"]
            while events["next"] is not None:  # a page at a time
                events = (await http.get(f"/api/games/g/events?after={events['next']}", headers=AUTH)).json()
                listed += events["events"]
            assert [e["seq"] for e in listed] == list(range(1, events["seq"] + 1))
            assert events["seq"] == len(logfile.read(log).events)
            assert (await http.get(f"/api/games/g/events?after={seq}", headers=AUTH)).json()["events"][0][
                "seq"
            ] == seq + 1

    run(scenario())
    assert check(log).ok


def test_a_new_game_is_validated_as_tally_new_validates_it(tmp_path: Path, tally: Any) -> None:
    async def scenario() -> None:
        async with client(tmp_path) as http:
            refused = await http.post(
                "/api/games", json={"id": "g", "game": "splendor", "players": ["ana"]}, headers=AUTH
            )
            assert refused.status_code == 400 and refused.json()["error"] == "core.usage"
            cli = tally("new", "splendor", str(tmp_path / "cli.jsonl"), "-p", "ana")
            assert cli.stderr.strip() == f"tally: {refused.json()['message']}"
            unknown = await http.post(
                "/api/games", json={"id": "g", "game": "chess", "players": ["a", "b"]}, headers=AUTH
            )
            assert unknown.status_code == 400 and "chess" in unknown.json()["message"]
            seated = {"id": "t", "game": "split", "players": ["ana", "ben"], "seated": ["ana", "ben"]}
            assert (await http.post("/api/games", json=seated, headers=AUTH)).status_code == 201
            twice = await http.post("/api/games", json=seated, headers=AUTH)
            assert twice.status_code == 409 and twice.json()["error"] == "serve.game.exists"
            watcher = await http.post("/api/games", json={**seated, "id": "u"})
            assert watcher.status_code == 403 and watcher.json()["error"] == "serve.host-only"

    run(scenario())
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == ["t.jsonl"]


def test_sixteen_clients_at_once_one_wins_each_seq(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with client(tmp_path) as http:
            await new_open_game(http, "splendor")
            for _ in range(3):
                now = (await http.get("/api/games")).json()[0]
                move = (await http.get("/api/games/g/moves", headers=AUTH)).json()["moves"][0]
                answers = await asyncio.gather(
                    *(
                        http.post("/api/games/g/moves", json={"move": move, "expected_seq": now["seq"]}, headers=AUTH)
                        for _ in range(16)
                    )
                )
                codes = sorted(a.status_code for a in answers)
                assert codes == [201] + [409] * 15, codes
                won = next(a for a in answers if a.status_code == 201).json()
                assert all(a.json()["seq"] == won["events"][-1]["seq"] for a in answers if a.status_code == 409)

    run(scenario())
    checked = check(tmp_path / "g.jsonl")
    assert checked.ok and checked.events == 2 + 3


def test_the_cli_and_the_server_share_one_log(tmp_path: Path) -> None:
    """A move written by `tally move` on the served file is seen by the server's next append (stale) and by its
    listing; the server's append is seen by the CLI."""

    async def scenario() -> None:
        async with client(tmp_path) as http:
            await new_open_game(http, "splendor")
            seq = (await http.get("/api/games")).json()[0]["seq"]
            move = (await http.get("/api/games/g/moves", headers=AUTH)).json()["moves"][0]
            assert record.move(tmp_path / "g.jsonl", move).accepted  # what `tally move` calls
            stale = await http.post("/api/games/g/moves", json={"move": move, "expected_seq": seq}, headers=AUTH)
            assert stale.status_code == 409 and stale.json()["seq"] == seq + 1
            nxt = (await http.get("/api/games/g/moves", headers=AUTH)).json()
            assert nxt["seq"] == seq + 1
            assert (
                await http.post(
                    "/api/games/g/moves", json={"move": nxt["moves"][0], "expected_seq": seq + 1}, headers=AUTH
                )
            ).status_code == 201
            assert record.move(tmp_path / "g.jsonl", nxt["moves"][0], expect_seq=seq + 1).is_stale

    run(scenario())
    assert check(tmp_path / "g.jsonl").ok


def test_the_stream_sends_every_event_and_resumes_after_last_event_id(tmp_path: Path) -> None:
    shutil.copy(ROOT / "fixtures" / "games" / "splendor-2p.jsonl", tmp_path / "g.jsonl")
    app = create_app(tmp_path, HOST)
    total = len(logfile.read(tmp_path / "g.jsonl").events)

    async def scenario() -> None:
        status, first = await Stream(app, "/api/games/g/stream", AUTH).read(5)
        assert status == 200 and [e["id"] for e in first[:5]] == ["1", "2", "3", "4", "5"]
        # the connection dropped after event 5: the browser sends what it saw last
        status, rest = await Stream(app, "/api/games/g/stream", {**AUTH, "Last-Event-ID": "5"}).read(total - 5)
        assert [int(e["id"]) for e in rest] == list(range(6, total + 1))
        assert all(e["event"] == "event" and msgspec.json.decode(e["data"])["seq"] == int(e["id"]) for e in rest)

    run(scenario())


def test_a_move_by_another_writer_reaches_the_stream(tmp_path: Path) -> None:
    app = create_app(tmp_path, HOST)
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], mode="open", seed=2)
    seq = len(logfile.read(log).events)

    async def by_the_cli() -> None:
        await asyncio.sleep(0.3)
        move = record.moves(log).moves[0]
        await asyncio.to_thread(record.move, log, move)  # `tally move` on the same file

    async def scenario() -> None:
        status, events = await Stream(app, f"/api/games/g/stream?after={seq}", AUTH).read(
            1, timeout=10, during=by_the_cli
        )
        assert status == 200 and [int(e["id"]) for e in events] == [seq + 1]

    run(scenario())


def test_a_server_append_reaches_another_devices_stream(tmp_path: Path) -> None:
    app = create_app(tmp_path, HOST)
    record.new_game(tmp_path / "g.jsonl", "split", ["ana", "ben"], mode="open", seed=2)
    import httpx

    async def post() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
            await asyncio.sleep(0.2)
            move = (await http.get("/api/games/g/moves", headers=AUTH)).json()
            answer = await http.post(
                "/api/games/g/moves", json={"move": move["moves"][0], "expected_seq": move["seq"]}, headers=AUTH
            )
            assert answer.status_code == 201

    async def scenario() -> None:
        seq = len(logfile.read(tmp_path / "g.jsonl").events)
        status, events = await Stream(app, f"/api/games/g/stream?after={seq}").read(1, during=post)
        assert [int(e["id"]) for e in events] == [seq + 1]

    run(scenario())


# --------------------------------------------------------------------------- never a 500: fuzzing

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FIELDS = [
    "move",
    "expected_seq",
    "reason",
    "turn",
    "target",
    "text",
    "player",
    "seat",
    "code",
    "game",
    "players",
    "options",
    "mode",
    "seed",
    "manifest",
    "id",
    "after",
    "link",
    "preview",
    "name",
    "seats",
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**20) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
SEGMENTS = [
    "api",
    "games",
    "g",
    "moves",
    "rule",
    "undo",
    "amend",
    "notes",
    "code",
    "join",
    "events",
    "conflicts",
    "catalog",
    "seats",
    "link",
    "claim",
    "picture.svg",
    "history",
    "outline",
    "names",
    "pieces",
    "bgstats",
    "library",
    "steps",
    "notation",
    "static",
    "page.css",
    "..",
    "%2e%2e",
    "g.jsonl",
    "",
    "x",
]
PATHS = st.lists(st.sampled_from(SEGMENTS) | st.text(alphabet="abc./%-_", max_size=6), max_size=5).map(
    lambda parts: "/" + "/".join(parts).lstrip("/")
)  # "//x" is a URL with a host, not a path
ROUTED = [
    "/api/games",
    "/api/games/g",
    "/api/games/g/moves",
    "/api/games/g/rule",
    "/api/games/g/undo",
    "/api/games/g/amend",
    "/api/games/g/notes",
    "/api/games/g/code",
    "/api/games/g/join",
    "/api/games/g/events",
    "/api/games/g/conflicts",
    "/api/catalog",
    "/api/games/g/seats",
    "/api/games/g/seats/ana/link",
    "/api/games/g/seats/zed/link",
    "/api/games/g/claim",
    "/api/games/g/history",
    "/api/games/g/outline",
    "/api/games/g/names",
    "/api/games/g/pieces",
    "/api/games/g/bgstats",
    "/games/g",
    "/games/g/picture.svg",
    "/games/g/notation",
    "/",
    "/api/games/nope/moves",
    "/api/games/..%2fg",
]
PATHS = st.sampled_from(ROUTED) | PATHS
MOVES = st.sampled_from(
    [
        "take r g b",
        "ana: take w b k",
        "ben: take r r",
        "buy 1b0-w1k2",
        "reserve deck 1",
        "pass",
        "ana: hand 1",
        "1",
        "",
        "?",
        "ana: take r + ben: take g",
        "ann: hand bor oy ry bry gry s3 slam",
        "ana: hand 5 5 2 3 4 disk r",
        "ana: hand disk g",
        "ben: hand 7HR 8DL",
    ]
) | st.text(max_size=10)
SEATED_LOGS = sorted((ROOT / "fixtures" / "games").glob("*-seated-*.jsonl"))
SAID = st.fixed_dictionaries(
    {"move": MOVES},
    optional={
        "expected_seq": st.none() | st.integers(-1, 400),
        "reason": st.text(max_size=8),
        "target": st.integers(-1, 400),
        "text": st.text(max_size=8),
        "seat": st.sampled_from(["ana", "ben", "zed"]),
        "turn": st.booleans(),
        "preview": JSON,
    },
)
BODIES = (
    SAID.map(msgspec.json.encode)
    | st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=4).map(msgspec.json.encode)
    | JSON.map(msgspec.json.encode)
    | st.binary(max_size=40)
)
SEAT = {"Authorization": "Bearer SEAT"}  # stands for a seat's own token, taken before the request
CALLERS = st.sampled_from([AUTH, {}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic x"}, SEAT])
# a body's type: JSON most often (else the body never reaches a route), and what a cross-site form or script sends
TYPES = st.sampled_from(
    ["application/json"] * 5
    + ["application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""]
)
# the Host a request names, to a server that checks it (`tally serve` does; the tests' in-process app need not)
HOSTS = st.sampled_from(
    [None, "table", "127.0.0.1:8000", "[::1]", "evil.example", "localhost.evil", "", "TABLE.", "a b"]
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]),
    path=PATHS,
    body=BODIES,
    headers=CALLERS,
    query=st.sampled_from(
        [
            "",
            "?after=3",
            "?after=-1",
            "?after=x",
            "?after=99999999999999999999",
            "?limit=0",
            "?limit=5&after=2",
            "?limit=99999999999999999999",
            "?before=3&limit=2",
            "?before=x",
            "?timezone=Mars/Base",
            "?timezone=UTC",
            "?timezone=../../etc",
            "?after=1&limit=-3",
        ]
    ),
    seated=st.sampled_from(SEATED_LOGS),
    kind=TYPES,
    host=HOSTS,
)
def test_no_request_ends_in_a_500(
    tmp_path: Path,
    method: str,
    path: str,
    body: bytes,
    headers: dict[str, str],
    query: str,
    seated: Path,
    kind: str,
    host: str | None,
) -> None:
    """Any method, path, query, body (of any type) and caller, to a server that checks the `Host` or not, gets an
    answer under 500; a refusal of the API is JSON with a stable `error` id (the stream, which never ends, is left
    out)."""
    from tally.serve.http import Limits

    if path.rstrip("/").endswith("/stream"):
        return
    log = tmp_path / "g.jsonl"
    shutil.copyfile(seated, log)  # any game's seated log, each example afresh: its own hand entries are fuzzed too
    checked = Limits(hosts=frozenset({"table"})) if host is not None else None
    sent = {
        **headers,
        **({"Content-Type": kind} if kind and method != "GET" else {}),
        **({"Host": host} if host else {}),
    }

    async def ask() -> Any:
        transport = httpx.ASGITransport(app=create_app(tmp_path, HOST, limits=checked))
        async with httpx.AsyncClient(transport=transport, base_url="http://table") as http:
            if headers is SEAT:  # a seat's device: its moves are read and judged as that seat's (its own knowledge)
                seat = logfile.read(log).started.seats[0]
                joined = await http.post("/api/games/g/join", json={"seat": seat}, headers=AUTH)
                sent.update(bearer(joined.json()["token"]))
            return await http.request(method, path + query, content=body if method != "GET" else None, headers=sent)

    answer = run(ask())
    assert answer.status_code < 500, (method, path, query, body, answer.text)
    if path.startswith("/api") and answer.status_code >= 400:
        assert_a_refusal_with_an_id(answer.json(), (method, path, answer.text))


def assert_a_refusal_with_an_id(refusal: Any, context: object) -> None:
    """A refusal of the API is an error with its id, or a move judged (`/moves`, `/rule`, `/undo`, `/amend`: the
    documented 400 and 422 bodies), whose rulings name the rules that forbid it or whose notation error its kind."""
    if "verdict" not in refusal:
        assert isinstance(refusal.get("error"), str), context
    elif refusal["verdict"] == "unreadable":
        assert refusal["notation_kind"] in ("invalid", "ambiguous", "unknown"), context
    else:
        assert refusal["verdict"] == "illegal" and not refusal["accepted"], context
        assert refusal["rulings"] and all(isinstance(r["rule"], str) for r in refusal["rulings"]), context


# --------------------------------------------------------------------------- streams reading together


class _Game:
    """What `Service.looked` needs of a served game: an id, its lock and its sync."""

    def __init__(self) -> None:
        import threading

        self.id, self.lock, self.synced = "g", threading.Lock(), 0

    def sync(self) -> None:
        self.synced += 1


def test_streams_asking_together_read_once_but_a_later_wake_up_reads_afresh(tmp_path: Path) -> None:
    """A game's streams asking for the same lines with the same wake-up share one read; a stream that took the
    wake-up an append set after that read began reads again (else it would wait for the next append to show it);
    a read that fails after every asker is gone is not left unretrieved."""
    from tally.serve.http import Limits
    from tally.serve.hub import Service

    service, game = Service(tmp_path, HOST, Limits()), _Game()
    reads: list[int] = []

    def look() -> int:
        reads.append(1)
        return len(reads)

    async def scenario() -> list[Any]:
        first, later = asyncio.Event(), asyncio.Event()
        together = await asyncio.gather(
            service.looked(game, None, 3, first, look),
            service.looked(game, None, 3, first, look),  # type: ignore[arg-type]
        )
        apart = await asyncio.gather(
            service.looked(game, None, 3, first, look),
            service.looked(game, None, 3, later, look),  # type: ignore[arg-type]
        )

        def broken() -> int:
            raise OSError("the log is away")

        loop = asyncio.get_running_loop()
        unretrieved: list[Any] = []
        loop.set_exception_handler(lambda _, context: unretrieved.append(context))
        waiting = asyncio.ensure_future(service.looked(game, None, 4, first, broken))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        waiting.cancel()
        await asyncio.sleep(0.2)
        import gc

        gc.collect()
        await asyncio.sleep(0)
        return [together, sorted(apart), unretrieved]

    together, apart, unretrieved = asyncio.run(scenario())
    assert together == [1, 1] and apart == [2, 3] and len(reads) == 3
    assert unretrieved == []
