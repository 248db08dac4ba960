"""Array's table transcript: what a recorder at the table would have logged for an open-mode game."""

from __future__ import annotations

import msgspec

from ...model import Event, GameStarted
from .events import ActionGiven, CardDrawn, CardShown, PickedUp, RoundDealt, StarterTurned
from .reducer import apply, start


def table_transcript(events: list[Event], seated: tuple[str, ...] = ()) -> list[Event]:
    """What a recorder at the table would have logged for an open-mode game, each seat of `seated` naming its own
    hand (before the starting card), its draws and the cards it picks up.

    The deal becomes the cards turned over for the starting card (`start`); a draw and the cards a
    Splatter makes someone pick up are not seen (no card named: a seated receiver names them next, `picked_up`);
    and at the end of each round every player
    with cards left shows them, one by one, in seat order.
    """
    started = events[0]
    assert isinstance(started, GameStarted)
    state = start(started)
    out: list[Event] = [msgspec.structs.replace(started, mode="table", seated=list(seated))]
    for event in events[1:]:
        if isinstance(event, RoundDealt):
            hands = {name: cards for name, cards in event.hands.items() if name in seated}
            if hands:
                out.append(RoundDealt(hands=hands))
            out.extend(StarterTurned(card=card) for card in event.turned)
        elif isinstance(event, CardDrawn) and event.player not in seated:
            out.append(msgspec.structs.replace(event, card=None))
        elif isinstance(event, ActionGiven) and event.drawn:  # the giver does not see the cards picked up
            out.append(msgspec.structs.replace(event, drawn=[]))
            if event.target in seated:  # a seated receiver names them itself, right after
                out.append(PickedUp(player=event.target, cards=list(event.drawn)))
        else:
            out.append(event)
        rounds = len(state.results)
        state = apply(state, event)
        if len(state.results) > rounds:
            result = state.results[-1]
            out.extend(
                CardShown(player=state.seats[seat], card=card) for seat in result.playing for card in result.left[seat]
            )
    return out
