"""The connections of `tally serve`: uvicorn's HTTP/1.1 protocol (its h11 one) with the deadlines and the cap it lacks.

What uvicorn 0.54 gives, read in its source (`protocols/http/h11_impl.py`, `config.py`): `timeout_keep_alive` is
armed only once an answer is sent, and disarmed by any byte received, so a client that connects and sends nothing,
or a byte of its headers now and then, holds its connection (a file descriptor) for ever; `limit_concurrency` counts
such idle connections with the rest and, once they are that many, answers every new request, a seat's too, with a
plain-text 503; `h11_max_incomplete_event_size` bounds how large the headers may grow, not how long they take. Under
`ulimit -n 1024` about a thousand such connections (a watcher's stream needs no token) left the server unable to
accept one more: every phone was locked out.

So each connection here is in one of three phases: WAITING for a request's headers (since it was opened, or since
its last answer was sent), RECEIVING a request's body, or ANSWERING (a route runs, or a stream is open). One WAITING
longer than the request timeout is closed, one RECEIVING a second longer (the route's own 408 goes first). The server
holds at most `Gate.most` connections, below its limit of open files; when it holds that many, a new connection
closes the one that has been WAITING or RECEIVING longest (a phone's request pushes out a connection that sends
nothing), or, when every one is ANSWERING, is answered 503 `serve.connections.full` and closed. Event streams are
capped below `most` (`http.Streams`), so a request always finds room. Each deadline is one timer of the event loop per
connection, set when its phase begins, never a poll.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any, Optional

import msgspec
from uvicorn.protocols.http.h11_impl import H11Protocol

from . import bodies

WAITING, RECEIVING, ANSWERING = "waiting", "receiving", "answering"
BACKLOG = 128  # connections accepted in one turn of the event loop (and the kernel's queue): each is an open file
# before the gate sees it, so the gate's cap leaves room for two turns of them
RESERVE = 128 + 2 * BACKLOG  # open files kept besides the connections the gate admits: the server's own (logs, seat
# files, the library, database connections) and the connections accepted but not yet admitted
BODY_GRACE = 1.0  # seconds a body may take past the request timeout before the connection is closed under the route


def open_files_limit() -> int:
    """The process's limit of open files, raised first to its hard limit (a user's `ulimit -n` is often 1024 while
    the system allows far more): each connection is one."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return 65536 if soft == resource.RLIM_INFINITY else int(soft)


def _full() -> bytes:
    body = msgspec.json.encode(
        bodies.Error(
            "serve.connections.full",
            "the server holds as many connections as it may, every one busy: try again in a moment",
        )
    )
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 5\r\n"
        f"connection: close\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


FULL = _full()


class Gate:
    """The connections a server holds: how many in all, and which may be pushed out (WAITING or RECEIVING), oldest
    first."""

    def __init__(self, most: int, timeout: float):
        self.most, self.timeout = most, timeout
        self.held: set[GuardedProtocol] = set()
        self.idle: OrderedDict[GuardedProtocol, None] = OrderedDict()  # WAITING or RECEIVING, in the order they began

    def admit(self, connection: "GuardedProtocol") -> bool:
        if len(self.held) >= self.most:
            if not self.idle:
                return False
            oldest, _ = self.idle.popitem(last=False)
            self.release(oldest)
            oldest.transport.close()
        self.held.add(connection)
        return True

    def phase(self, connection: "GuardedProtocol", phase: str) -> None:
        if connection not in self.held:
            return
        self.idle.pop(connection, None)
        if phase != ANSWERING:
            self.idle[connection] = None

    def release(self, connection: "GuardedProtocol") -> None:
        self.held.discard(connection)
        self.idle.pop(connection, None)


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's headers and body, under its server's `Gate`."""

    gate: Gate  # set on the class `protocol_for` makes

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.phase = WAITING
        self._cycle: Any = None
        self._timer: Optional[asyncio.TimerHandle] = None
        if not self.gate.admit(self):
            transport.write(FULL)
            transport.close()
            return
        self._enter(WAITING)

    def connection_lost(self, exc: Optional[Exception]) -> None:
        self.gate.release(self)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._observe()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._observe()

    def _observe(self) -> None:
        """The phase the connection is in now, after what it received or sent."""
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            phase = WAITING
        elif cycle.more_body and not cycle.response_started:
            phase = RECEIVING
        else:
            phase = ANSWERING
        if phase != self.phase or cycle is not self._cycle:
            self._cycle = cycle
            self._enter(phase)

    def _enter(self, phase: str) -> None:
        self.phase = phase
        self.gate.phase(self, phase)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if phase != ANSWERING:
            seconds = self.gate.timeout + (BODY_GRACE if phase == RECEIVING else 0.0)
            self._timer = self.loop.call_later(seconds, self._expire, phase)

    def _expire(self, phase: str) -> None:
        self._timer = None
        if self.phase == phase and not self.transport.is_closing():
            self.transport.close()  # headers or a body too slow: the client held a connection, it holds it no more


def protocol_for(gate: Gate) -> type[GuardedProtocol]:
    """The protocol class uvicorn makes each connection with (`Config(http=...)`), bound to one server's gate."""
    return type("Guarded", (GuardedProtocol,), {"gate": gate})
