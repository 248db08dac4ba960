"""Ten, a tiny game that exists only for tests: it proves docs/architecture.md's "Adding a game" checklist.

Players take turns saying 1 or 2; the running total starts at 0, and whoever brings it to exactly the
target (option `target`, 10) wins. Nothing is hidden and nothing is left to chance. It is not in the
registry: `tests/core/test_game_contract.py` checks it with the games that are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tally.core.model import GameSpec, bound

from . import moves as _moves
from . import notation as _notation
from . import reducer as _reducer
from . import rules as _rules
from . import state as _state
from . import view as _view
from .data import MANIFEST
from .events import EVENTS, NumberSaid
from .rules import OPTIONS, RULES
from .state import State

if TYPE_CHECKING:  # what recording a move never needs: `bound` reads it on first use
    from . import history as _history
    from . import picture as _picture

__all__ = ["EVENTS", "SPEC", "NumberSaid", "State", "TinyGame"]


@bound(__name__)
class TinyGame(GameSpec[State, _view.TenView]):
    name = "tinygame"
    title = "Ten"
    rules_version = "1"
    manifest = MANIFEST
    min_seats = 2
    max_seats = 3
    options = OPTIONS
    events = EVENTS
    state_type = State
    rules = RULES

    # the contract's functions, where BINDINGS says they live (the contract test holds the two together)
    start = staticmethod(_reducer.start)
    check = staticmethod(_rules.check)
    permit = staticmethod(_rules.permit)
    apply = staticmethod(_reducer.apply)
    legal_moves = staticmethod(_moves.legal_moves)
    parse = staticmethod(_notation.parse)
    format = staticmethod(_notation.format_event)
    notation = _notation.NOTATION
    view = staticmethod(_view.view)
    turn = staticmethod(_state.turn)
    outcome = staticmethod(_view.outcome)
    to_act = staticmethod(_view.to_act)
    if TYPE_CHECKING:  # bound to the same functions at run time by `bound`, imported on first use
        history = _history.HISTORY
        picture = staticmethod(_picture.draw)


SPEC = TinyGame()
