"""Splendor (Marc André, 2014), the base game with every rule of docs/rules/splendor.md.

The package is one module per part of the game contract (docs/architecture.md): `data` and
`components` (the cards and nobles), `events`, `state`, `rules` (rule ids, options and guards),
`reducer`, `moves`, `notation`, `view`, `history` (the library's tables) and `transcript`.
This file states the members of `SPEC`, its `GameSpec`, binding the functions of the modules above
where the contract says they live (`core.model.bound` reads the ones a move never needs on first use),
and names what other code imports.
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

if TYPE_CHECKING:  # what recording a move never needs: `bound` reads it on first use
    from . import history as _history
    from . import naming as _naming
    from . import picture as _picture
    from . import playout as _playout
    from . import transcript as _transcript

__all__ = [
    "CARDS",
    "COLOURS",
    "EVENTS",
    "GEMS",
    "GOLD",
    "LEVEL_CARDS",
    "MANIFEST",
    "NOBLES",
    "NOBLE_NAMES",
    "OPTIONS",
    "RULES",
    "RULE_IDS",
    "SPEC",
    "SPLENDOR",
    "Card",
    "CardBought",
    "CardReserved",
    "CardRevealed",
    "GemsTaken",
    "NobleChosen",
    "NobleRevealed",
    "Seat",
    "SetupDealt",
    "Splendor",
    "State",
    "TokensReturned",
    "TurnPassed",
    "default_payment",
    "unlocated",
]


@bound(__name__)
class Splendor(GameSpec[State, _view.SplendorView]):
    name = "splendor"
    title = "Splendor"
    bgg_id = 148228  # boardgamegeek.com/boardgame/148228
    rules_version = "1"
    manifest = MANIFEST
    min_seats = 2
    max_seats = 4
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


SPEC = SPLENDOR = Splendor()
