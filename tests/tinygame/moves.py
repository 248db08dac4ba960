"""Ten's legal moves, in a fixed order; nothing is left to chance."""

from __future__ import annotations

from collections.abc import Callable
from tally.core.engine import play_drawn as play_drawn  # a playout is the kernel's loop
from tally.core.model import Event, pick_listed

from .components import AMOUNTS
from .events import NumberSaid
from .state import State


def legal_moves(state: State) -> list[Event]:
    if state.phase == "over":
        return []
    return [NumberSaid(player=state.player_name, amount=n) for n in AMOUNTS if state.total + n <= state.target]


def shuffles(state: State) -> dict[str, list[str]]:
    return {}


def deal(state: State, shuffled: dict[str, list[str]]) -> list[Event]:
    return []


def pick_move(state: State, below: Callable[[int], int]) -> Event | None:
    return pick_listed(legal_moves(state), below)
