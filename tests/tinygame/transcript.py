"""Ten's table transcript: nothing is hidden, so a recorder at the table logs the same events."""

from __future__ import annotations

import msgspec

from tally.core.model import Event, GameStarted


def table_transcript(events: list[Event], seated: tuple[str, ...] = ()) -> list[Event]:
    started = events[0]
    assert isinstance(started, GameStarted)
    return [msgspec.structs.replace(started, mode="table"), *events[1:]]
