"""What the routes of `tally serve` share (`Service`, the app's state): the games served, the host token's hash, a
wake-up per game for its streams and the one watcher that wakes them, the streams open and the wrong join codes of
each client address."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

from tally.store.logs import log as logfile
from tally.store.recording.service import IllegalLog
from tally.store.serving import seats as seating
from tally.store.serving import tables as folder

from .http import Guesses, Limits, Streams, locked

POLL = 0.1  # seconds between the looks of a server's one watcher at the sizes of the logs its streams follow


class Service:
    """What the routes share: the games, the host token's hash, a wake-up per game for its streams, the streams
    open and the wrong join codes of each client address."""

    def __init__(self, where: Path | str, host_token: str, limits: Limits):
        self.tables = folder.Tables(where)
        self.host_digest = seating.digest(host_token)
        self.limits = limits
        self.streams = Streams(limits.max_streams, limits.max_streams_per_client)
        self.guesses = Guesses()
        self.beat = 0  # heartbeats sent so far: a stream woken by one that has nothing to send sends a comment
        self._moved: dict[str, asyncio.Event] = {}
        self._heard: set[int] = set()  # the event loops the database's NOTIFYs wake
        self._limited: set[int] = set()  # the event loops whose worker threads are limited to WORKERS
        self._watching: dict[int, asyncio.Task[None]] = {}  # the event loops with a watcher, and its task
        self._looking: dict[
            tuple[int, str, str | None, int, int], asyncio.Future[Any]
        ] = {}  # `looked`'s reads under way

    def limit(self) -> None:
        """This loop's worker threads limited to what the place allows (a database: each thread keeps its
        connections)."""
        loop = id(asyncio.get_running_loop())
        workers = self.tables.place.workers
        if workers is None or loop in self._limited:
            return
        self._limited.add(loop)
        import anyio.to_thread

        anyio.to_thread.current_default_thread_limiter().total_tokens = workers

    def hear(self) -> None:
        """Where the place tells of every append (a database's NOTIFY: this server's and every other server's), each
        wakes this loop's streams of that game at once: the listener's thread hands it to the loop, no stream polls."""
        loop = asyncio.get_running_loop()
        if id(loop) in self._heard:
            return
        self._heard.add(id(loop))

        def heard(game: str, seq: int) -> None:
            try:
                loop.call_soon_threadsafe(self.notify, game)
            except RuntimeError:  # that loop is closed (a test's): nothing there waits any more
                pass

        self.tables.place.on_append(heard)

    def watch(self) -> None:
        """This loop's one watcher, started with its first stream: an idle stream waits on its game's event and
        costs nothing, however many there are; the watcher looks at the logs that streams follow (a file's size,
        inode and time every `POLL` seconds, one `stat` per game; a database game's NOTIFY wakes its streams by
        itself), brings a changed one up to date once and wakes its streams, and wakes every stream for the
        heartbeat."""
        loop = asyncio.get_running_loop()
        if id(loop) not in self._watching:
            self._watching[id(loop)] = loop.create_task(self._watch(loop))

    async def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        beat_at = loop.time() + self.limits.heartbeat
        unreadable: dict[str, float] = {}  # a game whose log could not be read: when to look again
        try:
            while True:
                await asyncio.sleep(POLL)
                for ident in list(self._moved):
                    game = self.tables.opened_game(ident)
                    if game is None or unreadable.get(ident, 0.0) > loop.time():
                        continue
                    try:
                        if not game.timeline.is_behind():
                            continue
                        await locked(game, lambda: None)
                    except (IllegalLog, logfile.LogError):  # damaged, half written, the database away: once a second
                        unreadable[ident] = loop.time() + 1.0
                        continue
                    unreadable.pop(ident, None)
                    self.notify(ident)
                if loop.time() >= beat_at:
                    beat_at = loop.time() + self.limits.heartbeat
                    self.beat += 1
                    for ident in list(self._moved):
                        self.notify(ident)
        finally:
            self._watching.pop(id(loop), None)

    async def looked(
        self, game: folder.Game, viewer: str | None, seen: int, moved: asyncio.Event, look: Callable[[], Any]
    ) -> Any:
        """`look()` on a worker thread under the game's lock (`locked`), once for every stream of the game that asks
        with the same viewer, the same seq seen and the same wake-up (`moved`, taken before asking) while it runs: an
        append wakes all of a game's streams at once, and its watchers (one viewer, one seq) read what it added once,
        not one thread's turn each. A stream that took a later wake-up reads afresh: an append after the read began
        has set the wake-up the read's first asker holds, never the later one."""
        key = (id(asyncio.get_running_loop()), game.id, viewer, seen, id(moved))
        running = self._looking.get(key)
        if running is None:
            running = self._looking[key] = asyncio.ensure_future(locked(game, look))
            running.add_done_callback(lambda done: self._looked(key, done))
        return await asyncio.shield(running)  # a stream that ends while waiting leaves the read to the others

    def _looked(self, key: tuple[int, str, str | None, int, int], done: asyncio.Future[Any]) -> None:
        self._looking.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved here: every stream that asked may have ended before it failed

    def moved(self, ident: str) -> asyncio.Event:
        return self._moved.setdefault(ident, asyncio.Event())

    def notify(self, ident: str) -> None:
        event = self._moved.pop(ident, None)
        if event is not None:
            event.set()
