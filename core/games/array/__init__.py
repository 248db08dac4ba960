"""Array (Funnybone Toys, 2012): arrays of touching colours, slice and splice, rounds until one player is left.

The package is one module per part of the game contract (docs/architecture.md): `data` and `components`
(the box: colours and cards), `events`, `state` (with the table as a graph of joined cards), `rules`
(rule ids, options and guards), `reducer`, `moves`, `notation`, `view`, `history` (the library's tables)
and `transcript`. This file binds them into `SPEC`, the game's `GameSpec`.
"""

from __future__ import annotations

from ...model import GameSpec, bound
from .components import ACTIONS, DEAL, DEFAULT_BOX, DEFAULT_MANIFEST, SLAM_POINTS, Box, is_action, load_box, points
from .data import MANIFEST
from .events import (
    EVENTS,
    ActionGiven,
    CardDrawn,
    CardShown,
    CardSpliced,
    RoundDealt,
    Sliced,
    StarterTurned,
    TimeCalled,
    TurnEnded,
    TurnPassed,
)
from .rules import OPTIONS, RULE_IDS, RULES
from .state import Result, State, arrays, joins, open_segments

__all__ = [
    "ACTIONS", "ARRAY", "DEAL", "DEFAULT_BOX", "DEFAULT_MANIFEST", "EVENTS", "MANIFEST", "OPTIONS", "RULES", "RULE_IDS",
    "SLAM_POINTS", "SPEC", "ActionGiven", "Array", "Box", "CardDrawn", "CardShown", "CardSpliced", "Result",
    "RoundDealt", "Sliced", "StarterTurned", "State", "TimeCalled", "TurnEnded", "TurnPassed", "arrays", "is_action",
    "joins", "load_box", "open_segments", "points",
]


@bound(__name__)
class Array(GameSpec[State]):
    name = "array"
    title = "Array"
    rules_version = "1"
    manifest = MANIFEST
    min_seats = 2
    max_seats = 5
    options = OPTIONS
    events = EVENTS
    state_type = State
    rules = RULES


SPEC = ARRAY = Array()
