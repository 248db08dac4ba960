"""`tally serve`'s HTTP app: the record service of every log in a folder, for the devices at its tables.

Thin, as every interface is: it parses a request, calls the store (`store/tables.py` for the folder and what
each caller may read, `store/service.py`'s `GameRecord` for every read and write of a log, `store/seats.py`
for tokens) and encodes the read model's structs. `ROUTES` is the one route table; `docs/api.md` is generated
from it (`python -m tally.serve.docs`). Blocking work runs in a worker thread, one request per game at a time.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Awaitable, Callable, Optional

import msgspec
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from tally.store import log as logfile
from tally.store import seats as seating
from tally.store import tables as folder
from tally.store.results import EventLine, ListingReport, MoveReport, NewReport, NoteReport, move_report, new_report
from tally.store.judging import SEAT_OTHER
from tally.store.service import Conflict, IllegalLog, MoveResult, UsageError

from . import bodies

MAX_BODY = 64 * 1024
HEARTBEAT = 15.0  # seconds between the stream's comments when nothing happens, so proxies keep it open
POLL = 0.1  # seconds between a stream's looks at its log's size: another writer (`tally move`) appended
WORKERS = 16  # worker threads of a server on a database: each holds 2 connections (reads, writes), so a server
# holds at most 2 * WORKERS + 1 (its listener), and a few servers fit PostgreSQL's max_connections


class Refused(Exception):
    """A request refused with an HTTP status and a stable id (`bodies.Error`)."""

    def __init__(self, status: int, error: str, message: str, **extra: Any):
        self.status, self.body = status, bodies.Error(error, message, **extra)


def answer(document: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(document), status, media_type="application/json")


class Caller(msgspec.Struct):
    """Who sent a request: the host (`viewer` None), a seat (its name) or a watcher (`tables.WATCHER`)."""

    viewer: Optional[str]

    @property
    def is_host(self) -> bool:
        return self.viewer is None

    @property
    def seat(self) -> Optional[str]:
        return None if self.viewer in (None, folder.WATCHER) else self.viewer


# --------------------------------------------------------------------------- the app's parts


class Service:
    """What the routes share: the games, the host token's hash and a wake-up per game for its streams."""

    def __init__(self, where: Path | str, host_token: str):
        self.tables = folder.Tables(where)
        self.host_digest = seating.digest(host_token)
        self._moved: dict[str, asyncio.Event] = {}
        self._heard: set[int] = set()  # the event loops the database's NOTIFYs wake
        self._limited: set[int] = set()  # the event loops whose worker threads are limited to WORKERS

    def limit(self) -> None:
        """On a database, this loop's worker threads limited to `WORKERS` (each thread keeps its connections)."""
        loop = id(asyncio.get_running_loop())
        if self.tables.url is None or loop in self._limited:
            return
        self._limited.add(loop)
        import anyio.to_thread

        anyio.to_thread.current_default_thread_limiter().total_tokens = WORKERS

    def hear(self) -> None:
        """On a database, every NOTIFY (this server's appends and every other server's) wakes this loop's streams
        of that game at once: the listener's thread hands it to the loop, no stream polls the database."""
        url = self.tables.url
        loop = asyncio.get_running_loop()
        if url is None or id(loop) in self._heard:
            return
        self._heard.add(id(loop))

        def heard(game: str, seq: int) -> None:
            try:
                loop.call_soon_threadsafe(self.notify, game)
            except RuntimeError:  # that loop is closed (a test's): nothing there waits any more
                pass

        from tally.store.pgstore import Listener

        Listener.on_notify(url, heard)

    def moved(self, ident: str) -> asyncio.Event:
        return self._moved.setdefault(ident, asyncio.Event())

    def notify(self, ident: str) -> None:
        event = self._moved.pop(ident, None)
        if event is not None:
            event.set()


def service(request: Request) -> Service:
    return request.app.state.service  # type: ignore[no-any-return]


def token_of(request: Request) -> Optional[str]:
    header = request.headers.get("authorization")
    if header is None:
        return None
    kind, _, token = header.partition(" ")
    if kind.lower() != "bearer" or not token.strip():
        raise Refused(401, "serve.token.malformed", "send a token as `Authorization: Bearer TOKEN`")
    return token.strip()


