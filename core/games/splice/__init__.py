"""Splice, as reworked by the house rules of the seed (docs/rules/splice.md): maps, gold, piracy and Hurricanes.

The package is one module per part of the game contract (docs/architecture.md): `data` and `components`
(the box, from a manifest), `events`, `state`, `rules` (rule ids, options and guards), `reducer`, `moves`,
`notation`, `view`, `history` (the library's tables) and `transcript`. This file binds them into `SPEC`.
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
    HandNamed,
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

if TYPE_CHECKING:  # what recording a move never needs: `bound` reads it on first use
    from . import history as _history
    from . import naming as _naming
    from . import picture as _picture
    from . import transcript as _transcript

__all__ = [
    "DEFAULT",
    "DEFAULT_BOX",
    "EVENTS",
    "MANIFEST",
    "OPTIONS",
    "RULES",
    "RULE_IDS",
    "SPEC",
    "SPLICE",
    "BlackSpotPlayed",
    "BlindDrawn",
    "Box",
    "CardPicked",
    "CardsDealt",
    "CardsDiscarded",
    "CardsDrawn",
    "CoinsPlayed",
    "DisksChosen",
    "DisksDealt",
    "DisksRedrawn",
    "HandNamed",
    "HoldingsRevealed",
    "MapLaid",
    "MapsBought",
    "MapsReturned",
    "Owed",
    "PiracyPlayed",
    "Seat",
    "SetupDealt",
    "SkullPlayed",
    "Splice",
    "State",
    "TradePlayed",
    "TurnPassed",
    "box_for",
    "card_name",
    "deck_cards",
    "deck_copies",
    "gold",
    "pile_size",
    "read_set",
]


@bound(__name__)
class Splice(GameSpec[State, _view.SpliceView]):
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

    # the contract's functions, where BINDINGS says they live (the contract test holds the two together)
    start = staticmethod(_reducer.start)
    check = staticmethod(_rules.check)
    permit = staticmethod(_rules.permit)
    is_voidable = staticmethod(_rules.is_voidable)
    is_revealed_as_made = staticmethod(_rules.is_revealed_as_made)
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
        """The kernel's checks, and one of Splice's own: every player needs a gemstone disk."""
        problems = super().check_started(started)
        if not problems:
            colours = len(box_for(started.manifest).colours)
            if len(started.seats) > colours:
                problems.append(
                    f"{len(started.seats)} players need {len(started.seats)} gemstone disks; the manifest has {colours}"
                )
        return problems


SPEC = SPLICE = Splice()
