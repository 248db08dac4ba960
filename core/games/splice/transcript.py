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
    BlindDrawn,
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
    PiracyPlayed,
    SetupDealt,
    TradePlayed,
)
from .reducer import apply, start

replace = msgspec.structs.replace


def table_transcript(events: list[Event], seated: tuple[str, ...] = ()) -> list[Event]:
    """The open game as the table logged it; each seat of `seated` names its own disk, hand, draws, the cards
    and pieces taken from it or by it blind, and what it buys, discards and returns."""
    started = events[0]
    assert isinstance(started, GameStarted)
    state = start(started)
    out: list[Event] = [replace(started, mode="table", seated=list(seated))]
    waiting: Event | None = None  # a blind draw or a Piracy on a map piece, until tally's pick says what was taken
    for event in events[1:]:
        after = apply(state, event)
        if isinstance(event, SetupDealt):  # each Hurricane dealt owes its holder a replacement, in seat order
            names = [started.seats[owed.seat] for owed in after.owed for _ in range(owed.count)]
            disks = {name: event.disks[started.seats.index(name)] for name in seated}
            hands = {name: list(after.players[started.seats.index(name)].hand.known) for name in seated}
            out.extend([DisksChosen(disks=disks), CardsDealt(hurricanes=names, hands=hands)])
        elif isinstance(event, DisksDealt):
            out.append(DisksRedrawn(disks={name: event.disks[started.seats.index(name)] for name in seated}))
        elif isinstance(event, (BlindDrawn, PiracyPlayed)) and after.phase == "pick":
            waiting = event
        elif isinstance(event, CardPicked):
            if isinstance(waiting, BlindDrawn):  # the table saw a blind draw; its two players, which card
                named = waiting.player in seated or waiting.source in seated
                out.append(replace(waiting, card=event.card if named else None))
            elif isinstance(waiting, PiracyPlayed):
                named = waiting.player in seated or waiting.target in seated
                out.append(replace(waiting, piece=event.card if named else None))
            waiting = None
        elif isinstance(event, TradePlayed):  # a seated partner names the disk it received, if the log lacks it
            player = state.players[started.seats.index(event.player)]
            named = event.partner in seated and event.player not in seated
            out.append(replace(event, given=player.disk) if named else event)
        elif isinstance(event, CardsDrawn):
            if event.player not in seated:
                out.append(replace(event, cards=[c if c == "hurricane" else None for c in event.cards]))
            else:
                out.append(event)
        elif isinstance(event, MapsBought):
            out.append(event if event.player in seated else replace(event, pieces=[None] * event.count))
        elif isinstance(event, CardsDiscarded):
            out.append(event if event.player in seated else replace(event, cards=[None] * len(event.cards)))
        elif isinstance(event, MapsReturned):
            out.append(event if event.player in seated else replace(event, pieces=[None] * len(event.pieces)))
        else:
            out.append(event)
        state = after
    if state.phase == "over" and state.ended != "map" and state.no_map == "most-matching":
        for name, seat in zip(started.seats, state.players):
            out.append(HoldingsRevealed(player=name, disk=seat.disk or "", pieces=list(seat.maps.known)))
    return out