def caller(request: Request, game: Optional[folder.Game]) -> Caller:
    token = token_of(request)
    if token is None:
        return Caller(folder.WATCHER)
    if seating.is_host(token, service(request).host_digest):
        return Caller(None)
    seat = game.seats.seat_of(token) if game is not None else None
    if seat is None:
        raise Refused(401, "serve.token.unknown", "this token is not the host's nor a seat's of this game")
    return Caller(seat)


def host_only(who: Caller) -> None:
    if not who.is_host:
        raise Refused(403, "serve.host-only", "only the host may do this (the host token)")


def the_game(request: Request) -> folder.Game:
    ident = request.path_params["id"]
    try:
        game = service(request).tables.game(ident)
    except UsageError as error:
        raise Refused(400, "serve.game.id", str(error)) from None
    if game is None:
        raise Refused(404, "serve.game.unknown", f"no game {ident!r} in this {service(request).tables.kind}")
    return game


async def body_of(request: Request, kind: type[Any]) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise Refused(413, "serve.body.too-large", f"a body is at most {MAX_BODY} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise Refused(413, "serve.body.too-large", f"a body is at most {MAX_BODY} bytes")
    try:
        return msgspec.json.decode(bytes(data), type=kind)
    except msgspec.ValidationError as error:
        raise Refused(400, "serve.body.invalid", f"the body is not a {kind.__name__}: {error}") from None
    except msgspec.DecodeError as error:
        raise Refused(400, "serve.json.malformed", f"the body is not JSON: {error}") from None


def endpoint(method: str, path: str, who: str, body: Optional[type[Any]], answers: list[tuple[int, Any, str]]) -> Callable[..., Any]:
    """A route of the API: its handler wrapped so that every refusal is a JSON `Error`, with what the docs
    say of it (`who` may call it, the `body`, each status `answers` with its struct)."""

    def wrap(handler: Callable[[Request], Awaitable[Response]]) -> Any:
        async def run(request: Request) -> Response:
            service(request).limit()
            try:
                return await handler(request)
            except Refused as refused:
                return answer(refused.body, refused.status)
            except UsageError as error:
                return answer(bodies.Error("core.usage", str(error)), 400)
            except IllegalLog as error:
                return answer(bodies.Error("core.log.illegal", str(error)), 500)
            except logfile.LogError as error:
                return answer(bodies.Error(getattr(error, "rule", None) or "log.damaged", str(error)), 500)

        run.__doc__ = handler.__doc__
        run.api = (method, path, who, body, answers)  # type: ignore[attr-defined]
        return Route(path, run, methods=[method])

    return wrap


async def locked(game: folder.Game, work: Callable[[], Any]) -> Any:
    """`work` on a worker thread, after the game's record is brought up to the file, one request at a time."""

    def run() -> Any:
        with game.lock:
            game.sync()
            return work()

    return await run_in_threadpool(run)


def judged(result: MoveResult, created: int = 201) -> Response:
    """A move's result as `tally move --json` reports it (for a seat, as the record service answered that seat:
    what it may read), with the status that says what happened."""
    if result.is_stale:
        ruling = result.rulings[0]
        raise Refused(409, ruling.rule, ruling.message, seq=ruling.facts.get("seq"),
                      fingerprint=ruling.facts.get("fingerprint"))
    if not result.accepted and result.rulings and result.rulings[0].rule == SEAT_OTHER:
        raise Refused(403, "serve.seat.other", result.rulings[0].message)
    report = move_report(result)
    if result.notation is not None:
        return answer(report, 400)
    return answer(report, created if result.accepted else 422)


def check_writer(who: Caller, what: str) -> None:
    """The host writes for anyone and a seat for itself (the record service holds it to that); a watcher writes
    nothing."""
    if not who.is_host and who.seat is None:
        raise Refused(403, "serve.watcher", f"a watcher cannot {what}: join a seat first")


# --------------------------------------------------------------------------- the routes

GAME = "/api/games/{id}"
_E = bodies.Error


@endpoint("GET", "/api/games", "anyone", None, [(200, list[folder.GameSummary], "every game served: the folder's logs, or the store's games")])
async def list_games(request: Request) -> Response:
    """Every game served (a folder's logs or a database's games): id, game, seats, mode, seq, fingerprint, who acts, ended."""
    tables = service(request).tables

    def work() -> list[folder.GameSummary]:
        found = []
        for ident in tables.ids():
            game = tables.game(ident)
            if game is not None:
                with game.lock:
                    game.sync()
                    found.append(game.summary())
        return found

    return answer(await run_in_threadpool(work))


@endpoint("POST", "/api/games", "host", bodies.NewGame,
          [(201, NewReport, "the game started, as `tally new --json`"), (400, _E, "`core.usage`: refused as `tally new` refuses it, with its message"),
           (409, _E, "`serve.game.exists`: the folder or store holds a game of that id")])
async def create_game(request: Request) -> Response:
    """Start a game in the folder (or the store), validated exactly as `tally new`."""
    host_only(caller(request, None))
    asked = await body_of(request, bodies.NewGame)
    tables = service(request).tables
    try:
        path = tables.store_of(asked.id)
    except UsageError as error:
        raise Refused(400, "serve.game.id", str(error)) from None
    from tally.store.service import GameRecord

    def work() -> MoveResult:
        return GameRecord.new(path, asked.game, asked.players, asked.options, asked.mode, asked.seed, asked.manifest,
                               asked.seated)

    try:
        result = await run_in_threadpool(work)
    except FileExistsError:
        raise Refused(409, "serve.game.exists", f"the {tables.kind} holds a game {asked.id!r} already") from None
    return answer(new_report(f"{asked.id}.jsonl", asked.game, result), 201)


@endpoint("GET", GAME, "anyone", None, [(200, Any, "the game's view (as `tally state --json`, `--as` the caller's seat; a watcher's: what every player sees)"),
                                        (404, _E, "`serve.game.unknown`")])
async def show_game(request: Request) -> Response:
    """The table as the caller may see it."""
    game = the_game(request)
    who = caller(request, game)
    return answer((await locked(game, lambda: game.board(who.viewer))).view)


@endpoint("GET", GAME + "/moves", "anyone", None, [(200, ListingReport, "as `tally moves --json` (`--as` the caller's seat)")])
async def list_moves(request: Request) -> Response:
    """The legal moves now, as the caller knows the table."""
    game = the_game(request)
    who = caller(request, game)
    return answer(await locked(game, lambda: game.listing(who.viewer)))


@endpoint("POST", GAME + "/moves", "host, a seat (its own moves and the table's entries)", bodies.Move,
          [(201, MoveReport, "recorded: what `tally move --json` reports"),
           (400, MoveReport, "unreadable notation: `notation_error` holds the valid forms"),
           (403, _E, "`serve.seat.other`: a move of another seat; `serve.watcher`"),
           (409, _E, "`core.append.stale`: the log moved on; `seq` and `fingerprint` say where it is"),
           (422, MoveReport, "a rule forbids it: `rulings`")])
async def record_move(request: Request) -> Response:
    """Record a move; nothing is appended unless the answer is 201."""
    game = the_game(request)
    who = caller(request, game)
    asked = await body_of(request, bodies.Move)

    check_writer(who, "record a move")

    def work() -> Response:
        result = game.record.append(asked.move, expect_seq=asked.expected_seq, seat=who.seat)
        game.recorded(result)
        return judged(result)

    response = await locked(game, work)
    service(request).notify(game.id)
    return response  # type: ignore[no-any-return]


@endpoint("POST", GAME + "/rule", "anyone who may read the game (a move of another seat: judged on what the caller knows)",
          bodies.Question,
          [(200, MoveReport, "legal or unverifiable, as `tally rule --json`"), (400, MoveReport, "unreadable notation"),
           (409, _E, "`core.append.stale`, when `expected_seq` is given"), (422, MoveReport, "illegal: every rule that forbids it")])
async def rule_move(request: Request) -> Response:
    """A ruling on a move now; records nothing."""
    game = the_game(request)
    who = caller(request, game)
    asked = await body_of(request, bodies.Question)

    def work() -> Response:
        record = game.record
        if asked.expected_seq is not None and asked.expected_seq != record.seq:
            raise Refused(409, "core.append.stale", f"the log moved on: you saw #{asked.expected_seq}, it is now at "
                          f"#{record.seq}", seq=record.seq, fingerprint=record.last_hash)
        # "may ben take two red now?" is anyone's question, and "may I draw 10CR?" too: the referee answers a seat
        # or a watcher with what the asker may know, so no answer rests on another seat's hidden cards; the host's
        # questions are judged in full
        return judged(record.propose(asked.move, viewer=who.viewer), created=200)

    return await locked(game, work)  # type: ignore[no-any-return]


@endpoint("POST", GAME + "/undo", "host, a seat (its own last event)", bodies.Undo,
          [(201, MoveReport, "the last effective event (or turn) voided, as `tally undo --json`"),
           (403, _E, "`serve.seat.other`"), (409, _E, "`core.append.stale`"), (422, MoveReport, "refused: `rulings`")])
async def undo_move(request: Request) -> Response:
    """Void the last effective event (append-only)."""
    game = the_game(request)
    who = caller(request, game)
    asked = await body_of(request, bodies.Undo)

    check_writer(who, "undo")
    if asked.turn:
        host_only(who)

    def work() -> Response:
        result = game.record.undo(asked.reason, asked.turn, expect_seq=asked.expected_seq, seat=who.seat)
        game.recorded(result)
        return judged(result)

    response = await locked(game, work)
    service(request).notify(game.id)
    return response  # type: ignore[no-any-return]


@endpoint("POST", GAME + "/amend", "host, a seat (its own event)", bodies.Amend,
          [(201, MoveReport, "corrected, as `tally amend --json`"), (400, MoveReport, "unreadable replacement"),
           (403, _E, "`serve.seat.other`"), (409, _E, "`core.append.stale`"), (422, MoveReport, "refused: `rulings`")])
async def amend_move(request: Request) -> Response:
    """Void or replace any past event; refused when a later event would become illegal."""
    game = the_game(request)
    who = caller(request, game)
    asked = await body_of(request, bodies.Amend)

    check_writer(who, "amend")

    def work() -> Response:
        result = game.record.correct(asked.target, asked.reason, asked.move, expect_seq=asked.expected_seq, seat=who.seat)
        game.recorded(result)
        return judged(result)

    response = await locked(game, work)
    service(request).notify(game.id)
    return response  # type: ignore[no-any-return]


@endpoint("POST", GAME + "/notes", "host, a seat (its note)", bodies.Note,
          [(201, NoteReport, "as `tally note --json`"), (403, _E, "`serve.watcher`"), (409, _E, "`core.append.stale`")])
async def add_note(request: Request) -> Response:
    """A free remark for the record, a seat's in its name."""
    game = the_game(request)
    who = caller(request, game)
    asked = await body_of(request, bodies.Note)
    check_writer(who, "add a note")

    def work() -> Response:
        result = game.record.note(asked.text, who.seat, expect_seq=asked.expected_seq)
        game.recorded(result)
        if not result.accepted:
            return judged(result)
        return answer(NoteReport(result.events[0].seq, result.fingerprint), 201)

    response = await locked(game, work)
    service(request).notify(game.id)
    return response  # type: ignore[no-any-return]


@endpoint("GET", GAME + "/conflicts", "host", None,
          [(200, list[Conflict], "the newest seats' moves refused as `core.seat.conflict`: legal on what that seat knows, "
                                 "but forbidden by what other seats entered; `rulings` are the whole table's, naming the other entry"),
           (403, _E, "`serve.host-only`")])
async def list_conflicts(request: Request) -> Response:
    """What the host sees of the seats' entries that contradict each other (someone mistyped)."""
    game = the_game(request)
    host_only(caller(request, game))
    return answer(await locked(game, lambda: list(game.record.conflicts)))


@endpoint("POST", GAME + "/code", "host", None, [(201, bodies.JoinCode, "a new join code for the host's screen")])
async def new_code(request: Request) -> Response:
    """A fresh join code (the last one stops working)."""
    game = the_game(request)
    host_only(caller(request, game))
    return answer(bodies.JoinCode(await run_in_threadpool(game.seats.new_code)), 201)


@endpoint("POST", GAME + "/join", "host (any seat), or anyone with the join code (a free seat)", bodies.Join,
          [(201, bodies.Joined, "the seat's token"), (400, _E, "`core.usage`: no such seat"),
           (403, _E, "`serve.join.code`: a wrong code"), (409, _E, "`serve.join.taken`: a device holds the seat"),
           (429, _E, "`serve.join.rate-limited`: too many wrong codes lately")])
async def join_seat(request: Request) -> Response:
    """A seat's token, handed out by the host or taken with the join code."""
    game = the_game(request)
    who = caller(request, game)
    asked = await body_of(request, bodies.Join)
    seat = folder.seat_of_name(game, asked.seat)
    if who.is_host:
        return answer(bodies.Joined(seat, await run_in_threadpool(game.seats.give, seat)), 201)
    if asked.code is None:
        raise Refused(403, "serve.join.code", "a device joins with the host token or the game's join code")
    try:
        token = await run_in_threadpool(game.seats.join, seat, asked.code)
    except seating.Guessing as error:
        raise Refused(429, "serve.join.rate-limited", str(error)) from None
    except seating.SeatTaken as error:
        raise Refused(409, "serve.join.taken", str(error)) from None
    if token is None:
        raise Refused(403, "serve.join.code", "that is not this game's join code")
    return answer(bodies.Joined(seat, token), 201)


@endpoint("GET", GAME + "/events", "anyone", None,
          [(200, folder.EventsReport, "the events after `?after=SEQ` (default 0), as the caller may see them")])
async def list_events(request: Request) -> Response:
    """The events after a seq, to catch up."""
    game = the_game(request)
    who = caller(request, game)
    after = seq_param(request.query_params.get("after"), "after")
    return answer(await locked(game, lambda: game.event_lines(who.viewer, after)))


def seq_param(text: Optional[str], name: str) -> int:
    if text is None or text == "":
        return 0
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise Refused(400, "serve.seq", f"{name} is a seq: a whole number")
    return int(text)


@endpoint("GET", GAME + "/stream", "anyone", None,
          [(200, EventLine, "Server-Sent Events: one `event` per log event (`id:` its seq, `data:` its line as the caller may see it), "
                            "resuming after `Last-Event-ID` (or `?after=SEQ`); a comment every 15 s")])
async def stream_events(request: Request) -> Response:
    """Every event as it is recorded, by this server or any other writer of the log."""
    from sse_starlette.sse import EventSourceResponse

    game = the_game(request)
    who = caller(request, game)
    hub = service(request)
    hub.hear()
    after = seq_param(request.headers.get("last-event-id") or request.query_params.get("after"), "Last-Event-ID")

    async def events() -> Any:
        seen = after
        while True:
            moved = hub.moved(game.id)  # taken before looking, so an append in between still wakes this stream
            if game.timeline.is_behind():  # another writer (`tally move`) appended to the file
                await locked(game, lambda: None)
                hub.notify(game.id)
            if game.timeline.seq > seen:
                lines = await locked(game, lambda: game.timeline.lines(who.viewer, seen))
                for line in lines:
                    yield {"id": str(line.seq), "event": "event", "data": msgspec.json.encode(line).decode()}
                    seen = line.seq
                continue
            try:
                await asyncio.wait_for(moved.wait(), POLL)
            except asyncio.TimeoutError:
                pass

    return EventSourceResponse(events(), ping=HEARTBEAT)


ROUTES: list[BaseRoute] = [
    list_games, create_game, show_game, list_moves, record_move, rule_move, undo_move, amend_move, add_note,
    list_conflicts, new_code, join_seat, list_events, stream_events,
]
from .library import ROUTES as LIBRARY  # noqa: E402  (the library's routes, `/api/library/...`, use this module's parts)

ROUTES += LIBRARY


# --------------------------------------------------------------------------- the app


async def not_found(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if status == 404:
        return answer(bodies.Error("serve.route.unknown", f"no route {request.url.path}"), 404)
    if status == 405:
        return answer(bodies.Error("serve.method", f"{request.method} is not allowed on {request.url.path}"), 405)
    return answer(bodies.Error("serve.http", str(getattr(exc, "detail", "")) or "refused"), status)


async def broken(request: Request, exc: Exception) -> Response:
    return answer(bodies.Error("serve.internal", f"internal error ({type(exc).__name__}); please report it"), 500)


def create_app(where: Path | str, host_token: Optional[str] = None, db: Path | str | None = None) -> Starlette:
    """The app serving every log of the folder `where`, or every game of the PostgreSQL store `where` names
    (`postgresql://...`); `host_token` (default: a new random one, `app.state.host_token`) is the host's, who
    starts games and hands out seats; `db` the history library of `/library` (default: as `tally sql`'s).
    No CORS: only the page this server serves calls it."""
    token = host_token or seating.new_token()
    from .page import ROUTES as PAGE  # the table's page (issue 19): GET /, GET /games/{id}, its picture and files
    app = Starlette(routes=list(ROUTES) + PAGE, exception_handlers={HTTPException: not_found, Exception: broken})
    app.state.service = Service(where, token)
    app.state.host_token = token
    from tally.store.library_schema import resolve_db

    app.state.library = resolve_db(db)
    return app
