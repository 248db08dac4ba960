"""Splice, as reworked by the house rules of the seed (docs/rules/splice.md): maps, gold, piracy and Hurricanes.

The package is one module per part of the game contract (docs/architecture.md): `data` and `components`
(the box, from a manifest), `events`, `state`, `rules` (rule ids, options and guards), `reducer`, `moves`,
`notation`, `view`, `history` (the library's tables) and `transcript`. This file binds them into `SPEC`.
"""

from __future__ import annotations

from ...model import GameSpec, GameStarted, bound
from .components import DEFAULT_BOX, Box, box_for, card_name, deck_cards, deck_copies, read_set
from .data import DEFAULT, MANIFEST
from .events import (
    EVENTS,
    BlackSpotPlayed,
    BlindDrawn,
    CardPicked,
    CardsDealt,
    CardsDiscarded,
    CardsDrawn,
    CoinsPlayed,
    DisksChosen,
    DisksDealt,
    DisksRedrawn,
    HoldingsRevealed,
    MapLaid,
    MapsBought,
    MapsReturned,
    PiracyPlayed,
    SetupDealt,
    SkullPlayed,
    TradePlayed,
    TurnPassed,
)
from .rules import OPTIONS, RULE_IDS, RULES
from .state import Owed, Seat, State, gold, pile_size

__all__ = [
    "DEFAULT", "DEFAULT_BOX", "EVENTS", "MANIFEST", "OPTIONS", "RULES", "RULE_IDS", "SPEC", "SPLICE", "BlackSpotPlayed",
    "BlindDrawn", "Box", "CardPicked", "CardsDealt", "CardsDiscarded", "CardsDrawn", "CoinsPlayed", "DisksChosen",
    "DisksDealt", "DisksRedrawn", "HoldingsRevealed", "MapLaid", "MapsBought", "MapsReturned", "Owed", "PiracyPlayed",
    "Seat", "SetupDealt", "SkullPlayed", "Splice", "State", "TradePlayed", "TurnPassed", "box_for", "card_name",
    "deck_cards", "deck_copies", "gold", "pile_size", "read_set",
]


@bound(__name__)
class Splice(GameSpec[State]):
    name = "splice"
    title = "Splice (house rules)"
    rules_version = "1"
    manifest = MANIFEST
    min_seats = 2
    max_seats = 4
    options = OPTIONS
    events = EVENTS
    state_type = State
    rules = RULES

    def check_started(self, started: GameStarted) -> list[str]:
        """The kernel's checks, and one of Splice's own: every player needs a gemstone disk."""
        problems = super().check_started(started)
        if not problems:
            colours = len(box_for(started.manifest).colours)
            if len(started.seats) > colours:
                problems.append(f"{len(started.seats)} players need {len(started.seats)} gemstone disks; the manifest has {colours}")
        return problems


SPEC = SPLICE = Splice()
