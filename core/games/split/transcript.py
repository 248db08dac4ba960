"""Split's table transcript: what a recorder at the table would have logged for an open-mode game."""

from __future__ import annotations

import msgspec

from ...model import Event, GameStarted
from .events import CardDrawn, RoundDealt


def table_transcript(events: list[Event], seated: tuple[str, ...] = ()) -> list[Event]:
    """What a recorder who sees no hand (a scorekeeper beside the table) would have logged for an open game;
    each seat of `seated` names its own hand in every deal and every card it draws.

    Each deal becomes the card that starts the discard row, with no hand and no pile; every card drawn from
    the pile becomes an unknown draw. Everything else happens face up and is logged as it was: the cards
    taken from the row, matches, upgrades, bonuses and discards (each one reveals the cards it names).
    """
    started = events[0]
    assert isinstance(started, GameStarted)
    out: list[Event] = [msgspec.structs.replace(started, mode="table", seated=list(seated))]
    for event in events[1:]:
        if isinstance(event, RoundDealt):
            out.append(RoundDealt(row=event.row, hands={name: event.hands[name] for name in seated}))
        elif isinstance(event, CardDrawn) and event.player not in seated:
            out.append(msgspec.structs.replace(event, card=None))
        else:
            out.append(event)
    return out
