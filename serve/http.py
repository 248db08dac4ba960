"""What every request to `tally serve` must be before a route reads it, and the limits that keep one client from
locking the others out (docs/security.md).

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

import ipaddress
import threading
import time
from collections import deque
from typing import Any, Iterable, Optional

import msgspec
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

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
        return text[1: text.find("]")] if "]" in text else text
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
            return Refused(421, "serve.host.unknown", "this server is not reached by that name: use its address, or "
                           "start it with --allow-host NAME (docs/security.md)")
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
    that guessing from every address at once is hopeless (store/seats.py), so no limit per game is needed."""

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
            raise Refused(429, "serve.stream.per-client", f"this device holds {self.per_client} event streams already: "
                          "close a page, or wait", headers={"Retry-After": "5"})
        if self.total >= self.most:
            raise Refused(503, "serve.stream.full", f"the server holds {self.most} event streams already: try again "
                          "later", headers={"Retry-After": "5"})
        self.open[client] = self.open.get(client, 0) + 1
        self.total += 1

    def give_back(self, client: str) -> None:
        left = self.open.get(client, 0) - 1
        if left > 0:
            self.open[client] = left
        else:
            self.open.pop(client, None)
        self.total -= 1
