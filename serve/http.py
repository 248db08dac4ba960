"""The request helpers of `tally serve`'s routes (who calls, which game, the body, a route's wrapper, a refusal as
JSON), what every request must be before a route reads it, and the limits that keep one client from locking the
others out (docs/security.md). The routes are in `app.py`, `library.py` and `page.py`; what they share in `hub.py`.

- `endpoint`: a route of the API, every refusal a JSON `Error` with a stable id; `caller`, `the_game`, `body_of`,
  `locked` (a game's work on a worker thread, one request at a time).

- `Guard`, an ASGI middleware in front of the app: a request whose `Host` is not a name this server is reached by is
  refused (421 `serve.host.unknown`), which stops DNS rebinding (a page of another site whose name the attacker points
  at this machine); a request with a body that is not `Content-Type: application/json` is refused (415
  `serve.body.content-type`): a browser sends a cross-site form or plain-text POST without asking anyone, but a JSON
  one only after a preflight that this server, having no CORS, never grants.
- `client_of`: the address a request came from (a trusted reverse proxy's `X-Forwarded-For`, as uvicorn reads it).
- `Guesses`: the wrong join codes of each client address; `Streams`: the open event streams, per address and in all.
- `Limits`: what a server is given of all this (`tally serve`'s options).
"""

from __future__ import annotations

import asyncio
import ipaddress
import threading
import time
from collections import deque
from typing import Any, Awaitable, Callable, Iterable, Optional, Protocol

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from tally.store.logs import log as logfile
from tally.store.recording.judging import SEAT_OTHER
from tally.store.recording.results import move_report
from tally.store.recording.service import IllegalLog, MoveResult, UsageError
from tally.store.serving import seats as seating
from tally.store.serving import tables as folder

from . import bodies

GUESSES = 5  # wrong join codes a client address may send per WINDOW seconds; then every code it sends is refused
WINDOW = 60.0
REMEMBERED = 10_000  # client addresses whose wrong codes are kept at most (an address rotating attacker grows no list)


class Refused(Exception):
    """A request refused with an HTTP status and a stable id (`bodies.Error`); `headers` go with the answer."""

    def __init__(self, status: int, error: str, message: str, headers: Optional[dict[str, str]] = None, **extra: Any):
        self.status, self.body = status, bodies.Error(error, message, **extra)
        self.headers = headers or {}


def answer(document: Any, status: int = 200, headers: Optional[dict[str, str]] = None) -> Response:
    return Response(msgspec.json.encode(document), status, media_type="application/json", headers=headers)


def refusal(refused: Refused) -> Response:
    return answer(refused.body, refused.status, refused.headers)


class Limits(msgspec.Struct):
    """How long a client may take to send a request, how many event streams stay open, and the names a `Host`
    header may carry besides IP addresses (None: not checked, an app no socket serves, as the tests' in-process
    clients call it)."""

    request_timeout: float = 10.0  # seconds to send a request's headers (from the connection or the last answer),
    # and as many again for its body
    max_streams: int = 1000  # event streams open at once, in all
    max_streams_per_client: int = 10  # ... from one client address (a phone holds one per open page)
    heartbeat: float = 15.0  # seconds between a stream's comments when nothing happens, so proxies keep it open
    hosts: Optional[frozenset[str]] = None


# --------------------------------------------------------------------------- who and where


