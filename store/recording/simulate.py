"""Random legal playouts, written as logs that `tally check` accepts.

Randomness lives here, never in core: each move is drawn uniformly from `legal_moves` (the game's
`pick_move` builds only the one drawn), and the deal is shuffled here and dealt by the game's `play_drawn`
(`core.engine.play_drawn`, or a faster playout of the game's own that gives the same events). Game `i` of a
run uses its own generator seeded from (seed, i), so any single game can be reproduced alone. Times in
simulated logs are synthetic (one minute per event from a fixed start), so the same seed writes the same bytes.
"""

from __future__ import annotations

import hashlib
import os
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import msgspec

from tally.core import engine
from tally.core.model import Event
from tally.store.logs import log as logfile
from tally.store.recording.service import UsageError, shuffler, start_event

MAX_EVENTS = 20_000  # a safety valve: a playout that long is written unfinished and reported
_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


class SimulationSummary(msgspec.Struct):
    """`tally simulate`: what a run played and wrote."""

    game: str
    games: int
    events: int
    moves: int
    finished: int
    files: list[str]
    wins_by_seat: dict[str, int]


def units(spec: Any, events: list[Event]) -> list[int]:
    """The `unit` of each event as tally's commands would have appended them: the start, or a move, with
    the chance tally dealt right after it (events that are not voidable) in one unit."""
    return _units(list(map(spec.is_voidable, events)))


def _units(voidable: list[bool]) -> list[int]:
    """`units` from whether each event is voidable (a move, where a unit starts)."""
    marks = [1] * len(voidable)
    head = 0
    for index in range(1, len(voidable)):
        if voidable[index]:
            marks[head] = index - head
            head = index
    marks[head] = len(voidable) - head
    return marks


def _stamp_fast(events: list[Event], start: datetime, unit: list[int] | None = None) -> bytes:
    """Stamp seq, at, prev and unit and encode: the bytes `log.stamp` would write, one minute apart."""
    encode = logfile._ENCODER.encode
    sha = hashlib.sha256  # OpenSSL's, faster on long runs than the one `store.log` imports for a quick start
    replace = msgspec.structs.replace
    chunks = []
    prev = None
    base = round(start.timestamp() * 1000)  # milliseconds
    unit = unit or [1] * len(events)
    # the events are whole minutes apart: the seconds and milliseconds are the start's, the minute of the day
    # and the date are looked up (formatting each time stamp was a tenth of a playout)
    minute, rest = divmod(base, 60_000)
    seconds = f":{rest // 1000:02d}.{rest % 1000:03d}Z"
    days: dict[int, str] = {}
    clock = _clock()
    for seq, event in enumerate(events, 1):
        day, of_day = divmod(minute + seq, 1440)
        date = days.get(day)
        if date is None:
            date = days[day] = datetime.fromtimestamp(day * 86_400, timezone.utc).strftime("%Y-%m-%dT")
        line = encode(replace(event, seq=seq, at=date + clock[of_day] + seconds, prev=prev, unit=unit[seq - 1]))
        prev = sha(line).hexdigest()
        chunks.append(line)
    chunks.append(b"")
    return b"\n".join(chunks)


_CLOCK: list[str] = []


def _clock() -> list[str]:
    """ "HH:MM" of each minute of a day."""
    if not _CLOCK:
        _CLOCK.extend(f"{minute // 60:02d}:{minute % 60:02d}" for minute in range(1440))
    return _CLOCK


def draws(rng: random.Random) -> tuple[Callable[[int], int], Callable[[list[str]], list[str]]]:
    """`rng.randrange` and the shuffle `service.shuffler(rng)` makes, drawing exactly the numbers they draw: the
    generator's bits taken straight from `getrandbits`, without the argument checks of a call per draw."""
    if getattr(type(rng), "_randbelow", None) is not getattr(random.Random, "_randbelow_with_getrandbits", None):
        return rng.randrange, shuffler(rng)  # a generator that draws otherwise: its own way
    bits = rng.getrandbits

    def below(n: int) -> int:
        k = n.bit_length()
        r = bits(k)
        while r >= n:
            r = bits(k)
        return r

    def shuffle(pile: list[str]) -> list[str]:
        for i in range(len(pile) - 1, 0, -1):  # `random.shuffle`: Fisher-Yates from the end
            n = i + 1
            k = n.bit_length()
            j = bits(k)
            while j >= n:
                j = bits(k)
            pile[i], pile[j] = pile[j], pile[i]
        return pile

    return below, shuffle


def playout(
    game: str, players: int, rng: random.Random, options: dict[str, str] | None = None, manifest: Any = None
) -> tuple[list[Event], Any]:
    """One random legal game from the deal to the end: its events and final state."""
    seats = [f"p{i + 1}" for i in range(players)]
    spec, started = start_event(game, seats, options or {}, "open", manifest)
    below, shuffle = draws(rng)
    return engine.playout(spec, started, below, shuffle, MAX_EVENTS)


def simulate(
    game: str,
    games: int,
    seed: int,
    out: Path | str,
    players: int | None = None,
    options: dict[str, str] | None = None,
    mode: str = "open",
    manifest: Any = None,
) -> SimulationSummary:
    if mode not in ("open", "table"):
        raise UsageError(f"unknown mode {mode!r}; expected open or table")
    if games < 1:
        raise UsageError("--games must be at least 1")
    spec, _ = start_event(game, [f"p{i + 1}" for i in range(players or 2)], options or {}, "open", manifest)
    if players is not None and not spec.min_seats <= players <= spec.max_seats:
        raise UsageError(f"{spec.title} needs {spec.min_seats}-{spec.max_seats} players, got {players}")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    total = moves = finished = 0
    wins: dict[str, int] = {}
    for index in range(games):
        rng = random.Random(f"{seed}:{index}")
        count = players or rng.randint(spec.min_seats, spec.max_seats)
        events, state = playout(game, count, rng, options, manifest)
        if mode == "table":  # played with every card known, recorded as the table saw it
            events = spec.table_transcript(events)
        events[0] = msgspec.structs.replace(events[0], simulated=True)  # never taken for a game people played
        # the start time (line 1, hence the game id) differs by seed as well as by index, so runs with
        # different seeds never write two games with the same first line (unless seeds differ by 3.6M)
        start = _EPOCH + timedelta(hours=index, milliseconds=seed % 3_600_000)
        voidable = list(map(spec.is_voidable, events))
        payload = _stamp_fast(events, start, _units(voidable))
        path = folder / f"{game}-s{seed}-{index:05d}.jsonl"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, payload)
        finally:
            os.close(fd)
        files.append(str(path))
        total += len(events)
        moves += sum(voidable) - voidable[0]  # not the start, nor the chance tally dealt
        result = spec.outcome(state)
        if result is not None:
            finished += 1
            for winner in result.winners:  # by the name the logs give the seat (p1 is the first seat)
                wins[winner] = wins.get(winner, 0) + 1
    return SimulationSummary(
        game, games, total, moves, finished, files, dict(sorted(wins.items(), key=lambda won: int(won[0][1:])))
    )  # p1, p2, ..., p10
