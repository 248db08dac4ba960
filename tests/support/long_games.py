"""Long games for the tests and benchmarks of answers that must not grow with a game's length: random Splice playouts
under house rules that let a game run on (no stall ends it, play goes on once the map pile is bought out), cut to the
length asked for at a unit's end and written as `tally simulate` writes a log (each move with the chance it dealt in
one unit)."""

from __future__ import annotations

import random
from datetime import datetime, timezone
from pathlib import Path

import msgspec

from tally.core import registry
from tally.store.recording.simulate import _stamp_fast, playout, units

LONG = {"stall-rounds": "999", "all-bought": "play-on"}  # Splice options under which a random game runs long


def long_events(length: int, seed: int = 0, players: int = 4) -> list[msgspec.Struct]:
    """The events of a random open Splice game of `length` events or a few fewer (cut where a unit ends)."""
    spec = registry.get("splice")
    for attempt in range(200):
        events, _ = playout("splice", players, random.Random(f"long:{seed}:{attempt}"), LONG)
        if len(events) >= length:
            marks = units(spec, events)
            end = 0
            while end < len(marks) and end + marks[end] <= length:
                end += marks[end]
            return list(events[:end])
    raise AssertionError(f"no random Splice game reached {length} events")


def write_long_game(path: Path, length: int, seed: int = 0, players: int = 4) -> Path:
    """A log of a random Splice game of about `length` events (see `long_events`); seeds give distinct first lines."""
    spec = registry.get("splice")
    events = long_events(length, seed, players)
    start = datetime(2025, 1, 1, tzinfo=timezone.utc).replace(microsecond=(seed % 1000) * 1000)
    path.write_bytes(_stamp_fast(events, start, units(spec, events)))
    return path
