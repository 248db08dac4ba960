"""Ten, a tiny game that exists only for tests: it proves docs/architecture.md's "Adding a game" checklist.

Players take turns saying 1 or 2; the running total starts at 0, and whoever brings it to exactly the
target (option `target`, 10) wins. Nothing is hidden and nothing is left to chance. It is not in the
registry: `tests/test_game_contract.py` checks it with the games that are.
"""

from __future__ import annotations

from tally.core.model import GameSpec, bound

from .data import MANIFEST
from .events import EVENTS, NumberSaid
from .rules import OPTIONS, RULES
from .state import State

__all__ = ["EVENTS", "SPEC", "NumberSaid", "State", "TinyGame"]


@bound(__name__)
class TinyGame(GameSpec[State]):
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


SPEC = TinyGame()
