"""Array's random playouts for `tally simulate`: the kernel's loop over `moves.pick_move` and the reducer, with the
table's open segments and joins (`moves.Segments`) kept from move to move instead of walked again on every turn. The
same draws give the same events and final state as `core.engine.play_drawn` (`tests/test_simulate_moves.py` holds
the two together): whoever changes how a card is laid (`reducer._laid`, `_apply_slice`) changes `Segments` too.
"""

from __future__ import annotations

from collections.abc import Callable

from ...engine import dealt
from ...model import Event, GameSpec, GameStarted
from ...referee import reducers_of
from .moves import Segments, _pick_turn, pick_move
from .state import State


def play_drawn(
    spec: GameSpec[State], started: GameStarted, below: Callable[[int], int], shuffle: Callable[[list[str]], list[str]],
    limit: int,
) -> tuple[list[Event], State]:
    """`core.engine.play_drawn` for Array: each move drawn as `pick_move` draws it and applied by the reducer, a
    turn's count read off a `Segments` that follows the table from move to move (`Segments.follow`) and is built
    again for each round dealt."""
    chance, state = dealt(spec, spec.start(started), shuffle)
    events: list[Event] = [started, *chance]
    shuffles, append = spec.shuffles, events.append
    reduce = reducers_of(spec.apply, spec.events)
    table = Segments.of(state)
    while len(events) < limit:
        move = _pick_turn(state, below, table) if state.phase == "play" else pick_move(state, below)
        if move is None:
            break
        after = reduce[type(move)](state, move)
        table = table.follow(state, move, after)
        state = after
        append(move)
        if state.phase == "deal" and shuffles(state):  # a new round's deal (`shuffles` deals only then)
            chance, state = dealt(spec, state, shuffle)
            events.extend(chance)
            if state.placed is not table.placed:  # the new round's table
                table = Segments.of(state)
    return events, state
