"""The seated state every game shares: a tuple of per-seat records beside the seats' names, and the seats
that report their own hidden cards.

A state is a frozen msgspec Struct with `players` (one record per seat, in seat order); a move changes
one seat, sometimes two, and these helpers build the new tuple without copying it through a list.

In table mode a seat named in `game_started`'s `seated` enters what only it sees (its dealt hand, its
draws, its blind reserves) by name; the state keeps those names in its `seated` field. The kernel's turn
step `seat_names_own_cards` refuses an event that leaves such a card unnamed (`core.seat.unnamed`), so a
seated seat's zones never hold an unknown card and every guard judges its moves in full. What another
seat may know of them is the game's `conceal(state, seat)`, the one place a game hides a seat's cards.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Callable, Sequence, TypeVar

import msgspec

from .model import Event, Ruling, illegal
from .referee import ALLOWED, Allowed, answers_unseated

StateT = TypeVar("StateT", bound=msgspec.Struct)  # a game's state, with a `players` tuple

UNNAMED = "core.seat.unnamed"  # a seated seat's hidden card left unnamed
OWED = "core.seat.hand-owed"  # a seated seat's dealt hand, left out of the deal, not named yet
NOT_OWED = "core.seat.hand-not-owed"  # a hand named by a seat that owes none


_replace = msgspec.structs.replace


def with_seat(state: StateT, index: int, seat: Any, **changes: Any) -> StateT:
    """The state with seat `index`'s record replaced by `seat` (and any other fields changed)."""
    players: tuple[Any, ...] = state.players  # type: ignore[attr-defined]
    return _replace(state, players=players[:index] + (seat,) + players[index + 1 :], **changes)


def seat_index(seats: Sequence[str], name: str) -> int:
    """The index of the seat called `name`, or -1 when no one of that name is at the table."""
    try:
        return seats.index(name)
    except ValueError:
        return -1


# a game's question: which hidden card of a seated seat `event` leaves unnamed, as (seat, what to name), or None
Unnamed = Callable[[Any, Event], tuple[str, str] | None]


def seat_names_own_cards(unnamed: Unnamed) -> Callable[[Any, Event], Ruling | None]:
    """The turn step that refuses an event leaving a seated seat's hidden card unnamed (`core.seat.unnamed`).

    It goes first in a game's `TURN`: before the table's entries are allowed, since a deal names hands too.
    With nobody seated it answers nothing, and the kernel skips it."""

    @answers_unseated()
    def check_seat_names(state: Any, event: Event) -> Ruling | None:
        if not state.seated:
            return None
        found = unnamed(state, event)
        if found is None:
            return None
        seat, what = found
        return illegal(UNNAMED, f"{seat} enters their own hidden cards: {what}", player=seat)

    return check_seat_names


def _a_dealt_hand(state: Any) -> tuple[str, str]:
    return "dealt hand", "PLAYER: hand CARD ..."


def hands_owed(
    named: type[Event],
    field: str = "owed",
    dealt: tuple[type[Event], ...] = (),
    owing: Callable[[Any], tuple[str, str]] = _a_dealt_hand,
) -> Callable[[Any, Event], Ruling | Allowed | None]:
    """The turn step of a deal that left seated seats' hands to them: each seat names its own (an event of kind
    `named`, with `player`) in any order, from its own device, since no one seat knows another's hand. Until every
    seat in the state's `field` (the seats still owing, in seat order) has, every other move is refused
    (`core.seat.hand-owed`); a hand named by a seat that owes none is refused (`core.seat.hand-not-owed`). It goes
    first in a game's `TURN`, before whose turn it is (the seats name their hands out of turn order); with no hand
    owed it asks one attribute of the state. `dealt`: the game's deal events that may still name owed hands
    together (Array's `deal ana: CARD ...`), left to the game's own guards. `owing`: what the seats owe in the
    state, in words and as the form that names it (a dealt hand unless the game says otherwise)."""
    owed_of = attrgetter(field)

    @answers_unseated(named)  # with nobody seated no hand is owed: only a hand named is answered (refused)
    def check_hands_owed(state: Any, event: Event) -> Ruling | Allowed | None:
        owed: tuple[str, ...] = owed_of(state)
        kind = type(event)
        if kind is named:
            player = getattr(event, "player", "")
            if player not in owed:
                what = owing(state)[0]  # a dealt hand, or what else the game's seats owe (Splice: a disk drawn again)
                whose = "none is owed" if not owed else f"one is owed only by {', '.join(owed)}"
                return illegal(NOT_OWED, f"{player} has no {what} left to name: {whose}", player=player)
            return ALLOWED
        if not owed or kind in dealt:
            return None
        what, form = owing(state)
        return illegal(
            OWED,
            f"every seated seat names its own {what} first: {', '.join(owed)} still to name it ({form})",
            owed=list(owed),
        )

    return check_hands_owed


def concealed_from(state: Any, seat: str | None) -> list[int]:
    """The indexes of the seats whose hidden cards `seat` may not see (every other seat; None: none)."""
    if seat is None:
        return []
    return [i for i, name in enumerate(state.seats) if name != seat]
