"""Array's random playouts for `tally simulate`: the kernel's loop (`core.engine._played`) over `moves.pick_move` and
the reducer, with the table's open segments and joins (`moves.Segments`) kept from move to move instead of walked
again on every turn. The same draws give the same events and final state as `core.engine.play_drawn`
(`tests/core/test_simulate_moves.py` holds the two together): whoever changes how a card is laid (`reducer._apply_lay`,
`_apply_slice`) changes `Segments` too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...engine import _played
from ...model import Event, GameSpec, GameStarted
from .moves import Segments, _pick_turn, pick_move
from .state import State


class _Follower:
    """The table's `Segments`, followed from move to move and built again when a new round's table is dealt."""

    def __init__(self) -> None:
        self.table: Segments | None = None

    def pick(self, state: State, below: Callable[[int], int]) -> Event | None:
        if state.phase != "play":
            return pick_move(state, below)
        table = self.table
        if table is None or state.placed is not table.placed:  # the first turn, or a new round's table
            table = self.table = Segments.of(state)
        return _pick_turn(state, below, table)

    def moved(self, before: State, move: Event, after: State) -> None:
        table = self.table
        if table is not None:  # an index of another table (dealt since) is dropped: the next turn builds it anew
            self.table = table.follow(before, move, after) if before.placed is table.placed else None


def play_drawn(
    spec: GameSpec[State, Any],
    started: GameStarted,
    below: Callable[[int], int],
    shuffle: Callable[[list[str]], list[str]],
    limit: int,
) -> tuple[list[Event], State]:
    """`core.engine.play_drawn` for Array: each move drawn as `pick_move` draws it and applied by the reducer, a
    turn's count read off a `Segments` that follows the table from move to move (`Segments.follow`)."""
    follower = _Follower()
    return _played(spec, started, follower.pick, below, shuffle, limit, follower.moved)
