"""What a Splendor table names by tapping pieces (the card picker, `core/naming.py`): the nobles, the development
cards by level and bonus colour, and the gems; and the move the listing cannot enumerate: a table-mode setup's
reveals, every noble and face-up card in one `reveal` (the listing offers them one card at a time).

Computed on the table as the caller knows it: the cards offered are those the caller cannot locate."""

from __future__ import annotations

from ...naming import Naming, Piece, Slot, counted
from .components import CARDS, COLOUR_NAMES, COLOURS, LEVEL_CARDS, NOBLES
from .state import State, unlocated


def pieces(state: State) -> list[Piece]:
    """The nobles, then each level's cards by their bonus colour (in the order of the colours), then the gems."""
    found = [Piece(noble, ["nobles"]) for noble in NOBLES]
    for level, cards in enumerate(LEVEL_CARDS, 1):
        for bonus, colour in enumerate(COLOUR_NAMES):
            found += [Piece(card, [f"level {level}", colour]) for card in cards if CARDS[card].bonus == bonus]
    found += [Piece(letter, ["gems"]) for letter in COLOURS]
    return found


def naming(state: State) -> list[Naming]:
    """A table-mode setup still to reveal: the nobles and each level's face-up cards, all in one `reveal`."""
    if state.phase != "setup" or state.mode != "table":
        return []
    slots = []
    nobles = state.nobles_wanted - len(state.nobles)
    if nobles > 0:
        slots.append(Slot("nobles", 0, nobles, counted(n for n in NOBLES if n not in state.nobles)))
    for level, row in enumerate(state.board, 1):
        gaps = sum(1 for card in row if card is None)
        if gaps:
            slots.append(Slot(f"level-{level} cards", 0, gaps, counted(unlocated(state, level))))
    wanted = ", ".join(f"{slot.most} {slot.name}" for slot in slots)
    return (
        [Naming("reveal", None, "reveal", f"the setup turned face up: {wanted}", slots, takes_listed=True)]
        if slots
        else []
    )
