"""Splendor's table transcript: what a recorder at the table would have logged for an open-mode game."""

from __future__ import annotations

import msgspec

from ...model import Event, GameStarted
from .components import FACE_UP
from .events import CardBought, CardReserved, CardRevealed, NobleRevealed, SetupDealt
from .reducer import apply, start
from .state import find_on_board


def table_transcript(events: list[Event], seated: tuple[str, ...] = ()) -> list[Event]:
    """What a recorder at the table would have logged for an open-mode game, each seat of `seated` naming its
    own blind reserves.

    The deal becomes the nobles and 12 cards revealed one by one; every card turned up to fill a
    gap becomes a `card_revealed` right after the action; a blind reserve becomes unknown (the
    recorder did not see it) and is named only when bought.
    """
    started = events[0]
    assert isinstance(started, GameStarted)
    table_start = msgspec.structs.replace(started, mode="table", seated=list(seated))
    state = start(started)
    out: list[Event] = [table_start]
    for event in events[1:]:
        if isinstance(event, SetupDealt):
            out.extend(NobleRevealed(noble=n) for n in event.nobles)
            out.extend(CardRevealed(card=c) for deck in event.decks for c in deck[:FACE_UP])
            state = apply(state, event)
            continue
        where = None
        if isinstance(event, CardBought):
            where = find_on_board(state, event.card)
        elif isinstance(event, CardReserved) and event.level is None and event.card is not None:
            where = find_on_board(state, event.card)
        if isinstance(event, CardReserved) and event.level is not None and event.player not in seated:
            out.append(msgspec.structs.replace(event, card=None))
        else:
            out.append(event)
        state = apply(state, event)
        if where is not None:
            turned_up = state.board[where[0]][where[1]]
            if turned_up is not None:
                out.append(CardRevealed(card=turned_up))
    return out
