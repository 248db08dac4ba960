"""What a Split seat names by tapping half-cards (the card picker, `core/naming.py`): every half-card of the deck,
grouped by suit, and the moves the listing cannot enumerate: a seat's own dealt hand (nine half-cards, `hand`) and,
at a table whose seats name their own hands, the deal (the card that starts the discard row, and the hand of any
seat that does not name its own, when the recorder saw it).

Computed on the table as the caller knows it: the half-cards offered are those the caller cannot locate."""

from __future__ import annotations

from ...naming import Naming, Piece, Slot, counted, hand
from .components import HAND
from .state import State, unlocated


def pieces(state: State) -> list[Piece]:
    """Every half-card of the deck, suit by suit, rank by rank, the left half before the right."""
    deck = state.deck
    by_suit: list[list[Piece]] = [[] for _ in deck.suits]
    for card in deck.cards:
        suit = deck.info[card][1]
        by_suit[suit].append(Piece(card, [deck.suit_names[suit]]))
    return [piece for suit in by_suit for piece in suit]


def naming(state: State) -> list[Naming]:
    """The hands owed by seats that name their own, and a deal that leaves them to their seats."""
    if state.owed:
        pool = counted(unlocated(state))
        return [hand(name, HAND, pool) for name in state.owed]
    if state.phase == "deal" and state.mode == "table" and state.seated:
        pool = counted(state.deck.cards)  # a new round deals the whole deck again
        slots = [Slot("the card that starts the discard row", 1, 1, pool)]
        slots += [
            Slot(f"{name}'s hand, if the recorder saw it", 0, HAND, pool, f"| {name}")
            for name in state.seats
            if name not in state.seated
        ]
        return [
            Naming(
                "deal",
                None,
                "deal",
                f"the deal of round {state.round + 1}: the card that starts the discard row",
                slots,
            )
        ]
    return []
