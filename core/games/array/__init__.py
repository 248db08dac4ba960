"""Array (Funnybone Toys, 2012): arrays of touching colours, slice and splice, rounds until one player is left.

The package is one module per part of the game contract (docs/architecture.md): `data` and `components`
(the box: colours and cards), `events`, `state` (with the table as a graph of joined cards), `rules`
(rule ids, options and guards), `reducer`, `moves`, `notation`, `view`, `history` (the library's tables)
and `transcript`. This file binds them into `SPEC`, the game's `GameSpec`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model import GameSpec, bound
from . import components as _components
from . import moves as _moves
from . import notation as _notation
from . import reducer as _reducer
from . import rules as _rules
from . import state as _state
from . import view as _view
from .components import ACTIONS, DEAL, DEFAULT_BOX, DEFAULT_MANIFEST, SLAM_POINTS, Box, is_action, load_box, points
from .data import MANIFEST
from .events import (
    EVENTS,
    ActionGiven,
    CardDrawn,
    CardShown,
    CardSpliced,
    HandNamed,
    RoundDealt,
    Sliced,
    StarterTurned,
    TimeCalled,
    TurnEnded,
    TurnPassed,
)
from .rules import OPTIONS, RULE_IDS, RULES
from .state import Result, State, arrays, joins, open_segments

if TYPE_CHECKING:  # what recording a move never needs: `bound` reads it on first use
    from . import history as _history
    from . import naming as _naming
    from . import picture as _picture
    from . import playout as _playout
    from . import transcript as _transcript

__all__ = [
    "ACTIONS",
    "ARRAY",
    "DEAL",
    "DEFAULT_BOX",
    "DEFAULT_MANIFEST",
    "EVENTS",
    "MANIFEST",
    "OPTIONS",
    "RULES",
    "RULE_IDS",
    "SLAM_POINTS",
    "SPEC",
    "ActionGiven",
    "Array",
    "Box",
    "CardDrawn",
    "CardShown",
    "CardSpliced",
    "HandNamed",
    "Result",
    "RoundDealt",
    "Sliced",
    "StarterTurned",
    "State",
    "TimeCalled",
    "TurnEnded",
    "TurnPassed",
    "arrays",
    "is_action",
    "joins",
    "load_box",
    "open_segments",
    "points",
]


@bound(__name__)
class Array(GameSpec[State, _view.ArrayView]):
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

    # the contract's functions, where BINDINGS says they live (the contract test holds the two together)
    start = staticmethod(_reducer.start)
    check = staticmethod(_rules.check)
    permit = staticmethod(_rules.permit)
    is_voidable = staticmethod(_rules.is_voidable)
    apply = staticmethod(_reducer.apply)
    legal_moves = staticmethod(_moves.legal_moves)
    pick_move = staticmethod(_moves.pick_move)
    shuffles = staticmethod(_moves.shuffles)
    deal = staticmethod(_moves.deal)
    parse = staticmethod(_notation.parse)
    format = staticmethod(_notation.format_event)
    notation = _notation.NOTATION
    view = staticmethod(_view.view)
    conceal = staticmethod(_state.conceal)
    turn = staticmethod(_state.turn)
    outcome = staticmethod(_view.outcome)
    to_act = staticmethod(_view.to_act)
    waiting_on = staticmethod(_view.waiting_on)
    owed = staticmethod(_view.owed)
    pending = staticmethod(_view.pending)
    narrate = staticmethod(_view.narrate)
    check_manifest = staticmethod(_components.check_manifest)
    if TYPE_CHECKING:  # bound to the same functions at run time by `bound`, imported on first use
        table_transcript = staticmethod(_transcript.table_transcript)
        play_drawn = staticmethod(_playout.play_drawn)
        history = _history.HISTORY
        picture = staticmethod(_picture.draw)
        draw_piece = staticmethod(_picture.draw_piece)
        pieces = staticmethod(_naming.pieces)
        naming = staticmethod(_naming.naming)


SPEC = ARRAY = Array()
