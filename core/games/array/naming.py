"""What an Array seat names by tapping cards (the card picker, `core/naming.py`): every card of the box, grouped by
how many colours it joins (the action cards apart), and the moves the listing cannot enumerate: a seat's own hand
dealt this round (`hand`, seven cards: too many sets to list), and the cards a Splatter made it pick up (`pick up`).

Computed on the table as the caller knows it: the cards offered are the copies the caller cannot locate."""

from __future__ import annotations

from ...naming import Naming, Piece, Slot, hand
from .components import ACTION_CODES
from .state import State, unlocated_copies


def _group(code: str) -> list[str]:
    return ["action cards"] if code in ACTION_CODES else [f"{len(code)} colours"]


def pieces(state: State) -> list[Piece]:
    """Every card of the box: the two-colour cards, then three, then four, then the action cards."""
    codes = [code for code, _ in state.box.copies]
    order = sorted(codes, key=lambda code: (code in ACTION_CODES, len(code), codes.index(code)))
    return [Piece(code, _group(code)) for code in order]


def naming(state: State) -> list[Naming]:
    """The hands owed by seats that name their own (as many cards as the deal left each), and the cards a Splatter
    made a seated seat pick up: from the copies unlocated."""
    pool = unlocated_copies(state)
    if state.picking:
        who = state.picking
        return [
            Naming(
                "pick",
                who,
                f"{who}: pick up",
                f"the {state.picks} cards {who} picked up after the Splatter",
                [Slot("cards picked up", state.picks, state.picks, pool)],
            )
        ]
    return [hand(name, state.hands[state.seats.index(name)].unknown, pool) for name in state.owed]
