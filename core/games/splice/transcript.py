"""Splice's table transcript: what a recorder at the table would have logged for an open-mode game.

The deal becomes `disks` and `deal` (naming who was dealt a Hurricane); every card drawn, discarded,
bought or returned face down becomes unseen (`?`), except a Hurricane, which is always shown; tally's
random picks and disk shuffles become what the table saw (a blind draw, `reshuffle`). A game decided by
`no-map=most-matching` ends with every player showing disk and map pieces.
"""

from __future__ import annotations

import msgspec

from ...model import Event, GameStarted
from .events import (
    CardPicked,
    CardsDealt,
    CardsDiscarded,
    CardsDrawn,
    DisksChosen,
    DisksDealt,
    DisksRedrawn,
    HoldingsRevealed,
    MapsBought,
    MapsReturned,
    SetupDealt,
)
from .reducer import apply, start

replace = msgspec.structs.replace


def table_transcript(events: list[Event], seated: tuple[str, ...] = ()) -> list[Event]:
    started = events[0]
    assert isinstance(started, GameStarted)
    state = start(started)
    out: list[Event] = [replace(started, mode="table")]
    for event in events[1:]:
        after = apply(state, event)
        if isinstance(event, SetupDealt):  # each Hurricane dealt owes its holder a replacement, in seat order
            names = [started.seats[owed.seat] for owed in after.owed for _ in range(owed.count)]
            out.extend([DisksChosen(), CardsDealt(hurricanes=names)])
        elif isinstance(event, DisksDealt):
            out.append(DisksRedrawn())
        elif isinstance(event, CardPicked):
            pass  # the table saw a blind draw or a piece taken, not which card
        elif isinstance(event, CardsDrawn):
            out.append(replace(event, cards=[c if c == "hurricane" else None for c in event.cards]))
        elif isinstance(event, MapsBought):
            out.append(replace(event, pieces=[None] * event.count))
        elif isinstance(event, CardsDiscarded):
            out.append(replace(event, cards=[None] * len(event.cards)))
        elif isinstance(event, MapsReturned):
            out.append(replace(event, pieces=[None] * len(event.pieces)))
        else:
            out.append(event)
        state = after
    if state.phase == "over" and state.ended != "map" and state.no_map == "most-matching":
        for name, seat in zip(started.seats, state.players):
            out.append(HoldingsRevealed(player=name, disk=seat.disk or "", pieces=list(seat.maps.known)))
    return out
