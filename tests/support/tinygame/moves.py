"""Ten's legal moves, in a fixed order; nothing is left to chance (the contract's `shuffles`, `deal`, `pick_move` and
`play_drawn` are the kernel's defaults)."""

from __future__ import annotations

from tally.core.model import Event

from .components import AMOUNTS
from .events import NumberSaid
from .state import State


def legal_moves(state: State) -> list[Event]:
    if state.phase == "over":
        return []
    return [NumberSaid(player=state.player_name, amount=n) for n in AMOUNTS if state.total + n <= state.target]
