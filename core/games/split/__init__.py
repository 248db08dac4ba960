"""Split (David Hoyt; Hasbro, revised edition 2001): three scored rounds of matching half-cards, with every
rule of docs/rules/split.md.

The package is one module per part of the game contract (docs/architecture.md): `data` and `components`
(the half-cards, reference cards and score pad of a manifest), `events`, `state`, `rules` (rule ids,
options and guards), `reducer`, `moves`, `notation`, `view`, `history` (the library's tables) and
`transcript`. This file states the game's own members of `SPEC`, its `GameSpec` (`core.model.bound` binds the
functions of the modules above by the contract), and names what other code imports.
"""

from __future__ import annotations

from ...model import GameSpec, GameStarted, bound
from .components import DEFAULT, DEFAULT_DECK, GRADES, HAND, Deck, deck_for, grade, pad_total
from .data import MANIFEST
from .events import (
    EVENTS,
    BonusDeclined,
    CardDiscarded,
    CardDrawn,
    LayingDone,
    MatchesSwapped,
    MatchPlayed,
    MatchUpgraded,
    MinusMarked,
    RoundDealt,
    RowTaken,
)
from .rules import OPTIONS, RULE_IDS, RULES
from .state import RoundResult, Seat, State, unlocated

__all__ = [
    "DEFAULT", "DEFAULT_DECK", "EVENTS", "GRADES", "HAND", "MANIFEST", "OPTIONS", "RULES", "RULE_IDS", "SPEC", "SPLIT",
    "BonusDeclined", "CardDiscarded", "CardDrawn", "Deck", "LayingDone", "MatchPlayed", "MatchUpgraded",
    "MatchesSwapped", "MinusMarked", "RoundDealt", "RoundResult", "RowTaken", "Seat", "Split", "State", "deck_for",
    "grade", "pad_total", "unlocated",
]


@bound(__name__)
class Split(GameSpec[State]):
    name = "split"
    title = "Split"
    rules_version = "1"
    manifest = MANIFEST
    min_seats = 2
    max_seats = 6
    options = OPTIONS
    events = EVENTS
    state_type = State
    rules = RULES

    def check_started(self, started: GameStarted) -> list[str]:
        """The shared checks, then whether the box holds enough half-cards for this many players."""
        problems = super().check_started(started)
        if problems:
            return problems
        deck = deck_for(started.manifest)
        needed = HAND * len(started.seats) + 2  # the hands, the row's first card, and a pile to draw from
        if deck.size < needed:
            return [f"manifest: {deck.size} half-cards are too few for {len(started.seats)} players (at least {needed})"]
        return []


SPEC = SPLIT = Split()
