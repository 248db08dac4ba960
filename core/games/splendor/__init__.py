"""Splendor (Marc André, 2014), the base game with every rule of docs/rules/splendor.md.

The package is one module per part of the game contract (docs/architecture.md): `data` and
`components` (the cards and nobles), `events`, `state`, `rules` (rule ids, options and guards),
`reducer`, `moves`, `notation`, `view`, `history` (the library's tables) and `transcript`.
This file states the game's own members of `SPEC`, its `GameSpec` (`core.model.bound` binds the
functions of the modules above by the contract), and names what other code imports.
"""

from __future__ import annotations

from ...model import GameSpec, bound
from .components import CARDS, COLOURS, GEMS, GOLD, LEVEL_CARDS, NOBLE_NAMES, NOBLES, Card
from .data import MANIFEST
from .events import (
    EVENTS,
    CardBought,
    CardReserved,
    CardRevealed,
    GemsTaken,
    NobleChosen,
    NobleRevealed,
    SetupDealt,
    TokensReturned,
    TurnPassed,
)
from .rules import OPTIONS, RULE_IDS, RULES
from .state import Seat, State, default_payment, unlocated

__all__ = [
    "CARDS", "COLOURS", "EVENTS", "GEMS", "GOLD", "LEVEL_CARDS", "MANIFEST", "NOBLES", "NOBLE_NAMES", "OPTIONS",
    "RULES", "RULE_IDS", "SPEC", "SPLENDOR", "Card", "CardBought", "CardReserved", "CardRevealed", "GemsTaken",
    "NobleChosen", "NobleRevealed", "Seat", "SetupDealt", "Splendor", "State", "TokensReturned", "TurnPassed",
    "default_payment", "unlocated",
]


@bound(__name__)
class Splendor(GameSpec[State]):
    name = "splendor"
    title = "Splendor"
    rules_version = "1"
    manifest = MANIFEST
    min_seats = 2
    max_seats = 4
    options = OPTIONS
    events = EVENTS
    state_type = State
    rules = RULES


SPEC = SPLENDOR = Splendor()