def _address(text: str) -> Optional[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        found = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped  # a dual-stack socket's IPv4 client, as that client names itself
    return found


def client_of(scope: Scope) -> str:
    """The client's address (a reverse proxy on loopback is trusted to name it, `X-Forwarded-For`)."""
    client = scope.get("client")
    if not client:
        return "unknown"
    found = _address(str(client[0]))
    return str(found) if found is not None else str(client[0])


def _host_part(header: str) -> str:
    """The name or address of a `Host` header, without its port and brackets, lower case."""
    text = header.strip().lower()
    if text.startswith("["):
        return text[1 : text.find("]")] if "]" in text else text
    if text.count(":") == 1:
        text = text.split(":", 1)[0]
    return text.rstrip(".")


def is_allowed_host(header: Optional[str], names: frozenset[str], server: Any) -> bool:
    """Whether a request with this `Host` header is one to this server: an IP address on loopback or the one the
    client connected to (a page can be rebound only to a name, never to an address), or a name the server was
    given (`localhost`, `--host`, `--allow-host`, the machine's own name). No header (HTTP/1.0): allowed."""
    if header is None:
        return True
    host = _host_part(header)
    address = _address(host)
    if address is None:
        return host in names
    if address.is_loopback or str(address) in names:
        return True
    local = _address(str(server[0])) if server else None
    return local is not None and local == address


def _header(scope: Scope, name: bytes) -> Optional[str]:
    found = None
    for key, value in scope.get("headers", ()):
        if key == name:
            if found is not None:
                return "\x00"  # a header given twice means two different things to two readers: refused as unknown
            found = value.decode("latin-1")
    return found


def has_body(scope: Scope) -> bool:
    length = _header(scope, b"content-length")
    return _header(scope, b"transfer-encoding") is not None or (length is not None and length.strip() != "0")


def is_json(content_type: Optional[str]) -> bool:
    return content_type is not None and content_type.split(";", 1)[0].strip().lower() == "application/json"


class Guard:
    """The checks every request passes before the app sees it (the `Host`, a body's type); each refusal is JSON."""

    def __init__(self, app: ASGIApp, hosts: Optional[frozenset[str]] = None):
        self.app, self.hosts = app, hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refused = self.check(scope)
            if refused is not None:
                await refusal(refused)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def check(self, scope: Scope) -> Optional[Refused]:
        if self.hosts is not None and not is_allowed_host(_header(scope, b"host"), self.hosts, scope.get("server")):
            return Refused(
                421,
                "serve.host.unknown",
                "this server is not reached by that name: use its address, or "
                "start it with --allow-host NAME (docs/security.md)",
            )
        if has_body(scope) and not is_json(_header(scope, b"content-type")):
            return Refused(415, "serve.body.content-type", "a body is JSON, sent with `Content-Type: application/json`")
        return None


def names_of(host: str, explicit: bool, allowed: Iterable[str]) -> frozenset[str]:
    """The names a `Host` header may carry for a server listening on `host` (`explicit`: given as `--host`)."""
    import socket

    names = {"localhost", *(name.lower().rstrip(".") for name in allowed)}
    if explicit:
        names.add(_host_part(host if ":" not in host or host.startswith("[") else f"[{host}]"))
    address = _address(host)
    if address is None or not address.is_loopback:  # served beyond this machine: its own name reaches it too
        machine = socket.gethostname().lower()
        names |= {machine, f"{machine}.local"}
    return frozenset(names)


# --------------------------------------------------------------------------- the limits


class Guesses:
    """Wrong join codes per client address: at most `GUESSES` in `WINDOW` seconds, then the address waits.

    Per address, not per game: a device that guesses keeps only itself from joining. The codes are long enough
    that guessing from every address at once is hopeless (store/serving/seats.py), so no limit per game is needed."""

    def __init__(self, most: int = GUESSES, window: float = WINDOW):
        self.most, self.window = most, window
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait(self, client: str) -> Optional[int]:
        """The seconds `client` must wait before its next code is looked at; None: it may try now."""
        now = time.monotonic()
        with self._lock:
            failures = self._failures.get(client)
            while failures and now - failures[0] >= self.window:
                failures.popleft()
            if failures is not None and not failures:
                del self._failures[client]
            if failures and len(failures) >= self.most:
                return int(self.window - (now - failures[0])) + 1
        return None

    def failed(self, client: str) -> None:
        now = time.monotonic()
        with self._lock:
            if client not in self._failures and len(self._failures) >= REMEMBERED:
                self._failures.pop(next(iter(self._failures)))  # the address heard from longest ago
            self._failures.setdefault(client, deque()).append(now)


class Streams:
    """The event streams open now, per client address and in all."""

    def __init__(self, most: int, per_client: int):
        self.most, self.per_client = most, per_client
        self.open: dict[str, int] = {}
        self.total = 0

    def take(self, client: str) -> None:
        """One more stream for `client`, or `Refused` (429 for this client, 503 when the server holds all it may)."""
        if self.open.get(client, 0) >= self.per_client:
            raise Refused(
                429,
                "serve.stream.per-client",
                f"this device holds {self.per_client} event streams already: close a page, or wait",
                headers={"Retry-After": "5"},
            )
        if self.total >= self.most:
            raise Refused(
                503,
                "serve.stream.full",
                f"the server holds {self.most} event streams already: try again later",
                headers={"Retry-After": "5"},
            )
        self.open[client] = self.open.get(client, 0) + 1
        self.total += 1

    def give_back(self, client: str) -> None:
        left = self.open.get(client, 0) - 1
        if left > 0:
            self.open[client] = left
        else:
            self.open.pop(client, None)
        self.total -= 1


# --------------------------------------------------------------------------- a route's request

MAX_BODY = 64 * 1024
RETRY = 2  # seconds a client is told to wait (`Retry-After`) when the database cannot be reached


class Caller(msgspec.Struct):
    """Who sent a request: the host (`viewer` None), a seat (its name) or a watcher (`tables.WATCHER`)."""

    viewer: Optional[str]

    @property
    def is_host(self) -> bool:
        return self.viewer is None

    @property
    def seat(self) -> Optional[str]:
        return None if self.viewer in (None, folder.WATCHER) else self.viewer


class Hub(Protocol):
    """What a route's request helpers read of the app's state (`hub.Service`, which builds on this module)."""

    tables: folder.Tables
    host_digest: str
    limits: "Limits"

    def limit(self) -> None: ...


def service(request: Request) -> Hub:
    hub: Hub = request.app.state.service
    return hub


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


def is_host_request(request: Request) -> bool:
    try:
        token = token_of(request)
    except Refused:
        return False
    return token is not None and seating.is_host(token, service(request).host_digest)


def damage_of(error: IllegalLog | logfile.LogError, host: bool) -> folder.Damage:
    """What is wrong with a log that cannot be served, as `host` or anyone else may be told it: the host the whole
    message (the file and what is in the line), anyone else the stable id and the line, since the line may hold a
    seat's hidden card."""
    line: int | None
    if isinstance(error, IllegalLog):
        rule, line = "core.log.illegal", error.seq
    else:
        rule, line = error.rule, error.line
    where = f" at line {line}" if line else ""
    told = (
        str(error)
        if host
        else (
            f"the game's log cannot be read{where} ({rule}): the host can check it and repair "
            "it (tally check, tally repair)"
        )
    )
    return folder.Damage(rule, line, told)


def unreadable(request: Request, error: IllegalLog | logfile.LogError) -> Response:
    """A log that cannot be read, as a JSON refusal: a database that cannot be reached now is 503 with a retry
    hint (`store.unreachable`); a damaged log 503 with its stable id (`log.*`, `core.log.illegal`) until the host
    repairs it. Never a 500: neither is a fault of the server's."""
    host = is_host_request(request)
    if isinstance(error, logfile.LogError) and error.rule == "store.unreachable":
        told = str(error) if host else "the database cannot be reached now: try again in a moment"
        return answer(bodies.Error("store.unreachable", told), 503, {"Retry-After": str(RETRY)})
    if isinstance(error, logfile.LogError) and error.rule == "store.no-game":
        return answer(bodies.Error("serve.game.unknown", "no such game in this store"), 404)
    damage = damage_of(error, host)
    return answer(bodies.Error(damage.error, damage.message, seq=damage.line), 503)


async def body_of(request: Request, kind: type[Any]) -> Any:
    """The body, decoded strictly as `kind`; refused when too large, not sent within the request timeout (the
    connection is then closed: a client that sends slowly holds nothing), or cut short."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise Refused(413, "serve.body.too-large", f"a body is at most {MAX_BODY} bytes")
    data = bytearray()
    seconds = service(request).limits.request_timeout
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                data += chunk
                if len(data) > MAX_BODY:
                    raise Refused(413, "serve.body.too-large", f"a body is at most {MAX_BODY} bytes")
    except TimeoutError:
        raise Refused(
            408, "serve.body.timeout", f"the body did not come within {seconds:g} s", headers={"Connection": "close"}
        ) from None
    except ClientDisconnect:
        raise Refused(
            400, "serve.body.incomplete", "the body ended before the bytes its Content-Length declared"
        ) from None
    try:
        return msgspec.json.decode(bytes(data), type=kind)
    except msgspec.ValidationError as error:
        raise Refused(400, "serve.body.invalid", f"the body is not a {kind.__name__}: {error}") from None
    except msgspec.DecodeError as error:
        raise Refused(400, "serve.json.malformed", f"the body is not JSON: {error}") from None


def endpoint(
    method: str, path: str, who: str, body: Optional[type[Any]], answers: list[tuple[int, Any, str]]
) -> Callable[..., Any]:
    """A route of the API: its handler wrapped so that every refusal is a JSON `Error`, with what the docs
    say of it (`who` may call it, the `body`, each status `answers` with its struct)."""

    def wrap(handler: Callable[[Request], Awaitable[Response]]) -> Any:
        async def run(request: Request) -> Response:
            service(request).limit()
            try:
                return await handler(request)
            except Refused as refused:
                return refusal(refused)
            except UsageError as error:
                return answer(bodies.Error("core.usage", str(error)), 400)
            except (IllegalLog, logfile.LogError) as error:
                return unreadable(request, error)

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
        raise Refused(
            409, ruling.rule, ruling.message, seq=ruling.facts.get("seq"), fingerprint=ruling.facts.get("fingerprint")
        )
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
