"""Split (David Hoyt; Hasbro, revised edition 2001): three scored rounds of matching half-cards, with every
rule of docs/rules/split.md.

The package is one module per part of the game contract (docs/architecture.md): `data` and `components`
(the half-cards, reference cards and score pad of a manifest), `events`, `state`, `rules` (rule ids,
options and guards), `reducer`, `moves`, `notation`, `view`, `history` (the library's tables) and
`transcript`. This file states the members of `SPEC`, its `GameSpec`, binding the functions of the modules
above where the contract says they live (`core.model.bound` reads the ones a move never needs on first use),
and names what other code imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model import GameSpec, GameStarted, bound
from . import components as _components
from . import moves as _moves
from . import notation as _notation
from . import reducer as _reducer
from . import rules as _rules
from . import state as _state
from . import view as _view
from .components import DEFAULT, DEFAULT_DECK, GRADES, HAND, Deck, deck_for, grade, pad_total
from .data import MANIFEST
from .events import (
    EVENTS,
    BonusDeclined,
    CardDiscarded,
    CardDrawn,
    HandNamed,
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

if TYPE_CHECKING:  # what recording a move never needs: `bound` reads it on first use
    from . import history as _history
    from . import naming as _naming
    from . import picture as _picture
    from . import transcript as _transcript

__all__ = [
    "DEFAULT",
    "DEFAULT_DECK",
    "EVENTS",
    "GRADES",
    "HAND",
    "MANIFEST",
    "OPTIONS",
    "RULES",
    "RULE_IDS",
    "SPEC",
    "SPLIT",
    "BonusDeclined",
    "CardDiscarded",
    "CardDrawn",
    "Deck",
    "HandNamed",
    "LayingDone",
    "MatchPlayed",
    "MatchUpgraded",
    "MatchesSwapped",
    "MinusMarked",
    "RoundDealt",
    "RoundResult",
    "RowTaken",
    "Seat",
    "Split",
    "State",
    "deck_for",
    "grade",
    "pad_total",
    "unlocated",
]


@bound(__name__)
class Split(GameSpec[State, _view.SplitView]):
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
        history = _history.HISTORY
        picture = staticmethod(_picture.draw)
        draw_piece = staticmethod(_picture.draw_piece)
        pieces = staticmethod(_naming.pieces)
        naming = staticmethod(_naming.naming)

    def check_started(self, started: GameStarted) -> list[str]:
        """The shared checks, then whether the box holds enough half-cards for this many players."""
        problems = super().check_started(started)
        if problems:
            return problems
        deck = deck_for(started.manifest)
        needed = HAND * len(started.seats) + 2  # the hands, the row's first card, and a pile to draw from
        if deck.size < needed:
            return [
                f"manifest: {deck.size} half-cards are too few for {len(started.seats)} players (at least {needed})"
            ]
        return []


SPEC = SPLIT = Split()
